/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pause_trees.h: follow PFC pauses back to the port that
 * pauses without being paused itself (issue 19's congestion picture, RoCE
 * side). Pure.
 *
 * A switch port that receives pauses (its pfc_storm alarm) is paused by
 * the port at the other end of its link. When that end is a managed switch
 * that is itself paused on another port, it pauses because it cannot send
 * there: the pause came from further on, and the paused port waits on those
 * ports. When it is not (a switch whose own egress is full, or a NIC that
 * does not drain: a slow receiver, or a NIC's PFC storm), the other end is
 * the root: it pauses without being paused. */
#ifndef LOOM_PAUSE_TREES_H
#define LOOM_PAUSE_TREES_H

#include <stddef.h>

#include <jansson.h>

#define PAUSE_MAX_PORTS 4096  /* paused ports followed; more are counted, not followed */

struct paused_port {
	const char *sw, *port;        /* the paused port */
	const char *peer_node;        /* what its LLDP neighbour says (NULL: none) */
	const char *peer_port;
	int peer_managed;             /* the neighbour is one of the managed switches */
};

/* The pause trees of p[0..n):
 *   {"roots": [{"node", "port" (the port that pauses), "managed": bool,
 *               "paused": ["SWITCH:PORT", ...] (ports it pauses, directly
 *                                               or through others, nearest
 *                                               first)}],
 *    "loops": ["SWITCH:PORT", ...] (paused ports that only pause each
 *                                   other: a PFC deadlock),
 *    "unknown": ["SWITCH:PORT", ...] (paused ports with no neighbour),
 *    "followed": N, "ignored": N}
 * NULL when out of memory. */
json_t *pause_trees(const struct paused_port *p, size_t n);

#endif
