/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/isolation/test_isolation_policy.c: issue 42's decisions
 * (daemon/isolation/isolation_policy.c) and the per-port windows they count
 * in (isolation_window.c): bounds, exclusions, hosts, probation with
 * backoff, repeat offenders held, operators' isolations kept. */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "daemon/isolation/isolation_policy.h"
#include "daemon/isolation/isolation_window.h"

#define SW(n) (0x1000ULL + (n))
#define CA(n) (0x9000ULL + (n))

static struct iso_link sw_link(unsigned a, unsigned ap, unsigned b, unsigned bp)
{
	struct iso_link l = { { SW(b), (uint8_t)bp, 0 }, { SW(a), (uint8_t)ap, 0 } };

	iso_link_canon(&l);
	return l;
}

static struct iso_bounds bounds(int mode)
{
	return (struct iso_bounds){ .mode = mode, .max_isolated = 2, .max_per_switch = 1,
				    .clean_for_s = 100, .backoff = 2, .max_returns = 2 };
}

START_TEST(link_canon_is_the_same_from_either_end)
{
	struct iso_link x = sw_link(1, 3, 2, 5), y = sw_link(2, 5, 1, 3);

	ck_assert(iso_link_eq(&x, &y));
	ck_assert_uint_eq(x.a.guid, SW(1));
	ck_assert(iso_link_has(&x, SW(2), 5));
	ck_assert(!iso_link_has(&x, SW(2), 3));
}
END_TEST

START_TEST(candidates_are_taken_worst_first_up_to_the_bounds)
{
	struct iso_bounds b = bounds(ISO_MODE_ON);
	struct iso_candidate c[4] = {
		{ .link = sw_link(1, 1, 10, 1) },   /* taken */
		{ .link = sw_link(1, 2, 11, 1) },   /* switch 1 has max_per_switch */
		{ .link = sw_link(2, 1, 12, 1) },   /* taken: max_isolated reached after it */
		{ .link = sw_link(3, 1, 13, 1) },   /* max_isolated */
	};
	struct iso_decision d[4];
	size_t n = iso_policy_decide(&b, NULL, 0, c, 4, 1000, d);

	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(d[0].act, ISO_ACT_ISOLATE);
	ck_assert_int_eq(d[1].act, ISO_ACT_REFUSE);
	ck_assert_ptr_nonnull(strstr(d[1].why, "max_per_switch"));
	ck_assert_int_eq(d[2].act, ISO_ACT_ISOLATE);
	ck_assert_int_eq(d[3].act, ISO_ACT_REFUSE);
	ck_assert_ptr_nonnull(strstr(d[3].why, "max_isolated"));
	b.mode = ISO_MODE_DRY_RUN;
	n = iso_policy_decide(&b, NULL, 0, c, 1, 1000, d);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(d[0].act, ISO_ACT_WOULD_ISOLATE);
}
END_TEST

START_TEST(excluded_ports_and_hosts_are_refused_or_drained)
{
	struct iso_exclude ex[2] = { { SW(1), 1, 0 }, { SW(5), 0, 500 } };
	struct iso_bounds b = bounds(ISO_MODE_ON);
	struct iso_candidate c[3] = {
		{ .link = sw_link(1, 1, 10, 1) },
		{ .link = sw_link(5, 7, 10, 2) },
		{ .link = { { SW(3), 4, 0 }, { CA(1), 1, 1 } } },
	};
	struct iso_decision d[3];

	b.exclude = ex;
	b.n_exclude = 2;
	ck_assert_uint_eq(iso_policy_decide(&b, NULL, 0, c, 3, 1000, d), 3);
	ck_assert_int_eq(d[0].act, ISO_ACT_REFUSE);
	ck_assert_ptr_nonnull(strstr(d[0].why, "exclude"));
	/* The node's exclusion expired at 500. */
	ck_assert_int_eq(d[1].act, ISO_ACT_ISOLATE);
	ck_assert_int_eq(d[2].act, ISO_ACT_REFUSE);
	ck_assert_ptr_nonnull(strstr(d[2].why, "drain_hosts"));
	b.drain_hosts = 1;
	ck_assert_uint_eq(iso_policy_decide(&b, NULL, 0, c, 3, 400, d), 3);
	ck_assert_int_eq(d[1].act, ISO_ACT_REFUSE);
	ck_assert_int_eq(d[2].act, ISO_ACT_DRAIN);
}
END_TEST

START_TEST(isolated_links_come_back_after_probation_and_repeat_offenders_stay)
{
	struct iso_bounds b = bounds(ISO_MODE_ON);
	struct iso_entry e[3] = {
		{ .link = sw_link(1, 1, 10, 1), .since = 0, .clean_since = 0,
		  .probation_s = iso_probation(&b, 0) },
		{ .link = sw_link(2, 1, 11, 1), .since = 0, .clean_since = 0, .returns = 2,
		  .probation_s = iso_probation(&b, 2) },
		{ .link = sw_link(3, 1, 12, 1), .since = 0, .clean_since = 0, .by_operator = 1,
		  .probation_s = 1 },
	};
	struct iso_candidate bad = { .link = sw_link(10, 1, 1, 1) };
	struct iso_decision d[4];

	ck_assert_double_eq(iso_probation(&b, 2), 400);
	/* Still in probation: nothing. */
	ck_assert_uint_eq(iso_policy_decide(&b, e, 3, NULL, 0, 99, d), 0);
	/* Its rule holds again: dirty, not restored. */
	ck_assert_uint_eq(iso_policy_decide(&b, e, 3, &bad, 1, 150, d), 1);
	ck_assert_int_eq(d[0].act, ISO_ACT_DIRTY);
	ck_assert_uint_eq(d[0].index, 0);
	ck_assert_uint_eq(iso_policy_decide(&b, e, 3, NULL, 0, 150, d), 1);
	ck_assert_int_eq(d[0].act, ISO_ACT_RESTORE);
	/* The second came back twice: at the end of its probation it is held;
	 * the operator's never comes back by itself. */
	ck_assert_uint_eq(iso_policy_decide(&b, e, 3, NULL, 0, 450, d), 2);
	ck_assert_int_eq(d[1].act, ISO_ACT_HOLD);
	ck_assert_uint_eq(d[1].index, 1);
	e[1].state = ISO_HELD;
	ck_assert_uint_eq(iso_policy_decide(&b, e, 3, NULL, 0, 10000, d), 1);
	ck_assert_uint_eq(d[0].index, 0);
}
END_TEST

START_TEST(windows_sum_what_moved_in_the_window_and_stay_bounded)
{
	struct iso_windows *w = iso_windows_new(2);
	struct iso_moves m = { .errors = 5, .symbol = 2, .downed = 0 }, s;

	ck_assert_ptr_nonnull(w);
	for (int i = 1; i <= 40; i++)
		ck_assert_int_eq(iso_windows_add(w, 0, SW(1), 3, i, &m), 0);
	iso_windows_sum(w, 0, SW(1), 3, 0, &s);
	ck_assert_uint_eq(s.errors, 200);   /* merged slots keep exact sums */
	iso_windows_sum(w, 0, SW(1), 3, 35, &s);
	ck_assert_uint_eq(s.errors, 25);
	ck_assert_int_eq(iso_windows_add(w, 1, SW(1), 3, 1, &m), 0);   /* another subnet */
	ck_assert_int_eq(iso_windows_add(w, 0, SW(2), 3, 1, &m), -ENOSPC);
	ck_assert_uint_eq(iso_windows_refused(w), 1);
	iso_windows_expire(w, 30);
	ck_assert_uint_eq(iso_windows_ports(w), 1);
	iso_windows_sum(w, 0, SW(1), 3, 0, &s);
	ck_assert_uint_eq(s.errors, 50);
	ck_assert_int_eq(iso_windows_add(w, 0, SW(2), 3, 41, &m), 0);
	iso_windows_free(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation_policy");
	TCase *t = tcase_create("policy");

	tcase_add_test(t, link_canon_is_the_same_from_either_end);
	tcase_add_test(t, candidates_are_taken_worst_first_up_to_the_bounds);
	tcase_add_test(t, excluded_ports_and_hosts_are_refused_or_drained);
	tcase_add_test(t, isolated_links_come_back_after_probation_and_repeat_offenders_stay);
	tcase_add_test(t, windows_sum_what_moved_in_the_window_and_stay_bounded);
	suite_add_tcase(s, t);
	return check_run(s);
}
