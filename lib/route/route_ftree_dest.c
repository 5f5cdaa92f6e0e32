/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_ftree_dest.c: the fat-tree engine routing one destination
 * (route_ftree.c describes the whole engine): its ancestors, its main and
 * backup paths, every switch's choice, and the load its flows add. */
#include "autoconf.h"
#include "lib/route/route_ftree_int.h"
#include "lib/util/par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_GRAIN 64  /* switch rows a worker writes at a time */

static const uint8_t detour[] = { 0, DETOUR_BACKUP, DETOUR_MAIN, DETOUR_BACKUP, DETOUR_MAIN };

/* Down link li of ancestor p, to ancestor c, into p's candidates, kept in
 * link order (the order pick breaks ties by): most have one or two. */
static void cand_add(const struct ftree *t, struct ftw *w, size_t p, uint32_t li, int32_t c)
{
	uint32_t *l = w->cand + t->down_first[p];
	int32_t *peer = w->cand_peer + t->down_first[p];
	uint32_t k = w->cand_n[p]++;

	for (; k > 0 && l[k - 1] > li; k--) {
		l[k] = l[k - 1];
		peer[k] = peer[k - 1];
	}
	l[k] = li;
	peer[k] = c;
}

/* Ancestors of switch d (in_a) and every switch's up-hop distance to the
 * nearest one (dist), with each ancestor's down links to ancestors (cand)
 * and each other switch's parents one hop nearer (elig): up from d, then
 * down from all of them. A switch without a level (no CA below it) is its
 * own only ancestor. */
void ftree_ancestors(struct ftree *t, struct ftw *w, size_t d)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0;
	int32_t *q = w->queue;

	w->anc_of = d;
	memset(w->in_a, 0, t->n_sw);
	memset(w->dist, FAR, t->n_sw);
	w->in_a[d] = 1;
	w->dist[d] = 0;
	w->cand_n[d] = 0;
	if (t->level[d] == NO_LEVEL)
		return;
	q[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)q[head++];

		for (uint32_t i = 0; i < t->up_n[s]; i++) {
			uint32_t li = t->up[t->up_first[s] + i];
			int32_t p = g->links[li].peer;

			if (!w->in_a[p]) {
				w->in_a[p] = 1;
				w->dist[p] = 0;
				w->cand_n[p] = 0;
				q[tail++] = p;
			}
			cand_add(t, w, (size_t)p, t->rev[li], (int32_t)s);
		}
	}
	head = 0;
	while (head < tail) {
		size_t s = (size_t)q[head++];

		for (uint32_t i = 0; i < t->down_n[s]; i++) {
			int32_t c = t->down_peer[t->down_first[s] + i];

			if (w->dist[c] == FAR) {
				w->dist[c] = (uint8_t)(w->dist[s] + 1);
				w->elig[c] = 0;
				q[tail++] = c;
			}
			if (w->dist[c] == w->dist[s] + 1)
				w->elig[c]++;
		}
	}
}

/* The best of switch s's candidate links: better `meets`, then not taken
 * for a detour lately (up only), then less load, then the first (lowest
 * port). Each candidate becomes one key whose order is that order, and
 * the loop keeps the least without a branch on the loads: they are as
 * likely either way. Returns a link index or NO_LINK. */
#define PICK_IDX_BITS 8   /* candidates per switch: at most 256 */
#define PICK_IDX_MASK ((1u << PICK_IDX_BITS) - 1)
#define PICK_LOAD_MAX ((UINT64_C(1) << (59 - PICK_IDX_BITS)) - 1)
static inline uint64_t pick_key(uint8_t meets, uint64_t recent, uint64_t load, uint32_t i)
{
	load = load > PICK_LOAD_MAX ? PICK_LOAD_MAX : load;
	return (uint64_t)(7 - meets) << 60 | recent << 59 | load << PICK_IDX_BITS | i;
}

/* Down, for ancestor a: its candidates (down links to ancestors) in the
 * worker's cand lists. Returns the place of the best in them, or -1. */
static int32_t pick_down(const struct ftree *t, const struct ftw *w, size_t a)
{
	const uint32_t *links = w->cand + t->down_first[a];
	const int32_t *peers = w->cand_peer + t->down_first[a];
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < w->cand_n[a]; i++) {
		uint64_t key = pick_key(w->meets[peers[i]], 0, t->load[links[i]], i);

		key = w->in_a[peers[i]] ? key : UINT64_MAX;
		best = key < best ? key : best;
	}
	return best == UINT64_MAX ? -1 : (int32_t)(t->down_first[a] + (best & PICK_IDX_MASK));
}

/* Up, for switch u toward the parents one hop nearer an ancestor
 * (dist want): its up slots, in order. Returns the best one's slot (its
 * place in up[]), or -1. */
static int32_t pick_up(const struct ftree *t, const struct ftw *w, uint32_t dest_no, size_t u,
		       uint8_t want)
{
	uint32_t f = t->up_first[u], n = t->up_n[u];
	const int32_t *peers = t->up_peer + f;
	const uint64_t *load = t->up_load + f;
	const uint32_t *last = t->alt_last + f;
	uint32_t window = dest_no ? t->sub[u] : 0;
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t recent = window && last[i] && dest_no - last[i] < window;
		uint64_t key = pick_key(w->meets[peers[i]], recent, load[i], i);

		key = w->dist[peers[i]] == want ? key : UINT64_MAX;
		best = key < best ? key : best;
	}
	return best == UINT64_MAX ? -1 : (int32_t)(f + (best & PICK_IDX_MASK));
}

/* Hop counts toward switch d (w->hops, NO_LEVEL: not reached), breadth
 * first, until the last of the switches with no route yet (next NO_LINK)
 * is reached. On a tree that is a few levels around d rather than the
 * whole graph (a core's LID: the other cores are two hops away); all of
 * d's component when one of them is cut off from d. */
static void fallback_hops(const struct ftree *t, struct ftw *w, size_t d)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0, want = 0;
	int32_t *q = w->queue;

	for (size_t s = 0; s < t->n_sw; s++) {
		w->hops[s] = NO_LEVEL;
		want += s != d && w->next[s] == NO_LINK;
	}
	w->hops[d] = 0;
	q[tail++] = (int32_t)d;
	/* A switch at hops h is found while its level's predecessors are
	 * expanded, after every switch at h - 1 was found: once the last one
	 * wanted is found, its neighbours one hop nearer are all known. */
	while (head < tail && want) {
		size_t s = (size_t)q[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
			size_t p = (size_t)l[i].peer;

			if (w->hops[p] != NO_LEVEL)
				continue;
			w->hops[p] = (uint16_t)(w->hops[s] + 1);
			q[tail++] = (int32_t)p;
			want -= w->next[p] == NO_LINK;
		}
	}
}

/* Shortest-path next hops toward switch d for every switch of d's
 * component that has none yet (next[s] == NO_LINK), s != d. The hop counts
 * are the worker's last ones when they were for d: the CAs of one switch
 * come one after another, and the switches without a route are the same
 * for all of them (they depend on d's ancestors alone). */
static void ftree_fallback(struct ftree *t, struct ftw *w, size_t d)
{
	const struct rt_graph *g = t->g;

	if (w->hops_of != d) {
		fallback_hops(t, w, d);
		w->hops_of = d;
	}
	for (size_t s = 0; s < t->n_sw; s++) {
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		if (s == d || w->next[s] != NO_LINK || w->hops[s] == NO_LEVEL)
			continue;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (w->hops[l[i].peer] + 1 == w->hops[s]) {
				w->next[s] = (int32_t)(g->sw[s].first_link + i);
				w->npeer[s] = l[i].peer;
				w->pm[s] = w->meets[l[i].peer];
				break;
			}
	}
}

/* Rows [begin, end) of the waiting entries (ftree_flush). */
static void flush_rows(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct ftree *t = ctx;
	const struct rt_graph *g = t->g;
	size_t routed = 0, unreachable = 0;

	for (size_t s = begin; s < end; s++) {
		uint8_t *row = rt_lfts_row(t->out, s);

		for (size_t k = 0; k < t->n_pend; k++) {
			int32_t li = t->pend[k * t->n_sw + s];

			if (li == NO_LINK) {
				unreachable++;
				continue;
			}
			row[t->pend_lid[k]] = li == SELF ? t->pend_port[k] : g->links[li].port;
			routed++;
		}
	}
	t->routed[worker] += routed;
	t->unreachable[worker] += unreachable;
}

void ftree_flush(struct ftree *t)
{
	par_pool_for(t->g->pool, t->n_sw, FLUSH_GRAIN, flush_rows, t);
	t->n_pend = 0;
}

/* Phase 1, in routing order (it counts backup paths): destination k's main
 * path (given for CA LIDs, else up over the least used parents), then a
 * backup path for the sources that cannot reach the main one, avoiding main
 * path switches where it can; both kept in its slot. All traffic to d then
 * converges on one of the two. */
static void dest_paths(struct ftree *t, struct ftree_slot *sl, const int32_t *mpath, size_t rot)
{
	const struct rt_graph *g = t->g;
	size_t s = sl->d, d = sl->d, top;
	int32_t avoid = -1;   /* a top the backup path should not end at */
	uint32_t main_step[16] = { 0 };  /* the main path's choice at each step,
					  * among the switch's parents */

	sl->n_path = 0;
	for (int step = 0; step < t->height; step++) {
		int32_t li = mpath ? mpath[step] : ftree_main_up(t, s, -1);

		if (li == NO_LINK)
			break;
		for (uint32_t i = 0; i < t->up_n[s]; i++)
			if (t->up[t->up_first[s] + i] == (uint32_t)li)
				main_step[step & 15] = i;
		s = (size_t)g->links[li].peer;
		sl->path[sl->n_path] = (int32_t)s;
		sl->mark[sl->n_path++] = ON_MAIN;
	}
	sl->n_main = sl->n_path;
	top = s;
	if (sl->count_load && t->top_last[top] && sl->dest_no - t->top_last[top] < t->sub[d])
		avoid = t->top_backup[top];
	for (s = d; sl->n_path < FTREE_PATH_MAX;) {
		uint32_t n = t->up_n[s], best = n, start;
		uint64_t best_key[4] = { 0 };
		int step = t->level[s] - t->level[d];

		/* The backup's rotation: where its search starts among s's
		 * parents, one further than the main path's choice, and one
		 * further again for each earlier destination whose main path
		 * ends at the same top: otherwise the destinations sharing a
		 * top would share its backup too, and a source cut from that
		 * top would funnel them all into one uplink. */
		start = n > 1 ? (uint32_t)(main_step[step & 15] + 1 + rot % (n - 1)) % n : 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t li = t->up[t->up_first[s] + i], r = t->rev[li];
			int32_t peer = g->links[li].peer;
			uint64_t key[4], on_main = 0;

			for (size_t k = 0; k < sl->n_main; k++)
				on_main |= sl->path[k] == peer;
			key[0] = on_main << 1 | (avoid >= 0 && peer == avoid);
			key[1] = t->backups[r];
			key[2] = (i + n - start) % n;
			key[3] = t->load[r];
			if (best == n || ftree_key_less(key, best_key)) {
				best = i;
				memcpy(best_key, key, sizeof(key));
			}
		}
		if (best == n)
			break;
		best = t->up[t->up_first[s] + best];
		s = (size_t)g->links[best].peer;
		sl->path[sl->n_path] = (int32_t)s;
		sl->mark[sl->n_path++] = ON_BACKUP;
		if (sl->count_load && !t->up_n[s]) {
			t->top_last[top] = sl->dest_no;
			t->top_backup[top] = (int32_t)s;
		}
		if (sl->count_load)
			t->backups[t->rev[best]]++;
	}
}

/* ftree_check_shortcuts: the shortcut `at` that switch u took against
 * what comparing all its parents gives; counted per worker. */
static void shortcut_check(struct ftree *t, const struct ftw *w, uint32_t dest_no, size_t u,
			   int32_t at, size_t *taken)
{
	unsigned me = (unsigned)(w - t->w);

	taken[me]++;
	t->sc_wrong[me] += pick_up(t, w, dest_no, u, (uint8_t)(w->dist[u] - 1)) != at;
}

/* Switch p's route now meets a path (meets[p] > 0): tell its children
 * that pick up among parents as far as p (best_m, best_n, best_i). */
static void meets_down(const struct ftree *t, struct ftw *w, size_t p)
{
	uint8_t m = w->meets[p], want = (uint8_t)(w->dist[p] + 1);

	for (uint32_t k = t->down_first[p]; k < t->down_first[p] + t->down_n[p]; k++) {
		int32_t c = t->down_peer[k];

		if (w->in_a[c] || w->dist[c] != want)
			continue;
		if (m > w->best_m[c]) {
			w->best_m[c] = m;
			w->best_n[c] = 1;
			w->best_i[c] = t->down_upi[k];
		} else if (m == w->best_m[c]) {
			w->best_n[c]++;
		}
	}
}

/* The flows (one per source CA) of the slot's destination along its
 * routes, up from the lowest level, then down from the highest: what each
 * switch adds to its chosen link's load (pflow, with PFLOW_DETOUR), which
 * phase 3 adds. */
static void dest_flows(const struct ftree *t, struct ftw *w, const struct ftree_slot *sl,
		       size_t k)
{
	const int32_t *ord = t->by_level, *col = t->pend + k * t->n_sw;
	const uint8_t *in_a = w->in_a;
	uint32_t *pf = t->pflow + k * t->n_sw;
	uint64_t *f = w->flows;
	size_t d = sl->d;

	memset(pf, 0, t->n_sw * sizeof(*pf));
	for (size_t i = 0; i < t->n_sw; i++)
		f[i] = t->n_cas[i];
	f[d] = 0;  /* CAs on d's own switch use no switch link */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t u = (size_t)ord[i];

		if (in_a[u] || col[u] < 0)
			continue;
		/* A switch that went up on a detour makes its link recent. */
		pf[u] = (uint32_t)f[u] | (f[u] && w->pm[u] < JOINS_MAIN ? PFLOW_DETOUR : 0);
		f[w->npeer[u]] += f[u];
	}
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t a = (size_t)ord[i];

		if (!in_a[a] || a == d || col[a] < 0)
			continue;
		pf[a] = (uint32_t)f[a];
		f[w->npeer[a]] += f[a];
	}
}

/* Phase 2, any order, any worker: every switch's choice for the slot's
 * destination, from the loads as phase 3 left them before this batch.
 * Writes the slot's column of pend (and of pflow). */
static void dest_choose(struct ftree *t, struct ftw *w, struct ftree_slot *sl, size_t k)
{
	const int32_t *ord = t->by_level;
	size_t d = sl->d, need_fallback = 0;
	int32_t at;


	w->next = t->pend + k * t->n_sw;
	if (w->anc_of != d)
		ftree_ancestors(t, w, d);
	memset(w->on_path, 0, t->n_sw);
	memset(w->meets, 0, t->n_sw);
	memset(w->best_m, 0, t->n_sw);
	memset(w->best_n, 0, t->n_sw);
	for (size_t i = 0; i < t->n_sw; i++)
		w->next[i] = NO_LINK;
	/* Backup marks first: a main path switch stays ON_MAIN. */
	for (size_t i = sl->n_path; i-- > 0;)
		w->on_path[sl->path[i]] = sl->mark[i];

	/* Ancestors go down, lowest level first, so that a switch sees whether
	 * its children's routes meet the main path. */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t a = (size_t)ord[i];

		if (!w->in_a[a] || a == d)
			continue;
		at = pick_down(t, w, a);
		if (at >= 0) {
			w->next[a] = (int32_t)w->cand[at];
			w->npeer[a] = w->cand_peer[at];
			w->pm[a] = w->meets[w->npeer[a]];
		}
		w->meets[a] = w->on_path[a] == ON_MAIN ? JOINS_MAIN :
			w->on_path[a] == ON_BACKUP ? JOINS_BACKUP : at >= 0 ? detour[w->pm[a]] : 0;
		if (w->meets[a])
			meets_down(t, w, a);
	}
	/* Everyone else goes up, highest level first. */
	sl->rc = 0;
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t u = (size_t)ord[i];

		if (w->in_a[u])
			continue;
		if (w->dist[u] == FAR) {
			if (sl->count_load && t->n_cas[u] && t->comp[u] == t->comp[d] && !sl->rc) {
				sl->rc = -EINVAL;
				sl->bad = (int32_t)u;
			}
			need_fallback = 1;
			continue;
		}
		/* The one parent whose route meets a path best, the batch's
		 * choice when no parent differs from another, or a look at
		 * each: the same choice (pick_up) at less cost. */
		if (w->best_n[u] == 1) {
			at = (int32_t)(t->up_first[u] + w->best_i[u]);
			if (ftree_check_shortcuts)
				shortcut_check(t, w, sl->dest_no, u, at, t->sc_best);
		} else if (!w->best_n[u] && w->elig[u] == t->up_n[u] && t->uni_ok &&
			   t->uni[u] >= 0) {
			at = t->uni[u];
			if (ftree_check_shortcuts)
				shortcut_check(t, w, sl->dest_no, u, at, t->sc_uni);
		} else {
			at = pick_up(t, w, sl->dest_no, u, (uint8_t)(w->dist[u] - 1));
		}
		w->next[u] = (int32_t)t->up[at];
		w->npeer[u] = t->up_peer[at];
		w->meets[u] = w->pm[u] = w->meets[w->npeer[u]];
		if (w->meets[u])
			meets_down(t, w, u);
	}
	if (sl->rc)
		return;
	if (need_fallback || t->n_ranked < t->n_sw)
		ftree_fallback(t, w, d);
	w->next[d] = SELF;
	if (sl->count_load)
		dest_flows(t, w, sl, k);
}

struct choose {
	struct ftree *t;
	size_t k0, n;          /* the batch's pend columns */
	uint32_t lo, hi;       /* the dest_no uni is for, first and last */
	int uni;               /* push_part: compute uni too */
};

/* uni[u]: the pick of switch u when its parents are all eligible and meet
 * no path, by (recent, load, port), if no link's recent changes between
 * dest_no lo and hi (0: switch LIDs, nothing is recent); else -1. */
static void uni_one(struct ftree *t, size_t u, uint32_t lo, uint32_t hi)
{
	uint32_t f = t->up_first[u], n = t->up_n[u];
	uint32_t window = lo ? t->sub[u] : 0;
	const uint32_t *last = t->alt_last + f;
	uint64_t best = UINT64_MAX;
	int same = 1;

	for (uint32_t i = 0; i < n; i++) {
		int r_lo = window && last[i] && lo - last[i] < window;
		int r_hi = window && last[i] && hi - last[i] < window;
		uint64_t key = pick_key(0, (uint64_t)r_lo, t->up_load[f + i], i);

		same &= r_lo == r_hi;
		best = key < best ? key : best;
	}
	t->uni[u] = !n || !same ? -1 : (int32_t)(f + (best & PICK_IDX_MASK));
}

static void uni_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct choose *c = ctx;

	(void)worker;
	for (size_t u = begin; u < end; u++)
		uni_one(c->t, u, c->lo, c->hi);
}

/* Phase 3, switches [begin, end): add the batch's flows to the loads of
 * the links they chose, in routing order (a link's loads and recent
 * detours are its switch's own: no two workers share one); then the
 * switch's uni for the next batch. */
static void push_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct choose *c = ctx;
	struct ftree *t = c->t;

	(void)worker;
	for (size_t u = begin; u < end; u++) {
		for (size_t k = c->k0; k < c->k0 + c->n; k++) {
			size_t at = k * t->n_sw + u;
			int32_t li = t->pend[at];
			uint32_t f = t->pflow[at] & ~PFLOW_DETOUR, slot;

			if (!t->slot[k].count_load || li < 0 || !f)
				continue;
			slot = t->up_slot[li];
			if (slot == UINT32_MAX) {
				t->load[li] += f;
				continue;
			}
			if (t->pflow[at] & PFLOW_DETOUR)
				t->alt_last[slot] = t->slot[k].dest_no;
			t->up_load[slot] += f;
		}
		if (c->uni)
			uni_one(t, u, c->lo, c->hi);
	}
}

static void choose_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct choose *c = ctx;

	for (size_t k = c->k0 + begin; k < c->k0 + end; k++)
		dest_choose(c->t, &c->t->w[worker], &c->t->slot[k], k);
}

int ftree_route_batch(struct ftree *t, const struct ftree_dest *ds, size_t n, char *err,
		      size_t errlen)
{
	size_t k0 = t->n_pend;

	for (size_t i = 0; i < n; i++) {
		struct ftree_slot *sl = &t->slot[k0 + i];

		sl->d = ds[i].d;
		sl->dest_no = ds[i].dest_no;
		sl->count_load = ds[i].mpath != NULL;
		t->pend_lid[k0 + i] = (uint16_t)ds[i].lid;
		t->pend_port[k0 + i] = ds[i].port;
		dest_paths(t, sl, ds[i].mpath, ds[i].rot);
	}
	{
		struct par_pool *pool = n > 1 ? t->g->pool : NULL;
		struct choose c = { .t = t, .k0 = k0, .n = n, .lo = ds[0].dest_no,
				    .hi = ds[n - 1].dest_no };
		int count_load = 0;

		/* A batch's uni (one look per switch for all its destinations):
		 * its dest_no all 0 (switch LIDs) or consecutive; made by the
		 * last phase 3 when it knew them. */
		t->uni_ok = n > 1 && (c.lo ? c.hi - c.lo == n - 1 : !c.hi);
		if (t->uni_ok && !(t->uni_valid && (c.lo ? t->uni_hi && c.lo >= t->uni_lo &&
						     c.hi <= t->uni_hi : !t->uni_hi))) {
			par_pool_for(pool, t->n_sw, 256, uni_part, &c);
			t->uni_lo = c.lo;
			t->uni_hi = c.hi;
			t->uni_valid = 1;
		}
		par_pool_for(pool, n, 1, choose_part, &c);
		for (size_t i = 0; i < n; i++) {
			const struct ftree_slot *sl = &t->slot[k0 + i];

			if (sl->rc < 0) {
				snprintf(err, errlen, "%s reaches %s only through a down-up turn "
					 "(its up links are missing)", t->g->sw[sl->bad].desc,
					 t->g->sw[sl->d].desc);
				return sl->rc;
			}
			count_load |= sl->count_load;
		}
		if (count_load) {
			/* The loads change: uni is for the next batch, if it
			 * is a full one of the next CAs. */
			c.uni = n > 1;
			c.lo = c.hi + 1;
			c.hi += FTREE_BATCH_MAX;
			t->uni_valid = 0;
			par_pool_for(pool, t->n_sw, 128, push_part, &c);
			if (c.uni) {
				t->uni_lo = c.lo;
				t->uni_hi = c.hi;
				t->uni_valid = 1;
			}
		}
	}
	t->n_pend += n;
	if (t->n_pend + FTREE_BATCH_MAX > PEND)
		ftree_flush(t);
	return 0;
}
