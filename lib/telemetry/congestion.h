/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/congestion.h: follow congestion to its root (issue 19's
 * congestion picture). Pure: the fabric as swept, the forwarding tables as
 * read, and the ports whose PortXmitWait raised link_congested.
 *
 * InfiniBand is lossless: a port that cannot send waits for credits, and
 * the wait spreads back along the routes into the ports that feed it. A
 * congested port P (switch S, peer N) is therefore a victim when a port of
 * N that carries P's traffic on is congested too: the ports of N that N's
 * table gives for the LIDs that S's table sends out of P. P is a root when
 * none is: its peer is an HCA that does not take the data fast enough, or
 * the link itself is the bottleneck. The hosts behind a root are the ones
 * whose LIDs its table sends through it (or its peer, an HCA).
 *
 * Without the tables (never read, or a switch missing in the read), a
 * congested port of N is taken to carry the traffic on: the answer says
 * "routes": false for that step. */
#ifndef LOOM_CONGESTION_H
#define LOOM_CONGESTION_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/route/route_live.h"

#define CONG_MAX_PORTS 4096  /* congested ports followed; more are counted, not followed */
#define CONG_MAX_HOSTS 32    /* hosts named per root; more are counted */

struct cong_port {
	uint64_t guid;  /* node GUID */
	uint8_t port;
};

/* The congestion trees of the congested ports hot[0..n) on fab, routed by
 * lfts (NULL: no tables), nodes named by the site's names (names,
 * lib/fabric/nodename.h; NULL: none) else by description:
 *   {"roots": [{"node", "guid", "port", "peer": "NODE:PORT"|null,
 *               "routes": bool (the tables decided every step),
 *               "victims": ["NODE:PORT", ...] (ports waiting on it, nearest
 *                                              first),
 *               "hosts": ["host", ...], "n_hosts": N}],
 *    "loops": ["NODE:PORT", ...]  (congested ports that only wait on each
 *                                  other: a credit loop, or traffic that
 *                                  the tables send round),
 *    "not_found": ["0x...:N", ...]  (not in the fabric as swept),
 *    "followed": N, "ignored": N}
 * NULL when out of memory. */
json_t *congestion_roots(const struct fab *fab, const struct rl_read *lfts,
			 const struct cong_port *hot, size_t n, const struct nodename_map *names);

#endif
