/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/metrics_link.h: the InfiniBand ports' link state in
 * Prometheus' text format (issue 39): state, physical state, width, speed,
 * rate and degraded, each series labelled with both ends of the cable
 * (remote_guid, remote_port, remote_node, as guilbaults/infiniband-exporter
 * labels its series) so that one series is one cable. Pure: rows in, text
 * out; lib/db/metrics_fabric_db.c reads the rows (the swept ports, schema 001
 * and 017). docs/metrics.md says why the states are `_state_id` gauges and
 * not one series per state.
 *
 * The ports exported are those cabled now or cabled at an earlier sweep
 * (the database keeps a port's last peer: schema 017): a cut cable keeps
 * its series, whose state turns from Active (4) to Down (1) at the next
 * sweep; a port never cabled exports nothing. Width, speed, rate and
 * degraded are exported only while the link is up (state above Down). */
#ifndef LOOM_METRICS_LINK_H
#define LOOM_METRICS_LINK_H

#include <stddef.h>

#include "lib/telemetry/metrics_text.h"

struct mt_link_port {
	const char *subnet, *guid, *node;           /* node GUID "0x...", its name */
	unsigned port;
	const char *remote_guid, *remote_node;      /* now, or the last peer */
	unsigned remote_port;
	int state, phys_state;                      /* PortInfo's, 1..4 and 1..7 */
	unsigned width_active, speed_active;        /* IBT_WIDTH_* and IBT_SPEED_* bits */
	int degraded;                               /* narrower or slower than both ends can */
};

/* Append the link families of the n ports to out. 0, or -ENOMEM. */
int mt_render_links(const struct mt_link_port *p, size_t n, struct mt_buf *out);

#endif
