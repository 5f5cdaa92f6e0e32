/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_ftree.c: the fat-tree engine and `loom`, the engine
 * selector: level detection, the D-mod-K spreading that makes full trees
 * non-blocking for shifts, degraded trees routed up-down with no pair lost,
 * graphs that are not trees refused with a reason. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"

/* Route f (freed here) with `fn`; metrics of every shift and 4 random
 * permutations when the engine succeeded. */
static struct routed route_with(struct fab *f, rt_route_fn fn)
{
	static const struct rt_metrics_opts opts = { .max_shifts = 0, .n_random = 4,
						     .seed = 3 };

	return fixture_route(f, fn, &opts);
}

static void assert_all_delivered(const struct routed *r)
{
	ck_assert_msg(r->rc == 0, "engine failed: %s", r->err);
	ck_assert_uint_eq(r->m.pairs, r->g->n_ca * (r->g->n_ca - 1));
	ck_assert_uint_eq(r->m.delivered, r->m.pairs);
	ck_assert_uint_eq(r->m.loops, 0);
	ck_assert_uint_eq(r->l->n_unreachable, 0);
}

/* A full fat tree of radix-k switches (k even), 2 or 3 levels, no LIDs
 * (the graph assigns them). Leaves hold k/2 hosts; leaf (p, i) port
 * k/2 + 1 + j goes to middle (p, j) port 1 + i; middle (p, j) port
 * k/2 + 1 + t goes to top (j, t) port 1 + p. A 2-level tree is one pod
 * whose middles are the tops. Host GUIDs follow leaf order. Every switch
 * has one spare port, k + 1. */
#define LEAF(p, i) (0x1000000ULL + 0x100ULL * ((p) * 64 + (i)))
#define MID(p, j) (0x2000000ULL + 0x100ULL * ((p) * 64 + (j)))
#define TOP(j, t) (0x3000000ULL + 0x100ULL * ((j) * 64 + (t)))
#define HOST(n) (0x10000000ULL + 0x100ULL * (n))

static struct fab *fat_tree(unsigned k, unsigned levels)
{
	struct fab *f = fab_new("ib0");
	unsigned h = k / 2, pods = levels == 2 ? 1 : k, leaves = levels == 2 ? k : h, n = 0;

	ck_assert_ptr_nonnull(f);
	for (unsigned p = 0; p < pods; p++) {
		for (unsigned i = 0; i < leaves; i++) {
			fixture_node(f, IBT_NODE_SWITCH, LEAF(p, i), k + 1, "leaf", 0);
			for (unsigned c = 0; c < h; c++, n++) {
				char desc[32];

				snprintf(desc, sizeof(desc), "host%04u mlx5_0", n);
				fixture_node(f, IBT_NODE_CA, HOST(n), 1, desc, 0);
				fixture_link(f, LEAF(p, i), 1 + c, HOST(n), 1);
			}
		}
		for (unsigned j = 0; j < h; j++)
			fixture_node(f, IBT_NODE_SWITCH, MID(p, j), k + 1,
				     levels == 2 ? "spine" : "mid", 0);
		for (unsigned i = 0; i < leaves; i++)
			for (unsigned j = 0; j < h; j++)
				fixture_link(f, LEAF(p, i), h + 1 + j, MID(p, j), 1 + i);
	}
	if (levels == 3) {
		for (unsigned j = 0; j < h; j++)
			for (unsigned t = 0; t < h; t++)
				fixture_node(f, IBT_NODE_SWITCH, TOP(j, t), k + 1, "top", 0);
		for (unsigned p = 0; p < pods; p++)
			for (unsigned j = 0; j < h; j++)
				for (unsigned t = 0; t < h; t++)
					fixture_link(f, MID(p, j), h + 1 + t, TOP(j, t), 1 + p);
	}
	return f;
}

static int32_t sw_index(const struct rt_graph *g, uint64_t guid)
{
	for (size_t s = 0; s < g->n_sw; s++)
		if (g->sw[s].guid == guid)
			return (int32_t)s;
	ck_abort_msg("no switch 0x%llx", (unsigned long long)guid);
	return -1;
}

static unsigned host_lid(const struct rt_graph *g, unsigned n)
{
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].node_guid == HOST(n))
			return g->ca[c].lid;
	ck_abort_msg("no host %u", n);
	return 0;
}

/* Levels counted here, independently of the engine: hops from the nearest
 * switch with a CA. Then every CA-to-CA path must go up, then only down. */
static void assert_up_down(const struct rt_graph *g, const struct rt_lfts *l)
{
	int *level = malloc(g->n_sw * sizeof(*level));
	size_t *q = malloc(g->n_sw * sizeof(*q)), head = 0, tail = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		level[s] = -1;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0 && level[g->ca[c].sw] < 0) {
			level[g->ca[c].sw] = 0;
			q[tail++] = (size_t)g->ca[c].sw;
		}
	while (head < tail) {
		size_t s = q[head++];

		for (unsigned p = 1; p <= g->sw[s].nports; p++) {
			const struct rt_port *pt = rt_graph_port(g, s, p);

			if (pt->kind == RT_PEER_SWITCH && level[pt->peer] < 0) {
				level[pt->peer] = level[s] + 1;
				q[tail++] = (size_t)pt->peer;
			}
		}
	}
	for (size_t a = 0; a < g->n_ca; a++)
		for (size_t b = 0; b < g->n_ca; b++) {
			int32_t s = g->ca[a].sw;
			int went_down = 0;

			if (a == b || s < 0)
				continue;
			for (size_t hops = 0; hops <= g->n_sw; hops++) {
				uint8_t p = rt_lfts_get(l, (size_t)s, g->ca[b].lid);
				const struct rt_port *pt = rt_graph_port(g, (size_t)s, p);

				if (pt->kind != RT_PEER_SWITCH)
					break;
				if (level[pt->peer] < level[s])
					went_down = 1;
				else
					ck_assert_msg(!went_down, "CA %zu -> CA %zu turns up after "
						      "going down", a, b);
				s = pt->peer;
			}
		}
	free(level);
	free(q);
}

START_TEST(ftree_finds_the_levels_and_gives_a_leafs_cas_different_spines)
{
	struct routed r = route_with(fat_tree(4, 2), rt_route_ftree);
	int32_t leaf1 = sw_index(r.g, LEAF(0, 1));

	assert_all_delivered(&r);
	ck_assert_msg(strstr(r.l->note, "fat tree of 2 levels (4/2 switches"), "note: %s",
		      r.l->note);
	ck_assert_uint_eq(r.l->n_vls, 1);
	/* Hosts 0 and 1 hang on leaf 0; the D-mod-K order sends the first up
	 * through spine 0 (leaf port 3) and the second through spine 1 (port 4),
	 * from every other leaf alike, so traffic to one host converges. */
	ck_assert_uint_eq(rt_lfts_get(r.l, (size_t)leaf1, host_lid(r.g, 0)), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, (size_t)leaf1, host_lid(r.g, 1)), 4);
	ck_assert_uint_eq(rt_lfts_get(r.l, (size_t)sw_index(r.g, LEAF(0, 3)), host_lid(r.g, 1)), 4);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	assert_up_down(r.g, r.l);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(ftree_is_nonblocking_for_every_shift_on_a_full_3_level_tree)
{
	struct routed r = route_with(fat_tree(8, 3), rt_route_ftree);
	struct routed mh = route_with(fat_tree(8, 3), rt_route_minhop);

	assert_all_delivered(&r);
	ck_assert_uint_eq(r.g->n_ca, 128);
	ck_assert_msg(strstr(r.l->note, "3 levels (32/32/16"), "note: %s", r.l->note);
	ck_assert_uint_eq(r.m.shifts, 127);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	ck_assert_uint_eq(r.m.max_hops, 4);
	/* The balanced min-hop engine is not: that is why ftree exists. */
	ck_assert_uint_gt(mh.m.shift_max_load, 1);
	ck_assert_uint_le(r.m.random_max_load, mh.m.random_max_load);
	assert_up_down(r.g, r.l);
	fixture_routed_free(&r);
	fixture_routed_free(&mh);
}
END_TEST

/* The full 3-level radix-8 tree with some cables cut: a leaf's uplink, a
 * middle-top cable, and all but one uplink of another leaf. `keep` is the
 * middle switch that leaf (3,2) keeps. */
static struct fab *degraded_tree(unsigned keep)
{
	struct fab *f = fat_tree(8, 3);

	fixture_unlink(f, LEAF(0, 0), 5);          /* leaf (0,0) - mid (0,0) */
	fixture_unlink(f, MID(1, 2), 6);           /* mid (1,2) - top (2,1) */
	fixture_unlink(f, MID(5, 0), 5);           /* mid (5,0) - top (0,0) */
	for (unsigned j = 0; j < 4; j++)
		if (j != keep)
			fixture_unlink(f, LEAF(3, 2), 5 + j);
	return f;
}

START_TEST(ftree_routes_a_degraded_tree_up_down_without_losing_a_pair)
{
	struct routed r = route_with(degraded_tree(1), rt_route_ftree);
	struct routed mh = route_with(degraded_tree(1), rt_route_minhop);

	assert_all_delivered(&r);
	assert_up_down(r.g, r.l);
	ck_assert_uint_eq(r.m.max_hops, 4);
	/* Leaf (3,2) has 4 hosts and one uplink left: 4 flows share it in some
	 * shift, whatever the engine; ftree must not do worse than that, nor
	 * than the min-hop engine, on shifts and on the EFI. */
	ck_assert_uint_eq(r.m.shift_max_load, 4);
	ck_assert_uint_le(r.m.shift_max_load, mh.m.shift_max_load);
	ck_assert_uint_le(r.m.efi_max, mh.m.efi_max);
	fixture_routed_free(&r);
	fixture_routed_free(&mh);
}
END_TEST

/* A cut cable moves only the destination whose column (D-mod-K parent)
 * it held: every other leaf keeps routing every other host through the
 * spine it had on the full tree, so the shift alignment that makes full
 * trees non-blocking survives everywhere else. */
START_TEST(ftree_moves_only_the_destination_whose_spine_a_cut_cable_held)
{
	struct fab *cut = fat_tree(8, 2);
	struct routed full, r;
	unsigned moved = 0;

	fixture_unlink(cut, LEAF(0, 3), 4 + 1 + 1);  /* leaf 3 - spine 1 */
	full = route_with(fat_tree(8, 2), rt_route_ftree);
	r = route_with(cut, rt_route_ftree);
	assert_all_delivered(&r);
	for (unsigned i = 0; i < 8; i++) {
		size_t leaf = (size_t)sw_index(r.g, LEAF(0, i));

		if (i == 3)
			continue;   /* its own sources lost spine 1 */
		for (unsigned n = 0; n < 32; n++) {
			unsigned lid = host_lid(r.g, n);

			ck_assert_uint_eq(host_lid(full.g, n), lid);
			if (n == 3 * 4 + 1) {  /* leaf 3's host of column 1 */
				moved += rt_lfts_get(r.l, leaf, lid) !=
					rt_lfts_get(full.l, leaf, lid);
				continue;
			}
			ck_assert_msg(rt_lfts_get(r.l, leaf, lid) == rt_lfts_get(full.l, leaf, lid),
				      "leaf %u routes host %u through port %u, not %u", i, n,
				      rt_lfts_get(r.l, leaf, lid), rt_lfts_get(full.l, leaf, lid));
		}
	}
	ck_assert_uint_eq(moved, 7);
	fixture_routed_free(&full);
	fixture_routed_free(&r);
}
END_TEST

/* Leaf (0,0) of the 3-level radix-8 tree keeps 2 of its 4 uplinks: the
 * hosts it cannot reach through their own column are spread over the two
 * left, so each carries half of the leaf's outgoing destinations. */
START_TEST(ftree_spreads_a_cut_leafs_destinations_evenly_over_its_uplinks)
{
	struct fab *f = fat_tree(8, 3);
	struct routed r;
	size_t leaf;
	unsigned per_port[10] = { 0 };

	fixture_unlink(f, LEAF(0, 0), 5);
	fixture_unlink(f, LEAF(0, 0), 6);
	r = route_with(f, rt_route_ftree);
	assert_all_delivered(&r);
	leaf = (size_t)sw_index(r.g, LEAF(0, 0));
	for (unsigned n = 4; n < 128; n++) {
		uint8_t port = rt_lfts_get(r.l, leaf, host_lid(r.g, n));

		ck_assert_uint_ge(port, 7);
		ck_assert_uint_le(port, 8);
		per_port[port]++;
	}
	ck_assert_msg(per_port[7] >= 61 && per_port[7] <= 63, "uplink 7 carries %u of 124 "
		      "destinations, uplink 8 %u", per_port[7], per_port[8]);
	fixture_routed_free(&r);
}
END_TEST

/* A 2-level radix-16 tree (16 leaves of 8 hosts, 8 spines) missing 14
 * leaf-spine cables, picked by a fixed generator, at most 3 per leaf. */
static struct fab *cut_2_level_tree(unsigned *min_up)
{
	struct fab *f = fat_tree(16, 2);
	unsigned up[16], cuts = 0;
	uint8_t gone[16][8] = { { 0 } };
	uint64_t x = 7;

	for (unsigned i = 0; i < 16; i++)
		up[i] = 8;
	while (cuts < 14) {
		unsigned i, j;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		i = (unsigned)(x >> 33) % 16;
		j = (unsigned)(x >> 40) % 8;
		if (gone[i][j] || up[i] == 5)
			continue;
		gone[i][j] = 1;
		up[i]--;
		cuts++;
		fixture_unlink(f, LEAF(0, i), 8 + 1 + j);
	}
	*min_up = 8;
	for (unsigned i = 0; i < 16; i++)
		if (up[i] < *min_up)
			*min_up = up[i];
	return f;
}

/* In a shift every host of a leaf sends off the leaf (for most shifts), so
 * some uplink of the leaf with the fewest uplinks carries ceil(8 / up)
 * flows, whatever the engine. ftree stays within one flow of that bound
 * and below the engines that do not know the tree. */
START_TEST(ftree_keeps_shifts_within_one_flow_of_the_bound_on_a_cut_tree)
{
	unsigned min_up;
	struct fab *f = cut_2_level_tree(&min_up);
	struct routed r = route_with(f, rt_route_ftree);
	struct routed mh = route_with(cut_2_level_tree(&min_up), rt_route_minhop);
	struct routed df = route_with(cut_2_level_tree(&min_up), rt_route_dfsssp);
	unsigned bound = (8 + min_up - 1) / min_up;

	assert_all_delivered(&r);
	assert_up_down(r.g, r.l);
	printf("cut 2-level tree: bound %u, shift worst ftree %zu, minhop %zu, dfsssp %zu\n",
	       bound, r.m.shift_max_load, mh.m.shift_max_load, df.m.shift_max_load);
	ck_assert_uint_le(r.m.shift_max_load, bound + 1);
	ck_assert_uint_lt(r.m.shift_max_load, mh.m.shift_max_load);
	ck_assert_uint_le(r.m.shift_max_load, df.m.shift_max_load);
	fixture_routed_free(&r);
	fixture_routed_free(&mh);
	fixture_routed_free(&df);
}
END_TEST

/* Three switches in a ring, one CA each: every switch is a leaf, and
 * leaves cabled together are no tree. */
static struct fab *ring3(void)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	for (unsigned s = 0; s < 3; s++) {
		fixture_node(f, IBT_NODE_SWITCH, LEAF(0, s), 4, "ring", 0);
		fixture_node(f, IBT_NODE_CA, HOST(s), 1, "host", 0);
		fixture_link(f, LEAF(0, s), 1, HOST(s), 1);
	}
	for (unsigned s = 0; s < 3; s++)
		fixture_link(f, LEAF(0, s), 2, LEAF(0, (s + 1) % 3), 3);
	return f;
}

START_TEST(ftree_refuses_a_graph_that_is_not_a_tree_and_says_which_cable)
{
	struct routed r = route_with(ring3(), rt_route_ftree);

	ck_assert_int_eq(r.rc, -EINVAL);
	ck_assert_msg(strstr(r.err, "not a fat tree: ring port") && strstr(r.err, "level 0"),
		      "err: %s", r.err);
	fixture_routed_free(&r);
}
END_TEST

/* Pod 1's leaf (1,0) keeps only mid (1,0), and mid (1,0) loses all its top
 * cables: leaf (1,0) reaches other pods only by going down to another leaf
 * and up again, a turn that up-down routing cannot make. */
START_TEST(ftree_refuses_a_tree_that_needs_a_down_up_turn)
{
	struct fab *f = fat_tree(4, 3);
	struct routed r;

	fixture_unlink(f, LEAF(1, 0), 4);
	fixture_unlink(f, MID(1, 0), 3);
	fixture_unlink(f, MID(1, 0), 4);
	r = route_with(f, rt_route_ftree);
	ck_assert_int_eq(r.rc, -EINVAL);
	ck_assert_msg(strstr(r.err, "down-up turn"), "err: %s", r.err);
	fixture_routed_free(&r);
}
END_TEST

/* If leaf (3,2) keeps only mid (3,0), whose tops reach leaf (0,0) only
 * through mid (0,0), whose cable to leaf (0,0) is cut, the two leaves are
 * joined only by paths that turn up after going down: no tree routing. */
START_TEST(loom_routes_a_tree_broken_beyond_up_down_with_dfsssp)
{
	struct routed ft = route_with(degraded_tree(0), rt_route_ftree);
	struct routed r = route_with(degraded_tree(0), rt_route_loom);

	ck_assert_int_eq(ft.rc, -EINVAL);
	ck_assert_msg(strstr(ft.err, "only through a down-up turn"), "err: %s", ft.err);
	assert_all_delivered(&r);
	ck_assert_msg(strstr(r.l->note, "loom chose dfsssp (ftree: leaf reaches leaf "
			     "only through a down-up turn"), "note: %s", r.l->note);
	fixture_routed_free(&ft);
	fixture_routed_free(&r);
}
END_TEST

/* A management host (or the SM's) on a spine's spare port makes the spine
 * hold a CA, but it stays a spine: its neighbours are all leaves. */
START_TEST(ftree_keeps_a_spine_that_holds_a_host_at_its_level)
{
	struct fab *f = fat_tree(8, 2);
	struct routed r;

	fixture_node(f, IBT_NODE_CA, HOST(999), 1, "sm-host mlx5_0", 0);
	fixture_link(f, MID(0, 1), 9, HOST(999), 1);
	r = route_with(f, rt_route_ftree);
	assert_all_delivered(&r);
	ck_assert_msg(strstr(r.l->note, "fat tree of 2 levels (8/4 switches"), "note: %s",
		      r.l->note);
	assert_up_down(r.g, r.l);
	ck_assert_uint_eq(r.m.max_hops, 2);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(loom_picks_ftree_for_a_tree_and_says_so)
{
	struct routed r = route_with(fat_tree(4, 3), rt_route_loom);

	assert_all_delivered(&r);
	ck_assert_msg(strncmp(r.l->note, "loom chose ftree: fat tree of 3 levels", 38) == 0,
		      "note: %s", r.l->note);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(loom_falls_back_to_dfsssp_when_the_graph_is_no_tree)
{
	struct routed r = route_with(ring3(), rt_route_loom);

	assert_all_delivered(&r);
	ck_assert_msg(strncmp(r.l->note, "loom chose dfsssp (ftree: not a fat tree: ", 41) == 0,
		      "note: %s", r.l->note);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(engines_are_found_by_name)
{
	size_t n;
	const struct rt_engine *all = rt_engine_list(&n);

	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(all[0].name, "loom");
	ck_assert_ptr_eq(rt_engine_find("ftree")->route, rt_route_ftree);
	ck_assert_ptr_eq(rt_engine_find("minhop")->route, rt_route_minhop);
	ck_assert_ptr_null(rt_engine_find("updn"));
}
END_TEST

/* The 11664-host tree of radix-36 switches (quick runs: radix 16). Its
 * routing time is printed for the record, not asserted: speed targets live
 * in bench/. */
START_TEST(ftree_routes_the_largest_3_level_tree_nonblocking)
{
	const int quick = getenv("LOOM_TEST_QUICK") && *getenv("LOOM_TEST_QUICK");
	struct rt_metrics_opts opts = { .max_shifts = 32, .n_random = 2, .seed = 1 };
	struct fab *f = fat_tree(quick ? 16 : 36, 3);
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rt_metrics m;
	char err[256];
	double t0, t1;

	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	fab_free(f);
	l = rt_lfts_new(g);
	ck_assert_ptr_nonnull(l);
	t0 = fixture_now();
	ck_assert_int_eq(rt_route_ftree(g, l, err, sizeof(err)), 0);
	t1 = fixture_now();
	ck_assert_int_eq(rt_metrics_compute(g, l, &opts, &m), 0);
	printf("ftree: %zu hosts, %zu switches in %.3f s; shift worst %zu over %zu, "
	       "random worst %zu\n", g->n_ca, g->n_sw, t1 - t0, m.shift_max_load, m.shifts,
	       m.random_max_load);
	ck_assert_uint_eq(m.delivered, m.pairs);
	ck_assert_uint_eq(m.shift_max_load, 1);
	rt_lfts_free(l);
	rt_graph_free(g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_ftree");
	TCase *tc = tcase_create("route_ftree");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ftree_finds_the_levels_and_gives_a_leafs_cas_different_spines);
	tcase_add_test(tc, ftree_is_nonblocking_for_every_shift_on_a_full_3_level_tree);
	tcase_add_test(tc, ftree_routes_a_degraded_tree_up_down_without_losing_a_pair);
	tcase_add_test(tc, ftree_moves_only_the_destination_whose_spine_a_cut_cable_held);
	tcase_add_test(tc, ftree_spreads_a_cut_leafs_destinations_evenly_over_its_uplinks);
	tcase_add_test(tc, ftree_keeps_shifts_within_one_flow_of_the_bound_on_a_cut_tree);
	tcase_add_test(tc, ftree_refuses_a_graph_that_is_not_a_tree_and_says_which_cable);
	tcase_add_test(tc, ftree_refuses_a_tree_that_needs_a_down_up_turn);
	tcase_add_test(tc, ftree_keeps_a_spine_that_holds_a_host_at_its_level);
	tcase_add_test(tc, loom_routes_a_tree_broken_beyond_up_down_with_dfsssp);
	tcase_add_test(tc, loom_picks_ftree_for_a_tree_and_says_so);
	tcase_add_test(tc, loom_falls_back_to_dfsssp_when_the_graph_is_no_tree);
	tcase_add_test(tc, engines_are_found_by_name);
	tcase_add_test(tc, ftree_routes_the_largest_3_level_tree_nonblocking);
	suite_add_tcase(s, tc);
	return check_run(s);
}
