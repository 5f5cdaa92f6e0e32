/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_pause_trees.c: following PFC pauses back to the port that
 * pauses without being paused (lib/telemetry/pause_trees.c). */
#include "autoconf.h"

#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "lib/telemetry/pause_trees.h"

static const char *str_at(const json_t *o, const char *key, size_t i)
{
	return json_string_value(json_array_get(json_object_get(o, key), i));
}

START_TEST(pauses_are_followed_through_a_paused_switch_to_the_nic_that_sends_them)
{
	/* spine:1 is paused by leaf1:49; leaf1 is paused on Ethernet0 by the
	 * NIC of host-a: the NIC is the root, leaf1:Ethernet0 next to it. */
	const struct paused_port p[] = {
		{ "spine", "Ethernet1", "leaf1", "Ethernet49", 1 },
		{ "leaf1", "Ethernet0", "host-a", "enp1s0", 0 },
	};
	json_t *out = pause_trees(p, 2);
	const json_t *root = json_array_get(json_object_get(out, "roots"), 0);

	ck_assert_uint_eq(json_array_size(json_object_get(out, "roots")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(root, "node")), "host-a");
	ck_assert_str_eq(json_string_value(json_object_get(root, "port")), "enp1s0");
	ck_assert(json_is_false(json_object_get(root, "managed")));
	ck_assert_str_eq(str_at(root, "paused", 0), "leaf1:Ethernet0");
	ck_assert_str_eq(str_at(root, "paused", 1), "spine:Ethernet1");
	json_decref(out);
}
END_TEST

START_TEST(a_switch_that_pauses_without_being_paused_is_the_root)
{
	/* Two spines paused by leaf1 whose own ports are not paused: leaf1's
	 * egress is full; each of its pausing ports is a root. */
	const struct paused_port p[] = {
		{ "spine1", "Ethernet1", "leaf1", "Ethernet48", 1 },
		{ "spine2", "Ethernet1", "leaf1", "Ethernet52", 1 },
		{ "spine3", "Ethernet1", NULL, NULL, 0 },
	};
	json_t *out = pause_trees(p, 3);

	ck_assert_uint_eq(json_array_size(json_object_get(out, "roots")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(
		json_array_get(json_object_get(out, "roots"), 0), "node")), "leaf1");
	ck_assert(json_is_true(json_object_get(json_array_get(json_object_get(out, "roots"), 1),
					       "managed")));
	ck_assert_str_eq(str_at(out, "unknown", 0), "spine3:Ethernet1");
	json_decref(out);
}
END_TEST

START_TEST(switches_that_only_pause_each_other_are_a_loop)
{
	const struct paused_port p[] = {
		{ "s1", "a", "s2", "b", 1 },
		{ "s2", "c", "s1", "d", 1 },
	};
	json_t *out = pause_trees(p, 2);

	ck_assert_uint_eq(json_array_size(json_object_get(out, "roots")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "loops")), 2);
	json_decref(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pause_trees");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pauses_are_followed_through_a_paused_switch_to_the_nic_that_sends_them);
	tcase_add_test(tc, a_switch_that_pauses_without_being_paused_is_the_root);
	tcase_add_test(tc, switches_that_only_pause_each_other_are_a_loop);
	suite_add_tcase(s, tc);
	return check_run(s);
}
