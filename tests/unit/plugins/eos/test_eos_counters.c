/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/eos/test_eos_counters.c: the eos plugin's counters_read, in the
 * test_eos program.
 *
 * The decoder (eos_counters.c, compiled in) on eAPI results as EOS gives
 * them ("show interfaces" as NAPALM's captured fixture has it, the PFC and
 * watchdog counters as public health checks read them): each counter
 * under loom's name, priority or queue, Ethernet ports only, what a
 * command EOS refused would have given left out (never 0), and each fault
 * (a counter that is a string or negative, a priority that is not 0..7, a
 * member of another type) a port_error naming the command, the port and
 * the field, the other ports still read; an answer whose top is not EOS's
 * fails the read.
 *
 * The plugin (eos.so) against tests/servers/eos_server.py with counters the
 * test sets: the values come back per port; a platform that refuses the
 * ECN command loses only the ECN counters. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_eos.h"
#include "eos.h"
#include "../../plugins/lp_util.h"
#include "tests/unit/fixtures/counter_sink.h"

static json_t *parse(const char *s)
{
	json_error_t je;
	json_t *j;

	if (!s)
		return NULL;
	j = json_loads(s, 0, &je);
	ck_assert_msg(j, "bad test JSON: %s", je.text);
	return j;
}

static int decode(const char *ifs, const char *pfc, const char *wd, const char *ecn)
{
	json_t *a = parse(ifs), *b = parse(pfc), *c = parse(wd), *d = parse(ecn);
	int rc;

	n_got = n_errs = 0;
	err[0] = '\0';
	rc = eos_counters_decode(a, b, c, d, &got_sink, err, sizeof(err));
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
	return rc;
}

/* As NAPALM's captured "show interfaces" has them (fewer fields). */
#define IFC(n) \
	"{\"name\": \"Ethernet" #n "\", \"hardware\": \"ethernet\", \"interfaceCounters\": {" \
	"\"inOctets\": " #n "001, \"outOctets\": " #n "002, \"totalInErrors\": " #n "003," \
	"\"totalOutErrors\": 0, \"inDiscards\": " #n "005, \"outDiscards\": " #n "006," \
	"\"inUcastPkts\": 1, \"counterRefreshTime\": 1478085320.927135," \
	"\"inputErrorsDetail\": {\"rxPause\": 0}}}"
#define IFS "{\"interfaces\": {\"Ethernet10\": " IFC(10) ", \"Ethernet2\": " IFC(2) "," \
	"\"Ethernet2.100\": {\"hardware\": \"subinterface\"}," \
	"\"Management1\": {\"interfaceCounters\": {\"inOctets\": 5}}," \
	"\"Port-Channel1\": {\"interfaceCounters\": {\"inOctets\": 6}}}}"
#define PFC "{\"interfaces\": {\"Ethernet2\": {\"priorities\": {" \
	"\"3\": {\"rxFrames\": 230, \"txFrames\": 231}, \"4\": {\"rxFrames\": 240, \"txFrames\": 241}}}," \
	"\"Ethernet10\": {\"priorities\": {\"3\": {\"rxFrames\": 1030, \"txFrames\": 1031}}}}}"
#define WD "{\"interfaces\": {\"Ethernet2\": {\"txQueues\": {\"3\": {\"stuckCount\": 5," \
	"\"recoveryCount\": 4}}}}}"
#define ECN "{\"intfQueueCounters\": {\"Ethernet10\": {\"queueCounters\": {\"3\": 77}}}}"

START_TEST(eos_counters_under_looms_names_per_priority_and_queue)
{
	ck_assert_int_eq(decode(IFS, PFC, WD, ECN), 0);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_value("Ethernet2", "in_octets", LP_COUNTER_PORT, 0), 2001);
	ck_assert_uint_eq(got_value("Ethernet2", "out_octets", LP_COUNTER_PORT, 0), 2002);
	ck_assert_uint_eq(got_value("Ethernet2", "in_errors", LP_COUNTER_PORT, 0), 2003);
	ck_assert_uint_eq(got_value("Ethernet2", "out_errors", LP_COUNTER_PORT, 0), 0);
	ck_assert_uint_eq(got_value("Ethernet2", "in_discards", LP_COUNTER_PORT, 0), 2005);
	ck_assert_uint_eq(got_value("Ethernet2", "out_discards", LP_COUNTER_PORT, 0), 2006);
	ck_assert_uint_eq(got_value("Ethernet10", "in_octets", LP_COUNTER_PORT, 0), 10001);
	ck_assert_uint_eq(got_value("Ethernet2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 230);
	ck_assert_uint_eq(got_value("Ethernet2", "pfc_tx_pause", LP_COUNTER_PRIORITY, 4), 241);
	ck_assert_uint_eq(got_value("Ethernet10", "pfc_tx_pause", LP_COUNTER_PRIORITY, 3), 1031);
	ck_assert_uint_eq(got_value("Ethernet2", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3), 5);
	ck_assert_uint_eq(got_value("Ethernet2", "pfcwd_storm_restored", LP_COUNTER_QUEUE, 3), 4);
	ck_assert_uint_eq(got_value("Ethernet10", "ecn_marked", LP_COUNTER_QUEUE, 3), 77);
	ck_assert_uint_eq(got_find("Ethernet2", "in_octets", LP_COUNTER_PORT, 0)->bits, 64);
	/* not counted, not reported */
	ck_assert_ptr_null(got_find("Ethernet10", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3));
	ck_assert_ptr_null(got_find("Ethernet2", "ecn_marked", LP_COUNTER_QUEUE, 3));
	ck_assert_ptr_null(got_find("Ethernet2", "queue_drops", LP_COUNTER_QUEUE, 3));
	ck_assert_uint_eq(got_n_of_port("Management1") + got_n_of_port("Port-Channel1") +
			  got_n_of_port("Ethernet2.100"), 0);
	ck_assert_uint_eq(got_n_of_port("Ethernet2"), 6 + 4 + 2);
	/* natural order: Ethernet2 before Ethernet10 */
	ck_assert_str_eq(got[0].port, "Ethernet2");
}
END_TEST

START_TEST(eos_counters_of_refused_commands_are_left_out)
{
	ck_assert_int_eq(decode(IFS, NULL, NULL, NULL), 0);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_n_of_port("Ethernet2"), 6);
	ck_assert_uint_eq(got_n_of_port("Ethernet10"), 6);
	/* no watchdog event yet: EOS lists no port */
	ck_assert_int_eq(decode(IFS, PFC, "{\"interfaces\": {}}", NULL), 0);
	ck_assert_ptr_null(got_find("Ethernet2", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3));
	ck_assert_uint_eq(got_value("Ethernet2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 230);
}
END_TEST

START_TEST(eos_counters_garbage_is_a_port_error_naming_command_port_and_field)
{
	static const struct {
		const char *pfc, *want;
	} bad[] = {
		{ "{\"interfaces\": {\"Ethernet2\": {\"priorities\": {\"3\": {\"rxFrames\": \"12x\"}}}}}",
		  "Ethernet2: show priority-flow-control counters detail: Ethernet2 priorities 3: "
		  "rxFrames \"12x\" is no counter" },
		{ "{\"interfaces\": {\"Ethernet2\": {\"priorities\": {\"3\": {\"txFrames\": -4}}}}}",
		  "txFrames -4 is no counter" },
		{ "{\"interfaces\": {\"Ethernet2\": {\"priorities\": {\"9\": {\"txFrames\": 4}}}}}",
		  "priorities key \"9\" is not 0..7" },
		{ "{\"interfaces\": {\"Ethernet2\": {\"priorities\": [1]}}}",
		  "priorities is not a JSON object" },
		{ "{\"interfaces\": {\"Ethernet2\": 3}}", "Ethernet2: not a JSON object" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(decode(IFS, bad[i].pfc, NULL, NULL), 0);
		ck_assert_uint_eq(n_errs, 1);
		ck_assert_msg(strstr(errs[0], bad[i].want), "%s: %s", bad[i].pfc, errs[0]);
		ck_assert_uint_eq(got_n_of_port("Ethernet2"), 0);
		ck_assert_uint_eq(got_value("Ethernet10", "in_octets", LP_COUNTER_PORT, 0), 10001);
	}
	ck_assert_int_eq(decode("{\"interfaces\": {\"Ethernet1\": {\"interfaceCounters\": "
				"{\"inOctets\": 1.5e3}}}}", NULL, NULL,
				"{\"intfQueueCounters\": {\"Ethernet1\": {\"queueCounters\": "
				"{\"3\": 1}}}}"), 0);
	ck_assert_msg(n_errs == 1 && strstr(errs[0], "show interfaces: Ethernet1 "
					    "interfaceCounters: inOctets 1500.0 is no counter"),
		      "%s", errs[0]);
	ck_assert_uint_eq(n_got, 0);
}
END_TEST

START_TEST(eos_counters_an_answer_that_is_not_eos_fails_the_read)
{
	ck_assert_int_eq(decode("{\"interfaceStatuses\": {}}", NULL, NULL, NULL), -EPROTO);
	ck_assert_msg(strstr(err, "show interfaces: interfaces is missing"), "%s", err);
	ck_assert_int_eq(decode(IFS, "{\"interfaces\": [1]}", NULL, NULL), -EPROTO);
	ck_assert_msg(strstr(err, "show priority-flow-control counters detail: interfaces is "
			     "not a JSON object"), "%s", err);
	ck_assert_int_eq(decode(NULL, NULL, NULL, NULL), -EPROTO);
	ck_assert_uint_eq(n_got, 0);
}
END_TEST

/* ---- the plugin against eos_server.py --------------------------------------------- */

static void set_counters(const char *body)
{
	json_t *r = test_http("/_test/counters", body);

	ck_assert_msg(r && json_object_size(r) == 0, "/_test/counters %s refused", body);
	json_decref(r);
}

START_TEST(eos_plugin_reads_the_counters_the_switch_holds)
{
	set_counters("{\"port\": \"Ethernet3\", \"interfaceCounters\": {\"inOctets\": 123456789012},"
		     " \"pfc\": {\"3\": {\"rxFrames\": 900, \"txFrames\": 9}},"
		     " \"watchdog\": {\"3\": {\"stuckCount\": 2, \"recoveryCount\": 1}},"
		     " \"ecn\": {\"3\": 44}}");
	n_got = n_errs = 0;
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_value("Ethernet3", "in_octets", LP_COUNTER_PORT, 0), 123456789012ull);
	ck_assert_uint_eq(got_value("Ethernet3", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 900);
	ck_assert_uint_eq(got_value("Ethernet3", "pfc_tx_pause", LP_COUNTER_PRIORITY, 3), 9);
	ck_assert_uint_eq(got_value("Ethernet3", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3), 2);
	ck_assert_uint_eq(got_value("Ethernet3", "pfcwd_storm_restored", LP_COUNTER_QUEUE, 3), 1);
	ck_assert_uint_eq(got_value("Ethernet3", "ecn_marked", LP_COUNTER_QUEUE, 3), 44);
	ck_assert_uint_eq(got_value("Ethernet1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 0);
	ck_assert_ptr_null(got_find("Ethernet1", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3));
	ck_assert_uint_eq(got_n_of_port("Management1"), 0);
	ck_assert_uint_eq(log_count().refused, 0);
}
END_TEST

START_TEST(eos_plugin_on_a_platform_without_ecn_counters_reads_the_rest)
{
	set_counters("{\"refuse\": [\"show qos interfaces ecn counters queue\"]}");
	set_counters("{\"port\": \"Ethernet1\", \"ecn\": {\"3\": 44}, \"pfc\": {\"3\": "
		     "{\"rxFrames\": 5}}}");
	n_got = n_errs = 0;
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_null(got_find("Ethernet1", "ecn_marked", LP_COUNTER_QUEUE, 3));
	ck_assert_uint_eq(got_value("Ethernet1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 5);
	ck_assert_uint_eq(log_count().refused, 1);
	/* refused once: not asked again on this handle */
	n_got = n_errs = 0;
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(got_value("Ethernet1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 5);
	ck_assert_uint_eq(log_count().refused, 1);
	/* a switch whose "show interfaces" is refused: the read fails */
	set_counters("{\"refuse\": [\"show interfaces\"]}");
	ck_assert_int_eq(ops->counters_read(sw, &got_sink, err, sizeof(err)), -EIO);
	ck_assert_msg(strstr(err, "'show interfaces'"), "%s", err);
}
END_TEST

void eos_add_counter_tests(Suite *s, TCase *live)
{
	TCase *tc = tcase_create("counters decode");

	tcase_add_test(tc, eos_counters_under_looms_names_per_priority_and_queue);
	tcase_add_test(tc, eos_counters_of_refused_commands_are_left_out);
	tcase_add_test(tc, eos_counters_garbage_is_a_port_error_naming_command_port_and_field);
	tcase_add_test(tc, eos_counters_an_answer_that_is_not_eos_fails_the_read);
	suite_add_tcase(s, tc);
	tcase_add_test(live, eos_plugin_reads_the_counters_the_switch_holds);
	tcase_add_test(live, eos_plugin_on_a_platform_without_ecn_counters_reads_the_rest);
}
