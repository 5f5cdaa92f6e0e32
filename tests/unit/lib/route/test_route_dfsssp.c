/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_dfsssp.c: the dfsssp engine (deadlock-free balanced
 * shortest paths) and the metrics that judge it: the channel dependency
 * check and the effective bisection bandwidth. Small topologies are checked
 * by hand; tori, dragonflies and damaged fat trees made by loom-fabgen's
 * own builders are checked for the properties every routing must have. */
#include "autoconf.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"

/* As in test_route.c: CAs sort after switches, port GUIDs never collide. */
#define SW(i) (0x1000ULL + 0x100ULL * (i))
#define CA(i) (0x100000ULL + 0x100ULL * (i))

static const struct rt_metrics_opts opts = { .max_shifts = 0, .n_random = 2, .seed = 42,
					     .n_bisect = 4 };

/* Graph, tables by `engine` and metrics of f, which is freed. */
static struct routed route_with(struct fab *f, rt_route_fn engine)
{
	struct routed r = fixture_route(f, engine, &opts);

	ck_assert_msg(r.rc == 0, "route: %s", r.err);
	return r;
}

/* n switches (LIDs 1..n) in a line, or a ring when `ring`: switch i port 2
 * goes to switch i + 1's port 3; CA i (LID n + 1 + i) on switch i port 1. */
static struct fab *chain(unsigned n, int ring)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < n; i++) {
		fixture_node(f, IBT_NODE_SWITCH, SW(i), 4, "sw", (uint16_t)(1 + i));
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(n + 1 + i));
		fixture_link(f, SW(i), 1, CA(i), 1);
	}
	for (unsigned i = 0; i + 1 < n + (ring ? 1 : 0); i++)
		fixture_link(f, SW(i), 2, SW((i + 1) % n), 3);
	return f;
}

START_TEST(ring_of_five_minhop_deadlocks_and_dfsssp_needs_exactly_two_vls)
{
	struct routed mh = route_with(chain(5, 1), rt_route_minhop);
	struct routed r = route_with(chain(5, 1), rt_route_dfsssp);
	unsigned used[2] = { 0, 0 };

	/* By hand: on a ring of 5 every shortest path is unique; the 2-hop
	 * paths i -> i+1 -> i+2 chain the clockwise links into a cycle (and
	 * the counter-clockwise ones likewise), all on SL 0 with minhop. */
	fixture_assert_all_delivered(&mh.m, 5);
	ck_assert_int_eq(mh.m.cdg_acyclic, 0);
	ck_assert_uint_eq(mh.m.cdg_vls, 1);
	/* Distinct dependencies: link -> next link of the 2-hop paths, 5 each
	 * way; link -> CA link, the CA link being entered from either side. */
	ck_assert_uint_eq(mh.m.cdg_edges, 10 + 10);
	/* dfsssp: the same paths (they are unique), spread over 2 VLs so that
	 * neither VL closes a ring. */
	fixture_assert_all_delivered(&r.m, 5);
	ck_assert_uint_eq(r.m.max_hops, 2);
	ck_assert_uint_eq(r.l->n_vls, 2);
	ck_assert_ptr_nonnull(r.l->sl);
	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	ck_assert_uint_eq(r.m.cdg_vls, 2);
	ck_assert_uint_eq(memcmp(r.l->port, mh.l->port, 5 * ((size_t)r.g->max_lid + 1)), 0);
	for (unsigned s = 0; s < 5; s++)
		for (unsigned c = 0; c < 5; c++)
			used[rt_lfts_sl(r.l, s, 6 + c)]++;
	ck_assert_uint_gt(used[1], 0);
	ck_assert_uint_eq(used[0] + used[1], 25);
	ck_assert_uint_eq(r.l->n_routed, 5 * 10);
	ck_assert_uint_eq(r.l->n_unreachable, 0);
	ck_assert_msg(strstr(r.l->note, "2 VLs"), "%s", r.l->note);
	fixture_routed_free(&mh);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(ring_of_four_with_tied_paths_is_deadlock_free)
{
	struct routed r = route_with(chain(4, 1), rt_route_dfsssp);

	fixture_assert_all_delivered(&r.m, 4);
	ck_assert_uint_eq(r.m.max_hops, 2);
	ck_assert_uint_ge(r.l->n_vls, 1);
	ck_assert_uint_le(r.l->n_vls, 2);
	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(line_of_switches_needs_one_vl)
{
	struct routed r = route_with(chain(4, 0), rt_route_dfsssp);

	fixture_assert_all_delivered(&r.m, 4);
	ck_assert_uint_eq(r.m.max_hops, 3);
	ck_assert_uint_eq(r.l->n_vls, 1);
	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	ck_assert_uint_eq(r.m.cdg_vls, 1);
	for (unsigned s = 0; s < 4; s++)
		for (unsigned lid = 1; lid <= 8; lid++)
			ck_assert_uint_eq(rt_lfts_sl(r.l, s, lid), 0);
	/* CA 3 (LID 8) from switch 0: right, right, right, down. */
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 8), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 8), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 3, 8), 1);
	ck_assert_uint_eq(rt_lfts_get(r.l, 3, 5), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, 3, 4), 0);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(cdg_check_fails_on_tables_that_route_all_one_way_round_a_ring)
{
	struct routed r = route_with(chain(4, 1), rt_route_minhop);
	struct rt_metrics m;

	/* Hand-made tables: every switch sends every remote LID clockwise
	 * (port 2), so the paths of 2 and 3 hops chain all 4 clockwise links. */
	for (unsigned s = 0; s < 4; s++)
		for (unsigned lid = 1; lid <= 8; lid++)
			rt_lfts_set(r.l, s, lid, lid == 1 + s ? 0 : lid == 5 + s ? 1 : 2);
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, NULL, &m), 0);
	fixture_assert_all_delivered(&m, 4);
	ck_assert_uint_eq(m.max_hops, 3);
	ck_assert_int_eq(m.cdg_acyclic, 0);
	ck_assert_uint_eq(m.cdg_vls, 1);
	/* Distinct: 4 link -> next link, 4 link -> CA link (each CA link is
	 * entered from one side only). */
	ck_assert_uint_eq(m.cdg_edges, 4 + 4);
	/* Paths from switches 0, 1 on SL 0, from 2, 3 on SL 1: the paths of
	 * SL 0 use links 0..3 but never 3 then 0, those of SL 1 links 2..1 but
	 * never 1 then 2, so neither SL closes the ring. (A dateline crossed
	 * on SL 1 would not do: paths 3 -> 2 and 1 -> 0 both cross it and
	 * together use all 4 dependencies; per-path SLs are not per-hop VLs.) */
	ck_assert_int_eq(rt_lfts_sl_alloc(r.l), 0);
	for (unsigned s = 0; s < 4; s++)
		for (unsigned c = 0; c < 4; c++)
			r.l->sl[s * ((size_t)r.l->max_lid + 1) + 5 + c] = (uint8_t)(s / 2);
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, NULL, &m), 0);
	ck_assert_int_eq(m.cdg_acyclic, 1);
	ck_assert_uint_eq(m.cdg_vls, 2);
	fixture_routed_free(&r);
}
END_TEST

/* One switch (LID 1) with CAs on ports 1..4 (LIDs 2..5). */
static struct fab *one_switch(void)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 8, "sw0", 1);
	for (unsigned i = 0; i < 4; i++) {
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(2 + i));
		fixture_link(f, SW(0), 1 + i, CA(i), 1);
	}
	return f;
}

/* sw0 (LID 1), sw1 (LID 2) joined by `cables` cables on ports 3, 4; CAs 0, 1
 * on sw0 ports 1, 2 (LIDs 3, 4), CAs 2, 3 on sw1 (LIDs 5, 6). */
static struct fab *two_switches(unsigned cables)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "sw0", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW(1), 4, "sw1", 2);
	for (unsigned i = 0; i < 4; i++) {
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(3 + i));
		fixture_link(f, SW(i / 2), 1 + i % 2, CA(i), 1);
	}
	for (unsigned c = 0; c < cables; c++)
		fixture_link(f, SW(0), 3 + c, SW(1), 3 + c);
	return f;
}

START_TEST(ebb_of_a_single_switch_is_one)
{
	struct routed r = route_with(one_switch(), rt_route_dfsssp);
	struct rt_metrics_opts o = { .n_bisect = 10, .seed = 3 };
	struct rt_metrics m;

	/* Every flow has its own CA links: nothing is shared. */
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &o, &m), 0);
	ck_assert_uint_eq(m.bisections, 10);
	ck_assert(fabs(m.ebb - 1.0) < 1e-12);
	ck_assert_uint_eq(r.l->n_vls, 1);
	ck_assert_int_eq(m.cdg_acyclic, 1);
	/* No bisection asked: none evaluated. */
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, NULL, &m), 0);
	ck_assert_uint_eq(m.bisections, 0);
	ck_assert(m.ebb == 0.0);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(ebb_of_two_switches_on_one_cable_is_one_or_a_half_per_bisection)
{
	struct routed r = route_with(two_switches(1), rt_route_dfsssp);
	struct rt_metrics_opts o = { .n_bisect = 1, .seed = 1 };
	struct rt_metrics m;
	double total = 0.0;

	/* By hand: a bisection pairs the 4 CAs two by two. Pairing each CA of
	 * sw0 with one of sw1 puts both flows of each direction on the one
	 * cable: each gets 1/2. Pairing the CAs of each switch together shares
	 * nothing: 1. Over the 3 pairings equally likely: (1 + 2 * 1/2) / 3. */
	for (uint64_t seed = 1; seed <= 300; seed++) {
		o.seed = seed;
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &o, &m), 0);
		ck_assert_uint_eq(m.bisections, 1);
		ck_assert_msg(fabs(m.ebb - 1.0) < 1e-12 || fabs(m.ebb - 0.5) < 1e-12,
			      "seed %llu: %f", (unsigned long long)seed, m.ebb);
		total += m.ebb;
	}
	ck_assert_msg(fabs(total / 300 - 2.0 / 3.0) < 0.06, "mean %f", total / 300);
	/* Many bisections of one seed average the same way, reproducibly. */
	o.n_bisect = 300;
	o.seed = 9;
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &o, &m), 0);
	ck_assert_msg(fabs(m.ebb - 2.0 / 3.0) < 0.06, "ebb %f", m.ebb);
	total = m.ebb;
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &o, &m), 0);
	ck_assert(m.ebb == total);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(ebb_of_two_switches_on_two_cables_is_one)
{
	struct routed r = route_with(two_switches(2), rt_route_dfsssp);
	struct rt_metrics_opts o = { .n_bisect = 50, .seed = 5 };
	struct rt_metrics m;

	/* dfsssp puts the two remote CA LIDs of each switch on different
	 * cables (the second LID sees the first one's load), so two flows
	 * crossing in one direction never share a cable. */
	ck_assert_uint_ne(rt_lfts_get(r.l, 0, 5), rt_lfts_get(r.l, 0, 6));
	ck_assert_uint_ne(rt_lfts_get(r.l, 1, 3), rt_lfts_get(r.l, 1, 4));
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &o, &m), 0);
	ck_assert(fabs(m.ebb - 1.0) < 1e-12);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(disconnected_parts_are_counted_like_minhop)
{
	struct fab *f = fab_new("ib0");
	struct routed r;

	/* As in test_route.c: sw0 with CAs 0, 1; sw1 with CA 2, not cabled to
	 * sw0; CAs 3 and 4 cabled to each other, no switch at all. */
	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "sw0", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW(1), 4, "sw1", 2);
	for (unsigned i = 0; i < 5; i++)
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(3 + i));
	fixture_link(f, SW(0), 1, CA(0), 1);
	fixture_link(f, SW(0), 2, CA(1), 1);
	fixture_link(f, SW(1), 1, CA(2), 1);
	fixture_link(f, CA(3), 1, CA(4), 1);
	r = route_with(f, rt_route_dfsssp);
	ck_assert_uint_eq(r.l->n_unreachable, 9);
	ck_assert_uint_eq(r.l->n_routed, 5);
	ck_assert_uint_eq(r.m.delivered, 2);
	ck_assert_uint_eq(r.m.loops, 0);
	ck_assert_uint_eq(r.l->n_vls, 1);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(empty_fabric_routes_to_nothing_on_one_vl)
{
	struct fab *f = fab_new("ib0");
	struct routed r;

	ck_assert_ptr_nonnull(f);
	r = route_with(f, rt_route_dfsssp);
	ck_assert_uint_eq(r.l->n_routed, 0);
	ck_assert_uint_eq(r.l->n_vls, 1);
	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	ck_assert_uint_eq(r.m.cdg_vls, 0);
	fixture_routed_free(&r);
}
END_TEST

/* A fabric from loom-fabgen's builders, with `cut` links cut. */
enum gen { GEN_TORUS2, GEN_TORUS3, GEN_DRAGONFLY, GEN_FATTREE3 };

static struct fab *generate(enum gen kind, int cut)
{
	struct fg_fabric fg;
	int rc;

	fg_init(&fg);
	switch (kind) {
	case GEN_TORUS2:
		rc = fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2,
			.dims = { 8, 6 }, .hosts_per_switch = 2 });
		break;
	case GEN_TORUS3:
		rc = fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 3,
			.dims = { 4, 4, 3 }, .hosts_per_switch = 1 });
		break;
	case GEN_DRAGONFLY:
		rc = fg_build_dragonfly(&fg, &(struct fg_dragonfly_opts){ .groups = 9,
			.routers = 4, .hosts_per_router = 2, .global = 2 });
		break;
	default:
		rc = fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
			.radix = 8, .hosts = 128, .rails = 1 });
		break;
	}
	ck_assert_int_eq(rc, 0);
	return fixture_fabgen(&fg, cut);
}

/* What every dfsssp routing must be: every pair delivered, no loop, no
 * cycle on any VL, at most RT_MAX_VLS VLs and the tables' SLs within them,
 * and the same tables on a second run. */
static void assert_deadlock_free_routing(enum gen kind, int cut, const char *what)
{
	struct routed r = route_with(generate(kind, cut), rt_route_dfsssp);
	struct rt_lfts *again = rt_lfts_new(r.g);
	size_t cells = r.g->n_sw * ((size_t)r.g->max_lid + 1);
	char err[256] = "";

	fixture_assert_all_delivered(&r.m, r.g->n_ca);
	ck_assert_uint_eq(r.l->n_unreachable, 0);
	ck_assert_msg(r.m.cdg_acyclic, "%s: a cycle on some VL (%s)", what, r.l->note);
	ck_assert_uint_ge(r.l->n_vls, 1);
	ck_assert_uint_le(r.l->n_vls, RT_MAX_VLS);
	ck_assert_uint_le(r.m.cdg_vls, r.l->n_vls);
	for (size_t i = 0; i < cells; i++)
		ck_assert_uint_lt(r.l->sl[i], r.l->n_vls);
	ck_assert_ptr_nonnull(again);
	ck_assert_int_eq(rt_route_dfsssp(r.g, again, err, sizeof(err)), 0);
	ck_assert_int_eq(memcmp(again->port, r.l->port, cells), 0);
	ck_assert_int_eq(memcmp(again->sl, r.l->sl, cells), 0);
	printf("%s: %zu switches, %zu CAs, %s; ebb %.3f\n", what, r.g->n_sw, r.g->n_ca,
	       r.l->note, r.m.ebb);
	rt_lfts_free(again);
	fixture_routed_free(&r);
}

START_TEST(torus_2d_is_routed_deadlock_free)
{
	assert_deadlock_free_routing(GEN_TORUS2, 0, "8x6 torus");
}
END_TEST

START_TEST(torus_3d_with_cut_links_is_routed_deadlock_free)
{
	assert_deadlock_free_routing(GEN_TORUS3, 6, "4x4x3 torus, 6 links cut");
}
END_TEST

START_TEST(dragonfly_is_routed_deadlock_free)
{
	assert_deadlock_free_routing(GEN_DRAGONFLY, 0, "dragonfly 9x4");
}
END_TEST

START_TEST(fat_tree_with_cut_links_is_routed_deadlock_free)
{
	assert_deadlock_free_routing(GEN_FATTREE3, 30, "3-level fat tree, 30 links cut");
}
END_TEST

START_TEST(full_fat_tree_needs_one_vl)
{
	struct routed r = route_with(generate(GEN_FATTREE3, 0), rt_route_dfsssp);

	/* Shortest paths on a full fat tree go up then down: no cycle. */
	fixture_assert_all_delivered(&r.m, r.g->n_ca);
	ck_assert_uint_eq(r.l->n_vls, 1);
	ck_assert_int_eq(r.m.cdg_acyclic, 1);
	ck_assert_uint_eq(r.m.max_hops, 4);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(torus_of_256_switches_routes_in_well_under_a_second)
{
	struct fg_fabric fg;
	struct rt_graph *g;
	struct rt_lfts *l;
	struct fab *fab;
	char err[512] = "";
	double t0;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2,
		.dims = { 16, 16 }, .hosts_per_switch = 1 }), 0);
	fab = fixture_fabgen(&fg, 0);
	g = rt_graph_new(fab, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	l = rt_lfts_new(g);
	ck_assert_ptr_nonnull(l);
	t0 = fixture_now();
	ck_assert_int_eq(rt_route_dfsssp(g, l, err, sizeof(err)), 0);
	printf("16x16 torus: %.3f s, %s\n", fixture_now() - t0, l->note);
	ck_assert_uint_le(l->n_vls, RT_MAX_VLS);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(fab);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_dfsssp");
	TCase *tc = tcase_create("route_dfsssp");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ring_of_five_minhop_deadlocks_and_dfsssp_needs_exactly_two_vls);
	tcase_add_test(tc, ring_of_four_with_tied_paths_is_deadlock_free);
	tcase_add_test(tc, line_of_switches_needs_one_vl);
	tcase_add_test(tc, cdg_check_fails_on_tables_that_route_all_one_way_round_a_ring);
	tcase_add_test(tc, ebb_of_a_single_switch_is_one);
	tcase_add_test(tc, ebb_of_two_switches_on_one_cable_is_one_or_a_half_per_bisection);
	tcase_add_test(tc, ebb_of_two_switches_on_two_cables_is_one);
	tcase_add_test(tc, disconnected_parts_are_counted_like_minhop);
	tcase_add_test(tc, empty_fabric_routes_to_nothing_on_one_vl);
	tcase_add_test(tc, torus_2d_is_routed_deadlock_free);
	tcase_add_test(tc, torus_3d_with_cut_links_is_routed_deadlock_free);
	tcase_add_test(tc, dragonfly_is_routed_deadlock_free);
	tcase_add_test(tc, fat_tree_with_cut_links_is_routed_deadlock_free);
	tcase_add_test(tc, full_fat_tree_needs_one_vl);
	tcase_add_test(tc, torus_of_256_switches_routes_in_well_under_a_second);
	suite_add_tcase(s, tc);
	return check_run(s);
}
