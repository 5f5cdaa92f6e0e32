/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_ar.c: adaptive routing groups (lib/ar/route_ar.h) on
 * fat trees and tori made by loom-fabgen's own builders and on small
 * hand-built fabrics: what goes in a group (shortest-path ports, parallel
 * links, the static port always), deduplication and the capacity, and the
 * two judges: the dependency graph with every member and the EBB when flows
 * spread over the groups. Hop counts are found here independently of the
 * module, by one breadth-first search per switch. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"

static const struct rt_metrics_opts opts = { .max_shifts = 16, .n_random = 2, .seed = 7,
					     .n_bisect = 8 };

/* ---- fabrics ----------------------------------------------------------------- */

/* A fat tree from loom-fabgen's builder with `cut` switch links cut. */
static struct fab *fattree(int levels, int radix, int hosts, int cut)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
		.radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_fabgen(&fg, cut);
}

static struct fab *torus2(int x, int y)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2,
		.dims = { x, y }, .hosts_per_switch = 1 }), 0);
	return fixture_fabgen(&fg, 0);
}

#define LEAF(i) (0x1000ULL + 0x100ULL * (i))
#define SPINE(j) (0x2000ULL + 0x100ULL * (j))
#define HOST(n) (0x100000ULL + 0x100ULL * (n))

/* 4 leaves, 2 spines, every leaf cabled twice to every spine: leaf i
 * ports 4,5 to spine 0 and 6,7 to spine 1, spine ports 2i+1, 2i+2 to leaf
 * i. Leaf 0 holds 3 hosts (ports 1-3), the others 2 (ports 1-2). */
static struct fab *doubled_tree(void)
{
	struct fab *f = fab_new("ib0");
	unsigned n = 0;

	ck_assert_ptr_nonnull(f);
	for (unsigned j = 0; j < 2; j++)
		fixture_node(f, IBT_NODE_SWITCH, SPINE(j), 8, "spine", 0);
	for (unsigned i = 0; i < 4; i++) {
		fixture_node(f, IBT_NODE_SWITCH, LEAF(i), 8, "leaf", 0);
		for (unsigned c = 0; c < (i == 0 ? 3u : 2u); c++, n++) {
			fixture_node(f, IBT_NODE_CA, HOST(n), 1, "host", 0);
			fixture_link(f, LEAF(i), 1 + c, HOST(n), 1);
		}
		for (unsigned j = 0; j < 2; j++)
			for (unsigned k = 0; k < 2; k++)
				fixture_link(f, LEAF(i), 4 + 2 * j + k, SPINE(j), 2 * i + 1 + k);
	}
	return f;
}

/* A ring of 4 switches (LIDs 1-4), CA i (LID 5 + i) on switch i port 1,
 * switch i port 2 cabled to switch i + 1's port 3; `doubled`: switches 3
 * and 0 cabled twice, the second cable on port 4 of both. */
static struct fab *ring4_cabled(int doubled)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < 4; i++) {
		char desc[16];

		snprintf(desc, sizeof(desc), "ring-%u", i);
		fixture_node(f, IBT_NODE_SWITCH, LEAF(i), 4, desc, (uint16_t)(1 + i));
		fixture_node(f, IBT_NODE_CA, HOST(i), 1, "host", (uint16_t)(5 + i));
		fixture_link(f, LEAF(i), 1, HOST(i), 1);
	}
	for (unsigned i = 0; i < 4; i++)
		fixture_link(f, LEAF(i), 2, LEAF((i + 1) % 4), 3);
	if (doubled)
		fixture_link(f, LEAF(3), 4, LEAF(0), 4);
	return f;
}

static struct fab *ring4(void)
{
	return ring4_cabled(0);
}

/* Tables for ring4 made by hand: one hop clockwise (port 2) or counter-
 * clockwise (port 3) as the neighbour lies; two hops clockwise from
 * switches 0 and 1, counter-clockwise from 2 and 3. The 2-hop paths then
 * chain no more than two links in either direction: no cycle. */
static int ring4_tables(const struct rt_graph *g, struct rt_lfts *l, char *err, size_t errlen)
{
	for (unsigned s = 0; s < 4; s++)
		for (unsigned d = 0; d < 4; d++) {
			unsigned diff = (d + 4 - s) % 4;
			uint8_t p = diff == 0 ? 1 : diff == 1 ? 2 : diff == 3 ? 3 : s < 2 ? 2 : 3;

			rt_lfts_set(l, s, 5 + d, p);
			rt_lfts_set(l, s, 1 + d, diff == 0 ? 0 : p);
		}
	l->n_vls = 1;
	return 0;
}

/* ring4_tables, but switch 0 sends to CA 1 (LID 6) the long way round,
 * through switches 3 and 2: a detour of 3 hops where 1 would do. */
static int ring4_detour(const struct rt_graph *g, struct rt_lfts *l, char *err, size_t errlen)
{
	ring4_tables(g, l, err, errlen);
	rt_lfts_set(l, 0, 6, 3);
	return 0;
}

/* ---- helpers ------------------------------------------------------------------ */

static struct routed route(struct fab *f, rt_route_fn engine)
{
	struct routed r = fixture_route(f, engine, &opts);

	ck_assert_msg(r.rc == 0, "route: %s", r.err);
	fixture_assert_all_delivered(&r.m, r.g->n_ca);
	return r;
}

static struct rt_ar *ar_of(const struct routed *r, enum rt_ar_mode mode, uint32_t cap)
{
	char err[256] = "";
	struct rt_ar *ar = rt_ar_new(r->g, r->l, mode, cap, err, sizeof(err));

	ck_assert_msg(ar != NULL, "rt_ar_new: %s", err);
	return ar;
}

/* hops[d * n_sw + s]: switch hops from s to d, -1 if none. */
static int *all_hops(const struct rt_graph *g)
{
	int *hops = malloc(g->n_sw * g->n_sw * sizeof(*hops));
	size_t *q = malloc(g->n_sw * sizeof(*q));

	ck_assert_ptr_nonnull(hops);
	ck_assert_ptr_nonnull(q);
	for (size_t d = 0; d < g->n_sw; d++) {
		int *h = hops + d * g->n_sw;
		size_t head = 0, tail = 0;

		for (size_t s = 0; s < g->n_sw; s++)
			h[s] = -1;
		h[d] = 0;
		q[tail++] = d;
		while (head < tail) {
			size_t u = q[head++];

			for (unsigned p = 1; p <= g->sw[u].nports; p++) {
				const struct rt_port *pt = rt_graph_port(g, u, p);

				if (pt->kind == RT_PEER_SWITCH && h[pt->peer] < 0) {
					h[pt->peer] = h[u] + 1;
					q[tail++] = (size_t)pt->peer;
				}
			}
		}
	}
	free(q);
	return hops;
}

/* Is port p of switch s on a shortest path to CA c? */
static int shortest(const struct rt_graph *g, const int *hops, size_t s, unsigned p, size_t c)
{
	const struct rt_port *pt = rt_graph_port(g, s, p);
	const int *h = hops + (size_t)g->ca[c].sw * g->n_sw;

	if (pt->kind == RT_PEER_CA)
		return pt->peer == (int32_t)c;
	return pt->kind == RT_PEER_SWITCH && h[s] > 0 && h[pt->peer] == h[s] - 1;
}

/* Every (switch, CA LID) entry of TREE groups: the default port is the
 * static one and a member; when it is on a shortest path, so is every
 * member; when not (counted), the members are its parallel links. */
static void assert_tree_members(const struct routed *r, const struct rt_ar *ar)
{
	const struct rt_graph *g = r->g;
	int *hops = all_hops(g);
	size_t longer = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		for (size_t c = 0; c < g->n_ca; c++) {
			unsigned lid = g->ca[c].lid;
			uint8_t p = rt_lfts_get(r->l, s, lid);
			struct rt_ar_ports m;
			unsigned k = rt_ar_members(ar, s, lid, &m);
			int on = shortest(g, hops, s, p, c);

			ck_assert_uint_eq(ar->sw[s].port[lid], p);
			ck_assert_msg(rt_ar_ports_has(&m, p), "switch %zu LID %u: static port %u "
				      "not in its set", s, lid, p);
			longer += !on && rt_graph_port(g, s, p)->kind == RT_PEER_SWITCH;
			for (unsigned q = 1; q <= g->sw[s].nports; q++) {
				if (!rt_ar_ports_has(&m, q))
					continue;
				if (on)
					ck_assert_msg(shortest(g, hops, s, q, c), "switch %zu LID "
						      "%u: member %u is no shortest-path port", s,
						      lid, q);
				else
					ck_assert_int_eq(rt_graph_port(g, s, q)->peer,
							 rt_graph_port(g, s, p)->peer);
			}
			ck_assert_uint_eq(k > 1, ar->sw[s].group[lid] != RT_AR_NO_GROUP);
		}
	ck_assert_uint_eq(ar->n_longer, longer);
	free(hops);
}

static int same_set(const struct rt_ar_ports *a, const struct rt_ar_ports *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* ---- what goes in a group ----------------------------------------------------- */

START_TEST(tree_members_are_shortest_path_ports_on_a_full_and_a_cut_fat_tree)
{
	struct routed full = route(fattree(3, 8, 128, 0), rt_route_ftree);
	struct routed cut = route(fattree(3, 8, 128, 12), rt_route_loom);
	struct rt_ar *a = ar_of(&full, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *b = ar_of(&cut, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);

	assert_tree_members(&full, a);
	assert_tree_members(&cut, b);
	ck_assert_uint_eq(a->n_longer, 0);
	ck_assert_uint_gt(b->n_alt, 0);
	printf("cut 3-level tree: %s; %zu AR entries, %zu static ports off the shortest "
	       "paths, at most %u groups per switch\n", cut.l->note, b->n_alt, b->n_longer,
	       b->max_groups);
	rt_ar_free(a);
	rt_ar_free(b);
	fixture_routed_free(&full);
	fixture_routed_free(&cut);
}
END_TEST

/* The engine chose a longer path: the shortest ports are not as good as
 * it (another length, another turn), only the parallel cables of its own
 * are. */
START_TEST(a_static_detour_keeps_only_its_parallel_links_in_tree_mode)
{
	struct routed r = route(ring4_cabled(1), ring4_detour);
	struct rt_ar *ar = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar_ports m, lag = { { 0 } };

	ck_assert_uint_eq(r.m.max_hops, 3);
	assert_tree_members(&r, ar);
	ck_assert_uint_eq(ar->n_longer, 1);
	rt_ar_ports_add(&lag, 3);
	rt_ar_ports_add(&lag, 4);
	ck_assert_uint_eq(rt_ar_members(ar, 0, 6, &m), 2);
	ck_assert(same_set(&m, &lag));
	/* CA 3 (LID 8) is one hop back from switch 0, on the same cables: its
	 * shortest ports are that very pair, so they share the group. */
	ck_assert_uint_eq(ar->sw[0].group[8], ar->sw[0].group[6]);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(default_port_is_the_static_port_and_a_member_in_both_modes)
{
	struct routed r = route(doubled_tree(), rt_route_minhop);

	for (int mode = RT_AR_LAG; mode <= RT_AR_TREE; mode++) {
		struct rt_ar *ar = ar_of(&r, (enum rt_ar_mode)mode, RT_AR_DEFAULT_CAPACITY);

		for (size_t s = 0; s < r.g->n_sw; s++)
			for (unsigned lid = 0; lid <= r.g->max_lid; lid++) {
				uint8_t p = rt_lfts_get(r.l, s, lid);
				struct rt_ar_ports m;
				unsigned k = rt_ar_members(ar, s, lid, &m);

				ck_assert_uint_eq(ar->sw[s].port[lid], p);
				if (p == RT_NO_PORT) {
					ck_assert_uint_eq(k, 0);
					continue;
				}
				ck_assert(rt_ar_ports_has(&m, p));
				/* Switch LIDs keep their static port alone. */
				if (rt_graph_lid_switch(r.g, lid) >= 0)
					ck_assert_uint_eq(k, 1);
			}
		rt_ar_free(ar);
	}
	fixture_routed_free(&r);
}
END_TEST

START_TEST(a_full_2_level_tree_gives_each_leaf_one_group_of_all_its_up_ports)
{
	struct routed r = route(fattree(2, 8, 32, 0), rt_route_ftree);
	struct rt_ar *ar = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	const struct rt_graph *g = r.g;
	struct rt_ar_ports up = { { 0 } };
	size_t leaves = 0;

	for (unsigned p = 5; p <= 8; p++)
		rt_ar_ports_add(&up, p);
	for (size_t s = 0; s < g->n_sw; s++) {
		int leaf = strstr(g->sw[s].desc, "leaf") != NULL;

		/* Spines go down on one cable: nothing to choose. */
		ck_assert_uint_eq(ar->sw[s].n_groups, leaf ? 1 : 0);
		if (!leaf)
			continue;
		leaves++;
		ck_assert_msg(same_set(&ar->sw[s].groups[0], &up), "%s", g->sw[s].desc);
		for (size_t c = 0; c < g->n_ca; c++) {
			unsigned lid = g->ca[c].lid;
			struct rt_ar_ports m;

			rt_ar_members(ar, s, lid, &m);
			if (g->ca[c].sw == (int32_t)s) {
				ck_assert_uint_eq(ar->sw[s].group[lid], RT_AR_NO_GROUP);
				ck_assert_uint_eq(rt_ar_ports_count(&m), 1);
			} else {
				ck_assert_uint_eq(ar->sw[s].group[lid], 0);
				ck_assert(same_set(&m, &up));
			}
		}
	}
	ck_assert_uint_eq(leaves, 8);
	ck_assert_uint_eq(ar->n_alt, 8 * (32 - 4));
	ck_assert_uint_eq(ar->max_groups, 1);
	ck_assert_uint_eq(ar->n_dropped, 0);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(lids_with_the_same_set_share_one_group_and_no_set_is_held_twice)
{
	struct routed r = route(fattree(3, 8, 128, 12), rt_route_loom);
	struct rt_ar *ar = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	const struct rt_graph *g = r.g;
	size_t multi = 0;

	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rt_ar_switch *sw = &ar->sw[s];
		uint8_t *used = calloc(sw->n_groups + 1, 1);

		multi += sw->n_groups > 1;
		for (uint32_t i = 0; i < sw->n_groups; i++) {
			ck_assert_uint_ge(rt_ar_ports_count(&sw->groups[i]), 2);
			for (uint32_t j = i + 1; j < sw->n_groups; j++)
				ck_assert(!same_set(&sw->groups[i], &sw->groups[j]));
		}
		for (size_t a = 0; a < g->n_ca; a++) {
			struct rt_ar_ports ma, mb;
			unsigned la = g->ca[a].lid;

			if (sw->group[la] != RT_AR_NO_GROUP)
				used[sw->group[la]] = 1;
			if (rt_ar_members(ar, s, la, &ma) < 2)
				continue;
			for (size_t b = a + 1; b < g->n_ca; b++)
				if (rt_ar_members(ar, s, g->ca[b].lid, &mb) > 1 &&
				    same_set(&ma, &mb))
					ck_assert_uint_eq(sw->group[la], sw->group[g->ca[b].lid]);
		}
		for (uint32_t i = 0; i < sw->n_groups; i++)
			ck_assert_msg(used[i], "switch %zu group %u serves no LID", s, i);
		free(used);
	}
	/* The cuts leave some switch with several distinct sets to share. */
	ck_assert_uint_gt(multi, 0);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

/* ---- parallel links and capacity ---------------------------------------------------- */

/* The doubled tree's expected drops with capacity 1: a spine keeps the
 * group of leaf 0 (3 LIDs, the most) and drops the 2 LIDs of each other
 * leaf; a leaf keeps the spine its static ports use most. */
START_TEST(capacity_keeps_the_most_used_groups_and_counts_the_lids_dropped)
{
	struct routed r = route(doubled_tree(), rt_route_minhop);
	const struct rt_graph *g = r.g;
	struct rt_ar *lag = ar_of(&r, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *one = ar_of(&r, RT_AR_LAG, 1);
	struct rt_ar *none = ar_of(&r, RT_AR_TREE, 0);
	struct rt_ar *tree = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	size_t expect_dropped = 0;

	ck_assert_uint_eq(g->n_ca, 9);
	for (size_t s = 0; s < g->n_sw; s++) {
		int spine = strstr(g->sw[s].desc, "spine") != NULL;
		unsigned via[2] = { 0, 0 };

		if (spine) {
			struct rt_ar_ports leaf0 = { { 0 } };

			rt_ar_ports_add(&leaf0, 1);
			rt_ar_ports_add(&leaf0, 2);
			ck_assert_uint_eq(lag->sw[s].n_groups, 4);
			ck_assert_uint_eq(one->sw[s].n_groups, 1);
			ck_assert(same_set(&one->sw[s].groups[0], &leaf0));
			ck_assert_uint_eq(one->sw[s].n_alt, 3);
			ck_assert_uint_eq(one->sw[s].n_dropped, 6);
			expect_dropped += 6;
			continue;
		}
		/* A leaf: its remote LIDs go up to spine 0 (ports 4, 5) or 1. */
		for (size_t c = 0; c < g->n_ca; c++) {
			uint8_t p = rt_lfts_get(r.l, s, g->ca[c].lid);

			if (g->ca[c].sw != (int32_t)s)
				via[p >= 6]++;
		}
		ck_assert_uint_eq(lag->sw[s].n_groups, (via[0] > 0) + (via[1] > 0));
		ck_assert_uint_eq(one->sw[s].n_groups, 1);
		ck_assert_uint_eq(one->sw[s].n_dropped, via[0] < via[1] ? via[0] : via[1]);
		expect_dropped += via[0] < via[1] ? via[0] : via[1];
		/* TREE: all four up ports, both spines' parallel links, one group. */
		ck_assert_uint_eq(tree->sw[s].n_groups, 1);
		ck_assert_uint_eq(rt_ar_ports_count(&tree->sw[s].groups[0]), 4);
	}
	for (size_t s = 0; s < g->n_sw; s++)
		ck_assert_uint_le(one->sw[s].n_groups, 1);
	ck_assert_uint_eq(one->n_dropped, expect_dropped);
	ck_assert_uint_eq(one->n_alt + one->n_dropped, lag->n_alt);
	/* Dropped LIDs are forwarded statically: one port, the table's. */
	for (size_t s = 0; s < g->n_sw; s++)
		for (size_t c = 0; c < g->n_ca; c++) {
			unsigned lid = g->ca[c].lid;
			struct rt_ar_ports m;

			if (lag->sw[s].group[lid] != RT_AR_NO_GROUP &&
			    one->sw[s].group[lid] == RT_AR_NO_GROUP) {
				ck_assert_uint_eq(rt_ar_members(one, s, lid, &m), 1);
				ck_assert(rt_ar_ports_has(&m, rt_lfts_get(r.l, s, lid)));
			}
		}
	/* Capacity 0: no group anywhere, every set of several ports dropped. */
	ck_assert_uint_eq(none->n_groups, 0);
	ck_assert_uint_eq(none->n_alt, 0);
	ck_assert_uint_eq(none->n_dropped, tree->n_alt);
	rt_ar_free(lag);
	rt_ar_free(one);
	rt_ar_free(none);
	rt_ar_free(tree);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(bad_arguments_are_refused_with_a_reason)
{
	struct routed r = route(ring4(), rt_route_minhop);
	char err[256] = "";
	enum rt_ar_mode mode;

	ck_assert_ptr_null(rt_ar_new(r.g, r.l, RT_AR_TREE, RT_AR_MAX_CAPACITY + 1, err,
				     sizeof(err)));
	ck_assert_msg(strstr(err, "capacity"), "%s", err);
	ck_assert_ptr_null(rt_ar_new(r.g, r.l, (enum rt_ar_mode)7, 1, err, sizeof(err)));
	ck_assert_msg(strstr(err, "mode"), "%s", err);
	ck_assert_int_eq(rt_ar_mode_parse("lag", &mode), 0);
	ck_assert_int_eq(mode, RT_AR_LAG);
	ck_assert_str_eq(rt_ar_mode_name(RT_AR_TREE), "tree");
	ck_assert_int_eq(rt_ar_mode_parse("ecmp", &mode), -EINVAL);
	fixture_routed_free(&r);
}
END_TEST

/* ---- deadlock freedom ---------------------------------------------------------------- */

START_TEST(every_member_together_is_deadlock_free_on_fat_trees_routed_up_down)
{
	struct routed full = route(fattree(3, 8, 128, 0), rt_route_ftree);
	struct routed cut = route(fattree(3, 8, 128, 12), rt_route_loom);
	struct routed two = route(doubled_tree(), rt_route_ftree);
	struct rt_ar *a = ar_of(&full, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *b = ar_of(&cut, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *c = ar_of(&two, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *single = ar_of(&full, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	size_t edges = 0, vls = 0, static_edges = 0;
	char err[512] = "";

	ck_assert_msg(rt_ar_cdg_check(full.g, full.l, a, &edges, &vls, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_gt(edges, full.m.cdg_edges);  /* the alternatives add some */
	ck_assert_uint_eq(vls, 1);
	ck_assert_msg(rt_ar_cdg_check(cut.g, cut.l, b, NULL, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(rt_ar_cdg_check(two.g, two.l, c, NULL, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	/* No parallel links: LAG makes no group, and the graph is the static
	 * one of route_metrics, edge for edge. */
	ck_assert_uint_eq(single->n_alt, 0);
	ck_assert_int_eq(rt_ar_cdg_check(full.g, full.l, single, &static_edges, NULL, err,
					 sizeof(err)), 0);
	ck_assert_uint_eq(static_edges, full.m.cdg_edges);
	rt_ar_free(a);
	rt_ar_free(b);
	rt_ar_free(c);
	rt_ar_free(single);
	fixture_routed_free(&full);
	fixture_routed_free(&cut);
	fixture_routed_free(&two);
}
END_TEST

START_TEST(tree_alternatives_close_a_cycle_on_a_ring_whose_tables_are_acyclic)
{
	struct routed r = route(ring4(), ring4_tables);
	struct rt_ar *tree = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *lag = ar_of(&r, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	char err[512] = "";
	size_t arrows = 0;

	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	/* Each switch may reach the opposite one either way round. */
	ck_assert_uint_eq(tree->n_alt, 4);
	ck_assert_int_eq(rt_ar_cdg_check(r.g, r.l, lag, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(rt_ar_cdg_check(r.g, r.l, tree, NULL, NULL, err, sizeof(err)),
			 -EDEADLK);
	/* The cycle is the four links one way round, named, back to the first. */
	ck_assert_msg(strncmp(err, "VL 0: 'ring-", 12) == 0, "%s", err);
	for (const char *p = err; (p = strstr(p, " -> ")); p++)
		arrows++;
	ck_assert_msg(arrows == 4, "%s", err);
	rt_ar_free(tree);
	rt_ar_free(lag);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(tree_alternatives_on_a_torus_made_deadlock_free_by_vls_deadlock_again)
{
	struct routed r = route(torus2(4, 4), rt_route_dfsssp);
	struct rt_ar *tree = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *lag = ar_of(&r, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	char err[512] = "";

	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	ck_assert_int_eq(rt_ar_cdg_check(r.g, r.l, lag, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(rt_ar_cdg_check(r.g, r.l, tree, NULL, NULL, err, sizeof(err)),
			 -EDEADLK);
	ck_assert_msg(strncmp(err, "VL ", 3) == 0 && strstr(err, "'sw-"), "%s", err);
	printf("4x4 torus, dfsssp on %u VLs, TREE groups: %s\n", r.l->n_vls, err);
	rt_ar_free(tree);
	rt_ar_free(lag);
	fixture_routed_free(&r);
}
END_TEST

/* ---- bandwidth ------------------------------------------------------------------ */

START_TEST(ebb_with_single_port_groups_equals_the_static_ebb_exactly)
{
	struct routed full = route(fattree(3, 8, 128, 0), rt_route_ftree);
	struct routed tor = route(torus2(4, 4), rt_route_dfsssp);
	struct rt_ar *lag = ar_of(&full, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *capped = ar_of(&full, RT_AR_TREE, 0);
	struct rt_ar *tlag = ar_of(&tor, RT_AR_LAG, RT_AR_DEFAULT_CAPACITY);
	double e1 = -1, e2 = -1, e3 = -1;

	ck_assert_uint_eq(lag->n_alt, 0);
	ck_assert_uint_eq(capped->n_alt, 0);
	ck_assert_uint_eq(full.m.bisections, opts.n_bisect);
	ck_assert_int_eq(rt_ar_ebb(full.g, lag, &opts, &e1), 0);
	ck_assert_int_eq(rt_ar_ebb(full.g, capped, &opts, &e2), 0);
	ck_assert_int_eq(rt_ar_ebb(tor.g, tlag, &opts, &e3), 0);
	ck_assert_msg(e1 == full.m.ebb && e2 == full.m.ebb, "static %.17g, AR %.17g / %.17g",
		      full.m.ebb, e1, e2);
	ck_assert_msg(e3 == tor.m.ebb, "torus static %.17g, AR %.17g", tor.m.ebb, e3);
	ck_assert(full.m.ebb > 0.0 && full.m.ebb < 1.0);
	rt_ar_free(lag);
	rt_ar_free(capped);
	rt_ar_free(tlag);
	fixture_routed_free(&full);
	fixture_routed_free(&tor);
}
END_TEST

START_TEST(ebb_with_tree_groups_is_at_least_the_static_ebb_on_a_full_fat_tree)
{
	struct routed r2 = route(fattree(2, 16, 128, 0), rt_route_ftree);
	struct routed r3 = route(fattree(3, 8, 128, 0), rt_route_ftree);
	struct rt_ar *a2 = ar_of(&r2, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *a3 = ar_of(&r3, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	double e2 = -1, e3 = -1;

	ck_assert_int_eq(rt_ar_ebb(r2.g, a2, &opts, &e2), 0);
	ck_assert_int_eq(rt_ar_ebb(r3.g, a3, &opts, &e3), 0);
	printf("EBB 2-level radix 16: static %.3f, AR %.3f; 3-level radix 8: static %.3f, "
	       "AR %.3f\n", r2.m.ebb, e2, r3.m.ebb, e3);
	ck_assert_double_ge(e2, r2.m.ebb);
	ck_assert_double_ge(e3, r3.m.ebb);
	ck_assert_double_le(e2, 1.0);
	ck_assert_double_le(e3, 1.0);
	/* On a 2-level tree every up port is equal: spread evenly, a leaf's
	 * flows share its uplinks fairly and only the spines' down links can
	 * be oversubscribed: strictly better than one fixed path. */
	ck_assert_double_gt(e2, r2.m.ebb);
	rt_ar_free(a2);
	rt_ar_free(a3);
	fixture_routed_free(&r2);
	fixture_routed_free(&r3);
}
END_TEST

/* A 3-level tree of radix 16 (1024 hosts; radix 12 for quick runs): exact
 * counts of a full tree, and the time each part takes, printed for the
 * record and never asserted. */
START_TEST(a_full_3_level_tree_has_one_group_per_leaf_and_middle_switch)
{
	const int quick = getenv("LOOM_TEST_QUICK") && *getenv("LOOM_TEST_QUICK");
	size_t k = quick ? 12 : 16, h = k / 2, n_ca = k * k * k / 4;
	struct routed r = route(fattree(3, (int)k, (int)n_ca, 0), rt_route_ftree);
	struct rt_ar *ar;
	char err[512] = "";
	double t0, t1, t2, t3, ebb;

	t0 = fixture_now();
	ar = ar_of(&r, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY);
	t1 = fixture_now();
	ck_assert_msg(rt_ar_cdg_check(r.g, r.l, ar, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
	t2 = fixture_now();
	ck_assert_int_eq(rt_ar_ebb(r.g, ar, &opts, &ebb), 0);
	t3 = fixture_now();
	printf("AR on %zu hosts, %zu switches: groups %.3f s, CDG %.3f s, EBB %.3f s "
	       "(%u bisections); EBB static %.3f, AR %.3f\n", r.g->n_ca, r.g->n_sw, t1 - t0,
	       t2 - t1, t3 - t2, opts.n_bisect, r.m.ebb, ebb);
	/* Leaves: every remote LID; middle switches: every LID of another pod. */
	ck_assert_uint_eq(ar->n_alt, k * h * (n_ca - h) + k * h * (n_ca - h * h));
	ck_assert_uint_eq(ar->max_groups, 1);
	ck_assert_uint_eq(ar->n_groups, 2 * k * h);
	ck_assert_uint_eq(ar->n_longer, 0);
	ck_assert_uint_eq(ar->n_dropped, 0);
	ck_assert_double_ge(ebb, r.m.ebb);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_ar");
	TCase *tc = tcase_create("route_ar");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tree_members_are_shortest_path_ports_on_a_full_and_a_cut_fat_tree);
	tcase_add_test(tc, a_static_detour_keeps_only_its_parallel_links_in_tree_mode);
	tcase_add_test(tc, default_port_is_the_static_port_and_a_member_in_both_modes);
	tcase_add_test(tc, a_full_2_level_tree_gives_each_leaf_one_group_of_all_its_up_ports);
	tcase_add_test(tc, lids_with_the_same_set_share_one_group_and_no_set_is_held_twice);
	tcase_add_test(tc, capacity_keeps_the_most_used_groups_and_counts_the_lids_dropped);
	tcase_add_test(tc, bad_arguments_are_refused_with_a_reason);
	tcase_add_test(tc, every_member_together_is_deadlock_free_on_fat_trees_routed_up_down);
	tcase_add_test(tc, tree_alternatives_close_a_cycle_on_a_ring_whose_tables_are_acyclic);
	tcase_add_test(tc, tree_alternatives_on_a_torus_made_deadlock_free_by_vls_deadlock_again);
	tcase_add_test(tc, ebb_with_single_port_groups_equals_the_static_ebb_exactly);
	tcase_add_test(tc, ebb_with_tree_groups_is_at_least_the_static_ebb_on_a_full_fat_tree);
	tcase_add_test(tc, a_full_3_level_tree_has_one_group_per_leaf_and_middle_switch);
	suite_add_tcase(s, tc);
	return check_run(s);
}
