/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/util/test_hostlist.c: Slurm hostlist expansion (lib/util/hostlist.c). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/hostlist.h"
#include "tests/unit/fixtures/check_run.h"

/* The expansion of `list`, names joined by blanks. */
static const char *expanded(const char *list)
{
	static char out[4096];
	struct hostlist hl;
	char err[256] = "";
	size_t off = 0;

	ck_assert_msg(hostlist_expand(list, &hl, err, sizeof(err)) == 0, "%s: %s", list, err);
	out[0] = '\0';
	for (size_t i = 0; i < hl.n; i++)
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", i ? " " : "",
					hl.names[i]);
	hostlist_clear(&hl);
	return out;
}

static const char *refused(const char *list, int want_rc)
{
	static char err[256];
	struct hostlist hl;

	err[0] = '\0';
	ck_assert_int_eq(hostlist_expand(list, &hl, err, sizeof(err)), want_rc);
	ck_assert_ptr_null(hl.names);
	ck_assert_msg(err[0], "no message for \"%s\"", list);
	return err;
}

START_TEST(ranges_keep_the_width_of_their_first_number)
{
	ck_assert_str_eq(expanded("node[001-003,070]"), "node001 node002 node003 node070");
	ck_assert_str_eq(expanded("n[8-11]"), "n8 n9 n10 n11");
	ck_assert_str_eq(expanded("n[098-101]"), "n098 n099 n100 n101");
	ck_assert_str_eq(expanded("gpu7"), "gpu7");
}
END_TEST

START_TEST(names_brackets_and_suffixes_combine)
{
	ck_assert_str_eq(expanded("login1,node[1-2],gpu[3]-ib"), "login1 node1 node2 gpu3-ib");
	ck_assert_str_eq(expanded("r[1-2]n[01-02]"), "r1n01 r1n02 r2n01 r2n02");
}
END_TEST

START_TEST(repeats_are_dropped_keeping_the_first_place)
{
	ck_assert_str_eq(expanded("b,a,node[1-3],node2,a"), "b a node1 node2 node3");
	/* a name three times: compared with the first of its run, the one kept
	 * (the one just before had been freed: a use after free, which kept a
	 * duplicate; found by tests/fuzz/fuzz_hostlist) */
	ck_assert_str_eq(expanded("a,a,a"), "a");
	ck_assert_str_eq(expanded("gpu-[01-03],gpu-[01-03],gpu-03,cpu[7]"),
			 "gpu-01 gpu-02 gpu-03 cpu7");
}
END_TEST

START_TEST(bad_lists_are_refused_naming_the_part)
{
	ck_assert_ptr_nonnull(strstr(refused("node[1-3", -EINVAL), "node[1-3"));
	ck_assert_ptr_nonnull(strstr(refused("node1]", -EINVAL), "node1]"));
	ck_assert_ptr_nonnull(strstr(refused("n[5-2]", -EINVAL), "LOW <= HIGH"));
	ck_assert_ptr_nonnull(strstr(refused("n[a-2]", -EINVAL), "number"));
	ck_assert_ptr_nonnull(strstr(refused("n[]", -EINVAL), "n[]"));
	ck_assert_ptr_nonnull(strstr(refused("n[1,]", -EINVAL), "empty"));
	ck_assert_ptr_nonnull(strstr(refused("a,,b", -EINVAL), "empty name"));
	ck_assert_ptr_nonnull(strstr(refused("a,", -EINVAL), "ends with"));
	ck_assert_ptr_nonnull(strstr(refused("", -EINVAL), "empty"));
	ck_assert_ptr_nonnull(strstr(refused("node1 node2", -EINVAL), "not allowed"));
	ck_assert_ptr_nonnull(strstr(refused("n[[1]]", -EINVAL), "n[["));
}
END_TEST

START_TEST(huge_lists_are_refused_not_expanded)
{
	ck_assert_ptr_nonnull(strstr(refused("n[0-99999]", -E2BIG), "65536"));
	ck_assert_ptr_nonnull(strstr(refused("a[0-999]b[0-999]", -E2BIG), "65536"));
	/* The bound itself is fine, and fast (no quadratic duplicate check). */
	{
		struct hostlist hl;
		char err[256];

		ck_assert_int_eq(hostlist_expand("n[00000-65535]", &hl, err, sizeof(err)), 0);
		ck_assert_uint_eq(hl.n, HOSTLIST_MAX);
		ck_assert_str_eq(hl.names[65535], "n65535");
		hostlist_clear(&hl);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostlist");
	TCase *tc = tcase_create("hostlist");

	tcase_add_test(tc, ranges_keep_the_width_of_their_first_number);
	tcase_add_test(tc, names_brackets_and_suffixes_combine);
	tcase_add_test(tc, repeats_are_dropped_keeping_the_first_place);
	tcase_add_test(tc, bad_lists_are_refused_naming_the_part);
	tcase_add_test(tc, huge_lists_are_refused_not_expanded);
	suite_add_tcase(s, tc);
	return check_run(s);
}
