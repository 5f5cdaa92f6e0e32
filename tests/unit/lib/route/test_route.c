/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route.c: the routing graph, the forwarding tables and
 * their dump, the balanced min-hop engine and the metrics, on small
 * topologies checked by hand, plus a large fat tree for speed. */
#include "autoconf.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "lib/fabric/topo_file.h"
#include "tests/unit/fixtures/check_run.h"

/* Switch GUIDs 0x1000 + 0x100 * i, CA GUIDs 0x100000 + 0x100 * i: CAs sort
 * after switches and port GUIDs (node + port) never collide. */
#define SW(i) (0x1000ULL + 0x100ULL * (i))
#define CA(i) (0x100000ULL + 0x100ULL * (i))

/* Min-hop tables and metrics (every shift, 4 random permutations) of f,
 * which is freed. */
static struct routed route(struct fab *f)
{
	static const struct rt_metrics_opts opts = { .max_shifts = 0, .n_random = 4,
						     .seed = 42 };
	struct routed r = fixture_route(f, rt_route_minhop, &opts);

	ck_assert_msg(r.rc == 0, "minhop: %s", r.err);
	return r;
}

/* One switch (LID 1), CAs 0..3 on ports 1..4 with LIDs 2..5. */
static struct fab *one_switch(void)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 8, "sw0", 1);
	for (unsigned i = 0; i < 4; i++) {
		char desc[32];

		snprintf(desc, sizeof(desc), "host%u mlx5_0", i);
		fixture_node(f, IBT_NODE_CA, CA(i), 1, desc, (uint16_t)(2 + i));
		fixture_link(f, SW(0), 1 + i, CA(i), 1);
	}
	return f;
}

START_TEST(single_switch_sends_each_lid_out_its_ca_port_and_itself_to_port_0)
{
	struct routed r = route(one_switch());

	ck_assert_uint_eq(r.g->n_sw, 1);
	ck_assert_uint_eq(r.g->n_ca, 4);
	ck_assert_uint_eq(r.g->max_lid, 5);
	ck_assert_int_eq(r.g->lids_assigned, 0);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 1), 0);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(r.g->ca[i].sw, 0);
		ck_assert_uint_eq(r.g->ca[i].sw_port, 1 + i);
		ck_assert_uint_eq(rt_lfts_get(r.l, 0, 2 + i), 1 + i);
	}
	/* Ports 5..8 are uncabled, LID 0 is nobody's. */
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 0), RT_NO_PORT);
	ck_assert_uint_eq(rt_graph_port(r.g, 0, 5)->kind, RT_PEER_NONE);
	ck_assert_uint_eq(r.l->n_routed, 5);
	ck_assert_uint_eq(r.l->n_unreachable, 0);
	fixture_assert_all_delivered(&r.m, 4);
	ck_assert_uint_eq(r.m.max_hops, 0);
	/* Each switch-to-CA link carries the 3 pairs toward its CA. */
	ck_assert_uint_eq(r.m.efi_links, 4);
	ck_assert_uint_eq(r.m.efi_max, 3);
	ck_assert(fabs(r.m.efi_mean - 3.0) < 1e-9);
	ck_assert_uint_eq(r.m.shifts, 3);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	ck_assert_uint_eq(r.m.randoms, 4);
	ck_assert_uint_eq(r.m.random_max_load, 1);
	fixture_routed_free(&r);
}
END_TEST

/* sw0 (LID 1) and sw1 (LID 2) cabled twice: ports 3-3 and 4-4. CAs 0, 1 on
 * sw0 ports 1, 2 (LIDs 3, 4); CAs 2, 3 on sw1 ports 1, 2 (LIDs 5, 6). */
static struct fab *two_switches_two_cables(void)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "sw0", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW(1), 4, "sw1", 2);
	for (unsigned i = 0; i < 4; i++) {
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(3 + i));
		fixture_link(f, SW(i / 2), 1 + i % 2, CA(i), 1);
	}
	fixture_link(f, SW(0), 3, SW(1), 3);
	fixture_link(f, SW(0), 4, SW(1), 4);
	return f;
}

START_TEST(parallel_links_share_the_remote_ca_lids)
{
	struct routed r = route(two_switches_two_cables());

	/* Both cables are listed from both ends. */
	ck_assert_uint_eq(r.g->n_links, 4);
	ck_assert_uint_eq(r.g->sw[0].n_links, 2);
	ck_assert_int_eq(r.g->links[r.g->sw[0].first_link].peer, 1);
	ck_assert_uint_eq(r.g->links[r.g->sw[0].first_link].port, 3);
	ck_assert_uint_eq(r.g->links[r.g->sw[0].first_link + 1].peer_port, 4);
	/* sw0: CA 2 (LID 5) over one cable, CA 3 (LID 6) over the other; the
	 * switch LID 2 does not count as load, so LID 5 still finds both free. */
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 2), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 5), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 6), 4);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 3), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 4), 4);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 5), 1);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 2), 0);
	fixture_assert_all_delivered(&r.m, 4);
	ck_assert_uint_eq(r.m.max_hops, 1);
	/* Each cable direction carries the 2 pairs toward one remote CA; each
	 * CA link the 3 pairs toward its CA. */
	ck_assert_uint_eq(r.m.efi_links, 8);
	ck_assert_uint_eq(r.m.efi_max, 3);
	ck_assert(fabs(r.m.efi_mean - (4 * 3 + 4 * 2) / 8.0) < 1e-9);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(line_of_three_switches_forwards_through_the_middle)
{
	struct fab *f = fab_new("ib0");
	struct routed r;

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < 3; i++) {
		fixture_node(f, IBT_NODE_SWITCH, SW(i), 4, "sw", (uint16_t)(1 + i));
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(4 + i));
		fixture_link(f, SW(i), 1, CA(i), 1);
	}
	fixture_link(f, SW(0), 2, SW(1), 2);
	fixture_link(f, SW(1), 3, SW(2), 2);
	r = route(f);
	/* CA 2 (LID 6) from sw0: out port 2, then sw1 port 3, then sw2 port 1. */
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 6), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 6), 3);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 6), 1);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 4), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 1, 4), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 1), 2);
	fixture_assert_all_delivered(&r.m, 3);
	ck_assert_uint_eq(r.m.max_hops, 2);
	/* Every directed link carries exactly 2 pairs (e.g. sw0 -> sw1: CA 0 to
	 * CAs 1 and 2; sw1 -> CA 1: from CAs 0 and 2). */
	ck_assert_uint_eq(r.m.efi_links, 7);
	ck_assert_uint_eq(r.m.efi_max, 2);
	ck_assert(fabs(r.m.efi_mean - 2.0) < 1e-9);
	fixture_routed_free(&r);
}
END_TEST

/* A 2-level fat tree of 4-port switches: spines 0, 1 (LIDs 1, 2), leaves
 * 2..5 (LIDs 3..6); leaf i has hosts 2i, 2i+1 on ports 1, 2 (LIDs 7..14)
 * and goes up to spine 0 on port 3, spine 1 on port 4; spine port i+1 goes
 * down to leaf i. */
static struct fab *fat_tree_2x4(void)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	for (unsigned s = 0; s < 2; s++)
		fixture_node(f, IBT_NODE_SWITCH, SW(s), 4, "spine", (uint16_t)(1 + s));
	for (unsigned i = 0; i < 4; i++) {
		fixture_node(f, IBT_NODE_SWITCH, SW(2 + i), 4, "leaf", (uint16_t)(3 + i));
		for (unsigned h = 0; h < 2; h++) {
			fixture_node(f, IBT_NODE_CA, CA(2 * i + h), 1, "host",
				     (uint16_t)(7 + 2 * i + h));
			fixture_link(f, SW(2 + i), 1 + h, CA(2 * i + h), 1);
		}
		fixture_link(f, SW(2 + i), 3, SW(0), 1 + i);
		fixture_link(f, SW(2 + i), 4, SW(1), 1 + i);
	}
	return f;
}

START_TEST(fat_tree_minhop_alternates_spines_and_is_nonblocking_for_shifts)
{
	struct routed r = route(fat_tree_2x4());

	/* Leaf 0 (switch 2) sends the remote hosts' LIDs up alternately: even
	 * hosts (LIDs 9, 11, 13) to spine 0, odd ones to spine 1. */
	for (unsigned lid = 9; lid <= 14; lid++)
		ck_assert_uint_eq(rt_lfts_get(r.l, 2, lid), lid % 2 ? 3 : 4);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 7), 1);
	ck_assert_uint_eq(rt_lfts_get(r.l, 2, 8), 2);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 13), 4);  /* spine 0 down to leaf 3 */
	fixture_assert_all_delivered(&r.m, 8);
	ck_assert_uint_eq(r.m.max_hops, 2);
	/* By hand: with even hosts over spine 0 and odd over spine 1, the two
	 * hosts of a leaf always send a shift to one even and one odd host, so
	 * no uplink carries 2 flows; each downlink leads to one host. */
	ck_assert_uint_eq(r.m.shifts, 7);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	/* EFI: an uplink carries 3 remote hosts x 2 sources = 6, a downlink
	 * spine -> leaf 6, a leaf -> host link 7; 8 local pairs x 1 link + 48
	 * remote pairs x 3 links over 24 directed links. */
	ck_assert_uint_eq(r.m.efi_links, 24);
	ck_assert_uint_eq(r.m.efi_max, 7);
	ck_assert(fabs(r.m.efi_mean - 152.0 / 24.0) < 1e-9);
	ck_assert_uint_eq(r.m.randoms, 4);
	ck_assert_uint_ge(r.m.random_max_load, 1);
	ck_assert_uint_le(r.m.random_max_load, 2);
	fixture_routed_free(&r);
}
END_TEST

/* On the 2x4 tree a random permutation's worst link carries 1 or 2 flows,
 * so the worst loads are 1 + Bernoulli(p) with p = mean - 1, whose
 * standard error over n draws is sqrt(p (1 - p) / (n - 1)). One draw has
 * no spread to speak of: 0. */
START_TEST(random_mean_carries_its_standard_error)
{
	struct routed r = route(fat_tree_2x4());
	struct rt_metrics_opts opts = { .n_random = 400, .seed = 5 };
	struct rt_metrics m;
	double p;

	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &m), 0);
	p = m.random_mean_load - 1;
	ck_assert_msg(p > 0 && p < 1, "mean %f: both loads should occur", m.random_mean_load);
	ck_assert(fabs(m.random_mean_se - sqrt(p * (1 - p) / 399.0)) < 1e-9);
	opts.n_random = 1;
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &m), 0);
	ck_assert(m.random_mean_se == 0);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(shift_sampling_evaluates_only_the_asked_number_of_shifts)
{
	struct routed r = route(fat_tree_2x4());
	struct rt_metrics_opts opts = { .max_shifts = 3, .n_random = 2, .seed = 7 };
	struct rt_metrics m, again;

	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &m), 0);
	ck_assert_uint_eq(m.shifts, 3);
	ck_assert_uint_eq(m.shift_max_load, 1);
	ck_assert_uint_eq(m.randoms, 2);
	/* Same seed, same permutations. */
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &again), 0);
	ck_assert_uint_eq(again.random_max_load, m.random_max_load);
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, NULL, &m), 0);
	ck_assert_uint_eq(m.shifts, 7);
	ck_assert_uint_eq(m.randoms, 0);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(disconnected_parts_are_counted_unreachable_not_fatal)
{
	struct fab *f = fab_new("ib0");
	struct routed r;

	ck_assert_ptr_nonnull(f);
	/* sw0 with CAs 0, 1; sw1 with CA 2, not cabled to sw0; CAs 3 and 4
	 * cabled to each other, no switch at all. */
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "sw0", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW(1), 4, "sw1", 2);
	for (unsigned i = 0; i < 5; i++)
		fixture_node(f, IBT_NODE_CA, CA(i), 1, "host", (uint16_t)(3 + i));
	fixture_link(f, SW(0), 1, CA(0), 1);
	fixture_link(f, SW(0), 2, CA(1), 1);
	fixture_link(f, SW(1), 1, CA(2), 1);
	fixture_link(f, CA(3), 1, CA(4), 1);
	r = route(f);
	ck_assert_uint_eq(r.g->n_ca, 5);
	ck_assert_int_eq(r.g->ca[3].sw, -1);
	ck_assert_int_eq(r.g->ca[4].sw, -1);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 5), RT_NO_PORT);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 2), RT_NO_PORT);
	ck_assert_uint_eq(rt_lfts_get(r.l, 0, 6), RT_NO_PORT);
	/* sw0 misses LIDs 2, 5, 6, 7; sw1 misses 1, 3, 4, 6, 7. */
	ck_assert_uint_eq(r.l->n_unreachable, 9);
	ck_assert_uint_eq(r.l->n_routed, 5);
	ck_assert_uint_eq(r.m.pairs, 20);
	ck_assert_uint_eq(r.m.delivered, 2);
	ck_assert_uint_eq(r.m.unreachable, 18);
	ck_assert_uint_eq(r.m.loops, 0);
	ck_assert_uint_eq(r.m.shift_max_load, 1);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(metrics_walk_the_tables_and_catch_loops_and_dead_ends)
{
	struct routed r = route(two_switches_two_cables());
	struct rt_metrics m;

	/* Bounce LID 5 (CA 2) between the switches: sw1 sends it back. */
	rt_lfts_set(r.l, 1, 5, 3);
	/* Send LID 6 (CA 3) out of sw1 to the wrong CA. */
	rt_lfts_set(r.l, 1, 6, 1);
	/* And LID 3 (CA 0) out of sw1 into an uncabled port... there is none on a
	 * 4-port switch with all cabled, so drop it instead. */
	rt_lfts_set(r.l, 1, 3, RT_NO_PORT);
	ck_assert_int_eq(rt_metrics_compute(r.g, r.l, NULL, &m), 0);
	ck_assert_uint_eq(m.pairs, 12);
	/* Toward CA 2: from CAs 0, 1, 3 all loop. Toward CA 3: from 0, 1, 2 all
	 * reach CA 2 instead. Toward CA 0: from 2 and 3 dropped at sw1. */
	ck_assert_uint_eq(m.loops, 3);
	ck_assert_uint_eq(m.unreachable, 5);
	ck_assert_uint_eq(m.delivered, 4);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(missing_lids_are_assigned_switches_first_in_guid_order)
{
	struct fab *f = fab_new("ib0");
	struct rt_graph *g;
	char err[256];

	ck_assert_ptr_nonnull(f);
	/* Added out of order, one CA with a LID: all are reassigned anyway. */
	fixture_node(f, IBT_NODE_CA, CA(1), 2, "host1", 0);
	fixture_node(f, IBT_NODE_SWITCH, SW(1), 4, "sw1", 0);
	fixture_node(f, IBT_NODE_CA, CA(0), 1, "host0", 9);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "sw0", 0);
	fixture_node(f, IBT_NODE_CA, CA(2), 1, "unplugged", 0);
	fixture_link(f, SW(0), 1, CA(0), 1);
	fixture_link(f, SW(1), 1, CA(1), 2);
	fixture_link(f, SW(1), 2, CA(1), 1);
	fixture_link(f, SW(0), 4, SW(1), 4);
	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_int_eq(g->lids_assigned, 1);
	ck_assert_uint_eq(g->n_sw, 2);
	ck_assert_uint_eq(g->n_ca, 3);   /* the unplugged CA is no endpoint */
	ck_assert_uint_eq(g->sw[0].guid, SW(0));
	ck_assert_uint_eq(g->sw[0].lid, 1);
	ck_assert_uint_eq(g->sw[1].lid, 2);
	ck_assert_uint_eq(g->ca[0].node_guid, CA(0));
	ck_assert_uint_eq(g->ca[0].lid, 3);
	ck_assert_uint_eq(g->ca[1].guid, CA(1) + 1);
	ck_assert_uint_eq(g->ca[1].lid, 4);
	ck_assert_uint_eq(g->ca[1].sw_port, 2);
	ck_assert_uint_eq(g->ca[2].port, 2);
	ck_assert_uint_eq(g->ca[2].lid, 5);
	ck_assert_uint_eq(g->max_lid, 5);
	ck_assert_int_eq(rt_graph_lid_ca(g, 5), 2);
	ck_assert_int_eq(rt_graph_lid_switch(g, 2), 1);
	ck_assert_int_eq(rt_graph_lid_switch(g, 6), -1);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(duplicate_lids_are_refused_with_a_reason)
{
	struct fab *f = one_switch();
	struct rt_graph *g;
	char err[256] = "";

	fab_find(f, CA(2))->ports[1].lid = 3;
	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_ptr_null(g);
	ck_assert_msg(strstr(err, "LID 3") != NULL, "%s", err);
	fab_free(f);
}
END_TEST

START_TEST(dump_has_the_dump_fts_format)
{
	struct fab *f = fab_new("ib0");
	struct routed r;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW(0), 4, "Switch-1", 2);
	fixture_node(f, IBT_NODE_CA, CA(0), 1, "Hca-A", 1);
	fixture_node(f, IBT_NODE_CA, CA(1), 1, "Hca-B", 4);
	fixture_link(f, SW(0), 1, CA(0), 1);
	fixture_link(f, SW(0), 2, CA(1), 1);
	r = route(f);
	out = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(rt_lfts_write_dump(r.g, r.l, out), 0);
	fclose(out);
	/* As dump_fts printed it for ibsim's tests/fabrics/tiny.net after
	 * OpenSM (LID 3 there is a second port of Hca-A; here nobody's). */
	ck_assert_str_eq(text,
		"Unicast lids [0x0-0x4] of switch Lid 2 guid 0x0000000000001000 (Switch-1):\n"
		"  Lid  Out   Destination\n"
		"       Port     Info \n"
		"0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca-A')\n"
		"0x0002 000 : (Switch portguid 0x0000000000001000: 'Switch-1')\n"
		"0x0004 002 : (Channel Adapter portguid 0x0000000000100101: 'Hca-B')\n"
		"3 valid lids dumped \n");
	free(text);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(empty_fabric_gives_empty_tables_and_zero_metrics)
{
	struct fab *f = fab_new("ib0");
	struct routed r;

	ck_assert_ptr_nonnull(f);
	r = route(f);
	ck_assert_uint_eq(r.g->n_sw, 0);
	ck_assert_uint_eq(r.g->n_ca, 0);
	ck_assert_uint_eq(r.l->n_routed, 0);
	ck_assert_uint_eq(r.m.pairs, 0);
	ck_assert_uint_eq(r.m.shifts, 0);
	ck_assert_uint_eq(r.m.efi_links, 0);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(a_written_dump_reads_back_to_the_same_tables)
{
	struct routed r = route(fat_tree_2x4());
	struct rt_lfts *back;
	size_t missing = 99;
	char err[256] = "";
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(rt_lfts_write_dump(r.g, r.l, f), 0);
	rewind(f);
	back = rt_lfts_read_dump(r.g, f, "mem", &missing, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_uint_eq(missing, 0);
	ck_assert_int_eq(memcmp(back->port, r.l->port, r.g->n_sw * ((size_t)r.g->max_lid + 1)), 0);
	fclose(f);
	rt_lfts_free(back);
	fixture_routed_free(&r);
}
END_TEST

/* demo-ft2.fts is what dump_fts read back from ibsim after OpenSM routed
 * the fabric captured in demo-ft2.ibnd: OpenSM's tables, judged by loom. */
START_TEST(dump_fts_output_of_opensms_tables_reads_and_delivers_every_pair)
{
	char err[512] = "";
	struct fab *fab = topo_file_read(fixture_path("demo-ft2.ibnd"), "ib0", err, sizeof(err));
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rt_metrics m;
	size_t missing = 99;
	FILE *f;

	ck_assert_msg(fab != NULL, "%s", err);
	g = rt_graph_new(fab, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_int_eq(g->lids_assigned, 0);
	f = fopen(fixture_path("demo-ft2.fts"), "r");
	ck_assert_ptr_nonnull(f);
	l = rt_lfts_read_dump(g, f, "demo-ft2.fts", &missing, err, sizeof(err));
	ck_assert_msg(l != NULL, "%s", err);
	fclose(f);
	ck_assert_uint_eq(missing, 0);
	ck_assert_int_eq(rt_metrics_compute(g, l, NULL, &m), 0);
	ck_assert_uint_eq(m.pairs, 32 * 31);
	ck_assert_uint_eq(m.delivered, m.pairs);
	ck_assert_uint_eq(m.loops, 0);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(fab);
}
END_TEST

START_TEST(a_bad_dump_is_refused_with_its_line)
{
	struct routed r = route(fat_tree_2x4());
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "Unicast lids [0x0-0x4] of switch Lid 9 guid 0x00000000000000ff (x):\n",
		  "mem:1: switch 0x00000000000000ff is not in the topology" },
		{ "\n0x0001 001 : (x)\n", "mem:2: an entry before any" },
		{ "Unicast lids [0x0-0x4] of switch Lid 1 guid 0x0000000000001000 (s):\n"
		  "0x0001 009 : (x)\n", "mem:2: port 9, but spine has 4 ports" },
		{ "Unicast lids [0x0-0x4] of switch Lid 1 (s):\n", "mem:1: a table header without" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		size_t missing;
		FILE *f = fmemopen((void *)cases[i].text, strlen(cases[i].text), "r");

		ck_assert_ptr_null(rt_lfts_read_dump(r.g, f, "mem", &missing, err, sizeof(err)));
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: %s", i, err);
		fclose(f);
	}
	fixture_routed_free(&r);
}
END_TEST

/* A full 3-level fat tree of 36-port switches: 36 pods of 18 leaves and 18
 * middle switches, 324 tops; 11664 hosts, 1620 switches, no LIDs (assigned).
 * Leaf (p, i) port 19 + j goes up to middle (p, j) port 1 + i; middle
 * (p, j) port 19 + t to top 18 j + t port 1 + p. */
static struct fab *fat_tree_3level(unsigned pods)
{
	struct fab *f = fab_new("ib0");
	uint64_t leaf = 0x1000000, mid = 0x2000000, top = 0x3000000, host = 0x10000000;

	ck_assert_ptr_nonnull(f);
	for (unsigned t = 0; t < 18 * 18; t++)
		fixture_node(f, IBT_NODE_SWITCH, top + 0x100 * t, 36, "top", 0);
	for (unsigned p = 0; p < pods; p++) {
		for (unsigned i = 0; i < 18; i++) {
			uint64_t lg = leaf + 0x100 * (18 * p + i), mg = mid + 0x100 * (18 * p + i);

			fixture_node(f, IBT_NODE_SWITCH, lg, 36, "leaf", 0);
			fixture_node(f, IBT_NODE_SWITCH, mg, 36, "mid", 0);
			for (unsigned h = 0; h < 18; h++) {
				uint64_t hg = host + 0x100 * (324 * p + 18 * i + h);

				fixture_node(f, IBT_NODE_CA, hg, 1, "host", 0);
				fixture_link(f, lg, 1 + h, hg, 1);
			}
		}
		for (unsigned i = 0; i < 18; i++)
			for (unsigned j = 0; j < 18; j++)
				fixture_link(f, leaf + 0x100 * (18 * p + i), 19 + j,
					     mid + 0x100 * (18 * p + j), 1 + i);
		for (unsigned j = 0; j < 18; j++)
			for (unsigned t = 0; t < 18; t++)
				fixture_link(f, mid + 0x100 * (18 * p + j), 19 + t,
					     top + 0x100 * (18 * j + t), 1 + p);
	}
	return f;
}

START_TEST(large_fat_tree_routes_fast_and_delivers_every_pair)
{
	const int quick = getenv("LOOM_TEST_QUICK") && *getenv("LOOM_TEST_QUICK");
	unsigned pods = quick ? 8 : 36;
	struct rt_metrics_opts opts = { .max_shifts = 64, .n_random = 4, .seed = 1 };
	struct fab *f = fat_tree_3level(pods);
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rt_metrics m;
	char err[256];
	double t0, t1, t2, t3;

	t0 = fixture_now();
	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	t1 = fixture_now();
	l = rt_lfts_new(g);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(rt_route_minhop(g, l, err, sizeof(err)), 0);
	t2 = fixture_now();
	ck_assert_int_eq(rt_metrics_compute(g, l, &opts, &m), 0);
	t3 = fixture_now();
	printf("fat tree %zu hosts %zu switches: graph %.3f s, minhop %.3f s, metrics %.3f s "
	       "(efi max %zu mean %.1f, shift worst %zu at k=%zu over %zu, random worst %zu)\n",
	       g->n_ca, g->n_sw, t1 - t0, t2 - t1, t3 - t2, m.efi_max, m.efi_mean,
	       m.shift_max_load, m.shift_worst_k, m.shifts, m.random_max_load);
	ck_assert_uint_eq(g->n_ca, 324 * pods);
	ck_assert_uint_eq(l->n_unreachable, 0);
	fixture_assert_all_delivered(&m, g->n_ca);
	ck_assert_uint_eq(m.max_hops, 4);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route");
	TCase *tc = tcase_create("route");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, single_switch_sends_each_lid_out_its_ca_port_and_itself_to_port_0);
	tcase_add_test(tc, parallel_links_share_the_remote_ca_lids);
	tcase_add_test(tc, line_of_three_switches_forwards_through_the_middle);
	tcase_add_test(tc, fat_tree_minhop_alternates_spines_and_is_nonblocking_for_shifts);
	tcase_add_test(tc, shift_sampling_evaluates_only_the_asked_number_of_shifts);
	tcase_add_test(tc, random_mean_carries_its_standard_error);
	tcase_add_test(tc, disconnected_parts_are_counted_unreachable_not_fatal);
	tcase_add_test(tc, metrics_walk_the_tables_and_catch_loops_and_dead_ends);
	tcase_add_test(tc, missing_lids_are_assigned_switches_first_in_guid_order);
	tcase_add_test(tc, duplicate_lids_are_refused_with_a_reason);
	tcase_add_test(tc, dump_has_the_dump_fts_format);
	tcase_add_test(tc, empty_fabric_gives_empty_tables_and_zero_metrics);
	tcase_add_test(tc, a_written_dump_reads_back_to_the_same_tables);
	tcase_add_test(tc, dump_fts_output_of_opensms_tables_reads_and_delivers_every_pair);
	tcase_add_test(tc, a_bad_dump_is_refused_with_its_line);
	tcase_add_test(tc, large_fat_tree_routes_fast_and_delivers_every_pair);
	suite_add_tcase(s, tc);
	return check_run(s);
}
