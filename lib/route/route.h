/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route.h: loom's routing engines. Each is a pure function: a routing
 * graph in (route_graph.h), one forwarding table per switch out
 * (route_lft.h); the metrics (route_metrics.h) judge the result. The same
 * code runs inside OpenSM (the plugin), inside loomd and offline.
 *
 * Every engine: `out` was made by rt_lfts_new(g) (all RT_NO_PORT); the engine
 * fills every LID held by a switch or CA port, and counts in
 * out->n_routed / out->n_unreachable the (switch, LID) entries it could and
 * could not route (a disconnected part is not an error). Returns 0, or
 * -errno with a reason in err. */
#ifndef LOOM_ROUTE_H
#define LOOM_ROUTE_H

#include <stddef.h>

#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"

/* Balanced shortest paths (the min-hop family, like OpenSM's default
 * engine): every switch forwards each LID on one of its minimum-hop ports,
 * the one that carries the fewest CA LIDs so far (ties: the lowest port
 * number), LIDs taken in ascending order. Deterministic. */
int rt_route_minhop(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen);

/* Fat trees (lib/route/route_ftree.c): finds the levels itself from where the CAs
 * hang (no root GUID file), routes every LID down a single path from the
 * roots and spreads the up-going choices so that shift permutations are
 * non-blocking on full trees; on degraded trees it keeps routing, moving
 * each LID to the least-loaded surviving port. Fails (-EINVAL, reason in
 * err) when the graph is not a fat tree: callers fall back to dfsssp. */
int rt_route_ftree(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen);

/* Deadlock-free balanced shortest paths for any topology
 * (lib/route/route_dfsssp.c, the DFSSSP family): paths weighted by the load
 * already placed, then spread over virtual lanes so that each lane's
 * channel dependency graph is acyclic. Sets out->sl and out->n_vls. Fails
 * (-ENOSPC, reason in err) when more than max_vls lanes would be needed. */
int rt_route_dfsssp(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen);

/* What rt_refine_tree did. */
struct rt_refine_stats {
	size_t shifts;         /* shift permutations it kept count of: all n - 1,
				* or 16 when a glance at them showed no shared link */
	size_t shift_before, shift_after;   /* their worst link load */
	double random_before, random_after; /* its random-permutation cost (a sum
					     * over links of E[5^load]) */
	size_t moves;          /* table entries it changed */
	size_t windows;        /* windows of shifts it refined in turn (1: all at once;
				* more on trees whose every shift's counters would
				* not fit together; phase 1 only there) */
	uint64_t evals;        /* moves it judged */
};
/* Refine the up*-down* tables of a fat tree in place (lib/route/route_refine.c):
 * moves single up-going entries to another parent at the same hop count
 * where that lowers the worst link of shift permutations, then the chance
 * of heavy links under random permutations without raising the former.
 * Routes stay minimal and up*-down*. Does nothing (0) on a graph without
 * strict levels, or where no two flows share a link in 16 shifts spread
 * evenly. Where (CAs - 1) * directed links exceeds 128 Mi it works on
 * windows of shifts in turn, each move kept inside one (st->windows), and
 * only on the worst shift load. Deterministic, whatever g->pool's threads
 * (the counting is split over them). Changes the tables only after it has
 * all its memory. 0, or
 * -ENOMEM / -EINVAL with a reason in err. */
int rt_refine_tree(const struct rt_graph *g, struct rt_lfts *l, struct rt_refine_stats *st,
		   char *err, size_t errlen);
/* The engine operators select: ftree when the graph is a fat tree, its
 * tables then refined by rt_refine_tree, else dfsssp; says which and why
 * (and what the refinement changed) in out->note. */
int rt_route_loom(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen);

/* What rt_reroute did. */
struct rt_reroute_stats {
	size_t cut;            /* switch ports whose cable is gone */
	size_t dests;          /* destination LIDs routed again */
	size_t entries;        /* table entries changed */
};
/* Incremental rerouting (lib/route/route_reroute.c): g is prev_g with
 * switch-to-switch cables cut, prev the up*-down* tables of a fat tree
 * made for prev_g (ftree, refined or not). out (made for g) gets prev with
 * only the destinations that crossed a cut cable routed again, minimal and
 * up*-down* over the same levels, out->note saying how many. 0; -EAGAIN
 * with the reason in err when only a full run can do it (nodes, LIDs or
 * levels changed, a cable appeared, VL layers, a down-up turn needed, more
 * than half of the destinations touched); -EINVAL, -ENOMEM. */
int rt_reroute(const struct rt_graph *prev_g, const struct rt_lfts *prev, const struct rt_graph *g,
	       struct rt_lfts *out, struct rt_reroute_stats *st, char *err, size_t errlen);

/* The engines by name (lib/route/route_engine.c). */
typedef int (*rt_route_fn)(const struct rt_graph *g, struct rt_lfts *out, char *err,
			   size_t errlen);

struct rt_engine {
	const char *name;      /* "loom", "ftree", "dfsssp", "minhop" */
	const char *summary;   /* one line for help texts */
	rt_route_fn route;
};

/* The engine called `name`, or NULL. */
const struct rt_engine *rt_engine_find(const char *name);
/* All engines, `loom` first; *n gets their number. */
const struct rt_engine *rt_engine_list(size_t *n);

/* Most virtual lanes an engine may use for data: IB switches have up to 15
 * data VLs, but ports commonly offer 8 (VLCap 4) and ibsim's offer VL0-7. */
#define RT_MAX_VLS 8

#endif
