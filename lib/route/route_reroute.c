/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_reroute.c: incremental rerouting of a fat tree after cables
 * are cut (issue 23): the previous run's tables are kept, and only the
 * destinations that some switch forwarded over a cut cable are routed again.
 *
 * Why that is safe. The previous tables were up*-down* over the tree's
 * levels (hop distance from the switches with CAs), as the fat-tree engine
 * and its refinement make them. When cables go and no switch changes
 * level, every route that crossed no cut cable is still there and still
 * up*-down*. A destination that did cross one is routed again the way the
 * fat-tree engine routes: its ancestors (the switches that reach its switch
 * going only down) go down toward it, every other switch goes up, toward a
 * parent one up hop closer to an ancestor. A switch keeps its old entry
 * where that entry still does so (fewer LFT blocks to send); where not it
 * takes the least loaded such link, the load being the CA destinations each
 * port carries. Every route is then minimal up*-down* over one set of
 * levels: every pair is delivered, no route loops, and the channel
 * dependencies of one VL stay acyclic.
 *
 * When it says no (-EAGAIN, and why): another set of switches, CAs or LIDs
 * (a host or a switch came or went), a cable that appeared (it would carry
 * nothing until a full run), tables with VL layers (dfsssp's), a level that
 * changed, a switch with CAs that would need a down-up turn, or more than
 * half of the destinations to route again: the caller runs the engine in
 * full. Switches without an up*-down* way that no CA of theirs needs (a
 * switch LID, a spine cut from its pod) get a shortest path, as the
 * fat-tree engine gives them: management traffic.
 *
 * Cost: O(cut ports x LIDs) to find the destinations, O(switches + links)
 * for each of them, O(CAs) to count the loads of each switch that has to
 * choose; a copy of the tables, and a few arrays of one entry per switch. */
#include "autoconf.h"
#include "lib/route/route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAR 0xFF
#define REROUTE_AHEAD 8   /* switch rows read ahead (route_again) */

struct rr {
	const struct rt_graph *g;
	struct rt_lfts *l;
	uint16_t *level;
	int32_t *queue;
	uint16_t *hops;        /* shortest-path hops to d, for the switches without a
				* way up*-down* (no CA of theirs is concerned) */
	uint8_t *has_ca;
	uint8_t *in_a, *dist, *affected;
	uint32_t *load;        /* per global port index: CA destinations it carries,
				* counted for a switch the first time it chooses */
	uint8_t *load_ready;   /* per switch */
	size_t anc_of, hops_of;  /* the switch in_a/dist and hops are for (SIZE_MAX:
				  * none): a leaf's CA LIDs share them */
	/* Each switch's parents (up[up_first[s] .. up_first[s + 1])) and
	 * children (down[...]), one entry per cable, for ancestors(). */
	uint32_t *up_first, *down_first;
	int32_t *up, *down;
	long d_routed;         /* entries that went from no port to one, minus back */
};

/* Count switch u's loads from its row as it is now. */
static void ensure_load(struct rr *r, size_t u)
{
	const struct rt_graph *g = r->g;
	const uint8_t *row = rt_lfts_row(r->l, u);

	if (r->load_ready[u])
		return;
	r->load_ready[u] = 1;
	for (size_t c = 0; c < g->n_ca; c++) {
		uint8_t p = row[g->ca[c].lid];

		if (p != RT_NO_PORT && p != 0 && p <= g->sw[u].nports)
			r->load[rt_graph_port_index(g, u, p)]++;
	}
}

/* Set an entry, keeping the count of routed entries. */
static void set_entry(struct rr *r, uint8_t *row, unsigned lid, uint8_t port)
{
	r->d_routed += (port != RT_NO_PORT) - (row[lid] != RT_NO_PORT);
	row[lid] = port;
}

/* Same switches, CAs and LIDs, and no cable that prev_g lacks. */
static int same_nodes(const struct rt_graph *a, const struct rt_graph *b, char *err,
		      size_t errlen)
{
	if (a->n_sw != b->n_sw || a->n_ca != b->n_ca || a->max_lid != b->max_lid ||
	    a->n_ports != b->n_ports) {
		snprintf(err, errlen, "switches, CA ports or LIDs came or went");
		return -EAGAIN;
	}
	for (size_t s = 0; s < a->n_sw; s++)
		if (a->sw[s].guid != b->sw[s].guid || a->sw[s].lid != b->sw[s].lid ||
		    a->sw[s].nports != b->sw[s].nports) {
			snprintf(err, errlen, "switch %s changed", b->sw[s].desc);
			return -EAGAIN;
		}
	for (size_t c = 0; c < a->n_ca; c++)
		if (a->ca[c].guid != b->ca[c].guid || a->ca[c].lid != b->ca[c].lid ||
		    a->ca[c].sw != b->ca[c].sw || a->ca[c].sw_port != b->ca[c].sw_port) {
			snprintf(err, errlen, "CA port %s moved", b->ca[c].desc);
			return -EAGAIN;
		}
	for (size_t i = 0; i < b->n_ports; i++) {
		const struct rt_port *p = &a->ports[i], *q = &b->ports[i];

		if (q->kind != RT_PEER_NONE &&
		    (q->kind != p->kind || q->peer != p->peer || q->peer_port != p->peer_port)) {
			snprintf(err, errlen, "a cable appeared or moved");
			return -EAGAIN;
		}
	}
	return 0;
}

/* Levels from the switches with CAs; -EAGAIN when they make no tree. */
static int levels(const struct rt_graph *g, uint16_t *level, int32_t *order)
{
	int rc = rt_graph_tree_levels(g, level, order);

	return rc == -EINVAL ? -EAGAIN : rc;
}

/* The switch a port leads to over a cable of g, or -1. */
static int32_t peer_sw(const struct rt_graph *g, size_t s, unsigned p)
{
	const struct rt_port *pt;

	if (p == 0 || p > g->sw[s].nports)
		return -1;
	pt = rt_graph_port(g, s, p);
	return pt->kind == RT_PEER_SWITCH ? pt->peer : -1;
}

/* Ancestors of switch d (in_a: reach d going only down) and every other
 * switch's up hops to the nearest one (dist), as the fat-tree engine
 * finds them. */
static void ancestors(struct rr *r, size_t d)
{
	const struct rt_graph *g = r->g;
	size_t head = 0, tail = 0;

	memset(r->in_a, 0, g->n_sw);
	memset(r->dist, FAR, g->n_sw);
	r->in_a[d] = 1;
	r->dist[d] = 0;
	r->queue[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)r->queue[head++];

		for (uint32_t i = r->up_first[s]; i < r->up_first[s + 1]; i++)
			if (!r->in_a[r->up[i]]) {
				r->in_a[r->up[i]] = 1;
				r->dist[r->up[i]] = 0;
				r->queue[tail++] = r->up[i];
			}
	}
	head = 0;
	while (head < tail) {
		size_t s = (size_t)r->queue[head++];

		for (uint32_t i = r->down_first[s]; i < r->down_first[s + 1]; i++) {
			int32_t c = r->down[i];

			if (r->dist[c] == FAR) {
				r->dist[c] = (uint8_t)(r->dist[s] + 1);
				r->queue[tail++] = c;
			}
		}
	}
}

/* up_first/up and down_first/down from the levels. 0 or -ENOMEM. */
static int neighbours(struct rr *r)
{
	const struct rt_graph *g = r->g;
	size_t nu = 0, nd = 0;

	r->up_first = malloc((g->n_sw + 1) * sizeof(*r->up_first));
	r->down_first = malloc((g->n_sw + 1) * sizeof(*r->down_first));
	r->up = malloc((g->n_links + 1) * sizeof(*r->up));
	r->down = malloc((g->n_links + 1) * sizeof(*r->down));
	if (!r->up_first || !r->down_first || !r->up || !r->down)
		return -ENOMEM;
	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rt_link *lk = &g->links[g->sw[s].first_link];

		r->up_first[s] = (uint32_t)nu;
		r->down_first[s] = (uint32_t)nd;
		for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
			if (r->level[lk[i].peer] == r->level[s] + 1)
				r->up[nu++] = lk[i].peer;
			if (r->level[lk[i].peer] + 1 == r->level[s])
				r->down[nd++] = lk[i].peer;
		}
	}
	r->up_first[g->n_sw] = (uint32_t)nu;
	r->down_first[g->n_sw] = (uint32_t)nd;
	return 0;
}

/* Is port p of switch u a right way toward d's switch? */
static int good(const struct rr *r, size_t u, unsigned p)
{
	int32_t v = peer_sw(r->g, u, p);

	if (v < 0)
		return 0;
	if (r->in_a[u])  /* down, to an ancestor (or d itself) */
		return r->in_a[v] && r->level[v] + 1 == r->level[u];
	return r->level[v] == r->level[u] + 1 && r->dist[v] + 1 == r->dist[u];
}


/* A switch without an up*-down* way to d: a shortest path, its old entry
 * if that still is one. -EAGAIN when it has none. */
static int fall_back(struct rr *r, size_t u, unsigned lid, uint8_t *row, size_t *changed,
		     size_t d, char *err, size_t errlen)
{
	const struct rt_graph *g = r->g;
	uint8_t old = row[lid];
	int32_t v;

	if (r->hops_of != d) {
		rt_graph_hops(g, d, r->hops, r->queue);
		r->hops_of = d;
	}
	if (r->hops[u] == RT_NO_LEVEL) {
		if (old != RT_NO_PORT) {
			set_entry(r, row, lid, RT_NO_PORT);
			(*changed)++;
		}
		return 0;  /* cut off from d: nobody can route it */
	}
	if (old != RT_NO_PORT && (v = peer_sw(g, u, old)) >= 0 && r->hops[v] + 1 == r->hops[u])
		return 0;
	for (unsigned p = 1; p <= g->sw[u].nports; p++)
		if ((v = peer_sw(g, u, p)) >= 0 && r->hops[v] + 1 == r->hops[u]) {
			set_entry(r, row, lid, (uint8_t)p);
			(*changed)++;
			return 0;
		}
	snprintf(err, errlen, "%s has no way to LID %u", g->sw[u].desc, lid);
	return -EAGAIN;
}

/* Route `lid`, held at switch d, again. -EAGAIN when a switch with CAs
 * would need a down-up turn for a CA destination. */
static int route_again(struct rr *r, unsigned lid, size_t d, int is_ca, size_t *changed,
		       char *err, size_t errlen)
{
	const struct rt_graph *g = r->g;
	int rc;

	if (r->anc_of != d) {
		ancestors(r, d);
		r->anc_of = d;
	}
	for (size_t u = 0; u < g->n_sw; u++) {
		uint8_t *row = rt_lfts_row(r->l, u), old, best = 0;
		uint32_t best_load = 0;

		/* One entry per row, each a cache miss: ask for the ones a
		 * few switches ahead now. */
		if (u + REROUTE_AHEAD < g->n_sw)
			__builtin_prefetch(rt_lfts_row(r->l, u + REROUTE_AHEAD) + lid);
		old = row[lid];
		if (u == d)
			continue;
		if (r->level[u] == RT_NO_LEVEL) {
			/* Out of the tree (no CA below it): only its old way
			 * can stand, if its cable is still there. */
			if (old != RT_NO_PORT && old != 0 && peer_sw(g, u, old) < 0 &&
			    (old > g->sw[u].nports || rt_graph_port(g, u, old)->kind == RT_PEER_NONE)) {
				snprintf(err, errlen, "%s is out of the tree and lost its way to "
					 "LID %u", g->sw[u].desc, lid);
				return -EAGAIN;
			}
			continue;
		}
		if (old != RT_NO_PORT && good(r, u, old))
			continue;
		if (r->dist[u] == FAR) {
			if (is_ca && r->has_ca[u]) {
				snprintf(err, errlen, "%s would need a down-up turn to reach LID %u",
					 g->sw[u].desc, lid);
				return -EAGAIN;
			}
			if ((rc = fall_back(r, u, lid, row, changed, d, err, errlen)) < 0)
				return rc;
			continue;
		}
		ensure_load(r, u);
		for (unsigned p = 1; p <= g->sw[u].nports; p++) {
			uint32_t ld = r->load[rt_graph_port_index(g, u, p)];

			if (good(r, u, p) && (!best || ld < best_load)) {
				best = (uint8_t)p;
				best_load = ld;
			}
		}
		if (!best) {
			snprintf(err, errlen, "%s has no way to LID %u", g->sw[u].desc, lid);
			return -EAGAIN;
		}
		if (old != RT_NO_PORT && old != 0 && old <= g->sw[u].nports && is_ca)
			r->load[rt_graph_port_index(g, u, old)]--;
		if (is_ca)
			r->load[rt_graph_port_index(g, u, best)]++;
		set_entry(r, row, lid, best);
		(*changed)++;
	}
	return 0;
}

static void rr_free(struct rr *r)
{
	free(r->level);
	free(r->queue);
	free(r->hops);
	free(r->has_ca);
	free(r->in_a);
	free(r->dist);
	free(r->affected);
	free(r->load);
	free(r->load_ready);
	free(r->up_first);
	free(r->down_first);
	free(r->up);
	free(r->down);
}

int rt_reroute(const struct rt_graph *prev_g, const struct rt_lfts *prev, const struct rt_graph *g,
	       struct rt_lfts *out, struct rt_reroute_stats *st, char *err, size_t errlen)
{
	struct rr r = { .g = g, .l = out, .anc_of = SIZE_MAX, .hops_of = SIZE_MAX };
	size_t n = g->n_sw + 1, lids = (size_t)g->max_lid + 1, n_aff = 0;
	uint16_t *prev_level = NULL;
	int rc;

	memset(st, 0, sizeof(*st));
	if (out->n_sw != g->n_sw || out->max_lid != g->max_lid || prev->n_sw != prev_g->n_sw ||
	    prev->max_lid != prev_g->max_lid) {
		snprintf(err, errlen, "the tables were not made for these graphs");
		return -EINVAL;
	}
	if ((rc = same_nodes(prev_g, g, err, errlen)) < 0)
		return rc;
	if (prev->sl || prev->n_vls > 1) {
		snprintf(err, errlen, "the tables use VL layers");
		return -EAGAIN;
	}
	r.level = malloc(n * sizeof(*r.level));
	prev_level = malloc(n * sizeof(*prev_level));
	r.queue = malloc(n * sizeof(*r.queue));
	r.in_a = malloc(n);
	r.dist = malloc(n);
	r.affected = calloc(lids, 1);
	r.load = calloc(g->n_ports + 1, sizeof(*r.load));
	r.hops = malloc(n * sizeof(*r.hops));
	r.has_ca = calloc(n, 1);
	r.load_ready = calloc(n, 1);
	rc = -ENOMEM;
	if (!r.level || !prev_level || !r.queue || !r.in_a || !r.dist || !r.affected || !r.load ||
	    !r.hops || !r.has_ca || !r.load_ready)
		goto out;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			r.has_ca[g->ca[c].sw] = 1;
	if ((rc = levels(prev_g, prev_level, r.queue)) < 0 ||
	    (rc = levels(g, r.level, r.queue)) < 0) {
		if (rc == -EAGAIN)
			snprintf(err, errlen, "not a tree of strict levels");
		goto out;
	}
	if (memcmp(prev_level, r.level, g->n_sw * sizeof(*r.level)) != 0) {
		snprintf(err, errlen, "a switch changed level");
		rc = -EAGAIN;
		goto out;
	}
	if ((rc = neighbours(&r)) < 0)
		goto out;
	memcpy(out->port, prev->port, g->n_sw * lids);
	/* The destinations some switch sent over a cable that is gone. */
	for (size_t s = 0; s < g->n_sw; s++)
		for (unsigned p = 1; p <= g->sw[s].nports; p++) {
			const uint8_t *row = rt_lfts_row(out, s);

			if (rt_graph_port(prev_g, s, p)->kind != RT_PEER_SWITCH ||
			    rt_graph_port(g, s, p)->kind == RT_PEER_SWITCH)
				continue;
			st->cut++;
			for (size_t lid = 1; lid < lids; lid++)
				if (row[lid] == p && !r.affected[lid]) {
					r.affected[lid] = 1;
					n_aff++;
				}
		}
	if (n_aff * 2 > lids) {
		snprintf(err, errlen, "%zu of %zu destinations crossed the cut cables", n_aff, lids);
		rc = -EAGAIN;
		goto out;
	}
	for (size_t lid = 1; lid < lids && rc != -EAGAIN; lid++) {
		int32_t d = rt_graph_lid_switch(g, (unsigned)lid), c = -1;

		if (!r.affected[lid])
			continue;
		if (d < 0 && (c = rt_graph_lid_ca(g, (unsigned)lid)) >= 0)
			d = g->ca[c].sw;
		if (d < 0)
			continue;
		rc = route_again(&r, (unsigned)lid, (size_t)d, c >= 0, &st->entries, err, errlen);
		if (rc < 0)
			goto out;
		st->dests++;
	}
	out->n_vls = 1;
	out->n_routed = (size_t)((long)prev->n_routed + r.d_routed);
	out->n_unreachable = (size_t)((long)prev->n_unreachable - r.d_routed);
	snprintf(out->note, sizeof(out->note), "rerouted %zu destinations (%zu entries) after %zu "
		 "cut cable end%s; the other routes kept", st->dests, st->entries, st->cut,
		 st->cut == 1 ? "" : "s");
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(prev_level);
	rr_free(&r);
	return rc;
}
