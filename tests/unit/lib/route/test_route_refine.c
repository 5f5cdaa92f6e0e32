/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_refine.c: the refinement pass loom runs after the
 * fat-tree engine (lib/route/route_refine.c): on cut trees it lowers the worst
 * link of shift permutations down to what the cables allow, never raises
 * it, keeps every route delivered, minimal and deadlock-free, leaves full
 * trees alone, works window by window of shifts on trees too large to
 * count every shift at once, and gives the same tables every time, for
 * any number of threads and with its shift deltas summed either way. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_refine_int.h"
#include "lib/util/par.h"
#include "tests/unit/fixtures/check_run.h"

/* A full k-ary tree of `levels`, `cut` cables cut as loom-fabgen --seed
 * `seed` cuts them. */
static struct fab *tree(int levels, int radix, int cut, uint64_t seed)
{
	struct fg_fabric fg;
	int hosts = levels == 2 ? radix * radix / 2 : radix * radix * radix / 4;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
			 .radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_fabgen_seed(&fg, cut, seed);
}

/* Every shift, 200 random permutations. */
static struct routed route(struct fab *f, rt_route_fn fn)
{
	static const struct rt_metrics_opts opts = { .max_shifts = 0, .n_random = 200,
						     .seed = 11 };
	struct routed r = fixture_route(f, fn, &opts);

	ck_assert_msg(r.rc == 0, "engine failed: %s", r.err);
	return r;
}

/* Switch hops from CA a's switch to CA d, -1 if not delivered. */
static int hops(const struct rt_graph *g, const struct rt_lfts *l, size_t a, size_t d)
{
	size_t s = (size_t)g->ca[a].sw;

	for (int h = 0; h < 64; h++) {
		uint8_t p = rt_lfts_get(l, s, g->ca[d].lid);
		const struct rt_port *pt;

		if (p == RT_NO_PORT || p == 0)
			return -1;
		pt = rt_graph_port(g, s, p);
		if (pt->kind == RT_PEER_CA)
			return (size_t)pt->peer == d ? h : -1;
		s = (size_t)pt->peer;
	}
	return -1;
}

/* The bound no routing of a 2-level tree beats: a shift that maps leaf A's
 * CAs onto leaf B's sends them all through the spines both are cabled to.
 * Computed from the cables alone; such shifts exist because fabgen numbers
 * the CAs leaf by leaf, every leaf holding as many. */
static size_t common_spine_bound(const struct rt_graph *g)
{
	size_t bound = 1;

	for (size_t a = 0; a < g->n_sw; a++)
		for (size_t b = 0; b < g->n_sw; b++) {
			size_t cas = 0, common = 0;

			for (size_t c = 0; c < g->n_ca; c++)
				cas += g->ca[c].sw == (int32_t)a;
			if (a == b || !cas)
				continue;
			for (size_t c = 0; c < g->n_ca && common == 0; c++)
				common += g->ca[c].sw == (int32_t)b;
			if (!common)
				continue;   /* b holds no CA */
			common = 0;
			for (unsigned p = 1; p <= g->sw[a].nports; p++) {
				const struct rt_port *pa = rt_graph_port(g, a, p);

				if (pa->kind != RT_PEER_SWITCH)
					continue;
				for (unsigned q = 1; q <= g->sw[b].nports; q++) {
					const struct rt_port *pb = rt_graph_port(g, b, q);

					if (pb->kind == RT_PEER_SWITCH && pb->peer == pa->peer) {
						common++;
						break;
					}
				}
			}
			ck_assert_uint_gt(common, 0);
			if ((cas + common - 1) / common > bound)
				bound = (cas + common - 1) / common;
		}
	return bound;
}

/* Two cut 2-level trees (16-port switches, 24 of 128 cables gone) where
 * the fat-tree engine leaves a shift one or two flows above the bound:
 * refined, loom reaches it. Its random permutations' mean worst link is
 * no higher on these two (the refinement's model of random traffic does
 * not promise that for every draw of 200; see bench/routing.sh). */
START_TEST(refine_brings_a_cut_2_level_trees_shifts_down_to_the_bound)
{
	for (uint64_t seed = 1; seed <= 2; seed++) {
		struct routed ft = route(tree(2, 16, 24, seed), rt_route_ftree);
		struct routed lo = route(tree(2, 16, 24, seed), rt_route_loom);
		size_t bound = common_spine_bound(lo.g);

		printf("2-level radix 16, 24 cut (seed %llu): bound %zu, shift worst ftree %zu, "
		       "loom %zu; random mean %.3f -> %.3f; %s\n", (unsigned long long)seed,
		       bound, ft.m.shift_max_load, lo.m.shift_max_load, ft.m.random_mean_load,
		       lo.m.random_mean_load, lo.l->note);
		ck_assert_uint_gt(ft.m.shift_max_load, bound);
		ck_assert_uint_eq(lo.m.shift_max_load, bound);
		ck_assert_msg(strstr(lo.l->note, "refined") != NULL, "%s", lo.l->note);
		ck_assert(lo.m.random_mean_load <= ft.m.random_mean_load);
		fixture_routed_free(&ft);
		fixture_routed_free(&lo);
	}
}
END_TEST

/* Property, on cut 2- and 3-level trees: every pair delivered, no loop,
 * the channel dependency graph acyclic on the one VL, every pair's path as
 * long as the fat-tree engine's (minimal moves only), the worst shift no
 * higher, and the pass's own count of it right. */
START_TEST(refine_keeps_routes_delivered_minimal_and_deadlock_free)
{
	static const struct {
		int levels, radix, cut;
		uint64_t seed;
	} cases[] = {
		{ 2, 16, 24, 1 }, { 2, 16, 24, 2 }, { 2, 16, 12, 5 },
		{ 3, 8, 16, 1 }, { 3, 8, 16, 2 }, { 3, 8, 32, 1 }, { 3, 8, 32, 2 },
	};
	size_t lower = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct routed ft = route(tree(cases[i].levels, cases[i].radix, cases[i].cut,
					      cases[i].seed), rt_route_ftree);
		struct routed lo = route(tree(cases[i].levels, cases[i].radix, cases[i].cut,
					      cases[i].seed), rt_route_loom);

		ck_assert_uint_eq(lo.m.delivered, lo.m.pairs);
		ck_assert_uint_eq(lo.m.loops, 0);
		ck_assert_uint_eq(lo.l->n_unreachable, 0);
		ck_assert_int_eq(lo.l->n_vls, 1);
		ck_assert_msg(lo.m.cdg_acyclic, "case %zu: dependency cycle", i);
		for (size_t a = 0; a < lo.g->n_ca; a++)
			for (size_t d = 0; d < lo.g->n_ca; d++)
				if (a != d)
					ck_assert_int_eq(hops(lo.g, lo.l, a, d),
							 hops(ft.g, ft.l, a, d));
		ck_assert_uint_le(lo.m.shift_max_load, ft.m.shift_max_load);
		lower += lo.m.shift_max_load < ft.m.shift_max_load;
		/* The worst load the pass kept count of, move by move, is the one
		 * the metrics find by walking the final tables. */
		if (lo.m.shift_max_load < ft.m.shift_max_load) {
			const char *arrow = strstr(lo.l->note, "-> ");

			ck_assert_msg(arrow != NULL, "%s", lo.l->note);
			ck_assert_uint_eq(strtoul(arrow + 3, NULL, 10), lo.m.shift_max_load);
		}
		fixture_routed_free(&ft);
		fixture_routed_free(&lo);
	}
	/* And it is not idle: most of these trees get a lower worst shift. */
	ck_assert_uint_ge(lower, 4);
}
END_TEST

/* A full tree: every shift already non-blocking, nothing to move. */
START_TEST(refine_leaves_a_full_tree_alone)
{
	struct routed ft = route(tree(3, 8, 0, 1), rt_route_ftree);
	struct rt_refine_stats st;
	char err[128];
	size_t size = ft.l->n_sw * ((size_t)ft.l->max_lid + 1);
	uint8_t *before = malloc(size);

	ck_assert_ptr_nonnull(before);
	memcpy(before, ft.l->port, size);
	ck_assert_int_eq(rt_refine_tree(ft.g, ft.l, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.moves, 0);
	ck_assert_uint_eq(st.shift_before, 1);
	ck_assert_int_eq(memcmp(before, ft.l->port, size), 0);
	free(before);
	fixture_routed_free(&ft);
}
END_TEST

/* The same graph and tables give the same refined tables (the plugin's
 * tables must equal an offline run's, which bench/routing.sh checks across
 * processes): the second run gets the first one's freed memory, so a
 * result that read uninitialised memory or pointer order would differ. */
START_TEST(refine_gives_the_same_tables_every_time)
{
	struct routed a = route(tree(3, 8, 32, 1), rt_route_loom);
	struct routed b = route(tree(3, 8, 32, 1), rt_route_loom);
	size_t size = a.l->n_sw * ((size_t)a.l->max_lid + 1);

	ck_assert_uint_eq(b.l->n_sw * ((size_t)b.l->max_lid + 1), size);
	ck_assert_int_eq(memcmp(a.l->port, b.l->port, size), 0);
	ck_assert_str_eq(a.l->note, b.l->note);
	fixture_routed_free(&a);
	fixture_routed_free(&b);
}
END_TEST

/* ft's tables refined with g->pool a pool of `threads`: the refined tables,
 * the pass's stats in *st. */
static struct rt_lfts *refined_on(struct rt_graph *g, const struct rt_lfts *ft, unsigned threads,
				  struct rt_refine_stats *st)
{
	struct par_pool *pool = par_pool_new(threads);
	struct rt_lfts *l = rt_lfts_new(g);
	char err[256];

	ck_assert_ptr_nonnull(pool);
	ck_assert_ptr_nonnull(l);
	memcpy(l->port, ft->port, ft->n_sw * ((size_t)ft->max_lid + 1));
	g->pool = pool;
	ck_assert_int_eq(rt_refine_tree(g, l, st, err, sizeof(err)), 0);
	g->pool = NULL;
	par_pool_free(pool);
	return l;
}

/* 3456 CAs on a cut 3-level tree, the counters held at once lowered to
 * the 16 Mi that once left it alone: every shift's do not fit ((CAs - 1) x
 * links over it), so the pass works window by window of shifts. Refined all the same: the worst shift (every one, counted by
 * the metrics) no higher than the fat-tree engine's and equal to the
 * pass's own count, every pair delivered, no loop, no dependency cycle;
 * and the same tables whether the counting runs on 1, 2 or 3 threads. */
START_TEST(refine_works_on_a_tree_above_the_counters_of_every_shift_at_once)
{
	struct fg_fabric fg;
	struct fab *f;
	struct rt_graph *g;
	struct rt_lfts *ft, *l[3];
	struct rt_refine_stats st[3];
	struct rt_metrics mf, ml;
	char err[256];
	size_t size;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
			 .radix = 24, .hosts = 3456, .rails = 1 }), 0);
	f = fixture_fabgen_seed(&fg, 200, 3);
	g = rt_graph_new(f, err, sizeof(err));
	fab_free(f);
	ck_assert_ptr_nonnull(g);
	rf_shift_cells = 16u << 20;
	ck_assert_uint_gt((g->n_ca - 1) * g->n_links, rf_shift_cells);
	ft = rt_lfts_new(g);
	ck_assert_ptr_nonnull(ft);
	ck_assert_int_eq(rt_route_ftree(g, ft, err, sizeof(err)), 0);
	size = ft->n_sw * ((size_t)ft->max_lid + 1);
	for (unsigned t = 0; t < 3; t++) {
		l[t] = refined_on(g, ft, t + 1, &st[t]);
		ck_assert_int_eq(memcmp(l[t]->port, l[0]->port, size), 0);
		ck_assert_uint_eq(st[t].moves, st[0].moves);
	}
	ck_assert_uint_gt(st[0].windows, 1);
	ck_assert_uint_gt(st[0].moves, 0);
	ck_assert_uint_eq(st[0].shifts, g->n_ca - 1);
	ck_assert_int_eq(rt_metrics_compute(g, ft, NULL, &mf), 0);
	ck_assert_int_eq(rt_metrics_compute(g, l[0], NULL, &ml), 0);
	printf("3-level 3456 CAs, 200 cut: shift worst ftree %zu, refined %zu in %zu windows "
	       "(%zu entries)\n", mf.shift_max_load, ml.shift_max_load, st[0].windows,
	       st[0].moves);
	ck_assert_uint_eq(st[0].shift_before, mf.shift_max_load);
	ck_assert_uint_eq(st[0].shift_after, ml.shift_max_load);
	ck_assert_uint_le(ml.shift_max_load, mf.shift_max_load);
	ck_assert_uint_eq(ml.delivered, ml.pairs);
	ck_assert_uint_eq(ml.loops, 0);
	ck_assert_uint_eq(ml.max_hops, mf.max_hops);
	ck_assert(ml.cdg_acyclic);
	/* loom's note says how it went. */
	memset(l[1]->port, RT_NO_PORT, size);
	ck_assert_int_eq(rt_route_loom(g, l[1], err, sizeof(err)), 0);
	ck_assert_msg(strstr(l[1]->note, "windows of shifts") != NULL, "%s", l[1]->note);
	rf_shift_cells = SHIFT_CELLS;
	for (unsigned t = 0; t < 3; t++)
		rt_lfts_free(l[t]);
	rt_lfts_free(ft);
	rt_graph_free(g);
}
END_TEST

/* One refinement of g's ftree tables; the tables, its stats in *st. */
static struct rt_lfts *refined(struct rt_graph *g, struct rt_refine_stats *st)
{
	struct rt_lfts *l = rt_lfts_new(g);
	char err[256];

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(rt_route_ftree(g, l, err, sizeof(err)), 0);
	ck_assert_int_eq(rt_refine_tree(g, l, st, err, sizeof(err)), 0);
	return l;
}

/* A move's shift delta from the old path's prefix sums, summed once per
 * switch and destination (route_refine_delta.c), gives the very moves of
 * the sum source by source: the same tables, moves and evaluations on cut
 * trees whose worst load is high (2 and 3 levels), every shift at once and
 * window by window. */
START_TEST(refine_prefix_sums_give_the_same_moves_as_summing_source_by_source)
{
	static const struct { int levels, radix, cut; uint64_t seed; size_t windows; } t[] = {
		{ 3, 8, 32, 1, 0 }, { 2, 16, 30, 2, 0 }, { 3, 12, 60, 2, 0 }, { 3, 12, 60, 2, 4 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fab *f = tree(t[i].levels, t[i].radix, t[i].cut, t[i].seed);
		char err[256];
		struct rt_graph *g = rt_graph_new(f, err, sizeof(err));
		struct rt_refine_stats sp, sd;
		struct rt_lfts *lp, *ld;

		fab_free(f);
		ck_assert_ptr_nonnull(g);
		if (t[i].windows)
			rf_shift_cells = (g->n_ca - 1) * g->n_links / t[i].windows;
		lp = refined(g, &sp);
		rf_delta_direct = 1;
		ld = refined(g, &sd);
		rf_delta_direct = 0;
		rf_shift_cells = SHIFT_CELLS;
		ck_assert_uint_gt(sp.moves, 0);
		ck_assert_uint_gt(sp.shift_before, 2);
		ck_assert(t[i].windows ? sp.windows > 1 : sp.windows == 1);
		ck_assert_uint_eq(sp.moves, sd.moves);
		ck_assert_uint_eq(sp.evals, sd.evals);
		ck_assert_uint_eq(sp.shift_after, sd.shift_after);
		ck_assert(sp.random_after == sd.random_after);
		ck_assert_int_eq(memcmp(lp->port, ld->port,
					lp->n_sw * ((size_t)lp->max_lid + 1)), 0);
		rt_lfts_free(lp);
		rt_lfts_free(ld);
		rt_graph_free(g);
	}
}
END_TEST

/* The refinement asks one link's candidate moves over the pool (route_refine_move.c)
 * and still makes the serial choice: on healthy trees (hosts short of the ports) and
 * cut ones, 2 and 3 levels, every
 * shift at once and window by window, 1, 2 and 4 threads give the same tables, the
 * same moves, the same evaluation count and the same costs after. */
START_TEST(refine_makes_the_same_moves_and_evaluations_on_1_2_and_4_threads)
{
	static const struct { int levels, radix, hosts, cut; uint64_t seed; size_t windows; } t[] = {
		{ 3, 12, 200, 0, 1, 0 }, { 3, 12, 300, 0, 1, 0 }, { 3, 8, 0, 32, 1, 0 }, { 2, 16, 0, 30, 2, 0 },
		{ 3, 12, 0, 60, 2, 0 }, { 3, 12, 0, 60, 2, 4 }, { 3, 16, 0, 200, 7, 0 },
	};
	static const unsigned threads[] = { 1, 2, 4 };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fg_fabric fg;
		struct fab *f;
		struct rt_graph *g;
		struct rt_lfts *ft, *l[3];
		struct rt_refine_stats st[3];
		char err[256];
		size_t size;

		fg_init(&fg);
		ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){
			.levels = t[i].levels, .radix = t[i].radix, .rails = 1,
			.hosts = t[i].hosts ? t[i].hosts : t[i].levels == 2 ?
				 t[i].radix * t[i].radix / 2 :
				 t[i].radix * t[i].radix * t[i].radix / 4 }), 0);
		f = fixture_fabgen_seed(&fg, t[i].cut, t[i].seed);
		g = rt_graph_new(f, err, sizeof(err));
		fab_free(f);
		ck_assert_ptr_nonnull(g);
		ft = rt_lfts_new(g);
		ck_assert_ptr_nonnull(ft);
		ck_assert_int_eq(rt_route_ftree(g, ft, err, sizeof(err)), 0);
		size = ft->n_sw * ((size_t)ft->max_lid + 1);
		if (t[i].windows)
			rf_shift_cells = (g->n_ca - 1) * g->n_links / t[i].windows;
		for (size_t n = 0; n < 3; n++) {
			l[n] = refined_on(g, ft, threads[n], &st[n]);
			ck_assert_msg(memcmp(l[n]->port, l[0]->port, size) == 0,
				      "tree %zu: %u threads' tables differ from 1 thread's", i,
				      threads[n]);
			ck_assert_uint_eq(st[n].moves, st[0].moves);
			ck_assert_uint_eq(st[n].evals, st[0].evals);
			ck_assert_uint_eq(st[n].windows, st[0].windows);
			ck_assert_uint_eq(st[n].shift_after, st[0].shift_after);
			ck_assert(st[n].random_after == st[0].random_after);
		}
		rf_shift_cells = SHIFT_CELLS;
		printf("tree %zu: %zu moves, %llu evaluations, %zu windows, shift worst %zu -> %zu\n",
		       i, st[0].moves, (unsigned long long)st[0].evals, st[0].windows,
		       st[0].shift_before, st[0].shift_after);
		/* Healthy trees with fewer hosts than ports refine too. */
		ck_assert_uint_gt(st[0].moves, 0);
		ck_assert(t[i].windows ? st[0].windows > 1 : st[0].windows == 1);
		for (size_t n = 0; n < 3; n++)
			rt_lfts_free(l[n]);
		rt_lfts_free(ft);
		rt_graph_free(g);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_refine");
	TCase *tc = tcase_create("route_refine");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, refine_brings_a_cut_2_level_trees_shifts_down_to_the_bound);
	tcase_add_test(tc, refine_keeps_routes_delivered_minimal_and_deadlock_free);
	tcase_add_test(tc, refine_leaves_a_full_tree_alone);
	tcase_add_test(tc, refine_gives_the_same_tables_every_time);
	tcase_add_test(tc, refine_works_on_a_tree_above_the_counters_of_every_shift_at_once);
	tcase_add_test(tc, refine_prefix_sums_give_the_same_moves_as_summing_source_by_source);
	tcase_add_test(tc, refine_makes_the_same_moves_and_evaluations_on_1_2_and_4_threads);
	suite_add_tcase(s, tc);
	return check_run(s);
}
