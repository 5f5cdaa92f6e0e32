/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_congestion.c: following congestion to its root along the
 * forwarding tables (lib/telemetry/congestion.c) on hand-built fabrics. */
#include "autoconf.h"

#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/route/route_lft.h"
#include "lib/telemetry/congestion.h"

/* Two switches A (lid 1) and B (lid 2) cabled A:3 - B:3; h1 (lid 10) on
 * A:1, h2 (lid 11) on B:1, h3 (lid 12) on B:2. */
static struct fab *two_switches(void)
{
	struct fab *f = fab_new("t");

	fixture_node(f, IBT_NODE_SWITCH, 0xa, 3, "A", 1);
	fixture_node(f, IBT_NODE_SWITCH, 0xb, 3, "B", 2);
	fixture_node(f, IBT_NODE_CA, 0x10, 1, "h1", 10);
	fixture_node(f, IBT_NODE_CA, 0x11, 1, "h2", 11);
	fixture_node(f, IBT_NODE_CA, 0x12, 1, "h3", 12);
	fixture_link(f, 0xa, 3, 0xb, 3);
	fixture_link(f, 0xa, 1, 0x10, 1);
	fixture_link(f, 0xb, 1, 0x11, 1);
	fixture_link(f, 0xb, 2, 0x12, 1);
	return f;
}

static void add_table(struct rl_read *r, uint64_t guid, uint16_t lid, const uint8_t *ports,
		      unsigned top)
{
	ck_assert_int_eq(rl_read_add(r, guid, lid, (uint16_t)top, ports), 0);
}

static struct rl_read *two_tables(void)
{
	struct rl_read *r = rl_read_new();
	uint8_t a[13], b[13];

	memset(a, RT_NO_PORT, sizeof(a));
	memset(b, RT_NO_PORT, sizeof(b));
	a[1] = 0, a[2] = 3, a[10] = 1, a[11] = 3, a[12] = 3;
	b[1] = 3, b[2] = 0, b[10] = 3, b[11] = 1, b[12] = 2;
	add_table(r, 0xa, 1, a, 12);
	add_table(r, 0xb, 2, b, 12);
	rl_read_sort(r);
	return r;
}

/* The root at NODE:PORT in out, or NULL. */
static const json_t *root_at(const json_t *out, const char *node, int port)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(out, "roots"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "node")), node) &&
		    json_integer_value(json_object_get(r, "port")) == port)
			return r;
	return NULL;
}

static const char *str_at(const json_t *r, const char *key, size_t i)
{
	return json_string_value(json_array_get(json_object_get(r, key), i));
}

START_TEST(the_port_to_a_slow_host_is_the_root_and_the_uplink_feeding_it_waits_on_it)
{
	struct fab *f = two_switches();
	struct rl_read *r = two_tables();
	struct cong_port hot[] = { { 0xa, 3 }, { 0xb, 1 } };
	json_t *out = congestion_roots(f, r, hot, 2, NULL);
	const json_t *root = root_at(out, "B", 1);

	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "roots")), 1);
	ck_assert_str_eq(str_at(root, "victims", 0), "A:3");
	ck_assert_str_eq(str_at(root, "hosts", 0), "h2");
	ck_assert_str_eq(json_string_value(json_object_get(root, "peer")), "h2:1");
	ck_assert(json_is_true(json_object_get(root, "routes")));
	json_decref(out);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

START_TEST(a_congested_port_of_the_peer_that_carries_none_of_its_traffic_is_not_its_cause)
{
	struct fab *f = two_switches();
	struct rl_read *r = two_tables();
	/* B:3 sends back to A: none of A:3's traffic goes there. */
	struct cong_port hot[] = { { 0xa, 3 }, { 0xb, 3 } };
	json_t *out = congestion_roots(f, r, hot, 2, NULL);
	const json_t *a3 = root_at(out, "A", 3);

	ck_assert_ptr_nonnull(a3);
	ck_assert_ptr_nonnull(root_at(out, "B", 3));
	ck_assert_uint_eq(json_array_size(json_object_get(a3, "victims")), 0);
	/* The hosts A's table sends through A:3. */
	ck_assert_int_eq(json_integer_value(json_object_get(a3, "n_hosts")), 2);
	ck_assert_str_eq(str_at(a3, "hosts", 0), "h2");
	ck_assert_str_eq(str_at(a3, "hosts", 1), "h3");
	json_decref(out);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

START_TEST(without_tables_the_cabling_decides_and_the_answer_says_so)
{
	struct fab *f = two_switches();
	struct cong_port hot[] = { { 0xa, 3 }, { 0xb, 1 }, { 0x99, 1 } };
	json_t *out = congestion_roots(f, NULL, hot, 3, NULL);
	const json_t *root = root_at(out, "B", 1);

	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(str_at(root, "victims", 0), "A:3");
	ck_assert(json_is_false(json_object_get(root, "routes")));
	ck_assert_str_eq(str_at(out, "not_found", 0), "0x0000000000000099:1");
	json_decref(out);
	fab_free(f);
}
END_TEST

START_TEST(ports_that_only_wait_on_each_other_are_a_loop_not_a_root)
{
	struct fab *f = fab_new("t");
	struct rl_read *r = rl_read_new();
	struct cong_port hot[] = { { 0xa, 2 }, { 0xb, 2 }, { 0xc, 2 } };
	uint8_t t[21];
	json_t *out;

	/* A triangle A:2-B:1, B:2-C:1, C:2-A:1 whose tables send lid 20
	 * round it. */
	fixture_node(f, IBT_NODE_SWITCH, 0xa, 3, "A", 1);
	fixture_node(f, IBT_NODE_SWITCH, 0xb, 3, "B", 2);
	fixture_node(f, IBT_NODE_SWITCH, 0xc, 3, "C", 3);
	fixture_node(f, IBT_NODE_CA, 0x20, 1, "h", 20);
	fixture_link(f, 0xa, 2, 0xb, 1);
	fixture_link(f, 0xb, 2, 0xc, 1);
	fixture_link(f, 0xc, 2, 0xa, 1);
	fixture_link(f, 0xc, 3, 0x20, 1);
	memset(t, RT_NO_PORT, sizeof(t));
	t[20] = 2;
	add_table(r, 0xa, 1, t, 20);
	add_table(r, 0xb, 2, t, 20);
	add_table(r, 0xc, 3, t, 20);
	rl_read_sort(r);
	out = congestion_roots(f, r, hot, 3, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "roots")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "loops")), 3);
	json_decref(out);
	rl_read_free(r);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("congestion");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_port_to_a_slow_host_is_the_root_and_the_uplink_feeding_it_waits_on_it);
	tcase_add_test(tc, a_congested_port_of_the_peer_that_carries_none_of_its_traffic_is_not_its_cause);
	tcase_add_test(tc, without_tables_the_cabling_decides_and_the_answer_says_so);
	tcase_add_test(tc, ports_that_only_wait_on_each_other_are_a_loop_not_a_root);
	suite_add_tcase(s, tc);
	return check_run(s);
}
