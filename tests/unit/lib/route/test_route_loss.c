/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_loss.c: what the routes lose when
 * switch cables are taken out of them (lib/route/route_loss.c), on fat
 * trees from loom-fabgen's builders: the paths floor against a count made
 * straight from the fabric's cables, the reroute that keeps every pair and
 * uses no removed port, a leaf cut off seen as lost pairs, and the graph
 * without some cables (rt_graph_without) equal to the graph of the fabric
 * with them unlinked, and the judgement of the destinations a reroute
 * moved (rt_loss_judge_after) equal to the judgement of every pair. */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/fabric/ibtypes.h"
#include "lib/route/route.h"
#include "lib/route/route_loss.h"

static struct fab *two_level(int radix, int hosts)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 2,
		.radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_fabgen(&fg, 0);
}

/* The reference on a two-level tree, from the fabric alone: for leaves a,
 * b, the cables of a to a spine that has a cable to b; the least over all
 * ordered pairs of distinct leaves. */
static size_t ref_min_paths(const struct fab *f)
{
	size_t best = SIZE_MAX;
	const struct fab_node **leaf = calloc(f->n_nodes, sizeof(*leaf));
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fab_node *s = f->nodes[i];

		if (s->type != IBT_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= s->nports; p++) {
			const struct fab_node *peer = fab_find(f, s->ports[p].peer_guid);

			if (s->ports[p].has_peer && peer && peer->type == IBT_NODE_CA) {
				leaf[n++] = s;
				break;
			}
		}
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++) {
			size_t c = 0;

			if (a == b)
				continue;
			for (unsigned p = 1; p <= leaf[a]->nports; p++) {
				const struct fab_port *pp = &leaf[a]->ports[p];
				const struct fab_node *sp;

				if (!pp->has_peer || !(sp = fab_find(f, pp->peer_guid)) ||
				    sp->type != IBT_NODE_SWITCH)
					continue;
				for (unsigned q = 1; q <= sp->nports; q++)
					if (sp->ports[q].has_peer &&
					    sp->ports[q].peer_guid == leaf[b]->guid) {
						c++;
						break;
					}
			}
			if (c < best)
				best = c;
		}
	free(leaf);
	return best;
}

/* The first leaf (by GUID order of the graph) and its first up cable. */
static void first_uplink(const struct rt_graph *g, uint64_t *guid, unsigned *port)
{
	for (size_t s = 0; s < g->n_sw; s++) {
		int leafy = 0;

		for (unsigned p = 1; p <= g->sw[s].nports; p++)
			leafy |= rt_graph_port(g, s, p)->kind == RT_PEER_CA;
		if (!leafy || !g->sw[s].n_links)
			continue;
		*guid = g->sw[s].guid;
		*port = g->links[g->sw[s].first_link].port;
		return;
	}
	ck_abort_msg("no leaf with an up cable");
}

START_TEST(paths_floor_counts_shared_spines)
{
	struct fab *f = two_level(8, 16);
	struct rt_graph *g;
	struct rt_judged j;
	char err[256];
	uint64_t guid;
	unsigned port;
	size_t full = ref_min_paths(f);

	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_int_eq(rt_loss_paths(g, &j), 0);
	ck_assert_int_eq(j.tree, 1);
	ck_assert_uint_eq(j.min_paths, full);
	ck_assert_uint_gt(full, 1);
	first_uplink(g, &guid, &port);
	rt_graph_free(g);
	/* One up cable of a leaf gone: one path fewer toward the others. */
	ck_assert_int_eq(fab_unlink(f, guid, port), 0);
	ck_assert_uint_eq(ref_min_paths(f), full - 1);
	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_int_eq(rt_loss_paths(g, &j), 0);
	ck_assert_uint_eq(j.min_paths, full - 1);
	ck_assert_uint_eq(g->sw[j.min_a].guid == guid || g->sw[j.min_b].guid == guid, 1);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(reroute_keeps_every_pair_off_the_removed_cable)
{
	struct fab *f = two_level(16, 128), *f2;
	struct rt_graph *g, *g2;
	struct rt_lfts *l, *l2;
	struct rt_metrics_opts o;
	struct rt_judged now, after;
	char err[256];
	uint64_t guid;
	unsigned port;
	int incr;

	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_ptr_nonnull(l = rt_lfts_new(g));
	ck_assert_int_eq(rt_route_loom(g, l, err, sizeof(err)), 0);
	rt_loss_opts(g, &o);
	ck_assert_int_eq(rt_loss_judge(g, l, &o, &now), 0);
	ck_assert_uint_eq(now.unreachable, 0);
	first_uplink(g, &guid, &port);
	ck_assert_ptr_nonnull(f2 = fab_dup(f));
	ck_assert_int_eq(fab_unlink(f2, guid, port), 0);
	ck_assert_ptr_nonnull(g2 = rt_graph_new(f2, err, sizeof(err)));
	l2 = rt_loss_reroute(g, l, g2, rt_engine_find("loom"), &incr, err, sizeof(err));
	ck_assert_msg(l2 != NULL, "%s", err);
	ck_assert_int_eq(incr, 1);
	ck_assert_int_eq(rt_loss_judge(g2, l2, &o, &after), 0);
	ck_assert_uint_eq(after.pairs, now.pairs);
	ck_assert_uint_eq(after.unreachable, 0);
	ck_assert_uint_eq(after.min_paths, now.min_paths - 1);
	ck_assert(after.ebb <= now.ebb + 1e-9);
	for (size_t s = 0; s < g2->n_sw; s++) {
		if (g2->sw[s].guid != guid)
			continue;
		for (unsigned lid = 1; lid <= l2->max_lid; lid++)
			ck_assert_uint_ne(l2->port[s * (l2->max_lid + 1u) + lid], port);
	}
	rt_lfts_free(l);
	rt_lfts_free(l2);
	rt_graph_free(g);
	rt_graph_free(g2);
	fab_free(f);
	fab_free(f2);
}
END_TEST

START_TEST(a_leaf_cut_off_loses_pairs)
{
	struct fab *f = two_level(8, 16);
	struct rt_graph *g, *g2;
	struct rt_lfts *l, *l2;
	struct rt_metrics_opts o;
	struct rt_judged after;
	char err[256];
	uint64_t guid;
	unsigned port;
	int incr;
	struct fab *f2;

	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_ptr_nonnull(l = rt_lfts_new(g));
	ck_assert_int_eq(rt_route_loom(g, l, err, sizeof(err)), 0);
	first_uplink(g, &guid, &port);
	ck_assert_ptr_nonnull(f2 = fab_dup(f));
	for (size_t s = 0; s < g->n_sw; s++)
		if (g->sw[s].guid == guid)
			for (uint32_t k = 0; k < g->sw[s].n_links; k++)
				ck_assert_int_eq(fab_unlink(f2, guid,
					g->links[g->sw[s].first_link + k].port), 0);
	ck_assert_ptr_nonnull(g2 = rt_graph_new(f2, err, sizeof(err)));
	l2 = rt_loss_reroute(g, l, g2, rt_engine_find("loom"), &incr, err, sizeof(err));
	if (l2) {
		rt_loss_opts(g2, &o);
		ck_assert_int_eq(rt_loss_judge(g2, l2, &o, &after), 0);
		ck_assert_uint_gt(after.unreachable, 0);
		ck_assert_uint_eq(after.min_paths, 0);
		rt_lfts_free(l2);
	}
	rt_lfts_free(l);
	rt_graph_free(g);
	rt_graph_free(g2);
	fab_free(f);
	fab_free(f2);
}
END_TEST

/* Every field rt_graph_new fills (pool aside), and the LID indexes. */
static void graph_eq(const struct rt_graph *a, const struct rt_graph *b)
{
	ck_assert_uint_eq(a->n_sw, b->n_sw);
	ck_assert_uint_eq(a->n_ca, b->n_ca);
	ck_assert_uint_eq(a->n_ports, b->n_ports);
	ck_assert_uint_eq(a->n_links, b->n_links);
	ck_assert_uint_eq(a->max_lid, b->max_lid);
	ck_assert_int_eq(a->lids_assigned, b->lids_assigned);
	ck_assert_int_eq(memcmp(a->sw, b->sw, a->n_sw * sizeof(*a->sw)), 0);
	ck_assert_int_eq(memcmp(a->ca, b->ca, a->n_ca * sizeof(*a->ca)), 0);
	for (size_t p = 0; p < a->n_ports; p++) {
		ck_assert_uint_eq(a->ports[p].kind, b->ports[p].kind);
		ck_assert_int_eq(a->ports[p].peer, b->ports[p].peer);
		ck_assert_uint_eq(a->ports[p].peer_port, b->ports[p].peer_port);
	}
	ck_assert_int_eq(memcmp(a->links, b->links, a->n_links * sizeof(*a->links)), 0);
	for (unsigned lid = 0; lid <= a->max_lid; lid++) {
		ck_assert_int_eq(rt_graph_lid_switch(a, lid), rt_graph_lid_switch(b, lid));
		ck_assert_int_eq(rt_graph_lid_ca(a, lid), rt_graph_lid_ca(b, lid));
	}
}

START_TEST(graph_without_cables_is_the_graph_of_the_fabric_without_them)
{
	struct fg_fabric fg;
	struct fab *f, *f2;
	struct rt_graph *g, *g2, *ref;
	struct rt_cut cuts[4];
	char err[256];
	unsigned ca_port = 0;
	size_t leaf = SIZE_MAX;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
		.radix = 8, .hosts = 64, .rails = 1 }), 0);
	f = fixture_fabgen(&fg, 0);
	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_uint_gt(g->n_links, 40);
	/* Three cables: one named from both ends, one twice from one end. */
	cuts[0] = (struct rt_cut){ g->links[0].sw, g->links[0].port };
	cuts[1] = (struct rt_cut){ g->links[0].peer, g->links[0].peer_port };
	cuts[2] = (struct rt_cut){ g->links[17].sw, g->links[17].port };
	cuts[3] = cuts[2];
	ck_assert_ptr_nonnull(f2 = fab_dup(f));
	ck_assert_int_eq(fab_unlink(f2, g->sw[cuts[1].sw].guid, cuts[1].port), 0);
	ck_assert_int_eq(fab_unlink(f2, g->sw[cuts[2].sw].guid, cuts[2].port), 0);
	ck_assert_ptr_nonnull(ref = rt_graph_new(f2, err, sizeof(err)));
	g2 = rt_graph_without(g, cuts, 4, err, sizeof(err));
	ck_assert_msg(g2 != NULL, "%s", err);
	ck_assert_uint_eq(g2->n_links, g->n_links - 4);
	graph_eq(g2, ref);
	rt_graph_free(g2);
	/* No cable at all: a copy. */
	ck_assert_ptr_nonnull(g2 = rt_graph_without(g, NULL, 0, err, sizeof(err)));
	graph_eq(g2, g);
	rt_graph_free(g2);
	/* A host's cable, or no port, is refused by name. */
	for (size_t s = 0; s < g->n_sw && leaf == SIZE_MAX; s++)
		for (unsigned p = 1; p <= g->sw[s].nports; p++)
			if (rt_graph_port(g, s, p)->kind == RT_PEER_CA) {
				leaf = s;
				ca_port = p;
				break;
			}
	ck_assert_uint_ne(leaf, SIZE_MAX);
	cuts[0] = (struct rt_cut){ (int32_t)leaf, (uint8_t)ca_port };
	ck_assert_ptr_null(rt_graph_without(g, cuts, 1, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "no switch-to-switch cable"));
	cuts[0] = (struct rt_cut){ (int32_t)g->n_sw, 1 };
	ck_assert_ptr_null(rt_graph_without(g, cuts, 1, err, sizeof(err)));
	rt_graph_free(ref);
	rt_graph_free(g);
	fab_free(f);
	fab_free(f2);
}
END_TEST

/* Judge (g2, l2) both ways: every field the same. */
static void judged_alike(const struct rt_graph *g, const struct rt_lfts *l,
			 const struct rt_judged *now, const struct rt_graph *g2,
			 const struct rt_lfts *l2)
{
	struct rt_metrics_opts o;
	struct rt_judged full, after;

	rt_loss_opts(g2, &o);
	ck_assert_int_eq(rt_loss_judge(g2, l2, &o, &full), 0);
	ck_assert_int_eq(rt_loss_judge_after(g, l, now->unreachable, g2, l2, &o, &after), 0);
	ck_assert_uint_eq(after.pairs, full.pairs);
	ck_assert_uint_eq(after.unreachable, full.unreachable);
	ck_assert_uint_eq(after.shift_max_load, full.shift_max_load);
	ck_assert_double_eq(after.ebb, full.ebb);
	ck_assert_uint_eq(after.min_paths, full.min_paths);
	ck_assert_int_eq(after.min_a, full.min_a);
	ck_assert_int_eq(after.min_b, full.min_b);
	ck_assert_int_eq(after.tree, full.tree);
}

START_TEST(judging_the_moved_destinations_is_judging_every_pair)
{
	struct fg_fabric fg;
	struct fab *f;
	struct rt_graph *g, *g2;
	struct rt_lfts *l, *l2;
	struct rt_metrics_opts o;
	struct rt_judged now;
	struct rt_cut cuts[36];
	char err[256];
	size_t leaf = SIZE_MAX, lost = 0;
	int incr;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
		.radix = 8, .hosts = 64, .rails = 1 }), 0);
	f = fixture_fabgen(&fg, 0);
	ck_assert_ptr_nonnull(g = rt_graph_new(f, err, sizeof(err)));
	ck_assert_ptr_nonnull(l = rt_lfts_new(g));
	ck_assert_int_eq(rt_route_loom(g, l, err, sizeof(err)), 0);
	rt_loss_opts(g, &o);
	ck_assert_int_eq(rt_loss_judge(g, l, &o, &now), 0);
	/* One cable at a time, every fifth: rerouted incrementally. */
	for (size_t k = 0; k < g->n_links; k += 5) {
		cuts[0] = (struct rt_cut){ g->links[k].sw, g->links[k].port };
		ck_assert_ptr_nonnull(g2 = rt_graph_without(g, cuts, 1, err, sizeof(err)));
		l2 = rt_loss_reroute(g, l, g2, rt_engine_find("loom"), &incr, err, sizeof(err));
		ck_assert_msg(l2 != NULL, "%s", err);
		judged_alike(g, l, &now, g2, l2);
		rt_lfts_free(l2);
		rt_graph_free(g2);
	}
	/* A leaf cut off: its pairs lost, every other pair kept. */
	for (size_t s = 0; s < g->n_sw && leaf == SIZE_MAX; s++)
		for (unsigned p = 1; p <= g->sw[s].nports; p++)
			if (rt_graph_port(g, s, p)->kind == RT_PEER_CA && g->sw[s].n_links) {
				leaf = s;
				break;
			}
	ck_assert_uint_ne(leaf, SIZE_MAX);
	for (uint32_t k = 0; k < g->sw[leaf].n_links; k++)
		cuts[k] = (struct rt_cut){ (int32_t)leaf, g->links[g->sw[leaf].first_link + k].port };
	ck_assert_ptr_nonnull(g2 = rt_graph_without(g, cuts, g->sw[leaf].n_links, err, sizeof(err)));
	/* The tables as they are, on the graph without the cables. */
	ck_assert_ptr_nonnull(l2 = rt_lfts_new(g2));
	memcpy(l2->port, l->port, l->n_sw * ((size_t)l->max_lid + 1));
	judged_alike(g, l, &now, g2, l2);
	rt_loss_opts(g2, &o);
	{
		struct rt_judged after;

		ck_assert_int_eq(rt_loss_judge_after(g, l, now.unreachable, g2, l2, &o, &after), 0);
		lost = after.unreachable;
	}
	ck_assert_uint_gt(lost, now.unreachable);
	rt_lfts_free(l2);
	rt_graph_free(g2);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_loss");
	TCase *t = tcase_create("loss");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, paths_floor_counts_shared_spines);
	tcase_add_test(t, reroute_keeps_every_pair_off_the_removed_cable);
	tcase_add_test(t, a_leaf_cut_off_loses_pairs);
	tcase_add_test(t, graph_without_cables_is_the_graph_of_the_fabric_without_them);
	tcase_add_test(t, judging_the_moved_destinations_is_judging_every_pair);
	suite_add_tcase(s, t);
	return check_run(s);
}
