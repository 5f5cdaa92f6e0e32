/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_port_alarms.c: when a port's counters raise an alarm and
 * when it clears (lib/telemetry/port_alarms.c). */
#include "autoconf.h"

#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "lib/telemetry/port_alarms.h"

static const struct port_thresholds defaults = {
	.errors = 1, .ber_exp = 0, .xmit_wait_per_s = 1000, .link_downed = 1, .clear_after = 3,
};

/* A read that found every counter moved by 0 over 10 s. */
static struct port_reading quiet(void)
{
	struct port_reading r;

	memset(&r, 0, sizeof(r));
	r.answered = 1;
	r.interval_s = 10.0;
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		r.d[c] = (struct cdelta){ CDELTA_OK, 0 };
	return r;
}

static int active(const struct port_judgement *j, enum port_alarm a)
{
	return !!(j->active & (1u << a));
}

static int known(const struct port_judgement *j, enum port_alarm a)
{
	return !!(j->known & (1u << a));
}

START_TEST(a_quiet_port_raises_nothing_and_every_alarm_is_judged)
{
	struct port_reading r = quiet();
	struct port_judgement j;

	port_alarms_judge(&defaults, &r, &j);
	ck_assert_uint_eq(j.active, 0);
	ck_assert_uint_eq(j.known, PORT_ALARMS_IB);
}
END_TEST

START_TEST(error_counters_that_moved_raise_link_errors_and_name_the_counters)
{
	struct port_reading r = quiet();
	struct port_judgement j;

	r.d[PMA_SYMBOL_ERR].delta = 5;
	r.d[PMA_RCV_ERR] = (struct cdelta){ CDELTA_RESET, 2 };
	port_alarms_judge(&defaults, &r, &j);
	ck_assert(active(&j, PORT_ALARM_LINK_ERRORS));
	ck_assert_str_eq(j.why[PORT_ALARM_LINK_ERRORS], "SymbolErrorCounter+5 PortRcvErrors>=2");
	ck_assert(!active(&j, PORT_ALARM_LINK_FLAPPED));
}
END_TEST

START_TEST(the_error_threshold_counts_the_sum_of_one_read)
{
	struct port_thresholds t = defaults;
	struct port_reading r = quiet();
	struct port_judgement j;

	t.errors = 10;
	r.d[PMA_SYMBOL_ERR].delta = 6;
	r.d[PMA_XMIT_DISCARDS].delta = 3;
	port_alarms_judge(&t, &r, &j);
	ck_assert(known(&j, PORT_ALARM_LINK_ERRORS));
	ck_assert(!active(&j, PORT_ALARM_LINK_ERRORS));
	r.d[PMA_VL15_DROPPED].delta = 1;
	port_alarms_judge(&t, &r, &j);
	ck_assert(active(&j, PORT_ALARM_LINK_ERRORS));
	/* LinkDownedCounter is link_flapped's, not an error count here. */
	r.d[PMA_VL15_DROPPED].delta = 0;
	r.d[PMA_LINK_DOWNED].delta = 5;
	port_alarms_judge(&t, &r, &j);
	ck_assert(!active(&j, PORT_ALARM_LINK_ERRORS));
	ck_assert(active(&j, PORT_ALARM_LINK_FLAPPED));
	ck_assert_str_eq(j.why[PORT_ALARM_LINK_FLAPPED], "LinkDownedCounter+5");
}
END_TEST

START_TEST(a_first_sample_judges_nothing_but_readability)
{
	struct port_reading r = quiet();
	struct port_judgement j;

	for (int c = 0; c < PMA_N_COUNTERS; c++)
		r.d[c] = (struct cdelta){ CDELTA_FIRST, 0 };
	r.interval_s = 0;
	port_alarms_judge(&defaults, &r, &j);
	ck_assert_uint_eq(j.known, 1u << PORT_ALARM_UNREADABLE);
	ck_assert_uint_eq(j.active, 0);
}
END_TEST

START_TEST(symbol_error_ratio_uses_exact_counts_of_bits_received)
{
	struct port_thresholds t = defaults;
	struct port_reading r = quiet();
	struct port_judgement j;

	t.errors = 1000;  /* only the ratio can raise */
	t.ber_exp = 12;
	r.d[PMA_RCV_DATA].delta = 1000000000ull;  /* 3.2e10 bits */
	r.d[PMA_SYMBOL_ERR].delta = 1;            /* 3.1e-11 > 1e-12 */
	port_alarms_judge(&t, &r, &j);
	ck_assert(active(&j, PORT_ALARM_LINK_ERRORS));
	ck_assert_msg(strstr(j.why[PORT_ALARM_LINK_ERRORS], "symbol error ratio 3.1e-11 > 1e-12"),
		      "%s", j.why[PORT_ALARM_LINK_ERRORS]);
	t.ber_exp = 10;                           /* 3.1e-11 < 1e-10 */
	port_alarms_judge(&t, &r, &j);
	ck_assert(!active(&j, PORT_ALARM_LINK_ERRORS));
	/* A lower bound of data (cleared in between) gives no ratio. */
	t.ber_exp = 12;
	r.d[PMA_RCV_DATA].state = CDELTA_RESET;
	port_alarms_judge(&t, &r, &j);
	ck_assert(!active(&j, PORT_ALARM_LINK_ERRORS));
}
END_TEST

START_TEST(xmit_wait_per_second_raises_link_congested_only_with_an_exact_rate)
{
	struct port_reading r = quiet();
	struct port_judgement j;

	r.d[PMA_XMIT_WAIT].delta = 9990;  /* 999/s */
	port_alarms_judge(&defaults, &r, &j);
	ck_assert(known(&j, PORT_ALARM_LINK_CONGESTED));
	ck_assert(!active(&j, PORT_ALARM_LINK_CONGESTED));
	r.d[PMA_XMIT_WAIT].delta = 10000;
	port_alarms_judge(&defaults, &r, &j);
	ck_assert(active(&j, PORT_ALARM_LINK_CONGESTED));
	ck_assert_str_eq(j.why[PORT_ALARM_LINK_CONGESTED],
			 "PortXmitWait 1000 ticks/s (threshold 1000)");
	/* Saturated or not counted by this PMA: unknown, neither raise nor calm. */
	r.d[PMA_XMIT_WAIT].state = CDELTA_SATURATED;
	port_alarms_judge(&defaults, &r, &j);
	ck_assert(!known(&j, PORT_ALARM_LINK_CONGESTED));
	r.d[PMA_XMIT_WAIT].state = CDELTA_NOT_READ;
	port_alarms_judge(&defaults, &r, &j);
	ck_assert(!known(&j, PORT_ALARM_LINK_CONGESTED));
}
END_TEST

START_TEST(an_unanswered_port_is_unreadable_with_its_reason_and_nothing_else_is_judged)
{
	struct port_reading r = quiet();
	struct port_judgement j;

	r.answered = 0;
	r.reason = "PMA timeout (3 tries)";
	r.d[PMA_SYMBOL_ERR].delta = 50;  /* stale numbers are not judged */
	port_alarms_judge(&defaults, &r, &j);
	ck_assert_uint_eq(j.known, 1u << PORT_ALARM_UNREADABLE);
	ck_assert_uint_eq(j.active, 1u << PORT_ALARM_UNREADABLE);
	ck_assert_str_eq(j.why[PORT_ALARM_UNREADABLE], "PMA timeout (3 tries)");
}
END_TEST

START_TEST(a_threshold_of_zero_turns_its_test_off_and_its_alarms_calm_down)
{
	struct port_thresholds t = { .clear_after = 1 };
	struct port_reading r = quiet();
	struct port_judgement j;

	r.d[PMA_SYMBOL_ERR].delta = 5;
	r.d[PMA_LINK_DOWNED].delta = 5;
	r.d[PMA_XMIT_WAIT].delta = 1000000;
	port_alarms_judge(&t, &r, &j);
	ck_assert_uint_eq(j.active, 0);
	/* Judged (as not holding), so what was raised before clears. */
	ck_assert_uint_eq(j.known, PORT_ALARMS_IB);
}
END_TEST

START_TEST(an_alarm_is_raised_once_and_cleared_once_after_clear_after_calm_reads)
{
	int raised = 0, calm = 0;

	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 1, 3), PORT_ALARM_RAISE);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 1, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
	/* Back before it calmed down: the count starts again, no new event. */
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 1, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(calm, 0);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
	/* Unknown reads neither calm nor raise. */
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 0, 0, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(calm, 1);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_CLEAR);
	ck_assert_int_eq(raised, 0);
	ck_assert_int_eq(port_alarm_step(&raised, &calm, 1, 0, 3), PORT_ALARM_STAY);
}
END_TEST

START_TEST(alarm_names_are_the_event_kinds)
{
	for (int a = 0; a < PORT_ALARM_N; a++)
		ck_assert_int_eq(port_alarm_by_name(port_alarm_name(a)), a);
	ck_assert_str_eq(port_alarm_name(PORT_ALARM_UNREADABLE), "counters_unreadable");
	ck_assert_ptr_null(port_alarm_name(PORT_ALARM_N));
	ck_assert_int_eq(port_alarm_by_name("link_bored"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("port_alarms");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_quiet_port_raises_nothing_and_every_alarm_is_judged);
	tcase_add_test(tc, error_counters_that_moved_raise_link_errors_and_name_the_counters);
	tcase_add_test(tc, the_error_threshold_counts_the_sum_of_one_read);
	tcase_add_test(tc, a_first_sample_judges_nothing_but_readability);
	tcase_add_test(tc, symbol_error_ratio_uses_exact_counts_of_bits_received);
	tcase_add_test(tc, xmit_wait_per_second_raises_link_congested_only_with_an_exact_rate);
	tcase_add_test(tc, an_unanswered_port_is_unreadable_with_its_reason_and_nothing_else_is_judged);
	tcase_add_test(tc, a_threshold_of_zero_turns_its_test_off_and_its_alarms_calm_down);
	tcase_add_test(tc, an_alarm_is_raised_once_and_cleared_once_after_clear_after_calm_reads);
	tcase_add_test(tc, alarm_names_are_the_event_kinds);
	suite_add_tcase(s, tc);
	return check_run(s);
}
