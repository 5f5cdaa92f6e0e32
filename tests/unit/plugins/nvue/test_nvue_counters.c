/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/nvue/test_nvue_counters.c: the nvue plugin's counters_read.
 *
 * The decoder (nvue_counters.c, compiled in) on NVUE's operational trees
 * given as a table of GET path -> answer: each counter under loom's name,
 * priority or queue with its width, the watchdog's stormed queue as a
 * gauge, what a release lacks left out (never 0), Cumulus Linux 5.4's
 * qos/counters path taken when counters/qos is a 404, and each fault (a
 * counter that is a string, a negative one, a class key that is not 0..7,
 * a watchdog status NVUE does not give, an HTTP error on one port's GET) a
 * port_error naming the GET, the port and the member, the other ports
 * still read; a switch that stops answering fails the read.
 *
 * The plugin (nvue.so through plugin_load(), as loomd loads it) against
 * tests/servers/nvue_server.py with counters the test sets: the values
 * come back per port as set, on a 5.9 and a 5.4 release; the server
 * refuses a PATCH of the counters (operational state), so the fake does
 * not take what NVUE refuses. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_nvue.h"
#include "tests/unit/fixtures/check_run.h"
#include "nvue.h"
#include "../../plugins/lp_util.h"
#include "tests/unit/fixtures/counter_sink.h"

/* ---- what a read reported ---------------------------------------------------- */

static void reset(void)
{
	n_got = 0;
	n_errs = 0;
	err[0] = '\0';
}

/* ---- a switch as a table of GETs ----------------------------------------------- */

struct table {
	json_t *answers;              /* path -> answer; a number N: that errno */
	unsigned gets;
};

static int table_get(void *ctx, const char *path, json_t **out, char *e, size_t len)
{
	struct table *t = ctx;
	json_t *a = json_object_get(t->answers, path);

	t->gets++;
	*out = NULL;
	if (!a) {
		snprintf(e, len, "GET %s: 404 Not Found", path);
		return -ENOENT;
	}
	if (json_is_integer(a)) {
		snprintf(e, len, "GET %s: HTTP error (%d)", path, (int)json_integer_value(a));
		return (int)json_integer_value(a);
	}
	*out = json_incref(a);
	return 0;
}

static unsigned gets;              /* GETs of the last read_table */

static int read_table(const char *json)
{
	json_error_t je;
	struct table t = { json_loads(json, 0, &je), 0 };
	struct nv_source src = { &t, table_get, 0 };
	int rc;

	ck_assert_msg(t.answers, "bad test JSON: %s (line %d)", je.text, je.line);
	reset();
	rc = nv_counters_read(&src, &got_sink, err, sizeof(err));
	json_decref(t.answers);
	gets = t.gets;
	return rc;
}

/* Two ports as a Cumulus Linux 5.9 switch gives them; values encode
 * port, priority or class, so that one read under the wrong index shows. */
#define IFS \
	"\"interface\": {" \
	"  \"eth0\": {\"type\": \"eth\", \"link\": {\"stats\": {\"in-bytes\": 5}}}," \
	"  \"swp1\": {\"type\": \"swp\", \"link\": {\"stats\": {\"carrier-transitions\": 2," \
	"     \"in-bytes\": 1001, \"out-bytes\": 2001, \"in-errors\": 3, \"out-errors\": 0," \
	"     \"in-drops\": 7, \"out-drops\": 8, \"in-pkts\": 9, \"out-pkts\": 10}}}," \
	"  \"swp2\": {\"type\": \"swp\", \"link\": {\"stats\": {\"in-bytes\": 1002," \
	"     \"out-bytes\": 2002}}}}"

#define QOS(p) \
	"{\"pfc-stats\": {\"0\": {\"rx-pause-frames\": " p "00, \"tx-pause-frames\": " p "01," \
	"   \"rx-pause-duration\": " p "02, \"tx-pause-duration\": " p "03}," \
	"  \"3\": {\"rx-pause-frames\": " p "30, \"tx-pause-frames\": " p "31," \
	"   \"rx-pause-duration\": " p "32, \"tx-pause-duration\": " p "33}}," \
	" \"egress-queue-stats\": {\"3\": {\"tx-frames\": " p "40, \"tx-bytes\": 99999," \
	"   \"tx-uc-buffer-discards\": " p "41, \"wred-discards\": 77, \"ecn-marked-frames\": " p "42}," \
	"  \"6\": {\"tx-frames\": " p "60, \"tx-uc-buffer-discards\": 0}}," \
	" \"port-stats\": {\"tx-stats\": {\"ecn-marked-packets\": 5}}}"

#define WD "{\"state\": \"enabled\", \"status\": {\"3\": {\"status\": \"DEADLOCK\"," \
	" \"deadlock-count\": 4}, \"4\": {\"status\": \"OK\", \"deadlock-count\": 0}}}"

START_TEST(nvue_counters_under_looms_names_per_priority_and_queue)
{
	ck_assert_int_eq(read_table("{" IFS ", \"interface/swp1/counters/qos\": " QOS("1") ","
				    "\"interface/swp2/counters/qos\": " QOS("2") ","
				    "\"interface/swp1/qos/pfc-watchdog\": " WD "}"), 0);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_value("swp1", "in_octets", LP_COUNTER_PORT, 0), 1001);
	ck_assert_uint_eq(got_value("swp1", "out_octets", LP_COUNTER_PORT, 0), 2001);
	ck_assert_uint_eq(got_value("swp1", "in_errors", LP_COUNTER_PORT, 0), 3);
	ck_assert_uint_eq(got_value("swp1", "out_errors", LP_COUNTER_PORT, 0), 0);
	ck_assert_uint_eq(got_value("swp1", "in_discards", LP_COUNTER_PORT, 0), 7);
	ck_assert_uint_eq(got_value("swp1", "out_discards", LP_COUNTER_PORT, 0), 8);
	ck_assert_uint_eq(got_value("swp2", "in_octets", LP_COUNTER_PORT, 0), 1002);
	ck_assert_uint_eq(got_value("swp1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 130);
	ck_assert_uint_eq(got_value("swp1", "pfc_tx_pause", LP_COUNTER_PRIORITY, 3), 131);
	/* durations: NVUE states no unit, so they are not taken as microseconds */
	ck_assert_ptr_null(got_find("swp1", "pfc_rx_pause_duration_us", LP_COUNTER_PRIORITY, 3));
	ck_assert_ptr_null(got_find("swp1", "pfc_tx_pause_duration_us", LP_COUNTER_PRIORITY, 3));
	ck_assert_uint_eq(got_value("swp2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 0), 200);
	ck_assert_uint_eq(got_value("swp2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 230);
	ck_assert_uint_eq(got_value("swp1", "queue_packets", LP_COUNTER_QUEUE, 3), 140);
	ck_assert_uint_eq(got_value("swp1", "queue_drops", LP_COUNTER_QUEUE, 3), 141);
	ck_assert_uint_eq(got_value("swp1", "ecn_marked", LP_COUNTER_QUEUE, 3), 142);
	ck_assert_uint_eq(got_value("swp2", "queue_packets", LP_COUNTER_QUEUE, 6), 260);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3), 4);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 4), 0);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 3), 1);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 4), 0);
	ck_assert_uint_eq(got_find("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 3)->gauge, 1);
	ck_assert_uint_eq(got_find("swp1", "in_octets", LP_COUNTER_PORT, 0)->bits, 64);
	ck_assert_uint_eq(got_find("swp1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3)->gauge, 0);
	/* what the switch does not count is not reported as 0 */
	ck_assert_ptr_null(got_find("swp2", "in_errors", LP_COUNTER_PORT, 0));
	ck_assert_ptr_null(got_find("swp2", "ecn_marked", LP_COUNTER_QUEUE, 6));
	ck_assert_ptr_null(got_find("swp2", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3));
	ck_assert_ptr_null(got_find("swp1", "pfcwd_storm_restored", LP_COUNTER_QUEUE, 3));
	ck_assert_ptr_null(got_find("swp1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 1));
	ck_assert_uint_eq(got_n_of_port("eth0"), 0);
	/* 6 port + 2 x 2 priority + 3 + 2 queue + 2 x 2 watchdog */
	ck_assert_uint_eq(got_n_of_port("swp1"), 6 + 4 + 5 + 4);
}
END_TEST

START_TEST(nvue_counters_takes_qos_counters_of_a_5_4_release)
{
	ck_assert_int_eq(read_table("{" IFS ", \"interface/swp1/qos/counters\": " QOS("1") ","
				    "\"interface/swp2/qos/counters\": " QOS("2") "}"), 0);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_value("swp1", "pfc_tx_pause", LP_COUNTER_PRIORITY, 0), 101);
	ck_assert_uint_eq(got_value("swp2", "queue_drops", LP_COUNTER_QUEUE, 3), 241);
	ck_assert_ptr_null(got_find("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 3));
}
END_TEST

START_TEST(nvue_counters_held_by_get_interface_need_no_more_gets)
{
	ck_assert_int_eq(read_table("{\"interface\": {"
				    "\"swp1\": {\"type\": \"swp\", \"counters\": {\"qos\": " QOS("1") "},"
				    "  \"qos\": {\"pfc-watchdog\": " WD "}},"
				    "\"swp2\": {\"type\": \"swp\", \"qos\": {\"counters\": " QOS("2") ","
				    "  \"pfc-watchdog\": {\"status\": {}}}}}}"), 0);
	ck_assert_uint_eq(gets, 1);
	ck_assert_uint_eq(n_errs, 0);
	ck_assert_uint_eq(got_value("swp1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 130);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 3), 1);
	ck_assert_uint_eq(got_value("swp2", "queue_drops", LP_COUNTER_QUEUE, 3), 241);
	/* garbage there is the port's error, naming where it was */
	ck_assert_int_eq(read_table("{\"interface\": {\"swp1\": {\"type\": \"swp\", "
				    "\"counters\": {\"qos\": {\"pfc-stats\": {\"x\": {}}}}}}}"), 0);
	ck_assert_msg(n_errs == 1 && strstr(errs[0], "swp1: GET interface: swp1 counters qos: "
					    "pfc-stats key \"x\" is not 0..7"), "%s", errs[0]);
	/* a watchdog object without status there: its own GET is asked */
	ck_assert_int_eq(read_table("{\"interface\": {\"swp1\": {\"type\": \"swp\", "
				    "\"qos\": {\"pfc-watchdog\": {\"state\": \"enable\"}}}},"
				    "\"interface/swp1/qos/pfc-watchdog\": " WD "}"), 0);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3), 4);
}
END_TEST

START_TEST(nvue_counters_a_string_counter_is_a_port_error_naming_get_port_and_member)
{
	ck_assert_int_eq(read_table("{" IFS ", \"interface/swp1/counters/qos\": {\"pfc-stats\": "
				    "{\"3\": {\"rx-pause-frames\": \"12x\"}}},"
				    "\"interface/swp2/counters/qos\": " QOS("2") "}"), 0);
	ck_assert_uint_eq(n_errs, 1);
	ck_assert_msg(strstr(errs[0], "swp1: GET interface/swp1/counters/qos: pfc-stats 3 "
			     "rx-pause-frames: \"12x\" is no counter"), "%s", errs[0]);
	ck_assert_uint_eq(got_n_of_port("swp1"), 0);           /* none of its counters */
	ck_assert_uint_eq(got_value("swp2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 230);
}
END_TEST

START_TEST(nvue_counters_negative_float_and_bad_keys_are_port_errors)
{
	static const struct {
		const char *answer, *want;
	} bad[] = {
		{ "{\"egress-queue-stats\": {\"3\": {\"tx-frames\": -1}}}",
		  "egress-queue-stats 3 tx-frames: -1 is no counter" },
		{ "{\"egress-queue-stats\": {\"3\": {\"tx-frames\": 1.5}}}",
		  "egress-queue-stats 3 tx-frames: 1.5 is no counter" },
		{ "{\"egress-queue-stats\": {\"8\": {\"tx-frames\": 1}}}",
		  "egress-queue-stats key \"8\" is not 0..7" },
		{ "{\"pfc-stats\": [1, 2]}", "pfc-stats is not a JSON object" },
		{ "{\"pfc-stats\": {\"3\": 5}}", "pfc-stats 3: not a JSON object" },
		{ "[]", "the answer is no JSON object" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char t[2048];

		snprintf(t, sizeof(t), "{" IFS ", \"interface/swp1/counters/qos\": %s}",
			 bad[i].answer);
		ck_assert_int_eq(read_table(t), 0);
		ck_assert_uint_eq(n_errs, 1);
		ck_assert_msg(strstr(errs[0], bad[i].want), "%s: %s", bad[i].answer, errs[0]);
		ck_assert_uint_eq(got_n_of_port("swp1"), 0);
		ck_assert_uint_eq(got_value("swp2", "in_octets", LP_COUNTER_PORT, 0), 1002);
	}
}
END_TEST

START_TEST(nvue_counters_link_stats_garbage_and_watchdog_status_are_port_errors)
{
	ck_assert_int_eq(read_table("{\"interface\": {\"swp1\": {\"type\": \"swp\", \"link\": "
				    "{\"stats\": {\"in-bytes\": \"1.2 KB\"}}}}}"), 0);
	ck_assert_uint_eq(n_errs, 1);
	ck_assert_msg(strstr(errs[0], "swp1: GET interface: swp1 link stats in-bytes: "
			     "\"1.2 KB\" is no counter"), "%s", errs[0]);
	ck_assert_int_eq(read_table("{\"interface\": {\"swp1\": {\"type\": \"swp\", \"link\": "
				    "{\"stats\": 7}}}}"), 0);
	ck_assert_msg(n_errs == 1 && strstr(errs[0], "link: stats is not a JSON object"), "%s",
		      errs[0]);
	ck_assert_int_eq(read_table("{\"interface\": {\"swp1\": {\"type\": \"swp\"}},"
				    "\"interface/swp1/qos/pfc-watchdog\": {\"status\": {\"3\": "
				    "{\"status\": \"STORM\", \"deadlock-count\": 1}}}}"), 0);
	ck_assert_msg(n_errs == 1 && strstr(errs[0], "GET interface/swp1/qos/pfc-watchdog: "
					    "status 3 status: \"STORM\" is neither OK nor "
					    "DEADLOCK"), "%s", errs[0]);
	ck_assert_uint_eq(n_got, 0);
}
END_TEST

START_TEST(nvue_counters_an_http_error_on_one_port_is_its_port_error)
{
	ck_assert_int_eq(read_table("{" IFS ", \"interface/swp1/counters/qos\": -5,"
				    "\"interface/swp2/counters/qos\": " QOS("2") "}"), 0);
	ck_assert_uint_eq(n_errs, 1);
	ck_assert_msg(strstr(errs[0], "swp1: GET interface/swp1/counters/qos: "), "%s", errs[0]);
	ck_assert_uint_eq(got_n_of_port("swp1"), 0);
	ck_assert_uint_eq(got_value("swp2", "queue_packets", LP_COUNTER_QUEUE, 3), 240);
}
END_TEST

START_TEST(nvue_counters_a_switch_that_stops_answering_fails_the_read)
{
	ck_assert_int_eq(read_table("{" IFS ", \"interface/swp1/counters/qos\": -110}"),
			 -ETIMEDOUT);
	ck_assert_msg(strstr(err, "GET interface/swp1/counters/qos"), "%s", err);
	ck_assert_int_eq(read_table("{\"interface\": -111}"), -ECONNREFUSED);
	ck_assert_int_eq(read_table("{\"interface\": [1]}"), -EPROTO);
	ck_assert_msg(strstr(err, "GET interface: the answer is no JSON object"), "%s", err);
	ck_assert_uint_eq(n_got, 0);
}
END_TEST

/* ---- the plugin against nvue_server.py -------------------------------------------- */

static void set_counters(const char *body)
{
	json_t *r = http("POST", "/test/counters", body);

	ck_assert_msg(r && json_object_size(r) == 0, "POST /test/counters %s refused", body);
	json_decref(r);
}

START_TEST(nvue_plugin_reads_the_counters_the_switch_holds)
{
	/* 5.9 first: the plugin's GETs all answered; on 5.4 a 404 or two
	 * (counters/qos, the watchdog) are how it finds what the release has */
	static const char *const releases[] = { "5.9", "5.4" };

	for (int r = 0; r < 2; r++) {
		char b[256];

		snprintf(b, sizeof(b), "{\"release\": \"%s\"}", releases[r]);
		set_counters(b);
		snprintf(b, sizeof(b), "{\"port\": \"swp2\", \"stats\": {\"in-bytes\": %d}, "
			 "\"qos\": {\"pfc-stats\": {\"3\": {\"rx-pause-frames\": %d}}, "
			 "\"egress-queue-stats\": {\"3\": {\"ecn-marked-frames\": %d}}}}",
			 5000 + r, 700 + r, 90 + r);
		set_counters(b);
		reset();
		ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(n_errs, 0);
		ck_assert_uint_eq(got_value("swp2", "in_octets", LP_COUNTER_PORT, 0), 5000 + r);
		ck_assert_uint_eq(got_value("swp2", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 700 + r);
		ck_assert_uint_eq(got_value("swp2", "ecn_marked", LP_COUNTER_QUEUE, 3), 90 + r);
		ck_assert_uint_eq(got_value("swp1", "pfc_rx_pause", LP_COUNTER_PRIORITY, 3), 0);
		ck_assert_uint_eq(got_n_of_port("eth0"), 0);
		if (r == 0)
			assert_no_refusal();
	}
}
END_TEST

START_TEST(nvue_plugin_reads_the_watchdog_and_reports_a_bad_value_per_port)
{
	set_counters("{\"port\": \"swp1\", \"pfcwd\": {\"3\": {\"status\": \"DEADLOCK\", "
		     "\"deadlock-count\": 2}}}");
	set_counters("{\"port\": \"swp3\", \"qos\": {\"egress-queue-stats\": {\"0\": "
		     "{\"tx-frames\": \"lots\"}}}}");
	reset();
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_storm_detected", LP_COUNTER_QUEUE, 3), 2);
	ck_assert_uint_eq(got_value("swp1", "pfcwd_stormed", LP_COUNTER_QUEUE, 3), 1);
	ck_assert_uint_eq(n_errs, 1);
	ck_assert_msg(strstr(errs[0], "swp3: GET interface/swp3/counters/qos: egress-queue-stats "
			     "0 tx-frames: \"lots\" is no counter"), "%s", errs[0]);
	ck_assert_uint_eq(got_n_of_port("swp3"), 0);
	ck_assert_uint_eq(got_value("swp4", "in_octets", LP_COUNTER_PORT, 0), 0);
}
END_TEST

/* GETs the plugin made so far (the server's log). */
static size_t n_gets(void)
{
	json_t *l = http("GET", "/test/log", NULL);
	size_t n = json_array_size(l);

	json_decref(l);
	return n;
}

START_TEST(nvue_plugin_takes_counters_from_get_interface_when_it_holds_them)
{
	size_t before, per_port;

	set_counters("{\"port\": \"swp3\", \"qos\": {\"pfc-stats\": {\"3\": "
		     "{\"tx-pause-frames\": 61}}}}");
	before = n_gets();
	reset();
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	per_port = n_gets() - before;
	ck_assert_uint_eq(got_value("swp3", "pfc_tx_pause", LP_COUNTER_PRIORITY, 3), 61);
	ck_assert_uint_eq(per_port, 1 + 2 * 4);          /* 4 swp ports */
	set_counters("{\"collection\": true}");
	before = n_gets();
	reset();
	ck_assert_msg(ops->counters_read(sw, &got_sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(n_gets() - before, 1 + 4);     /* the watchdog is off: asked */
	ck_assert_uint_eq(got_value("swp3", "pfc_tx_pause", LP_COUNTER_PRIORITY, 3), 61);
	ck_assert_uint_eq(n_errs, 0);
}
END_TEST

START_TEST(nvue_server_refuses_a_patch_of_the_counters)
{
	json_t *rev = http("POST", "/nvue_v1/revision", NULL), *r;
	const char *id = NULL, *k;
	json_t *v;
	char path[256];

	json_object_foreach(rev, k, v) {
		id = k;
		break;
	}
	ck_assert_ptr_nonnull(id);
	snprintf(path, sizeof(path), "/nvue_v1/interface/swp1/link?rev=%s", id);
	r = http("PATCH", path, "{\"stats\": {\"in-bytes\": 0}}");
	ck_assert_msg(r && strstr(json_string_value(json_object_get(r, "detail")) ?: "",
				  "operational state"), "a PATCH of link stats was taken");
	json_decref(r);
	json_decref(rev);
	/* the applied tree holds no counters: they are operational */
	ck_assert_ptr_null(walk(applied("interface/swp1"), "counters"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvue_counters");
	TCase *tc = tcase_create("decode"), *live = tcase_create("plugin");

	tcase_add_test(tc, nvue_counters_under_looms_names_per_priority_and_queue);
	tcase_add_test(tc, nvue_counters_takes_qos_counters_of_a_5_4_release);
	tcase_add_test(tc, nvue_counters_held_by_get_interface_need_no_more_gets);
	tcase_add_test(tc, nvue_counters_a_string_counter_is_a_port_error_naming_get_port_and_member);
	tcase_add_test(tc, nvue_counters_negative_float_and_bad_keys_are_port_errors);
	tcase_add_test(tc, nvue_counters_link_stats_garbage_and_watchdog_status_are_port_errors);
	tcase_add_test(tc, nvue_counters_an_http_error_on_one_port_is_its_port_error);
	tcase_add_test(tc, nvue_counters_a_switch_that_stops_answering_fails_the_read);
	suite_add_tcase(s, tc);
	if (have_python3()) {
		tcase_set_timeout(live, 60);
		tcase_add_checked_fixture(live, setup, teardown);
		tcase_add_test(live, nvue_plugin_reads_the_counters_the_switch_holds);
		tcase_add_test(live, nvue_plugin_reads_the_watchdog_and_reports_a_bad_value_per_port);
		tcase_add_test(live, nvue_plugin_takes_counters_from_get_interface_when_it_holds_them);
		tcase_add_test(live, nvue_server_refuses_a_patch_of_the_counters);
		suite_add_tcase(s, live);
	}
	return check_run(s);
}
