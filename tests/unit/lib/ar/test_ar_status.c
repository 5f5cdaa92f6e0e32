/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/ar/test_ar_status.c: what `loomctl ar status` makes of one
 * switch's ARInfo probe (lib/ar/ar_status.c), and how a probe is stored and
 * read back with its capability-change events (daemon/ar/store_ar.c,
 * lib/db/ar_status_db.c). The "supported" path needs no NVIDIA switch: the
 * answers are ARInfo blocks built with lib/ar/ar_mad.c's encoder. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_status.h"
#include "daemon/core/store.h"
#include "daemon/ar/store_ar.h"
#include "lib/db/ar_status_db.h"
#include "tests/unit/fixtures/check_run.h"

/* ---- helpers ------------------------------------------------------------------ */

static uint8_t block[AR_MAD_DATA_LEN];

/* The switch object for an answered probe carrying `in`. */
static json_t *answered_with(const struct ar_mad_info *in)
{
	char err[128];
	struct ar_status_probe p = { .guid = 0x0002c90300001234ULL, .desc = "leaf-1", .lid = 7,
				     .answered = 1, .data = block, .tries = 1, .timeout_ms = 200 };

	ck_assert_int_eq(ar_mad_info_encode(in, block, sizeof(block), err, sizeof(err)), 0);
	return ar_status_switch(&p);
}

static json_t *unanswered(unsigned status, int answered, unsigned tries, unsigned timeout_ms)
{
	struct ar_status_probe p = { .guid = 0x10, .desc = "spine-1", .lid = 3,
				     .answered = answered, .mad_status = status, .tries = tries,
				     .timeout_ms = timeout_ms };

	return ar_status_switch(&p);
}

static long long jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	ck_assert_msg(json_is_integer(v), "%s is not an integer", key);
	return (long long)json_integer_value(v);
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	ck_assert_msg(s != NULL, "%s is not a string", key);
	return s;
}

/* ---- one probe ---------------------------------------------------------------- */

START_TEST(an_answered_block_with_groups_is_supported_with_its_capacity_and_enable)
{
	struct ar_mad_info in = { .e = 1, .group_cap = 1024, .group_top = 99,
				  .group_table_cap = 2, .sub_grps_supported = 4,
				  .by_sl_cap = 1, .by_sl_en = 1, .enable_by_sl_mask = 0x0003,
				  .fr_enabled = 1 };
	json_t *o = answered_with(&in), *caps;
	char want[64];

	ck_assert_ptr_nonnull(o);
	ck_assert(json_is_true(json_object_get(o, "supported")));
	ck_assert(json_is_true(json_object_get(o, "enabled")));
	ck_assert_int_eq(jint(o, "group_cap"), in.group_cap);
	/* group_top is the index of the highest enabled group. */
	ck_assert_int_eq(jint(o, "groups_used"), in.group_top + 1);
	ck_assert_int_eq(jint(o, "mad_status"), 0);
	ck_assert_int_eq(jint(o, "lid"), 7);
	ck_assert_str_eq(jstr(o, "guid"), "0x0002c90300001234");
	caps = json_object_get(o, "caps");
	ck_assert(json_is_object(caps));
	ck_assert_int_eq(jint(caps, "enable_by_sl_mask"), in.enable_by_sl_mask);
	ck_assert_int_eq(jint(caps, "group_table_cap"), in.group_table_cap);
	ck_assert(json_is_true(json_object_get(caps, "by_sl_en")));
	ck_assert(json_is_true(json_object_get(caps, "fr_enabled")));
	snprintf(want, sizeof(want), "%u groups x %u tables", in.group_cap, in.group_table_cap);
	ck_assert_msg(strstr(jstr(o, "reason"), want), "%s", jstr(o, "reason"));
	snprintf(want, sizeof(want), "SLs 0x%04x", in.enable_by_sl_mask);
	ck_assert_msg(strstr(jstr(o, "reason"), want), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

START_TEST(ar_capable_but_disabled_uses_no_groups)
{
	struct ar_mad_info in = { .e = 0, .group_cap = 512, .group_top = 7, .group_table_cap = 1 };
	json_t *o = answered_with(&in);

	ck_assert(json_is_true(json_object_get(o, "supported")));
	ck_assert(json_is_false(json_object_get(o, "enabled")));
	ck_assert_int_eq(jint(o, "groups_used"), 0);
	ck_assert_int_eq(jint(o, "group_cap"), in.group_cap);
	ck_assert_msg(strstr(jstr(o, "reason"), "AR disabled"), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

START_TEST(an_answer_with_group_cap_0_is_unsupported_but_keeps_its_block)
{
	struct ar_mad_info in = { .e = 0, .group_cap = 0 };
	json_t *o = answered_with(&in);

	ck_assert(json_is_false(json_object_get(o, "supported")));
	ck_assert(json_is_false(json_object_get(o, "enabled")));
	ck_assert_int_eq(jint(o, "group_cap"), 0);
	ck_assert(json_is_object(json_object_get(o, "caps")));
	ck_assert_msg(strstr(jstr(o, "reason"), "group_cap 0"), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

START_TEST(no_answer_is_unsupported_and_leaves_enable_and_groups_unknown)
{
	unsigned tries = 4, timeout = 150;
	json_t *o = unanswered(0, 0, tries, timeout);
	char want[64];

	ck_assert(json_is_false(json_object_get(o, "supported")));
	ck_assert(json_is_null(json_object_get(o, "enabled")));
	ck_assert(json_is_null(json_object_get(o, "groups_used")));
	ck_assert(json_is_null(json_object_get(o, "group_cap")));
	ck_assert(json_is_null(json_object_get(o, "mad_status")));
	ck_assert(json_is_null(json_object_get(o, "caps")));
	ck_assert_msg(strstr(jstr(o, "reason"), "no answer to ARInfo (vendor attribute 0xFF20)"),
		      "%s", jstr(o, "reason"));
	snprintf(want, sizeof(want), "%u tries of %u ms", tries, timeout);
	ck_assert_msg(strstr(jstr(o, "reason"), want), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

START_TEST(tries_the_local_port_timed_out_are_said_so_not_as_waited_out)
{
	struct ar_status_probe p = { .guid = 0x10, .desc = "spine-1", .tries = 2,
				     .timeout_ms = 200, .local_timeouts = 2 };
	json_t *o = ar_status_switch(&p);
	char want[96];

	ck_assert(json_is_false(json_object_get(o, "supported")));
	ck_assert(json_is_null(json_object_get(o, "enabled")));
	snprintf(want, sizeof(want), "in %u tries: the local port reported %u timed out",
		 p.tries, p.local_timeouts);
	ck_assert_msg(strstr(jstr(o, "reason"), want), "%s", jstr(o, "reason"));
	ck_assert_msg(!strstr(jstr(o, "reason"), "ms"), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

START_TEST(an_unsupported_attribute_status_is_unsupported_and_not_enabled)
{
	/* IBA 13.4.7: status bits 4:2 = 3, "method/attribute unsupported". */
	unsigned st = 3u << 2;
	json_t *o = unanswered(st, 1, 1, 200);
	char want[64];

	ck_assert(json_is_false(json_object_get(o, "supported")));
	ck_assert(json_is_false(json_object_get(o, "enabled")));
	ck_assert_int_eq(jint(o, "mad_status"), st);
	snprintf(want, sizeof(want), "status 0x%04x: unsupported method/attribute", st);
	ck_assert_str_eq(jstr(o, "reason"), want);
	json_decref(o);
}
END_TEST

START_TEST(another_error_status_leaves_the_capability_unknown)
{
	unsigned st = 7u << 2;  /* "invalid value in an attribute field" */
	json_t *o = unanswered(st, 1, 1, 200);

	ck_assert(json_is_false(json_object_get(o, "supported")));
	ck_assert(json_is_null(json_object_get(o, "enabled")));
	ck_assert_msg(strstr(jstr(o, "reason"), "capability unknown"), "%s", jstr(o, "reason"));
	json_decref(o);
}
END_TEST

/* ---- stored probes ------------------------------------------------------------ */

static char dir[64], path[128];
static struct store *st;

static void db_setup(void)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/loom-test-ar.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/loom.db", dir);
	st = store_open(path, err, sizeof(err));
	ck_assert_msg(st != NULL, "%s", err);
	ck_assert_int_eq(sqlite3_exec(store_db(st), "INSERT INTO subnets (name, created) VALUES "
				      "('ib0', 1); INSERT INTO sweeps (subnet_id, started, finished, "
				      "status) SELECT id, 1, 2, 'ok' FROM subnets WHERE name = 'ib0'", NULL, NULL, NULL), SQLITE_OK);
}

static void db_teardown(void)
{
	char cmd[160];

	store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static json_t *probe_at(double t, size_t n)
{
	return json_pack("{s:f, s:f, s:I, s:I, s:i, s:i, s:i}", "started", t - 0.5, "finished", t,
			 "switches", (json_int_t)n, "smps", (json_int_t)(4 * n), "timeout_ms", 200,
			 "retries", 3, "in_flight", 64);
}

static long events(const char *kind, const char *severity)
{
	sqlite3_stmt *s;
	long n;

	ck_assert_int_eq(sqlite3_prepare_v2(store_db(st), "SELECT count(*) FROM events WHERE "
					    "kind = ? AND severity LIKE ?", -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(s, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, severity ? severity : "%", -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

START_TEST(a_stored_probe_reads_back_as_probed_and_first_findings_are_events)
{
	struct ar_mad_info in = { .e = 1, .group_cap = 256, .group_top = 3, .group_table_cap = 1 };
	json_t *sw = json_pack("[o, o]", answered_with(&in), unanswered(0, 0, 4, 200));
	json_t *probe = probe_at(100, json_array_size(sw)), *out = NULL, *row;
	size_t n_events = 0, i;
	char err[256];

	ck_assert_int_eq(store_record_ar(st, "ib0", probe, sw, &n_events), 0);
	ck_assert_uint_eq(n_events, json_array_size(sw));
	ck_assert_int_eq(events("ar_supported", NULL), 1);
	ck_assert_int_eq(events("ar_unsupported", NULL), 1);
	ck_assert_int_eq(ar_db_status(store_db(st), NULL, &out, err, sizeof(err)), 0);
	ck_assert_str_eq(jstr(out, "subnet"), "ib0");
	ck_assert_int_eq(jint(out, "supported"), 1);
	ck_assert_int_eq(jint(out, "unsupported"), 1);
	ck_assert_int_eq(jint(json_object_get(out, "probe"), "smps"),
			 jint(probe, "smps"));
	ck_assert_uint_eq(json_array_size(json_object_get(out, "switches")), json_array_size(sw));
	/* Every stored switch reads back as the probe made it (sorted by desc). */
	json_array_foreach(json_object_get(out, "switches"), i, row) {
		const json_t *want = NULL, *w;
		size_t j;

		json_array_foreach(sw, j, w)
			if (!strcmp(jstr(w, "guid"), jstr(row, "guid")))
				want = w;
		ck_assert_ptr_nonnull(want);
		ck_assert_msg(json_equal((json_t *)want, row), "%s", jstr(row, "guid"));
	}
	json_decref(out);
	json_decref(probe);
	json_decref(sw);
}
END_TEST

START_TEST(an_unchanged_probe_adds_no_event_and_losing_ar_is_a_warning)
{
	struct ar_mad_info in = { .e = 1, .group_cap = 256, .group_top = 3, .group_table_cap = 1 };
	json_t *sw = json_pack("[o]", answered_with(&in)), *probe = probe_at(100, 1);
	json_t *lost = json_pack("[o]", unanswered(0, 0, 4, 200)), *out = NULL;
	size_t n_events = 0;
	char err[256];

	/* The same GUID in both: unanswered() uses another; give it leaf-1's. */
	json_object_set(json_array_get(lost, 0), "guid", json_object_get(json_array_get(sw, 0),
									 "guid"));
	ck_assert_int_eq(store_record_ar(st, "ib0", probe, sw, &n_events), 0);
	json_decref(probe);
	probe = probe_at(200, 1);
	ck_assert_int_eq(store_record_ar(st, "ib0", probe, sw, &n_events), 0);
	ck_assert_uint_eq(n_events, 0);
	json_decref(probe);
	probe = probe_at(300, 1);
	ck_assert_int_eq(store_record_ar(st, "ib0", probe, lost, &n_events), 0);
	ck_assert_uint_eq(n_events, 1);
	ck_assert_int_eq(events("ar_unsupported", "warning"), 1);
	ck_assert_int_eq(ar_db_status(store_db(st), "ib0", &out, err, sizeof(err)), 0);
	ck_assert_int_eq(jint(out, "supported"), 0);
	ck_assert_int_eq(jint(out, "unsupported"), 1);
	json_decref(out);
	json_decref(probe);
	json_decref(sw);
	json_decref(lost);
}
END_TEST

START_TEST(a_switch_gone_from_the_fabric_is_dropped_and_an_unprobed_subnet_is_not_found)
{
	json_t *two = json_pack("[o, o]", unanswered(0, 0, 1, 10), unanswered(0, 0, 1, 10));
	json_t *one = json_pack("[o]", unanswered(0, 0, 1, 10)), *probe, *out = NULL;
	char err[256];

	ck_assert_int_eq(ar_db_status(store_db(st), "ib0", &out, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "not been probed"), "%s", err);
	json_object_set_new(json_array_get(two, 1), "guid", json_string("0x0000000000000011"));
	probe = probe_at(100, 2);
	ck_assert_int_eq(store_record_ar(st, "ib0", probe, two, NULL), 0);
	json_decref(probe);
	probe = probe_at(200, 1);
	ck_assert_int_eq(store_record_ar(st, "ib0", probe, one, NULL), 0);
	ck_assert_int_eq(ar_db_status(store_db(st), "ib0", &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "switches")), 1);
	ck_assert_int_eq(store_record_ar(st, "no-such-subnet", probe, one, NULL), -ENOENT);
	json_decref(out);
	json_decref(probe);
	json_decref(one);
	json_decref(two);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ar_status");
	TCase *tc = tcase_create("probe");
	TCase *db = tcase_create("store");

	tcase_add_test(tc, an_answered_block_with_groups_is_supported_with_its_capacity_and_enable);
	tcase_add_test(tc, ar_capable_but_disabled_uses_no_groups);
	tcase_add_test(tc, an_answer_with_group_cap_0_is_unsupported_but_keeps_its_block);
	tcase_add_test(tc, no_answer_is_unsupported_and_leaves_enable_and_groups_unknown);
	tcase_add_test(tc, tries_the_local_port_timed_out_are_said_so_not_as_waited_out);
	tcase_add_test(tc, an_unsupported_attribute_status_is_unsupported_and_not_enabled);
	tcase_add_test(tc, another_error_status_leaves_the_capability_unknown);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(db, db_setup, db_teardown);
	tcase_add_test(db, a_stored_probe_reads_back_as_probed_and_first_findings_are_events);
	tcase_add_test(db, an_unchanged_probe_adds_no_event_and_losing_ar_is_a_warning);
	tcase_add_test(db, a_switch_gone_from_the_fabric_is_dropped_and_an_unprobed_subnet_is_not_found);
	suite_add_tcase(s, db);
	return check_run(s);
}
