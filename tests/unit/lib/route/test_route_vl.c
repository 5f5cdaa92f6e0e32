/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_vl.c: credit loops judged per virtual lane
 * (route_metrics.h with lib/route/route_sl2vl.h's SL-to-VL tables) on a ring
 * of 4 switches, one host each, every path clockwise, tables and SL2VL
 * written by hand:
 *  - one SL on one VL: the ring's 4 channels form a cycle, named in order;
 *  - the same tables split over two VLs by a dateline (the link sw3 -> sw0):
 *    the SL of a path is its source's index, and a switch's table puts SL j
 *    on VL 1 once the path has crossed the dateline (switch i < j): free,
 *    with one crossing from VL 0 to VL 1;
 *  - the same SLs with every table flattened to VL 0: the cycle again;
 *  - the first hop's VL is the table of the CA port the path came in by:
 *    sw0 sending host0's paths on VL 1 adds that VL and one crossing back
 *    to VL 0, the ring's cycle on VL 0 stays;
 *  - a table that sends transit traffic to VL 1 at sw0 for one hop and back
 *    to VL 0 after it: no VL alone has a cycle, but the crossings lead back
 *    to VL 0, which is judged a credit loop;
 *  - the SL file: what rt_sls_write writes rt_sls_read reads back, and a
 *    bad line is refused with its number. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_sl2vl.h"
#include "tests/unit/fixtures/check_run.h"

#define N 4
#define SW(i) (0x1000ULL * ((i) + 1))
#define HOST(i) (0x100000ULL + (i))

/* sw_i port 1: host i (LID 5 + i); port 2 -> port 3 of sw_(i+1 mod 4). */
static struct rt_graph *ring(struct fab **fp)
{
	struct fab *f = fab_new("ring");
	struct rt_graph *g;
	char err[256], desc[32];

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < N; i++) {
		snprintf(desc, sizeof(desc), "sw-%d", i);
		fixture_node(f, IBT_NODE_SWITCH, SW(i), 4, desc, (uint16_t)(i + 1));
		snprintf(desc, sizeof(desc), "host%d mlx5_0", i);
		fixture_node(f, IBT_NODE_CA, HOST(i), 1, desc, (uint16_t)(5 + i));
	}
	for (int i = 0; i < N; i++) {
		fixture_link(f, HOST(i), 1, SW(i), 1);
		fixture_link(f, SW(i), 2, SW((i + 1) % N), 3);
	}
	fab_sort(f);
	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	*fp = f;
	return g;
}

/* Clockwise tables; with sls, SL = the source switch's index. */
static struct rt_lfts *clockwise(const struct rt_graph *g, int sls)
{
	struct rt_lfts *l = rt_lfts_new(g);

	ck_assert_ptr_nonnull(l);
	for (size_t s = 0; s < N; s++)
		for (unsigned lid = 1; lid <= 8; lid++)
			rt_lfts_set(l, s, lid, lid == s + 1 ? 0 : lid == s + 5 ? 1 : 2);
	if (sls) {
		ck_assert_int_eq(rt_lfts_sl_alloc(l), 0);
		for (size_t s = 0; s < N; s++)
			for (unsigned lid = 0; lid <= l->max_lid; lid++)
				l->sl[s * ((size_t)l->max_lid + 1) + lid] = (uint8_t)s;
	}
	return l;
}

/* Every (in, out) pair of every switch: vl_of(switch, SL). */
static struct rt_sl2vl *tables(const struct rt_graph *g, uint8_t (*vl_of)(size_t, unsigned))
{
	struct rt_sl2vl *t = rt_sl2vl_new(g);

	ck_assert_ptr_nonnull(t);
	for (size_t s = 0; s < N; s++)
		for (unsigned in = 1; in <= 3; in++) {
			uint8_t vl[RT_SLS];

			for (unsigned sl = 0; sl < RT_SLS; sl++)
				vl[sl] = vl_of(s, sl);
			ck_assert_int_eq(rt_sl2vl_set(t, s, in, 2, vl), 0);
			ck_assert_int_eq(rt_sl2vl_set(t, s, in, 1, vl), 0);
		}
	return t;
}

static uint8_t dateline(size_t s, unsigned sl)
{
	return sl < N && s < sl ? 1 : 0;
}

static uint8_t flat(size_t s, unsigned sl)
{
	(void)s;
	(void)sl;
	return 0;
}

static void judge(const struct rt_graph *g, const struct rt_lfts *l, const struct rt_sl2vl *t,
		  struct rt_metrics *m)
{
	struct rt_metrics_opts o = { .sl2vl = t, .no_permutations = 1 };

	ck_assert_int_eq(rt_metrics_compute(g, l, &o, m), 0);
	ck_assert_uint_eq(m->delivered, N * (N - 1));
}

/* The cycle is the 4 ring channels, each followed by the next switch's. */
static void assert_ring_cycle(const struct rt_graph *g, const struct rt_metrics *m)
{
	ck_assert_int_eq(m->cdg_acyclic, 0);
	ck_assert_int_eq(m->cdg_cycle_vl, 0);
	ck_assert_uint_eq(m->cdg_cycle_len, N);
	for (size_t i = 0; i < N; i++) {
		uint32_t c = m->cdg_cycle[i], next = m->cdg_cycle[(i + 1) % N];
		const struct rt_port *p = &g->ports[c];

		ck_assert_int_eq(p->kind, RT_PEER_SWITCH);
		ck_assert_uint_eq(next, rt_graph_port_index(g, (size_t)p->peer, 2));
	}
}

START_TEST(one_vl_ring_has_a_cycle)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 0);
	struct rt_metrics m;

	judge(g, l, NULL, &m);  /* no tables: SL 0 on VL 0 */
	assert_ring_cycle(g, &m);
	ck_assert_int_eq(m.cdg_sl2vl, 0);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(dateline_splits_the_ring_over_two_vls)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 1);
	struct rt_sl2vl *t = tables(g, dateline);
	struct rt_metrics m;

	judge(g, l, t, &m);
	ck_assert_int_eq(m.cdg_acyclic, 1);
	ck_assert_int_eq(m.cdg_cycle_vl, -1);
	ck_assert_int_eq(m.cdg_sl2vl, 1);
	ck_assert_uint_eq(m.cdg_vls, 2);
	ck_assert_uint_eq(m.cdg_vl_changes, 1);
	ck_assert_int_eq(m.cdg_vl_loop, 0);
	/* Without the tables, the SLs alone (SL s on VL s) would say free too:
	 * each source's paths on a VL of their own. */
	rt_sl2vl_free(t);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(flattened_sl2vl_brings_the_cycle_back)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 1);
	struct rt_sl2vl *t = tables(g, flat);
	struct rt_metrics m;

	judge(g, l, t, &m);
	assert_ring_cycle(g, &m);
	ck_assert_uint_eq(m.cdg_vls, 1);
	/* The same SLs judged as VL = SL (before SL2VL was read) say free:
	 * the wrong answer this judge exists for. */
	judge(g, l, NULL, &m);
	ck_assert_int_eq(m.cdg_acyclic, 1);
	rt_sl2vl_free(t);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(first_hop_takes_the_ca_ports_table)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 0);
	struct rt_sl2vl *t = rt_sl2vl_new(g);
	static const uint8_t one[RT_SLS] = { 1 };
	struct rt_metrics m;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(rt_sl2vl_set(t, 0, 1, 2, one), 0);  /* in from host0 */
	judge(g, l, t, &m);
	ck_assert_uint_eq(m.cdg_vls, 2);
	ck_assert_uint_eq(m.cdg_vl_changes, 1);
	ck_assert_int_eq(m.cdg_vl_loop, 0);
	assert_ring_cycle(g, &m);
	rt_sl2vl_free(t);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(crossings_back_to_a_vl_are_a_loop)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 0);
	struct rt_sl2vl *t = rt_sl2vl_new(g);
	static const uint8_t one[RT_SLS] = { 1 };
	struct rt_metrics m;

	ck_assert_ptr_nonnull(t);
	/* sw0 sends what came round the ring (port 3) on VL 1; sw1 puts it
	 * back on VL 0. */
	ck_assert_int_eq(rt_sl2vl_set(t, 0, 3, 2, one), 0);
	judge(g, l, t, &m);
	ck_assert_int_eq(m.cdg_acyclic, 0);
	ck_assert_int_eq(m.cdg_vl_loop, 1);
	ck_assert_int_eq(m.cdg_cycle_vl, -1);
	ck_assert_uint_eq(m.cdg_vl_changes, 2);
	rt_sl2vl_free(t);
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

START_TEST(sl_file_round_trip)
{
	struct fab *f;
	struct rt_graph *g = ring(&f);
	struct rt_lfts *l = clockwise(g, 1), *back = clockwise(g, 0);
	char *buf = NULL, err[256] = "";
	size_t len = 0, n = 0;
	FILE *mem = open_memstream(&buf, &len), *in;
	static char bad[] = "sls 8 1\n0x00000000000000ff 000000000\n";

	l->n_vls = 4;
	ck_assert_int_eq(rt_sls_write(g, l, NULL, NULL, mem), 0);
	fclose(mem);
	in = fmemopen(buf, len, "r");
	ck_assert_int_eq(rt_sls_read(g, back, in, "sls", &n, err, sizeof(err)), 0);
	fclose(in);
	ck_assert_uint_eq(n, N);
	ck_assert_uint_eq(back->n_vls, 4);
	ck_assert_int_eq(memcmp(back->sl, l->sl, (size_t)N * (l->max_lid + 1)), 0);
	/* A switch the fabric lacks: refused with the line. */
	in = fmemopen(bad, strlen(bad), "r");
	ck_assert_int_eq(rt_sls_read(g, back, in, "sls", &n, err, sizeof(err)), -EINVAL);
	fclose(in);
	ck_assert_msg(strstr(err, "sls:2: switch 0x00000000000000ff") != NULL, "%s", err);
	free(buf);
	rt_lfts_free(l);
	rt_lfts_free(back);
	rt_graph_free(g);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_vl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, one_vl_ring_has_a_cycle);
	tcase_add_test(tc, dateline_splits_the_ring_over_two_vls);
	tcase_add_test(tc, flattened_sl2vl_brings_the_cycle_back);
	tcase_add_test(tc, first_hop_takes_the_ca_ports_table);
	tcase_add_test(tc, crossings_back_to_a_vl_are_a_loop);
	tcase_add_test(tc, sl_file_round_trip);
	suite_add_tcase(s, tc);
	return check_run(s);
}
