/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_ib_cc.c: arbitrary OpenSM options files into the ib_cc drift
 * check (lib/qos/ib_cc.c: ibcc_file_drift, the text operators edit), with
 * congestion-control settings taken from the input's first bytes through the
 * checks and the options writer, and the block writer loomd uses
 * (lib/qos/options_block.c: options_block_set).
 *
 * Input: 40 bytes of settings (zero-filled when short), then the file's text
 * (up to its first NUL).
 *
 * Invariants: a configuration ibcc_check accepts is written in fewer than
 * IBCC_OPTIONS_MAX bytes and every line of it fits OpenSM's 1022; the drift
 * check answers 0 or 1 with its reason terminated and non-empty exactly for 1;
 * a file without loom's begin marker is "missing" and, once loom's block is
 * written into it, in policy (the writer and the checker agree whatever the
 * operator's lines are); a port mask or a delay that parses prints back to
 * itself.
 *
 * By hand: build with `make fuzz` and run tests/fuzz/bin/fuzz_ib_cc CORPUS_COPY
 * (see docs/fuzzing.md). */
#include "autoconf.h"

#include <errno.h>

#include "tests/fuzz/fuzz.h"
#include "lib/qos/options_block.h"
#include "daemon/qos/qos_ib.h"
#include "lib/qos/ib_cc.h"

const char fuzz_name[] = "fuzz_ib_cc";

#define HEAD 40

static void settings(const uint8_t *b, struct ibcc_config *c)
{
	ibcc_defaults(c);
	c->set = 1;
	c->enable = b[0] & 1;
	memcpy(&c->cc_key, b + 1, 8);
	c->max_outstanding_mads = 1u + b[9];
	c->sw.control_map = b[10];
	c->sw.victim_mask[31] = b[11];
	c->sw.victim_mask[0] = b[12];
	c->sw.credit_mask[30] = b[13];
	c->sw.threshold = b[14];
	c->sw.packet_size = b[15];
	c->sw.cs_threshold = b[16];
	c->sw.cs_return_delay.shift = b[17] & 7;
	c->sw.cs_return_delay.multiplier = (uint16_t)(b[18] << 7);
	c->sw.marking_rate = (uint16_t)(b[19] << 8 | b[20]);
	c->ca.port_control = b[21] & 3;
	c->ca.control_map = (uint16_t)(b[22] << 8 | b[23]);
	for (unsigned i = 0; i < 8; i++)
		c->ca.sl[b[24 + i] & 15].ccti_timer = (uint16_t)(b[24 + i] << 4);
	c->ca.sl[b[32] & 15].ccti_min = b[33] & 7;
	c->n_cct = b[34] % (IBCC_CCT_MAX + 2);
	for (unsigned i = 0; i < c->n_cct && i < IBCC_CCT_MAX; i++)
		c->cct[i] = (struct ibcc_delay){ (uint8_t)((b[35] + i) & 3),
						 (uint16_t)((b[36] * 131u + i * b[37]) & 0x3FFF) };
}

static void check_lines(const char *opts)
{
	for (const char *p = opts; *p;) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			fuzz_bug("the options do not end with a newline");
		if (nl - p > IBCC_OSM_LINE_MAX)
			fuzz_bug("an option line is %td characters", nl - p);
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t head[HEAD] = { 0 };
	static struct ibcc_config c;
	static char opts[IBCC_OPTIONS_MAX];
	char why[512], err[512], *text, *file;
	size_t tlen = size > HEAD ? size - HEAD : 0;
	int rc;

	memcpy(head, data, size < HEAD ? size : HEAD);
	settings(head, &c);
	if (ibcc_check(&c, err, sizeof(err)) < 0) {
		if (!strchr(err, ':'))
			fuzz_bug("a refusal names no key: %s", err);
		c.n_cct = 0;  /* go on with a configuration that passes */
		ibcc_defaults(&c);
	}
	if (ibcc_opensm_options(&c, opts, sizeof(opts)) >= (int)sizeof(opts))
		fuzz_bug("the options of an accepted configuration do not fit");
	check_lines(opts);

	if (!(text = malloc(tlen + 1)))
		return 0;
	memcpy(text, data + (size > HEAD ? HEAD : size), tlen);
	text[tlen] = '\0';
	why[0] = 'x';
	rc = ibcc_file_drift(text, opts, why, sizeof(why));
	fuzz_check_terminated(why, sizeof(why), "the drift reason");
	if (rc != 0 && rc != 1)
		fuzz_bug("drift returned %d", rc);
	if (rc == 1 && !why[0])
		fuzz_bug("drift without a reason");
	if (!strstr(text, IBCC_BLOCK_BEGIN)) {
		if (rc != 1 || !strstr(why, "missing"))
			fuzz_bug("a file without loom's block: %d \"%s\"", rc, why);
		if ((file = options_block_set(text, IBCC_BLOCK_BEGIN, IBCC_BLOCK_END, opts))) {
			if (ibcc_file_drift(file, opts, why, sizeof(why)) != 0)
				fuzz_bug("loom's own block is drift: %s", why);
			free(file);
		}
	}
	/* masks and delays from the text's first bytes */
	{
		uint8_t m[IBCC_MASK_BYTES], m2[IBCC_MASK_BYTES];
		char out[67], s[80];
		struct ibcc_delay d, d2;

		snprintf(s, sizeof(s), "%.70s", text);
		if (ibcc_mask_parse(s, m) == 0) {
			ibcc_mask_format(m, out);
			if (ibcc_mask_parse(out, m2) != 0 || memcmp(m, m2, sizeof(m)))
				fuzz_bug("mask \"%s\" does not print back (%s)", s, out);
		}
		if (ibcc_delay_parse(s, &d) == 0) {
			snprintf(out, sizeof(out), "%u:%u", d.shift, d.multiplier);
			if (ibcc_delay_parse(out, &d2) != 0 || d.shift != d2.shift ||
			    d.multiplier != d2.multiplier || d.shift > 3 || d.multiplier > 16383)
				fuzz_bug("delay \"%s\" does not print back", s);
		}
	}
	free(text);
	return 0;
}
