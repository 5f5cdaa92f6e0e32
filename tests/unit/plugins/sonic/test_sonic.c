/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/sonic/test_sonic.c: the sonic switch plugin (plugins/sonic/) against
 * a real redis-server holding what a SONiC leaf's databases hold: loaded
 * through plugin_load() like loomd does, its inventory and LLDP as seeded,
 * loom's default policy written as SONiC's CONFIG_DB tables (and nothing
 * twice), dry runs and drift, read-back, SONiC's own sample reproduced from
 * its intent, an apply cut short by redis-server dying (what landed and
 * what did not, then completed after a restart), VLANs, AUTH, and the one
 * exported symbol. On a switch as SONiC leaves it, checked against SONiC's
 * rules: test_sonic_configdb.c.
 *
 * Each test runs its own redis-server (tests/unit/fixtures/fixture_sonic.h) (found on PATH; without one the whole
 * program skips, exit 77) on a unix socket in a mkdtemp directory, killed
 * when the test ends (and by PR_SET_PDEATHSIG should the test die first).
 * SIGPIPE keeps its default action here: a plugin that let a write to a
 * dead Redis raise it would kill the test. */
#include "autoconf.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "tests/unit/fixtures/fixture_redis.h"
#include "tests/unit/fixtures/fixture_sonic.h"
#include "tests/unit/fixtures/fixture_plugin.h"
#include "daemon/core/plugin.h"
#include "lib/qos/qos_policy.h"

/* What SONiC's qos_config.j2 means (LOSSLESS_TC 3,4; docs/sonic-qos-notes.md
 * section 3 and 5), as loom states it; its watchdog as `pfcwd start_default`
 * sets it for up to 32 ports. */
static struct lp_qos *sample_intent(void)
{
	struct lp_qos *q = calloc(1, sizeof(*q));
	static const uint8_t pg[LP_TCS] = { 0, 0, 0, 3, 4, 0, 0, 7 };
	static const uint8_t weight[LP_TCS] = { 14, 14, 14, 15, 15, 14, 14, 0 };

	ck_assert_ptr_nonnull(q);
	memset(q->dscp_to_tc, 1, sizeof(q->dscp_to_tc));
	q->dscp_to_tc[3] = 3;
	q->dscp_to_tc[4] = 4;
	q->dscp_to_tc[8] = 0;
	q->dscp_to_tc[5] = 2;
	q->dscp_to_tc[46] = 5;
	q->dscp_to_tc[48] = 6;
	for (unsigned t = 0; t < LP_TCS; t++) {
		q->tc_to_queue[t] = (uint8_t)t;
		q->tc_to_pg[t] = pg[t];
		q->ets_weight[t] = weight[t];
	}
	q->pfc_mask = 1u << 3 | 1u << 4;
	q->strict_mask = 0;
	q->ecn[3] = q->ecn[4] = (struct lp_ecn){ 1, 1048576, 2097152, 5 };
	q->pfcwd.enabled = 1;
	q->pfcwd.action = LP_PFCWD_DROP;
	q->pfcwd.detection_ms = 200;
	q->pfcwd.restoration_ms = 200;
	q->n_ports = N_PORTS;
	for (unsigned i = 0; i < N_PORTS; i++) {
		snprintf(q->ports[i].port, LP_NAME_LEN, "Ethernet%u", 4 * i);
		q->ports[i].speed_mbps = 100000;
		q->ports[i].cable_m = 40;
	}
	return q;
}

/* got (qos_read's) says what want says: maps, masks, weights, ECN,
 * watchdog, and per port speed and cable. */
static void assert_qos_same(const struct lp_qos *got, const struct lp_qos *want)
{
	for (unsigned d = 0; d < 64; d++)
		ck_assert_msg(got->dscp_to_tc[d] == want->dscp_to_tc[d], "dscp %u -> tc %u, want %u",
			      d, got->dscp_to_tc[d], want->dscp_to_tc[d]);
	for (unsigned t = 0; t < LP_TCS; t++) {
		ck_assert_msg(got->tc_to_queue[t] == want->tc_to_queue[t], "tc_to_queue[%u]", t);
		ck_assert_msg(got->tc_to_pg[t] == want->tc_to_pg[t], "tc_to_pg[%u] = %u, want %u",
			      t, got->tc_to_pg[t], want->tc_to_pg[t]);
		ck_assert_msg(got->ets_weight[t] == want->ets_weight[t], "ets_weight[%u] = %u, "
			      "want %u", t, got->ets_weight[t], want->ets_weight[t]);
		ck_assert_msg(got->ecn[t].enabled == want->ecn[t].enabled, "ecn[%u].enabled", t);
		ck_assert_uint_eq(got->ecn[t].min_bytes, want->ecn[t].min_bytes);
		ck_assert_uint_eq(got->ecn[t].max_bytes, want->ecn[t].max_bytes);
		ck_assert_uint_eq(got->ecn[t].mark_percent, want->ecn[t].mark_percent);
	}
	ck_assert_uint_eq(got->pfc_mask, want->pfc_mask);
	ck_assert_uint_eq(got->strict_mask, want->strict_mask);
	ck_assert_uint_eq(got->pfcwd.enabled, want->pfcwd.enabled);
	ck_assert_int_eq(got->pfcwd.action, want->pfcwd.action);
	ck_assert_uint_eq(got->pfcwd.detection_ms, want->pfcwd.detection_ms);
	ck_assert_uint_eq(got->pfcwd.restoration_ms, want->pfcwd.restoration_ms);
	ck_assert_uint_eq(got->n_ports, want->n_ports);
	for (size_t i = 0; i < want->n_ports; i++) {
		ck_assert_str_eq(got->ports[i].port, want->ports[i].port);
		ck_assert_uint_eq(got->ports[i].cable_m, want->ports[i].cable_m);
		ck_assert_uint_eq(got->ports[i].speed_mbps, want->ports[i].speed_mbps);
	}
}

/* ---- tests ---------------------------------------------------------------- */

START_TEST(sonic_inventory_reads_device_metadata_and_every_port_in_order)
{
	struct lp_port_sink sink = { NULL, fp_port_sink };
	struct lp_inventory inv;

	fp_n_ports = 0;
	ck_assert_msg(ops->inventory(sw, &inv, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.hostname, "leaf1");
	ck_assert_str_eq(inv.model, "Arista-7050CX3-32S-C32");
	ck_assert_str_eq(inv.mac, "0c:42:a1:00:00:01");
	ck_assert_str_eq(inv.os_version, "SONiC.202311.1-8a1c3f0");
	ck_assert_uint_eq(fp_n_ports, N_PORTS);
	for (unsigned i = 0; i < N_PORTS; i++) {
		char name[16], alias[16];

		snprintf(name, sizeof(name), "Ethernet%u", 4 * i);
		snprintf(alias, sizeof(alias), "etp%u", i + 1);
		ck_assert_str_eq(fp_ports[i].name, name);
		ck_assert_str_eq(fp_ports[i].alias, alias);
		ck_assert_uint_eq(fp_ports[i].speed_mbps, 100000);
		ck_assert_uint_eq(fp_ports[i].mtu, 9100);
		ck_assert_uint_eq(fp_ports[i].admin_up, i != 7);
		ck_assert_uint_eq(fp_ports[i].oper_up, i < 6);
	}
}
END_TEST

START_TEST(sonic_inventory_takes_the_os_version_from_kube_labels_without_lldp)
{
	struct lp_inventory inv;

	fr_del(APPL_DB, "LLDP_LOC_CHASSIS");
	ck_assert_msg(ops->inventory(sw, &inv, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.os_version, "");
	fr_hset(STATE_DB, "KUBE_LABELS|SET", "sonic_version", "202405.7", "hwsku", "x", NULL);
	ck_assert_msg(ops->inventory(sw, &inv, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.os_version, "SONiC.202405.7");
}
END_TEST

START_TEST(sonic_lldp_reports_each_seeded_neighbour)
{
	struct lp_neighbor_sink sink = { NULL, fp_neighbor_sink };

	fp_n_neigh = 0;
	ck_assert_msg(ops->lldp_neighbors(sw, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(fp_n_neigh, 2);
	ck_assert_str_eq(fp_neigh[0].local_port, "Ethernet0");
	ck_assert_str_eq(fp_neigh[0].chassis_id, "0c:42:a1:00:10:00");
	ck_assert_str_eq(fp_neigh[0].sys_name, "spine1");
	ck_assert_str_eq(fp_neigh[0].port_id, "Ethernet64");
	ck_assert_str_eq(fp_neigh[0].port_desc, "to-leaf1-etp1");
	ck_assert_str_eq(fp_neigh[1].local_port, "Ethernet4");
	ck_assert_str_eq(fp_neigh[1].sys_name, "spine2");
	ck_assert_str_eq(fp_neigh[1].chassis_id, "0c:42:a1:00:20:00");
}
END_TEST

START_TEST(sonic_apply_of_the_default_policy_writes_sonic_tables)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes cs = { 0 };
	long last_ref, first_user;

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_gt(cs.n, 0);
	for (size_t i = 0; i < cs.n; i++) {
		ck_assert_msg(cs.v[i].done == 1, "%s %s not done", cs.v[i].key, cs.v[i].field);
		ck_assert_str_eq(cs.v[i].before, "");
		ck_assert_msg(cs.v[i].after[0], "%s %s: nothing to remove on a fresh switch",
			      cs.v[i].key, cs.v[i].field);
	}
	/* referenced objects before the keys that refer to them */
	last_ref = last_of(&cs, "DSCP_TO_TC_MAP|");
	if (last_of(&cs, "WRED_PROFILE|") > last_ref)
		last_ref = last_of(&cs, "WRED_PROFILE|");
	if (last_of(&cs, "SCHEDULER|") > last_ref)
		last_ref = last_of(&cs, "SCHEDULER|");
	if (last_of(&cs, "MAP_PFC_PRIORITY_TO_QUEUE|") > last_ref)
		last_ref = last_of(&cs, "MAP_PFC_PRIORITY_TO_QUEUE|");
	first_user = first_of(&cs, "QUEUE|");
	ck_assert_int_ge(first_user, 0);
	ck_assert_int_lt(last_ref, first_user);
	ck_assert_int_lt(last_ref, first_of(&cs, "PORT_QOS_MAP|"));

	ck_assert_int_eq(fr_integer(CONFIG_DB, "HLEN", "DSCP_TO_TC_MAP|LOOM"), 64);
	ck_assert_str_eq(fr_hget("DSCP_TO_TC_MAP|LOOM", "26"), "3");
	ck_assert_str_eq(fr_hget("DSCP_TO_TC_MAP|LOOM", "48"), "6");
	ck_assert_str_eq(fr_hget("DSCP_TO_TC_MAP|LOOM", "0"), "0");
	ck_assert_str_eq(fr_hget("TC_TO_QUEUE_MAP|LOOM", "6"), "6");
	ck_assert_str_eq(fr_hget("TC_TO_PRIORITY_GROUP_MAP|LOOM", "3"), "3");
	ck_assert_str_eq(fr_hget("TC_TO_PRIORITY_GROUP_MAP|LOOM", "6"), "0");
	ck_assert_str_eq(fr_hget("MAP_PFC_PRIORITY_TO_QUEUE|LOOM", "3"), "3");
	fr_hash_is("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map", "LOOM", "tc_to_queue_map", "LOOM",
		"tc_to_pg_map", "LOOM", "pfc_to_queue_map", "LOOM", "pfc_enable", "3",
		"pfcwd_sw_enable", "3", NULL);
	fr_hash_is("QUEUE|Ethernet0|3", "scheduler", "LOOM_DWRR_50", "wred_profile", "LOOM_LOSSLESS",
		NULL);
	fr_hash_is("QUEUE|Ethernet0|0", "scheduler", "LOOM_DWRR_50", NULL);
	fr_hash_is("QUEUE|Ethernet28|6", "scheduler", "LOOM_STRICT", NULL);
	ck_assert(!fr_exists("QUEUE|Ethernet0|1"));   /* no traffic, no weight */
	fr_hash_is("SCHEDULER|LOOM_DWRR_50", "type", "DWRR", "weight", "50", NULL);
	fr_hash_is("SCHEDULER|LOOM_STRICT", "type", "STRICT", NULL);
	ck_assert_uint_eq(fr_count_keys("SCHEDULER|*"), 2);
	ck_assert_uint_eq(fr_count_keys("*AZURE*") + fr_count_keys("*scheduler.*"), 1);  /* CABLE_LENGTH */
	fr_hash_is("WRED_PROFILE|LOOM_LOSSLESS", "wred_green_enable", "true",
		"wred_yellow_enable", "true", "wred_red_enable", "true", "ecn", "ecn_all",
		"green_min_threshold", "150000", "green_max_threshold", "1500000",
		"green_drop_probability", "10", "yellow_min_threshold", "150000",
		"yellow_max_threshold", "1500000", "yellow_drop_probability", "10",
		"red_min_threshold", "150000", "red_max_threshold", "1500000",
		"red_drop_probability", "10", NULL);
	fr_hash_is("PFC_WD|Ethernet0", "action", "drop", "detection_time", "200",
		"restoration_time", "400", NULL);
	fr_hash_is("PFC_WD|GLOBAL", "POLL_INTERVAL", "200", NULL);
	ck_assert_int_eq(fr_integer(CONFIG_DB, "HLEN", "CABLE_LENGTH|AZURE"), N_PORTS);
	ck_assert_str_eq(fr_hget("CABLE_LENGTH|AZURE", "Ethernet0"), "5m");
	ck_assert_str_eq(fr_hget("CABLE_LENGTH|AZURE", "Ethernet28"), "5m");
	/* traditional buffer model: buffermgrd makes these, not loom */
	ck_assert_uint_eq(fr_count_keys("BUFFER_*"), 0);
	free(cs.v);
	free(want);
}
END_TEST

START_TEST(sonic_second_apply_reports_no_change)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes cs = { 0 };

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_gt(cs.n, 0);
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_msg(cs.n == 0, "second apply changed %s %s", cs.v[0].key, cs.v[0].field);
	ck_assert_msg(apply(want, 1, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 0);
	free(cs.v);
	free(want);
}
END_TEST

START_TEST(sonic_dry_run_reports_every_change_and_writes_nothing)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes dry = { 0 }, real = { 0 };
	long long keys = fr_integer(CONFIG_DB, "DBSIZE", NULL);

	ck_assert_msg(apply(want, 1, &dry) == 0, "%s", err);
	ck_assert_uint_gt(dry.n, 0);
	for (size_t i = 0; i < dry.n; i++)
		ck_assert_int_eq(dry.v[i].done, 0);
	ck_assert_int_eq(fr_integer(CONFIG_DB, "DBSIZE", NULL), keys);
	ck_assert(!fr_exists("DSCP_TO_TC_MAP|LOOM"));
	/* and what it said is what a real apply then does */
	ck_assert_msg(apply(want, 0, &real) == 0, "%s", err);
	ck_assert_uint_eq(real.n, dry.n);
	for (size_t i = 0; i < dry.n; i++) {
		ck_assert_str_eq(real.v[i].key, dry.v[i].key);
		ck_assert_str_eq(real.v[i].field, dry.v[i].field);
		ck_assert_str_eq(real.v[i].after, dry.v[i].after);
	}
	free(dry.v);
	free(real.v);
	free(want);
}
END_TEST

START_TEST(sonic_dry_run_reports_the_one_field_changed_behind_looms_back)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes cs = { 0 };

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	fr_hset(CONFIG_DB, "PORT_QOS_MAP|Ethernet8", "pfc_enable", "3,4", NULL);
	cs.n = 0;
	ck_assert_msg(apply(want, 1, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 1);
	ck_assert_str_eq(cs.v[0].key, "PORT_QOS_MAP|Ethernet8");
	ck_assert_str_eq(cs.v[0].field, "pfc_enable");
	ck_assert_str_eq(cs.v[0].before, "3,4");
	ck_assert_str_eq(cs.v[0].after, "3");
	ck_assert_int_eq(cs.v[0].done, 0);
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet8", "pfc_enable"), "3,4");
	/* the real apply puts it back, and only it */
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 1);
	ck_assert_int_eq(cs.v[0].done, 1);
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet8", "pfc_enable"), "3");
	free(cs.v);
	free(want);
}
END_TEST

START_TEST(sonic_apply_removes_what_loom_wants_gone_and_keeps_fields_it_does_not_manage)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes cs = { 0 };
	int removed = 0;

	/* what `config qos reload` left (lossless 3,4), plus fields of others */
	fr_hset(CONFIG_DB, "QUEUE|Ethernet0|4", "scheduler", "scheduler.1", "wred_profile",
	     "AZURE_LOSSLESS", NULL);
	fr_hset(CONFIG_DB, "PORT_QOS_MAP|Ethernet0", "pfc_enable", "3,4", "scheduler",
	     "port_shaper", NULL);
	fr_hset(CONFIG_DB, "PFC_WD|Ethernet0", "pfc_stat_history", "enable", NULL);
	fr_hset(CONFIG_DB, "SCHEDULER|scheduler.1", "type", "DWRR", "weight", "15", "meter_type",
	     "bytes", NULL);
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	for (size_t i = 0; i < cs.n; i++)
		if (!cs.v[i].after[0]) {
			removed++;
			ck_assert_msg(cs.v[i].before[0], "%s %s", cs.v[i].key, cs.v[i].field);
		}
	ck_assert_int_eq(removed, 2);
	ck_assert(!fr_exists("QUEUE|Ethernet0|4"));    /* both its fields were loom's */
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet0", "scheduler"), "port_shaper");
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet0", "pfc_enable"), "3");
	ck_assert_str_eq(fr_hget("PFC_WD|Ethernet0", "pfc_stat_history"), "enable");
	ck_assert_str_eq(fr_hget("PFC_WD|Ethernet0", "detection_time"), "200");
	/* scheduler.1 is SONiC's, shared by every port: never loom's to change */
	fr_hash_is("SCHEDULER|scheduler.1", "type", "DWRR", "weight", "15", "meter_type", "bytes",
		NULL);
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 0);
	free(cs.v);
	free(want);
}
END_TEST

START_TEST(sonic_qos_read_gives_back_what_apply_wrote)
{
	struct lp_qos *want = fp_default_want(ops, sw), *got;
	struct changes cs = { 0 };
	int ret;

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	got = read_back(want, &ret);
	ck_assert_msg(ret == 0, "qos_read: %s", err);
	assert_qos_same(got, want);
	/* no buffermgrd here: no headroom on the switch yet */
	ck_assert_uint_eq(got->ports[0].xoff_bytes, 0);
	free(got);
	free(want);
	free(cs.v);
}
END_TEST

START_TEST(sonic_qos_read_reports_the_headroom_buffermgrd_made)
{
	struct lp_qos *want = fp_default_want(ops, sw), *got;
	struct changes cs = { 0 };
	int ret;

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	/* what buffermgrd writes from pg_profile_lookup.ini for 100G, 5 m */
	fr_hset(CONFIG_DB, "BUFFER_PROFILE|pg_lossless_100000_5m_profile", "pool",
	     "ingress_lossless_pool", "size", "50176", "xon", "19456", "xoff", "30720",
	     "dynamic_th", "0", NULL);
	fr_hset(CONFIG_DB, "BUFFER_PG|Ethernet4|3", "profile", "pg_lossless_100000_5m_profile", NULL);
	got = read_back(want, &ret);
	ck_assert_msg(ret == 0, "qos_read: %s", err);
	ck_assert_uint_eq(got->ports[1].size_bytes, 50176);
	ck_assert_uint_eq(got->ports[1].xon_bytes, 19456);
	ck_assert_uint_eq(got->ports[1].xoff_bytes, 30720);
	ck_assert_uint_eq(got->ports[0].xoff_bytes, 0);
	free(got);
	free(want);
	free(cs.v);
}
END_TEST

/* Lossless priorities 3 and 6: buffermgrd makes BUFFER_PG|<port>|3 and |6,
 * not 3-6 (which would hold 4 and 5 too). */
START_TEST(sonic_qos_read_finds_the_headroom_of_lossless_priorities_that_are_not_contiguous)
{
	struct lp_qos *want = fp_default_want(ops, sw), *got;
	struct changes cs = { 0 };
	int ret;

	want->pfc_mask = 1u << 3 | 1u << 6;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_str_eq(fr_hget("PORT_QOS_MAP|Ethernet4", "pfc_enable"), "3,6");
	fr_hset(CONFIG_DB, "BUFFER_PROFILE|pg_lossless_100000_5m_profile", "pool",
	     "ingress_lossless_pool", "size", "50176", "xon", "19456", "xoff", "30720",
	     "dynamic_th", "0", NULL);
	fr_hset(CONFIG_DB, "BUFFER_PG|Ethernet4|3", "profile", "pg_lossless_100000_5m_profile", NULL);
	fr_hset(CONFIG_DB, "BUFFER_PG|Ethernet4|6", "profile", "pg_lossless_100000_5m_profile", NULL);
	got = read_back(want, &ret);
	ck_assert_msg(ret == 0, "qos_read: %s", err);
	ck_assert_uint_eq(got->pfc_mask, 1u << 3 | 1u << 6);
	ck_assert_uint_eq(got->ports[1].xoff_bytes, 30720);
	ck_assert_uint_eq(got->ports[1].size_bytes, 50176);
	free(got);
	free(want);
	free(cs.v);
}
END_TEST

START_TEST(sonic_qos_read_of_a_switch_without_lossless_config_is_enoent)
{
	struct lp_qos *want = fp_default_want(ops, sw), *got;
	int ret;

	got = read_back(want, &ret);
	ck_assert_int_eq(ret, -ENOENT);
	ck_assert_msg(strstr(err, "DSCP_TO_TC_MAP|LOOM") && strstr(err, "PORT_QOS_MAP"),
		      "err: %s", err);
	free(got);
	free(want);
}
END_TEST

START_TEST(sonic_sample_intent_writes_the_tables_of_sonics_own_sample)
{
	struct lp_qos *want = sample_intent(), *got;
	struct changes cs = { 0 };
	int ret;

	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	fr_hash_is("DSCP_TO_TC_MAP|LOOM", "0", "1", "1", "1", "2", "1", "3", "3", "4", "4", "5", "2",
		"6", "1", "7", "1", "8", "0", "9", "1", "10", "1", "11", "1", "12", "1", "13", "1",
		"14", "1", "15", "1", "16", "1", "17", "1", "18", "1", "19", "1", "20", "1",
		"21", "1", "22", "1", "23", "1", "24", "1", "25", "1", "26", "1", "27", "1",
		"28", "1", "29", "1", "30", "1", "31", "1", "32", "1", "33", "1", "34", "1",
		"35", "1", "36", "1", "37", "1", "38", "1", "39", "1", "40", "1", "41", "1",
		"42", "1", "43", "1", "44", "1", "45", "1", "46", "5", "47", "1", "48", "6",
		"49", "1", "50", "1", "51", "1", "52", "1", "53", "1", "54", "1", "55", "1",
		"56", "1", "57", "1", "58", "1", "59", "1", "60", "1", "61", "1", "62", "1",
		"63", "1", NULL);
	fr_hash_is("TC_TO_PRIORITY_GROUP_MAP|LOOM", "0", "0", "1", "0", "2", "0", "3", "3", "4", "4",
		"5", "0", "6", "0", "7", "7", NULL);
	fr_hash_is("TC_TO_QUEUE_MAP|LOOM", "0", "0", "1", "1", "2", "2", "3", "3", "4", "4", "5", "5",
		"6", "6", "7", "7", NULL);
	fr_hash_is("MAP_PFC_PRIORITY_TO_QUEUE|LOOM", "0", "0", "1", "1", "2", "2", "3", "3", "4", "4",
		"5", "5", "6", "6", "7", "7", NULL);
	fr_hash_is("SCHEDULER|LOOM_DWRR_14", "type", "DWRR", "weight", "14", NULL);
	fr_hash_is("SCHEDULER|LOOM_DWRR_15", "type", "DWRR", "weight", "15", NULL);
	ck_assert_uint_eq(fr_count_keys("SCHEDULER|*"), 2);
	fr_hash_is("WRED_PROFILE|LOOM_LOSSLESS", "wred_green_enable", "true",
		"wred_yellow_enable", "true", "wred_red_enable", "true", "ecn", "ecn_all",
		"green_min_threshold", "1048576", "green_max_threshold", "2097152",
		"green_drop_probability", "5", "yellow_min_threshold", "1048576",
		"yellow_max_threshold", "2097152", "yellow_drop_probability", "5",
		"red_min_threshold", "1048576", "red_max_threshold", "2097152",
		"red_drop_probability", "5", NULL);
	for (unsigned i = 0; i < N_PORTS; i++) {
		char key[64];

		snprintf(key, sizeof(key), "PORT_QOS_MAP|Ethernet%u", 4 * i);
		fr_hash_is(key, "dscp_to_tc_map", "LOOM", "tc_to_queue_map", "LOOM", "tc_to_pg_map",
			"LOOM", "pfc_to_queue_map", "LOOM", "pfc_enable", "3,4",
			"pfcwd_sw_enable", "3,4", NULL);
		for (unsigned q = 0; q < LP_TCS; q++) {
			snprintf(key, sizeof(key), "QUEUE|Ethernet%u|%u", 4 * i, q);
			if (q == 3 || q == 4)
				fr_hash_is(key, "scheduler", "LOOM_DWRR_15", "wred_profile",
					"LOOM_LOSSLESS", NULL);
			else if (q == 7)
				ck_assert_msg(!fr_exists(key), "%s", key);
			else
				fr_hash_is(key, "scheduler", "LOOM_DWRR_14", NULL);
		}
	}
	ck_assert_str_eq(fr_hget("CABLE_LENGTH|AZURE", "Ethernet4"), "40m");
	got = read_back(want, &ret);
	ck_assert_msg(ret == 0, "qos_read: %s", err);
	assert_qos_same(got, want);
	free(got);
	free(cs.v);
	free(want);
}
END_TEST

START_TEST(sonic_apply_cut_short_by_redis_dying_reports_what_landed_and_completes_later)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes plan = { 0 }, cut = { 0 }, rest = { 0 };
	size_t n_done = 0, first_undone;
	int ret;

	/* a redis-server that keeps every acknowledged write across SIGKILL */
	fr_stop();
	fr_start(1, NULL);
	seed_leaf();
	ck_assert_msg(apply(want, 1, &plan) == 0, "%s", err);
	cut.kill_after = 80;          /* mid-way: after the first maps */
	ret = apply(want, 0, &cut);
	ck_assert_msg(ret < 0, "apply returned %d with redis-server dead", ret);
	ck_assert_msg(strstr(err, "HSET "), "err: %s", err);
	ck_assert_msg(strstr(last_log, "QoS apply stopped"), "log: %s", last_log);
	/* every planned change reported once, the landed ones first */
	ck_assert_uint_eq(cut.n, plan.n);
	for (size_t i = 0; i < cut.n; i++) {
		ck_assert_str_eq(cut.v[i].key, plan.v[i].key);
		ck_assert_str_eq(cut.v[i].field, plan.v[i].field);
		if (cut.v[i].done)
			ck_assert_msg(n_done++ == i, "%s %s done after one that was not",
				      cut.v[i].key, cut.v[i].field);
	}
	ck_assert_uint_ge(n_done, 80);
	ck_assert_uint_lt(n_done, cut.n);
	first_undone = n_done;
	ck_assert_msg(strstr(err, cut.v[first_undone].key), "err \"%s\" does not name %s", err,
		      cut.v[first_undone].key);

	/* after the restart: done = 1 means it is there, done = 0 that it is not */
	fr_start(1, NULL);
	for (size_t i = 0; i < n_done; i++) {
		const char *v = fr_hget(cut.v[i].key, cut.v[i].field);

		ck_assert_msg(v && !strcmp(v, cut.v[i].after), "%s %s reported done, holds %s",
			      cut.v[i].key, cut.v[i].field, v ? v : "nothing");
	}
	ck_assert_ptr_null(fr_hget(cut.v[first_undone].key, cut.v[first_undone].field));

	/* the same handle connects again and finishes exactly what was missing */
	ck_assert_msg(apply(want, 0, &rest) == 0, "%s", err);
	ck_assert_uint_eq(rest.n, cut.n - n_done);
	for (size_t i = 0; i < rest.n; i++) {
		ck_assert_str_eq(rest.v[i].key, cut.v[n_done + i].key);
		ck_assert_str_eq(rest.v[i].field, cut.v[n_done + i].field);
		ck_assert_int_eq(rest.v[i].done, 1);
	}
	rest.n = 0;
	ck_assert_msg(apply(want, 0, &rest) == 0, "%s", err);
	ck_assert_uint_eq(rest.n, 0);
	free(plan.v);
	free(cut.v);
	free(rest.v);
	free(want);
}
END_TEST

START_TEST(sonic_health_fails_while_redis_is_down_and_recovers_after_restart)
{
	struct lp_inventory inv;

	ck_assert_int_eq(ops->health(sw, err, sizeof(err)), 0);
	fr_kill();
	ck_assert_int_lt(ops->health(sw, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, fr_sock), "err does not name the socket: %s", err);
	ck_assert_int_lt(ops->inventory(sw, &inv, NULL, err, sizeof(err)), 0);
	fr_start(0, NULL);
	seed_leaf();
	ck_assert_msg(ops->health(sw, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ops->inventory(sw, &inv, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.hostname, "leaf1");
}
END_TEST

START_TEST(sonic_open_refuses_bad_addresses_and_names_unreachable_ones)
{
	struct lp_switch *s2 = NULL;

	ck_assert_int_eq(open_switch("leaf1:99999", NULL, &s2), -EINVAL);
	ck_assert_msg(strstr(err, "leaf1:99999"), "err: %s", err);
	ck_assert_int_eq(open_switch("unix:", NULL, &s2), -EINVAL);
	ck_assert_int_eq(open_switch("unix:/nonexistent/redis.sock", NULL, &s2), -ENOENT);
	ck_assert_msg(strstr(err, "unix:/nonexistent/redis.sock"), "err: %s", err);
	ck_assert_int_eq(open_switch("127.0.0.1:1", NULL, &s2), -ECONNREFUSED);
	ck_assert_msg(strstr(err, "127.0.0.1:1"), "err: %s", err);
	ck_assert_ptr_null(s2);
	/* a bare path is a unix socket too */
	ck_assert_msg(open_switch(fr_sock, NULL, &s2) == 0, "%s", err);
	ops->close(s2);
}
END_TEST

START_TEST(sonic_open_gives_up_after_timeout_ms_when_nothing_answers)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char address[sizeof(sa.sun_path) + 8];
	struct lp_endpoint ep = { .name = "leaf1", .address = address, .timeout_ms = 300 };
	struct lp_switch *s2 = NULL;
	struct timespec t0, t1;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), ret;
	long ms;

	/* a socket that takes connections and never says a word */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mute.sock", fr_dir);
	snprintf(address, sizeof(address), "unix:%s", sa.sun_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ops->open(&ep, &host, &s2, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ck_assert_int_eq(ret, -ETIMEDOUT);
	ck_assert_ptr_null(s2);
	ck_assert_msg(strstr(err, "no answer within 300 ms") && strstr(err, address), "err: %s",
		      err);
	ck_assert_msg(ms >= 250 && ms < 3000, "open gave up after %ld ms, not about 300", ms);
}
END_TEST

START_TEST(sonic_open_authenticates_with_the_credentials_first_line)
{
	struct lp_switch *s2 = NULL;
	char address[160];

	ops->close(sw);
	sw = NULL;
	fr_stop();
	fr_start(0, "s3cret pass");
	snprintf(address, sizeof(address), "unix:%s", fr_sock);
	ck_assert_int_eq(open_switch(address, NULL, &s2), -EACCES);
	ck_assert_msg(strstr(err, "NOAUTH"), "err: %s", err);
	ck_assert_int_eq(open_switch(address, "wrong\n", &s2), -EACCES);
	ck_assert_msg(!strstr(err, "wrong"), "err shows the password: %s", err);
	ck_assert_msg(open_switch(address, "s3cret pass\nsecond line\n", &s2) == 0, "%s", err);
	ck_assert_int_eq(ops->health(s2, err, sizeof(err)), 0);
	ops->close(s2);
}
END_TEST

START_TEST(sonic_vlan_set_moves_the_access_vlan_get_reads_it_and_clear_removes_it)
{
	uint16_t vid;

	fr_hset(CONFIG_DB, "VLAN|Vlan100", "vlanid", "100", NULL);
	fr_hset(CONFIG_DB, "VLAN_MEMBER|Vlan100|Ethernet0", "tagging_mode", "tagged", NULL);
	fr_hset(CONFIG_DB, "VLAN_MEMBER|Vlan10|Ethernet4", "tagging_mode", "untagged", NULL);

	ck_assert_msg(ops->vlan_set(sw, "Ethernet0", 10, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(fr_hget("VLAN|Vlan10", "vlanid"), "10");
	fr_hash_is("VLAN_MEMBER|Vlan10|Ethernet0", "tagging_mode", "untagged", NULL);

	ck_assert_msg(ops->vlan_set(sw, "Ethernet0", 20, err, sizeof(err)) == 0, "%s", err);
	vid = 0;
	ck_assert_msg(ops->vlan_get(sw, "Ethernet0", &vid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(vid, 20);                              /* not the tagged 100 */
	ck_assert(!fr_exists("VLAN_MEMBER|Vlan10|Ethernet0"));
	fr_hash_is("VLAN_MEMBER|Vlan20|Ethernet0", "tagging_mode", "untagged", NULL);
	ck_assert(fr_exists("VLAN|Vlan10"));                     /* Ethernet4 is still in it */
	ck_assert(fr_exists("VLAN_MEMBER|Vlan10|Ethernet4"));
	ck_assert(fr_exists("VLAN_MEMBER|Vlan100|Ethernet0"));   /* tagged: not loom's */

	ck_assert_msg(ops->vlan_clear(sw, "Ethernet0", err, sizeof(err)) == 0, "%s", err);
	ck_assert(!fr_exists("VLAN_MEMBER|Vlan20|Ethernet0"));
	ck_assert(fr_exists("VLAN_MEMBER|Vlan100|Ethernet0"));
	ck_assert(fr_exists("VLAN_MEMBER|Vlan10|Ethernet4"));
	ck_assert_msg(ops->vlan_clear(sw, "Ethernet0", err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ops->vlan_get(sw, "Ethernet0", &vid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(vid, 0);
	ck_assert_msg(ops->vlan_get(sw, "Ethernet4", &vid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(vid, 10);                              /* an operator's, read as is */

	ck_assert_int_eq(ops->vlan_get(sw, "Ethernet99", &vid, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(ops->vlan_set(sw, "Ethernet99", 10, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "PORT|Ethernet99"), "err: %s", err);
	ck_assert_int_eq(ops->vlan_set(sw, "Ethernet0", 4095, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(sonic_plugin_exports_only_loom_plugin_v1)
{
	void *dl = dlopen(SONIC_PLUGIN_DIR "/sonic.so", RTLD_NOW | RTLD_LOCAL);
	static const char *const internal[] = { "sn_apply_plan", "sn_plan_qos", "sn_qos_read",
		"sn_connect", "sn_cmd", "sn_conn_init" };

	ck_assert_msg(dl, "%s", dlerror());
	ck_assert_ptr_nonnull(dlsym(dl, "loom_plugin_v1"));
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		ck_assert_msg(!dlsym(dl, internal[i]), "sonic.so exports %s", internal[i]);
	dlclose(dl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sonic");
	TCase *tc = tcase_create("sonic");

	tcase_add_test(tc, sonic_inventory_reads_device_metadata_and_every_port_in_order);
	tcase_add_test(tc, sonic_inventory_takes_the_os_version_from_kube_labels_without_lldp);
	tcase_add_test(tc, sonic_lldp_reports_each_seeded_neighbour);
	tcase_add_test(tc, sonic_apply_of_the_default_policy_writes_sonic_tables);
	tcase_add_test(tc, sonic_second_apply_reports_no_change);
	tcase_add_test(tc, sonic_dry_run_reports_every_change_and_writes_nothing);
	tcase_add_test(tc, sonic_dry_run_reports_the_one_field_changed_behind_looms_back);
	tcase_add_test(tc,
		       sonic_apply_removes_what_loom_wants_gone_and_keeps_fields_it_does_not_manage);
	tcase_add_test(tc, sonic_qos_read_gives_back_what_apply_wrote);
	tcase_add_test(tc, sonic_qos_read_reports_the_headroom_buffermgrd_made);
	tcase_add_test(tc,
		       sonic_qos_read_finds_the_headroom_of_lossless_priorities_that_are_not_contiguous);
	tcase_add_test(tc, sonic_qos_read_of_a_switch_without_lossless_config_is_enoent);
	tcase_add_test(tc, sonic_sample_intent_writes_the_tables_of_sonics_own_sample);
	tcase_add_test(tc,
		       sonic_apply_cut_short_by_redis_dying_reports_what_landed_and_completes_later);
	tcase_add_test(tc, sonic_health_fails_while_redis_is_down_and_recovers_after_restart);
	tcase_add_test(tc, sonic_open_refuses_bad_addresses_and_names_unreachable_ones);
	tcase_add_test(tc, sonic_open_gives_up_after_timeout_ms_when_nothing_answers);
	tcase_add_test(tc, sonic_open_authenticates_with_the_credentials_first_line);
	tcase_add_test(tc, sonic_vlan_set_moves_the_access_vlan_get_reads_it_and_clear_removes_it);
	tcase_add_test(tc, sonic_plugin_exports_only_loom_plugin_v1);
	return sonic_main(s, tc, "test_sonic");
}
