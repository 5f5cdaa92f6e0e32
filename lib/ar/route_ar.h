/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/route_ar.h: adaptive routing (AR) groups. A switch with AR may send
 * each packet of a LID out of any port of the LID's group, the port picked
 * per packet by the switch (by queue depth); its static port, the one the
 * forwarding table gives (route_lft.h), stays the default. This module
 * computes the groups from a routing graph and the static tables an engine
 * made, and judges them as route_metrics.h judges the tables: deadlock
 * freedom of every alternative together, and the effective bisection
 * bandwidth when traffic spreads over the groups.
 *
 * What goes in a LID's group at switch s (the static port P always does):
 *   RT_AR_LAG   the ports cabled to the switch P leads to (parallel links);
 *   RT_AR_TREE  those, and when P lies on a shortest path to the switch
 *               holding the LID (counted in switch hops over the graph),
 *               every port on such a path: on a fat tree routed up-down,
 *               all the up ports toward the LID's ancestors while P goes
 *               up, and the parallel links to the one child while it goes
 *               down. A static port off the shortest paths (a detour the
 *               engine chose) keeps only its parallel links: alternatives
 *               of another length are not equally good, and may turn where
 *               the engine would not.
 * Only CA LIDs get groups. Switch LIDs carry management traffic only (SMPs,
 * SA queries, counters): little of it, so they keep their static port and
 * the group capacity goes to data. A LID whose set is its static port alone
 * has no group: the switch forwards it statically, as the LFT says.
 *
 * Groups are sets of ports, deduplicated per switch: all the LIDs with the
 * same set share one group, as a switch's AR group table wants. A switch
 * holds at most `capacity` groups (NVIDIA switches report theirs in ARInfo,
 * group_cap); when a switch has more distinct sets, the ones used by the
 * most LIDs are kept (ties: the set of the lower LID) and the LIDs of the
 * others fall back to static forwarding and are counted as dropped.
 * Group numbers follow the lowest LID using each group. */
#ifndef LOOM_ROUTE_AR_H
#define LOOM_ROUTE_AR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_metrics.h"

enum rt_ar_mode {
	RT_AR_LAG = 1,         /* parallel links to the static port's neighbour */
	RT_AR_TREE,            /* every shortest-path port, parallel links included */
};

/* A set of ports of one switch, bit p for port p: IB switches have at most
 * 254 ports, so 256 bits hold any. */
struct rt_ar_ports {
	uint64_t w[4];
};

static inline int rt_ar_ports_has(const struct rt_ar_ports *s, unsigned p)
{
	return p < 256 && (s->w[p / 64] >> (p % 64) & 1);
}

static inline void rt_ar_ports_add(struct rt_ar_ports *s, unsigned p)
{
	if (p < 256)
		s->w[p / 64] |= 1ULL << (p % 64);
}

static inline unsigned rt_ar_ports_count(const struct rt_ar_ports *s)
{
	return (unsigned)(__builtin_popcountll(s->w[0]) + __builtin_popcountll(s->w[1]) +
			  __builtin_popcountll(s->w[2]) + __builtin_popcountll(s->w[3]));
}

#define RT_AR_NO_GROUP 0xFFFF          /* LID forwarded statically (or not at all) */
#define RT_AR_DEFAULT_CAPACITY 2048    /* groups per switch, as NVIDIA switches report */
#define RT_AR_MAX_CAPACITY 0xFFFE      /* group numbers are 16 bits, NO_GROUP excluded */

struct rt_ar_switch {
	uint32_t n_groups;
	struct rt_ar_ports *groups;  /* n_groups distinct sets of 2 ports or more */
	uint16_t *group;       /* max_lid + 1 entries: the LID's group, or RT_AR_NO_GROUP */
	uint8_t *port;         /* max_lid + 1 entries: the default port, the static
				* table's (RT_NO_PORT: not routed) */
	size_t n_alt;          /* LIDs with a group (more than one port to choose) */
	size_t n_dropped;      /* LIDs that had a set of several ports but whose set did
				* not fit in the capacity: forwarded statically */
};

struct rt_ar {
	enum rt_ar_mode mode;
	uint32_t capacity;
	size_t n_sw;
	uint16_t max_lid;
	struct rt_ar_switch *sw;   /* the graph's switch order */
	/* Totals over the switches, counting (switch, CA LID) entries: */
	size_t n_entries;      /* with a static port */
	size_t n_alt;          /* with a group */
	size_t n_dropped;      /* dropped for capacity */
	size_t n_longer;       /* TREE: static port off the shortest paths (a detour) */
	size_t n_groups;       /* groups, all switches together */
	uint32_t max_groups;   /* most groups on one switch */
};

/* The groups of tables l (made for g). capacity: groups per switch,
 * 0..RT_AR_MAX_CAPACITY (0: no groups at all). Cost: one breadth-first
 * search per switch holding CAs (TREE), then O(switches) per CA LID;
 * memory 3 bytes per (switch, LID), like the tables and a group number,
 * plus 32 bytes per group. NULL with a reason in err (bad arguments, out
 * of memory). */
struct rt_ar *rt_ar_new(const struct rt_graph *g, const struct rt_lfts *l, enum rt_ar_mode mode,
			uint32_t capacity, char *err, size_t errlen);
void rt_ar_free(struct rt_ar *ar);

/* The ports switch sw may send lid out of: its group, else its default port
 * alone. Returns their number, 0 when the LID is not routed there. */
unsigned rt_ar_members(const struct rt_ar *ar, size_t sw, unsigned lid, struct rt_ar_ports *out);

/* "tree" / "lag", and back: 0, or -EINVAL for another name. */
const char *rt_ar_mode_name(enum rt_ar_mode mode);
int rt_ar_mode_parse(const char *name, enum rt_ar_mode *mode);

/* ---- judging them (lib/ar/route_ar_metrics.c) ---- */

/* Deadlock freedom with every alternative: the channel dependency graph of
 * route_metrics.h (a channel is a directed link out of a switch; VL = the
 * SL of the path's source switch and destination LID, identity SL2VL),
 * built from every path AR may give a packet of a CA-to-CA pair: from the
 * source's switch, each member of the group at each switch reached. 0 when
 * every VL's graph is acyclic; -EDEADLK when one is not, err naming the
 * first cycle found ("VL 0: 'sw-1' port 2 -> 'sw-2' port 3 -> ... ->
 * 'sw-1' port 2"); -EINVAL (ar not made for g and l) or -ENOMEM with err
 * saying so. *edges (may be NULL) gets the distinct (VL, c1, c2)
 * dependencies, *vls (may be NULL) the VLs used, when 0 or -EDEADLK. */
int rt_ar_cdg_check(const struct rt_graph *g, const struct rt_lfts *l, const struct rt_ar *ar,
		    size_t *edges, size_t *vls, char *err, size_t errlen);

/* Effective bisection bandwidth when every switch spreads each flow evenly
 * over its group (a fluid model): the bisections of route_metrics.h, drawn
 * the same from opts->seed (opts->n_bisect of them; none when opts is NULL
 * or there are fewer than 2 CAs). A flow's share at a switch divides
 * equally among the group's members, recursively, so it offers fixed
 * fractions phi(c) of its rate to channels c, and a channel's load L(c) is
 * the sum of the fractions of every flow over it. A channel shares its
 * capacity (1) among flows in proportion to what they offer, so a flow at
 * rate r fits on c when r * phi(c) <= phi(c) / L(c): its rate is
 * 1 / max(1, the largest L(c) over the channels it uses), its injection
 * link carrying it whole; 0 when any share of it is lost (reaches no CA or
 * the wrong one, or loops). With groups of one port, phi is 0 or 1, L
 * counts flows and this is route_metrics' EBB exactly. *ebb: the mean over
 * all flows, 0..1. 0, -EINVAL (ar not made for g) or -ENOMEM. */
int rt_ar_ebb(const struct rt_graph *g, const struct rt_ar *ar,
	      const struct rt_metrics_opts *opts, double *ebb);

#endif
