/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_loss.h: what the routes lose when switch-to-switch links
 * are taken out of them (issue 42: loom isolates a bad link only after it
 * knows the cost). Pure functions over the routing graph.
 *
 * The tables "now" are loom's engine's on the fabric with the links already
 * isolated left out; "after" are the same tables rerouted incrementally
 * (route_reroute.c, what libloomosm does on its next run) on the graph
 * without the candidate too, or a full run when the reroute cannot. Both
 * are judged with the same metrics options: every ordered pair of CA ports
 * (a pair that loses its route is what no floor may allow), the worst link
 * of the shift permutations, and the effective bisection bandwidth.
 *
 * The paths floor: for every pair of leaves (switches with CA ports), the
 * number of the first leaf's up-going cables from which the second leaf is
 * reached going up then down (up*-down* over the tree's levels); the least
 * of them over all pairs, and a pair that has it. On a two-level tree this
 * is the count of spines the two leaves still share. */
#ifndef LOOM_ROUTE_LOSS_H
#define LOOM_ROUTE_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route.h"
#include "lib/route/route_metrics.h"

struct rt_judged {
	size_t pairs, unreachable;  /* ordered CA pairs, those with no route */
	size_t shift_max_load;      /* worst link of the shifts evaluated */
	double ebb;                 /* effective bisection bandwidth, 0..1 */
	size_t min_paths;           /* the paths floor's value (SIZE_MAX: no pair of leaves) */
	int32_t min_a, min_b;       /* a pair of leaves (switch indexes) that has it, or -1 */
	int tree;                   /* the graph has tree levels (else min_paths is not computed) */
};

/* The metrics options the loss uses: a sample of shifts and bisections
 * drawn from a fixed seed, so that now and after are judged on the same
 * draws, and the cost stays a fraction of a routing run. */
void rt_loss_opts(const struct rt_graph *g, struct rt_metrics_opts *o);

/* Judge tables l of g with o (the paths floor on g alone). 0 or -ENOMEM. */
int rt_loss_judge(const struct rt_graph *g, const struct rt_lfts *l,
		  const struct rt_metrics_opts *o, struct rt_judged *out);

/* The same judgement of tables l2 on g2 as rt_loss_judge(g2, l2, o) gives,
 * when g2 is g without some switch-to-switch cables (rt_graph_without, or
 * rt_graph_new of the fabric without them: the same CAs and LIDs) and
 * `unreachable` is rt_loss_judge's of tables l on g: the pairs are walked
 * only toward the CAs whose column of l2 differs from l's or that some
 * switch sends out of a port g2 changed (no other walk can differ), on
 * both sides, and the difference added; the permutations and the paths
 * floor are g2's own. An incremental reroute moves a few hundred of
 * 11664 destinations: a fraction of the cost. 0, -EINVAL (not such a
 * pair of graphs), -ENOMEM. */
int rt_loss_judge_after(const struct rt_graph *g, const struct rt_lfts *l, size_t unreachable,
			const struct rt_graph *g2, const struct rt_lfts *l2,
			const struct rt_metrics_opts *o, struct rt_judged *out);

/* The tables on g2 (g without some switch-to-switch cables) that the plugin
 * will make from l: the incremental reroute, else a full run of engine.
 * *incremental says which. NULL with err. */
struct rt_lfts *rt_loss_reroute(const struct rt_graph *g, const struct rt_lfts *l,
				const struct rt_graph *g2, const struct rt_engine *engine,
				int *incremental, char *err, size_t errlen);

/* The paths floor of g (see above) into out->min_paths/min_a/min_b/tree. 0,
 * -ENOMEM. */
int rt_loss_paths(const struct rt_graph *g, struct rt_judged *out);

#endif
