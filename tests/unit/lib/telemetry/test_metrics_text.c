/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_metrics_text.c: the Prometheus exposition of the port
 * counters (lib/telemetry/metrics_text.c) and its reader of loom's
 * database (lib/db/metrics_db.c). promtool checks the real output in
 * tests/integration/metrics.sh; these check what it cannot know: the
 * escaping of odd node descriptions, bytes from 4-octet words, stale
 * ports, saturated counters and the "errors" selection. */
#include "autoconf.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/db/metrics_db.h"
#include "lib/telemetry/metrics_text.h"
#include "tests/unit/fixtures/check_run.h"

static void port_init(struct mt_port *p, const char *node, const char *guid, unsigned port)
{
	memset(p, 0, sizeof(*p));
	p->subnet = "fab0";
	p->guid = guid;
	p->node = node;
	p->port = port;
	p->answered = 1;
	p->has_sample = 1;
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		p->bits[c] = (uint8_t)pma_counter_bits(c);
}

static char *render(const struct mt_port *ports, size_t n, enum mt_ports_mode mode,
		    double min_xw, struct mt_buf *b)
{
	struct mt_options o = { .mode = mode, .min_xmit_wait_per_s = min_xw };
	struct mt_read r = { .subnet = "fab0", .started = 100.0, .finished = 100.5,
			     .ports = (long long)n, .answered = (long long)n };

	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(mt_render(&r, 1, ports, n, &o, b), 0);
	ck_assert_ptr_nonnull(b->p);
	return b->p;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

START_TEST(label_values_are_escaped_and_made_utf8)
{
	struct mt_buf b;
	struct mt_port p;

	port_init(&p, "sw \"core\" \\1\nrack\xff" "x", "0x0000000000000001", 1);
	render(&p, 1, MT_PORTS_ALL, 0, &b);
	ck_assert_msg(strstr(b.p, "node=\"sw \\\"core\\\" \\\\1\\nrack\xef\xbf\xbdx\"}"),
		      "escaped node not found in:\n%s", b.p);
	/* No raw newline inside any series line: every line is a comment or
	 * NAME{...} VALUE. */
	for (char *l = b.p; *l; l = strchr(l, '\n') + 1) {
		ck_assert(l[0] == '#' || !strncmp(l, "loom_", 5));
		ck_assert_ptr_nonnull(strchr(l, '\n'));
	}
	mt_buf_free(&b);
}
END_TEST

START_TEST(each_family_has_one_help_and_type_before_all_its_series)
{
	struct mt_buf b;
	struct mt_port p[3];
	const char *type, *next;

	port_init(&p[0], "leaf-0", "0x0000000000000001", 1);
	port_init(&p[1], "leaf-0", "0x0000000000000001", 2);
	port_init(&p[2], "leaf-1", "0x0000000000000002", 1);
	p[1].v[PMA_SYMBOL_ERR] = 7;
	render(p, 3, MT_PORTS_ALL, 0, &b);
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		char t[128], h[128], s[128];

		snprintf(t, sizeof(t), "# TYPE %s counter\n", mt_counter_family(c));
		snprintf(h, sizeof(h), "# HELP %s ", mt_counter_family(c));
		snprintf(s, sizeof(s), "\n%s{", mt_counter_family(c));
		ck_assert_int_eq(count(b.p, t), 1);
		ck_assert_int_eq(count(b.p, h), 1);
		/* All three series come after the TYPE and before the next family. */
		type = strstr(b.p, t);
		next = strstr(type + strlen(t), "# HELP");
		for (const char *q = b.p; (q = strstr(q, s)); q++)
			ck_assert(q > type && (!next || q < next));
		ck_assert_int_eq(count(b.p, s), 3);
	}
	ck_assert_msg(strstr(b.p, "loom_port_symbol_errors_total{subnet=\"fab0\",guid=\"0x0000000000000001\","
			      "port=\"2\",node=\"leaf-0\"} 7\n"), "%s", b.p);
	ck_assert_int_eq(count(b.p, "# TYPE loom_port_counters_up gauge\n"), 1);
	ck_assert(strstr(b.p, "loom_counters_read_duration_seconds{subnet=\"fab0\"} 0.500000\n"));
	mt_buf_free(&b);
}
END_TEST

START_TEST(data_counters_are_exported_as_bytes)
{
	struct mt_buf b;
	struct mt_port p;

	port_init(&p, "h", "0x0000000000000003", 1);
	p.v[PMA_XMIT_DATA] = 1000;
	p.v[PMA_XMIT_PKTS] = 1000;
	p.v[PMA_RCV_DATA] = UINT64_MAX;      /* 64 bits: x 4 does not fit 64 bits */
	p.bits[PMA_RCV_DATA] = 64;
	render(&p, 1, MT_PORTS_ALL, 0, &b);
	ck_assert(strstr(b.p, "loom_port_xmit_data_bytes_total{subnet=\"fab0\",guid=\"0x0000000000000003\","
			 "port=\"1\",node=\"h\"} 4000\n"));
	ck_assert(strstr(b.p, "loom_port_xmit_packets_total{subnet=\"fab0\",guid=\"0x0000000000000003\","
			 "port=\"1\",node=\"h\"} 1000\n"));
	ck_assert_msg(strstr(b.p, "node=\"h\"} 73786976294838206460\n"), "%s", b.p);
	ck_assert(strstr(b.p, "# HELP loom_port_xmit_data_bytes_total") &&
		  strstr(strstr(b.p, "# HELP loom_port_xmit_data_bytes_total"), "4-octet words"));
	mt_buf_free(&b);
}
END_TEST

START_TEST(a_stale_port_has_no_counters_but_up_0_and_its_reason)
{
	struct mt_buf b;
	struct mt_port p[2];

	port_init(&p[0], "ok-node", "0x0000000000000001", 1);
	port_init(&p[1], "silent", "0x0000000000000002", 1);
	p[1].answered = 0;
	p[1].reason = "no answer to PortCounters after 4 tries of 200 ms";
	p[1].v[PMA_SYMBOL_ERR] = 99;   /* the last sample: not to be shown as now */
	render(p, 2, MT_PORTS_ERRORS, 0, &b);   /* stale ports show in every mode */
	ck_assert(strstr(b.p, "loom_port_counters_up{subnet=\"fab0\",guid=\"0x0000000000000002\","
			 "port=\"1\",node=\"silent\"} 0\n"));
	ck_assert(strstr(b.p, "loom_port_counters_stale{subnet=\"fab0\",guid=\"0x0000000000000002\","
			 "port=\"1\",node=\"silent\",reason=\"no_answer\"} 1\n"));
	ck_assert_ptr_null(strstr(b.p, "node=\"silent\"} 99"));
	ck_assert_int_eq(count(b.p, "loom_port_symbol_errors_total{"), 0);
	ck_assert_str_eq(mt_reason_class("PortCounters answered with MAD status 0x000c"),
			 "mad_status");
	ck_assert_str_eq(mt_reason_class("PortCounters answered for another port"), "bad_reply");
	ck_assert_str_eq(mt_reason_class("something new"), "other");
	mt_buf_free(&b);
}
END_TEST

START_TEST(errors_mode_keeps_ports_with_errors_or_congestion)
{
	struct mt_buf b;
	struct mt_port p[4];
	struct mt_options all = { .mode = MT_PORTS_ALL };

	port_init(&p[0], "clean", "0x0000000000000001", 1);
	p[0].v[PMA_XMIT_DATA] = 123456;     /* traffic is no error */
	port_init(&p[1], "errs", "0x0000000000000002", 1);
	p[1].v[PMA_LINK_DOWNED] = 1;
	port_init(&p[2], "waits", "0x0000000000000003", 1);
	p[2].v[PMA_XMIT_WAIT] = 5000000;
	p[2].has_xmit_wait_rate = 1;
	p[2].xmit_wait_per_s = 50000;
	port_init(&p[3], "waits-little", "0x0000000000000004", 1);
	p[3].has_xmit_wait_rate = 1;
	p[3].xmit_wait_per_s = 10;
	render(p, 4, MT_PORTS_ERRORS, 1000, &b);
	ck_assert_ptr_null(strstr(b.p, "node=\"clean\""));
	ck_assert_ptr_null(strstr(b.p, "node=\"waits-little\""));
	ck_assert(strstr(b.p, "loom_port_link_downed_total{subnet=\"fab0\",guid=\"0x0000000000000002\","
			 "port=\"1\",node=\"errs\"} 1\n"));
	ck_assert(strstr(b.p, "loom_port_xmit_wait_ticks_total{subnet=\"fab0\",guid=\"0x0000000000000003\","
			 "port=\"1\",node=\"waits\"} 5000000\n"));
	ck_assert(strstr(b.p, "loom_metrics_ports_exported 2\n"));
	mt_buf_free(&b);
	/* Threshold 0: XmitWait selects nothing; "all" selects every port. */
	render(p, 4, MT_PORTS_ERRORS, 0, &b);
	ck_assert_ptr_null(strstr(b.p, "node=\"waits\""));
	mt_buf_free(&b);
	for (int i = 0; i < 4; i++)
		ck_assert(mt_port_selected(&p[i], &all));
}
END_TEST

START_TEST(a_counter_at_all_ones_is_exported_and_flagged_saturated)
{
	struct mt_buf b;
	struct mt_port p;

	port_init(&p, "sat", "0x0000000000000005", 3);
	p.v[PMA_RCV_ERR] = 65535;
	p.v[PMA_SYMBOL_ERR] = 65534;
	render(&p, 1, MT_PORTS_ALL, 0, &b);
	ck_assert(strstr(b.p, "loom_port_rcv_errors_total{subnet=\"fab0\",guid=\"0x0000000000000005\","
			 "port=\"3\",node=\"sat\"} 65535\n"));
	ck_assert(strstr(b.p, "loom_port_counters_saturated{subnet=\"fab0\",guid=\"0x0000000000000005\","
			 "port=\"3\",node=\"sat\",counter=\"rcv_errors\"} 1\n"));
	ck_assert_int_eq(count(b.p, "loom_port_counters_saturated{"), 1);
	mt_buf_free(&b);
}
END_TEST

START_TEST(a_counter_not_read_has_no_series)
{
	struct mt_buf b;
	struct mt_port p;

	port_init(&p, "noxw", "0x0000000000000006", 1);
	p.bits[PMA_XMIT_WAIT] = 0;   /* the PMA does not count PortXmitWait */
	render(&p, 1, MT_PORTS_ALL, 0, &b);
	ck_assert_int_eq(count(b.p, "loom_port_xmit_wait_ticks_total{"), 0);
	ck_assert_int_eq(count(b.p, "loom_port_symbol_errors_total{"), 1);
	mt_buf_free(&b);
}
END_TEST

/* The detail attributes: a series per detail read and not 0, its kind or
 * VL as a label; a port whose PMA has none has no such series. */
START_TEST(detail_counters_are_series_by_kind_and_vl_only_where_read)
{
	struct mt_buf b;
	struct mt_port p[2];
	struct pma_details ds;

	memset(&ds, 0, sizeof(ds));
	for (int d = PMA_D_LOCAL_PHYS_ERR; d < PMA_D_VL_XMIT_WAIT; d++)
		ds.bits[d] = 16;
	ds.v[PMA_D_DLID_MAPPING_ERR] = 5;
	ds.v[PMA_D_SW_HOQ_LIFETIME_DISC] = 9;
	for (int vl = 0; vl < PMA_VLS; vl++) {
		ds.bits[PMA_D_VL_XMIT_WAIT + vl] = 16;
		ds.bits[PMA_D_VL_FC_UPDATE_ERR + vl] = 2;
	}
	ds.v[PMA_D_VL_XMIT_WAIT + 3] = 1234;
	ds.v[PMA_D_VL_FC_UPDATE_ERR + 15] = 3;
	port_init(&p[0], "leaf", "0x0000000000000007", 1);
	p[0].ds = &ds;
	port_init(&p[1], "old", "0x0000000000000008", 1);
	render(p, 2, MT_PORTS_ALL, 0, &b);
	ck_assert_int_eq(count(b.p, "# TYPE loom_port_rcv_error_details_total counter\n"), 1);
	/* Only the counters that are not 0: one series each. */
	ck_assert_int_eq(count(b.p, "\nloom_port_rcv_error_details_total{"), 1);
	ck_assert_int_eq(count(b.p, "\nloom_port_xmit_discard_details_total{"), 1);
	ck_assert_int_eq(count(b.p, "\nloom_port_vl_xmit_wait_ticks_total{"), 1);
	ck_assert_int_eq(count(b.p, "\nloom_port_vl_xmit_flow_ctl_update_errors_total{"), 1);
	ck_assert_int_eq(count(b.p, "node=\"leaf\",kind=\"dlid_mapping\"} 5\n"), 1);
	ck_assert_int_eq(count(b.p, "node=\"leaf\",kind=\"sw_hoq_lifetime_limit\"} 9\n"), 1);
	ck_assert_int_eq(count(b.p, "loom_port_vl_xmit_wait_ticks_total{subnet=\"fab0\",guid=\""
			       "0x0000000000000007\",port=\"1\",node=\"leaf\",vl=\"3\"} 1234\n"), 1);
	ck_assert_int_eq(count(b.p, "node=\"leaf\",vl=\"15\"} 3\n"), 1);
	ck_assert_int_eq(count(b.p, "node=\"old\",kind="), 0);
	ck_assert_int_eq(count(b.p, "node=\"old\",vl="), 0);
	mt_buf_free(&b);
}
END_TEST

/* The rows as daemon/telemetry/store_counters.c writes them (schema 010). */
START_TEST(the_database_rows_render_with_their_json_columns)
{
	sqlite3 *db;
	struct mt_buf b = { 0 };
	struct mt_options o = { .mode = MT_PORTS_ALL };
	char err[256] = "";

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	/* Before any counters table: the families alone. */
	ck_assert_int_eq(metrics_db_render(db, &o, &b, err, sizeof(err)), 0);
	ck_assert(strstr(b.p, "# TYPE loom_port_symbol_errors_total counter"));
	ck_assert_int_eq(count(b.p, "{"), 0);
	mt_buf_free(&b);
	ck_assert_int_eq(sqlite3_exec(db,
		"CREATE TABLE subnets (id INTEGER PRIMARY KEY, name TEXT);"
		"CREATE TABLE counter_reads (subnet_id INTEGER PRIMARY KEY, started REAL, finished REAL,"
		" ports INTEGER, answered INTEGER, mads INTEGER, timeout_ms INTEGER, retries INTEGER,"
		" in_flight INTEGER);"
		"CREATE TABLE port_counters (subnet_id INTEGER, guid TEXT, port INTEGER, description TEXT,"
		" type TEXT, lid INTEGER, read REAL, answered INTEGER, reason TEXT, sampled REAL,"
		" interval_s REAL, sample BLOB, cleared INTEGER, errors INTEGER, xmit_wait_per_s REAL,"
		" xmit_data_per_s REAL, data_per_s REAL);"
		"CREATE TABLE node_names (guid TEXT PRIMARY KEY, name TEXT NOT NULL);"
		"INSERT INTO node_names VALUES ('0x0000000000000012', 'rack2 host9');"
		"INSERT INTO subnets VALUES (1, 'ib0');"
		"INSERT INTO counter_reads VALUES (1, 1700000000.25, 1700000001.5, 2, 1, 6, 200, 3, 2);"
		/* counter_row.h's packing: version 1; SymbolErrorCounter (0), 16
		 * bits, state first, 77, delta 0; PortXmitData (12), 64 bits, 10. */
		"INSERT INTO port_counters VALUES (1, '0x0000000000000011', 2, 'leaf-1', 'switch', 5,"
		" 1700000001.5, 1, '', 1700000001.5, 10, X'010010014D000C40010A00', 0, 0, NULL, NULL,"
		" NULL);"
		"INSERT INTO port_counters VALUES (1, '0x0000000000000012', 1, 'host-9', 'CA', 6,"
		" 1700000001.5, 0, 'no answer to PortCounters after 4 tries of 200 ms', 1700000000,"
		" 10, X'010010010300', 0, 0, NULL, NULL, NULL);",
		NULL, NULL, NULL), SQLITE_OK);
	ck_assert_msg(metrics_db_render(db, &o, &b, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(strstr(b.p, "loom_port_symbol_errors_total{subnet=\"ib0\",guid=\"0x0000000000000011\","
			      "port=\"2\",node=\"leaf-1\"} 77\n"), "%s", b.p);
	ck_assert(strstr(b.p, "node=\"leaf-1\"} 40\n"));
	/* names.node_name_map's name (node_names), else the description */
	ck_assert_msg(strstr(b.p, "node=\"rack2 host9\"") && !strstr(b.p, "host-9"), "%s", b.p);
	ck_assert(strstr(b.p, "loom_counters_read_timestamp_seconds{subnet=\"ib0\"} 1700000001.500\n"));
	ck_assert(strstr(b.p, "loom_counters_read_ports{subnet=\"ib0\",state=\"not_answered\"} 1\n"));
	ck_assert(strstr(b.p, "node=\"rack2 host9\",reason=\"no_answer\"} 1\n"));
	ck_assert_int_eq(count(b.p, "loom_port_symbol_errors_total{"), 1);
	/* No alarm table yet (older than schema 11): the families, no series. */
	ck_assert(strstr(b.p, "# TYPE loom_port_alarm gauge\n"));
	ck_assert_int_eq(count(b.p, "loom_port_alarm{"), 0);
	mt_buf_free(&b);
	ck_assert_int_eq(sqlite3_exec(db,
		"CREATE TABLE port_alarms (subnet_id INTEGER, guid TEXT, port INTEGER, kind TEXT,"
		" since REAL, last REAL, calm INTEGER, why TEXT);"
		"CREATE TABLE switch_port_alarms (switch TEXT, port TEXT, kind TEXT, since REAL,"
		" last REAL, calm INTEGER, why TEXT);"
		"INSERT INTO port_alarms VALUES (1, '0x0000000000000011', 2, 'link_errors', 1, 1, 0, 'x');"
		"INSERT INTO switch_port_alarms VALUES ('leaf1', 'Ethernet0', 'pfc_storm', 1, 1, 0, 'y');",
		NULL, NULL, NULL), SQLITE_OK);
	ck_assert_msg(metrics_db_render(db, &o, &b, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(strstr(b.p, "loom_port_alarm{kind=\"link_errors\",subnet=\"ib0\","
			      "guid=\"0x0000000000000011\",port=\"2\",node=\"leaf-1\"} 1\n"), "%s", b.p);
	ck_assert(strstr(b.p, "loom_switch_port_alarm{kind=\"pfc_storm\",switch=\"leaf1\","
			      "port=\"Ethernet0\"} 1\n"));
	mt_buf_free(&b);
	sqlite3_close(db);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics_text");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, label_values_are_escaped_and_made_utf8);
	tcase_add_test(tc, each_family_has_one_help_and_type_before_all_its_series);
	tcase_add_test(tc, data_counters_are_exported_as_bytes);
	tcase_add_test(tc, a_stale_port_has_no_counters_but_up_0_and_its_reason);
	tcase_add_test(tc, errors_mode_keeps_ports_with_errors_or_congestion);
	tcase_add_test(tc, a_counter_at_all_ones_is_exported_and_flagged_saturated);
	tcase_add_test(tc, a_counter_not_read_has_no_series);
	tcase_add_test(tc, detail_counters_are_series_by_kind_and_vl_only_where_read);
	tcase_add_test(tc, the_database_rows_render_with_their_json_columns);
	suite_add_tcase(s, tc);
	return check_run(s);
}
