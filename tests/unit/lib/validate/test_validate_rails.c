/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_rails.c: every leaf carries one rail
 * (lib/validate/rails.c): leaves of one rail each have no finding; an HCA
 * of another rail on a leaf is one rail-stray naming it, its rail, the leaf
 * and the leaf's rail; a leaf without a majority is one rail-tie; the rail
 * read from the device index, the port number or a pattern; descriptions
 * without a rail not judged; a pattern without one capture refused. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/rails.h"
#include "lib/validate/report.h"
#include "tests/unit/fixtures/check_run.h"

/* Two leaves of three HCA ports each; the HCAs' descriptions given. */
static struct fab *two_leaves(const char *const hca[6])
{
	char text[2048], err[512] = "";
	struct fab *f;

	snprintf(text, sizeof(text),
		 "Switch 8 \"leaf-1\"\n[1] \"%s\"[1]\n[2] \"%s\"[1]\n[3] \"%s\"[1]\n[8] \"spine\"[1]\n\n"
		 "Switch 8 \"leaf-2\"\n[1] \"%s\"[1]\n[2] \"%s\"[1]\n[3] \"%s\"[1]\n[8] \"spine\"[2]\n\n"
		 "Switch 8 \"spine\"\n\n"
		 "Hca 1 \"%s\"\n\nHca 1 \"%s\"\n\nHca 1 \"%s\"\n\n"
		 "Hca 1 \"%s\"\n\nHca 1 \"%s\"\n\nHca 1 \"%s\"\n",
		 hca[0], hca[1], hca[2], hca[3], hca[4], hca[5],
		 hca[0], hca[1], hca[2], hca[3], hca[4], hca[5]);
	f = topo_file_parse("rails.net", text, strlen(text), "ib0", err, sizeof(err));
	ck_assert_msg(f != NULL, "%s", err);
	return f;
}

static void check_rails(const struct fab *f, enum rails_from from, const char *pattern,
			struct val_report *r)
{
	char err[256] = "";
	int rc = rails_check(f, from, pattern, NULL, r, err, sizeof(err));

	ck_assert_msg(rc == 0, "rails_check: %d %s", rc, err);
}

START_TEST(leaves_of_one_rail_each_have_no_finding)
{
	static const char *const h[6] = { "a mlx5_0", "b mlx5_0", "c mlx5_0",
					  "a mlx5_1", "b mlx5_1", "c mlx5_1" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	check_rails(f, RAILS_DEVICE, NULL, &r);
	ck_assert_uint_eq(r.n, 0);
	check_rails(f, RAILS_OFF, NULL, &r);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

START_TEST(an_hca_of_another_rail_is_one_stray_naming_it_and_the_leaf)
{
	/* b's two HCAs cabled to each other's leaf */
	static const char *const h[6] = { "a mlx5_0", "b mlx5_1", "c mlx5_0",
					  "a mlx5_1", "b mlx5_0", "c mlx5_1" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	check_rails(f, RAILS_DEVICE, NULL, &r);
	val_report_sort(&r);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_int_eq(r.f[0].code, VAL_RAIL_STRAY);
	ck_assert_int_eq(r.f[0].sev, VAL_ERROR);
	ck_assert_str_eq(r.f[0].subject, "b mlx5_0[1] - leaf-2[2]");
	ck_assert_str_eq(r.f[0].want, "rail 1 (leaf-2's)");
	ck_assert_str_eq(r.f[0].got, "rail 0");
	ck_assert_str_eq(r.f[1].subject, "b mlx5_1[1] - leaf-1[2]");
	ck_assert_str_eq(r.f[1].want, "rail 0 (leaf-1's)");
	ck_assert_str_eq(r.f[1].got, "rail 1");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_leaf_without_a_majority_is_one_tie)
{
	/* leaf-1: rails 0, 1, 2, one each; leaf-2: all rail 3 */
	static const char *const h[6] = { "a mlx5_0", "a mlx5_1", "a mlx5_2",
					  "b mlx5_3", "c mlx5_3", "d mlx5_03" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	check_rails(f, RAILS_DEVICE, NULL, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.f[0].code, VAL_RAIL_TIE);
	ck_assert_str_eq(r.f[0].subject, "leaf-1");
	ck_assert_str_eq(r.f[0].got, "rail 0: 1, rail 1: 1, rail 2: 1");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(descriptions_without_a_device_are_not_judged)
{
	/* one word (a host name), or no trailing number: no rail */
	static const char *const h[6] = { "a mlx5_0", "b", "c mlx5_0",
					  "host-0001", "e HCA", "f mlx5_7" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	check_rails(f, RAILS_DEVICE, NULL, &r);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

START_TEST(a_pattern_captures_the_rail)
{
	static const char *const h[6] = { "gpu0-a", "gpu0-b", "gpu1-c",
					  "gpu1-a", "gpu1-b", "gpu1-d" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	check_rails(f, RAILS_PATTERN, "^gpu([0-9]+)-", &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.f[0].subject, "gpu1-c[1] - leaf-1[3]");
	ck_assert_str_eq(r.f[0].got, "rail 1");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_pattern_without_one_capture_is_refused)
{
	static const char *const h[6] = { "a", "b", "c", "d", "e", "f" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };
	char err[256] = "";

	ck_assert_int_eq(rails_pattern_check("^gpu[0-9]", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "0 capture groups") != NULL, "%s", err);
	ck_assert_int_eq(rails_pattern_check("(a)(b)", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(rails_pattern_check("(a", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(rails_pattern_check("mlx5_([0-9]+)$", err, sizeof(err)), 0);
	ck_assert_int_eq(rails_check(f, RAILS_PATTERN, "x", NULL, &r, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(rails_from_parse("device"), RAILS_DEVICE);
	ck_assert_int_eq(rails_from_parse("plan"), -1);
	fab_free(f);
}
END_TEST

START_TEST(the_port_number_is_the_rail_of_a_multi_port_hca)
{
	/* fabgen's rails: host h's port r+1 on rail r's leaf; host b's two
	 * cables swapped between the rails' leaves */
	static const char *const text =
		"Switch 8 \"r0/leaf-0\"\n[1] \"a\"[1]\n[2] \"b\"[2]\n[3] \"c\"[1]\n\n"
		"Switch 8 \"r1/leaf-0\"\n[1] \"a\"[2]\n[2] \"b\"[1]\n[3] \"c\"[2]\n\n"
		"Hca 2 \"a\"\n[1] \"r0/leaf-0\"[1]\n[2] \"r1/leaf-0\"[1]\n\n"
		"Hca 2 \"b\"\n[2] \"r0/leaf-0\"[2]\n[1] \"r1/leaf-0\"[2]\n\n"
		"Hca 2 \"c\"\n[1] \"r0/leaf-0\"[3]\n[2] \"r1/leaf-0\"[3]\n";
	char err[256] = "";
	struct fab *f = topo_file_parse("ports.net", text, strlen(text), "ib0", err, sizeof(err));
	struct val_report r = { 0 };

	ck_assert_msg(f != NULL, "%s", err);
	check_rails(f, RAILS_PORT, NULL, &r);
	val_report_sort(&r);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(r.f[0].subject, "b[1] - r1/leaf-0[2]");
	ck_assert_str_eq(r.f[0].want, "rail 1 (r1/leaf-0's)");
	ck_assert_str_eq(r.f[0].got, "rail 0");
	ck_assert_str_eq(r.f[1].subject, "b[2] - r0/leaf-0[2]");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_stray_the_plan_explains_gives_way_to_the_plan)
{
	/* b's two HCAs swapped: with a plan, one `swapped` names them */
	static const char *const h[6] = { "a mlx5_0", "b mlx5_1", "c mlx5_0",
					  "a mlx5_1", "b mlx5_0", "c mlx5_1" };
	struct fab *f = two_leaves(h);
	struct val_report r = { 0 };

	ck_assert_int_eq(val_add(&r, VAL_SWAPPED, 3, "b mlx5_0[1] - leaf-1[2], b mlx5_1[1] - "
				 "leaf-2[2]", "", "b mlx5_1[1] and b mlx5_0[1]"), 0);
	check_rails(f, RAILS_DEVICE, NULL, &r);
	ck_assert_uint_eq(r.n, 3);
	val_report_settle(&r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.f[0].code, VAL_SWAPPED);
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_rails");
	TCase *tc = tcase_create("rails");

	tcase_add_test(tc, leaves_of_one_rail_each_have_no_finding);
	tcase_add_test(tc, an_hca_of_another_rail_is_one_stray_naming_it_and_the_leaf);
	tcase_add_test(tc, a_leaf_without_a_majority_is_one_tie);
	tcase_add_test(tc, descriptions_without_a_device_are_not_judged);
	tcase_add_test(tc, a_pattern_captures_the_rail);
	tcase_add_test(tc, a_pattern_without_one_capture_is_refused);
	tcase_add_test(tc, the_port_number_is_the_rail_of_a_multi_port_hca);
	tcase_add_test(tc, a_stray_the_plan_explains_gives_way_to_the_plan);
	suite_add_tcase(s, tc);
	return check_run(s);
}
