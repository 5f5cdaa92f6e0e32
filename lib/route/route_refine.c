/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_refine.c: local search on the up*-down* tables of a fat tree,
 * lowering the worst link of shift permutations and the chance of a heavy
 * link in random ones.
 *
 * The fat-tree engine routes each destination once, in order, from loads
 * seen so far; on a tree missing many cables its early choices can stack
 * flows that a later view would spread. This pass looks at the finished
 * tables and moves single entries: a switch X that routes CA d upward may
 * send d to another parent instead, when that parent reaches d in the same
 * number of hops by its own up*-down* route. Every flow to d that passes X
 * moves with it. Such a move keeps every route up*-down* and minimal in
 * hops, so the tables stay loop-free and deadlock-free on one VL.
 *
 * What a move is judged by:
 *   - shift permutations (CA i sends to CA i + k, the CAs in the graph's
 *     order, as route_metrics.h counts them): the load of every (shift,
 *     directed link) pair is kept exactly, and a potential sum of
 *     SHIFT_BASE^load over them weighs a flow on a heavier link as many
 *     flows on lighter ones. Phase 1 takes only moves that lower it and
 *     push no pair above the worst load, starting from the pairs at the
 *     worst load;
 *   - random permutations: the flow to d comes from a uniformly random
 *     source, so a link carrying the flows of c_d sources toward each d
 *     carries a load of about a sum of independent Bernoulli(c_d / n). Its
 *     E[RANDOM_BASE^load] = prod over d of (1 + (RANDOM_BASE - 1) c_d / n)
 *     bounds the chance of a heavy load (Chernoff); the sum over links is
 *     what phase 2 lowers, from the links where it is highest (moving the
 *     switch that sends flows over the link, or a child feeding it), never letting
 *     the shift permutations' worst load or its count grow. The model
 *     rewards what balanced static routing can do for random traffic:
 *     equal shares on a switch's up links, and every flow to one CA
 *     converging on one down link (a sure load, not a random one).
 * No randomness and no clock: the same graph and tables give the same
 * result, so tables read back from switches can be compared with an
 * offline run. Work is bounded by SHIFT_EVALS and RANDOM_EVALS move
 * evaluations (checked between the links it asks, so a phase may run over
 * by one link's worth) and PHASE_ROUNDS rounds per phase; phase 2 gets
 * more because its gains are many small ones (on the 1024-CA 3-level tree
 * cut 200 times, its random permutations' mean worst link went 5.500,
 * 5.484, 5.476 with 0.3, 1.5 and 3 million evaluations, 20000 draws).
 *
 * Where it stops: phase 1 at the bound a leaf gives (its CAs over its up
 * links, where some shift must send them all off the leaf) or when a round
 * over the worst pairs finds no lowering move (a
 * local optimum: on the 2-level trees of bench/routing.sh that is the bound
 * two leaves' common spines give, ceil(CAs / common spines)); phase 2 when
 * a round finds nothing. It looks first at SAMPLE_SHIFTS shifts spread
 * evenly and stops there if none shares a link (a full tree). Levels are
 * hop distances from the switches with CAs; a tree where that puts a cable
 * within one level (a CA on a spine, which ftree handles) is left alone.
 * SHIFT_BASE is 64: with 16, a move that takes a flow off a pair at the
 * worst load but adds one to some 20 pairs at one flow (a leaf's other
 * CAs' shifts) looked like a loss, and a 4096-CA 3-level tree cut 80 times
 * stayed at 3 where 2 is reachable; the bench's trees end as with 16.
 *
 * Trees of any size: windows of shifts. The counters of every shift at
 * once, (CAs - 1) x directed links of them, fit up to SHIFT_CELLS (128 Mi,
 * 256 MiB: about 5000 CAs on a 3-level tree); beyond, the pass works on
 * windows of consecutive shifts, as many as fit, one after another, each
 * counted exactly and refined by phase 1 with only the moves whose every
 * source's shift (d - a for the sources a a move carries) lies inside the
 * window. A move changes no other shift's loads, so the guarantees hold
 * over all shifts: nothing outside the window gets worse, and the worst
 * load of each shift is known exactly after its window (the worst before
 * and after are exact, not sampled). A leaf's move carries its own CAs,
 * consecutive in fabgen's order, so its shifts are consecutive too; a
 * first pass puts windows side by side, a second centres a smaller one
 * (CENTRED_ROWS) on each shift still above the floor, for the moves that
 * straddled two. Memory: the
 * window's counters (SHIFT_CELLS at most), below[] and the tables, growing
 * with links and CAs, not shifts x links. Phase 2 runs only when every
 * shift fits at once: its flows per (switch, CA) and its rounds over all
 * of them are the cost this mode avoids. Other designs weighed: counting a
 * pair's load on the fly for the shifts a move touches costs a walk per
 * source below the link (hundreds on the middle levels) per pair, per
 * evaluation; keeping only the worst few shifts per link loses the exact
 * 0-or-1 that tells whether a move creates a shared link; sampling shifts
 * cannot promise the others do not get worse.
 *
 * Counting (route_refine_count.c): a switch's CAs in runs of consecutive
 * indices share their paths, and their shifts toward one destination are
 * consecutive, so a walk adds a range of rows; split over g->pool by
 * blocks of shifts, each written by one task: the same counts, hence the
 * same tables, for any number of threads. Phase 1 asks batches of its
 * questions (pairs at the worst load) at once over the pool and takes the
 * answers in order, dropping the rest after a move
 * (route_refine_move.c): the same moves, tables and evaluation count for
 * any number of threads; phase 2 asks one link at a time. A move's shift
 * delta is route_refine_delta.c's (the new links first, the old path's
 * part once per switch and destination).
 *
 * Cost: O(runs * CAs * hops) walks and O(CAs * links) sums to count every
 * shift (once per pass in windows), O(switches * CAs) memory for the flows
 * through each switch when phase 2 runs, O(links * window) for the
 * counters; each move evaluation is O(its new path) plus O(sources moved *
 * hops) for the shift loads (in phase 2 only when its random cost is good
 * enough). Phase 1 gets WINDOW_EVALS evaluations per window, WINDOWS_EVALS
 * in all. */
#include "autoconf.h"
#include "lib/route/route.h"
#include "lib/util/par.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/route/route_refine_int.h"

size_t rf_shift_cells = SHIFT_CELLS;

static void count_prod(struct refine *r);


static void cell_add(struct refine *r, size_t row, size_t link, int dir)
{
	size_t i = rf_cell(r, row, link);
	uint16_t c = r->cell[i];
	uint16_t n = (uint16_t)(dir > 0 ? c + 1 : c - 1);  /* 0 <= load < n_ca <= 65535 */
	uint32_t *rh = r->row_hist + row * ROW_LOADS;

	rh[rf_load_bucket(c)]--;
	rh[rf_load_bucket(n)]++;
	r->hist[c > 1 ? c : 1]--;
	r->hist[n > 1 ? n : 1]++;
	r->cell[i] = n;
	if (n > r->link_max[link])
		r->link_max[link] = n;
	if (n > r->top)
		r->top = n;
	while (r->top > 1 && !r->hist[r->top])
		r->top--;
}

/* Levels: hop distance from the nearest switch with CAs; -EINVAL when they
 * make no tree this pass can keep up*-down* (rt_graph_tree_levels). */
static int levels(struct refine *r)
{
	return rt_graph_tree_levels(r->g, r->level, r->stack);
}

/* below[]: the CAs reachable from each switch going only down (its own
 * included), switches taken in ascending level. */
static int below_sets(struct refine *r)
{
	const struct rt_graph *g = r->g;
	size_t total = 0, k = 0;
	uint16_t maxl = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		if (r->level[s] != NO_LEVEL && r->level[s] > maxl)
			maxl = r->level[s];
	/* Count with multiplicity first (a CA below two children counts twice:
	 * an upper bound), then fill with a per-switch mark. below_n starts
	 * as each switch's own CAs. */
	memset(r->below_n, 0, (g->n_sw + 1) * sizeof(*r->below_n));
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			r->below_n[g->ca[c].sw]++;
	for (uint16_t lv = 0; lv <= maxl; lv++)
		for (size_t s = 0; s < g->n_sw; s++) {
			const struct rt_link *lk = &g->links[g->sw[s].first_link];

			if (r->level[s] != lv)
				continue;
			for (uint32_t i = 0; i < g->sw[s].n_links; i++)
				if (r->level[lk[i].peer] + 1 == lv)
					r->below_n[s] += r->below_n[lk[i].peer];
			if (r->below_n[s] > g->n_ca)
				r->below_n[s] = (uint32_t)g->n_ca;
			total += r->below_n[s];
		}
	r->below = malloc((total + 1) * sizeof(*r->below));
	uint8_t *mark = calloc(g->n_ca + 1, 1), *queued = calloc(g->n_sw + 1, 1);
	if (!r->below || !mark || !queued) {
		free(mark);
		free(queued);
		return -ENOMEM;
	}
	for (size_t s = 0; s < g->n_sw; s++) {
		size_t head = 0, tail = 0, got = 0;

		r->below_first[s] = (uint32_t)k;
		if (r->level[s] == NO_LEVEL) {
			r->below_n[s] = 0;
			continue;
		}
		r->stack[tail++] = (int32_t)s;
		queued[s] = 1;
		while (head < tail) {
			size_t u = (size_t)r->stack[head++];
			const struct rt_link *lk = &g->links[g->sw[u].first_link];

			for (unsigned p = 1; p <= g->sw[u].nports; p++) {
				const struct rt_port *pt = rt_graph_port(g, u, p);

				if (pt->kind == RT_PEER_CA && !mark[pt->peer] && got < r->below_n[s]) {
					mark[pt->peer] = 1;
					r->below[k + got++] = (uint32_t)pt->peer;
				}
			}
			/* A switch can be reached from two parents: once. */
			for (uint32_t i = 0; i < g->sw[u].n_links; i++)
				if (r->level[lk[i].peer] + 1 == r->level[u] && !queued[lk[i].peer]) {
					queued[lk[i].peer] = 1;
					r->stack[tail++] = lk[i].peer;
				}
		}
		for (size_t j = 0; j < got; j++)
			mark[r->below[k + j]] = 0;
		for (size_t j = 0; j < tail; j++)
			queued[r->stack[j]] = 0;
		r->below_n[s] = (uint32_t)got;
		k += got;
	}
	free(mark);
	free(queued);
	return 0;
}

/* Carry out the move of at onto q (r->src holds at's sources). */
static void apply(struct refine *r, const struct at *at, int32_t q, const int32_t *newp,
		  int co, int cn)
{
	const struct rt_graph *g = r->g;
	size_t t = r->n_src, d = at->d;

	rt_lfts_set(r->l, at->x, g->ca[d].lid, g->links[q].port);
	for (size_t i = 0; i < r->n_src; i++) {
		size_t row = rf_row_of(r, (size_t)r->src[i], d);

		if (row == (size_t)-1)
			continue;
		for (int j = 0; j < co; j++)
			cell_add(r, row, (size_t)at->oldp[j], -1);
		for (int j = 0; j < cn; j++)
			cell_add(r, row, (size_t)newp[j], +1);
	}
	for (int j = 0; j < co && r->through; j++) {
		uint16_t *th = &r->through[(size_t)g->links[at->oldp[j]].sw * r->n + d];
		double cb = j ? *th : (double)t, ca = cb - (double)t;

		r->prod[at->oldp[j]] *= (1 + r->beta * ca) / (1 + r->beta * cb);
		if (j)
			*th = (uint16_t)(*th - t);
	}
	for (int j = 0; j < cn && r->through; j++) {
		uint16_t *th = &r->through[(size_t)g->links[newp[j]].sw * r->n + d];
		double cb = j ? *th : 0.0, ca = cb + (double)t;

		r->prod[newp[j]] *= (1 + r->beta * ca) / (1 + r->beta * cb);
		if (j)
			*th = (uint16_t)(*th + t);
	}
	r->moves++;
}

static int take(struct refine *r, struct best *b)
{
	struct at at;
	int32_t newp[MAX_HOPS + 1];
	int co, cn;

	if (!b->found)
		return 0;
	at.x = b->x;
	at.d = b->d;
	at.lo = rf_walk(r, at.x, at.d, at.oldp);
	if (at.lo <= 0 || rf_new_path(r, &at, b->q, newp, &co, &cn) < 0)
		return 0;
	rf_sources(r, at.x, at.d);
	apply(r, &at, b->q, newp, co, cn);
	return 1;
}

#define HOT_CAP (1u << 16)  /* pairs at the worst load asked per round */

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The cells at load `top` as row * nl + link, in that order (shift by
 * shift), at most HOT_CAP; *hot grows as needed. Their number, or SIZE_MAX
 * out of memory. The scan goes link by link, block by block (the cells'
 * order), only over links whose link_max reaches top (made exact on the
 * way). */
static size_t hot_cells(struct refine *r, size_t top, size_t **hot, size_t *cap)
{
	size_t n = 0, rows = r->rows;
	uint16_t t = (uint16_t)top;

	for (size_t link = 0; link < r->nl; link++) {
		uint16_t m = 0;

		if (r->link_max[link] < t)
			continue;
		for (size_t b0 = 0; b0 < rows; b0 += COUNT_ROWS) {
			const uint16_t *c = r->cell + rf_cell(r, b0, link);
			size_t nb = rows - b0 < COUNT_ROWS ? rows - b0 : COUNT_ROWS;
			unsigned hit = 0;

			for (size_t i = 0; i < nb; i++) {
				m = c[i] > m ? c[i] : m;
				hit |= c[i] == t;
			}
			for (size_t i = 0; hit && i < nb; i++) {
				if (c[i] != t)
					continue;
				if (n == *cap) {
					size_t *h = realloc(*hot, 2 * *cap * sizeof(**hot));

					if (!h)
						return SIZE_MAX;
					*hot = h;
					*cap *= 2;
				}
				(*hot)[n++] = (b0 + i) * r->nl + link;
			}
		}
		r->link_max[link] = m;
	}
	qsort(*hot, n, sizeof(**hot), by_index);
	return n < HOT_CAP ? n : HOT_CAP;
}

/* Take the answers q[0..n) in order as the serial loop would: the budget
 * checked before each, its evaluations counted, its move taken; stop after
 * the first move (the rest were asked of tables now changed). The number
 * used. */
static size_t take_answers(struct refine *r, struct rf_ask *q, size_t n, size_t *improved)
{
	size_t i = 0;

	while (i < n && r->evals < r->budget) {
		r->evals += q[i].evals;
		if (take(r, &q[i++].b)) {
			(*improved)++;
			break;
		}
	}
	return i;
}

/* The next batch's size: twice this one's (at most nb) when all of its m
 * answers were used without a move, else as many as came before and with
 * the move: where moves come often (phase 2 on a cut tree), the answers
 * asked after one are thrown away, so batches shrink to what was used. */
static size_t next_batch(size_t size, size_t used, size_t m, size_t nb)
{
	if (used == m && 2 * size <= nb)
		return 2 * size;
	return used == m ? nb : used;
}

/* Phase 1: the (shift, link) pairs at the worst load, each asked for the
 * move that lowers the shift potential most (every switch on the way up
 * of a flow on the pair may turn it), in batches over the pool. */
static void phase_shifts(struct refine *r)
{
	size_t cap = HOT_CAP, n_hot, nb = rf_batch_size(r);
	size_t *hot = malloc(cap * sizeof(*hot));
	struct rf_ask *q = malloc(nb * sizeof(*q));

	if (!hot || !q)
		goto out;
	r->budget = r->evals + (r->window_evals ? r->window_evals : SHIFT_EVALS);
	for (int round = 0; round < PHASE_ROUNDS && r->top > r->floor && r->evals < r->budget;
	     round++) {
		size_t top = r->top, improved = 0;

		if ((n_hot = hot_cells(r, top, &hot, &cap)) == SIZE_MAX)
			break;
		for (size_t h = 0, m, used, size = 1; h < n_hot && r->evals < r->budget;
		     h = q[used - 1].pos + 1, size = next_batch(size, used, m, nb)) {
			/* The next pairs still at the worst load. */
			for (m = 0; h < n_hot && m < size; h++) {
				size_t row = hot[h] / r->nl, link = hot[h] % r->nl;

				if (r->cell[rf_cell(r, row, link)] != top || r->top != top)
					continue;
				q[m].row = row;
				q[m].link = (int32_t)link;
				q[m++].pos = h;
			}
			if (!m)
				break;
			rf_ask_batch(r, q, m, 1);
			if (!(used = take_answers(r, q, m, &improved)))
				break;
		}
		if (!improved)
			break;
	}
out:
	free(q);
	free(hot);
}

static int by_prod_desc(const void *a, const void *b, void *arg)
{
	const double *p = arg;
	double x = p[*(const int32_t *)a], y = p[*(const int32_t *)b];

	if (x != y)
		return x < y ? 1 : -1;
	return *(const int32_t *)a - *(const int32_t *)b;
}

/* Phase 2: the links most likely to carry a heavy random load, each asked
 * for the move that lowers the random cost most without making the shift
 * permutations' worst load higher or more frequent. */
static void phase_random(struct refine *r)
{
	int32_t *order = malloc((r->nl + 1) * sizeof(*order));
	size_t n_hot = r->nl / 8 + 1;

	if (!order)
		return;
	r->budget = r->evals + RANDOM_EVALS;
	for (int round = 0; round < PHASE_ROUNDS && r->evals < r->budget; round++) {
		size_t improved = 0;

		count_prod(r);
		for (size_t i = 0; i < r->nl; i++)
			order[i] = (int32_t)i;
		qsort_r(order, r->nl, sizeof(*order), by_prod_desc, r->prod);
		for (size_t h = 0; h < n_hot && h < r->nl && r->evals < r->budget; h++) {
			/* An up link: flows to d leave its switch s over it, and s
			 * may turn them all, or a child feeding s its share; a
			 * down link: the children of s that route flows up into
			 * it may. One link at a time, on the calling thread: on
			 * cut trees moves come so often here that links asked
			 * ahead were mostly thrown away (1152 hosts cut 100: 0.24
			 * s against 0.16), and a link's destinations split in
			 * chunks lost the cut of the best so far (0.29 s). */
			struct rf_ask q = { .link = order[h] };

			rf_ask_batch(r, &q, 1, 2);
			r->evals += q.evals;
			improved += (size_t)take(r, &q.b);
		}
		if (!improved)
			break;
	}
	free(order);
}

static void refine_free(struct refine *r)
{
	free(r->level);
	free(r->port_link);
	free(r->below_first);
	free(r->below_n);
	free(r->below);
	free(r->through);
	free(r->cell);
	free(r->link_max);
	free(r->block_max);
	free(r->prod);
	free(r->src);
	free(r->stack);
	free(r->hist);
	free(r->f);
	free(r->row_hist);
	rf_workers_free(r);
	free(r->run_sw);
	free(r->run_lo);
	free(r->run_hi);
}

/* Track and count `rows` shifts from k0, every stride-th; the cells are
 * allocated once for the largest window (cap rows). 0 or -ENOMEM. */
static int track_shifts(struct refine *r, size_t k0, size_t rows, size_t stride)
{
	r->k0 = k0;
	r->stride = stride;
	r->rows = rows;
	return rf_count_shifts(r);
}

/* Flows through each switch toward each CA, and each link's random cost. */
static void count_flows(struct refine *r)
{
	const struct rt_graph *g = r->g;
	int32_t path[MAX_HOPS + 1];
	uint32_t *n_at = (uint32_t *)r->stack;   /* n_sw + 1 entries */

	memset(n_at, 0, (g->n_sw + 1) * sizeof(*n_at));
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			n_at[g->ca[c].sw]++;
	for (size_t s = 0; s < g->n_sw; s++) {
		if (!n_at[s])
			continue;
		for (size_t d = 0; d < r->n; d++) {
			uint32_t w = n_at[s] - (g->ca[d].sw == (int32_t)s);
			int len;

			if (!w || g->ca[d].sw < 0)
				continue;
			len = rf_walk(r, s, d, path);
			if (len < 0)
				continue;
			r->through[s * r->n + d] = (uint16_t)(r->through[s * r->n + d] + w);
			for (int j = 0; j < len; j++) {
				uint16_t *th = &r->through[(size_t)g->links[path[j]].peer * r->n + d];
				*th = (uint16_t)(*th + w);
			}
		}
	}
	count_prod(r);
}

/* Each link's random cost from the flows through its switch (phase 2
 * starts every round from this, not from products kept by division). */
static void count_prod(struct refine *r)
{
	const struct rt_graph *g = r->g;

	for (size_t i = 0; i < r->nl; i++)
		r->prod[i] = 1.0;
	for (size_t s = 0; s < g->n_sw; s++)
		for (size_t d = 0; d < r->n; d++) {
			uint16_t th = r->through[s * r->n + d];
			uint8_t p;
			int32_t li;

			if (!th || (size_t)g->ca[d].sw == s)
				continue;
			p = rt_lfts_get(r->l, s, g->ca[d].lid);
			if (p == RT_NO_PORT || p == 0 || p > g->sw[s].nports)
				continue;
			li = r->port_link[rt_graph_port_index(g, s, p)];
			if (li >= 0)
				r->prod[li] *= 1 + r->beta * th;
		}
}

/* The shift potential of a cell per load: 0 for 0 and 1 flows, then
 * SHIFT_BASE^(load - 2). */
static void shift_potential(struct refine *r)
{
	double v = 1;

	r->f[0] = 0;
	for (size_t i = 1; i <= r->n + 1; i++) {
		r->f[i] = i == 1 ? 0 : v;
		v = v * SHIFT_BASE > 1e300 ? 1e300 : v * SHIFT_BASE;
	}
}

/* The worst load of the window's shifts into rowmax[]. */
static void window_maxima(const struct refine *r, uint16_t *rowmax)
{
	for (size_t row = 0; row < r->rows; row++)
		rowmax[r->k0 - 1 + row] = (uint16_t)rf_row_max(r, row);
}

/* Shifts in windows of `cap` (more shifts than fit at once): each window
 * counted exactly, then phase 1 on it with only the moves whose every
 * source's shift lies inside it, so the shifts outside keep their loads.
 * A first pass over windows side by side sees every shift (the worst
 * before, and each shift's worst after: exact, since only a window's own
 * shifts change while it is at work); the next ones centre a window of
 * CENTRED_ROWS on each shift still above the floor, for the moves that
 * straddled two, while a pass still moves something (on the 27648-CA tree
 * cut 300 times, the first pass ends at 3, the second at 2). */
static int refine_windows(struct refine *r, size_t cap, struct rt_refine_stats *st)
{
	uint16_t *rowmax = calloc(r->n, sizeof(*rowmax));
	size_t worst = 0;

	if (!rowmax || below_sets(r) < 0) {
		free(rowmax);
		return -ENOMEM;
	}
	shift_potential(r);
	r->window_evals = WINDOW_EVALS;
	st->shift_before = 0;
	for (int pass = 0; pass < WINDOW_PASSES && r->evals < WINDOWS_EVALS; pass++) {
		size_t moves = r->moves;
		/* Centred windows need only reach a move's shifts either side. */
		size_t w = pass && cap > CENTRED_ROWS ? CENTRED_ROWS : cap;

		for (size_t k = 1; k < r->n && r->evals < WINDOWS_EVALS;) {
			size_t k0 = k, rows;

			if (pass) {
				/* Centred on the next shift still above the floor. */
				if (rowmax[k - 1] <= r->floor) {
					k++;
					continue;
				}
				k0 = k > w / 2 ? k - w / 2 : 1;
				if (k0 + w > r->n)
					k0 = r->n - w;
			}
			rows = r->n - k0 < w ? r->n - k0 : w;
			k = k0 + rows;
			if (track_shifts(r, k0, rows, 1) < 0) {
				free(rowmax);
				return -ENOMEM;
			}
			if (!pass && r->top > st->shift_before)
				st->shift_before = r->top;
			phase_shifts(r);
			window_maxima(r, rowmax);
			st->windows++;
		}
		if (r->moves == moves)
			break;
	}
	for (size_t k = 0; k + 1 < r->n; k++)
		worst = rowmax[k] > worst ? rowmax[k] : worst;
	st->shift_after = worst;
	st->moves = r->moves;
	st->evals = r->evals;
	free(rowmax);
	return 0;
}

int rt_refine_tree(const struct rt_graph *g, struct rt_lfts *l, struct rt_refine_stats *st,
		   char *err, size_t errlen)
{
	struct refine r = { 0 };
	size_t n_sw = g->n_sw + 1, cap;
	int rc;

	memset(st, 0, sizeof(*st));
	if (l->n_sw != g->n_sw || l->max_lid != g->max_lid) {
		snprintf(err, errlen, "the tables were not made for this graph");
		return -EINVAL;
	}
	if (g->n_ca < 3 || !g->n_links || g->n_ca > UINT16_MAX)
		return 0;
	r.g = g;
	r.l = l;
	r.n = g->n_ca;
	r.nl = g->n_links;
	r.level = malloc(n_sw * sizeof(*r.level));
	r.port_link = malloc((g->n_ports + 1) * sizeof(*r.port_link));
	r.below_first = calloc(n_sw, sizeof(*r.below_first));
	r.below_n = calloc(n_sw, sizeof(*r.below_n));
	r.src = malloc((g->n_ca + 1) * sizeof(*r.src));
	r.stack = malloc((n_sw > g->n_ca ? n_sw : g->n_ca + 1) * sizeof(*r.stack) + 4);
	r.hist = malloc((g->n_ca + 2) * sizeof(*r.hist));
	r.f = malloc((g->n_ca + 2) * sizeof(*r.f));
	if (!r.level || !r.port_link || !r.below_first || !r.below_n || !r.src || !r.stack ||
	    !r.hist || !r.f || rf_workers_new(&r, (n_sw > g->n_ca ? n_sw : g->n_ca + 1) + 1) < 0)
		goto nomem;
	if ((rc = levels(&r)) == -ENOMEM)
		goto nomem;
	if (rc < 0) {
		rc = 0;        /* not a tree with strict levels: nothing to do */
		goto out;
	}
	/* A shift that sends all of a leaf's h CAs off it loads one of its up
	 * links with at least ceil(h / up links). Such a shift exists when
	 * h (h - 1) < n - 1: fewer shifts than that map a CA of the leaf onto
	 * another, wherever the leaf's CAs sit in the CA order. */
	r.floor = 1;
	memset(r.below_n, 0, n_sw * sizeof(*r.below_n));   /* CAs on each switch, for now */
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			r.below_n[g->ca[c].sw]++;
	for (size_t s = 0; s < g->n_sw; s++) {
		size_t h = r.below_n[s], u = 0;

		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			u += r.level[g->links[g->sw[s].first_link + i].peer] == r.level[s] + 1;
		if (h && u && h * (h - 1) < g->n_ca - 1 && (h + u - 1) / u > r.floor)
			r.floor = (h + u - 1) / u;
	}
	memset(r.below_n, 0, n_sw * sizeof(*r.below_n));
	for (size_t i = 0; i < g->n_ports; i++)
		r.port_link[i] = -1;
	for (size_t i = 0; i < g->n_links; i++)
		r.port_link[rt_graph_port_index(g, (size_t)g->links[i].sw, g->links[i].port)] =
			(int32_t)i;
	/* Cells for the largest window: every shift when they fit. */
	cap = rf_shift_cells / r.nl;
	if (cap < SAMPLE_SHIFTS)
		cap = SAMPLE_SHIFTS;
	if (cap > r.n - 1)
		cap = r.n - 1;
	{
		size_t blocks = (cap + COUNT_ROWS - 1) / COUNT_ROWS;

		r.cell = malloc(blocks * COUNT_ROWS * r.nl * sizeof(*r.cell));
		r.block_max = malloc(blocks * r.nl * sizeof(*r.block_max));
	}
	r.link_max = malloc(r.nl * sizeof(*r.link_max));
	r.row_hist = malloc(cap * ROW_LOADS * sizeof(*r.row_hist));
	if (!r.cell || !r.block_max || !r.link_max || !r.row_hist || rf_ca_runs(&r) < 0)
		goto nomem;
	/* First a glance: SAMPLE_SHIFTS shifts spread evenly. A full tree
	 * routed by the fat-tree engine has no shared link in any shift, and
	 * a degraded one shows a shared link in nearly any few of them; when
	 * none does, there is nothing worth the full count. */
	{
		size_t stride = (r.n - 1 + SAMPLE_SHIFTS - 1) / SAMPLE_SHIFTS;

		if (track_shifts(&r, 1, (r.n - 1 + stride - 1) / stride, stride) < 0)
			goto nomem;
	}
	st->shift_before = st->shift_after = r.top;
	if (r.top <= 1) {
		st->shifts = r.rows;
		rc = 0;
		goto out;
	}
	st->shifts = r.n - 1;
	if (cap < r.n - 1) {
		rc = refine_windows(&r, cap, st);
		if (rc == -ENOMEM)
			goto nomem;
		goto out;
	}
	/* Every shift at once: a move is judged on all of them. */
	if (track_shifts(&r, 1, r.n - 1, 1) < 0)
		goto nomem;
	st->windows = 1;
	st->shift_before = r.top;
	r.through = calloc(g->n_sw * r.n + 1, sizeof(*r.through));
	r.prod = malloc((r.nl + 1) * sizeof(*r.prod));
	if (!r.through || !r.prod || below_sets(&r) < 0)
		goto nomem;
	r.beta = (RANDOM_BASE - 1) / (double)r.n;
	count_flows(&r);
	shift_potential(&r);
	for (size_t i = 0; i < r.nl; i++)
		st->random_before += r.prod[i];
	phase_shifts(&r);
	phase_random(&r);
	st->shift_after = r.top;
	for (size_t i = 0; i < r.nl; i++)
		st->random_after += r.prod[i];
	st->moves = r.moves;
	st->evals = r.evals;
	rc = 0;
	goto out;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory refining %zu CAs' routes", g->n_ca);
out:
	refine_free(&r);
	return rc;
}
