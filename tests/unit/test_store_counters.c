/* tests/unit/test_store_counters.c: store_record_counters
 * (daemon/telemetry/store_counters.c) writes each port's counters, widths,
 * deltas and rates as the JSON texts that jansson's
 * json_dumps(JSON_COMPACT | JSON_SORT_KEYS) writes for the same objects: the
 * objects are built here the plain way (cdelta_of, cdelta_rate, json_pack)
 * and dumped, and every stored text must equal them byte for byte, over
 * seeded random samples that take every delta state and rates from zero to
 * exponent form. No timing is checked here (bench/telemetry.sh times it). */
#include "autoconf.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_counters.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "lib/util/log.h"
#include "check_run.h"

#define N_PORTS 400

/* The defaults of telemetry.thresholds: the alarms run as in loomd. */
static const struct port_thresholds thresholds = {
	.errors = 1, .ber_exp = 12, .xmit_wait_per_s = 1000000, .link_downed = 1,
	.clear_after = 3, .pfc_pause_per_s = 10000, .pfc_watchdog = 1, .ecn_marked_per_s = 10000,
};

static char dir[64];
static char db_path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/loom-test-stc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/loom.db", dir);
	log_init("test_store_counters", LOG_LVL_WARNING, LOG_TARGET_STDERR);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A value for a counter `bits` wide: small, at saturation, or anywhere
 * (64-bit ones within what a JSON integer holds). */
static uint64_t value(unsigned bits)
{
	uint64_t max = bits >= 64 ? (uint64_t)INT64_MAX : cdelta_max(bits);

	switch (rnd() % 4) {
	case 0: return rnd() % 4;
	case 1: return max;
	default: return rnd() % max;
	}
}

/* One port as counters_read_run gives it. round 1: the first sample; then
 * each counter goes up, back (a reset), or stays; some are not read, some
 * change width (the extended counters seen for the first time). */
static json_t *port(int i, int round, json_t *prev)
{
	char guid[32];
	json_t *c = json_object(), *b = json_object();

	snprintf(guid, sizeof(guid), "0x%016x", 0x1000 + i / 4);
	for (int k = 0; k < PMA_N_COUNTERS; k++) {
		const char *name = pma_counter_name(k);
		unsigned bits = pma_counter_bits(k);
		json_t *pv = prev ? json_object_get(json_object_get(prev, "counters"), name) : NULL;
		uint64_t v;

		if (rnd() % 10 == 0)
			continue;  /* not read this time */
		if (bits == 32 && k != PMA_XMIT_WAIT && rnd() % 3)
			bits = 64;
		if (pv && rnd() % 3 == 0)
			v = (uint64_t)json_integer_value(pv);
		else if (pv && rnd() % 2 && (uint64_t)json_integer_value(pv) < value(bits))
			v = (uint64_t)json_integer_value(pv) + (rnd() % 2 ? rnd() % 10 : rnd() % 1000000);
		else
			v = value(bits);
		if (bits < 64 && v > cdelta_max(bits))
			v = cdelta_max(bits);
		json_object_set_new(c, name, json_integer((json_int_t)v));
		json_object_set_new(b, name, json_integer((json_int_t)bits));
	}
	(void)round;
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:i, s:o, s:o}", "guid", guid, "node",
			 "sw", "type", "switch", "port", 1 + i % 4, "lid", 10 + i / 4, "answered", 1,
			 "tries", 1, "counters", c, "bits", b);
}

static json_t *done_of(double started, double finished, size_t n)
{
	return json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I}", "started", started,
			 "finished", finished, "ports", (json_int_t)n, "answered", (json_int_t)n,
			 "mads", (json_int_t)n, "in_flight", (json_int_t)1, "timeout_ms",
			 (json_int_t)200, "retries", (json_int_t)3);
}

static char *dump(const json_t *o)
{
	char *t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);

	ck_assert_ptr_nonnull(t);
	return t;
}

/* The deltas and rates objects of the plain way, from old to cur. */
static void expected(const json_t *old, const json_t *cur, double dt, char **deltas,
		     char **rates)
{
	json_t *d = json_object(), *r = json_object();
	const json_t *oc = old ? json_object_get(old, "counters") : NULL;
	const json_t *ob = old ? json_object_get(old, "bits") : NULL;
	const json_t *nc = json_object_get(cur, "counters"), *nb = json_object_get(cur, "bits");

	for (int k = 0; k < PMA_N_COUNTERS; k++) {
		const char *name = pma_counter_name(k);
		json_t *ov = json_object_get(oc, name), *nv = json_object_get(nc, name);
		struct cdelta c;
		double rate;

		if (!json_is_integer(nv))
			continue;
		c = cdelta_of((uint64_t)json_integer_value(ov),
			      json_is_integer(ov) ?
			      (unsigned)json_integer_value(json_object_get(ob, name)) : 0,
			      (uint64_t)json_integer_value(nv),
			      (unsigned)json_integer_value(json_object_get(nb, name)));
		json_object_set_new(d, name, json_pack("{s:s, s:I}", "state",
						       cdelta_state_name(c.state), "delta",
						       (json_int_t)c.delta));
		if (cdelta_rate(&c, dt, &rate) == 0)
			json_object_set_new(r, name, json_real(rate));
	}
	*deltas = dump(d);
	*rates = dump(r);
	json_decref(d);
	json_decref(r);
}

static sqlite3_stmt *row_stmt(struct store *st)
{
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_prepare_v2(store_db(st), "SELECT counters, bits, deltas, rates "
					    "FROM port_counters WHERE guid = ? AND port = ?", -1,
					    &s, NULL), SQLITE_OK);
	return s;
}

static const char *col(sqlite3_stmt *s, int c)
{
	const char *t = (const char *)sqlite3_column_text(s, c);

	return t ? t : "(null)";
}

START_TEST(stored_texts_equal_jansson_dumps_of_the_same_objects)
{
	char err[256] = "";
	struct store *st = store_open(db_path, err, sizeof(err));
	/* Four reads: the first sample, one 7.3 s later, one a millisecond
	 * after that (rates up to 1e+21: jansson's exponent form), one two
	 * days later (small deltas: rates down to 1e-06, "1e-6" in jansson's). */
	const double at[] = { 1795000000.25, 1795000007.55, 1795000007.551, 1795172807.551 };
	const int reads = (int)(sizeof(at) / sizeof(at[0]));
	json_t *prev = NULL;
	size_t checked = 0, with_rates = 0, exponents = 0, negative = 0;

	ck_assert_msg(st, "%s", err);
	ck_assert_int_eq(store_exec(st, "INSERT INTO subnets (name, created) VALUES ('ib0', 0)"),
			 0);
	rnd_state = 0x9e3779b97f4a7c15ULL;
	for (int r = 0; r < reads; r++) {
		json_t *ports = json_array(), *done = done_of(at[r] - 0.2, at[r], N_PORTS);
		sqlite3_stmt *s;
		struct counters_recorded rec = { 99, 0, 0 };

		for (int i = 0; i < N_PORTS; i++)
			json_array_append_new(ports, port(i, r, prev ? json_array_get(prev, i) : NULL));
		ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, done, ports, &rec), 0);
		ck_assert_uint_eq(rec.stale, 0);
		s = row_stmt(st);
		for (int i = 0; i < N_PORTS; i++) {
			const json_t *p = json_array_get(ports, i);
			char *c = dump(json_object_get(p, "counters"));
			char *b = dump(json_object_get(p, "bits"));
			char *d, *rt;

			expected(prev ? json_array_get(prev, i) : NULL, p,
				 prev ? at[r] - at[r - 1] : 0, &d, &rt);
			sqlite3_bind_text(s, 1, json_string_value(json_object_get(p, "guid")), -1,
					  SQLITE_STATIC);
			sqlite3_bind_int(s, 2, (int)json_integer_value(json_object_get(p, "port")));
			ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
			ck_assert_str_eq(col(s, 0), c);
			ck_assert_str_eq(col(s, 1), b);
			ck_assert_str_eq(col(s, 2), d);
			ck_assert_str_eq(col(s, 3), rt);
			if (strcmp(rt, "{}"))
				with_rates++;
			if (strstr(rt, "e2") || strstr(rt, "e1"))
				exponents++;
			if (strstr(rt, "e-"))
				negative++;
			sqlite3_reset(s);
			checked++;
			free(c);
			free(b);
			free(d);
			free(rt);
		}
		sqlite3_finalize(s);
		json_decref(done);
		json_decref(prev);
		prev = ports;
	}
	json_decref(prev);
	/* The samples reached what the texts must get right. */
	ck_assert_uint_eq(checked, (size_t)reads * N_PORTS);
	ck_assert_uint_gt(with_rates, N_PORTS);
	ck_assert_uint_gt(exponents, 10);
	ck_assert_uint_gt(negative, 10);
	store_close(st);
}
END_TEST

/* Counters that are not a flat object of integers (not what the reader
 * sends, but what it could) are stored as jansson dumps them. */
START_TEST(odd_counters_are_stored_as_jansson_dumps_them)
{
	char err[256] = "";
	struct store *st = store_open(db_path, err, sizeof(err));
	json_t *ports = json_array(), *done = done_of(100.0, 100.5, 2);
	json_t *odd = json_pack("{s:s, s:i, s:f}", "PortXmitWait", "many", "Quote\"d", 3,
				"VL15Dropped", 1.5);
	json_t *empty = json_object(), *bits = json_pack("{s:i}", "PortXmitWait", 32);
	sqlite3_stmt *s;
	char *want;

	ck_assert_msg(st, "%s", err);
	ck_assert_int_eq(store_exec(st, "INSERT INTO subnets (name, created) VALUES ('ib0', 0)"),
			 0);
	json_array_append_new(ports, json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:O, s:O}", "guid",
					       "0x1", "node", "a", "type", "CA", "port", 1, "lid",
					       1, "answered", 1, "counters", odd, "bits", bits));
	json_array_append_new(ports, json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:O, s:O}", "guid",
					       "0x2", "node", "b", "type", "CA", "port", 1, "lid",
					       2, "answered", 1, "counters", empty, "bits", empty));
	ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, done, ports, NULL), 0);
	s = row_stmt(st);
	sqlite3_bind_text(s, 1, "0x1", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, 1);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	want = dump(odd);
	ck_assert_str_eq(col(s, 0), want);
	free(want);
	ck_assert_str_eq(col(s, 2), "{}");  /* no integer counter: no delta */
	sqlite3_reset(s);
	sqlite3_bind_text(s, 1, "0x2", -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_str_eq(col(s, 0), "{}");
	ck_assert_str_eq(col(s, 1), "{}");
	ck_assert_str_eq(col(s, 3), "{}");
	sqlite3_finalize(s);
	json_decref(odd);
	json_decref(empty);
	json_decref(bits);
	json_decref(ports);
	json_decref(done);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_counters");
	TCase *tc = tcase_create("store_counters");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, stored_texts_equal_jansson_dumps_of_the_same_objects);
	tcase_add_test(tc, odd_counters_are_stored_as_jansson_dumps_them);
	suite_add_tcase(s, tc);
	return check_run(s);
}
