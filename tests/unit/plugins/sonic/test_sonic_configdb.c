/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/sonic/test_sonic_configdb.c: the sonic plugin on a switch as SONiC
 * leaves it (tests/servers/sonic_db.py: `config qos reload` and `pfcwd
 * start_default` on a 12-port leaf, other ports' QoS present), checked after
 * each apply against the rules SONiC enforces: loom's policy on two ports
 * leaves every object the other ports use byte for byte and changes no
 * SCHEDULER's type or weight; the watchdog off deletes the ports' PFC_WD
 * entries as `pfcwd stop` does; references take the form of the switch's
 * CONFIG_DB schema (202106: [TABLE|name]), and a schema version the plugin
 * cannot place is refused before anything is written. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_sonic.h"
#include "tests/unit/fixtures/fixture_redis.h"
#include "tests/unit/fixtures/fixture_plugin.h"

#define SCHEMA_202311 "version_202311_03"
#define MANAGED "Ethernet0,Ethernet4"

/* A switch as `config qos reload` left it, 12 ports, other ports' QoS
 * present: loom's policy on two ports must leave every object the other
 * ports use byte for byte as it was, change no SCHEDULER's type or weight,
 * and leave CONFIG_DB valid as SONiC checks it (sonic_db.py's rules). */
START_TEST(sonic_apply_to_two_ports_leaves_what_other_ports_use_byte_identical)
{
	struct lp_qos *want;
	struct changes cs = { 0 };
	char out[8192], snap[160];

	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));

	want = fp_default_want(ops, sw);
	ck_assert_uint_ge(want->n_ports, 2);
	ck_assert_str_eq(want->ports[0].port, "Ethernet0");
	ck_assert_str_eq(want->ports[1].port, "Ethernet4");
	want->n_ports = 2;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_gt(cs.n, 0);
	for (size_t i = 0; i < cs.n; i++)
		ck_assert_msg(!strstr(cs.v[i].key, "AZURE") || !strncmp(cs.v[i].key,
			      "CABLE_LENGTH|", 13), "%s %s: an object of SONiC's", cs.v[i].key,
			      cs.v[i].field);
	ck_assert_msg(check_switch(snap, MANAGED, out, sizeof(out)) == 0, "after apply:\n%s", out);
	/* The managed ports use loom's objects; the watchdog's poll interval,
	 * shared by every port, is the switch's. */
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map"), "LOOM");
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet8", "dscp_to_tc_map"), "AZURE");
	ck_assert_str_eq(fr_hget("QUEUE|Ethernet4|3", "scheduler"), "LOOM_DWRR_50");
	ck_assert_str_eq(fr_hget("QUEUE|Ethernet8|3", "scheduler"), "scheduler.1");
	ck_assert_str_eq(fr_hget("PFC_WD|GLOBAL", "POLL_INTERVAL"), "200");

	/* The checker is not blind: what loom used to do is refused. */
	fr_hset(CONFIG_DB, "SCHEDULER|scheduler.1", "type", "STRICT", NULL);
	ck_assert_int_eq(check_switch(snap, MANAGED, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "SCHEDULER|scheduler.1: type changed from DWRR to STRICT"),
		      "%s", out);
	free(cs.v);
	free(want);
}
END_TEST

/* The watchdog off on ports `pfcwd start_default` set up: their PFC_WD
 * entries go whole, as `pfcwd stop` deletes them; removing loom's three
 * fields left pfc_stat_history alone in an entry SONiC refuses (no
 * detection_time). The other ports keep theirs. */
START_TEST(sonic_watchdog_off_deletes_the_ports_pfc_wd_entry_as_pfcwd_stop_does)
{
	struct lp_qos *want;
	struct changes cs = { 0 };
	char out[8192], snap[160];
	int removed = 0;

	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));
	want = fp_default_want(ops, sw);
	want->n_ports = 2;
	want->pfcwd.enabled = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert(!fr_exists("PFC_WD|Ethernet0"));
	ck_assert(!fr_exists("PFC_WD|Ethernet4"));
	ck_assert_str_eq(fr_hget("PFC_WD|Ethernet8", "detection_time"), "200");
	for (size_t i = 0; i < cs.n; i++)
		if (!strcmp(cs.v[i].key, "PFC_WD|Ethernet0")) {
			ck_assert_str_eq(cs.v[i].after, "");
			removed++;
		}
	ck_assert_int_eq(removed, 4);  /* action, both times, pfc_stat_history */
	ck_assert_msg(check_switch(snap, MANAGED, out, sizeof(out)) == 0, "after apply:\n%s", out);
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 0);  /* nothing left to delete */
	free(cs.v);
	free(want);
}
END_TEST

/* SONiC before 202111 (CONFIG_DB schema up to version_3_0_2) takes
 * references as [TABLE|name] and orchagent there rejects plain names; on
 * 202111 and later it is the other way round. loom writes the switch's
 * form, CONFIG_DB passes the checker for that schema, and reads back. */
START_TEST(sonic_apply_on_a_202106_switch_writes_bracketed_references)
{
	struct lp_qos *want, *got;
	struct changes cs = { 0 };
	char out[8192], snap[160];
	int ret;

	seed_switch(12, "version_3_0_1", snap, sizeof(snap));
	want = fp_default_want(ops, sw);
	want->n_ports = 2;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_str_eq(fr_hget("QUEUE|Ethernet4|3", "scheduler"), "[SCHEDULER|LOOM_DWRR_50]");
	ck_assert_str_eq(fr_hget("QUEUE|Ethernet4|3", "wred_profile"),
			 "[WRED_PROFILE|LOOM_LOSSLESS]");
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map"),
			 "[DSCP_TO_TC_MAP|LOOM]");
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet0", "tc_to_pg_map"),
			 "[TC_TO_PRIORITY_GROUP_MAP|LOOM]");
	ck_assert_msg(check_switch(snap, MANAGED, out, sizeof(out)) == 0, "after apply:\n%s", out);
	got = read_back(want, &ret);
	ck_assert_msg(ret == 0, "qos_read: %s", err);
	ck_assert_mem_eq(got->dscp_to_tc, want->dscp_to_tc, sizeof(want->dscp_to_tc));
	ck_assert_mem_eq(got->ets_weight, want->ets_weight, sizeof(want->ets_weight));
	ck_assert_uint_eq(got->strict_mask, want->strict_mask);
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 0);
	free(got);
	free(cs.v);
	free(want);
}
END_TEST

/* A schema version loom cannot place: it cannot know the reference form,
 * so it writes nothing and says why. */
START_TEST(sonic_apply_refuses_a_schema_version_it_cannot_place)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes cs = { 0 };
	long long keys;

	fr_hset(CONFIG_DB, "VERSIONS|DATABASE", "VERSION", "version_unknown", NULL);
	keys = fr_integer(CONFIG_DB, "DBSIZE", NULL);
	ck_assert_int_eq(apply(want, 0, &cs), -EPROTO);
	ck_assert_msg(strstr(err, "VERSIONS|DATABASE") && strstr(err, "version_unknown"), "%s",
		      err);
	ck_assert_uint_eq(cs.n, 0);
	ck_assert_int_eq(fr_integer(CONFIG_DB, "DBSIZE", NULL), keys);
	free(cs.v);
	free(want);
}
END_TEST

/* `loomctl qos plan`'s objects: on a fresh switch loom's own objects are
 * created and only the managed ports' entries change, nothing shared, and
 * nothing is written. Once another port (Ethernet8) uses loom's WRED
 * profile and PORT_QOS_MAP|global loom's DSCP map, a new policy marks those
 * two SHARED, with the port and as switch-wide. */
START_TEST(sonic_plan_names_each_object_and_marks_those_other_ports_use)
{
	struct fp_objects *os = calloc(1, sizeof(*os));
	struct changes cs = { 0 };
	const struct fp_object *o;
	char out[8192], snap[160];
	struct lp_qos *want;

	ck_assert_ptr_nonnull(os);
	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));
	want = fp_default_want(ops, sw);
	want->n_ports = 2;
	fp_plan_objects(ops, sw, want, os, err, sizeof(err));
	ck_assert_ptr_nonnull(o = fp_object_of(os, "DSCP_TO_TC_MAP|LOOM"));
	ck_assert_str_eq(o->action, "create");
	ck_assert_str_eq(o->shared, "");
	ck_assert_ptr_nonnull(o = fp_object_of(os, "QUEUE|Ethernet4|3"));
	ck_assert_str_eq(o->action, "change");
	ck_assert_ptr_null(fp_object_of(os, "QUEUE|Ethernet8|3"));
	ck_assert_ptr_null(fp_object_of(os, "CABLE_LENGTH|AZURE"));   /* 5m already */
	for (size_t i = 0; i < os->n; i++)
		ck_assert_msg(!os->v[i].shared[0], "%s shared with %s", os->v[i].key,
			      os->v[i].shared);
	ck_assert_msg(check_switch(snap, "", out, sizeof(out)) == 0, "the plan wrote:\n%s", out);

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	fp_plan_objects(ops, sw, want, os, err, sizeof(err));
	ck_assert_uint_eq(os->n, 0);
	fr_hset(CONFIG_DB, "QUEUE|Ethernet8|3", "wred_profile", "LOOM_LOSSLESS", NULL);
	fr_hset(CONFIG_DB, "PORT_QOS_MAP|global", "dscp_to_tc_map", "LOOM", NULL);
	for (unsigned t = 0; t < LP_TCS; t++)
		if (want->ecn[t].enabled)
			want->ecn[t].min_bytes += 1000;
	want->dscp_to_tc[10] = (uint8_t)((want->dscp_to_tc[10] + 1) % 8);
	fp_plan_objects(ops, sw, want, os, err, sizeof(err));
	ck_assert_ptr_nonnull(o = fp_object_of(os, "WRED_PROFILE|LOOM_LOSSLESS"));
	ck_assert_str_eq(o->action, "change");
	ck_assert_str_eq(o->shared, "Ethernet8");
	ck_assert_ptr_nonnull(o = fp_object_of(os, "DSCP_TO_TC_MAP|LOOM"));
	ck_assert_str_eq(o->shared, "switch-wide");
	free(cs.v);
	free(want);
	free(os);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sonic_configdb");
	TCase *tc = tcase_create("sonic_configdb");

	tcase_add_test(tc, sonic_apply_to_two_ports_leaves_what_other_ports_use_byte_identical);
	tcase_add_test(tc, sonic_watchdog_off_deletes_the_ports_pfc_wd_entry_as_pfcwd_stop_does);
	tcase_add_test(tc, sonic_apply_on_a_202106_switch_writes_bracketed_references);
	tcase_add_test(tc, sonic_apply_refuses_a_schema_version_it_cannot_place);
	tcase_add_test(tc, sonic_plan_names_each_object_and_marks_those_other_ports_use);
	return sonic_main(s, tc, "test_sonic_configdb");
}
