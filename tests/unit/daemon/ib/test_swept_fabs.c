/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_swept_fabs.c: each subnet's last swept fabric, the one
 * keeper slurm and validate share (daemon/ib/swept_fabs.c). */
#include "autoconf.h"

#include <check.h>
#include <string.h>

#include "daemon/ib/swept_fabs.h"
#include "tests/unit/fixtures/check_run.h"

START_TEST(a_subnet_keeps_its_index_and_only_its_newest_fabric)
{
	struct swept_fabs f;
	struct fab *a1 = fab_new("a"), *a2 = fab_new("a"), *b = fab_new("b");
	struct fab *held;

	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(swept_fabs_keep(&f, "a", a1), 0);
	held = fab_hold(a1);             /* a job that outlives the next sweep */
	ck_assert_int_eq(swept_fabs_keep(&f, "b", b), 1);
	ck_assert_int_eq(swept_fabs_keep(&f, "a", a2), 0);
	ck_assert_ptr_eq(f.s[0].last, a2);
	ck_assert_int_eq(held->refs, 1); /* the keeper let go of a1, the job did not */
	fab_free(held);
	ck_assert_int_eq(swept_fabs_find(&f, "b"), 1);
	ck_assert_int_eq(swept_fabs_find(&f, "c"), -1);
	swept_fabs_clear(&f);
	ck_assert_uint_eq(f.n, 0);
}
END_TEST

START_TEST(choose_takes_the_asked_the_configured_or_the_only_one)
{
	struct swept_fabs f;
	char why[256] = "";

	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(swept_fabs_choose(&f, NULL, "", "x.subnet", why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "no subnet was swept"));
	swept_fabs_keep(&f, "a", fab_new("a"));
	ck_assert_int_eq(swept_fabs_choose(&f, NULL, "", "x.subnet", why, sizeof(why)), 0);
	swept_fabs_keep(&f, "b", fab_new("b"));
	ck_assert_int_eq(swept_fabs_choose(&f, "", "", "x.subnet", why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "several subnets (a, b...): set x.subnet"));
	ck_assert_int_eq(swept_fabs_choose(&f, NULL, "b", "x.subnet", why, sizeof(why)), 1);
	ck_assert_int_eq(swept_fabs_choose(&f, "a", "b", "x.subnet", why, sizeof(why)), 0);
	ck_assert_int_eq(swept_fabs_choose(&f, "c", "", "x.subnet", why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "subnet \"c\" was not swept"));
	swept_fabs_clear(&f);
}
END_TEST

START_TEST(no_room_frees_the_fabric)
{
	struct swept_fabs f;
	char name[16];

	memset(&f, 0, sizeof(f));
	for (int i = 0; i < SWEPT_FABS_MAX; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ck_assert_int_eq(swept_fabs_keep(&f, name, fab_new(name)), i);
	}
	/* freed here: LeakSanitizer (the ASan lane) would see it otherwise */
	ck_assert_int_eq(swept_fabs_keep(&f, "one-more", fab_new("one-more")), -1);
	swept_fabs_clear(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("swept_fabs");
	TCase *tc = tcase_create("swept_fabs");

	tcase_add_test(tc, a_subnet_keeps_its_index_and_only_its_newest_fabric);
	tcase_add_test(tc, choose_takes_the_asked_the_configured_or_the_only_one);
	tcase_add_test(tc, no_room_frees_the_fabric);
	suite_add_tcase(s, tc);
	return check_run(s);
}
