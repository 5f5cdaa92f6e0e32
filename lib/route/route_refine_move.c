/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_refine_move.c: the refinement's moves (route_refine.c)
 * judged: which flows a move carries, its new path, its change in the
 * random cost and in the shift loads, and the best move a question asks
 * about, several questions at once over the pool.
 *
 * Questions asked on the pool, the same answers as one by one: a phase
 * asks its questions (phase 1: a (shift, link) pair at the worst load;
 * phase 2: a link likely loaded) in order, and each one's answer (the best
 * of the moves it asks about) depends on the tables and counters, which
 * change only when a move is taken. Most of phase 1's questions find no
 * move (at 1152 hosts, 144 moves in 300000 evaluations), so it asks a
 * batch of consecutive questions at once, one per pool item, each answered
 * whole in serial order by one worker (the same cuts, the same sums, the
 * same evaluation count as the serial code), then takes the answers in
 * order as the serial loop would: its budget checked before each one, each
 * one's evaluations counted, and after the first move taken the rest of
 * the batch thrown away and asked again on the new tables. Each worker
 * asks through its own view of the refinement (struct refine with its own
 * sources, stack and evaluation count; the counters, tables and flows
 * shared, read only while the batch runs). One thread: batches of one,
 * the serial loop as it was. Phase 2 asks one question at a time (see
 * phase_random). Splitting one question's moves over the pool instead
 * (chunks of its CAs, a best each, merged in order) gives the same
 * answers too, but each chunk learns its cut alone and a leaf's link has
 * only some 18 CAs: 2 threads were slower than one. */
#include "autoconf.h"
#include "lib/route/route.h"
#include "lib/util/par.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/route/route_refine_int.h"

#define BATCH_PER_WORKER 4    /* questions asked at once per worker, at
			       * most: more spreads the work better, and
			       * wastes more answers after a move */

/* The sources whose route to d passes switch x (x routes d up: they come
 * from x's own CAs and from children that route d into x). */
void rf_sources(struct refine *r, size_t x, size_t d)
{
	const struct rt_graph *g = r->g;
	unsigned lid = g->ca[d].lid;
	size_t head = 0, tail = 0;

	r->n_src = 0;
	r->stack[tail++] = (int32_t)x;
	while (head < tail) {
		size_t u = (size_t)r->stack[head++];
		const struct rt_link *lk = &g->links[g->sw[u].first_link];

		for (unsigned p = 1; p <= g->sw[u].nports; p++) {
			const struct rt_port *pt = rt_graph_port(g, u, p);

			if (pt->kind == RT_PEER_CA && (size_t)pt->peer != d && g->ca[pt->peer].sw >= 0)
				r->src[r->n_src++] = pt->peer;
		}
		for (uint32_t i = 0; i < g->sw[u].n_links; i++)
			if (r->level[lk[i].peer] + 1 == r->level[u] &&
			    rt_lfts_get(r->l, (size_t)lk[i].peer, lid) == lk[i].peer_port)
				r->stack[tail++] = lk[i].peer;
	}
}

/* The parts of the old and new paths (x's route to d, and x to d over up
 * link q) that differ. -1 when the move is not allowed: q's peer does not
 * reach d by an up*-down* route of the same length avoiding x. */
int rf_new_path(struct refine *r, const struct at *at, int32_t q, int32_t *newp, int *co,
		int *cn)
{
	const struct rt_graph *g = r->g;
	int ln;

	r->evals++;
	if (at->oldp[0] == q)
		return -1;
	newp[0] = q;
	ln = rf_walk(r, (size_t)g->links[q].peer, at->d, newp + 1);
	if (ln < 0 || ln + 1 != at->lo)
		return -1;
	ln++;
	for (int i = 1, down = 0; i < ln; i++) {
		if (!rf_is_up(r, newp[i]))
			down = 1;
		else if (down)
			return -1;
		if ((size_t)g->links[newp[i]].peer == at->x)
			return -1;
	}
	*co = at->lo;
	*cn = ln;
	while (*co > 0 && *cn > 0 && at->oldp[*co - 1] == newp[*cn - 1]) {
		(*co)--;
		(*cn)--;
	}
	return 0;
}

/* Change in the random cost: t flows to d leave the old links, join the
 * new ones (the first link of each is x's own: t flows before / after). */
static double random_delta(const struct refine *r, const struct at *at, const int32_t *newp,
			   int co, int cn, double *mag)
{
	const struct rt_graph *g = r->g;
	double t = r->through[at->x * r->n + at->d], dr = 0;

	*mag = 0;
	for (int j = 0; j < co; j++) {
		double cb = j ? r->through[(size_t)g->links[at->oldp[j]].sw * r->n + at->d] : t;

		dr += r->prod[at->oldp[j]] * ((1 + r->beta * (cb - t)) / (1 + r->beta * cb) - 1);
		*mag += r->prod[at->oldp[j]];
	}
	for (int j = 0; j < cn; j++) {
		double cb = j ? r->through[(size_t)g->links[newp[j]].sw * r->n + at->d] : 0.0;

		dr += r->prod[newp[j]] * ((1 + r->beta * (cb + t)) / (1 + r->beta * cb) - 1);
		*mag += r->prod[newp[j]];
	}
	return dr;
}

/* Try every other up link of x for d; keep the best by `phase`: 1, the
 * shift potential (then the random cost); 2, the random cost among moves
 * that leave the worst shift load's count no higher. */
void rf_try_switch(struct refine *r, size_t x, size_t d, int phase, struct best *b)
{
	const struct rt_graph *g = r->g;
	struct at at;          /* not zeroed whole: the sums are filled when asked */
	int32_t newp[MAX_HOPS + 1];
	int co, cn;
	struct delta dl;
	double mag = 0;

	at.x = x;
	at.d = d;
	at.have_src = at.have_old = 0;

	at.lo = rf_walk(r, x, d, at.oldp);
	if (at.lo <= 0 || !rf_is_up(r, at.oldp[0]))
		return;
	for (uint32_t i = 0; i < g->sw[x].n_links; i++) {
		int32_t q = (int32_t)(g->sw[x].first_link + i);

		if (!rf_is_up(r, q) || rf_new_path(r, &at, q, newp, &co, &cn) < 0)
			continue;
		/* Windows of shifts keep no flows: phase 1 alone, no tie-break. */
		dl.dr = r->prod ? random_delta(r, &at, newp, co, cn, &mag) : 0;
		/* A gain below the rounding of the products touched is none:
		 * swapping two equal parents must not look like progress. */
		if (phase == 2 && (dl.dr >= -1e-9 * mag || (b->found && dl.dr >= b->dl.dr)))
			continue;
		if (!at.have_src) {
			rf_sources(r, x, d);
			at.have_src = 1;
		}
		/* Phase 1 refuses a change of 0 or more, or above the best
		 * one's (integers where the cut is used: + 1 is "above"). */
		rf_shift_delta(r, &at, newp, co, cn,
			       phase != 1 ? HUGE_VAL : b->found ? b->dl.ds + 1 : 0, &dl);
		if (phase == 1) {
			if (dl.ds >= 0 || dl.over > 0)
				continue;
			if (b->found && (dl.ds > b->dl.ds ||
					 (dl.ds == b->dl.ds && dl.dr >= b->dl.dr)))
				continue;
		} else if (dl.over > 0 || dl.at_top > 0) {
			continue;
		}
		b->found = 1;
		b->x = x;
		b->d = d;
		b->q = q;
		b->dl = dl;
	}
}

/* Try the children of s that route d up into s (phase 2). */
void rf_try_feeders(struct refine *r, size_t s, size_t d, struct best *b)
{
	const struct rt_graph *g = r->g;
	const struct rt_link *ck = &g->links[g->sw[s].first_link];

	for (uint32_t j = 0; j < g->sw[s].n_links; j++) {
		size_t c = (size_t)ck[j].peer;

		if (r->level[c] + 1 == r->level[s] &&
		    rt_lfts_get(r->l, c, g->ca[d].lid) == ck[j].peer_port)
			rf_try_switch(r, c, d, 2, b);
	}
}

/* One link's scan: what its items need. */
struct scan {
	int32_t link;
	int up;
	size_t s, k;           /* phase 1: the switch below the link, the shift */
};

/* Phase 1, item i: the i-th CA below the link's lower switch, as the
 * source (up link) or destination (down link) of the pair's shift; when
 * its flow takes the link, every switch on the flow's way up may turn. */
static void shift_item(const struct scan *sc, struct refine *v, size_t i, struct best *b)
{
	const struct rt_graph *g = v->g;
	int32_t path[MAX_HOPS + 1];
	size_t c = v->below[v->below_first[sc->s] + i];
	size_t a = sc->up ? c : (c + v->n - sc->k % v->n) % v->n;
	size_t d = sc->up ? (c + sc->k) % v->n : c;
	int len, on = -1;

	if (g->ca[a].sw < 0 || g->ca[d].sw < 0 || a == d)
		return;
	len = rf_walk(v, (size_t)g->ca[a].sw, d, path);
	for (int j = 0; j < len && on < 0; j++)
		if (path[j] == sc->link)
			on = j;
	if (on < 0)
		return;
	for (int j = 0; j < len && rf_is_up(v, path[j]); j++)
		rf_try_switch(v, (size_t)g->links[path[j]].sw, d, 1, b);
}

/* Phase 2, item i: an up link's destination i, when the link carries it
 * (its switch may turn, or a child feeding it); a down link's i-th CA
 * below its lower end, when the link carries it (a child of the upper
 * end feeding it may turn). */
static void random_item(const struct scan *sc, struct refine *v, size_t i, struct best *b)
{
	const struct rt_graph *g = v->g;
	const struct rt_link *lk = &g->links[sc->link];
	size_t s = (size_t)lk->sw;
	size_t d = sc->up ? i : v->below[v->below_first[lk->peer] + i];

	if ((sc->up && g->ca[d].sw < 0) || rt_lfts_get(v->l, s, g->ca[d].lid) != lk->port)
		return;
	if (sc->up)
		rf_try_switch(v, s, d, 2, b);
	rf_try_feeders(v, s, d, b);
}

/* One question's items, asked in serial order through the view v. */
static void ask_one(struct refine *v, struct rf_ask *q, int phase)
{
	const struct rt_link *lk = &v->g->links[q->link];
	struct scan sc = { .link = q->link, .up = rf_is_up(v, q->link) };
	size_t n;

	memset(&q->b, 0, sizeof(q->b));
	v->evals = 0;
	if (phase == 1) {
		sc.k = v->k0 + q->row * v->stride;
		sc.s = sc.up ? (size_t)lk->sw : (size_t)lk->peer;
		n = v->below_n[sc.s];
	} else {
		n = sc.up ? v->n : v->below_n[lk->peer];
	}
	for (size_t i = 0; i < n; i++)
		(phase == 1 ? shift_item : random_item)(&sc, v, i, &q->b);
	q->evals = v->evals;
}

struct batch {
	struct refine *r;
	struct rf_ask *q;
	int phase;
};

static void batch_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct batch *bt = ctx;

	for (size_t i = begin; i < end; i++)
		ask_one(&bt->r->w_view[worker], &bt->q[i], bt->phase);
}

size_t rf_batch_size(const struct refine *r)
{
	return r->n_w > 1 ? (size_t)BATCH_PER_WORKER * r->n_w : 1;
}

void rf_ask_batch(struct refine *r, struct rf_ask *q, size_t n, int phase)
{
	struct batch bt = { .r = r, .q = q, .phase = phase };

	for (unsigned w = 0; w < r->n_w; w++) {
		struct refine *v = &r->w_view[w];

		*v = *r;
		v->src = r->w_src + w * (r->n + 1);
		v->stack = r->w_stack + w * r->w_stack_n;
	}
	par_pool_for(r->n_w > 1 && n > 1 ? r->g->pool : NULL, n, 1, batch_part, &bt);
}

int rf_workers_new(struct refine *r, size_t stack_n)
{
	unsigned nw = par_pool_threads(r->g->pool);

	r->n_w = nw ? nw : 1;
	r->w_stack_n = stack_n;
	r->w_view = calloc(r->n_w, sizeof(*r->w_view));
	r->w_src = malloc(r->n_w * (r->n + 1) * sizeof(*r->w_src));
	r->w_stack = malloc(r->n_w * stack_n * sizeof(*r->w_stack));
	if (!r->w_view || !r->w_src || !r->w_stack) {
		rf_workers_free(r);
		return -ENOMEM;
	}
	return 0;
}

void rf_workers_free(struct refine *r)
{
	free(r->w_view);
	free(r->w_src);
	free(r->w_stack);
	r->w_view = NULL;
	r->w_src = r->w_stack = NULL;
}
