/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/ib_cc.c: InfiniBand congestion control settings (see ib_cc.h). */
#include "autoconf.h"
#include "lib/qos/ib_cc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ibcc_defaults(struct ibcc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->max_outstanding_mads = 500;  /* OSM_CC_DEFAULT_MAX_OUTSTANDING_QUERIES */
}

static int cc_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cc_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int delay_ok(const struct ibcc_delay *d)
{
	return d->shift <= 3 && d->multiplier <= 16383;
}

static int mask_empty(const uint8_t *m)
{
	for (unsigned i = 0; i < IBCC_MASK_BYTES; i++)
		if (m[i])
			return 0;
	return 1;
}

/* The length of the cc_cct line without its newline. */
static size_t cct_line_len(const struct ibcc_config *c)
{
	char buf[32];
	size_t n = strlen("cc_cct ");

	if (!c->n_cct)
		return n + strlen("(null)");
	for (unsigned i = 0; i < c->n_cct; i++)
		n += (size_t)snprintf(buf, sizeof(buf), "%s%u:%u", i ? "," : "", c->cct[i].shift,
				      c->cct[i].multiplier);
	return n;
}

int ibcc_check(const struct ibcc_config *c, char *err, size_t errlen)
{
	static const struct {
		unsigned bit;
		const char *key;
	} sw_bits[] = {
		{ 0, "victim_mask" }, { 1, "credit_mask" }, { 2, "threshold" },
		{ 2, "packet_size" }, { 3, "credit_starvation_threshold" },
		{ 3, "credit_starvation_return_delay" }, { 4, "marking_rate" },
	};
	unsigned limit = c->n_cct ? c->n_cct - 1 : 0;

	if (!c->max_outstanding_mads)
		return cc_fail(err, errlen, "ib_cc.max_outstanding_mads: 0 would let OpenSM send no "
			       "congestion-control MAD at all");
	if (c->sw.control_map & ~IBCC_SW_MAP_BITS)
		return cc_fail(err, errlen, "ib_cc.switch.control_map: 0x%" PRIX32 " sets reserved "
			       "bits (0x1F: victim mask, credit mask, threshold + packet size, credit "
			       "starvation, marking rate)", c->sw.control_map);
	if ((c->sw.victim_mask[0] | c->sw.credit_mask[0]) & 0x80)
		return cc_fail(err, errlen, "ib_cc.switch.%s: bit 255 is reserved (ports 0..254)",
			       c->sw.victim_mask[0] & 0x80 ? "victim_mask" : "credit_mask");
	if (c->sw.threshold > 15 || c->sw.cs_threshold > 15)
		return cc_fail(err, errlen, "ib_cc.switch.%s: %u does not fit its 4 bits (0..15)",
			       c->sw.threshold > 15 ? "threshold" : "credit_starvation_threshold",
			       c->sw.threshold > 15 ? c->sw.threshold : c->sw.cs_threshold);
	if (!delay_ok(&c->sw.cs_return_delay))
		return cc_fail(err, errlen, "ib_cc.switch.credit_starvation_return_delay: shift 0..3, "
			       "multiplier 0..16383");
	for (size_t i = 0; i < sizeof(sw_bits) / sizeof(sw_bits[0]); i++) {
		int given;

		switch (i) {
		case 0: given = !mask_empty(c->sw.victim_mask); break;
		case 1: given = !mask_empty(c->sw.credit_mask); break;
		case 2: given = c->sw.threshold != 0; break;
		case 3: given = c->sw.packet_size != 0; break;
		case 4: given = c->sw.cs_threshold != 0; break;
		case 5: given = c->sw.cs_return_delay.shift || c->sw.cs_return_delay.multiplier; break;
		default: given = c->sw.marking_rate != 0; break;
		}
		if (given && !(c->sw.control_map >> sw_bits[i].bit & 1))
			return cc_fail(err, errlen, "ib_cc.switch.%s: set, but control_map bit %u is "
				       "clear: switches would ignore it (control_map 0x%" PRIX32 ")",
				       sw_bits[i].key, sw_bits[i].bit, c->sw.control_map);
	}
	if (c->ca.port_control & ~1u)
		return cc_fail(err, errlen, "ib_cc.ca.port_control: 0x%04X sets reserved bits (bit 0 "
			       "only: 0 QP based, 1 SL/port based)", c->ca.port_control);
	for (unsigned sl = 0; sl < IBCC_SLS; sl++) {
		const struct ibcc_ca_sl *e = &c->ca.sl[sl];

		if ((e->ccti_timer || e->ccti_increase || e->trigger_threshold || e->ccti_min) &&
		    !(c->ca.control_map >> sl & 1))
			return cc_fail(err, errlen, "ib_cc.ca.sls: SL %u has settings, but ca.control_map "
				       "0x%04X leaves SL %u out: the CAs would ignore them", sl,
				       c->ca.control_map, sl);
		if (e->ccti_min > limit)
			return cc_fail(err, errlen, "ib_cc.ca.sls: SL %u: ccti_min %u is past the "
				       "congestion control table's last index %u (ib_cc.cct has %u "
				       "entries)", sl, e->ccti_min, limit, c->n_cct);
	}
	if (c->n_cct > IBCC_CCT_MAX)
		return cc_fail(err, errlen, "ib_cc.cct: %u entries; OpenSM keeps %d", c->n_cct,
			       IBCC_CCT_MAX);
	for (unsigned i = 0; i < c->n_cct; i++)
		if (!delay_ok(&c->cct[i]))
			return cc_fail(err, errlen, "ib_cc.cct: entry %u: shift 0..3, multiplier "
				       "0..16383", i);
	if (cct_line_len(c) > IBCC_OSM_LINE_MAX)
		return cc_fail(err, errlen, "ib_cc.cct: OpenSM's cc_cct line would be %zu characters; "
			       "it reads %d of a line and would cut the table (use fewer entries "
			       "or smaller multipliers)", cct_line_len(c), IBCC_OSM_LINE_MAX);
	return 0;
}

void ibcc_mask_format(const uint8_t mask[IBCC_MASK_BYTES], char out[67])
{
	out[0] = '0';
	out[1] = 'x';
	for (unsigned i = 0; i < IBCC_MASK_BYTES; i++)
		snprintf(out + 2 + 2 * i, 3, "%02X", mask[i]);
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = (char)tolower((unsigned char)ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

int ibcc_mask_parse(const char *s, uint8_t mask[IBCC_MASK_BYTES])
{
	size_t n;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	n = strlen(s);
	if (!n || n > 2 * IBCC_MASK_BYTES)
		return -EINVAL;
	memset(mask, 0, IBCC_MASK_BYTES);
	for (size_t i = 0; i < n; i++) {
		int v = hexval(s[n - 1 - i]);  /* i-th nibble from the right */

		if (v < 0)
			return -EINVAL;
		mask[IBCC_MASK_BYTES - 1 - i / 2] |= (uint8_t)(i % 2 ? v << 4 : v);
	}
	return 0;
}

int ibcc_delay_parse(const char *s, struct ibcc_delay *d)
{
	unsigned long sh, mu;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	sh = strtoul(s, &end, 10);
	if (*end != ':' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	mu = strtoul(end + 1, &end, 10);
	if (*end || sh > 3 || mu > 16383)
		return -EINVAL;
	d->shift = (uint8_t)sh;
	d->multiplier = (uint16_t)mu;
	return 0;
}

/* snprintf that keeps counting past len (the length it would need). */
static size_t put_fmt(char *buf, size_t len, size_t o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put_fmt(char *buf, size_t len, size_t o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o < len ? buf + o : NULL, o < len ? len - o : 0, fmt, ap);
	va_end(ap);
	return o + (n > 0 ? (size_t)n : 0);
}

int ibcc_opensm_options(const struct ibcc_config *c, char *buf, size_t len)
{
	char vm[67], cm[67];
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	ibcc_mask_format(c->sw.victim_mask, vm);
	ibcc_mask_format(c->sw.credit_mask, cm);
	o = put_fmt(buf, len, o, "congestion_control %s\ncc_key 0x%016" PRIx64 "\n"
		    "cc_max_outstanding_mads %" PRIu32 "\n", c->enable ? "TRUE" : "FALSE", c->cc_key,
		    c->max_outstanding_mads);
	o = put_fmt(buf, len, o, "cc_sw_cong_setting_control_map 0x%" PRIX32 "\n"
		    "cc_sw_cong_setting_victim_mask %s\ncc_sw_cong_setting_credit_mask %s\n"
		    "cc_sw_cong_setting_threshold 0x%02X\ncc_sw_cong_setting_packet_size %u\n"
		    "cc_sw_cong_setting_credit_starvation_threshold 0x%02X\n"
		    "cc_sw_cong_setting_credit_starvation_return_delay %u:%u\n"
		    "cc_sw_cong_setting_marking_rate %u\n", c->sw.control_map, vm, cm, c->sw.threshold,
		    c->sw.packet_size, c->sw.cs_threshold, c->sw.cs_return_delay.shift,
		    c->sw.cs_return_delay.multiplier, c->sw.marking_rate);
	o = put_fmt(buf, len, o, "cc_ca_cong_setting_port_control 0x%04X\n"
		    "cc_ca_cong_setting_control_map 0x%04X\n", c->ca.port_control, c->ca.control_map);
	for (unsigned sl = 0; sl < IBCC_SLS; sl++) {
		const struct ibcc_ca_sl *e = &c->ca.sl[sl];

		o = put_fmt(buf, len, o, "cc_ca_cong_setting_ccti_timer %u %u\n"
			    "cc_ca_cong_setting_ccti_increase %u %u\n"
			    "cc_ca_cong_setting_trigger_threshold %u %u\n"
			    "cc_ca_cong_setting_ccti_min %u %u\n", sl, e->ccti_timer, sl,
			    e->ccti_increase, sl, e->trigger_threshold, sl, e->ccti_min);
	}
	o = put_fmt(buf, len, o, "cc_cct %s", c->n_cct ? "" : "(null)");
	for (unsigned i = 0; i < c->n_cct; i++)
		o = put_fmt(buf, len, o, "%s%u:%u", i ? "," : "", c->cct[i].shift, c->cct[i].multiplier);
	o = put_fmt(buf, len, o, "\n");
	return (int)o;
}

/* ---- drift of the options file ------------------------------------------------- */

/* A line's first word (OpenSM: up to blank or tab), in out; its value (the
 * rest, trimmed) in *val. 0 when the line sets no option. */
static int line_key(const char *line, size_t n, char *out, size_t outlen, const char **val,
		    size_t *vlen)
{
	size_t i = 0, k = 0;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == n || line[i] == '#')
		return 0;
	while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '#') {
		if (k + 1 < outlen)
			out[k++] = line[i];
		i++;
	}
	out[k] = '\0';
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*val = line + i;
	*vlen = n - i;
	for (size_t j = 0; j < *vlen; j++)
		if ((*val)[j] == '#')
			*vlen = j;
	while (*vlen && ((*val)[*vlen - 1] == ' ' || (*val)[*vlen - 1] == '\t' ||
			 (*val)[*vlen - 1] == '\r'))
		(*vlen)--;
	return k > 0;
}

static int is_cc_key(const char *k)
{
	return !strcmp(k, "congestion_control") || !strncmp(k, "cc_", 3);
}

/* The key and value lines of a block of text, compared one by one. */
static int compare_block(const char *have, size_t hlen, const char *want, char *why,
			 size_t whylen)
{
	const char *h = have, *hend = have + hlen, *w = want;

	for (;;) {
		char hk[64] = "", wk[64] = "";
		const char *hv = "", *wv = "";
		size_t hvl = 0, wvl = 0;
		int hs = 0, ws = 0;

		while (h < hend && !hs) {  /* next option line of the file's block */
			const char *nl = memchr(h, '\n', (size_t)(hend - h));
			size_t n = nl ? (size_t)(nl - h) : (size_t)(hend - h);

			hs = line_key(h, n, hk, sizeof(hk), &hv, &hvl);
			h += n + (nl ? 1 : 0);
		}
		while (*w && !ws) {
			const char *nl = strchr(w, '\n');
			size_t n = nl ? (size_t)(nl - w) : strlen(w);

			ws = line_key(w, n, wk, sizeof(wk), &wv, &wvl);
			w += n + (nl ? 1 : 0);
		}
		if (!hs && !ws)
			return 0;
		if (!hs) {
			snprintf(why, whylen, "%s: missing from loom's block (loom.yaml: %.*s)", wk,
				 (int)wvl, wv);
			return 1;
		}
		if (!ws) {
			snprintf(why, whylen, "%s: in loom's block, but not loom.yaml's", hk);
			return 1;
		}
		if (strcmp(hk, wk)) {
			snprintf(why, whylen, "%s: in loom's block where loom.yaml has %s", hk, wk);
			return 1;
		}
		if (hvl != wvl || memcmp(hv, wv, hvl)) {
			snprintf(why, whylen, "%s: file has %.*s, loom.yaml %.*s", hk,
				 (int)(hvl > 80 ? 80 : hvl), hv, (int)(wvl > 80 ? 80 : wvl), wv);
			return 1;
		}
	}
}

int ibcc_file_drift(const char *text, const char *options, char *why, size_t whylen)
{
	const char *b = text ? strstr(text, IBCC_BLOCK_BEGIN) : NULL;
	const char *body = b ? b + strlen(IBCC_BLOCK_BEGIN) : NULL;
	const char *e = body ? strstr(body, IBCC_BLOCK_END) : NULL;
	const char *p;
	unsigned line;

	if (!b || !e) {
		snprintf(why, whylen, "loom's ib_cc block is missing from the options file");
		return 1;
	}
	if (compare_block(body, (size_t)(e - body), options, why, whylen))
		return 1;
	/* Lines after the block: OpenSM takes the last value of an option. */
	line = 1;
	for (p = text; p < e; p++)
		line += *p == '\n';
	for (p = e + strlen(IBCC_BLOCK_END), line++; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char k[64];
		const char *v;
		size_t vl;

		if (line_key(p, n, k, sizeof(k), &v, &vl) && is_cc_key(k)) {
			snprintf(why, whylen, "line %u sets %s again after loom's block (OpenSM takes "
				 "the last value): %.*s", line, k, (int)(vl > 80 ? 80 : vl), v);
			return 1;
		}
		p += n + (nl ? 1 : 0);
	}
	return 0;
}
