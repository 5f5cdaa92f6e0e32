/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/sonic/test_sonic_counters.c: the sonic plugin's counters_read op
 * against a real redis-server whose COUNTERS_DB (db 2) holds what
 * orchagent's flex counters write there, in SONiC's own key and field
 * forms (docs/sonic-counters-notes.md): the name maps, the queue type map
 * and the COUNTERS:oid:0x... hashes of two ports and their queues, values
 * as decimal strings. Checked: every counter under loom's name with its
 * priority or queue, multicast queues left out, absent fields absent, and
 * each fault (a value that is no number, a map naming a hash that does not
 * exist, a queue without a type, a missing map) reported naming the key
 * and field, never as 0. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_redis.h"
#include "tests/unit/fixtures/fixture_sonic.h"
#include "daemon/core/plugin.h"

#define COUNTERS_DB 2

/* Port Ethernet<4i> is oid:0x100000000000<i>; its queue q is
 * oid:0x15000000000<i><q hex>; queues 0..7 unicast, 8..9 multicast. */
static void port_oid(unsigned i, char *out, size_t len)
{
	snprintf(out, len, "oid:0x10000000000%02x", i + 1);
}

static void queue_oid(unsigned i, unsigned q, char *out, size_t len)
{
	snprintf(out, len, "oid:0x150000000%02x%02x", i + 1, q);
}

/* Two ports as a switch with PORT, QUEUE, PFCWD and WRED_ECN_QUEUE
 * counter groups polled leaves them. The values encode port, priority or
 * queue, so that a counter read under the wrong index shows. */
static void seed_counters(void)
{
	char oid[32], name[32], key[64], v[8][32];

	for (unsigned i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "Ethernet%u", 4 * i);
		port_oid(i, oid, sizeof(oid));
		fr_hset(COUNTERS_DB, "COUNTERS_PORT_NAME_MAP", name, oid, NULL);
		snprintf(key, sizeof(key), "COUNTERS:%s", oid);
		snprintf(v[0], sizeof(v[0]), "%u", 1000000 + i);
		snprintf(v[1], sizeof(v[1]), "%u", 2000000 + i);
		fr_hset(COUNTERS_DB, key, "SAI_PORT_STAT_IF_IN_OCTETS", v[0],
			"SAI_PORT_STAT_IF_OUT_OCTETS", v[1], "SAI_PORT_STAT_IF_IN_ERRORS", "5",
			"SAI_PORT_STAT_IF_OUT_ERRORS", "0", "SAI_PORT_STAT_IF_IN_DISCARDS", "7",
			"SAI_PORT_STAT_IF_OUT_DISCARDS", "8",
			"SAI_PORT_STAT_IF_IN_UCAST_PKTS", "999", NULL);
		for (unsigned p = 0; p < 8; p++) {
			char rx[40], tx[40], rxv[16], txv[16];

			snprintf(rx, sizeof(rx), "SAI_PORT_STAT_PFC_%u_RX_PKTS", p);
			snprintf(tx, sizeof(tx), "SAI_PORT_STAT_PFC_%u_TX_PKTS", p);
			snprintf(rxv, sizeof(rxv), "%u", 100 * (i + 1) + p);
			snprintf(txv, sizeof(txv), "%u", 200 * (i + 1) + p);
			fr_hset(COUNTERS_DB, key, rx, rxv, tx, txv, NULL);
		}
		for (unsigned q = 0; q < 10; q++) {
			char qname[40], qkey[64], pk[16], dr[16], ecn[16];

			snprintf(qname, sizeof(qname), "%s:%u", name, q);
			queue_oid(i, q, oid, sizeof(oid));
			fr_hset(COUNTERS_DB, "COUNTERS_QUEUE_NAME_MAP", qname, oid, NULL);
			fr_hset(COUNTERS_DB, "COUNTERS_QUEUE_TYPE_MAP", oid,
				q < 8 ? "SAI_QUEUE_TYPE_UNICAST" : "SAI_QUEUE_TYPE_MULTICAST", NULL);
			fr_hset(COUNTERS_DB, "COUNTERS_QUEUE_INDEX_MAP", oid, q < 8 ? qname + strlen(name) + 1
				: (q == 8 ? "0" : "1"), NULL);
			snprintf(qkey, sizeof(qkey), "COUNTERS:%s", oid);
			snprintf(pk, sizeof(pk), "%u", 5000 + 10 * i + q);
			snprintf(dr, sizeof(dr), "%u", 60 + 10 * i + q);
			snprintf(ecn, sizeof(ecn), "%u", 70 + 10 * i + q);
			fr_hset(COUNTERS_DB, qkey, "SAI_QUEUE_STAT_PACKETS", pk,
				"SAI_QUEUE_STAT_BYTES", "123456", "SAI_QUEUE_STAT_DROPPED_PACKETS", dr,
				NULL);
			if (q == 3 || q == 4) {
				/* lossless queues: the watchdog's and WRED's stats */
				fr_hset(COUNTERS_DB, qkey, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", ecn,
					"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", q == 3 ? "2" : "0",
					"PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", q == 3 ? "1" : "0",
					"PFC_WD_STATUS", q == 3 ? "stormed" : "operational",
					"PFC_WD_DETECTION_TIME", "200000", "PFC_WD_ACTION", "drop", NULL);
			}
		}
	}
}

struct read {
	char lines[512][96];
	size_t n;
	char errors[8][400];
	size_t n_err;
};

static int on_counter(void *ctx, const struct lp_counter *c)
{
	struct read *r = ctx;

	ck_assert_uint_lt(r->n, 512);
	snprintf(r->lines[r->n++], sizeof(r->lines[0]), "%s %s %c%u %llu bits %u%s", c->port,
		 c->name, c->scope == LP_COUNTER_PORT ? '-' : c->scope == LP_COUNTER_PRIORITY ?
		 'p' : 'q', c->index, (unsigned long long)c->value, c->bits, c->gauge ? " gauge" : "");
	return 0;
}

static int on_error(void *ctx, const char *port, const char *reason)
{
	struct read *r = ctx;

	ck_assert_uint_lt(r->n_err, 8);
	snprintf(r->errors[r->n_err++], sizeof(r->errors[0]), "%s: %s", port, reason);
	return 0;
}

static int has(const struct read *r, const char *line)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->lines[i], line))
			return 1;
	return 0;
}

static size_t count_prefix(const struct read *r, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += !strncmp(r->lines[i], prefix, strlen(prefix));
	return n;
}

static int read_counters(struct read *r)
{
	struct lp_counter_sink sink = { r, on_counter, on_error };
	lp_counters_read_fn fn = plugin_counters_op(ops);

	memset(r, 0, sizeof(*r));
	ck_assert_ptr_nonnull(fn);
	err[0] = '\0';
	return fn(sw, &sink, err, sizeof(err));
}

#define HAS(r, line) ck_assert_msg(has(r, line), "not read: %s", line)

START_TEST(sonic_counters_reads_ports_priorities_and_unicast_queues_under_looms_names)
{
	static struct read r;

	seed_counters();
	ck_assert_msg(read_counters(&r) == 0, "%s", err);
	ck_assert_uint_eq(r.n_err, 0);
	HAS(&r, "Ethernet0 in_octets -0 1000000 bits 64");
	HAS(&r, "Ethernet4 out_octets -0 2000001 bits 64");
	HAS(&r, "Ethernet0 in_errors -0 5 bits 64");
	HAS(&r, "Ethernet0 out_errors -0 0 bits 64");
	HAS(&r, "Ethernet4 in_discards -0 7 bits 64");
	HAS(&r, "Ethernet4 out_discards -0 8 bits 64");
	HAS(&r, "Ethernet0 pfc_rx_pause p3 103 bits 64");
	HAS(&r, "Ethernet4 pfc_rx_pause p3 203 bits 64");
	HAS(&r, "Ethernet4 pfc_tx_pause p7 407 bits 64");
	HAS(&r, "Ethernet0 queue_packets q0 5000 bits 64");
	HAS(&r, "Ethernet4 queue_drops q7 77 bits 64");
	HAS(&r, "Ethernet0 ecn_marked q3 73 bits 64");
	HAS(&r, "Ethernet4 ecn_marked q4 84 bits 64");
	HAS(&r, "Ethernet0 pfcwd_storm_detected q3 2 bits 64");
	HAS(&r, "Ethernet0 pfcwd_storm_restored q3 1 bits 64");
	HAS(&r, "Ethernet0 pfcwd_stormed q3 1 bits 1 gauge");
	HAS(&r, "Ethernet0 pfcwd_stormed q4 0 bits 1 gauge");
	/* per port: 6 port, 16 PFC, 8 x (packets, drops), 2 x (ecn, 2 wd, status) */
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 "), 6 + 16 + 16 + 8);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet4 "), 6 + 16 + 16 + 8);
	/* no counter the switch lacks: no ECN on a queue WRED does not mark,
	 * and nothing of the multicast queues 8 and 9 */
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 ecn_marked q0"), 0);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 queue_packets q8"), 0);
	ck_assert(!has(&r, "Ethernet0 queue_packets q0 5008 bits 64"));
}
END_TEST

START_TEST(sonic_counters_report_a_value_that_is_no_number_naming_key_and_field)
{
	static struct read r;
	char oid[32], key[64];

	seed_counters();
	port_oid(1, oid, sizeof(oid));
	snprintf(key, sizeof(key), "COUNTERS:%s", oid);
	fr_hset(COUNTERS_DB, key, "SAI_PORT_STAT_PFC_3_RX_PKTS", "12x", NULL);
	ck_assert_msg(read_counters(&r) == 0, "%s", err);
	ck_assert_uint_eq(r.n_err, 1);
	ck_assert_msg(strstr(r.errors[0], "Ethernet4: COUNTERS:oid:0x1000000000002 field "
			     "SAI_PORT_STAT_PFC_3_RX_PKTS: \"12x\" is no number"), "%s", r.errors[0]);
	/* none of that port's counters, all of the other's */
	ck_assert_uint_eq(count_prefix(&r, "Ethernet4 "), 0);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 "), 46);

	/* a queue's value, and a negative one */
	fr_hset(COUNTERS_DB, key, "SAI_PORT_STAT_PFC_3_RX_PKTS", "203", NULL);
	queue_oid(0, 4, oid, sizeof(oid));
	snprintf(key, sizeof(key), "COUNTERS:%s", oid);
	fr_hset(COUNTERS_DB, key, "SAI_QUEUE_STAT_DROPPED_PACKETS", "-1", NULL);
	ck_assert_msg(read_counters(&r) == 0, "%s", err);
	ck_assert_uint_eq(r.n_err, 1);
	ck_assert_msg(strstr(r.errors[0], "Ethernet0: COUNTERS:oid:0x1500000000104 field "
			     "SAI_QUEUE_STAT_DROPPED_PACKETS: \"-1\" is no number"), "%s", r.errors[0]);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 "), 0);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet4 "), 46);
}
END_TEST

START_TEST(sonic_counters_report_a_map_naming_a_hash_that_does_not_exist)
{
	static struct read r;

	seed_counters();
	fr_hset(COUNTERS_DB, "COUNTERS_PORT_NAME_MAP", "Ethernet8", "oid:0x1000000000009", NULL);
	ck_assert_msg(read_counters(&r) == 0, "%s", err);
	ck_assert_uint_eq(r.n_err, 1);
	ck_assert_msg(strstr(r.errors[0], "Ethernet8: COUNTERS:oid:0x1000000000009 (Ethernet8 in "
			     "COUNTERS_PORT_NAME_MAP) does not exist"), "%s", r.errors[0]);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet8 "), 0);
	ck_assert_uint_eq(count_prefix(&r, "Ethernet0 "), 46);

	/* a queue whose hash is gone, and one without a type */
	fr_del(COUNTERS_DB, "COUNTERS_PORT_NAME_MAP");
	fr_hset(COUNTERS_DB, "COUNTERS_PORT_NAME_MAP", "Ethernet0", "oid:0x1000000000001",
		"Ethernet4", "oid:0x1000000000002", NULL);
	fr_del(COUNTERS_DB, "COUNTERS:oid:0x1500000000105");
	fr_hset(COUNTERS_DB, "COUNTERS_QUEUE_NAME_MAP", "Ethernet4:2", "oid:0x15000000002ff", NULL);
	ck_assert_msg(read_counters(&r) == 0, "%s", err);
	ck_assert_uint_eq(r.n_err, 2);
	ck_assert_msg(strstr(r.errors[0], "Ethernet0: COUNTERS:oid:0x1500000000105 (queue "
			     "Ethernet0:5 in COUNTERS_QUEUE_NAME_MAP) does not exist"), "%s",
		      r.errors[0]);
	ck_assert_msg(strstr(r.errors[1], "Ethernet4: COUNTERS_QUEUE_TYPE_MAP has no field "
			     "oid:0x15000000002ff (queue Ethernet4:2)"), "%s", r.errors[1]);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(sonic_counters_fail_naming_a_missing_map)
{
	static struct read r;

	ck_assert_int_eq(read_counters(&r), -ENOENT);
	ck_assert_msg(strstr(err, "COUNTERS_DB (db 2) has no COUNTERS_PORT_NAME_MAP"), "%s", err);
	seed_counters();
	fr_del(COUNTERS_DB, "COUNTERS_QUEUE_TYPE_MAP");
	ck_assert_int_eq(read_counters(&r), -ENOENT);
	ck_assert_msg(strstr(err, "COUNTERS_DB (db 2) has no COUNTERS_QUEUE_TYPE_MAP"), "%s", err);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(sonic_counters_fail_with_the_reason_when_redis_is_gone)
{
	static struct read r;

	seed_counters();
	fr_stop();
	ck_assert_int_lt(read_counters(&r), 0);
	ck_assert_msg(err[0], "no reason");
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sonic_counters");
	TCase *tc = tcase_create("sonic_counters");

	tcase_add_test(tc, sonic_counters_reads_ports_priorities_and_unicast_queues_under_looms_names);
	tcase_add_test(tc, sonic_counters_report_a_value_that_is_no_number_naming_key_and_field);
	tcase_add_test(tc, sonic_counters_report_a_map_naming_a_hash_that_does_not_exist);
	tcase_add_test(tc, sonic_counters_fail_naming_a_missing_map);
	tcase_add_test(tc, sonic_counters_fail_with_the_reason_when_redis_is_gone);
	return sonic_main(s, tc, "test_sonic_counters");
}
