/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/eos/test_eos_rules.c: the Arista EOS rules the eos plugin follows
 * and tests/servers/eos_server.py enforces (loom issue 17: a fake that
 * accepts what the real switch rejects is a defect), each test against a
 * server and switch of test_eos.c's fixture:
 *   - QoS trust: loom pins "qos trust dscp" on every managed port (the
 *     DSCP map classifies a port's traffic only when it trusts DSCP; a
 *     switchport trusts CoS by default), reads it back, finds its drift;
 *   - the queue keyword of the platform: "uc-tx-queue" on a 7280R (VOQ),
 *     "tx-queue" on a 7050X, each refused on the other;
 *   - ECN thresholds: written in bytes (the size of EOS's kbyte is found in
 *     no source), an operator's kbytes line rewritten, EOS's ranges and
 *     min <= max checked before anything is sent, and by the fake;
 *   - whole commands in their mode (with EOS's fallback to the enclosing
 *     mode), and PFC no-drop priorities that pause only with PFC on.
 * Sources of each rule: tests/servers/eos_server.py at the rule,
 * docs/eos-qos-notes.md. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_plugin.h"
#include "tests/unit/fixtures/fixture_eos.h"

/* The switch the server pretends to be from now on, and sw reopened so
 * the plugin reads its model again. */
static void become(const char *model)
{
	char body[128];

	snprintf(body, sizeof(body), "{\"model\": \"%s\"}", model);
	json_decref(test_http("/_test/model", body));
	ops->close(sw);
	sw = NULL;
	ck_assert_msg(open_switch(base_url, "admin:arista", &sw) == 0, "reopen: %s", err);
}

/* runCmds of `cmds` (a JSON array text) on /command-api, format json: the
 * JSON-RPC error code, 0 for none; *why the first error's words. */
static long run_cmds(const char *cmds, char *why, size_t whylen)
{
	char body[2048];
	json_t *a = NULL, *data, *errs;
	long code;

	snprintf(body, sizeof(body), "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"runCmds\", "
		 "\"params\": {\"version\": 1, \"format\": \"json\", \"cmds\": %s}}", cmds);
	ck_assert_int_eq(raw("POST", "/command-api", "admin:arista", body, &a), 200);
	code = rpc_error(a);
	data = json_object_get(json_object_get(a, "error"), "data");
	errs = json_object_get(json_array_get(data, json_array_size(data) - 1), "errors");
	if (why)
		snprintf(why, whylen, "%s", json_string_value(json_array_get(errs, 0)) ?
			 json_string_value(json_array_get(errs, 0)) : "");
	json_decref(a);
	return code;
}

/* The fake's "effective" state of a port: what it classifies and pauses. */
static json_t *effective(const char *port)
{
	json_t *j = test_http("/_test/state", NULL);
	json_t *e = json_incref(json_object_get(json_object_get(j, "effective"), port));

	json_decref(j);
	ck_assert_msg(e, "no effective state of %s", port);
	return e;
}

static long effective_tc(const char *port, unsigned dscp)
{
	json_t *e = effective(port);
	long tc = (long)json_integer_value(json_array_get(json_object_get(e, "dscp_tc"), dscp));

	json_decref(e);
	return tc;
}

/* ---- (a) QoS trust ------------------------------------------------------------ */

START_TEST(eos_apply_pins_qos_trust_dscp_so_the_dscp_map_classifies_switchports)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));
	const struct change *c;

	/* the fake's ports are switchports: CoS trusted, the DSCP map idle */
	ck_assert_int_eq(effective_tc("Ethernet1", 26), 1);
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	c = find(cs, "interface Ethernet1", "qos trust");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->before, "cos (default)");
	ck_assert_str_eq(c->after, "dscp");
	config_has("interface Ethernet1\n   qos trust dscp\n");
	for (unsigned i = 0; i < N_PORTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "Ethernet%u", i + 1);
		for (unsigned d = 0; d < 64; d++)
			ck_assert_msg(effective_tc(name, d) == want->dscp_to_tc[d],
				      "%s: DSCP %u classified to %ld, loom wants %u", name, d,
				      effective_tc(name, d), want->dscp_to_tc[d]);
	}
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	ck_assert_uint_eq(log_count().refused, 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_trust_drift_is_found_and_qos_read_sees_the_dscp_map_out_of_effect)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct lp_qos *got = calloc(1, sizeof(*got));
	struct changes *cs = calloc(1, sizeof(*cs));

	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	got->n_ports = want->n_ports;
	memcpy(got->ports, want->ports, sizeof(want->ports));
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(got->dscp_to_tc[26], want->dscp_to_tc[26]);

	behind_looms_back("[\"interface Ethernet2\", \"no qos trust\"]");
	ck_assert_int_eq(effective_tc("Ethernet2", 26), 1);
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(got->dscp_to_tc[26] != want->dscp_to_tc[26],
		      "an untrusted port and still DSCP 26 -> %u", got->dscp_to_tc[26]);
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 1);
	ck_assert_str_eq(cs->v[0].key, "interface Ethernet2");
	ck_assert_str_eq(cs->v[0].field, "qos trust");
	ck_assert_str_eq(cs->v[0].before, "untrusted");
	ck_assert_str_eq(cs->v[0].after, "dscp");

	/* a routed port with no trust line trusts DSCP (its default), but loom
	 * pins the line so that "switchport" later cannot turn it to CoS */
	behind_looms_back("[\"interface Ethernet3\", \"no switchport\", \"default qos trust\"]");
	ck_assert_int_eq(effective_tc("Ethernet3", 26), want->dscp_to_tc[26]);
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 2);
	ck_assert_str_eq(find(cs, "interface Ethernet3", "qos trust")->before, "dscp (default)");
	ck_assert_ptr_nonnull(find(cs, "interface Ethernet2", "qos trust"));
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_mem_eq(got->dscp_to_tc, want->dscp_to_tc, 64);
	free(cs);
	free(got);
	free(want);
}
END_TEST

/* ---- (b) the queue keyword of the platform --------------------------------- */

START_TEST(eos_on_a_7280r_apply_uses_uc_tx_queue_and_reads_it_back)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct lp_qos *got = calloc(1, sizeof(*got));
	struct changes *cs = calloc(1, sizeof(*cs));

	become("DCS-7280CR3-32P4-F");
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_ptr_nonnull(find(cs, "interface Ethernet1/uc-tx-queue 3", "random-detect ecn"));
	ck_assert_ptr_null(find(cs, "interface Ethernet1/tx-queue 3", "random-detect ecn"));
	config_has("   uc-tx-queue 3\n      bandwidth percent 50\n");
	config_lacks("   tx-queue ");
	ck_assert_uint_eq(log_count().refused, 0);
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	got->n_ports = want->n_ports;
	memcpy(got->ports, want->ports, sizeof(want->ports));
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(got->strict_mask, want->strict_mask);
	ck_assert_mem_eq(got->ets_weight, want->ets_weight, LP_TCS);
	ck_assert_uint_eq(got->ecn[3].enabled, 1);
	ck_assert_uint_eq(got->ecn[3].min_bytes, want->ecn[3].min_bytes);
	free(cs);
	free(got);
	free(want);
}
END_TEST

START_TEST(eos_server_refuses_the_queue_keyword_its_platform_lacks)
{
	char why[256];

	ck_assert_int_eq(run_cmds("[\"enable\", \"configure\", \"interface Ethernet1\", "
				  "\"uc-tx-queue 3\"]", why, sizeof(why)), 1002);
	ck_assert_msg(strstr(why, "not supported on this hardware platform"), "%s", why);
	ck_assert_int_eq(run_cmds("[\"enable\", \"configure\", \"interface Ethernet1\", "
				  "\"tx-queue 3\", \"end\"]", NULL, 0), 0);
	become("DCS-7280SR-48C6");
	ck_assert_int_eq(run_cmds("[\"enable\", \"configure\", \"interface Ethernet1\", "
				  "\"tx-queue 3\"]", why, sizeof(why)), 1002);
	ck_assert_msg(strstr(why, "not supported on this hardware platform"), "%s", why);
	ck_assert_int_eq(run_cmds("[\"enable\", \"configure\", \"interface Ethernet1\", "
				  "\"uc-tx-queue 3\", \"end\"]", NULL, 0), 0);
}
END_TEST

/* ---- (c) ECN thresholds -------------------------------------------------------- */

START_TEST(eos_ecn_thresholds_are_written_in_bytes_and_read_back_exactly)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct lp_qos *got = calloc(1, sizeof(*got));
	struct changes *cs = calloc(1, sizeof(*cs));
	const struct change *c;

	want->ecn[3].min_bytes = 153600;            /* 150 KiB: no whole kbytes either way */
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	c = find(cs, "interface Ethernet1/tx-queue 3", "random-detect ecn");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->after, "minimum-threshold 153600 bytes maximum-threshold 1500000 "
			 "bytes max-mark-probability 10");
	config_has("random-detect ecn minimum-threshold 153600 bytes maximum-threshold 1500000 "
		   "bytes max-mark-probability 10\n");
	got->n_ports = want->n_ports;
	memcpy(got->ports, want->ports, sizeof(want->ports));
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(got->ecn[3].min_bytes, 153600);
	ck_assert_uint_eq(got->ecn[3].max_bytes, 1500000);
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	free(cs);
	free(got);
	free(want);
}
END_TEST

START_TEST(eos_an_operators_kbytes_ecn_line_is_rewritten_in_bytes)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));

	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	/* 150 kbytes is 150000 bytes only if EOS's kbyte is 10^3: unknown */
	behind_looms_back("[\"interface Ethernet2\", \"tx-queue 3\", \"random-detect ecn "
			  "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
			  "max-mark-probability 10\"]");
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 1);
	ck_assert_str_eq(cs->v[0].key, "interface Ethernet2/tx-queue 3");
	ck_assert_str_eq(cs->v[0].field, "random-detect ecn");
	ck_assert_str_eq(cs->v[0].before, "minimum-threshold 150 kbytes maximum-threshold 1500 "
			 "kbytes max-mark-probability 10");
	ck_assert_str_eq(cs->v[0].after, "minimum-threshold 150000 bytes maximum-threshold "
			 "1500000 bytes max-mark-probability 10");
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	config_lacks("kbytes");
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_ecn_outside_eos_ranges_is_refused_before_anything_is_sent)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));

	want->ecn[3].min_bytes = 2000000;           /* above max 1500000 */
	ck_assert_int_eq(apply(want, 0, cs), -EINVAL);
	ck_assert_msg(strstr(err, "leaf1") && strstr(err, "tx-queue 3") &&
		      strstr(err, "minimum-threshold"), "%s", err);
	want->ecn[3].min_bytes = 150000;
	want->ecn[3].max_bytes = 256000001;         /* EOS takes 1..256000000 */
	ck_assert_int_eq(apply(want, 0, cs), -EINVAL);
	ck_assert_msg(strstr(err, "maximum-threshold") && strstr(err, "256000000"), "%s", err);
	want->ecn[3].max_bytes = 1500000;
	want->ecn[3].min_bytes = 0;
	ck_assert_int_eq(apply(want, 0, cs), -EINVAL);
	want->ecn[3].min_bytes = 150000;
	want->ecn[3].mark_percent = 101;
	ck_assert_int_eq(apply(want, 0, cs), -EINVAL);
	ck_assert_msg(strstr(err, "max-mark-probability"), "%s", err);
	ck_assert_uint_eq(log_count().configure, 0);
	ck_assert_uint_eq(log_count().refused, 0);
	/* minimum equal to maximum: EOS takes it */
	want->ecn[3].mark_percent = 10;
	want->ecn[3].min_bytes = want->ecn[3].max_bytes;
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	config_has("minimum-threshold 1500000 bytes maximum-threshold 1500000 bytes");
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_server_refuses_ecn_values_eos_refuses_and_takes_min_equal_max)
{
	static const struct {
		const char *line;
		long code;
	} cases[] = {
		{ "minimum-threshold 0 bytes maximum-threshold 10 bytes", 1002 },
		{ "minimum-threshold 1 bytes maximum-threshold 256000001 bytes", 1002 },
		{ "minimum-threshold 1 bytes maximum-threshold 2 bytes max-mark-probability 0", 1002 },
		{ "minimum-threshold 1 bytes maximum-threshold 2 bytes max-mark-probability 101", 1002 },
		{ "minimum-threshold 1 bytes maximum-threshold 2 bytes weight 16", 1002 },
		{ "minimum-threshold 1 bytes maximum-threshold 2 bytes junk", 1002 },
		{ "minimum-threshold 1 octets maximum-threshold 2 octets", 1002 },
		{ "minimum-threshold 2000 bytes maximum-threshold 1999 bytes", 1000 },
		{ "minimum-threshold 2 kbytes maximum-threshold 1999 bytes", 1000 },
		{ "minimum-threshold 320 kbytes maximum-threshold 320 kbytes "
		  "max-mark-probability 90", 0 },
		{ "minimum-threshold 320 segments maximum-threshold 320 segments weight 10", 0 },
		{ "minimum-threshold 1 bytes maximum-threshold 256000000 bytes", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cmds[512];

		snprintf(cmds, sizeof(cmds), "[\"enable\", \"configure\", \"interface Ethernet1\", "
			 "\"tx-queue 3\", \"random-detect ecn %s\", \"end\"]", cases[i].line);
		ck_assert_msg(run_cmds(cmds, NULL, 0) == cases[i].code, "\"%s\": not %ld",
			      cases[i].line, cases[i].code);
	}
	config_has("      random-detect ecn minimum-threshold 1 bytes maximum-threshold 256000000 "
		   "bytes\n");
}
END_TEST

/* ---- (d) whole commands, modes, PFC ------------------------------------------- */

START_TEST(eos_server_matches_whole_commands_in_their_mode)
{
	static const char *const refused[] = {
		"[\"enable\", \"configure\", \"qos trust dscp\"]",             /* interface only */
		"[\"enable\", \"configure\", \"tx-queue 3\"]",
		"[\"enable\", \"configure\", \"interface Ethernet1\", \"bandwidth percent 50\"]",
		"[\"enable\", \"configure\", \"interface Ethernet1\", \"priority-flow-control on x\"]",
		"[\"enable\", \"configure\", \"interface Ethernet1\", \"qos trust dscp cos\"]",
		"[\"enable\", \"configure\", \"interface Ethernet1\", \"tx-queue 8\"]",
		"[\"enable\", \"configure\", \"interface Ethernet1\", "
		"\"priority-flow-control priority 8 no-drop\"]",
		"[\"enable\", \"configure\", \"qos map dscp 64 to traffic-class 1\"]",
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_msg(run_cmds(refused[i], NULL, 0) == 1002, "%s taken", refused[i]);
	/* an interface command in tx-queue mode runs in interface mode, a global
	 * one in global mode, as EOS's CLI falls back to the enclosing mode */
	ck_assert_int_eq(run_cmds("[\"enable\", \"configure\", \"interface Ethernet1\", "
				  "\"tx-queue 3\", \"priority-flow-control on\", \"tx-queue 4\", "
				  "\"qos map dscp 1 2 3 4 5 6 7 9 10 to traffic-class 2\", "
				  "\"interface Ethernet2\", \"qos trust cos\", \"end\"]", NULL, 0), 0);
	config_has("interface Ethernet1\n   priority-flow-control on\n");
	config_has("qos map dscp 1 2 3 4 5 6 7 9 10 to traffic-class 2\n");
	config_has("interface Ethernet2\n   qos trust cos\n");
}
END_TEST

START_TEST(eos_no_drop_without_pfc_on_is_kept_but_pauses_nothing)
{
	json_t *e;

	behind_looms_back("[\"interface Ethernet1\", \"priority-flow-control priority 3 no-drop\"]");
	config_has("interface Ethernet1\n   priority-flow-control priority 3 no-drop\n");
	e = effective("Ethernet1");
	ck_assert_uint_eq(json_array_size(json_object_get(e, "pfc_nodrop")), 0);
	json_decref(e);
	behind_looms_back("[\"interface Ethernet1\", \"priority-flow-control on\"]");
	e = effective("Ethernet1");
	ck_assert_uint_eq(json_array_size(json_object_get(e, "pfc_nodrop")), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(e, "pfc_nodrop"), 0)),
			 3);
	json_decref(e);
}
END_TEST

/* qos plan's objects on EOS: the global QoS maps serve every port, so
 * they are marked SHARED switch-wide; an interface's lines are the managed
 * port's own. Configuration contexts always exist: each is a change.
 * Nothing is configured. */
START_TEST(eos_plan_marks_the_global_qos_maps_switch_wide)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct fp_objects *os = calloc(1, sizeof(*os));
	const struct fp_object *o;

	ck_assert_ptr_nonnull(os);
	fp_plan_objects(ops, sw, want, os, err, sizeof(err));
	ck_assert_ptr_nonnull(o = fp_object_of(os, "qos map dscp"));
	ck_assert_str_eq(o->action, "change");
	ck_assert_str_eq(o->shared, "switch-wide");
	ck_assert_ptr_nonnull(o = fp_object_of(os, "interface Ethernet1"));
	ck_assert_str_eq(o->action, "change");
	ck_assert_str_eq(o->shared, "");
	ck_assert_uint_eq(log_count().refused, 0);
	config_lacks("qos map dscp");
	free(os);
	free(want);
}
END_TEST

void eos_add_rule_tests(TCase *tc)
{
	tcase_add_test(tc, eos_apply_pins_qos_trust_dscp_so_the_dscp_map_classifies_switchports);
	tcase_add_test(tc, eos_trust_drift_is_found_and_qos_read_sees_the_dscp_map_out_of_effect);
	tcase_add_test(tc, eos_on_a_7280r_apply_uses_uc_tx_queue_and_reads_it_back);
	tcase_add_test(tc, eos_server_refuses_the_queue_keyword_its_platform_lacks);
	tcase_add_test(tc, eos_ecn_thresholds_are_written_in_bytes_and_read_back_exactly);
	tcase_add_test(tc, eos_an_operators_kbytes_ecn_line_is_rewritten_in_bytes);
	tcase_add_test(tc, eos_ecn_outside_eos_ranges_is_refused_before_anything_is_sent);
	tcase_add_test(tc, eos_server_refuses_ecn_values_eos_refuses_and_takes_min_equal_max);
	tcase_add_test(tc, eos_server_matches_whole_commands_in_their_mode);
	tcase_add_test(tc, eos_no_drop_without_pfc_on_is_kept_but_pauses_nothing);
	tcase_add_test(tc, eos_plan_marks_the_global_qos_maps_switch_wide);
}
