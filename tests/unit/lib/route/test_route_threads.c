/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_threads.c: the engines, their refinement and the
 * metrics split their work over a worker pool (rt_graph.pool,
 * lib/util/par.h); what they compute must not depend on how many threads
 * there are: the same tables, SLs, notes and metrics for pools of 1, 2 and 3
 * threads, on fabrics that exercise each engine (full and degraded fat
 * trees for ftree and its refinement, a torus and a dragonfly for dfsssp
 * with its VL layers, minhop everywhere). */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabgen.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_metrics.h"
#include "lib/util/par.h"
#include "lib/route/route_ftree_int.h"
#include "tests/unit/fixtures/check_run.h"

/* Every metric, including random permutations and bisections, and shifts
 * drawn at random (the sampled mode's draws must be the same too). */
static const struct rt_metrics_opts opts_all = { .max_shifts = 0, .n_random = 24, .seed = 7,
						 .n_bisect = 6 };
static const struct rt_metrics_opts opts_sampled = { .max_shifts = 17, .sample_shifts = 1,
						     .n_random = 5, .seed = 3, .n_bisect = 3 };

struct run {
	struct rt_graph *g;
	struct rt_lfts *l;
	int rc;
	struct rt_metrics all, sampled;
};

static struct fab *fabric(int which)
{
	struct fg_fabric fg;

	fg_init(&fg);
	switch (which) {
	case 0:  /* 3-level tree, cut: ftree, then the refinement moves entries */
		ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){
			.levels = 3, .radix = 8, .hosts = 128, .rails = 1 }), 0);
		return fixture_fabgen_seed(&fg, 20, 5);
	case 1:  /* 2-level tree, full */
		ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){
			.levels = 2, .radix = 12, .hosts = 72, .rails = 1 }), 0);
		return fixture_fabgen_seed(&fg, 0, 1);
	case 2:  /* torus: loom falls back to dfsssp, several VLs */
		ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){
			.ndims = 2, .dims = { 5, 5 }, .hosts_per_switch = 2 }), 0);
		return fixture_fabgen_seed(&fg, 0, 1);
	default: /* dragonfly */
		ck_assert_int_eq(fg_build_dragonfly(&fg, &(struct fg_dragonfly_opts){
			.groups = 5, .routers = 4, .hosts_per_router = 2, .global = 1 }), 0);
		return fixture_fabgen_seed(&fg, 0, 1);
	}
}

static struct run run(int which, const struct rt_engine *e, unsigned threads)
{
	struct fab *f = fabric(which);
	struct par_pool *pool = threads > 1 ? par_pool_new(threads) : NULL;
	char err[256] = "";
	struct run r = { 0 };

	ck_assert(threads == 1 || par_pool_threads(pool) == threads);
	r.g = rt_graph_new(f, err, sizeof(err));
	ck_assert_msg(r.g != NULL, "%s", err);
	fab_free(f);
	r.g->pool = pool;
	ck_assert_ptr_nonnull(r.l = rt_lfts_new(r.g));
	r.rc = e->route(r.g, r.l, err, sizeof(err));
	if (r.rc == 0) {
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts_all, &r.all), 0);
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts_sampled, &r.sampled), 0);
	}
	r.g->pool = NULL;
	par_pool_free(pool);
	return r;
}

static void run_free(struct run *r)
{
	rt_lfts_free(r->l);
	rt_graph_free(r->g);
}

static void same_metrics(const struct rt_metrics *a, const struct rt_metrics *b, const char *what)
{
	ck_assert_msg(a->pairs == b->pairs && a->delivered == b->delivered &&
		      a->unreachable == b->unreachable && a->loops == b->loops &&
		      a->max_hops == b->max_hops, "%s: pairs differ", what);
	ck_assert_msg(a->efi_max == b->efi_max && a->efi_mean == b->efi_mean &&
		      a->efi_links == b->efi_links, "%s: EFI differs", what);
	ck_assert_msg(a->shifts == b->shifts && a->shift_max_load == b->shift_max_load &&
		      a->shift_worst_k == b->shift_worst_k &&
		      a->shifts_sampled == b->shifts_sampled &&
		      a->shift_bound95 == b->shift_bound95,
		      "%s: shifts differ (%zu at k=%zu against %zu at k=%zu)", what,
		      a->shift_max_load, a->shift_worst_k, b->shift_max_load, b->shift_worst_k);
	ck_assert_msg(a->randoms == b->randoms && a->random_max_load == b->random_max_load &&
		      a->random_mean_load == b->random_mean_load &&
		      a->random_mean_se == b->random_mean_se, "%s: random permutations differ",
		      what);
	ck_assert_msg(a->cdg_acyclic == b->cdg_acyclic && a->cdg_vls == b->cdg_vls &&
		      a->cdg_edges == b->cdg_edges, "%s: dependency graphs differ", what);
	ck_assert_msg(a->bisections == b->bisections && a->ebb == b->ebb,
		      "%s: EBB differs (%.17g against %.17g)", what, a->ebb, b->ebb);
}

START_TEST(tables_and_metrics_are_the_same_for_any_thread_count)
{
	size_t n_engines;
	const struct rt_engine *engines = rt_engine_list(&n_engines);

	for (int which = 0; which < 4; which++)
		for (size_t e = 0; e < n_engines; e++) {
			struct run one = run(which, &engines[e], 1);

			for (unsigned threads = 2; threads <= 3; threads++) {
				struct run more = run(which, &engines[e], threads);
				char what[96];
				size_t cells = one.l->n_sw * ((size_t)one.l->max_lid + 1);

				snprintf(what, sizeof(what), "fabric %d, %s, %u threads", which,
					 engines[e].name, threads);
				ck_assert_msg(more.rc == one.rc, "%s: rc %d against %d", what,
					      more.rc, one.rc);
				if (one.rc == 0) {
					ck_assert_msg(memcmp(one.l->port, more.l->port, cells) == 0,
						      "%s: the tables differ", what);
					ck_assert_msg(!one.l->sl == !more.l->sl &&
						      (!one.l->sl ||
						       memcmp(one.l->sl, more.l->sl, cells) == 0),
						      "%s: the SLs differ", what);
					ck_assert_str_eq(one.l->note, more.l->note);
					same_metrics(&one.all, &more.all, what);
					same_metrics(&one.sampled, &more.sampled, what);
				}
				run_free(&more);
			}
			/* The metrics judged something: a routed fabric delivers. */
			if (one.rc == 0)
				fixture_assert_all_delivered(&one.all, one.g->n_ca);
			run_free(&one);
		}
}
END_TEST

/* Large trees route FTREE_BATCH_MAX destinations at a time over the threads
 * (route_ftree_int.h): shown here on small ones with the threshold lowered. */
START_TEST(ftree_batches_give_the_same_tables_for_any_thread_count)
{
	const struct rt_engine *e = rt_engine_find("ftree");
	size_t saved = ftree_batch_min_ca;

	ftree_batch_min_ca = 0;
	for (int which = 0; which < 2; which++) {
		struct run one = run(which, e, 1);

		ck_assert_int_eq(one.rc, 0);
		fixture_assert_all_delivered(&one.all, one.g->n_ca);
		ck_assert(one.all.cdg_acyclic);
		for (unsigned threads = 2; threads <= 3; threads++) {
			struct run more = run(which, e, threads);
			size_t cells = one.l->n_sw * ((size_t)one.l->max_lid + 1);

			ck_assert_msg(memcmp(one.l->port, more.l->port, cells) == 0,
				      "fabric %d, %u threads: the batched tables differ", which,
				      threads);
			run_free(&more);
		}
		run_free(&one);
	}
	ftree_batch_min_ca = saved;
}
END_TEST

/* The fat-tree engine's shortcuts up (a switch takes its one parent whose
 * route meets a path best, or the batch's choice when its parents do not
 * differ) choose what comparing all its parents chooses: checked at every
 * switch, on a full and a cut tree, in batches and one destination at a
 * time, on 1 and 2 threads; and both shortcuts are taken. */
START_TEST(ftree_shortcuts_choose_what_comparing_all_parents_chooses)
{
	const struct rt_engine *e = rt_engine_find("ftree");
	size_t saved = ftree_batch_min_ca;

	ftree_check_shortcuts = 1;
	for (int batch = 0; batch < 2; batch++)
		for (int which = 0; which < 2; which++)
			for (unsigned threads = 1; threads <= 2; threads++) {
				struct run r;

				ftree_batch_min_ca = batch ? 0 : SIZE_MAX;
				ftree_shortcut_best = ftree_shortcut_uni = ftree_shortcut_wrong = 0;
				r = run(which, e, threads);
				ck_assert_int_eq(r.rc, 0);
				ck_assert_msg(ftree_shortcut_wrong == 0, "fabric %d, batch %d, %u "
					      "threads: %zu of %zu shortcuts differ", which, batch,
					      threads, ftree_shortcut_wrong,
					      ftree_shortcut_best + ftree_shortcut_uni);
				ck_assert_msg(ftree_shortcut_best > 0, "no switch took its one "
					      "best parent");
				/* The batch's choice exists only in batches, and
				 * on 3 levels: on 2, every leaf has the main
				 * path's spine above it. */
				ck_assert_msg(!batch || which != 0 || ftree_shortcut_uni > 0,
					      "%u threads: no switch took the batch's choice",
					      threads);
				run_free(&r);
			}
	ftree_check_shortcuts = 0;
	ftree_batch_min_ca = saved;
}
END_TEST

START_TEST(sampled_shifts_are_labelled_and_bounded)
{
	struct run r = run(0, rt_engine_find("loom"), 1);

	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(r.sampled.shifts, 17);
	ck_assert_uint_eq(r.sampled.shifts_total, r.g->n_ca - 1);
	ck_assert(r.sampled.shifts_sampled);
	/* The rule of three: about 3 / draws. */
	ck_assert(r.sampled.shift_bound95 > 0.16 && r.sampled.shift_bound95 < 0.17);
	ck_assert(!r.all.shifts_sampled);
	ck_assert_uint_eq(r.all.shifts, r.g->n_ca - 1);
	/* A sample never finds a worse shift than all of them. */
	ck_assert_uint_le(r.sampled.shift_max_load, r.all.shift_max_load);
	run_free(&r);
}
END_TEST

START_TEST(huge_fabrics_get_a_sample_when_no_count_is_asked)
{
	struct rt_graph g = { .n_ca = RT_METRICS_EXACT_CAS + 1 };
	struct rt_metrics_opts o = { 0 }, asked = { .max_shifts = 50000 };

	rt_metrics_opts_auto(&g, &o);
	ck_assert_uint_eq(o.max_shifts, RT_METRICS_SAMPLE_SHIFTS);
	ck_assert(o.sample_shifts);
	rt_metrics_opts_auto(&g, &asked);
	ck_assert_uint_eq(asked.max_shifts, 50000);
	ck_assert(!asked.sample_shifts);
	g.n_ca = RT_METRICS_EXACT_CAS;
	o = (struct rt_metrics_opts){ 0 };
	rt_metrics_opts_auto(&g, &o);
	ck_assert_uint_eq(o.max_shifts, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_threads");
	TCase *tc = tcase_create("route_threads");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tables_and_metrics_are_the_same_for_any_thread_count);
	tcase_add_test(tc, ftree_batches_give_the_same_tables_for_any_thread_count);
	tcase_add_test(tc, ftree_shortcuts_choose_what_comparing_all_parents_chooses);
	tcase_add_test(tc, sampled_shifts_are_labelled_and_bounded);
	tcase_add_test(tc, huge_fabrics_get_a_sample_when_no_count_is_asked);
	suite_add_tcase(s, tc);
	return check_run(s);
}
