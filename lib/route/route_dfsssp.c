/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_dfsssp.c: the dfsssp engine, deadlock-free balanced shortest
 * paths for any topology (the DFSSSP family: Domke, Hoefler and Nagel,
 * "Deadlock-Free Oblivious Routing for Arbitrary Topologies", IPDPS 2011;
 * OpenSM's dfsssp engine belongs to it).
 *
 * Paths. Destinations are taken switch by switch, in index order. One
 * breadth-first search gives every switch's hop count to the destination
 * switch d; then each CA LID of d, in CA order, gets its own tree: every
 * switch forwards it toward one of its minimum-hop neighbours, the one whose
 * remaining path carries the least load (the sum of the loads of its links;
 * ties to the lowest port). That is Dijkstra with (hops, load) weights
 * compared hops first, done in one sweep in BFS order. Hops come first so
 * that no path is longer than min-hop's: longer detours add channel
 * dependencies and so virtual lanes, and on a torus they cost as much
 * bandwidth as they save. After each CA LID, every link gains the number of
 * CAs whose traffic to that LID it carries (subtree sums, O(switches)), so
 * the next LID's tree avoids it: consecutive CAs of a switch spread over
 * different links. A switch LID carries only management traffic: it shares
 * the tree of its switch's first CA (so its paths are prefixes of that CA's
 * paths and add no channel dependency), or, on a switch without CAs, gets a
 * tree of its own that adds no load.
 *
 * Layers. A path is (entry switch, destination LID): the entry switch holds
 * the CA that sends, the SL table has one entry per path, and SL s runs on
 * VL s. Channels are the directed switch-to-switch links; a path that takes
 * l1 then l2 makes l1 depend on l2, and a layer (VL) cannot deadlock when the
 * dependencies of its paths form no cycle. All paths start on layer 0; a
 * depth-first search over the layer's dependency graph looks for a cycle,
 * and each cycle found is broken at its dependency used by the fewest paths,
 * whose paths all move to the next layer (as DFSSSP does). The search goes
 * on from where the cycle was found instead of starting over: the channels
 * above the broken dependency are taken off the stack and explored again
 * later, finished channels stay finished since removing dependencies cannot
 * close a cycle through them. When layer i is acyclic, layer i + 1 is done
 * the same way with the paths moved to it. A cycle on the last lane
 * (RT_MAX_VLS) fails with -ENOSPC.
 *
 * Paths toward one LID form a tree, so the paths that use a dependency
 * (l1 = a->b, l2 = b->c) are, for each LID whose tree takes l1 at a and l2 at
 * b, the sources of that layer in a's subtree: found by a scan of the
 * trees' hops at a and b (a switch-major copy, sequential) and a search from
 * a against each matching tree's direction, never by storing paths.
 *
 * Cost: O(LIDs * (switches + links)) for the paths; per layer O(paths *
 * hops) to count dependencies and O(links + dependencies) for the search
 * plus, per cycle broken, O(LIDs + subtree links + moved paths * hops).
 * Memory: one byte per (LID, switch) for the trees (twice once a cycle is
 * to be broken), one per (LID, entry switch) for the layers, one counter
 * per pair of consecutive links. */
#include "autoconf.h"
#include "lib/route/route.h"

#include "lib/util/par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_HOP 0xFF         /* tree entry: the destination itself, or unreachable */
#define FAR UINT32_MAX      /* hop count: unreachable */
#define NO_EDGE SIZE_MAX

/* One tree: the paths from every switch toward one LID. */
struct tree {
	uint16_t lid;
	int32_t dst;            /* the switch the LID is reached through */
	int32_t shares;         /* -1, or the tree whose hops a switch LID reuses */
	uint8_t last_port;      /* out of dst: the CA's port, 0 for the switch */
	uint8_t is_ca;
};

struct dfsssp {
	const struct rt_graph *g;
	size_t n, n_links;
	/* Switches holding CAs: the entry switches of every path. */
	uint32_t *n_at;         /* CAs per switch */
	int32_t *src;           /* entry switches, ascending */
	size_t n_src;
	/* CAs per switch, in CA order: ca_list[ca_first[s] .. ca_first[s + 1]] */
	uint32_t *ca_first, *ca_list;
	struct tree *trees;
	size_t n_trees;
	/* hop[t * n + s]: the link out of s toward tree t's LID, as an index
	 * among s's links (g->links[first_link + hop]), or NO_HOP. */
	uint8_t *hop;
	uint8_t *hop_col;       /* the same, switch-major (hop_columns) */
	int32_t *src_of;        /* per switch: its index in src[], or -1 */
	uint8_t *layer;         /* layer[t * n_src + k]: layer of path (src[k], t) */
	uint64_t *load;         /* per directed link: CA flows routed over it */
	/* The dependency graph: dependency (l1, l2), l2 a link out of the switch
	 * l1 leads to, is counter dep_base[l1] + (l2 - first_link of that
	 * switch). count[] holds the paths of the current layer using each. */
	size_t *dep_base;
	size_t n_deps;
	uint32_t *count;
	/* Work arrays. */
	uint32_t *dist;
	int32_t *order;
	uint64_t *cost, *flow;
	/* Per worker of g->pool (worker 0: the caller, the only one that moves
	 * paths): its marks and stack for the subtree searches, the paths it
	 * moved, and (workers 1..) its own dependency counters while a layer is
	 * counted, added in after. */
	struct dfsssp_worker {
		uint32_t *stamp, cur;
		int32_t *trail;
		size_t moved, paths;
		uint32_t *count;
	} wk[PAR_MAX_THREADS];
	unsigned threads;
	unsigned max_hops;
	int coarse, coarse_now;
};

/* Paths moved off layer 0, by every worker. */
static size_t moved(const struct dfsssp *x)
{
	size_t n = 0;

	for (unsigned w = 0; w < x->threads; w++)
		n += x->wk[w].moved;
	return n;
}

/* The workers' arrays. 0 or -ENOMEM. */
static int workers_alloc(struct dfsssp *x)
{
	x->threads = par_pool_threads(x->g->pool);
	if (x->threads > PAR_MAX_THREADS)
		x->threads = PAR_MAX_THREADS;
	for (unsigned w = 0; w < x->threads; w++) {
		struct dfsssp_worker *k = &x->wk[w];

		k->stamp = calloc(x->n + 1, sizeof(*k->stamp));
		k->trail = malloc((x->n + 1) * sizeof(*k->trail));
		if (w)
			k->count = malloc((x->n_deps + 1) * sizeof(*k->count));
		if (!k->stamp || !k->trail || (w && !k->count))
			return -ENOMEM;
	}
	return 0;
}

static void dfsssp_free(struct dfsssp *x)
{
	free(x->n_at);
	free(x->src);
	free(x->ca_first);
	free(x->ca_list);
	free(x->trees);
	free(x->hop);
	free(x->hop_col);
	free(x->src_of);
	free(x->layer);
	free(x->load);
	free(x->dep_base);
	free(x->count);
	free(x->dist);
	free(x->order);
	free(x->cost);
	free(x->flow);
	for (unsigned w = 0; w < x->threads; w++) {
		free(x->wk[w].stamp);
		free(x->wk[w].trail);
		free(x->wk[w].count);
	}
}

/* The link (index into g->links) tree t takes out of switch s, or -1. */
static inline int32_t tree_link(const struct dfsssp *x, size_t t, size_t s)
{
	uint8_t h = x->hop[t * x->n + s];

	return h == NO_HOP ? -1 : (int32_t)(x->g->sw[s].first_link + h);
}

/* Entry switches, CA lists per switch and the list of trees. */
static int plan_trees(struct dfsssp *x)
{
	const struct rt_graph *g = x->g;
	size_t n = x->n;

	x->n_at = calloc(n + 1, sizeof(*x->n_at));
	x->src = malloc((n + 1) * sizeof(*x->src));
	x->ca_first = calloc(n + 2, sizeof(*x->ca_first));
	x->ca_list = malloc((g->n_ca + 1) * sizeof(*x->ca_list));
	/* At most one tree per CA and one per switch without CAs. */
	x->trees = malloc((g->n_ca + n + 1) * sizeof(*x->trees));
	x->src_of = malloc((n + 1) * sizeof(*x->src_of));
	if (!x->n_at || !x->src || !x->ca_first || !x->ca_list || !x->trees || !x->src_of)
		return -ENOMEM;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			x->n_at[g->ca[c].sw]++;
	for (size_t s = 0; s < n; s++) {
		x->ca_first[s + 1] = x->ca_first[s] + x->n_at[s];
		x->src_of[s] = x->n_at[s] ? (int32_t)x->n_src : -1;
		if (x->n_at[s])
			x->src[x->n_src++] = (int32_t)s;
	}
	/* Each CA into its switch's slice, in CA order; n_at counts again. */
	memset(x->n_at, 0, n * sizeof(*x->n_at));
	for (size_t c = 0; c < g->n_ca; c++) {
		int32_t s = g->ca[c].sw;

		if (s >= 0)
			x->ca_list[x->ca_first[s] + x->n_at[s]++] = (uint32_t)c;
	}
	for (size_t s = 0; s < n; s++) {
		size_t first = x->n_trees;

		for (uint32_t i = x->ca_first[s]; i < x->ca_first[s + 1]; i++) {
			const struct rt_ca *c = &g->ca[x->ca_list[i]];

			x->trees[x->n_trees++] = (struct tree){ .lid = c->lid, .dst = (int32_t)s,
				.shares = -1, .last_port = c->sw_port, .is_ca = 1 };
		}
		/* A switch with CAs: its LID rides the first CA's tree (recorded
		 * apart, see route_switch_lids); without: a tree of its own. */
		if (x->n_trees == first)
			x->trees[x->n_trees++] = (struct tree){ .lid = g->sw[s].lid,
				.dst = (int32_t)s, .shares = -1, .last_port = 0, .is_ca = 0 };
	}
	return 0;
}

/* Hop counts to switch d; order[] gets the reached switches in BFS order,
 * d first. Returns how many were reached. */
static size_t bfs(struct dfsssp *x, size_t d)
{
	const struct rt_graph *g = x->g;
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < x->n; s++)
		x->dist[s] = FAR;
	x->dist[d] = 0;
	x->order[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)x->order[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
			size_t p = (size_t)l[i].peer;

			if (x->dist[p] != FAR)
				continue;
			x->dist[p] = x->dist[s] + 1;
			x->order[tail++] = (int32_t)p;
		}
	}
	return tail;
}

/* Tree t over the reached switches (BFS order of its destination switch):
 * each takes, among its links to a switch one hop closer, the one whose
 * path onward has the least load. Then, for a CA LID, push the flows of
 * every entry switch along the tree onto the links' load. */
static void grow_tree(struct dfsssp *x, size_t t, size_t reached)
{
	const struct rt_graph *g = x->g;
	uint8_t *hop = x->hop + t * x->n;

	x->cost[x->order[0]] = 0;
	for (size_t i = 1; i < reached && !x->coarse_now; i++) {
		size_t s = (size_t)x->order[i];
		const struct rt_link *l = &g->links[g->sw[s].first_link];
		uint64_t best_cost = UINT64_MAX;
		uint8_t best = NO_HOP;

		for (uint32_t j = 0; j < g->sw[s].n_links; j++) {
			size_t p = (size_t)l[j].peer;
			uint64_t c;

			if (x->dist[p] + 1 != x->dist[s])
				continue;
			c = x->cost[p] + x->load[g->sw[s].first_link + j];
			if (c < best_cost) {
				best_cost = c;
				best = (uint8_t)j;
			}
		}
		hop[s] = best;
		x->cost[s] = best_cost;
		if (x->dist[s] > x->max_hops)
			x->max_hops = x->dist[s];
	}
	if (x->coarse_now)
		memcpy(hop, hop - x->n, x->n);
	if (!x->trees[t].is_ca)
		return;
	for (size_t i = 0; i < reached; i++)
		x->flow[x->order[i]] = x->n_at[x->order[i]];
	for (size_t i = reached - 1; i > 0; i--) {
		size_t s = (size_t)x->order[i];
		size_t li = g->sw[s].first_link + hop[s];

		x->load[li] += x->flow[s];
		x->flow[g->links[li].peer] += x->flow[s];
	}
}

/* Every tree, then the forwarding tables. */
static void route_all(struct dfsssp *x, struct rt_lfts *out)
{
	const struct rt_graph *g = x->g;
	size_t t = 0;

	memset(x->hop, NO_HOP, x->n_trees * x->n);
	for (size_t d = 0; d < x->n; d++) {
		size_t reached = bfs(x, d);

		for (; t < x->n_trees && (size_t)x->trees[t].dst == d; t++) {
			/* Coarse: the CAs of a switch share its first CA's tree. */
			x->coarse_now = x->coarse && x->trees[t].is_ca && t > 0 &&
					x->trees[t - 1].dst == x->trees[t].dst;
			grow_tree(x, t, reached);
		}
	}
	for (t = 0; t < x->n_trees; t++) {
		const struct tree *tr = &x->trees[t];

		for (size_t s = 0; s < x->n; s++) {
			int32_t li = tree_link(x, t, s);
			uint8_t port = (size_t)tr->dst == s ? tr->last_port :
				       li >= 0 ? g->links[li].port : RT_NO_PORT;

			rt_lfts_set(out, s, tr->lid, port);
		}
	}
	/* Switch LIDs of switches with CAs: the hops of their first CA's tree,
	 * port 0 at the switch itself. */
	for (t = 0; t < x->n_trees; t++) {
		const struct tree *tr = &x->trees[t];
		uint16_t lid;

		if (!tr->is_ca || (t > 0 && x->trees[t - 1].dst == tr->dst && x->trees[t - 1].is_ca))
			continue;
		lid = g->sw[tr->dst].lid;
		for (size_t s = 0; s < x->n; s++)
			rt_lfts_set(out, s, lid, (size_t)tr->dst == s ? 0 : rt_lfts_get(out, s, tr->lid));
	}
	/* Count as min-hop does: every (switch, LID held by someone). */
	for (size_t s = 0; s < x->n; s++) {
		const uint8_t *row = rt_lfts_row(out, s);

		for (size_t lid = 1; lid <= g->max_lid; lid++) {
			if (rt_graph_lid_switch(g, (unsigned)lid) < 0 &&
			    rt_graph_lid_ca(g, (unsigned)lid) < 0)
				continue;
			if (row[lid] == RT_NO_PORT)
				out->n_unreachable++;
			else
				out->n_routed++;
		}
	}
}

/* The dependency counters' layout: dep_base[l1] for every link l1. */
static int deps_layout(struct dfsssp *x)
{
	const struct rt_graph *g = x->g;

	x->dep_base = malloc((x->n_links + 1) * sizeof(*x->dep_base));
	if (!x->dep_base)
		return -ENOMEM;
	x->n_deps = 0;
	for (size_t l = 0; l < x->n_links; l++) {
		x->dep_base[l] = x->n_deps;
		x->n_deps += g->sw[g->links[l].peer].n_links;
	}
	x->count = calloc(x->n_deps + 1, sizeof(*x->count));
	return x->count ? 0 : -ENOMEM;
}

static inline size_t dep_index(const struct dfsssp *x, int32_t l1, int32_t l2)
{
	const struct rt_graph *g = x->g;

	return x->dep_base[l1] + (size_t)l2 - g->sw[g->links[l1].peer].first_link;
}

/* Add 1 to the counter in count of every dependency of path (s, t). */
static void path_deps_add(const struct dfsssp *x, uint32_t *count, size_t t, size_t s)
{
	int32_t l = tree_link(x, t, s);

	while (l >= 0) {
		int32_t next = tree_link(x, t, (size_t)x->g->links[l].peer);

		if (next < 0)
			break;
		count[dep_index(x, l, next)]++;
		l = next;
	}
}

/* Take path (s, t) off x->count. */
static void path_deps_sub(struct dfsssp *x, size_t t, size_t s)
{
	int32_t l = tree_link(x, t, s);

	while (l >= 0) {
		int32_t next = tree_link(x, t, (size_t)x->g->links[l].peer);

		if (next < 0)
			break;
		x->count[dep_index(x, l, next)]--;
		l = next;
	}
}

struct layer_job {
	struct dfsssp *x;
	uint8_t i;
};

static void count_part(void *ctx, unsigned w, size_t begin, size_t end)
{
	struct layer_job *job = ctx;
	struct dfsssp *x = job->x;
	uint32_t *count = w ? x->wk[w].count : x->count;

	for (size_t t = begin; t < end; t++) {
		const uint8_t *layer = x->layer + t * x->n_src;

		for (size_t k = 0; k < x->n_src; k++) {
			if (layer[k] != job->i)
				continue;
			x->wk[w].paths++;
			path_deps_add(x, count, t, (size_t)x->src[k]);
		}
	}
}

/* Count the dependencies of the paths on layer i, trees split over the
 * pool, each worker into its own counters, summed (the same counts for any
 * thread count); 0 if it has none. */
static size_t count_layer(struct dfsssp *x, uint8_t i)
{
	struct layer_job job = { .x = x, .i = i };
	size_t paths = 0;

	memset(x->count, 0, x->n_deps * sizeof(*x->count));
	for (unsigned w = 0; w < x->threads; w++) {
		x->wk[w].paths = 0;
		if (w)
			memset(x->wk[w].count, 0, x->n_deps * sizeof(*x->count));
	}
	par_pool_for(x->g->pool, x->n_trees, 16, count_part, &job);
	for (unsigned w = 0; w < x->threads; w++) {
		paths += x->wk[w].paths;
		if (w)
			for (size_t d = 0; d < x->n_deps; d++)
				x->count[d] += x->wk[w].count[d];
	}
	return paths;
}

/* The switch-major copy of the trees' hops (hop_col[s * n_trees + t]), made
 * when the first cycle is to be broken: finding the trees that take a given
 * link out of a switch is then one sequential scan. Fat trees, whose layer 0
 * is acyclic, never pay for it. 0 or -ENOMEM. */
static int hop_columns(struct dfsssp *x)
{
	if (x->hop_col)
		return 0;
	if (!(x->hop_col = malloc(x->n_trees * x->n + 1)))
		return -ENOMEM;
	for (size_t t = 0; t < x->n_trees; t++)
		for (size_t s = 0; s < x->n; s++)
			x->hop_col[s * x->n_trees + t] = x->hop[t * x->n + s];
	return 0;
}

/* Tree t takes l1 out of a: move the paths of layer i from the entry
 * switches in a's subtree (found from a against the tree's direction: the
 * neighbours whose hop leads to the switch at hand) to layer i + 1. */
static void move_tree(struct dfsssp *x, struct dfsssp_worker *w, size_t t, size_t a,
		      uint8_t i)
{
	const struct rt_graph *g = x->g;
	uint8_t *layer = x->layer + t * x->n_src;
	size_t sp = 0;
	uint32_t mark = ++w->cur;

	w->stamp[a] = mark;
	w->trail[sp++] = (int32_t)a;
	while (sp > 0) {
		size_t v = (size_t)w->trail[--sp];
		const struct rt_link *l = &g->links[g->sw[v].first_link];
		int32_t k = x->src_of[v];

		if (k >= 0 && layer[k] == i) {
			layer[k] = (uint8_t)(i + 1);
			path_deps_sub(x, t, v);
			w->moved += i == 0;
		}
		for (uint32_t j = 0; j < g->sw[v].n_links; j++) {
			size_t p = (size_t)l[j].peer;
			int32_t up;

			if (w->stamp[p] == mark || (up = tree_link(x, t, p)) < 0 ||
			    (size_t)g->links[up].peer != v)
				continue;
			w->stamp[p] = mark;
			w->trail[sp++] = (int32_t)p;
		}
	}
}

/* Move every path of layer i using dependency (l1, l2) to layer i + 1: in
 * each tree that takes l1 out of a and l2 out of b, the paths from a's
 * subtree. (On one thread: a move is a few dozen small trees, less than
 * what handing them to the pool costs.) */
static void move_paths(struct dfsssp *x, int32_t l1, int32_t l2, uint8_t i)
{
	const struct rt_graph *g = x->g;
	size_t a = (size_t)g->links[l1].sw, b = (size_t)g->links[l1].peer;
	const uint8_t *col_a = x->hop_col + a * x->n_trees, *col_b = x->hop_col + b * x->n_trees;
	uint8_t ha = (uint8_t)((size_t)l1 - g->sw[a].first_link);
	uint8_t hb = (uint8_t)((size_t)l2 - g->sw[b].first_link);

	for (size_t t = 0; t < x->n_trees; t++)
		if (col_a[t] == ha && col_b[t] == hb)
			move_tree(x, &x->wk[0], t, a, i);
}

struct frame {
	int32_t link;           /* the channel */
	uint32_t next;          /* the next of its dependencies to look at */
	size_t dep_in;          /* the dependency that led here, NO_EDGE at a root */
};

enum { WHITE, GRAY, BLACK };

/* Make layer i acyclic by moving paths to layer i + 1 (see the top). 0, or
 * -ENOSPC when layer i is the last one and has a cycle. */
static int break_cycles(struct dfsssp *x, uint8_t i, struct frame *stack, uint8_t *color)
{
	const struct rt_graph *g = x->g;
	for (unsigned w = 0; w < x->threads; w++) {
		memset(x->wk[w].stamp, 0, x->n * sizeof(*x->wk[w].stamp));
		x->wk[w].cur = 0;
	}
	memset(color, WHITE, x->n_links);
	for (size_t root = 0; root < x->n_links; root++) {
		size_t sp = 0;

		if (color[root] != WHITE)
			continue;
		stack[sp++] = (struct frame){ .link = (int32_t)root, .next = 0, .dep_in = NO_EDGE };
		color[root] = GRAY;
		while (sp > 0) {
			struct frame *f = &stack[sp - 1];
			const struct rt_switch *b = &g->sw[g->links[f->link].peer];
			size_t e, best_e, tail;
			int32_t w, best_l2;

			if (f->next == b->n_links) {
				color[f->link] = BLACK;
				sp--;
				continue;
			}
			e = x->dep_base[f->link] + f->next;
			w = (int32_t)(b->first_link + f->next++);
			if (!x->count[e] || color[w] == BLACK)
				continue;
			if (color[w] == WHITE) {
				stack[sp++] = (struct frame){ .link = w, .next = 0, .dep_in = e };
				color[w] = GRAY;
				continue;
			}
			/* A cycle: the stack from w up, closed by e. Break it at
			 * the dependency the fewest paths use (the first such from
			 * the top). Counters may have dropped to 0 under the stack
			 * since it was pushed: such a cycle is already broken. */
			best_e = e;
			best_l2 = w;
			tail = sp - 1;
			for (size_t q = sp - 1; stack[q].link != w; q--) {
				if (x->count[stack[q].dep_in] < x->count[best_e]) {
					best_e = stack[q].dep_in;
					best_l2 = stack[q].link;
					tail = q - 1;
				}
			}
			if (x->count[best_e]) {
				if (i + 1 >= RT_MAX_VLS)
					return -ENOSPC;
				if (hop_columns(x) < 0)
					return -ENOMEM;
				move_paths(x, stack[tail].link, best_l2, i);
			}
			/* What was above the broken dependency is explored again. */
			while (sp > tail + 1)
				color[stack[--sp].link] = WHITE;
		}
	}
	return 0;
}

/* Spread the paths over layers; *n_layers gets how many hold paths. */
static int assign_layers(struct dfsssp *x, unsigned *n_layers, char *err, size_t errlen)
{
	struct frame *stack = malloc((x->n_links + 1) * sizeof(*stack));
	uint8_t *color = malloc(x->n_links + 1);
	int rc = 0;

	*n_layers = 1;
	if (!stack || !color) {
		snprintf(err, errlen, "out of memory for the dependency search over %zu links",
			 x->n_links);
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < RT_MAX_VLS; i++) {
		if (!count_layer(x, (uint8_t)i))
			break;
		*n_layers = i + 1;
		if ((rc = break_cycles(x, (uint8_t)i, stack, color)) == -ENOMEM) {
			snprintf(err, errlen, "out of memory for the trees' hops by switch (%zu trees, "
				 "%zu switches)", x->n_trees, x->n);
			goto out;
		} else if (rc < 0) {
			snprintf(err, errlen, "the channel dependencies need more than %d virtual "
				 "lanes (%zu switches, %zu paths moved off VL 0): route with fewer "
				 "dependencies (a fat tree engine, fewer links) or allow more VLs",
				 RT_MAX_VLS, x->n, moved(x));
			goto out;
		}
	}
out:
	free(stack);
	free(color);
	return rc;
}

/* SL table: each path's layer; switch LIDs sharing a CA's tree take its
 * layers. Rows of switches without CAs stay 0: only the switch's own
 * management traffic enters there. */
static void fill_sl(struct dfsssp *x, struct rt_lfts *out)
{
	size_t w = (size_t)out->max_lid + 1;

	for (size_t t = 0; t < x->n_trees; t++) {
		const struct tree *tr = &x->trees[t];
		const uint8_t *layer = x->layer + t * x->n_src;
		int first_ca = tr->is_ca && !(t > 0 && x->trees[t - 1].dst == tr->dst);

		for (size_t k = 0; k < x->n_src; k++) {
			size_t s = (size_t)x->src[k];

			out->sl[s * w + tr->lid] = layer[k];
			if (first_ca)
				out->sl[s * w + x->g->sw[tr->dst].lid] = layer[k];
		}
	}
}

int rt_route_dfsssp(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen)
{
	struct dfsssp x = { .g = g, .n = g->n_sw, .n_links = g->n_links };
	unsigned n_layers = 1;
	int rc;

	if (out->n_sw != g->n_sw || out->max_lid != g->max_lid) {
		snprintf(err, errlen, "the tables were not made for this graph");
		return -EINVAL;
	}
	out->n_routed = out->n_unreachable = 0;
	if ((rc = plan_trees(&x)) < 0 || rt_lfts_sl_alloc(out) < 0)
		goto oom;
	x.hop = malloc(x.n_trees * x.n + 1);
	x.layer = calloc(x.n_trees * x.n_src + 1, 1);
	x.load = calloc(x.n_links + 1, sizeof(*x.load));
	x.dist = malloc((x.n + 1) * sizeof(*x.dist));
	x.order = malloc((x.n + 1) * sizeof(*x.order));
	x.cost = malloc((x.n + 1) * sizeof(*x.cost));
	x.flow = malloc((x.n + 1) * sizeof(*x.flow));
	if (!x.hop || !x.layer || !x.load || !x.dist || !x.order || !x.cost || !x.flow ||
	    deps_layout(&x) < 0 || workers_alloc(&x) < 0)
		goto oom;
	/* Per-LID trees first; if their dependencies need too many lanes, again
	 * with one tree per destination switch: fewer distinct paths, so fewer
	 * dependencies, at the price of coarser balancing. */
	for (x.coarse = 0;; x.coarse = 1) {
		free(x.hop_col);  /* of the last pass's trees */
		x.hop_col = NULL;
		memset(x.load, 0, x.n_links * sizeof(*x.load));
		memset(x.layer, 0, x.n_trees * x.n_src);
		for (unsigned w = 0; w < x.threads; w++)
			x.wk[w].moved = 0;
		x.max_hops = 0;
		out->n_routed = out->n_unreachable = 0;
		route_all(&x, out);
		rc = assign_layers(&x, &n_layers, err, errlen);
		if (rc != -ENOSPC || x.coarse || x.n_trees == x.n)
			break;
	}
	if (rc < 0)
		goto out;
	fill_sl(&x, out);
	out->n_vls = (uint8_t)n_layers;
	snprintf(out->note, sizeof(out->note), "%zu switches, %zu entry switches, %u VL%s "
		 "(%zu paths moved off VL 0), max %u hops%s", x.n, x.n_src, n_layers,
		 n_layers == 1 ? "" : "s", moved(&x), x.max_hops, x.coarse ?
		 ", one tree per destination switch (per-CA trees needed more VLs)" : "");
	goto out;
oom:
	snprintf(err, errlen, "out of memory for the paths of %zu switches and %zu CA ports",
		 g->n_sw, g->n_ca);
	rc = -ENOMEM;
out:
	dfsssp_free(&x);
	return rc;
}
