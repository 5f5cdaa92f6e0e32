/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/eth_cabling.h: the Ethernet fabric against the cabling
 * plan's Ethernet rows (issue 43; plan.h: ports named at both ends), as
 * NetQ's cable validation does: what the managed switches' LLDP neighbours
 * (their plugins' reads, schema 004's eth_ports) say is cabled. A pure
 * function of the plan and those reads.
 *
 * The reads become a graph (a node per managed switch, named by its
 * loom.yaml name, also found by its hostname; a node per system LLDP names
 * that is not one; ports numbered per node in name order, a managed
 * switch's port found by its name or alias) and the plan's rows become
 * numbered cables on it: cabling.c judges them (cabling_check_ports), so
 * the findings are the InfiniBand ones (missing, swapped, miswired,
 * wrong-peer, extra) with ports written by name ("leaf-1[Ethernet0]").
 * Hosts' NICs usually do not speak LLDP to the switches: a row is judged
 * when one of its ends is a managed switch and either LLDP shows a
 * neighbour on that switch's port or the other end is a managed switch or
 * a system LLDP shows elsewhere; the other rows are "not seen" (counted,
 * no finding). A node has at most 254 ports (more: -E2BIG). */
#ifndef LOOM_VALIDATE_ETH_CABLING_H
#define LOOM_VALIDATE_ETH_CABLING_H

#include <stddef.h>

#include "lib/validate/plan.h"
#include "lib/validate/report.h"

/* A managed switch (loom.yaml's switches:, reached at least once). */
struct eth_switch_seen {
	const char *name;           /* loom.yaml's name */
	const char *hostname;       /* what its LLDP says it is ("" unknown) */
};

/* One port of a managed switch as its last read found it. */
struct eth_port_seen {
	const char *sw;             /* the switch's name */
	const char *port, *alias;   /* its name, its alias ("" none) */
	int up;                     /* operationally up */
	const char *peer_name;      /* LLDP: the neighbour's system name ("" none) */
	const char *peer_port;      /* its port id */
	const char *peer_chassis;   /* its chassis id (a name when there is none) */
};

struct eth_seen {
	const struct eth_switch_seen *sw;
	size_t n_sw;
	const struct eth_port_seen *ports;
	size_t n_ports;
};

/* The findings of p's Ethernet rows against s added to *r (its cables the
 * rows judged, nodes and links the graph's); *not_seen: the rows not
 * judged. 0, -E2BIG (err says which node), -ENOMEM. */
int eth_cabling_check(const struct plan *p, const struct eth_seen *s, struct val_report *r,
		      size_t *not_seen, char *err, size_t errlen);

#endif
