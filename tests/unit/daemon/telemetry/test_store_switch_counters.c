/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/telemetry/test_store_switch_counters.c: recording reads of the Ethernet
 * switches' counters (daemon/telemetry/store_switch_counters.c, schema 012)
 * and reading them back (lib/db/switch_counters_db.c), with the read times
 * the test chooses, so that every rate is known exactly: a first sample
 * has no delta, then exact deltas with rate = delta / interval, a counter
 * that went backwards is a reset (a lower bound, no rate), a port in error
 * and a switch that did not answer keep their last counters marked stale
 * with the reason (never zeros), gauges get no delta, ports and switches no
 * longer reported are forgotten, and what is handed to thresholds
 * (`observed`) says the same. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_switch_counters.h"
#include "lib/db/switch_counters_db.h"
#include "lib/util/log.h"
#include "tests/unit/fixtures/check_run.h"

static char dir[64];
static char db_path[128];
static struct store *st;

static void setup(void)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/loom-test-swc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/loom.db", dir);
	log_init("test_store_switch_counters", LOG_LVL_WARNING, LOG_TARGET_STDERR);
	ck_assert_msg((st = store_open(db_path, err, sizeof(err))) != NULL, "%s", err);
}

static void teardown(void)
{
	char cmd[128];

	store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* A read of one switch finished at t: ports as JSON text. */
static json_t *read_of(const char *sw, double t, int answered, const char *reason,
		       const char *ports)
{
	json_t *p = json_loads(ports, 0, NULL);

	ck_assert_ptr_nonnull(p);
	return json_pack("{s:s, s:s, s:f, s:f, s:b, s:s, s:o}", "switch", sw, "plugin", "sonic",
			 "started", t - 0.5, "finished", t, "answered", answered, "reason", reason,
			 "ports", p);
}

static void record(json_t *reads, double now, json_t **observed)
{
	json_t *obs = json_array();

	ck_assert_int_eq(store_record_switch_counters(st, NULL, reads, now, obs), 0);
	json_decref(reads);
	if (observed)
		*observed = obs;
	else
		json_decref(obs);
}

/* The stored port of sw (a new reference), or NULL. */
static json_t *stored(const char *sw, const char *port)
{
	char err[256];
	json_t *all, *p;
	size_t i;

	if (switch_counters_db_read(store_db(st), sw, port, &all, err, sizeof(err)) < 0)
		return NULL;
	json_array_foreach(json_object_get(all, "ports"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "port")), port)) {
			json_incref(p);
			json_decref(all);
			return p;
		}
	json_decref(all);
	return NULL;
}

static const char *state(const json_t *p, const char *name)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(p, "deltas"),
								 name), "state"));
}

static json_int_t delta(const json_t *p, const char *name)
{
	return json_integer_value(json_object_get(json_object_get(json_object_get(p, "deltas"),
								  name), "delta"));
}

static const json_t *rate(const json_t *p, const char *name)
{
	return json_object_get(json_object_get(p, "rates"), name);
}

#define PORT(oct, pfc, err) \
	"{\"counters\": {\"in_octets\": " #oct ", \"pfc_rx_pause.p3\": " #pfc \
	", \"in_errors\": " #err "}, \"bits\": {\"in_octets\": 64, \"pfc_rx_pause.p3\": 64, " \
	"\"in_errors\": 64}, \"gauges\": {\"pfcwd_stormed.q3\": 0}}"

START_TEST(switch_counters_first_sample_has_no_delta_then_exact_deltas_and_rates)
{
	json_t *p, *obs;

	record(json_pack("[o]", read_of("leaf1", 1000, 1, "", "{\"Ethernet0\": " PORT(1000, 7, 5)
				       "}")), 1000, NULL);
	ck_assert_ptr_nonnull(p = stored("leaf1", "Ethernet0"));
	ck_assert_str_eq(state(p, "in_octets"), "first");
	ck_assert_int_eq(json_object_size(json_object_get(p, "rates")), 0);
	ck_assert(json_is_null(json_object_get(p, "interval_s")));
	json_decref(p);

	record(json_pack("[o]", read_of("leaf1", 1010, 1, "", "{\"Ethernet0\": " PORT(51000, 127, 5)
				       "}")), 1010, &obs);
	ck_assert_ptr_nonnull(p = stored("leaf1", "Ethernet0"));
	ck_assert_str_eq(state(p, "in_octets"), "ok");
	ck_assert_int_eq(delta(p, "in_octets"), 50000);
	ck_assert_int_eq(delta(p, "pfc_rx_pause.p3"), 120);
	ck_assert(fabs(json_real_value(rate(p, "in_octets")) - 5000.0) < 1e-9);
	ck_assert(fabs(json_real_value(rate(p, "pfc_rx_pause.p3")) - 12.0) < 1e-9);
	ck_assert(fabs(json_real_value(rate(p, "in_errors"))) < 1e-12);
	ck_assert(fabs(json_real_value(json_object_get(p, "interval_s")) - 10.0) < 1e-9);
	/* the gauge is kept, with no delta */
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "gauges"),
							    "pfcwd_stormed.q3")), 0);
	ck_assert_ptr_null(json_object_get(json_object_get(p, "deltas"), "pfcwd_stormed.q3"));
	json_decref(p);
	/* what thresholds get */
	ck_assert_int_eq(json_array_size(obs), 1);
	p = json_array_get(obs, 0);
	ck_assert_str_eq(json_string_value(json_object_get(p, "port")), "Ethernet0");
	ck_assert(json_is_true(json_object_get(p, "answered")));
	ck_assert_int_eq(delta(p, "pfc_rx_pause.p3"), 120);
	ck_assert(fabs(json_real_value(rate(p, "pfc_rx_pause.p3")) - 12.0) < 1e-9);
	json_decref(obs);
}
END_TEST

START_TEST(switch_counters_a_counter_that_went_backwards_is_a_reset_without_rate)
{
	json_t *p;

	record(json_pack("[o]", read_of("leaf1", 1000, 1, "", "{\"Ethernet0\": " PORT(1000, 7, 50)
				       "}")), 1000, NULL);
	record(json_pack("[o]", read_of("leaf1", 1010, 1, "", "{\"Ethernet0\": " PORT(2000, 7, 3)
				       "}")), 1010, NULL);
	ck_assert_ptr_nonnull(p = stored("leaf1", "Ethernet0"));
	ck_assert_str_eq(state(p, "in_errors"), "reset");
	ck_assert_int_eq(delta(p, "in_errors"), 3);
	ck_assert_ptr_null(rate(p, "in_errors"));
	ck_assert_str_eq(state(p, "in_octets"), "ok");
	json_decref(p);
}
END_TEST

START_TEST(switch_counters_a_port_in_error_and_a_silent_switch_stay_stale_with_the_reason)
{
	json_t *p, *obs;

	record(json_pack("[o]", read_of("leaf1", 1000, 1, "", "{\"Ethernet0\": " PORT(1000, 7, 5)
				       ", \"Ethernet4\": " PORT(9, 9, 9) "}")), 1000, NULL);
	record(json_pack("[o]", read_of("leaf1", 1010, 1, "", "{\"Ethernet0\": {\"error\": "
				       "\"COUNTERS:oid:0x1 field X: 12x is no number\"}, "
				       "\"Ethernet4\": " PORT(10, 9, 9) "}")), 1010, NULL);
	ck_assert_ptr_nonnull(p = stored("leaf1", "Ethernet0"));
	ck_assert(json_is_false(json_object_get(p, "answered")));
	ck_assert(json_is_true(json_object_get(p, "stale")));
	ck_assert_str_eq(json_string_value(json_object_get(p, "reason")),
			 "COUNTERS:oid:0x1 field X: 12x is no number");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "counters"),
							    "in_octets")), 1000);
	ck_assert_int_eq(json_object_size(json_object_get(p, "deltas")), 0);
	ck_assert_int_eq(json_object_size(json_object_get(p, "rates")), 0);
	json_decref(p);

	record(json_pack("[o]", read_of("leaf1", 1020, 0, "PING: no answer within 5000 ms", "{}")),
	       1020, &obs);
	ck_assert_int_eq(json_array_size(obs), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(p = stored("leaf1", i ? "Ethernet4" : "Ethernet0"));
		ck_assert(json_is_true(json_object_get(p, "stale")));
		ck_assert_str_eq(json_string_value(json_object_get(p, "reason")),
				 "PING: no answer within 5000 ms");
		ck_assert(json_integer_value(json_object_get(json_object_get(p, "counters"),
							     "in_octets")) > 0);
		json_decref(p);
		ck_assert(json_is_false(json_object_get(json_array_get(obs, (size_t)i), "answered")));
	}
	json_decref(obs);

	/* back: compared with the last sample it had (Ethernet0's of t=1000) */
	record(json_pack("[o]", read_of("leaf1", 1030, 1, "", "{\"Ethernet0\": " PORT(4000, 7, 5)
				       ", \"Ethernet4\": " PORT(10, 9, 9) "}")), 1030, NULL);
	ck_assert_ptr_nonnull(p = stored("leaf1", "Ethernet0"));
	ck_assert_int_eq(delta(p, "in_octets"), 3000);
	ck_assert(fabs(json_real_value(rate(p, "in_octets")) - 100.0) < 1e-9);
	json_decref(p);
}
END_TEST

START_TEST(switch_counters_forgets_ports_and_switches_no_longer_reported)
{
	char err[256];
	json_t *all, *p;

	record(json_pack("[o, o]", read_of("leaf1", 1000, 1, "", "{\"Ethernet0\": " PORT(1, 1, 1)
					  ", \"Ethernet4\": " PORT(1, 1, 1) "}"),
			 read_of("leaf2", 1000, 1, "", "{\"Ethernet0\": " PORT(1, 1, 1) "}")),
	       1000, NULL);
	record(json_pack("[o]", read_of("leaf1", 1010, 1, "", "{\"Ethernet0\": " PORT(2, 1, 1) "}")),
	       1010, NULL);
	ck_assert_ptr_null(p = stored("leaf1", "Ethernet4"));
	ck_assert_int_eq(switch_counters_db_read(store_db(st), "leaf2", NULL, &all, err,
						 sizeof(err)), -ENOENT);
	ck_assert_int_eq(switch_counters_db_read(store_db(st), NULL, NULL, &all, err, sizeof(err)),
			 0);
	ck_assert_int_eq(json_array_size(json_object_get(all, "switches")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(all, "ports")), 1);
	json_decref(all);
}
END_TEST

START_TEST(switch_counters_db_sorts_ports_naturally_and_says_when_nothing_was_read)
{
	char err[256];
	json_t *all;

	ck_assert_int_eq(switch_counters_db_read(store_db(st), NULL, NULL, &all, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "no switch counters were read yet"), "%s", err);
	record(json_pack("[o]", read_of("leaf1", 1000, 1, "", "{\"Ethernet12\": " PORT(1, 1, 1)
				       ", \"Ethernet4\": " PORT(1, 1, 1) ", \"Ethernet0\": "
				       PORT(1, 1, 1) "}")), 1000, NULL);
	ck_assert_int_eq(switch_counters_db_read(store_db(st), NULL, NULL, &all, err, sizeof(err)),
			 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(all, "ports"), 1), "port")), "Ethernet4");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(all, "ports"), 2), "port")), "Ethernet12");
	json_decref(all);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_switch_counters");
	TCase *tc = tcase_create("store_switch_counters");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, switch_counters_first_sample_has_no_delta_then_exact_deltas_and_rates);
	tcase_add_test(tc, switch_counters_a_counter_that_went_backwards_is_a_reset_without_rate);
	tcase_add_test(tc,
		       switch_counters_a_port_in_error_and_a_silent_switch_stay_stale_with_the_reason);
	tcase_add_test(tc, switch_counters_forgets_ports_and_switches_no_longer_reported);
	tcase_add_test(tc, switch_counters_db_sorts_ports_naturally_and_says_when_nothing_was_read);
	suite_add_tcase(s, tc);
	return check_run(s);
}
