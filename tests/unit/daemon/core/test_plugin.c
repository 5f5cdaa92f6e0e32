/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_plugin.c: loading switch plugins. The fake plugins are
 * built by `make check` into tests/unit/.libs (FAKE_PLUGIN_DIR), once per
 * way of being wrong. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/plugin.h"
#include "tests/unit/fixtures/check_run.h"

#ifndef FAKE_PLUGIN_DIR
#error FAKE_PLUGIN_DIR must name the directory of the fake plugins
#endif

static char err[512];

START_TEST(plugin_loads_a_plugin_of_this_abi_and_calls_its_ops)
{
	struct plugin *p;
	struct lp_switch *sw;
	const struct loom_plugin_v1 *o;
	struct lp_endpoint ep = { .name = "leaf1", .address = "nowhere", .timeout_ms = 100 };

	ck_assert_msg(plugin_load(FAKE_PLUGIN_DIR, "fake", &p, err, sizeof(err)) == 0, "%s", err);
	o = plugin_ops(p);
	ck_assert_str_eq(o->name, "fake");
	ck_assert_int_eq(o->open(&ep, NULL, &sw, err, sizeof(err)), 0);
	ck_assert_int_eq(o->health(sw, err, sizeof(err)), 0);
	o->close(sw);
	plugin_free(p);
}
END_TEST

struct seen {
	int counters, errors;
	char last[64];
};

static int count_counter(void *ctx, const struct lp_counter *c)
{
	struct seen *s = ctx;

	s->counters++;
	snprintf(s->last, sizeof(s->last), "%s %s %u %llu", c->port, c->name, c->index,
		 (unsigned long long)c->value);
	return 0;
}

static int count_error(void *ctx, const char *port, const char *reason)
{
	struct seen *s = ctx;

	(void)port, (void)reason;
	s->errors++;
	return 0;
}

START_TEST(plugin_gives_the_counters_op_of_an_abi2_plugin)
{
	struct plugin *p;
	struct seen seen = { 0 };
	struct lp_counter_sink sink = { &seen, count_counter, count_error };
	lp_counters_read_fn fn;

	ck_assert_msg(plugin_load(FAKE_PLUGIN_DIR, "fake", &p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(plugin_ops(p)->abi, 2);
	ck_assert_ptr_nonnull(fn = plugin_counters_op(plugin_ops(p)));
	ck_assert_int_eq(fn(NULL, &sink, err, sizeof(err)), 0);
	ck_assert_int_eq(seen.counters, 2);
	ck_assert_int_eq(seen.errors, 1);
	ck_assert_str_eq(seen.last, "Ethernet0 pfc_rx_pause 3 7");
	plugin_free(p);
}
END_TEST

/* The ABI-1 fake's table is followed by a pointer to a counters op that
 * aborts: reading past the table would find it. */
START_TEST(plugin_loads_an_abi1_plugin_and_never_takes_an_op_past_its_table)
{
	struct plugin *p;
	struct lp_switch *sw;
	const struct loom_plugin_v1 *o;
	struct lp_endpoint ep = { .name = "leaf1", .address = "nowhere", .timeout_ms = 100 };

	ck_assert_msg(plugin_load(FAKE_PLUGIN_DIR, "fake-abi1", &p, err, sizeof(err)) == 0, "%s",
		      err);
	o = plugin_ops(p);
	ck_assert_uint_eq(o->abi, 1);
	ck_assert_uint_eq(o->size, offsetof(struct loom_plugin_v1, counters_read));
	ck_assert_ptr_null(plugin_counters_op(o));
	ck_assert_int_eq(o->open(&ep, NULL, &sw, err, sizeof(err)), 0);
	ck_assert_int_eq(o->health(sw, err, sizeof(err)), 0);
	o->close(sw);
	plugin_free(p);
}
END_TEST

START_TEST(plugin_refuses_another_abi_version_naming_file_and_versions)
{
	struct plugin *p = (struct plugin *)1;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "fake-abi3", &p, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(err, "fake-abi3.so: plugin ABI version 3, this loomd speaks 1 to 2"),
		      "err: %s", err);
}
END_TEST

START_TEST(plugin_refuses_a_library_that_is_no_loom_plugin)
{
	struct plugin *p;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "fake-nosym", &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "fake-nosym.so: not a loom plugin (no loom_plugin_v1 symbol)"),
		      "err: %s", err);
}
END_TEST

START_TEST(plugin_refuses_a_table_missing_an_op)
{
	struct plugin *p;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "fake-nohealth", &p, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "no \"health\" op"), "err: %s", err);
}
END_TEST

START_TEST(plugin_refuses_a_missing_file_and_a_name_that_is_a_path)
{
	struct plugin *p;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "nonesuch", &p, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "nonesuch.so: No such file"), "err: %s", err);
	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "../fake", &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "plugin name \"../fake\""), "err: %s", err);
}
END_TEST

START_TEST(plugin_refuses_a_plugin_that_calls_itself_otherwise)
{
	struct plugin *p;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "fake-misnamed", &p, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "calls itself \"fake\", not \"fake-misnamed\""), "err: %s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin");
	TCase *tc = tcase_create("plugin");

	tcase_add_test(tc, plugin_loads_a_plugin_of_this_abi_and_calls_its_ops);
	tcase_add_test(tc, plugin_gives_the_counters_op_of_an_abi2_plugin);
	tcase_add_test(tc, plugin_loads_an_abi1_plugin_and_never_takes_an_op_past_its_table);
	tcase_add_test(tc, plugin_refuses_another_abi_version_naming_file_and_versions);
	tcase_add_test(tc, plugin_refuses_a_library_that_is_no_loom_plugin);
	tcase_add_test(tc, plugin_refuses_a_table_missing_an_op);
	tcase_add_test(tc, plugin_refuses_a_missing_file_and_a_name_that_is_a_path);
	tcase_add_test(tc, plugin_refuses_a_plugin_that_calls_itself_otherwise);
	suite_add_tcase(s, tc);
	return check_run(s);
}
