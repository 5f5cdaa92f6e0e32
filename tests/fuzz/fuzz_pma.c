/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_pma.c: arbitrary PMA replies into the PerfMgt decoders
 * (lib/telemetry/pma.c) and two samples' worth into the delta and rate
 * rules (lib/telemetry/counter_delta.c), as the counters sweep will use
 * them (issue 19).
 *
 * Input: a ClassPortInfo data field, then PortCounters and
 * PortCountersExtended data fields for a first and a second sample (192
 * bytes each, zero-filled when the input runs out); the port asked for is
 * the first PortCounters' PortSelect, or 1 when the first byte of the input
 * is odd (so that foreign answers are seen too), and the interval is 10 s.
 *
 * Invariants: decoders return 0, -EINVAL or -EPROTO and never read past the
 * field (the sanitizers); a counter read fits its width and its width is
 * the attribute's; PortXmitWait has a value exactly when ClassPortInfo says
 * so; a delta is never more than the counter's range; a rate exists only
 * for an exact delta, and is finite and not negative; a reset or saturated
 * interval never gives a rate.
 *
 * By hand (BUILD is a build directory where `make fuzz` has compiled
 * libloom.a with the sanitizers):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_pma.c BUILD/tests/fuzz/bin/obj/libloom.a \
 *       -lm -o fuzz_pma
 *   cp -r tests/fuzz/corpus/pma work && ./fuzz_pma work */
#include "autoconf.h"

#include <errno.h>
#include <math.h>

#include "tests/fuzz/fuzz.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"

const char fuzz_name[] = "fuzz_pma";

enum { F_CPI, F_PC1, F_EXT1, F_PC2, F_EXT2, N_FIELDS };

static void check_sample(const struct pma_sample *s, const struct pma_caps *caps, int ext)
{
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		unsigned want = pma_counter_bits(c);

		if (c == PMA_XMIT_WAIT && !caps->xmit_wait)
			want = 0;
		if (ext && (c == PMA_XMIT_DATA || c == PMA_RCV_DATA || c == PMA_XMIT_PKTS ||
			    c == PMA_RCV_PKTS))
			want = 64;
		if (s->bits[c] != want)
			fuzz_bug("%s read %u bits wide, not %u", pma_counter_name(c), s->bits[c], want);
		if (s->v[c] > cdelta_max(s->bits[c]))
			fuzz_bug("%s = %llu does not fit %u bits", pma_counter_name(c),
				 (unsigned long long)s->v[c], s->bits[c]);
	}
}

/* Decode one sample; 1 when both attributes were taken. */
static int sample(const uint8_t (*f)[PMA_DATA_LEN], int pc, unsigned port,
		  const struct pma_caps *caps, struct pma_sample *s)
{
	int rc = pma_decode_port_counters(f[pc], PMA_DATA_LEN, port, caps, s);

	if (rc != 0 && rc != -EPROTO)
		fuzz_bug("PortCounters: %d", rc);
	if (rc < 0)
		return 0;
	check_sample(s, caps, 0);
	if (!caps->ext)
		return 1;
	rc = pma_decode_port_counters_ext(f[pc + 1], PMA_DATA_LEN, port, s);
	if (rc != 0 && rc != -EPROTO)
		fuzz_bug("PortCountersExtended: %d", rc);
	if (rc < 0)
		return 0;
	check_sample(s, caps, 1);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[N_FIELDS][PMA_DATA_LEN];
	struct pma_sample a, b;
	struct pma_caps caps;
	unsigned port;
	size_t take = size < sizeof(f) ? size : sizeof(f);

	memset(f, 0, sizeof(f));
	if (take)
		memcpy(f, data, take);
	if (pma_decode_class_port_info(f[F_CPI], PMA_DATA_LEN, &caps) != 0)
		fuzz_bug("ClassPortInfo refused");
	if (caps.xmit_wait != !!(caps.cap_mask & PMA_CAP_XMIT_WAIT) || caps.cap_mask2 >> 27)
		fuzz_bug("ClassPortInfo decoded inconsistently");
	/* The short fields are refused, never read. */
	if (pma_decode_port_counters(f[F_PC1], PMA_DATA_LEN - 1, 0, &caps, &a) != -EINVAL ||
	    pma_decode_port_counters_ext(f[F_EXT1], 0, 0, &a) != -EINVAL)
		fuzz_bug("a short field was not refused");
	port = size && (data[0] & 1) ? 1 : f[F_PC1][1];
	if (!sample(f, F_PC1, port, &caps, &a) || !sample(f, F_PC2, port, &caps, &b))
		return 0;
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		struct cdelta d = cdelta_of(a.v[c], a.bits[c], b.v[c], b.bits[c]);
		double rate = -1.0;
		int rc = cdelta_rate(&d, 10.0, &rate);

		if (d.delta > cdelta_max(b.bits[c]))
			fuzz_bug("%s: delta %llu over the range", pma_counter_name(c),
				 (unsigned long long)d.delta);
		if ((d.state == CDELTA_NOT_READ) != (b.bits[c] == 0))
			fuzz_bug("%s: 'not read' and the width disagree", pma_counter_name(c));
		if (d.state == CDELTA_OK) {
			if (rc != 0 || !isfinite(rate) || rate < 0 || b.v[c] < a.v[c])
				fuzz_bug("%s: no sane rate for an exact delta", pma_counter_name(c));
		} else if (rc != -EAGAIN || rate != -1.0) {
			fuzz_bug("%s: a rate for a %s interval", pma_counter_name(c),
				 cdelta_state_name(d.state));
		}
	}
	return 0;
}
