/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_live.c: judging and tracing tables read back from
 * switches (lib/route/route_live.h) on a line of two switches with a host on
 * each, tables written by hand: every pair delivered, the hops of a trace,
 * endpoints found by every kind of name (the site's node-name-map's too,
 * which then names the ends, the hops and the breaks), and each way a path
 * can break said where it happens. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/route/route_live.h"
#include "tests/unit/fixtures/check_run.h"

#define S1 0x1000ULL
#define S2 0x2000ULL
#define HA 0x100000ULL
#define HB 0x200000ULL

/* nodeA (LID 3) - S1 (LID 1) [2]---[2] S2 (LID 2) - nodeB (LID 4) */
static struct fab *line(void)
{
	struct fab *f = fab_new("t");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, S1, 4, "sw1", 1);
	fixture_node(f, IBT_NODE_SWITCH, S2, 4, "sw2", 2);
	fixture_node(f, IBT_NODE_CA, HA, 1, "nodeA mlx5_0", 3);
	fixture_node(f, IBT_NODE_CA, HB, 1, "nodeB mlx5_0", 4);
	fixture_link(f, HA, 1, S1, 1);
	fixture_link(f, HB, 1, S2, 1);
	fixture_link(f, S1, 2, S2, 2);
	fab_sort(f);
	return f;
}

/* Entries for LIDs 0..4 as OpenSM would program them. */
static struct rl_read *tables(const uint8_t s1[5], const uint8_t s2[5])
{
	struct rl_read *r = rl_read_new();

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rl_read_add(r, S2, 2, 4, s2), 0);
	ck_assert_int_eq(rl_read_add(r, S1, 1, 4, s1), 0);
	rl_read_sort(r);
	return r;
}

static const uint8_t good1[5] = { 0xff, 0, 2, 1, 2 };
static const uint8_t good2[5] = { 0xff, 2, 0, 2, 1 };

static json_t *trace(const struct fab *f, const struct rl_read *r, const char *a, const char *b)
{
	char err[256] = "";
	json_t *t = NULL;
	int rc = rl_trace(f, r, NULL, a, b, &t, err, sizeof(err));

	ck_assert_msg(rc == 0, "rl_trace %s %s: %s", a, b, err);
	return t;
}

static long long hop_int(json_t *t, size_t i, const char *key)
{
	return (long long)json_integer_value(json_object_get(
		json_array_get(json_object_get(t, "hops"), i), key));
}

static const char *reason(json_t *t)
{
	return json_string_value(json_object_get(t, "reason"));
}

START_TEST(programmed_tables_deliver_every_pair_and_trace_gives_in_and_out_ports)
{
	struct fab *f = line();
	struct rl_read *r = tables(good1, good2);
	char err[256] = "";
	json_t *c = NULL, *t;

	ck_assert_int_eq(rl_check(f, r, NULL, NULL, NULL, &c, err, sizeof(err)), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(c, "metrics"),
							    "delivered")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "broken_pairs")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "missing_tables")), 0);
	json_decref(c);

	t = trace(f, r, "nodeA", "nodeB");
	ck_assert(json_is_true(json_object_get(t, "delivered")));
	ck_assert_int_eq(json_array_size(json_object_get(t, "hops")), 2);
	ck_assert_int_eq(hop_int(t, 0, "lid"), 1);
	ck_assert_int_eq(hop_int(t, 0, "in_port"), 1);
	ck_assert_int_eq(hop_int(t, 0, "out_port"), 2);
	ck_assert_int_eq(hop_int(t, 1, "lid"), 2);
	ck_assert_int_eq(hop_int(t, 1, "in_port"), 2);
	ck_assert_int_eq(hop_int(t, 1, "out_port"), 1);
	ck_assert(json_is_null(json_object_get(t, "reason")));
	json_decref(t);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

START_TEST(endpoints_are_found_by_host_name_description_guids_and_lid)
{
	struct fab *f = line();
	struct rl_read *r = tables(good1, good2);
	const char *names[] = { "nodeB", "nodeB mlx5_0", "0x0000000000200000", "0x200001", "4" };
	char err[256] = "";
	json_t *t = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		t = trace(f, r, "3", names[i]);
		ck_assert_msg(json_integer_value(json_object_get(t, "dlid")) == 4, "%s", names[i]);
		ck_assert(json_is_true(json_object_get(t, "delivered")));
		json_decref(t);
	}
	/* A switch as the source: the walk starts there, entering by port 0. */
	t = trace(f, r, "sw1", "nodeB");
	ck_assert_int_eq(hop_int(t, 0, "in_port"), 0);
	ck_assert(json_is_true(json_object_get(t, "delivered")));
	json_decref(t);
	ck_assert_int_eq(rl_trace(f, r, NULL, "nodeA", "nodeC", &t, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "nodeC"));
	ck_assert_int_eq(rl_trace(f, r, NULL, "nodeA", "99", &t, err, sizeof(err)), -ENOENT);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

START_TEST(a_pulled_cable_breaks_paths_at_the_switch_that_forwards_into_it)
{
	struct fab *f = line();
	struct rl_read *r = tables(good1, good2);
	char err[256] = "";
	json_t *c = NULL, *t;

	fixture_unlink(f, S1, 2);
	t = trace(f, r, "nodeA", "nodeB");
	ck_assert(json_is_false(json_object_get(t, "delivered")));
	ck_assert_msg(strstr(reason(t), "switch \"sw1\" forwards LID 4 to port 2, which is down"),
		      "%s", reason(t));
	ck_assert_int_eq(hop_int(t, 0, "out_port"), 2);
	json_decref(t);
	ck_assert_int_eq(rl_check(f, r, NULL, NULL, NULL, &c, err, sizeof(err)), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "broken_pairs")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(c, "broken")), 2);
	json_decref(c);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

START_TEST(missing_entries_loops_and_wrong_ports_are_named)
{
	static const uint8_t noentry2[5] = { 0xff, 2, 0, 2, 0xff };
	static const uint8_t loop2[5] = { 0xff, 2, 0, 2, 2 };
	static const uint8_t bad1[5] = { 0xff, 0, 2, 1, 9 };
	struct fab *f = line();
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rl_read *r;
	size_t missing;
	json_t *t;
	char err[256];

	r = tables(good1, noentry2);
	t = trace(f, r, "nodeA", "nodeB");
	ck_assert_msg(strstr(reason(t), "switch \"sw2\" has no entry for LID 4"), "%s", reason(t));
	json_decref(t);
	rl_read_free(r);

	r = tables(good1, loop2);
	t = trace(f, r, "nodeA", "nodeB");
	ck_assert_msg(strstr(reason(t), "loop: back at switch \"sw1\""), "%s", reason(t));
	json_decref(t);
	rl_read_free(r);

	/* A port the switch lacks: named by the trace, unroutable for the metrics. */
	r = tables(bad1, good2);
	t = trace(f, r, "nodeA", "nodeB");
	ck_assert_msg(strstr(reason(t), "port 9, which it does not have"), "%s", reason(t));
	json_decref(t);
	g = rt_graph_new(f, err, sizeof(err));
	ck_assert_ptr_nonnull(g);
	l = rl_lfts(g, r, &missing);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(missing, 0);
	ck_assert_int_eq(rt_lfts_get(l, 0, 4), RT_NO_PORT);
	rt_lfts_free(l);
	rt_graph_free(g);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

/* With a map: nodeB is "gpu-b", sw2 "core A"; the ends and hops carry that
 * name beside the raw desc, an endpoint may be given by it, and a break
 * names the switch by it. */
START_TEST(the_site_names_name_ends_hops_and_breaks)
{
	struct fab *f = line();
	struct rl_read *r = tables(good1, good2);
	struct nodename_map *m = nodename_map_new();
	static const uint8_t hole2[5] = { 0xff, 2, 0, 2, 0xff };
	char err[256] = "";
	json_t *t = NULL, *h;

	ck_assert_int_eq(nodename_map_add(m, HB, "gpu-b"), 0);
	ck_assert_int_eq(nodename_map_add(m, S2, "core A"), 0);
	nodename_map_seal(m);
	ck_assert_int_eq(rl_trace(f, r, m, "nodeA", "gpu-b", &t, err, sizeof(err)), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(t, "dst"), "name")),
			 "gpu-b");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(t, "dst"), "desc")),
			 "nodeB mlx5_0");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(t, "src"), "name")),
			 "nodeA mlx5_0");
	h = json_array_get(json_object_get(t, "hops"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(h, "name")), "core A");
	ck_assert_str_eq(json_string_value(json_object_get(h, "desc")), "sw2");
	json_decref(t);
	/* without the map, the name is no endpoint */
	ck_assert_int_eq(rl_trace(f, r, NULL, "nodeA", "gpu-b", &t, err, sizeof(err)), -ENOENT);
	rl_read_free(r);
	r = tables(good1, hole2);
	ck_assert_int_eq(rl_trace(f, r, m, "nodeA", "gpu-b", &t, err, sizeof(err)), 0);
	ck_assert(!json_is_true(json_object_get(t, "delivered")));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(t, "reason")),
				     "switch \"core A\""));
	json_decref(t);
	nodename_map_free(m);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_live");
	TCase *tc = tcase_create("route_live");

	tcase_add_test(tc, programmed_tables_deliver_every_pair_and_trace_gives_in_and_out_ports);
	tcase_add_test(tc, endpoints_are_found_by_host_name_description_guids_and_lid);
	tcase_add_test(tc, a_pulled_cable_breaks_paths_at_the_switch_that_forwards_into_it);
	tcase_add_test(tc, missing_entries_loops_and_wrong_ports_are_named);
	tcase_add_test(tc, the_site_names_name_ends_hops_and_breaks);
	suite_add_tcase(s, tc);
	return check_run(s);
}
