/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_reroute.c: incremental rerouting after cut cables
 * (lib/route/route_reroute.c), on seeded random sequences of cuts in
 * generated fat trees: every incremental result must be what a full run
 * would accept as valid (every pair delivered, no loop, the channel
 * dependencies of its one VL acyclic), and must leave every destination
 * that crossed no cut cable exactly as it was. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabgen.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"

static struct fab *tree(int levels, int radix, int hosts, int cut)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
			 .radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_fabgen_seed(&fg, cut, 5);
}

static struct rt_graph *graph(const struct fab *f)
{
	char err[256] = "";
	struct rt_graph *g = rt_graph_new(f, err, sizeof(err));

	ck_assert_msg(g != NULL, "%s", err);
	return g;
}

/* Cut `steps` random switch cables of f one after the other, rerouting
 * after each; returns how many reroutes were incremental. */
static int cut_sequence(struct fab *f, int steps, uint64_t seed)
{
	struct rt_graph *g0 = graph(f);
	struct rt_lfts *l0 = rt_lfts_new(g0);
	char err[256] = "";
	int incremental = 0;

	ck_assert_int_eq(rt_route_loom(g0, l0, err, sizeof(err)), 0);
	for (int step = 0; step < steps; step++) {
		struct rt_reroute_stats st;
		struct rt_graph *g1;
		struct rt_lfts *l1;
		struct rt_metrics m;
		const struct rt_link *k;
		uint8_t *crossed = calloc((size_t)g0->max_lid + 1, 1);
		int rc;

		ck_assert_ptr_nonnull(crossed);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		k = &g0->links[(seed >> 33) % g0->n_links];
		/* What crossed it, by the previous tables (both directions). */
		for (size_t lid = 1; lid <= g0->max_lid; lid++)
			crossed[lid] = rt_lfts_get(l0, (size_t)k->sw, (unsigned)lid) == k->port ||
				       rt_lfts_get(l0, (size_t)k->peer, (unsigned)lid) == k->peer_port;
		fixture_unlink(f, g0->sw[k->sw].guid, k->port);
		g1 = graph(f);
		ck_assert_ptr_nonnull(l1 = rt_lfts_new(g1));
		rc = rt_reroute(g0, l0, g1, l1, &st, err, sizeof(err));
		ck_assert_msg(rc == 0 || rc == -EAGAIN, "step %d: %d %s", step, rc, err);
		if (rc == -EAGAIN) {
			ck_assert_msg(err[0], "step %d: a refusal says why", step);
			if (getenv("LOOM_TEST_VERBOSE"))
				fprintf(stderr, "step %d: full run: %s\n", step, err);
			ck_assert_int_eq(rt_route_loom(g1, l1, err, sizeof(err)), 0);
		} else {
			size_t routed = 0, unreachable = 0;

			incremental++;
			ck_assert_uint_eq(st.cut, 2);
			/* Its counts are the tables' own. */
			for (size_t sw = 0; sw < g1->n_sw; sw++)
				for (size_t lid = 1; lid <= g1->max_lid; lid++)
					if (rt_graph_lid_switch(g1, (unsigned)lid) >= 0 ||
					    rt_graph_lid_ca(g1, (unsigned)lid) >= 0) {
						if (rt_lfts_get(l1, sw, (unsigned)lid) == RT_NO_PORT)
							unreachable++;
						else
							routed++;
					}
			ck_assert_uint_eq(l1->n_routed, routed);
			ck_assert_uint_eq(l1->n_unreachable, unreachable);
			for (size_t s = 0; s < g1->n_sw; s++)
				for (size_t lid = 1; lid <= g1->max_lid; lid++)
					ck_assert_msg(crossed[lid] || rt_lfts_get(l1, s, (unsigned)lid) ==
						      rt_lfts_get(l0, s, (unsigned)lid),
						      "step %d: LID %zu crossed no cut cable but moved at %s",
						      step, lid, g1->sw[s].desc);
		}
		ck_assert_int_eq(rt_metrics_compute(g1, l1, NULL, &m), 0);
		fixture_assert_all_delivered(&m, g1->n_ca);
		ck_assert_msg(m.cdg_acyclic, "step %d (%s): the dependencies have a cycle", step,
			      rc == 0 ? l1->note : "full run");
		free(crossed);
		rt_lfts_free(l0);
		rt_graph_free(g0);
		g0 = g1;
		l0 = l1;
	}
	rt_lfts_free(l0);
	rt_graph_free(g0);
	return incremental;
}

START_TEST(cuts_in_a_3_level_tree_reroute_only_what_crossed_them)
{
	struct fab *f = tree(3, 8, 128, 0);
	int inc = cut_sequence(f, 25, 11);

	/* Most single cuts leave every level as it was. */
	ck_assert_msg(inc >= 15, "only %d of 25 cuts were rerouted incrementally", inc);
	fab_free(f);
}
END_TEST

START_TEST(cuts_in_a_degraded_refined_tree_stay_valid)
{
	struct fab *f = tree(3, 8, 128, 12);  /* refined by loom before the cuts */
	int inc = cut_sequence(f, 15, 3);

	ck_assert_msg(inc >= 8, "only %d of 15 cuts were rerouted incrementally", inc);
	fab_free(f);
}
END_TEST

START_TEST(a_restored_cable_or_a_lost_host_asks_for_a_full_run)
{
	struct fab *f = tree(2, 8, 32, 0);
	struct rt_graph *g0 = graph(f), *g1;
	struct rt_lfts *l0 = rt_lfts_new(g0), *l1;
	struct rt_reroute_stats st;
	char err[256] = "";
	const struct rt_link *k = &g0->links[0];

	ck_assert_int_eq(rt_route_loom(g0, l0, err, sizeof(err)), 0);
	/* Cut, reroute, then put the cable back: the cable appeared. */
	fixture_unlink(f, g0->sw[k->sw].guid, k->port);
	g1 = graph(f);
	l1 = rt_lfts_new(g1);
	ck_assert_int_eq(rt_reroute(g1, l1, g0, l0, &st, err, sizeof(err)), -EAGAIN);
	ck_assert_msg(strstr(err, "appeared") != NULL, "%s", err);
	/* A host cut off. */
	fixture_unlink(f, g0->ca[0].node_guid, g0->ca[0].port);
	rt_graph_free(g1);
	g1 = graph(f);
	rt_lfts_free(l1);
	l1 = rt_lfts_new(g1);
	ck_assert_int_eq(rt_reroute(g0, l0, g1, l1, &st, err, sizeof(err)), -EAGAIN);
	rt_lfts_free(l0);
	rt_lfts_free(l1);
	rt_graph_free(g0);
	rt_graph_free(g1);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_reroute");
	TCase *tc = tcase_create("route_reroute");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, cuts_in_a_3_level_tree_reroute_only_what_crossed_them);
	tcase_add_test(tc, cuts_in_a_degraded_refined_tree_stay_valid);
	tcase_add_test(tc, a_restored_cable_or_a_lost_host_asks_for_a_full_run);
	suite_add_tcase(s, tc);
	return check_run(s);
}
