/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/port_history.h: the last reads of every port, in memory
 * (issue 41: the port panel's chart when no Prometheus is configured).
 * The telemetry worker adds each answered read of a port; the port-history
 * command reads one port's; a mutex keeps them apart.
 *
 * Bounded twice: `reads` samples per port (a ring: the oldest goes), and
 * `cap` bytes in all: a port that would take the total past it is not
 * kept (port_history_add answers -ENOSPC, and the refusals are counted),
 * so a fabric larger than planned never makes loomd grow. A sample is 24
 * bytes: the read's time, rx and tx bytes per second, PortXmitWait ticks
 * per second, the deltas of the first two error counters that moved and
 * the sum of the others (16 bits each, held at 65535). A port takes
 * PORT_HISTORY_PORT_BYTES(reads): at 60 reads 1.5 KiB; the 11664-host
 * tree of 36-port switches reads about 70000 ports: 100 MiB
 * (telemetry.history_mib's default, 128, holds it). */
#ifndef LOOM_PORT_HISTORY_H
#define LOOM_PORT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/telemetry/counter_row.h"

struct port_history_sample {
	uint32_t t;              /* the read's finish, unix seconds */
	float rx, tx;            /* bytes a second (negative: unknown) */
	float wait;              /* PortXmitWait ticks a second (negative: unknown) */
	uint16_t err_n[2];       /* the deltas of err_id[0..1] */
	uint16_t err_other;      /* the other error counters' deltas, summed */
	uint8_t err_id[2];       /* enum pma_counter; 0xff: none */
};

/* An entry's bytes for `reads` samples (the allocator's own words apart). */
#define PORT_HISTORY_PORT_BYTES(reads) \
	(32 + (size_t)(reads) * sizeof(struct port_history_sample))

struct port_history;

/* reads 0: keep nothing (every add is refused quietly). NULL: no memory. */
struct port_history *port_history_new(unsigned reads, size_t cap);
void port_history_free(struct port_history *h);
/* New bounds: when they differ, what was kept is dropped. */
void port_history_set(struct port_history *h, unsigned reads, size_t cap);

/* One answered read of port `port` of node guid on subnet: its row (the
 * sample and each counter's delta) over interval_s (0: the first read: no
 * rates, no deltas), finished at t. 0, -ENOSPC (the cap: not kept),
 * -ENOMEM. */
int port_history_add(struct port_history *h, const char *subnet, uint64_t guid,
		     unsigned port, double t, const struct counter_row *row, double interval_s);

/* The port's samples at or after since, oldest first:
 *   [{"time", "ts", "rx_bytes_s", "tx_bytes_s", "xmit_wait_per_s" (null
 *     when unknown), "errors": {COUNTER: delta, "other": n}}]
 * (an empty array for a port never kept). NULL: no memory. */
json_t *port_history_json(struct port_history *h, const char *subnet, uint64_t guid,
			  unsigned port, double since);

/* What it holds: {"reads", "cap_bytes", "bytes", "ports", "refused"}. */
json_t *port_history_stats(struct port_history *h);

#endif
