/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_metrics.h: how good a set of forwarding tables is, found by
 * walking the tables themselves (never an engine's intentions), so the same
 * numbers judge loom's engines, OpenSM's, and tables read back from
 * switches. Only CA-to-CA traffic counts; switch LIDs carry management. */
#ifndef LOOM_ROUTE_METRICS_H
#define LOOM_ROUTE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"

struct par_pool;
struct rt_sl2vl;

struct rt_metrics_opts {
	size_t max_shifts;     /* shift permutations to evaluate, spread evenly
				* over k = 1..n_ca-1; 0 = all of them */
	int sample_shifts;     /* with max_shifts < n_ca - 1: draw them at random
				* from seed instead (a sample: the output says
				* how much of the rest could be worse) */
	unsigned n_random;     /* random permutations to evaluate */
	uint64_t seed;         /* of the random permutations (splitmix64) */
	unsigned n_bisect;     /* random bisections for the effective bisection
				* bandwidth, drawn from the same seed */
	const uint8_t *dst_only; /* n_ca flags, or NULL: the pairs (and their
				* forwarding index, dependencies, hops) toward the
				* CAs flagged only; the CAs on no switch count
				* their pairs toward those only too (route_loss.c
				* judges only the destinations a reroute moved) */
	int no_permutations;   /* the pairs alone: no shift, random permutation
				* or bisection, whatever the counts above say */
	const struct rt_sl2vl *sl2vl; /* the switches' SL-to-VL tables (route_sl2vl.h)
				* for the graph computed: each hop's VL is
				* the sending port's table's VL of the path's
				* SL; NULL: SL s on VL s everywhere */
	struct par_pool *pool; /* for callers that build the graph themselves
				* (route_live.h's rl_check): its threads; NULL
				* one. rt_metrics_compute itself uses g->pool. */
};

struct rt_metrics {
	/* Every ordered pair (a, b) of distinct CA ports: start at a's switch,
	 * follow each switch's entry for b's base LID. */
	size_t pairs;
	size_t delivered;      /* reached the switch port cabled to b */
	size_t unreachable;    /* met RT_NO_PORT, port 0, an uncabled port, the
				* wrong CA, or a starts on no switch */
	size_t loops;          /* visited more switches than the fabric has */
	size_t max_hops;       /* switch-to-switch hops of the longest delivered path */
	/* Edge forwarding index: delivered pairs routed over each directed link
	 * out of a switch (to a switch or to a CA). Mean over every cabled
	 * switch port, idle ones included, so spreading shows. */
	size_t efi_links;      /* directed links out of switches */
	size_t efi_max;
	double efi_mean;
	/* Worst link load of a permutation: the most flows (delivered ones) that
	 * share one directed switch-out link; 1 = no two flows share a link. */
	size_t shifts;         /* shift permutations evaluated: CA i sends to
				* CA (i + k) mod n_ca, CAs in the graph's order */
	size_t shift_max_load; /* max over the k's evaluated */
	size_t shift_worst_k;  /* the first k reaching it */
	int shifts_sampled;    /* the k's were a random sample (sample_shifts) */
	size_t shifts_total;   /* n_ca - 1: every shift */
	double shift_bound95;  /* sampled: at 95% confidence, fewer than this share
				* of all shifts have a worse link (the sample
				* found none among `shifts` draws: 1 - 0.05^(1/shifts)) */
	size_t randoms;        /* random permutations evaluated */
	size_t random_max_load;/* max over them */
	double random_mean_load;/* mean over them of each one's worst link: the
				* max alone is one unlucky draw */
	double random_mean_se; /* its standard error (the worst links' standard
				* deviation over sqrt(randoms)): two tables'
				* means closer than about twice theirs combined
				* are one draw of luck apart */
	/* Deadlock freedom: the channel dependency graph of the delivered
	 * pairs' paths, one per VL. A channel is a directed link out of a switch
	 * (to a switch or a CA); a path that takes channel c1 then c2 makes c1
	 * depend on c2, on the VL of the path: the SL of (its source switch,
	 * its destination LID), SL s on VL s, or with opts->sl2vl the VL its
	 * tables give each hop (c1 on VL a, c2 on VL b: a dependency across
	 * VLs). No cycle on any VL and no way back from a VL to itself over
	 * the crossings: no deadlock. */
	int cdg_acyclic;       /* 1 when every VL's graph is acyclic (or empty) */
	size_t cdg_vls;        /* distinct VLs the delivered paths use */
	size_t cdg_edges;      /* distinct (VL, c1, c2) dependencies within a VL */
	int cdg_sl2vl;         /* the VLs came from opts->sl2vl */
	size_t cdg_vl_changes; /* distinct (VL a, VL b) crossings, a != b */
	int cdg_vl_loop;       /* the crossings lead from some VL back to itself:
				* a credit loop across VLs may exist (judged
				* cyclic, cdg_cycle_vl stays -1 if no VL has one) */
	int cdg_cycle_vl;      /* the first VL whose graph has a cycle, or -1 */
	size_t cdg_cycle_len;  /* its channels (global port indexes) in order, */
#define RT_METRICS_CYCLE_MAX 32  /* the first RT_METRICS_CYCLE_MAX of them */
	uint32_t cdg_cycle[RT_METRICS_CYCLE_MAX];
	/* Effective bisection bandwidth: each random bisection splits the CAs
	 * into two halves (one CA sits out when their number is odd) and pairs
	 * every CA of one half with one of the other, both directions sending.
	 * A flow gets 1 / (the most flows on any directed link of its path:
	 * switch-out links, the last one to the CA included; a CA's own
	 * injection link carries its one flow), 0 if not delivered. */
	size_t bisections;     /* bisections evaluated */
	double ebb;            /* mean over all their flows, 0..1 */
};

/* Follow tables l from switch s toward CA dst, one entry per switch: path[]
 * gets the global index (rt_graph_port_index) of every switch output port
 * used, the last one cabled to dst when delivered (room for n_sw entries),
 * *len their number. Unreachable: an entry RT_NO_PORT, 0, a port the switch
 * lacks or that leads nowhere or to another CA; a loop: more switches than
 * the fabric has. The one walk of the tables that the metrics and the job
 * paths (route_paths.h) share. */
enum rt_walk_result { RT_WALK_DELIVERED, RT_WALK_UNREACHABLE, RT_WALK_LOOP };
enum rt_walk_result rt_walk(const struct rt_graph *g, const struct rt_lfts *l, int32_t s,
			    size_t dst, uint32_t *path, size_t *len);

/* Compute the metrics of tables l (made for g). opts NULL: every shift, no
 * random permutation, no bisection. Cost: O(switches with CAs * n_ca * hops)
 * for the pairs and their dependencies, O(n_ca * hops) per permutation or
 * bisection, O(ports * VLs * radix) for the dependency graphs; split over
 * g->pool's threads (per source switch, shift, permutation, bisection),
 * with the same result for any number of them. 0 or -ENOMEM. */
int rt_metrics_compute(const struct rt_graph *g, const struct rt_lfts *l,
		       const struct rt_metrics_opts *opts, struct rt_metrics *out);

/* Every shift costs O(n_ca^2 * hops): above this many CA ports, callers
 * that were asked for no particular count take a sample
 * (rt_metrics_opts_auto). */
#define RT_METRICS_EXACT_CAS 8192
#define RT_METRICS_SAMPLE_SHIFTS 1024
/* With o->max_shifts 0 on a graph of more than RT_METRICS_EXACT_CAS CA ports:
 * RT_METRICS_SAMPLE_SHIFTS shifts, sampled. Otherwise o stays. */
void rt_metrics_opts_auto(const struct rt_graph *g, struct rt_metrics_opts *o);

/* The draws behind the random permutations and bisections, for other
 * judges of the same tables (route_ar.h's EBB with adaptive routing) to
 * see the very same flows. perm gets 0..n-1 shuffled (Fisher-Yates on
 * splitmix64, advancing *seed): rt_metrics_compute draws each random
 * permutation, and separately each bisection, from opts->seed so. */
void rt_metrics_shuffle(size_t *perm, size_t n, uint64_t *seed);

/* Flow f (0 .. 2 * (n / 2) - 1) of the bisection drawn as perm (n CAs):
 * flow 2i goes from perm[i] to perm[n / 2 + i], flow 2i + 1 back. */
static inline void rt_metrics_bisection_flow(const size_t *perm, size_t n, size_t f,
					     size_t *a, size_t *b)
{
	size_t half = n / 2;

	*a = perm[f % 2 ? half + f / 2 : f / 2];
	*b = perm[f % 2 ? f / 2 : half + f / 2];
}

#endif
