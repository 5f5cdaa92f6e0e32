/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/metrics_text.c: see metrics_text.h. */
#include "autoconf.h"
#include "lib/telemetry/metrics_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/telemetry/counter_delta.h"

/* ---- the buffer ------------------------------------------------------------- */

void mt_buf_free(struct mt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int reserve(struct mt_buf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		return -ENOMEM;
	if (b->len + n + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (!(p = realloc(b->p, cap))) {
		b->oom = 1;
		return -ENOMEM;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void mt_put(struct mt_buf *b, const char *s, size_t n)
{
	if (reserve(b, n) < 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mt_puts(struct mt_buf *b, const char *s)
{
	mt_put(b, s, strlen(s));
}

static void putf(struct mt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct mt_buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		mt_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when the
 * bytes there are not one (overlong forms and surrogates included). */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

void mt_put_label_value(struct mt_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");

	while (*u) {
		size_t n = utf8_len(u);

		if (*u == '\\')
			mt_puts(b, "\\\\");
		else if (*u == '"')
			mt_puts(b, "\\\"");
		else if (*u == '\n')
			mt_puts(b, "\\n");
		else if (n == 0)
			mt_puts(b, "\xef\xbf\xbd");
		else
			mt_put(b, (const char *)u, n);
		u += n ? n : 1;
	}
}

const char *mt_node_name(const char *guid, const char *desc)
{
	(void)guid;
	return desc ? desc : "";
}

/* ---- what is exported ---------------------------------------------------------- */

static const struct {
	const char *family;
	const char *help;
	unsigned scale;     /* exported value = raw x scale */
} counters[PMA_N_COUNTERS] = {
	[PMA_SYMBOL_ERR] = { "loom_port_symbol_errors_total",
			     "Minor link errors detected on the physical lanes "
			     "(PMA SymbolErrorCounter, 16 bits, stops at all ones).", 1 },
	[PMA_LINK_ERR_RECOVERY] = { "loom_port_link_error_recoveries_total",
				    "Successful link error recovery processes "
				    "(LinkErrorRecoveryCounter, 8 bits).", 1 },
	[PMA_LINK_DOWNED] = { "loom_port_link_downed_total",
			      "Times the link error recovery failed and the link went down "
			      "(LinkDownedCounter, 8 bits).", 1 },
	[PMA_RCV_ERR] = { "loom_port_rcv_errors_total",
			  "Received packets containing an error (PortRcvErrors, 16 bits).", 1 },
	[PMA_RCV_REMOTE_PHYS_ERR] = { "loom_port_rcv_remote_physical_errors_total",
				      "Received packets marked with the EBP delimiter "
				      "(PortRcvRemotePhysicalErrors, 16 bits).", 1 },
	[PMA_RCV_SWITCH_RELAY_ERR] = { "loom_port_rcv_switch_relay_errors_total",
				       "Received packets discarded because they could not be "
				       "forwarded (PortRcvSwitchRelayErrors, 16 bits).", 1 },
	[PMA_XMIT_DISCARDS] = { "loom_port_xmit_discards_total",
				"Outbound packets discarded: port down or congested "
				"(PortXmitDiscards, 16 bits).", 1 },
	[PMA_XMIT_CONSTRAINT_ERR] = { "loom_port_xmit_constraint_errors_total",
				      "Packets not transmitted because of constraints such as "
				      "partition enforcement (PortXmitConstraintErrors, 8 bits).", 1 },
	[PMA_RCV_CONSTRAINT_ERR] = { "loom_port_rcv_constraint_errors_total",
				     "Packets received and discarded because of constraints "
				     "(PortRcvConstraintErrors, 8 bits).", 1 },
	[PMA_LOCAL_LINK_INTEGRITY] = { "loom_port_local_link_integrity_errors_total",
				       "Times the local physical errors exceeded the threshold "
				       "(LocalLinkIntegrityErrors, 4 bits).", 1 },
	[PMA_EXCESSIVE_BUF_OVERRUN] = { "loom_port_excessive_buffer_overrun_errors_total",
					"Times consecutive flow control update periods had "
					"buffer overruns (ExcessiveBufferOverrunErrors, 4 bits).", 1 },
	[PMA_VL15_DROPPED] = { "loom_port_vl15_dropped_total",
			       "Incoming VL15 packets (subnet management) dropped "
			       "(VL15Dropped, 16 bits).", 1 },
	[PMA_XMIT_DATA] = { "loom_port_xmit_data_bytes_total",
			    "Data octets transmitted: PortXmitData counts 4-octet words, "
			    "exported multiplied by 4 (64 bits from PortCountersExtended "
			    "where the PMA has it, else 32 bits that stop at all ones).", 4 },
	[PMA_RCV_DATA] = { "loom_port_rcv_data_bytes_total",
			   "Data octets received: PortRcvData counts 4-octet words, exported "
			   "multiplied by 4 (64 bits where the PMA has PortCountersExtended, "
			   "else 32 bits that stop at all ones).", 4 },
	[PMA_XMIT_PKTS] = { "loom_port_xmit_packets_total",
			    "Packets transmitted (PortXmitPkts; 64 bits extended, else 32).", 1 },
	[PMA_RCV_PKTS] = { "loom_port_rcv_packets_total",
			   "Packets received (PortRcvPkts; 64 bits extended, else 32).", 1 },
	[PMA_XMIT_WAIT] = { "loom_port_xmit_wait_ticks_total",
			    "Ticks during which the port had data to send and no flow control "
			    "credit: InfiniBand's congestion signal (PortXmitWait, 32 bits; "
			    "absent where the PMA does not count it).", 1 },
};

/* The error counters ("errors" mode: a port with any of them above 0). */
static int is_error_counter(enum pma_counter c)
{
	return c <= PMA_VL15_DROPPED;
}

/* The bounded label value of counter c in loom_port_counters_saturated:
 * its family's name without "loom_port_" and "_total" ("symbol_errors"). */
static void put_counter_label(struct mt_buf *b, enum pma_counter c)
{
	const char *f = counters[c].family + strlen("loom_port_");

	mt_put(b, f, strlen(f) - strlen("_total"));
}

const char *mt_counter_family(enum pma_counter c)
{
	return (unsigned)c < PMA_N_COUNTERS ? counters[c].family : "?";
}

const char *mt_reason_class(const char *reason)
{
	if (!reason)
		return "other";
	if (strstr(reason, "no answer"))
		return "no_answer";
	if (strstr(reason, "MAD status"))
		return "mad_status";
	if (strstr(reason, "another port") || strstr(reason, "could not be read"))
		return "bad_reply";
	return "other";
}

int mt_port_selected(const struct mt_port *p, const struct mt_options *o)
{
	if (!p->answered || !p->has_sample)
		return 0;
	if (o->mode == MT_PORTS_ALL)
		return 1;
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (is_error_counter(c) && p->bits[c] && p->v[c] > 0)
			return 1;
	return o->min_xmit_wait_per_s > 0 && p->has_xmit_wait_rate &&
	       p->xmit_wait_per_s >= o->min_xmit_wait_per_s;
}

/* ---- the text ------------------------------------------------------------------- */

static void family(struct mt_buf *b, const char *name, const char *type, const char *help)
{
	putf(b, "# HELP %s ", name);
	mt_puts(b, help);     /* no backslash nor newline in loom's own texts */
	putf(b, "\n# TYPE %s %s\n", name, type);
}

static void port_labels(struct mt_buf *b, const struct mt_port *p)
{
	mt_puts(b, "{subnet=\"");
	mt_put_label_value(b, p->subnet);
	mt_puts(b, "\",guid=\"");
	mt_put_label_value(b, p->guid);
	putf(b, "\",port=\"%u\",node=\"", p->port);
	mt_put_label_value(b, p->node);
	mt_puts(b, "\"");
}

static void put_u64_scaled(struct mt_buf *b, uint64_t v, unsigned scale)
{
	unsigned __int128 x = (unsigned __int128)v * scale;
	char tmp[48], *e = tmp + sizeof(tmp) - 1;

	*e = '\0';
	do {
		*--e = (char)('0' + (int)(x % 10));
		x /= 10;
	} while (x);
	mt_puts(b, e);
}

static void subnet_gauge(struct mt_buf *b, const char *name, const struct mt_read *r,
			 int decimals, double v)
{
	mt_puts(b, name);
	mt_puts(b, "{subnet=\"");
	mt_put_label_value(b, r->subnet);
	mt_puts(b, "\"} ");
	putf(b, "%.*f\n", decimals, v);
}

static void render_reads(struct mt_buf *b, const struct mt_read *reads, size_t n)
{
	family(b, "loom_counters_read_timestamp_seconds", "gauge",
	       "When the last counters read of the subnet finished (Unix time).");
	for (size_t i = 0; i < n; i++)
		subnet_gauge(b, "loom_counters_read_timestamp_seconds", &reads[i], 3,
			     reads[i].finished);
	family(b, "loom_counters_read_duration_seconds", "gauge",
	       "Wall time of the last counters read of the subnet.");
	for (size_t i = 0; i < n; i++)
		subnet_gauge(b, "loom_counters_read_duration_seconds", &reads[i], 6,
			     reads[i].finished > reads[i].started ?
			     reads[i].finished - reads[i].started : 0.0);
	family(b, "loom_counters_read_ports", "gauge",
	       "Cabled ports the last counters read asked, by whether their PMA answered.");
	for (size_t i = 0; i < n; i++) {
		long long ans = reads[i].answered, all = reads[i].ports;

		mt_puts(b, "loom_counters_read_ports{subnet=\"");
		mt_put_label_value(b, reads[i].subnet);
		putf(b, "\",state=\"answered\"} %lld\n", ans);
		mt_puts(b, "loom_counters_read_ports{subnet=\"");
		mt_put_label_value(b, reads[i].subnet);
		putf(b, "\",state=\"not_answered\"} %lld\n", all > ans ? all - ans : 0);
	}
}

/* The detail attributes' families: each detail a series with its kind or
 * VL as a label, for the exported ports whose last read had them, once it
 * is not 0 (42 series a port would be 3 million more on the 11664-host
 * tree; absent means 0). */
static void render_details(struct mt_buf *b, const struct mt_port *ports, size_t n,
			   const unsigned char *sel, const char *lab, const size_t *off)
{
	static const struct {
		const char *family, *help;
		enum pma_detail first, end;
	} fam[] = {
		{ "loom_port_rcv_error_details_total", "What PortRcvErrors counted, by kind "
		  "(PortRcvErrorDetails, 16 bits each: local_physical, malformed_packet, "
		  "buffer_overrun, dlid_mapping, vl_mapping, looping); where the PMA has it, "
		  "once not 0.",
		  PMA_D_LOCAL_PHYS_ERR, PMA_D_INACTIVE_DISC },
		{ "loom_port_xmit_discard_details_total", "Why PortXmitDiscards dropped, by kind "
		  "(PortXmitDiscardDetails, 16 bits each: inactive, neighbor_mtu, "
		  "sw_lifetime_limit, sw_hoq_lifetime_limit); where the PMA has it, once not 0.",
		  PMA_D_INACTIVE_DISC, PMA_D_VL_XMIT_WAIT },
		{ "loom_port_vl_xmit_wait_ticks_total", "PortXmitWait per virtual lane "
		  "(PortVLXmitWaitCounters, 16 bits each); where the PMA has it, once not 0.",
		  PMA_D_VL_XMIT_WAIT, PMA_D_VL_FC_UPDATE_ERR },
		{ "loom_port_vl_xmit_flow_ctl_update_errors_total", "Flow control update "
		  "errors per virtual lane (PortVLXmitFlowCtlUpdateErrors, 2 bits each: they "
		  "stop at 3); where the PMA has it, once not 0.", PMA_D_VL_FC_UPDATE_ERR, PMA_N_DETAILS },
	};

	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		family(b, fam[f].family, "counter", fam[f].help);
		for (size_t i = 0; i < n; i++) {
			const struct pma_details *ds = ports[i].ds;

			if (!sel[i] || !ds)
				continue;
			for (enum pma_detail d = fam[f].first; d < fam[f].end; d++) {
				if (!ds->bits[d] || !ds->v[d])
					continue;
				mt_puts(b, fam[f].family);
				mt_put(b, lab + off[i], off[i + 1] - off[i]);
				if (pma_detail_kind(d))
					putf(b, ",kind=\"%s\"} %u\n", pma_detail_kind(d),
					     (unsigned)ds->v[d]);
				else
					putf(b, ",vl=\"%d\"} %u\n", pma_detail_vl(d),
					     (unsigned)ds->v[d]);
			}
		}
	}
}

int mt_render(const struct mt_read *reads, size_t n_reads, const struct mt_port *ports,
	      size_t n_ports, const struct mt_options *o, struct mt_buf *out)
{
	unsigned char *sel = n_ports ? calloc(n_ports, 1) : NULL;
	size_t *off = calloc(n_ports + 1, sizeof(*off));
	struct mt_buf lab = { 0 };   /* every port's labels, escaped once */
	size_t n_sel = 0;

	if ((n_ports && !sel) || !off) {
		free(sel);
		free(off);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_ports; i++) {
		n_sel += (sel[i] = (unsigned char)mt_port_selected(&ports[i], o));
		off[i] = lab.len;
		if (sel[i] || !ports[i].answered)
			port_labels(&lab, &ports[i]);
	}
	off[n_ports] = lab.len;
	if (lab.oom) {
		free(sel);
		free(off);
		mt_buf_free(&lab);
		return -ENOMEM;
	}
#define PORT_LABELS(b, i) mt_put((b), lab.p + off[i], off[(i) + 1] - off[i])

	render_reads(out, reads, n_reads);
	family(out, "loom_metrics_ports_exported", "gauge",
	       "Ports whose counters this exposition holds (http.metrics_ports "
	       "selects all ports or only those with errors or congestion).");
	putf(out, "loom_metrics_ports_exported %zu\n", n_sel);

	/* Every port the mode exports, and every stale port (in any mode). */
	family(out, "loom_port_counters_up", "gauge",
	       "1 when the port's PMA answered the last counters read, 0 when it did not "
	       "(its counters are then not exported).");
	for (size_t i = 0; i < n_ports; i++) {
		if (!sel[i] && ports[i].answered)
			continue;
		mt_puts(out, "loom_port_counters_up");
		PORT_LABELS(out, i);
		putf(out, "} %d\n", ports[i].answered ? 1 : 0);
	}
	family(out, "loom_port_counters_stale", "gauge",
	       "1 for a port whose PMA did not answer the last counters read, by reason "
	       "(no_answer, mad_status, bad_reply, other).");
	for (size_t i = 0; i < n_ports; i++) {
		if (ports[i].answered)
			continue;
		mt_puts(out, "loom_port_counters_stale");
		PORT_LABELS(out, i);
		putf(out, ",reason=\"%s\"} 1\n", mt_reason_class(ports[i].reason));
	}

	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		family(out, counters[c].family, "counter", counters[c].help);
		for (size_t i = 0; i < n_ports; i++) {
			if (!sel[i] || !ports[i].bits[c])
				continue;
			mt_puts(out, counters[c].family);
			PORT_LABELS(out, i);
			mt_puts(out, "} ");
			put_u64_scaled(out, ports[i].v[c], counters[c].scale);
			mt_puts(out, "\n");
		}
	}

	render_details(out, ports, n_ports, sel, lab.p, off);

	family(out, "loom_port_counters_saturated", "gauge",
	       "1 for a counter that stands at all ones: the hardware stopped counting, "
	       "so its rate is unknown until it is cleared (counter: the family's name "
	       "without loom_port_ and _total).");
	for (size_t i = 0; i < n_ports; i++) {
		if (!sel[i])
			continue;
		for (int c = 0; c < PMA_N_COUNTERS; c++) {
			if (!ports[i].bits[c] || ports[i].v[c] != cdelta_max(ports[i].bits[c]))
				continue;
			mt_puts(out, "loom_port_counters_saturated");
			PORT_LABELS(out, i);
			mt_puts(out, ",counter=\"");
			put_counter_label(out, c);
			mt_puts(out, "\"} 1\n");
		}
	}
#undef PORT_LABELS
	free(sel);
	free(off);
	mt_buf_free(&lab);
	return out->oom ? -ENOMEM : 0;
}
