/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_refine_int.h: what the refinement's files share
 * (route_refine.c, the local search; route_refine_count.c, the shift
 * counters). Private to them. */
#ifndef LOOM_ROUTE_REFINE_INT_H
#define LOOM_ROUTE_REFINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route.h"

#define NO_LEVEL RT_NO_LEVEL
#define MAX_HOPS 64
#define SHIFT_BASE 64.0
#define RANDOM_BASE 5.0
#define SHIFT_CELLS (128u << 20) /* (shift, link) counters held at once, 2 bytes
				  * each: 256 MiB; every shift at once up to about
				  * 5000 CAs on a 3-level tree, windows beyond */
#define WINDOW_EVALS 300000u   /* move evaluations per window, phase 1 */
#define WINDOWS_EVALS 6000000u /* all windows together */
#define CENTRED_ROWS 128       /* a centred window's shifts: one block; room for a
				* leaf's move (its CAs' shifts) either side; 300 found
				* the same moves on the 27648-CA tree cut 300 times,
				* at 2.3x the count */
#define WINDOW_PASSES 2        /* passes: side by side, then centred on what is left */
#define COUNT_ROWS 128         /* shifts counted by one task of the pool, and the
				* cells' block (rf_cell); 64 walked 15% more (a run's
				* shifts straddle blocks), 256 left a core idle */
#define ROW_LOADS 16           /* per-shift load histogram: 1 (at most one),
				* 2..14, 15 and up */
#define SHIFT_EVALS 300000u    /* move evaluations, phase 1 */
#define RANDOM_EVALS 2000000u  /* move evaluations, phase 2 */
#define PHASE_ROUNDS 40
#define SAMPLE_SHIFTS 16      /* the first glance at a tree */

struct refine {
	const struct rt_graph *g;
	struct rt_lfts *l;
	size_t n, nl;
	size_t rows, stride;   /* tracked shifts: k = k0 + row * stride */
	size_t k0;
	uint32_t *row_hist;    /* [row * ROW_LOADS + min(load, ROW_LOADS - 1)] */
	uint32_t *run_sw, *run_lo, *run_hi;   /* CAs of one switch, consecutive indices */
	size_t n_runs;
	uint16_t *level;
	int32_t *port_link;    /* global port index -> directed link, -1 */
	uint32_t *below_first, *below_n, *below;   /* CAs under each switch */
	uint16_t *through;     /* [sw * n + d]: sources whose path to d passes sw */
	uint16_t *cell;        /* in blocks of COUNT_ROWS rows, each [link][row]
				* (rf_cell): a move's sources are mostly consecutive
				* shifts, so its loads on one link are one run of
				* memory, and a counting task's rows are another */
	uint16_t *link_max;    /* per link: no cell of it above this (rf_count_shifts
				* makes it exact, cell changes keep it an upper
				* bound) */
	uint16_t *block_max;   /* [block * nl + link]: link_max of one block */
	size_t *hist;          /* cells per load 2..n; [1]: at most one flow */
	size_t top;            /* highest load with hist > 0 */
	double *f;             /* the shift potential of a cell per load, 0..n */
	double beta;
	double *prod;          /* per link: E[RANDOM_BASE^load] */
	int32_t *src;          /* the sources a move carries */
	size_t n_src;
	int32_t *stack;
	uint64_t evals, budget;
	size_t moves;
	size_t floor;          /* no routing does better: a leaf's CAs over its up links */
	uint64_t window_evals; /* phase 1's budget per window, 0: SHIFT_EVALS */
	/* The pool's workers (route_refine_move.c): a view each. */
	unsigned n_w;
	struct refine *w_view;
	int32_t *w_src, *w_stack;   /* [worker * (n + 1)], [worker * w_stack_n] */
	size_t w_stack_n;
};

/* A move's effect on the shift loads (route_refine_delta.c) and on the
 * random cost. */
struct delta {
	double ds, dr;         /* shift potential, random cost */
	long at_top;           /* change in cells at the current top load */
	long over;             /* cells pushed above it */
};

/* A switch x that routes CA d up, and what moving it would carry: its
 * current path to d and the sources that take it; the old path's part of
 * the shift delta, the same for every up link x may turn to, once. */
struct at {
	size_t x, d;
	int32_t oldp[MAX_HOPS + 1];
	int lo;
	int have_src;          /* r->src holds this (x, d)'s sources */
	int have_old;          /* old_ds/old_top hold their sums, or outside */
	int outside;           /* a source's shift is not in the window */
	double old_ds[MAX_HOPS + 1];  /* [j]: over the sources, oldp[0..j) */
	long old_top[MAX_HOPS + 1];
};

/* The best move asked so far: x to send d over q instead. */
struct best {
	int found;
	size_t x, d;
	int32_t q;
	struct delta dl;
};

/* A load's bucket in a shift's histogram: loads 0 and 1 are one, and so
 * are loads from ROW_LOADS - 1 up (counting only cells that two flows
 * share keeps the count's scan cheap). */
static inline size_t rf_load_bucket(size_t load)
{
	return load < 2 ? 1 : load < ROW_LOADS - 1 ? load : ROW_LOADS - 1;
}

static inline int rf_is_up(const struct refine *r, int32_t link)
{
	const struct rt_link *k = &r->g->links[link];

	return r->level[k->peer] > r->level[k->sw];
}

/* The counter of (tracked shift `row`, directed link). */
static inline size_t rf_cell(const struct refine *r, size_t row, size_t link)
{
	return (row / COUNT_ROWS * r->nl + link) * COUNT_ROWS + row % COUNT_ROWS;
}

/* The (shift, link) counters held at once: SHIFT_CELLS; tests lower it to
 * see windows on a small tree. */
extern size_t rf_shift_cells;

/* Links from switch s to CA d (switch-to-switch ones only); their number,
 * or -1 when the route does not deliver to d. */
static inline int rf_walk(const struct refine *r, size_t s, size_t d, int32_t *path)
{
	const struct rt_graph *g = r->g;
	unsigned lid = g->ca[d].lid;
	int len = 0;

	while (len < MAX_HOPS) {
		uint8_t p = rt_lfts_get(r->l, s, lid);
		const struct rt_port *pt;
		int32_t li;

		if (p == RT_NO_PORT || p == 0 || p > g->sw[s].nports)
			return -1;
		pt = rt_graph_port(g, s, p);
		if (pt->kind == RT_PEER_CA)
			return (size_t)pt->peer == d ? len : -1;
		if (pt->kind != RT_PEER_SWITCH)
			return -1;
		li = r->port_link[rt_graph_port_index(g, s, p)];
		if (li < 0)
			return -1;
		path[len++] = li;
		s = (size_t)pt->peer;
	}
	return -1;
}

/* The tracked row of source a's shift toward d, or (size_t)-1. */
static inline size_t rf_row_of(const struct refine *r, size_t a, size_t d)
{
	size_t k = d >= a ? d - a : d + r->n - a;

	if (k < r->k0)
		return (size_t)-1;
	if (r->stride == 1) {
		k -= r->k0;   /* windows: no division on the way */
	} else {
		if ((k - r->k0) % r->stride)
			return (size_t)-1;
		k = (k - r->k0) / r->stride;
	}
	return k < r->rows ? k : (size_t)-1;
}

/* r->run_*: the CAs of each switch as runs of consecutive indices. 0 or
 * -ENOMEM. */
int rf_ca_runs(struct refine *r);
/* Count the tracked shifts (r->k0, r->rows, r->stride) into r->cell,
 * r->row_hist, r->hist and r->top: stride 1 by runs over the pool, a
 * larger stride (the first glance) by walking every pair. 0 or -ENOMEM. */
int rf_count_shifts(struct refine *r);
/* The worst load of one tracked shift. */
size_t rf_row_max(const struct refine *r, size_t row);

/* Tests set it to sum every move source by source, as before the prefix
 * sums of route_refine_delta.c, to see both give the same tables. */
extern int rf_delta_direct;

/* Change in the shift loads of moving at's flows from the old path's
 * first co links to newp's first cn (r->src holds at's sources). A move
 * above the worst load, or whose potential change reaches `cut` (HUGE_VAL:
 * no cut), comes back with over > 0: refused. */
void rf_shift_delta(const struct refine *r, struct at *at, const int32_t *newp, int co, int cn,
		    double cut, struct delta *dl);

/* route_refine_move.c: the sources whose route to d passes switch x (x
 * routes d up) into r->src. */
void rf_sources(struct refine *r, size_t x, size_t d);
/* The parts of at's old path and of x's path to d over up link q that
 * differ (newp, co and cn links); -1 when the move is not allowed. Counts
 * one evaluation. */
int rf_new_path(struct refine *r, const struct at *at, int32_t q, int32_t *newp, int *co,
		int *cn);
/* Try every other up link of x for d into *b by `phase`'s rule. */
void rf_try_switch(struct refine *r, size_t x, size_t d, int phase, struct best *b);
/* The children of s that route d up into s, tried (phase 2). */
void rf_try_feeders(struct refine *r, size_t s, size_t d, struct best *b);
/* A question of a phase and its answer: the (tracked shift row, link)
 * pair at the worst load (phase 1) or the link (phase 2); the first best
 * move of those it asks about, in serial order, and the evaluations it
 * took. */
struct rf_ask {
	size_t pos;            /* the caller's index of it */
	size_t row;
	int32_t link;
	struct best b;
	uint64_t evals;
};

/* Questions to ask at once: 1 on one thread. */
size_t rf_batch_size(const struct refine *r);
/* Answer q[0..n) of `phase` over g->pool on the current tables (r->evals
 * unchanged: the caller counts the answers it takes). */
void rf_ask_batch(struct refine *r, struct rf_ask *q, size_t n, int phase);
/* The workers' views for g->pool's threads, their stacks of stack_n
 * entries. 0 or -ENOMEM; rf_workers_free frees them (and takes none). */
int rf_workers_new(struct refine *r, size_t stack_n);
void rf_workers_free(struct refine *r);

#endif
