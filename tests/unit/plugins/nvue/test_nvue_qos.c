/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/nvue/test_nvue_qos.c: NVUE's QoS rules, on both sides (issue 17):
 * the stand-in switch (tests/servers/nvue_server.py) refuses what a Cumulus
 * Linux switch refuses, and the nvue plugin never sends it. The rules, and
 * the source of each, are in the server's SCHEMA / check_rules and in
 * docs/nvue-qos-notes.md:
 *  - unset is the switch's default, not "off": default-global's egress
 *    scheduler gives every class it does not set DWRR 12/13 %, and NVUE
 *    refuses a profile whose DWRR bw-percent sum past 100; ECN stays on for
 *    queue 0; trust is l2 (both with qos roce); the watchdog polls every
 *    100 ms, 3 times;
 *  - every value is checked at its full path (bw-percent 1..100 only under
 *    egress-scheduler, no "mode dwrr" under roce, DSCP 0..63, ...);
 *  - across fields: the PFC watchdog only on a swp port with PFC, ECN min
 *    not above max.
 * The server is driven directly (revise()) for its own rules, the plugin
 * through its ops table for loom's side; fixture_nvue.c runs both. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "tests/unit/fixtures/fixture_nvue.h"
#include "tests/unit/fixtures/fixture_plugin.h"
#include "tests/unit/fixtures/check_run.h"

/* ---- a revision made by hand ---------------------------------------------- */

static char rev_state[32], rev_issue[512];

/* One revision holding `patch` (JSON, PATCHed at the root), then applied
 * and polled until it settles: the PATCH's HTTP status (its refusal's
 * detail in rev_issue), and the revision's last state in rev_state with its
 * issues in rev_issue. */
static long revise(const char *patch)
{
	json_t *r = http("POST", "/nvue_v1/revision", NULL), *a, *issues, *i;
	char enc[192] = "", path[256];
	const char *id = NULL, *k;
	size_t o = 0;
	long st = 200;

	rev_state[0] = rev_issue[0] = '\0';
	ck_assert_ptr_nonnull(r);
	json_object_foreach(r, k, a) {
		id = k;
		break;
	}
	ck_assert_ptr_nonnull(id);
	for (const char *c = id; *c && o + 4 < sizeof(enc); c++)
		o += (size_t)(*c == '/' ? snprintf(enc + o, sizeof(enc) - o, "%%2F")
					: snprintf(enc + o, sizeof(enc) - o, "%c", *c));
	json_decref(r);
	snprintf(path, sizeof(path), "/nvue_v1/?rev=%s", enc);
	a = http("PATCH", path, patch);
	ck_assert_ptr_nonnull(a);
	if (json_is_integer(json_object_get(a, "status")))
		st = (long)json_integer_value(json_object_get(a, "status"));
	if (st != 200) {
		snprintf(rev_issue, sizeof(rev_issue), "%s",
			 json_string_value(json_object_get(a, "detail")));
		json_decref(a);
		return st;
	}
	json_decref(a);
	snprintf(path, sizeof(path), "/nvue_v1/revision/%s", enc);
	json_decref(http("PATCH", path, "{\"state\": \"apply\", \"auto-prompt\": {\"ays\": "
			 "\"ays_yes\"}}"));
	for (int n = 0; n < 20; n++) {
		r = http("GET", path, NULL);
		snprintf(rev_state, sizeof(rev_state), "%s",
			 json_string_value(json_object_get(r, "state")));
		issues = json_object_get(json_object_get(r, "transition"), "issue");
		o = 0;
		json_object_foreach(issues, k, i)
			if (o < sizeof(rev_issue))
				o += (size_t)snprintf(rev_issue + o, sizeof(rev_issue) - o, "%s; ",
					json_string_value(json_object_get(i, "message")));
		json_decref(r);
		if (strcmp(rev_state, "applying"))
			break;
	}
	return st;
}

/* The sum of the dwrr bw-percent of default-global, as the switch runs it. */
static long effective_dwrr_sum(void)
{
	json_t *tcs = walk(operational("qos/egress-scheduler/default-global"), "traffic-class"), *e;
	const char *k;
	long sum = 0;

	ck_assert_uint_eq(json_object_size(tcs), 8);
	json_object_foreach(tcs, k, e)
		if (!strcmp(json_string_value(json_object_get(e, "mode")), "dwrr"))
			sum += (long)json_integer_value(json_object_get(e, "bw-percent"));
	return sum;
}

/* ---- the server: NVUE's rules -------------------------------------------- */

/* [UG] "Egress Scheduler": default-global gives 0,2,4,6 12 % and 1,3,5,7
 * 13 %; classes set to 50 + 50 leave six at their default: 175 % (163 % with
 * class 6 strict, as loom has it). */
START_TEST(nvue_server_refuses_a_scheduler_whose_unset_classes_push_the_dwrr_sum_past_100)
{
	ck_assert_int_eq(effective_dwrr_sum(), 100);     /* the default: 4 x 12 + 4 x 13 */
	ck_assert_int_eq(revise("{\"qos\": {\"egress-scheduler\": {\"default-global\": "
				"{\"traffic-class\": {\"0\": {\"mode\": \"dwrr\", \"bw-percent\": 50},"
				" \"3\": {\"mode\": \"dwrr\", \"bw-percent\": 50}}}}}}"), 200);
	ck_assert_str_eq(rev_state, "invalid");
	ck_assert_msg(strstr(rev_issue, "sum to 175"), "%s", rev_issue);
	ck_assert_ptr_null(applied("qos/egress-scheduler"));
	/* the reference's own example sets all eight: 30+30+20+20, four strict */
	ck_assert_int_eq(revise("{\"qos\": {\"egress-scheduler\": {\"default-global\": "
				"{\"traffic-class\": {\"2\": {\"mode\": \"dwrr\", \"bw-percent\": 30},"
				" \"6\": {\"mode\": \"dwrr\", \"bw-percent\": 30},"
				" \"3\": {\"mode\": \"dwrr\", \"bw-percent\": 20},"
				" \"4\": {\"mode\": \"dwrr\", \"bw-percent\": 20},"
				" \"0\": {\"mode\": \"strict\"}, \"1\": {\"mode\": \"strict\"},"
				" \"5\": {\"mode\": \"strict\"}, \"7\": {\"mode\": \"strict\"}}}}}}"),
			 200);
	ck_assert_msg(!strcmp(rev_state, "applied"), "%s: %s", rev_state, rev_issue);
	ck_assert_int_eq(effective_dwrr_sum(), 100);
}
END_TEST

START_TEST(nvue_server_shows_the_defaults_of_what_the_configuration_leaves_unset)
{
	json_t *o = operational("qos");

	ck_assert_str_eq(json_string_value(walk(o, "mapping/default-global/trust")), "l2");
	ck_assert_int_eq(json_integer_value(walk(o, "mapping/default-global/dscp/26/"
						 "switch-priority")), 3);   /* 26 / 8 */
	ck_assert_str_eq(json_string_value(walk(o, "congestion-control/default-global/"
						"traffic-class/0/ecn")), "enable");
	ck_assert_int_eq(json_integer_value(walk(o, "pfc-watchdog/polling-interval")), 100);
	ck_assert_int_eq(json_integer_value(walk(o, "pfc-watchdog/robustness")), 3);
	ck_assert_int_eq(json_integer_value(walk(o, "egress-scheduler/default-global/"
						 "traffic-class/1/bw-percent")), 13);
	/* with qos roce the port trusts PCP and DSCP */
	set_applied("qos/roce", "{\"enable\": \"on\", \"mode\": \"lossless\"}");
	ck_assert_str_eq(json_string_value(walk(operational("qos"), "mapping/default-global/trust")),
			 "both");
	ck_assert_ptr_null(applied("qos/mapping"));      /* the configuration is untouched */
}
END_TEST

/* One PATCH that the schema refuses at the full path `what` names. */
static void refused(const char *patch, const char *what)
{
	ck_assert_msg(revise(patch) == 400, "accepted: %s", patch);
	ck_assert_msg(strstr(rev_issue, what), "%s: %s", patch, rev_issue);
}

START_TEST(nvue_server_checks_each_value_at_its_full_path_not_by_its_leaf_name)
{
	/* bw-percent is 1..100 (no 0) under egress-scheduler */
	refused("{\"qos\": {\"egress-scheduler\": {\"default-global\": {\"traffic-class\": "
		"{\"3\": {\"bw-percent\": 0}}}}}}",
		"/qos/egress-scheduler/default-global/traffic-class/3/bw-percent");
	/* ... and no field of pfc at all */
	refused("{\"qos\": {\"pfc\": {\"default-global\": {\"bw-percent\": 5}}}}",
		"/qos/pfc/default-global/bw-percent is not in the NVUE schema");
	/* mode dwrr belongs to the scheduler, not to roce */
	refused("{\"qos\": {\"roce\": {\"mode\": \"dwrr\"}}}", "/qos/roce/mode");
	/* probability 1..100 */
	refused("{\"qos\": {\"congestion-control\": {\"default-global\": {\"traffic-class\": "
		"{\"3\": {\"probability\": 0}}}}}}", "traffic-class/3/probability");
	/* DSCP 0..63, traffic class 0..7, egress-queue-mapping only default-global */
	refused("{\"qos\": {\"mapping\": {\"default-global\": {\"dscp\": {\"64\": "
		"{\"switch-priority\": 1}}}}}}", "/qos/mapping/default-global/dscp/64");
	refused("{\"qos\": {\"egress-scheduler\": {\"default-global\": {\"traffic-class\": "
		"{\"8\": {\"mode\": \"strict\"}}}}}}", "traffic-class/8");
	refused("{\"qos\": {\"egress-queue-mapping\": {\"mine\": {\"switch-priority\": {\"1\": "
		"{\"traffic-class\": 2}}}}}}", "NVUE only supports default-global");
	/* a PFC priority is an object ({}), the watchdog's interval an integer */
	refused("{\"qos\": {\"pfc\": {\"default-global\": {\"switch-priority\": {\"3\": 1}}}}}",
		"/qos/pfc/default-global/switch-priority/3 is an object");
	refused("{\"qos\": {\"pfc-watchdog\": {\"polling-interval\": \"100\"}}}",
		"/qos/pfc-watchdog/polling-interval");
	refused("{\"interface\": {\"swp1\": {\"qos\": {\"pfc-watchdog\": {\"state\": \"on\"}}}}}",
		"/interface/swp1/qos/pfc-watchdog/state");
	ck_assert_uint_eq(json_object_size(applied("qos")), 0);
}
END_TEST

START_TEST(nvue_server_refuses_the_pfc_watchdog_on_a_port_without_pfc)
{
	ck_assert_int_eq(revise("{\"interface\": {\"swp1\": {\"qos\": {\"pfc-watchdog\": "
				"{\"state\": \"enable\"}}}}}"), 200);
	ck_assert_str_eq(rev_state, "invalid");
	ck_assert_msg(strstr(rev_issue, "swp1 has no PFC"), "%s", rev_issue);
	/* eth0 is no swp port, PFC or not */
	ck_assert_int_eq(revise("{\"qos\": {\"pfc\": {\"default-global\": {\"switch-priority\": "
				"{\"3\": {}}}}}, \"interface\": {\"eth0\": {\"qos\": "
				"{\"pfc-watchdog\": {\"state\": \"enable\"}}}}}"), 200);
	ck_assert_str_eq(rev_state, "invalid");
	ck_assert_msg(strstr(rev_issue, "only a swp port"), "%s", rev_issue);
	/* PFC and the watchdog in one revision: fine */
	ck_assert_int_eq(revise("{\"qos\": {\"pfc\": {\"default-global\": {\"switch-priority\": "
				"{\"3\": {}}}}}, \"interface\": {\"swp1\": {\"qos\": "
				"{\"pfc-watchdog\": {\"state\": \"enable\"}}}}}"), 200);
	ck_assert_msg(!strcmp(rev_state, "applied"), "%s: %s", rev_state, rev_issue);
}
END_TEST

START_TEST(nvue_server_refuses_ecn_min_threshold_above_max_threshold)
{
	ck_assert_int_eq(revise("{\"qos\": {\"congestion-control\": {\"default-global\": "
				"{\"traffic-class\": {\"3\": {\"ecn\": \"enable\", \"min-threshold\": "
				"2000000, \"max-threshold\": 1000000}}}}}}"), 200);
	ck_assert_str_eq(rev_state, "invalid");
	ck_assert_msg(strstr(rev_issue, "min-threshold 2000000 is above max-threshold 1000000"),
		      "%s", rev_issue);
	/* against the default max (1500000) too */
	ck_assert_int_eq(revise("{\"qos\": {\"congestion-control\": {\"default-global\": "
				"{\"traffic-class\": {\"0\": {\"min-threshold\": 1600000}}}}}}"), 200);
	ck_assert_str_eq(rev_state, "invalid");
}
END_TEST

/* ---- the plugin: never sends what NVUE refuses ------------------------------ */

START_TEST(nvue_apply_writes_every_traffic_class_so_the_effective_dwrr_sum_is_100)
{
	struct lp_qos got;
	char path[128];

	default_want();
	ck_assert_msg(apply(0) == 0, "%s", err);
	for (unsigned q = 0; q < LP_TCS; q++) {
		snprintf(path, sizeof(path), "qos/egress-scheduler/default-global/traffic-class/%u/mode",
			 q);
		ck_assert_str_eq(applied_str(path), q == 0 || q == 3 ? "dwrr" : "strict");
	}
	ck_assert_int_eq(effective_dwrr_sum(), 100);
	/* read back: the unused strict queues are loom's "neither" */
	read_back(&got);
	ck_assert_uint_eq(got.strict_mask, want.strict_mask);
	ck_assert_mem_eq(got.ets_weight, want.ets_weight, sizeof(want.ets_weight));
	assert_no_refusal();
}
END_TEST

START_TEST(nvue_apply_refuses_what_nvue_would_before_sending_anything)
{
	default_want();
	want.ets_weight[0] = 60;                          /* 60 + 50 */
	ck_assert_int_eq(apply(0), -EINVAL);
	ck_assert_msg(strstr(err, "leaf1") && strstr(err, "egress-scheduler default-global") &&
		      strstr(err, "110"), "%s", err);
	default_want();
	want.ets_weight[0] = 0;                           /* queue 0 carries DSCP 0 */
	want.ets_weight[3] = 100;
	ck_assert_int_eq(apply(0), -EINVAL);
	ck_assert_msg(strstr(err, "traffic-class 0 carries traffic"), "%s", err);
	default_want();
	want.ecn[3].min_bytes = 2000000;                  /* max is 1500000 */
	ck_assert_int_eq(apply(0), -EINVAL);
	ck_assert_msg(strstr(err, "leaf1") && strstr(err, "traffic-class 3: min-threshold "
		      "2000000 is above max-threshold 1500000"), "%s", err);
	default_want();
	want.ecn[3].mark_percent = 0;
	ck_assert_int_eq(apply(0), -EINVAL);
	ck_assert_msg(strstr(err, "probability 0"), "%s", err);
	default_want();
	want.pfc_mask = 0;                                /* the watchdog needs PFC */
	ck_assert_int_eq(apply(0), -EINVAL);
	ck_assert_msg(strstr(err, "leaf1") && strstr(err, "pfc-watchdog"), "%s", err);
	ck_assert_uint_eq(n_changes, 0);
	ck_assert_uint_eq(n_revisions(), 0);
}
END_TEST

START_TEST(nvue_apply_turns_ecn_off_explicitly_so_queue_0_drops_its_default)
{
	default_want();
	ck_assert_uint_eq(want.ecn[0].enabled, 0);
	ck_assert_msg(apply(0) == 0, "%s", err);
	ck_assert_str_eq(json_string_value(walk(operational("qos/congestion-control/"
		"default-global"), "traffic-class/0/ecn")), "disable");
	ck_assert_str_eq(json_string_value(walk(operational("qos/congestion-control/"
		"default-global"), "traffic-class/3/ecn")), "enable");
	assert_no_refusal();
}
END_TEST

/* Trust l3 is loom's; l2 or port sends IP to port-default-sp, whatever the
 * DSCP map says: read back, the DSCP map shows that, and apply puts l3 back. */
START_TEST(nvue_trust_drift_shows_in_the_dscp_map_read_back)
{
	struct lp_qos got;
	const struct change *c;

	default_want();
	ck_assert_msg(apply(0) == 0, "%s", err);
	read_back(&got);
	ck_assert_uint_eq(got.dscp_to_tc[26], 3);
	set_applied("qos/mapping/default-global/trust", "\"l2\"");
	read_back(&got);
	for (unsigned d = 0; d < 64; d++)
		ck_assert_msg(got.dscp_to_tc[d] == 0, "trust l2: DSCP %u -> %u", d, got.dscp_to_tc[d]);
	set_applied("qos/mapping/default-global/trust", "\"port\"");
	set_applied("qos/mapping/default-global/port-default-sp", "5");
	read_back(&got);
	ck_assert_uint_eq(got.dscp_to_tc[26], 5);
	set_applied("qos/mapping/default-global/trust", "\"both\"");   /* IP by DSCP */
	read_back(&got);
	ck_assert_uint_eq(got.dscp_to_tc[26], 3);
	set_applied("qos/mapping/default-global/trust", "\"l2\"");
	ck_assert_msg(apply(1) == 0, "%s", err);
	c = find_change("qos/mapping/default-global", "trust");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->before, "l2");
	ck_assert_str_eq(c->after, "l3");
}
END_TEST

START_TEST(nvue_qos_read_takes_nvue_defaults_for_unset_dscp_and_watchdog_fields)
{
	struct lp_qos got;

	default_want();
	ck_assert_msg(apply(0) == 0, "%s", err);
	ck_assert_uint_eq(want.dscp_to_tc[10], 0);
	set_applied("qos/mapping/default-global/dscp/10", "null");
	set_applied("qos/pfc-watchdog/robustness", "null");
	read_back(&got);
	ck_assert_uint_eq(got.dscp_to_tc[10], 1);         /* NVUE's default: 10 / 8 */
	ck_assert_uint_eq(got.pfcwd.detection_ms, 300);   /* 100 ms x the default 3 */
}
END_TEST

/* qos plan's objects on NVUE: loom's leaves live in the default-global
 * profiles (and qos/roce, qos/pfc-watchdog) that every port naming no
 * other profile uses, so each is marked SHARED switch-wide; a port's own
 * interface/<port>/... leaves are not. The plan makes no revision. */
START_TEST(nvue_plan_marks_the_default_global_profiles_switch_wide)
{
	struct fp_objects *os = calloc(1, sizeof(*os));
	size_t revs = n_revisions(), global = 0;

	ck_assert_ptr_nonnull(os);
	default_want();
	fp_plan_objects(ops, sw, &want, os, err, sizeof(err));
	ck_assert_uint_gt(os->n, 0);
	for (size_t i = 0; i < os->n; i++) {
		int port = !strncmp(os->v[i].key, "interface/", 10);

		ck_assert_msg(!strcmp(os->v[i].shared, port ? "" : "switch-wide"), "%s: \"%s\"",
			      os->v[i].key, os->v[i].shared);
		global += strstr(os->v[i].key, "/default-global") != NULL;
	}
	ck_assert_uint_gt(global, 0);
	ck_assert_uint_eq(n_revisions(), revs);
	free(os);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvue_qos");
	TCase *tc = tcase_create("nvue_qos");
	int failed;

	if (!have_python3()) {
		fprintf(stderr, "test_nvue_qos: no python3, skipped\n");
		return 77;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, nvue_server_refuses_a_scheduler_whose_unset_classes_push_the_dwrr_sum_past_100);
	tcase_add_test(tc, nvue_server_shows_the_defaults_of_what_the_configuration_leaves_unset);
	tcase_add_test(tc, nvue_server_checks_each_value_at_its_full_path_not_by_its_leaf_name);
	tcase_add_test(tc, nvue_server_refuses_the_pfc_watchdog_on_a_port_without_pfc);
	tcase_add_test(tc, nvue_server_refuses_ecn_min_threshold_above_max_threshold);
	tcase_add_test(tc, nvue_apply_writes_every_traffic_class_so_the_effective_dwrr_sum_is_100);
	tcase_add_test(tc, nvue_apply_refuses_what_nvue_would_before_sending_anything);
	tcase_add_test(tc, nvue_apply_turns_ecn_off_explicitly_so_queue_0_drops_its_default);
	tcase_add_test(tc, nvue_trust_drift_shows_in_the_dscp_map_read_back);
	tcase_add_test(tc, nvue_qos_read_takes_nvue_defaults_for_unset_dscp_and_watchdog_fields);
	tcase_add_test(tc, nvue_plan_marks_the_default_global_profiles_switch_wide);
	suite_add_tcase(s, tc);
	failed = check_run(s) != EXIT_SUCCESS;
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
