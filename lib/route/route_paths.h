/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_paths.h: the links a job's traffic can cross (issue 24,
 * job impact). Given forwarding tables and a set of CA ports (a job's
 * hosts), every ordered pair of them is followed through the tables with
 * the metrics' own walk (rt_walk, route_metrics.h) and each directed link
 * on the way counts the pairs that use it.
 *
 * Cost: every CA on one switch follows the same entries, so one walk per
 * (source switch, destination) stands for all the sources on that switch
 * (as the metrics do): O(source switches * n * hops). Above max_pairs
 * ordered pairs (default RT_PATHS_MAX_PAIRS, 2^20), a sample: K =
 * max_pairs / (n - 1) sources drawn from `seed` (rt_metrics_shuffle,
 * splitmix64: the same seed draws the same sources everywhere), each to
 * every other CA of the set; the result says so (sampled, pairs of
 * pairs_total). A 1024-host job (1,047,552 pairs) is still walked whole.
 *
 * A directed link is named by a switch port: RT_PATHS_OUT(i), the link
 * out of global switch port i (rt_graph_port_index) toward its peer (a
 * switch or the destination CA), or RT_PATHS_IN(i), the link from the CA
 * cabled to switch port i into it (a source's own cable). */
#ifndef LOOM_ROUTE_PATHS_H
#define LOOM_ROUTE_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"

#define RT_PATHS_MAX_PAIRS (1u << 20)
#define RT_PATHS_MAX_BROKEN 16   /* broken pairs listed; the rest counted */

#define RT_PATHS_IN_BIT 0x80000000u
#define RT_PATHS_OUT(i) ((uint32_t)(i))
#define RT_PATHS_IN(i) ((uint32_t)(i) | RT_PATHS_IN_BIT)
#define RT_PATHS_PORT(link) ((link) & ~RT_PATHS_IN_BIT)
#define RT_PATHS_IS_IN(link) (((link) & RT_PATHS_IN_BIT) != 0)

struct rt_paths_opts {
	uint64_t max_pairs;   /* 0: RT_PATHS_MAX_PAIRS */
	uint64_t seed;        /* of the sampled sources */
};

struct rt_path_link {
	uint32_t link;        /* RT_PATHS_OUT / RT_PATHS_IN */
	uint64_t pairs;       /* walked pairs that cross it */
};

struct rt_path_broken {
	uint32_t src, dst;    /* CA indexes of the graph */
	int loop;             /* 1: a loop, 0: dropped (no way on) */
};

struct rt_paths {
	size_t n_ca;              /* distinct CA ports of the set */
	uint64_t pairs_total;     /* n_ca * (n_ca - 1) */
	uint64_t pairs;           /* walked: pairs_total unless sampled */
	size_t sources;           /* sources walked */
	int sampled;
	uint64_t seed;
	uint64_t delivered, dropped, loops;
	size_t n_links;
	struct rt_path_link *links;   /* by link, ascending */
	size_t n_broken;              /* listed, RT_PATHS_MAX_BROKEN at most */
	struct rt_path_broken broken[RT_PATHS_MAX_BROKEN];
};

/* The links the ordered pairs of CA ports ca[0..n) (indexes of g; a
 * repeated index counts once) cross under l (made for g). A source CA on
 * no switch has no path: its pairs are dropped. 0, -EINVAL (an index out
 * of range) or -ENOMEM. out is cleared first; rt_paths_clear frees it. */
int rt_paths_compute(const struct rt_graph *g, const struct rt_lfts *l, const size_t *ca,
		     size_t n, const struct rt_paths_opts *opts, struct rt_paths *out);
void rt_paths_clear(struct rt_paths *p);

/* The pairs crossing `link`, 0 when none (binary search). */
uint64_t rt_paths_pairs_on(const struct rt_paths *p, uint32_t link);

#endif
