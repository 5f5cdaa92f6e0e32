/* tests/unit/test_plugin.c: loading switch plugins. The fake plugins are
 * built by `make check` into tests/unit/.libs (FAKE_PLUGIN_DIR), once per
 * way of being wrong. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/plugin.h"
#include "check_run.h"

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

START_TEST(plugin_refuses_another_abi_version_naming_file_and_versions)
{
	struct plugin *p = (struct plugin *)1;

	ck_assert_int_eq(plugin_load(FAKE_PLUGIN_DIR, "fake-abi2", &p, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(err, "fake-abi2.so: plugin ABI version 2, this loomd speaks 1"),
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
	tcase_add_test(tc, plugin_refuses_another_abi_version_naming_file_and_versions);
	tcase_add_test(tc, plugin_refuses_a_library_that_is_no_loom_plugin);
	tcase_add_test(tc, plugin_refuses_a_table_missing_an_op);
	tcase_add_test(tc, plugin_refuses_a_missing_file_and_a_name_that_is_a_path);
	tcase_add_test(tc, plugin_refuses_a_plugin_that_calls_itself_otherwise);
	suite_add_tcase(s, tc);
	return check_run(s);
}
