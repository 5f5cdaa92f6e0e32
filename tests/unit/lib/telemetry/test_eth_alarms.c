/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_eth_alarms.c: when an Ethernet switch port's counters
 * raise pfc_storm, ecn_marking, link_errors or counters_unreadable
 * (lib/telemetry/eth_alarms.c). */
#include "autoconf.h"

#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "lib/telemetry/eth_alarms.h"

static const struct port_thresholds t = {
	.errors = 1, .clear_after = 3, .pfc_pause_per_s = 1000, .pfc_watchdog = 1,
	.ecn_marked_per_s = 500,
};

static void judge(const char *port_json, struct port_judgement *j)
{
	json_error_t e;
	json_t *p = json_loads(port_json, 0, &e);

	ck_assert_msg(p != NULL, "%s", e.text);
	eth_alarms_judge(&t, p, j);
	json_decref(p);
}

#define ON(j, a) (!!((j).active & (1u << (a))))
#define KNOWN(j, a) (!!((j).known & (1u << (a))))

START_TEST(a_quiet_port_judges_every_ethernet_alarm_and_raises_none)
{
	struct port_judgement j;

	judge("{\"answered\": true, \"interval_s\": 10, \"deltas\": {"
	      "\"in_errors\": {\"state\": \"ok\", \"delta\": 0},"
	      "\"pfcwd_storm_detected.q3\": {\"state\": \"ok\", \"delta\": 0}},"
	      "\"rates\": {\"pfc_rx_pause.p3\": 0, \"ecn_marked.q3\": 0}}", &j);
	ck_assert_uint_eq(j.known, PORT_ALARMS_ETH);
	ck_assert_uint_eq(j.active, 0);
}
END_TEST

START_TEST(a_watchdog_detection_or_a_pause_rate_raises_pfc_storm_naming_the_queue)
{
	struct port_judgement j;

	judge("{\"answered\": true, \"deltas\": {"
	      "\"pfcwd_storm_detected.q3\": {\"state\": \"ok\", \"delta\": 2}}}", &j);
	ck_assert(ON(j, PORT_ALARM_PFC_STORM));
	ck_assert_str_eq(j.why[PORT_ALARM_PFC_STORM], "pfcwd_storm_detected.q3+2");
	judge("{\"answered\": true, \"rates\": {\"pfc_rx_pause.p4\": 999.0, "
	      "\"pfc_rx_pause.p3\": 1000.0}}", &j);
	ck_assert(ON(j, PORT_ALARM_PFC_STORM));
	ck_assert_str_eq(j.why[PORT_ALARM_PFC_STORM], "pfc_rx_pause.p3 1000/s");
	/* Pauses sent are the port's own doing, not a storm on it. */
	judge("{\"answered\": true, \"rates\": {\"pfc_tx_pause.p3\": 100000.0}}", &j);
	ck_assert(!ON(j, PORT_ALARM_PFC_STORM));
	judge("{\"answered\": true, \"gauges\": {\"pfcwd_stormed.q3\": 1}}", &j);
	ck_assert(ON(j, PORT_ALARM_PFC_STORM));
	ck_assert_str_eq(j.why[PORT_ALARM_PFC_STORM], "pfcwd_stormed.q3 held by the watchdog");
}
END_TEST

START_TEST(ecn_marks_a_second_on_one_queue_raise_ecn_marking)
{
	struct port_judgement j;

	judge("{\"answered\": true, \"rates\": {\"ecn_marked.q3\": 499.0}}", &j);
	ck_assert(KNOWN(j, PORT_ALARM_ECN_MARKING));
	ck_assert(!ON(j, PORT_ALARM_ECN_MARKING));
	judge("{\"answered\": true, \"rates\": {\"ecn_marked.q3\": 750.0}}", &j);
	ck_assert(ON(j, PORT_ALARM_ECN_MARKING));
	ck_assert_str_eq(j.why[PORT_ALARM_ECN_MARKING], "ecn_marked.q3 750/s");
}
END_TEST

START_TEST(interface_errors_raise_link_errors_and_a_lower_bound_counts)
{
	struct port_judgement j;

	judge("{\"answered\": true, \"deltas\": {"
	      "\"in_errors\": {\"state\": \"reset\", \"delta\": 3},"
	      "\"in_octets\": {\"state\": \"ok\", \"delta\": 99999}}}", &j);
	ck_assert(ON(j, PORT_ALARM_LINK_ERRORS));
	ck_assert_str_eq(j.why[PORT_ALARM_LINK_ERRORS], "in_errors+3");
	/* A first sample says nothing. */
	judge("{\"answered\": true, \"deltas\": {"
	      "\"in_errors\": {\"state\": \"first\", \"delta\": 0}}}", &j);
	ck_assert(!KNOWN(j, PORT_ALARM_LINK_ERRORS));
}
END_TEST

START_TEST(a_port_not_read_is_unreadable_with_its_reason_only)
{
	struct port_judgement j;

	judge("{\"answered\": false, \"reason\": \"COUNTERS:oid:0x1 field X: 12a is no number\","
	      "\"deltas\": {\"in_errors\": {\"state\": \"ok\", \"delta\": 9}}}", &j);
	ck_assert_uint_eq(j.known, 1u << PORT_ALARM_UNREADABLE);
	ck_assert_uint_eq(j.active, 1u << PORT_ALARM_UNREADABLE);
	ck_assert_str_eq(j.why[PORT_ALARM_UNREADABLE], "COUNTERS:oid:0x1 field X: 12a is no number");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_alarms");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_quiet_port_judges_every_ethernet_alarm_and_raises_none);
	tcase_add_test(tc, a_watchdog_detection_or_a_pause_rate_raises_pfc_storm_naming_the_queue);
	tcase_add_test(tc, ecn_marks_a_second_on_one_queue_raise_ecn_marking);
	tcase_add_test(tc, interface_errors_raise_link_errors_and_a_lower_bound_counts);
	tcase_add_test(tc, a_port_not_read_is_unreadable_with_its_reason_only);
	suite_add_tcase(s, tc);
	return check_run(s);
}
