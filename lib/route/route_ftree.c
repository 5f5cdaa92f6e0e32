/* lib/route/route_ftree.c: the fat-tree engine.
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
 *   - one "main path" goes from the leaf up to a top switch. Every
 *     destination has a column at each level: the parent D-mod-K gives it
 *     on the full tree, counted over the switch's columns (the parents of
 *     all the switches sharing a parent with it, so a missing parent keeps
 *     its place). The main path follows its columns while they are cabled;
 *     where one is missing it takes the parent that the fewest main paths
 *     come down from, so a cut cable moves the one destination whose column
 *     it held and no other (main paths are all computed first: columns,
 *     then the moved ones);
 *   - a "backup path" avoiding the main one, for the sources cut from it,
 *     whose search starts one parent further for each earlier destination
 *     with the same main top: the backups of one top's destinations spread
 *     over the other tops;
 *   - every other switch routes it up, toward the parent that reaches A in
 *     the fewest up hops, preferring a parent whose route joins the main
 *     path, then the backup, then one that joins either only after coming
 *     down from a top on neither (that top's down link then carries this
 *     destination besides its own), then the least loaded; and, among
 *     those, a link it did not already take for such a detour in the last
 *     window of destinations (as many as the CAs below it: the sources a
 *     shift sends at once). Ancestors going down likewise prefer a child
 *     whose route meets one of the paths.
 * So all traffic to one CA converges on its main path, and consecutive CAs
 * of a leaf get main paths through different parents: on a full tree this
 * is the D-mod-K assignment, non-blocking for shift permutations; on a
 * degraded one the alignment survives everywhere the cables do. "Load" is
 * the flows routed over a link so far (every source CA to every routed
 * destination, its edge forwarding index), pushed along the new routes
 * after each destination, so on degraded trees each free choice goes where
 * the least traffic already is.
 *
 * Switch LIDs (management traffic) get the same up-down routes without
 * load; switches that cannot reach a destination up-down (another root, a
 * switch whose up links are all gone) fall back to a shortest path. A leaf
 * whose CAs could reach a destination only through a down-up turn makes the
 * engine refuse: such a graph is not routable as a tree (loom then uses
 * dfsssp). Cost: O(CA LIDs * (switches + up links)) time, plus, for the
 * columns, O(up links * their parents' down links * those switches' up
 * links); O(switches + links + CA LIDs * levels) memory beyond the tables. */
#include "autoconf.h"
#include "lib/route/route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LEVEL RT_NO_LEVEL
#define FAR 0xFF          /* up-hop count meaning "cannot reach" */
#define NO_LINK (-1)
#define ON_MAIN 2
#define ON_BACKUP 1
/* What a switch's route toward the destination joins, best first: the main
 * path, the backup path, the main path after a detour down from a switch on
 * neither (a top the main path does not cross: its down link then carries
 * this destination besides its own), the backup after such a detour. */
#define JOINS_MAIN 4
#define JOINS_BACKUP 3
#define DETOUR_MAIN 2
#define DETOUR_BACKUP 1
static const uint8_t detour[] = { 0, DETOUR_BACKUP, DETOUR_MAIN, DETOUR_BACKUP, DETOUR_MAIN };

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
	uint32_t *main_down;   /* destinations whose main path takes each link (down) */
	/* Columns: the parents a switch would have in the full tree (the parents
	 * of every switch that shares a parent with it), in switch order, and
	 * how many destinations have had it as their column so far (the next
	 * one takes the next column up from it). */
	uint32_t *col_first, *col_n;
	int32_t *col;
	uint32_t *mains;
	uint32_t *into;        /* main paths that have come up into each switch */
	/* Main paths, computed before any route (ftree_main_paths): for the
	 * i-th destination in routing order, the up links it takes, steps
	 * [i * height .. i * height + height - 1], NO_LINK after the top; and
	 * how many earlier main paths end at the same top (the rotation of its
	 * backup path). */
	int32_t *mpath;
	uint32_t *mrot;
	int32_t *vpath;        /* the columns it would take on the full tree */
	/* Shift windows: a source switch that cannot join a destination's
	 * main path takes another parent; alt_last is the last destination
	 * (1 + its ordinal) that made a switch take each up link so, and a
	 * switch avoids links taken so for any of the `sub` destinations
	 * before (the CAs below it: the sources a shift sends at once). */
	uint32_t *alt_last;
	uint32_t *sub;
	/* Per top: the last destination whose main path ended there (1 + its
	 * ordinal) and the top its backup path took: two destinations of one
	 * shift window sharing a main top get different backup tops. */
	uint32_t *top_last;
	int32_t *top_backup;
	uint32_t dest_no;      /* 1 + the ordinal of the CA being routed; 0: a switch LID */
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
	free(t->main_down);
	free(t->col_first);
	free(t->col_n);
	free(t->col);
	free(t->mains);
	free(t->into);
	free(t->mpath);
	free(t->alt_last);
	free(t->top_last);
	free(t->top_backup);
	free(t->sub);
	free(t->mrot);
	free(t->vpath);
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
	t->main_down = calloc(nl, sizeof(uint32_t));
	t->alt_last = calloc(nl, sizeof(uint32_t));
	t->sub = calloc(n, sizeof(uint32_t));
	t->top_last = calloc(n, sizeof(uint32_t));
	t->top_backup = calloc(n, sizeof(int32_t));
	t->col_first = calloc(n, sizeof(uint32_t));
	t->col_n = calloc(n, sizeof(uint32_t));
	t->mains = calloc(n, sizeof(uint32_t));
	t->into = calloc(n, sizeof(uint32_t));
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
		t->down_n && t->up && t->down && t->rev && t->load && t->backups && t->main_down &&
		t->alt_last && t->sub && t->top_last && t->top_backup && t->col_first && t->col_n &&
		t->mains && t->into && t->by_level && t->in_a && t->dist && t->on_path && t->meets && t->next && t->flows && t->queue && t->hops ?
		0 : -ENOMEM;
}

/* Levels by BFS from the switches marked in `leaf` (rt_graph_levels; the
 * queue, in ascending level order, kept in by_level). Returns how many
 * switch links join two leaves. */
static size_t ftree_bfs(struct ftree *t, const uint8_t *leaf)
{
	const struct rt_graph *g = t->g;
	size_t same = 0;

	t->n_ranked = rt_graph_levels(g, leaf, t->level, t->by_level);
	t->height = t->n_ranked ? (uint16_t)(t->level[t->by_level[t->n_ranked - 1]] + 1) : 0;
	for (size_t s = 0; s < t->n_sw; s++) {
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		if (t->level[s] != 0)
			continue;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			same += t->level[l[i].peer] == 0;
	}
	return same;
}

/* Levels from the leaves (one BFS), components, and the up/down link
 * lists. -EINVAL with the offending link when two switches of one level are
 * cabled together. */
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

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Each switch's columns: the parents of every switch sharing a parent with
 * it, in switch order. On a full tree those are its own parents; on a
 * degraded one they include the parents whose cables are missing, so a
 * destination whose main path would have gone through a missing parent is
 * the only one that moves, and the others keep the parent they have on
 * every other switch of the tree (the D-mod-K alignment that makes shifts
 * non-blocking). */
static int ftree_columns(struct ftree *t)
{
	const struct rt_graph *g = t->g;
	uint32_t *seen = calloc(t->n_sw + 1, sizeof(*seen));
	size_t cap = 64, n = 0;
	int32_t *col = malloc(cap * sizeof(*col));

	if (!seen || !col)
		goto fail;
	for (size_t u = 0; u < t->n_sw; u++) {
		uint32_t stamp = (uint32_t)u + 1;

		t->col_first[u] = (uint32_t)n;
		for (uint32_t i = 0; i < t->up_n[u]; i++) {
			int32_t p = g->links[t->up[t->up_first[u] + i]].peer;

			for (uint32_t j = 0; j < t->down_n[p]; j++) {
				int32_t v = g->links[t->down[t->down_first[p] + j]].peer;

				for (uint32_t k = 0; k < t->up_n[v]; k++) {
					int32_t q = g->links[t->up[t->up_first[v] + k]].peer;

					if (seen[q] == stamp)
						continue;
					seen[q] = stamp;
					if (n == cap) {
						int32_t *c = realloc(col, 2 * cap * sizeof(*col));

						if (!c)
							goto fail;
						col = c;
						cap *= 2;
					}
					col[n++] = q;
				}
			}
		}
		t->col_n[u] = (uint32_t)n - t->col_first[u];
		qsort(col + t->col_first[u], t->col_n[u], sizeof(*col), cmp_i32);
	}
	free(seen);
	t->col = col;
	return 0;
fail:
	free(seen);
	free(col);
	return -ENOMEM;
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
	int best_recent = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t li = links[i];
		int32_t peer = g->links[li].peer;
		uint8_t m;
		int recent;

		if (up ? t->dist[peer] != want_dist : !t->in_a[peer])
			continue;
		m = t->meets[peer];
		recent = up && t->dest_no && t->alt_last[li] &&
			t->dest_no - t->alt_last[li] < t->sub[g->links[li].sw];
		if (best == NO_LINK || m > best_meets ||
		    (m == best_meets && (recent < best_recent ||
					 (recent == best_recent && t->load[li] < best_load)))) {
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

/* Lexicographic order of two 4-part keys. */
static int key_less(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* The up link of switch s for a main path whose column here is `column`
 * (-1: none): the link to the column if s has one, else the parent whose
 * down link toward s carries the fewest main paths, then the one the
 * fewest main paths go through. NO_LINK at a top. */
static int32_t main_up(const struct ftree *t, size_t s, int32_t column)
{
	const struct rt_graph *g = t->g;
	int32_t best = NO_LINK;
	uint64_t best_key[4] = { 0 };

	for (uint32_t i = 0; i < t->up_n[s]; i++) {
		uint32_t li = t->up[t->up_first[s] + i];
		uint64_t key[4];

		key[0] = g->links[li].peer != column;
		key[1] = t->main_down[t->rev[li]];
		key[2] = t->into[g->links[li].peer];
		key[3] = t->load[t->rev[li]];
		if (best == NO_LINK || key_less(key, best_key)) {
			best = (int32_t)li;
			memcpy(best_key, key, sizeof(key));
		}
	}
	return best;
}

static void main_commit(struct ftree *t, size_t i, int step, int32_t li)
{
	t->mpath[i * t->height + (size_t)step] = li;
	t->main_down[t->rev[li]]++;
	t->into[t->g->links[li].peer]++;
}

/* The main path of every CA destination (order[0..n) is the routing
 * order). Each destination first gets its column at every level: the
 * parent D-mod-K would give it on the full tree, counted per column switch
 * (its siblings' parents), so a missing cable moves no other destination.
 * Destinations whose columns are all cabled take them; then, in order,
 * each of the others goes as far as its columns are cabled and from there
 * up to the parent that fewest main paths come down from (toward this
 * switch) or go through: with every column path already counted, they
 * fill the tops the missing cables left short. Up to one line of the
 * tree's height per destination. */
static void ftree_main_paths(struct ftree *t, const int32_t *order, size_t n_order)
{
	const struct rt_graph *g = t->g;
	size_t h = t->height;
	uint32_t *tops = t->mains;  /* reused: columns are all known by then */

	for (size_t i = 0; i < n_order * h; i++)
		t->mpath[i] = t->vpath[i] = NO_LINK;
	for (size_t i = 0; i < n_order; i++) {
		size_t s = (size_t)g->ca[order[i]].sw, virt = s;
		int follow = 1;

		for (size_t step = 0; step < h; step++) {
			int32_t column = t->col_n[virt] ?
				t->col[t->col_first[virt] + t->mains[virt]++ % t->col_n[virt]] : -1;
			int32_t li;

			t->vpath[i * h + step] = column;
			if (column < 0)
				break;
			virt = (size_t)column;
			if (!follow)
				continue;
			li = main_up(t, s, column);
			if (li == NO_LINK || g->links[li].peer != column) {
				follow = 0;
				continue;
			}
			main_commit(t, i, (int)step, li);
			s = (size_t)column;
		}
	}
	for (size_t i = 0; i < n_order; i++) {
		size_t s = (size_t)g->ca[order[i]].sw, step = 0;
		int32_t li;

		while (step < h && (li = t->mpath[i * h + step]) != NO_LINK) {
			s = (size_t)g->links[li].peer;
			step++;
		}
		for (; step < h && (li = main_up(t, s, t->vpath[i * h + step])) != NO_LINK; step++) {
			main_commit(t, i, (int)step, li);
			s = (size_t)g->links[li].peer;
		}
	}
	memset(tops, 0, t->n_sw * sizeof(*tops));
	for (size_t i = 0; i < n_order; i++) {
		size_t s = (size_t)g->ca[order[i]].sw;
		int32_t li;

		for (size_t step = 0; step < h && (li = t->mpath[i * h + step]) != NO_LINK; step++)
			s = (size_t)g->links[li].peer;
		t->mrot[i] = tops[s]++;
	}
}

/* Route one LID held at switch d (out of port `port`; 0 for the switch
 * itself). mpath: a CA LID's main path (its flows are then added to the
 * link loads), NULL for a switch LID. rot: where its backup path starts its
 * search. -EINVAL when a switch with CAs reaches d only through a down-up
 * turn. */
static int ftree_route_lid(struct ftree *t, size_t d, unsigned lid, uint8_t port,
			   const int32_t *mpath, size_t rot, struct rt_lfts *out, char *err,
			   size_t errlen)
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
		int32_t li = mpath ? mpath[step] : main_up(t, s, -1);

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
			if (best == n || key_less(key, best_key)) {
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

		if (!t->in_a[a] || a == d)
			continue;
		t->next[a] = pick(t, t->down + t->down_first[a], t->down_n[a], 0, 0);
		t->meets[a] = t->on_path[a] == ON_MAIN ? JOINS_MAIN :
			t->on_path[a] == ON_BACKUP ? JOINS_BACKUP :
			t->next[a] != NO_LINK ? detour[t->meets[g->links[t->next[a]].peer]] : 0;
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
	size_t n_order = 0;
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
	if ((rc = ftree_columns(&t)) < 0) {
		snprintf(err, errlen, "out of memory for the tree's columns");
		goto out;
	}
	out->n_routed = out->n_unreachable = 0;
	out->n_vls = 1;
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
	if (!(order = ca_order(g)))
		goto out;
	for (size_t c = 0; c < g->n_ca; c++)
		n_order += g->ca[c].sw >= 0;
	t.mpath = malloc((n_order * t.height + 1) * sizeof(*t.mpath));
	t.vpath = malloc((n_order * t.height + 1) * sizeof(*t.vpath));
	t.mrot = malloc((n_order + 1) * sizeof(*t.mrot));
	if (!t.mpath || !t.vpath || !t.mrot)
		goto out;
	ftree_main_paths(&t, order, n_order);
	for (size_t i = 0; i < t.n_ranked; i++) {
		size_t u = (size_t)t.by_level[i];

		t.sub[u] += t.n_cas[u];
		for (uint32_t k = 0; k < t.up_n[u]; k++)
			t.sub[g->links[t.up[t.up_first[u] + k]].peer] += t.sub[u];
	}

	/* CA LIDs, leaf by leaf (the ancestors are a leaf's, shared by its CAs). */
	for (size_t i = 0; i < n_order; i++) {
		const struct rt_ca *ca = &g->ca[order[i]];

		if (i == 0 || g->ca[order[i - 1]].sw != ca->sw) {
			ftree_ancestors(&t, (size_t)ca->sw);
		}
		t.dest_no = (uint32_t)i + 1;
		if ((rc = ftree_route_lid(&t, (size_t)ca->sw, ca->lid, ca->sw_port,
					  t.mpath + i * t.height, t.mrot[i], out, err, errlen)) < 0)
			goto out;
	}
	t.dest_no = 0;
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
		if ((rc = ftree_route_lid(&t, s, g->sw[s].lid, 0, NULL, s, out, err, errlen)) < 0)
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
