/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/metrics_text.h: the port counters in Prometheus' text
 * exposition format 0.0.4 (issue 19, "where the numbers go"). Pure: rows
 * in, text out; lib/db/metrics_db.c reads the rows from SQLite, loomd's
 * daemon/http/ serves the text on /metrics. docs/metrics.md lists every
 * family, its labels and its cardinality.
 *
 * Each family is written once (HELP, TYPE, then every series), so the
 * series of all ports are grouped by family, as the format requires.
 * Label values are escaped (backslash, double quote, newline) and made
 * valid UTF-8 (a byte that is not: U+FFFD). Counters are the raw hardware
 * values (Prometheus handles a counter that goes back to zero itself);
 * data counters count 4-octet words and are exported as bytes (x 4). A
 * port whose PMA did not answer the last read exports no counter (its
 * last sample would read as a rate of 0 to Prometheus: an invented number)
 * but loom_port_counters_up 0 and loom_port_counters_stale{reason} 1.
 * The PMA detail attributes, where read (issue 42), are four more families
 * with a bounded label each: loom_port_rcv_error_details_total{kind},
 * loom_port_xmit_discard_details_total{kind},
 * loom_port_vl_xmit_wait_ticks_total{vl} and
 * loom_port_vl_xmit_flow_ctl_update_errors_total{vl}; a series only once
 * its counter is not 0 (absent means 0: 42 series a port would triple
 * /metrics). */
#ifndef LOOM_METRICS_TEXT_H
#define LOOM_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/telemetry/pma.h"
#include "lib/telemetry/pma_details.h"

/* A growing text buffer; oom is set (and the text cut) when an append
 * found no memory. */
struct mt_buf {
	char *p;
	size_t len, cap;
	int oom;
};

void mt_buf_free(struct mt_buf *b);
void mt_put(struct mt_buf *b, const char *s, size_t n);
void mt_puts(struct mt_buf *b, const char *s);
/* s as a label value's inside: \ " and newline escaped, invalid UTF-8 as
 * U+FFFD. */
void mt_put_label_value(struct mt_buf *b, const char *s);

/* The name a node goes by in every label of /metrics (node, remote_node),
 * from the name its row carries (desc: lib/db's NAMES_DB_NAME, the
 * node-name-map's name, else the NodeDescription); guid is the node GUID
 * "0x...". Never NULL. */
const char *mt_node_name(const char *guid, const char *desc);

/* One port as the last counters read of its subnet left it. */
struct mt_port {
	const char *subnet, *guid, *node;   /* guid "0x..." (node GUID) */
	unsigned port;
	int answered;                        /* at the last read */
	const char *reason;                  /* why not (answered 0) */
	int has_sample;                      /* v and bits hold a sample */
	uint64_t v[PMA_N_COUNTERS];
	uint8_t bits[PMA_N_COUNTERS];        /* 0: not read (no value) */
	int has_xmit_wait_rate;              /* an exact PortXmitWait rate */
	double xmit_wait_per_s;
	const struct pma_details *ds;        /* the detail counters (issue 42); NULL: none */
};

/* One subnet's last read (counter_reads). */
struct mt_read {
	const char *subnet;
	double started, finished;            /* Unix time */
	long long ports, answered;
};

enum mt_ports_mode {
	MT_PORTS_ALL,     /* every port */
	MT_PORTS_ERRORS,  /* ports with an error counter above 0, or congested */
};

struct mt_options {
	enum mt_ports_mode mode;
	/* MT_PORTS_ERRORS: also a port whose PortXmitWait rose by at least
	 * this many ticks per second over its last interval (0: XmitWait
	 * selects no port). */
	double min_xmit_wait_per_s;
};

/* Whether port p's counters are exported under o (stale ports export
 * their up and stale gauges in every mode, and no counter). */
int mt_port_selected(const struct mt_port *p, const struct mt_options *o);

/* The bounded label value of a stale port's reason: "no_answer",
 * "mad_status", "bad_reply" or "other". */
const char *mt_reason_class(const char *reason);

/* The metric family name of counter c ("loom_port_symbol_errors_total"). */
const char *mt_counter_family(enum pma_counter c);

/* Append the whole exposition of reads and ports to out. 0, or -ENOMEM. */
int mt_render(const struct mt_read *reads, size_t n_reads, const struct mt_port *ports,
	      size_t n_ports, const struct mt_options *o, struct mt_buf *out);

#endif
