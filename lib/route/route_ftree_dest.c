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
 * nearest one (dist), with each ancestor's down links to ancestors (cand): up from d, then down from all of them. A switch
 * without a level (no CA below it) is its own only ancestor. */
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
			int32_t c = g->links[t->down[t->down_first[s] + i]].peer;

			if (w->dist[c] == FAR) {
				w->dist[c] = (uint8_t)(w->dist[s] + 1);
				q[tail++] = c;
			}
		}
	}
}

/* Choose the best of switch s's candidate links (links[0..n), their peers
 * in peers[]): better `meets`, then not taken for a detour lately (up only),
 * then less load, then the first (lowest port). Returns a link index or
 * NO_LINK. A candidate whose meets is below the best so far is dropped
 * before its link's load is read: the peers are in one short array, the
 * loads spread over the switch's links. */
static int32_t pick(const struct ftree *t, const struct ftw *w, uint32_t dest_no, size_t s,
		    const uint32_t *links, const int32_t *peers, uint32_t n, int up, uint8_t want_dist)
{
	int32_t best = NO_LINK;
	uint8_t best_meets = 0;
	uint64_t best_load = 0;
	int best_recent = 0;
	uint32_t window = up && dest_no ? t->sub[s] : 0;

	for (uint32_t i = 0; i < n; i++) {
		int32_t peer = peers[i];
		uint32_t li;
		uint8_t m;
		int recent;

		if (up ? w->dist[peer] != want_dist : !w->in_a[peer])
			continue;
		m = w->meets[peer];
		if (best != NO_LINK && m < best_meets)
			continue;
		li = links[i];
		recent = window && t->alt_last[li] && dest_no - t->alt_last[li] < window;
		if (best == NO_LINK || m > best_meets ||
		    recent < best_recent || (recent == best_recent && t->load[li] < best_load)) {
			best = (int32_t)li;
			best_meets = m;
			best_load = t->load[li];
			best_recent = recent;
		}
	}
	return best;
}

/* Shortest-path next hops toward switch d for every switch of d's
 * component that has none yet (next[s] == NO_LINK), s != d. The hop counts
 * are the worker's last ones when they were for d: the CAs of one switch
 * come one after another. */
static void ftree_fallback(struct ftree *t, struct ftw *w, size_t d)
{
	const struct rt_graph *g = t->g;

	if (w->hops_of != d) {
		rt_graph_hops(g, d, w->hops, w->queue);
		w->hops_of = d;
	}
	for (size_t s = 0; s < t->n_sw; s++) {
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		if (s == d || w->next[s] != NO_LINK || w->hops[s] == NO_LEVEL)
			continue;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (w->hops[l[i].peer] + 1 == w->hops[s]) {
				w->next[s] = (int32_t)(g->sw[s].first_link + i);
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

/* Phase 2, any order, any worker: every switch's choice for the slot's
 * destination, from the loads as phase 3 left them before this batch.
 * Writes the slot's column of pend (and of pend_up, pend_detour). */
static void dest_choose(struct ftree *t, struct ftw *w, struct ftree_slot *sl, size_t k)
{
	const struct rt_graph *g = t->g;
	const int32_t *ord = t->by_level;
	size_t d = sl->d, need_fallback = 0;
	int32_t *col = t->pend + k * t->n_sw;
	uint8_t *up = t->pend_up + k * t->n_sw, *det = t->pend_detour + k * t->n_sw;

	if (w->anc_of != d)
		ftree_ancestors(t, w, d);
	memset(w->on_path, 0, t->n_sw);
	memset(w->meets, 0, t->n_sw);
	for (size_t i = 0; i < t->n_sw; i++)
		w->next[i] = NO_LINK;
	/* Backup marks first: a main path switch stays ON_MAIN. */
	for (size_t i = sl->n_path; i-- > 0;)
		w->on_path[sl->path[i]] = sl->mark[i];

	/* Ancestors go down, lowest level first, so that a switch sees whether
	 * its children's routes meet the main path. */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t a = (size_t)ord[i];
		uint32_t f = t->down_first[a];

		if (!w->in_a[a] || a == d)
			continue;
		w->next[a] = pick(t, w, sl->dest_no, a, w->cand + f, w->cand_peer + f, w->cand_n[a],
				  0, 0);
		w->meets[a] = w->on_path[a] == ON_MAIN ? JOINS_MAIN :
			w->on_path[a] == ON_BACKUP ? JOINS_BACKUP :
			w->next[a] != NO_LINK ? detour[w->meets[g->links[w->next[a]].peer]] : 0;
	}
	/* Everyone else goes up, highest level first. */
	sl->rc = 0;
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t u = (size_t)ord[i];
		uint32_t f = t->up_first[u];

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
		w->next[u] = pick(t, w, sl->dest_no, u, t->up + f, t->up_peer + f, t->up_n[u], 1,
				  (uint8_t)(w->dist[u] - 1));
		w->meets[u] = w->meets[g->links[w->next[u]].peer];
	}
	if (sl->rc)
		return;
	if (need_fallback || t->n_ranked < t->n_sw)
		ftree_fallback(t, w, d);
	memcpy(col, w->next, t->n_sw * sizeof(*col));
	col[d] = SELF;
	if (!sl->count_load)
		return;
	for (size_t u = 0; u < t->n_sw; u++) {
		up[u] = !w->in_a[u];
		det[u] = w->next[u] != NO_LINK && w->meets[g->links[w->next[u]].peer] < JOINS_MAIN;
	}
}

/* Phase 3, in routing order: push the slot's flows (one per source CA)
 * along its routes, up from the lowest level, then down from the highest:
 * the loads the next batch chooses from. */
static void dest_push(struct ftree *t, const struct ftree_slot *sl, size_t k)
{
	const struct rt_graph *g = t->g;
	const int32_t *ord = t->by_level, *col = t->pend + k * t->n_sw;
	const uint8_t *up = t->pend_up + k * t->n_sw, *det = t->pend_detour + k * t->n_sw;
	size_t d = sl->d;

	for (size_t i = 0; i < t->n_sw; i++)
		t->flows[i] = t->n_cas[i];
	t->flows[d] = 0;  /* CAs on d's own switch use no switch link */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t u = (size_t)ord[i];
		int32_t li = col[u];

		if (!up[u] || li < 0)
			continue;
		if (t->flows[u] && det[u])
			t->alt_last[li] = sl->dest_no;
		t->load[li] += t->flows[u];
		t->flows[g->links[li].peer] += t->flows[u];
	}
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t a = (size_t)ord[i];
		int32_t li = col[a];

		if (up[a] || a == d || li < 0)
			continue;
		t->load[li] += t->flows[a];
		t->flows[g->links[li].peer] += t->flows[a];
	}
}

struct choose {
	struct ftree *t;
	size_t k0;             /* the batch's first pend column */
};

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
		struct choose c = { .t = t, .k0 = k0 };

		par_pool_for(n > 1 ? t->g->pool : NULL, n, 1, choose_part, &c);
	}
	for (size_t i = 0; i < n; i++) {
		const struct ftree_slot *sl = &t->slot[k0 + i];

		if (sl->rc < 0) {
			snprintf(err, errlen, "%s reaches %s only through a down-up turn "
				 "(its up links are missing)", t->g->sw[sl->bad].desc,
				 t->g->sw[sl->d].desc);
			return sl->rc;
		}
		if (sl->count_load)
			dest_push(t, sl, k0 + i);
	}
	t->n_pend += n;
	if (t->n_pend + FTREE_BATCH_MAX > PEND)
		ftree_flush(t);
	return 0;
}
