/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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
 * columns, O(up links * their parents' down links + siblings * their up
 * links); O(switches + links + CA LIDs * levels) memory beyond the tables.
 *
 * Speed (route_ftree_dest.c; 27648 CAs in about 1.2 s on 2 threads, the
 * same tables for any thread count). Above FTREE_BATCH_MIN_CA CAs,
 * destinations go FTREE_BATCH_MAX at a time, each seeing the loads of the
 * batches before: phase 1 their paths, in order; phase 2 every switch's
 * choice and the flows it adds, a destination per worker; phase 3 the
 * loads, a range of switches per worker (a directed link's load and recent
 * detours belong to the switch it leaves). Most switches need not compare
 * their parents: one whose parents differ only in that one of them meets a
 * path best is told so by that parent as it chooses (meets_down), and one
 * whose parents do not differ at all takes the batch's choice from its own
 * loads and detours (uni, made per switch by the phase 3 before). The rest
 * compare one key per parent, without a branch on the loads, over their
 * up links' state kept in one run of memory per switch. */
#include "autoconf.h"
#include "lib/route/route_ftree_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ftree_free(struct ftree *t)
{
	for (unsigned i = 0; t->w && i < t->n_w; i++) {
		free(t->w[i].in_a);
		free(t->w[i].dist);
		free(t->w[i].on_path);
		free(t->w[i].meets);
		free(t->w[i].queue);
		free(t->w[i].hops);
		free(t->w[i].cand);
		free(t->w[i].cand_peer);
		free(t->w[i].cand_n);
		free(t->w[i].elig);
		free(t->w[i].pm);
		free(t->w[i].npeer);
		free(t->w[i].flows);
		free(t->w[i].best_m);
		free(t->w[i].best_n);
		free(t->w[i].best_i);
	}
	free(t->w);
	free(t->level);
	free(t->comp);
	free(t->n_cas);
	free(t->up_first);
	free(t->up_n);
	free(t->down_first);
	free(t->down_n);
	free(t->up);
	free(t->down);
	free(t->up_peer);
	free(t->down_peer);
	free(t->down_upi);
	free(t->pend);
	free(t->rev);
	free(t->load);
	free(t->up_slot);
	free(t->up_load);
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
	free(t->uni);
	free(t->pflow);
}

/* One set of per-destination arrays per worker of g->pool. 0 or -ENOMEM. */
static int ftree_workers(struct ftree *t)
{
	size_t n = t->n_sw + 1;

	t->n_w = par_pool_threads(t->g->pool);
	t->w = calloc(t->n_w, sizeof(*t->w));
	if (!t->w)
		return -ENOMEM;
	for (unsigned i = 0; i < t->n_w; i++) {
		struct ftw *w = &t->w[i];

		w->anc_of = SIZE_MAX;
		w->hops_of = SIZE_MAX;
		w->in_a = malloc(n);
		w->dist = malloc(n);
		w->on_path = malloc(n);
		w->meets = malloc(n);
		w->queue = malloc(n * sizeof(*w->queue));
		w->hops = malloc(n * sizeof(*w->hops));
		w->cand = malloc((t->g->n_links + 1) * sizeof(*w->cand));
		w->cand_peer = malloc((t->g->n_links + 1) * sizeof(*w->cand_peer));
		w->cand_n = malloc(n * sizeof(*w->cand_n));
		w->elig = malloc(n);
		w->pm = malloc(n);
		w->npeer = malloc(n * sizeof(*w->npeer));
		w->flows = malloc(n * sizeof(*w->flows));
		w->best_m = malloc(n);
		w->best_n = malloc(n);
		w->best_i = malloc(n);
		if (!w->in_a || !w->dist || !w->on_path || !w->meets || !w->queue ||
		    !w->hops || !w->cand || !w->cand_peer || !w->cand_n || !w->elig || !w->pm || !w->npeer || !w->flows ||
		    !w->best_m || !w->best_n || !w->best_i)
			return -ENOMEM;
	}
	return 0;
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
	t->up_peer = malloc(nl * sizeof(int32_t));
	t->down_peer = malloc(nl * sizeof(int32_t));
	t->down_upi = malloc(nl);
	t->pend = malloc(n * PEND * sizeof(int32_t));
	t->rev = malloc(nl * sizeof(uint32_t));
	t->load = calloc(nl, sizeof(uint64_t));
	t->up_slot = malloc(nl * sizeof(uint32_t));
	if (t->up_slot)
		memset(t->up_slot, 0xFF, nl * sizeof(uint32_t));
	t->up_load = calloc(nl, sizeof(uint64_t));
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
	t->uni = malloc(n * sizeof(int32_t));
	t->pflow = malloc(n * PEND * sizeof(uint32_t));
	return t->level && t->comp && t->n_cas && t->up_first && t->up_n && t->down_first &&
		t->down_n && t->up && t->down && t->up_peer && t->down_peer && t->down_upi && t->pend && t->rev && t->load &&
		t->up_slot && t->up_load && t->backups && t->main_down &&
		t->alt_last && t->sub && t->top_last && t->top_backup && t->col_first && t->col_n &&
		t->mains && t->into && t->by_level && t->uni && t->pflow && ftree_workers(t) == 0 ?
		0 : -ENOMEM;
}

size_t ftree_batch_min_ca = FTREE_BATCH_MIN_CA;
int ftree_check_shortcuts;
size_t ftree_shortcut_best, ftree_shortcut_uni, ftree_shortcut_wrong;


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
	int32_t *q = t->w[0].queue;
	uint8_t *leaf = t->w[0].in_a;  /* free until routing starts */

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
				t->up_peer[nu] = l->peer;
				t->up_slot[first + i] = (uint32_t)nu;
				t->up[nu++] = first + i;
			} else if (b + 1 == a) {
				t->down_peer[nd] = l->peer;
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
	for (size_t k = 0; k < nd; k++)
		t->down_upi[k] = (uint8_t)(t->up_slot[t->rev[t->down[k]]] -
					  t->up_first[t->down_peer[k]]);
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
	uint32_t *seen = calloc(t->n_sw + 1, sizeof(*seen));
	uint32_t *sib = calloc(t->n_sw + 1, sizeof(*sib));
	size_t cap = 64, n = 0;
	int32_t *col = malloc(cap * sizeof(*col));

	if (!seen || !sib || !col)
		goto fail;
	for (size_t u = 0; u < t->n_sw; u++) {
		uint32_t stamp = (uint32_t)u + 1;

		t->col_first[u] = (uint32_t)n;
		for (uint32_t i = 0; i < t->up_n[u]; i++) {
			int32_t p = t->up_peer[t->up_first[u] + i];

			for (uint32_t j = 0; j < t->down_n[p]; j++) {
				int32_t v = t->down_peer[t->down_first[p] + j];

				/* A sibling shares several parents with u: its
				 * parents once. */
				if (sib[v] == stamp)
					continue;
				sib[v] = stamp;
				for (uint32_t k = 0; k < t->up_n[v]; k++) {
					int32_t q = t->up_peer[t->up_first[v] + k];

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
	free(sib);
	t->col = col;
	return 0;
fail:
	free(seen);
	free(sib);
	free(col);
	return -ENOMEM;
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
			li = ftree_main_up(t, s, column);
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
		for (; step < h && (li = ftree_main_up(t, s, t->vpath[i * h + step])) != NO_LINK; step++) {
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
	t.out = out;
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

	/* CA LIDs, leaf by leaf (the ancestors are a leaf's, shared by its
	 * CAs), a batch at a time (FTREE_BATCH_MIN_CA). */
	{
		struct ftree_dest ds[FTREE_BATCH_MAX];
		size_t batch = n_order >= ftree_batch_min_ca ? FTREE_BATCH_MAX : 1, n = 0;

		for (size_t i = 0; i < n_order; i++) {
			const struct rt_ca *ca = &g->ca[order[i]];

			ds[n++] = (struct ftree_dest){ .d = (size_t)ca->sw, .lid = ca->lid,
						      .port = ca->sw_port,
						      .mpath = t.mpath + i * t.height,
						      .rot = t.mrot[i], .dest_no = (uint32_t)i + 1 };
			if ((n == batch || i + 1 == n_order) &&
			    (rc = ftree_route_batch(&t, ds, n, err, errlen)) < 0)
				goto out;
			if (n == batch || i + 1 == n_order)
				n = 0;
		}
		/* Switch LIDs, for management: no load, so any batch gives
		 * the same tables. */
		for (size_t s = 0; s < g->n_sw; s++) {
			ds[n++] = (struct ftree_dest){ .d = s, .lid = g->sw[s].lid, .rot = s };
			if (n == FTREE_BATCH_MAX || s + 1 == g->n_sw) {
				if ((rc = ftree_route_batch(&t, ds, n, err, errlen)) < 0)
					goto out;
				n = 0;
			}
		}
	}
	ftree_flush(&t);
	for (unsigned w = 0; w < PAR_MAX_THREADS; w++) {
		out->n_routed += t.routed[w];
		out->n_unreachable += t.unreachable[w];
		if (ftree_check_shortcuts) {   /* tests only: one run at a time */
			ftree_shortcut_best += t.sc_best[w];
			ftree_shortcut_uni += t.sc_uni[w];
			ftree_shortcut_wrong += t.sc_wrong[w];
		}
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
