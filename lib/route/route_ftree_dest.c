/* lib/route/route_ftree_dest.c: the fat-tree engine routing one destination
 * (route_ftree.c describes the whole engine): its ancestors, its main and
 * backup paths, every switch's choice, and the load its flows add. */
#include "autoconf.h"
#include "lib/route/route_ftree.h"
#include "lib/util/par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_GRAIN 64  /* switch rows a worker writes at a time */

static const uint8_t detour[] = { 0, DETOUR_BACKUP, DETOUR_MAIN, DETOUR_BACKUP, DETOUR_MAIN };

/* Ancestors of switch d (in_a) and every switch's up-hop distance to the
 * nearest one (dist): up from d, then down from all of them. */
void ftree_ancestors(struct ftree *t, size_t d)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0;
	int32_t *q = t->queue;

	memset(t->in_a, 0, t->n_sw);
	memset(t->dist, FAR, t->n_sw);
	t->in_a[d] = 1;
	t->dist[d] = 0;
	q[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)q[head++];

		for (uint32_t i = 0; i < t->up_n[s]; i++) {
			int32_t p = g->links[t->up[t->up_first[s] + i]].peer;

			if (!t->in_a[p]) {
				t->in_a[p] = 1;
				t->dist[p] = 0;
				q[tail++] = p;
			}
		}
	}
	head = 0;
	while (head < tail) {
		size_t s = (size_t)q[head++];

		for (uint32_t i = 0; i < t->down_n[s]; i++) {
			int32_t c = g->links[t->down[t->down_first[s] + i]].peer;

			if (t->dist[c] == FAR) {
				t->dist[c] = (uint8_t)(t->dist[s] + 1);
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
static int32_t pick(const struct ftree *t, size_t s, const uint32_t *links, const int32_t *peers,
		    uint32_t n, int up, uint8_t want_dist)
{
	int32_t best = NO_LINK;
	uint8_t best_meets = 0;
	uint64_t best_load = 0;
	int best_recent = 0;
	uint32_t window = up && t->dest_no ? t->sub[s] : 0;

	for (uint32_t i = 0; i < n; i++) {
		int32_t peer = peers[i];
		uint32_t li;
		uint8_t m;
		int recent;

		if (up ? t->dist[peer] != want_dist : !t->in_a[peer])
			continue;
		m = t->meets[peer];
		if (best != NO_LINK && m < best_meets)
			continue;
		li = links[i];
		recent = window && t->alt_last[li] && t->dest_no - t->alt_last[li] < window;
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
 * component that has none yet (next[s] == NO_LINK), s != d. */
static void ftree_fallback(struct ftree *t, size_t d)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0;
	int32_t *q = t->queue;

	for (size_t s = 0; s < t->n_sw; s++)
		t->hops[s] = NO_LEVEL;
	t->hops[d] = 0;
	q[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)q[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (t->hops[l[i].peer] == NO_LEVEL) {
				t->hops[l[i].peer] = (uint16_t)(t->hops[s] + 1);
				q[tail++] = l[i].peer;
			}
	}
	for (size_t s = 0; s < t->n_sw; s++) {
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		if (s == d || t->next[s] != NO_LINK || t->hops[s] == NO_LEVEL)
			continue;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (t->hops[l[i].peer] + 1 == t->hops[s]) {
				t->next[s] = (int32_t)(g->sw[s].first_link + i);
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

/* Route one LID held at switch d (out of port `port`; 0 for the switch
 * itself). mpath: a CA LID's main path (its flows are then added to the
 * link loads), NULL for a switch LID. rot: where its backup path starts its
 * search. -EINVAL when a switch with CAs reaches d only through a down-up
 * turn. */
int ftree_route_lid(struct ftree *t, size_t d, unsigned lid, uint8_t port,
			   const int32_t *mpath, size_t rot, char *err, size_t errlen)
{
	const struct rt_graph *g = t->g;
	const int32_t *ord = t->by_level;
	size_t s = d, top, need_fallback = 0;
	int32_t avoid = -1;   /* a top the backup path should not end at */
	int count_load = mpath != NULL;
	uint32_t main_step[16] = { 0 };  /* the main path's choice at each step,
					  * among the switch's parents */

	memset(t->on_path, 0, t->n_sw);
	memset(t->meets, 0, t->n_sw);
	for (size_t i = 0; i < t->n_sw; i++)
		t->next[i] = NO_LINK;

	/* The main path (given for CA LIDs, else up over the least used
	 * parents), then a backup path for the sources that cannot reach the
	 * main one, avoiding main path switches where it can. All traffic to d
	 * then converges on one of the two. */
	for (int step = 0; step < t->height; step++) {
		int32_t li = mpath ? mpath[step] : ftree_main_up(t, s, -1);

		if (li == NO_LINK)
			break;
		for (uint32_t i = 0; i < t->up_n[s]; i++)
			if (t->up[t->up_first[s] + i] == (uint32_t)li)
				main_step[step & 15] = i;
		s = (size_t)g->links[li].peer;
		t->on_path[s] = ON_MAIN;
	}
	top = s;
	if (count_load && t->top_last[top] && t->dest_no - t->top_last[top] < t->sub[d])
		avoid = t->top_backup[top];
	for (s = d;;) {
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
			uint64_t key[4];

			key[0] = (uint64_t)(t->on_path[g->links[li].peer] == ON_MAIN) << 1 |
				 (avoid >= 0 && g->links[li].peer == avoid);
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
		if (!t->on_path[s])
			t->on_path[s] = ON_BACKUP;
		if (count_load && !t->up_n[s]) {
			t->top_last[top] = t->dest_no;
			t->top_backup[top] = (int32_t)s;
		}
		if (count_load)
			t->backups[t->rev[best]]++;
	}

	/* Ancestors go down, lowest level first, so that a switch sees whether
	 * its children's routes meet the main path. */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t a = (size_t)ord[i];
		uint32_t f = t->down_first[a];

		if (!t->in_a[a] || a == d)
			continue;
		t->next[a] = pick(t, a, t->down + f, t->down_peer + f, t->down_n[a], 0, 0);
		t->meets[a] = t->on_path[a] == ON_MAIN ? JOINS_MAIN :
			t->on_path[a] == ON_BACKUP ? JOINS_BACKUP :
			t->next[a] != NO_LINK ? detour[t->meets[g->links[t->next[a]].peer]] : 0;
	}
	/* Everyone else goes up, highest level first. (The switches of one
	 * level could choose at once, but on two cores that was no faster:
	 * what one core decides, the other reads next, for every destination.) */
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t u = (size_t)ord[i];
		uint32_t f = t->up_first[u];

		if (t->in_a[u])
			continue;
		if (t->dist[u] == FAR) {
			if (count_load && t->n_cas[u] && t->comp[u] == t->comp[d]) {
				snprintf(err, errlen, "%s reaches %s only through a down-up turn "
					 "(its up links are missing)", g->sw[u].desc,
					 g->sw[d].desc);
				return -EINVAL;
			}
			need_fallback = 1;
			continue;
		}
		t->next[u] = pick(t, u, t->up + f, t->up_peer + f, t->up_n[u], 1,
				  (uint8_t)(t->dist[u] - 1));
		t->meets[u] = t->meets[g->links[t->next[u]].peer];
	}
	if (need_fallback || t->n_ranked < t->n_sw)
		ftree_fallback(t, d);

	/* Its table entries wait with the next destinations' (ftree_flush). */
	memcpy(t->pend + t->n_pend * t->n_sw, t->next, t->n_sw * sizeof(*t->next));
	t->pend[t->n_pend * t->n_sw + d] = SELF;
	t->pend_lid[t->n_pend] = (uint16_t)lid;
	t->pend_port[t->n_pend] = port;
	if (++t->n_pend == PEND)
		ftree_flush(t);
	if (!count_load)
		return 0;

	/* Push this destination's flows (one per source CA) along the routes:
	 * up from the lowest level, then down from the highest. */
	for (size_t i = 0; i < t->n_sw; i++)
		t->flows[i] = t->n_cas[i];
	t->flows[d] = 0;  /* CAs on d's own switch use no switch link */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t u = (size_t)ord[i];

		if (t->in_a[u] || t->next[u] == NO_LINK)
			continue;
		if (t->flows[u] && t->meets[g->links[t->next[u]].peer] < JOINS_MAIN)
			t->alt_last[t->next[u]] = t->dest_no;
		t->load[t->next[u]] += t->flows[u];
		t->flows[g->links[t->next[u]].peer] += t->flows[u];
	}
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t a = (size_t)ord[i];

		if (!t->in_a[a] || a == d || t->next[a] == NO_LINK)
			continue;
		t->load[t->next[a]] += t->flows[a];
		t->flows[g->links[t->next[a]].peer] += t->flows[a];
	}
	return 0;
}
