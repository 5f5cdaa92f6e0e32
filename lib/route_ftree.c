/* lib/route_ftree.c: the fat-tree engine.
 *
 * Levels. Leaves are the switches with CA ports; every other switch's level
 * is its hop distance from the nearest leaf (one breadth-first search from
 * all leaves at once). The graph is a fat tree when every switch-to-switch
 * link joins two adjacent levels: then "up" (toward a higher level) and
 * "down" are defined for every link, and routes that go up and then only
 * down (up*-down*) cannot deadlock. No root GUID file is needed, and a tree
 * missing links or switches still has levels.
 *
 * Routes. Destinations are taken leaf by leaf, CA ports in port order (the
 * leaves in the order of their first CA port, so the order matches the
 * graph's CA order on generated trees), and each CA LID is routed alone:
 *   - its ancestors A (the switches that reach its leaf by going only down)
 *     route it down;
 *   - one "main path" is chosen from the leaf up to a top switch, each step
 *     over the parent link that carries the fewest flows so far, and a
 *     "backup path" avoiding it, for the sources cut from the main path
 *     (rotated per leaf, so that the backups of one top's destinations
 *     spread over the other tops);
 *   - every other switch routes it up, toward the parent that reaches A in
 *     the fewest up hops, preferring parents whose route meets the main
 *     path, then the backup, then the least loaded; ancestors going down
 *     likewise prefer a child whose route meets one of them.
 * So all traffic to one CA converges on its main path, and consecutive CAs
 * of a leaf get main paths through different parents: on a full tree this
 * is the D-mod-K assignment, non-blocking for shift permutations. "Load" is
 * the flows routed over a link so far (every source CA to every routed
 * destination, its edge forwarding index), pushed along the new routes
 * after each destination, so on degraded trees each choice goes where the
 * least traffic already is.
 *
 * Switch LIDs (management traffic) get the same up-down routes without
 * load; switches that cannot reach a destination up-down (another root, a
 * switch whose up links are all gone) fall back to a shortest path. A leaf
 * whose CAs could reach a destination only through a down-up turn makes the
 * engine refuse: such a graph is not routable as a tree (loom then uses
 * dfsssp). Cost: O(CA LIDs * (switches + up links)) time, O(switches +
 * links) memory beyond the tables. */
#include "autoconf.h"
#include "route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LEVEL 0xFFFF
#define FAR 0xFF          /* up-hop count meaning "cannot reach" */
#define NO_LINK (-1)
#define ON_MAIN 2
#define ON_BACKUP 1

struct ftree {
	const struct rt_graph *g;
	size_t n_sw;
	uint16_t *level;       /* per switch, NO_LEVEL when no CA is reachable */
	uint16_t height;       /* highest level + 1 */
	int32_t *comp;         /* connected component of each switch */
	uint32_t *n_cas;       /* CA ports hanging on each switch */
	/* Up and down links of each switch, as indices into g->links. */
	uint32_t *up_first, *up_n, *down_first, *down_n;
	uint32_t *up, *down;
	uint32_t *rev;         /* the same cable seen from the other end */
	uint64_t *load;        /* flows routed over each directed link so far */
	uint32_t *backups;     /* destinations whose backup path takes each link */
	int32_t *by_level;     /* switches in ascending level order */
	size_t n_ranked;
	/* Per destination work arrays. */
	uint8_t *in_a;         /* ancestor of the destination's switch */
	uint8_t *dist;         /* up hops to reach an ancestor, FAR if none */
	uint8_t *on_path;      /* ON_MAIN, ON_BACKUP or 0 */
	uint8_t *meets;        /* the best path a switch's route joins */
	int32_t *next;         /* chosen link per switch, NO_LINK if none */
	uint64_t *flows;
	int32_t *queue;
	uint16_t *hops;        /* for the shortest-path fallback */
};

static void ftree_free(struct ftree *t)
{
	free(t->level);
	free(t->comp);
	free(t->n_cas);
	free(t->up_first);
	free(t->up_n);
	free(t->down_first);
	free(t->down_n);
	free(t->up);
	free(t->down);
	free(t->rev);
	free(t->load);
	free(t->backups);
	free(t->by_level);
	free(t->in_a);
	free(t->dist);
	free(t->on_path);
	free(t->meets);
	free(t->next);
	free(t->flows);
	free(t->queue);
	free(t->hops);
}

static int ftree_alloc(struct ftree *t, const struct rt_graph *g)
{
	size_t n = g->n_sw + 1, nl = g->n_links + 1;

	t->g = g;
	t->n_sw = g->n_sw;
	t->level = malloc(n * sizeof(*t->level));
	t->comp = malloc(n * sizeof(*t->comp));
	t->n_cas = calloc(n, sizeof(*t->n_cas));
	t->up_first = calloc(n, sizeof(uint32_t));
	t->up_n = calloc(n, sizeof(uint32_t));
	t->down_first = calloc(n, sizeof(uint32_t));
	t->down_n = calloc(n, sizeof(uint32_t));
	t->up = malloc(nl * sizeof(uint32_t));
	t->down = malloc(nl * sizeof(uint32_t));
	t->rev = malloc(nl * sizeof(uint32_t));
	t->load = calloc(nl, sizeof(uint64_t));
	t->backups = calloc(nl, sizeof(uint32_t));
	t->by_level = malloc(n * sizeof(int32_t));
	t->in_a = malloc(n);
	t->dist = malloc(n);
	t->on_path = malloc(n);
	t->meets = malloc(n);
	t->next = malloc(n * sizeof(int32_t));
	t->flows = malloc(n * sizeof(uint64_t));
	t->queue = malloc(n * sizeof(int32_t));
	t->hops = malloc(n * sizeof(uint16_t));
	return t->level && t->comp && t->n_cas && t->up_first && t->up_n && t->down_first &&
		t->down_n && t->up && t->down && t->rev && t->load && t->backups && t->by_level && t->in_a &&
		t->dist && t->on_path && t->meets && t->next && t->flows && t->queue && t->hops ?
		0 : -ENOMEM;
}

/* Levels from the leaves (one BFS), components, and the up/down link
 * lists. -EINVAL with the offending link when two switches of one level are
 * cabled together. */
/* Levels by BFS from the switches marked in `leaf` (the queue ends up in
 * ascending level order, kept in by_level). Returns how many switch links
 * join two leaves. */
static size_t ftree_bfs(struct ftree *t, const uint8_t *leaf)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0, same = 0;
	int32_t *q = t->by_level;

	for (size_t s = 0; s < t->n_sw; s++) {
		t->level[s] = NO_LEVEL;
		if (leaf[s]) {
			t->level[s] = 0;
			q[tail++] = (int32_t)s;
		}
	}
	while (head < tail) {
		size_t s = (size_t)q[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
			if (t->level[l[i].peer] == NO_LEVEL) {
				t->level[l[i].peer] = (uint16_t)(t->level[s] + 1);
				q[tail++] = l[i].peer;
			}
			same += t->level[s] == 0 && t->level[l[i].peer] == 0;
		}
	}
	t->n_ranked = tail;
	t->height = tail ? (uint16_t)(t->level[q[tail - 1]] + 1) : 0;
	return same;
}

static int ftree_levels(struct ftree *t, char *err, size_t errlen)
{
	const struct rt_graph *g = t->g;
	size_t head = 0, tail = 0, nu = 0, nd = 0, n_leaves = 0;
	int32_t *q = t->queue;
	uint8_t *leaf = t->in_a;  /* free until routing starts */

	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			t->n_cas[g->ca[c].sw]++;
	for (size_t s = 0; s < t->n_sw; s++)
		n_leaves += leaf[s] = t->n_cas[s] > 0;
	if (!n_leaves) {
		snprintf(err, errlen, "no switch has a CA port: nothing to build a tree from");
		return -EINVAL;
	}
	/* CAs on a spine (a management node, the SM's host) would make it a
	 * leaf cabled to leaves. A true leaf's switch neighbours are mostly
	 * switches without CAs; a switch whose neighbours mostly have CAs is
	 * an upper switch that also holds CAs. */
	if (ftree_bfs(t, leaf)) {
		size_t kept = 0;

		for (size_t s = 0; s < t->n_sw; s++) {
			const struct rt_link *l = &g->links[g->sw[s].first_link];
			uint32_t with_cas = 0;

			for (uint32_t i = 0; i < g->sw[s].n_links; i++)
				with_cas += t->n_cas[l[i].peer] > 0;
			q[s] = leaf[s] && 2 * with_cas <= g->sw[s].n_links;
			kept += (size_t)q[s];
		}
		if (kept) {
			for (size_t s = 0; s < t->n_sw; s++)
				leaf[s] = (uint8_t)q[s];
			ftree_bfs(t, leaf);
		}
	}

	for (size_t s = 0; s < t->n_sw; s++)
		t->comp[s] = -1;
	for (size_t s0 = 0; s0 < t->n_sw; s0++) {
		if (t->comp[s0] >= 0)
			continue;
		head = tail = 0;
		t->comp[s0] = (int32_t)s0;
		q[tail++] = (int32_t)s0;
		while (head < tail) {
			size_t s = (size_t)q[head++];
			const struct rt_link *l = &g->links[g->sw[s].first_link];

			for (uint32_t i = 0; i < g->sw[s].n_links; i++)
				if (t->comp[l[i].peer] < 0) {
					t->comp[l[i].peer] = (int32_t)s0;
					q[tail++] = l[i].peer;
				}
		}
	}

	for (size_t s = 0; s < t->n_sw; s++) {
		uint32_t first = g->sw[s].first_link;

		t->up_first[s] = (uint32_t)nu;
		t->down_first[s] = (uint32_t)nd;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
			const struct rt_link *l = &g->links[first + i];
			uint16_t a = t->level[s], b = t->level[l->peer];

			/* The reverse cable: same switches, ports swapped. */
			const struct rt_link *pl = &g->links[g->sw[l->peer].first_link];
			for (uint32_t j = 0; j < g->sw[l->peer].n_links; j++)
				if (pl[j].peer == (int32_t)s && pl[j].port == l->peer_port) {
					t->rev[first + i] = g->sw[l->peer].first_link + j;
					break;
				}
			if (a == NO_LEVEL)
				continue;     /* a part with no CA: routed by the fallback */
			if (b == a + 1) {
				t->up[nu++] = first + i;
			} else if (b + 1 == a) {
				t->down[nd++] = first + i;
			} else {
				snprintf(err, errlen, "not a fat tree: %s port %u and %s port %u "
					 "are both at level %u", g->sw[s].desc, l->port,
					 g->sw[l->peer].desc, l->peer_port, a);
				return -EINVAL;
			}
		}
		t->up_n[s] = (uint32_t)nu - t->up_first[s];
		t->down_n[s] = (uint32_t)nd - t->down_first[s];
	}
	return 0;
}

/* Ancestors of switch d (in_a) and every switch's up-hop distance to the
 * nearest one (dist): up from d, then down from all of them. */
static void ftree_ancestors(struct ftree *t, size_t d)
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

/* Choose the best of a switch's candidate links: better `meets`, then less
 * load, then the first (lowest port). Returns a link index or NO_LINK. */
static int32_t pick(const struct ftree *t, const uint32_t *links, uint32_t n, int up,
		    uint8_t want_dist)
{
	const struct rt_graph *g = t->g;
	int32_t best = NO_LINK;
	uint8_t best_meets = 0;
	uint64_t best_load = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t li = links[i];
		int32_t peer = g->links[li].peer;
		uint8_t m;

		if (up ? t->dist[peer] != want_dist : !t->in_a[peer])
			continue;
		m = t->meets[peer];
		if (best == NO_LINK || m > best_meets ||
		    (m == best_meets && t->load[li] < best_load)) {
			best = (int32_t)li;
			best_meets = m;
			best_load = t->load[li];
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

/* Lexicographic order of two 4-part keys. */
static int key_less(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* Route one LID held at switch d (out of port `port`; 0 for the switch
 * itself). count_load: a CA LID, whose flows are added to the link loads.
 * rot: where backup paths start their search (the leaf's ordinal).
 * -EINVAL when a switch with CAs reaches d only through a down-up turn. */
static int ftree_route_lid(struct ftree *t, size_t d, unsigned lid, uint8_t port,
			   int count_load, size_t rot, struct rt_lfts *out, char *err,
			   size_t errlen)
{
	const struct rt_graph *g = t->g;
	const int32_t *ord = t->by_level;
	size_t s = d, need_fallback = 0;
	uint32_t main_first = 0;  /* the main path's first step, among d's parents */

	memset(t->on_path, 0, t->n_sw);
	memset(t->meets, 0, t->n_sw);
	for (size_t i = 0; i < t->n_sw; i++)
		t->next[i] = NO_LINK;

	/* The main path, then a backup path for the sources that cannot reach
	 * the main one: up from d over the parent link that carries the fewest
	 * flows down toward it, the backup avoiding main path switches where it
	 * can. All traffic to d then converges on one of the two. */
	for (uint8_t mark = ON_MAIN; mark >= ON_BACKUP; mark--) {
		s = d;
		for (int step = 0;; step++) {
			uint32_t n = t->up_n[s], best = n, start;
			uint64_t best_key[4] = { 0 };

			/* The backup's rotation: where its search starts among s's
			 * parents. Every leaf holds the same sequence of main paths
			 * (D-mod-K), so without a shift per leaf the destinations
			 * whose main path crosses one top would all share one
			 * backup, and a source cut from that top would funnel them
			 * all into one uplink. */
			start = n ? (uint32_t)((step == 0 ? main_first + 1 : 0) + rot) % n : 0;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t li = t->up[t->up_first[s] + i], r = t->rev[li];
				uint64_t key[4];

				key[0] = t->on_path[g->links[li].peer] == ON_MAIN;
				if (mark == ON_MAIN) {
					key[1] = t->load[r];
					key[2] = key[3] = 0;
				} else {
					key[1] = t->backups[r];
					key[2] = (i + n - start) % n;
					key[3] = t->load[r];
				}
				if (best == n || key_less(key, best_key)) {
					best = i;
					memcpy(best_key, key, sizeof(key));
				}
			}
			if (best == n)
				break;
			if (step == 0 && mark == ON_MAIN)
				main_first = best;
			best = t->up[t->up_first[s] + best];
			s = (size_t)g->links[best].peer;
			if (!t->on_path[s])
				t->on_path[s] = mark;
			if (mark == ON_BACKUP && count_load)
				t->backups[t->rev[best]]++;
		}
	}

	/* Ancestors go down, lowest level first, so that a switch sees whether
	 * its children's routes meet the main path. */
	for (size_t i = 0; i < t->n_ranked; i++) {
		size_t a = (size_t)ord[i];

		if (!t->in_a[a] || a == d)
			continue;
		t->next[a] = pick(t, t->down + t->down_first[a], t->down_n[a], 0, 0);
		t->meets[a] = t->on_path[a] ? t->on_path[a] :
			t->next[a] != NO_LINK ? t->meets[g->links[t->next[a]].peer] : 0;
	}
	/* Everyone else goes up, highest level first. */
	for (size_t i = t->n_ranked; i-- > 0;) {
		size_t u = (size_t)ord[i];

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
		t->next[u] = pick(t, t->up + t->up_first[u], t->up_n[u], 1,
				  (uint8_t)(t->dist[u] - 1));
		t->meets[u] = t->meets[g->links[t->next[u]].peer];
	}
	if (need_fallback || t->n_ranked < t->n_sw)
		ftree_fallback(t, d);

	for (size_t i = 0; i < t->n_sw; i++) {
		uint8_t *row = rt_lfts_row(out, i);

		if (i == d) {
			row[lid] = port;
			out->n_routed++;
		} else if (t->next[i] != NO_LINK) {
			row[lid] = g->links[t->next[i]].port;
			out->n_routed++;
		} else {
			out->n_unreachable++;
		}
	}
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

/* CA indices in routing order: leaves in the order of their first CA port,
 * then each leaf's CA ports in the graph's order. */
static int32_t *ca_order(const struct rt_graph *g)
{
	int32_t *order = malloc((g->n_ca + 1) * sizeof(*order));
	size_t *start = calloc(g->n_sw + 1, sizeof(*start));
	int32_t *leaves = malloc((g->n_sw + 1) * sizeof(*leaves));
	size_t n_leaves = 0, k = 0;

	if (!order || !start || !leaves) {
		free(order);
		order = NULL;
		goto out;
	}
	/* start[s] = 1 + position of s among the leaves, in first-CA order. */
	for (size_t c = 0; c < g->n_ca; c++) {
		int32_t s = g->ca[c].sw;

		if (s >= 0 && !start[s]) {
			leaves[n_leaves++] = s;
			start[s] = n_leaves;
		}
	}
	for (size_t i = 0; i < n_leaves; i++)
		for (size_t c = 0; c < g->n_ca; c++)
			if (g->ca[c].sw == leaves[i])
				order[k++] = (int32_t)c;
out:
	free(start);
	free(leaves);
	return order;
}

int rt_route_ftree(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen)
{
	struct ftree t = { 0 };
	int32_t *order = NULL;
	size_t n_order = 0, leaf_no = 0;
	int rc;

	if (out->n_sw != g->n_sw || out->max_lid != g->max_lid) {
		snprintf(err, errlen, "the tables were not made for this graph");
		return -EINVAL;
	}
	if (ftree_alloc(&t, g) < 0) {
		snprintf(err, errlen, "out of memory for %zu switches", g->n_sw);
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = ftree_levels(&t, err, errlen)) < 0)
		goto out;
	out->n_routed = out->n_unreachable = 0;
	out->n_vls = 1;
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
	if (!(order = ca_order(g)))
		goto out;
	for (size_t c = 0; c < g->n_ca; c++)
		n_order += g->ca[c].sw >= 0;

	/* CA LIDs, leaf by leaf (the ancestors are a leaf's, shared by its CAs). */
	for (size_t i = 0; i < n_order; i++) {
		const struct rt_ca *ca = &g->ca[order[i]];

		if (i == 0 || g->ca[order[i - 1]].sw != ca->sw) {
			ftree_ancestors(&t, (size_t)ca->sw);
			leaf_no++;
		}
		if ((rc = ftree_route_lid(&t, (size_t)ca->sw, ca->lid, ca->sw_port, 1, leaf_no,
					  out, err, errlen)) < 0)
			goto out;
	}
	/* Switch LIDs, for management: no load. */
	for (size_t s = 0; s < g->n_sw; s++) {
		if (t.level[s] == NO_LEVEL) {
			memset(t.in_a, 0, g->n_sw);
			memset(t.dist, FAR, g->n_sw);
			t.in_a[s] = 1;
			t.dist[s] = 0;
		} else {
			ftree_ancestors(&t, s);
		}
		if ((rc = ftree_route_lid(&t, s, g->sw[s].lid, 0, 0, s, out, err, errlen)) < 0)
			goto out;
	}
	/* CAs cabled to no switch: nobody can reach them. */
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw < 0)
			out->n_unreachable += g->n_sw;
	{
		size_t per_level[16] = { 0 }, len = 0;

		for (size_t s = 0; s < g->n_sw; s++)
			if (t.level[s] < 16)
				per_level[t.level[s]]++;
		len = (size_t)snprintf(out->note, sizeof(out->note), "fat tree of %u level%s (",
				       t.height, t.height == 1 ? "" : "s");
		for (unsigned lv = 0; lv < t.height && lv < 16 && len < sizeof(out->note); lv++)
			len += (size_t)snprintf(out->note + len, sizeof(out->note) - len,
						"%s%zu", lv ? "/" : "", per_level[lv]);
		if (len < sizeof(out->note))
			snprintf(out->note + len, sizeof(out->note) - len,
				 " switches from the leaves up), %zu CA ports", n_order);
	}
	rc = 0;
	err[0] = '\0';
out:
	free(order);
	ftree_free(&t);
	return rc;
}
