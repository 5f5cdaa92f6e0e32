/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/telemetry/test_store_counters.c: store_record_counters
 * (daemon/telemetry/store_counters.c) packs each port's sample and deltas
 * (schema 013, lib/telemetry/counter_row.h), and what `loomctl counters`
 * reads back (counters_db_read) equals the counters, deltas and rates
 * computed here the plain way (cdelta_of, cdelta_rate), over seeded random
 * samples that take every delta state, counters cleared after a sample and
 * rates from 1e-06 to 1e+21. No timing is checked here (bench/telemetry.sh
 * times it). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_counters.h"
#include "lib/db/counters_db.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "lib/util/log.h"
#include "tests/unit/fixtures/check_run.h"

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

/* One port as counters_read_run gives it, from the one before (prev:
 * NULL the first time): each counter goes up, back (a reset), or stays;
 * some are not read, some change width (the extended counters seen for
 * the first time); a few are cleared after the sample. */
static void port(int i, const struct counters_port *prev, struct counters_port *p)
{
	memset(p, 0, sizeof(*p));
	p->guid = 0x1000 + (uint64_t)i / 4;
	p->port = 1 + (unsigned)i % 4;
	p->lid = (uint16_t)(10 + i / 4);
	p->is_switch = 1;
	p->tries = 1;
	snprintf(p->node, sizeof(p->node), "sw %d", i / 4);
	p->answered = 1;
	for (int k = 0; k < PMA_N_COUNTERS; k++) {
		unsigned bits = pma_counter_bits(k);
		uint64_t pv = prev && prev->s.bits[k] ? prev->s.v[k] : 0;
		uint64_t v;

		if (rnd() % 10 == 0)
			continue;  /* not read this time */
		if (bits == 32 && k != PMA_XMIT_WAIT && rnd() % 3)
			bits = 64;
		if (prev && prev->s.bits[k] && rnd() % 3 == 0)
			v = pv;
		else if (prev && prev->s.bits[k] && rnd() % 2 && pv < value(bits))
			v = pv + (rnd() % 2 ? rnd() % 10 : rnd() % 1000000);
		else
			v = value(bits);
		if (bits < 64 && v > cdelta_max(bits))
			v = cdelta_max(bits);
		p->s.v[k] = v;
		p->s.bits[k] = (uint8_t)bits;
		if (bits <= 32 && rnd() % 8 == 0)
			p->cleared |= 1u << k;
	}
}

/* The counters, deltas and rates objects of the plain way, from old to cur. */
static void expected(const struct counters_port *old, const struct counters_port *cur,
		     double dt, json_t **counters, json_t **deltas, json_t **rates)
{
	*counters = json_object();
	*deltas = json_object();
	*rates = json_object();
	for (int k = 0; k < PMA_N_COUNTERS; k++) {
		const char *name = pma_counter_name(k);
		uint64_t ov = old ? old->s.v[k] : 0;
		struct cdelta c;
		double rate;

		if (!cur->s.bits[k])
			continue;
		if (old && (old->cleared & (1u << k)))
			ov = 0;
		c = cdelta_of(ov, old ? old->s.bits[k] : 0, cur->s.v[k], cur->s.bits[k]);
		json_object_set_new(*counters, name, json_integer((json_int_t)cur->s.v[k]));
		json_object_set_new(*deltas, name, json_pack("{s:s, s:I}", "state",
							     cdelta_state_name(c.state), "delta",
							     (json_int_t)c.delta));
		if (cdelta_rate(&c, dt, &rate) == 0)
			json_object_set_new(*rates, name, json_real(rate));
	}
}

static void check_equal(const json_t *got, const json_t *want, const char *what, int i)
{
	if (!json_equal((json_t *)got, (json_t *)want)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
		char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);

		ck_abort_msg("port %d %s: stored %s, the plain way %s", i, what, g, w);
	}
}

/* The port of guid/port in a counters_db_read answer. */
static const json_t *find(const json_t *ports, uint64_t guid, unsigned port)
{
	char g[24];
	size_t k;
	const json_t *p;

	snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)guid);
	json_array_foreach(ports, k, p)
		if (!strcmp(json_string_value(json_object_get(p, "guid")), g) &&
		    json_integer_value(json_object_get(p, "port")) == (json_int_t)port)
			return p;
	return NULL;
}

static struct store *open_with_subnet(void)
{
	char err[256] = "";
	struct store *st = store_open(db_path, err, sizeof(err));

	ck_assert_msg(st, "%s", err);
	ck_assert_int_eq(store_exec(st, "INSERT INTO subnets (name, created) VALUES ('ib0', 0)"),
			 0);
	return st;
}

static json_t *read_back(struct store *st)
{
	char err[256] = "";
	json_t *out = NULL;

	ck_assert_msg(counters_db_read(store_db(st), "ib0", NULL, 0, &out, err, sizeof(err)) == 0,
		      "%s", err);
	return out;
}

static void answer_of(struct counters_answer *a, struct counters_port *ports, size_t n,
		      double started, double finished)
{
	memset(a, 0, sizeof(*a));
	a->ports = ports;
	a->n_ports = n;
	a->done = (struct counters_done){ .started = started, .finished = finished, .ports = n,
					  .answered = n, .mads = n, .in_flight = 1,
					  .timeout_ms = 200, .retries = 3 };
}

START_TEST(stored_rows_give_back_each_sample_delta_and_rate_the_plain_way)
{
	struct store *st = open_with_subnet();
	/* Four reads: the first sample, one 7.3 s later, one a millisecond
	 * after that (rates up to 1e+21), one two days later (rates down to
	 * 1e-06). */
	const double at[] = { 1795000000.25, 1795000007.55, 1795000007.551, 1795172807.551 };
	const int reads = (int)(sizeof(at) / sizeof(at[0]));
	static struct counters_port prev[N_PORTS], cur[N_PORTS];
	size_t checked = 0, with_rates = 0, from_zero = 0, states[CDELTA_NOT_READ + 1] = { 0 };
	char err[256];

	rnd_state = 0x9e3779b97f4a7c15ULL;
	for (int r = 0; r < reads; r++) {
		struct counters_answer a;
		struct counters_recorded rec = { 99, 0, 0 };
		json_t *out, *ports, *top = NULL;
		double best = -1;

		for (int i = 0; i < N_PORTS; i++)
			port(i, r ? &prev[i] : NULL, &cur[i]);
		answer_of(&a, cur, N_PORTS, at[r] - 0.2, at[r]);
		ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, &a, &rec), 0);
		ck_assert_uint_eq(rec.stale, 0);
		out = read_back(st);
		ports = json_object_get(out, "ports");
		ck_assert_uint_eq(json_array_size(ports), N_PORTS);
		for (int i = 0; i < N_PORTS; i++) {
			const json_t *p = find(ports, cur[i].guid, cur[i].port);
			json_t *c, *d, *rt;
			const char *name;
			json_t *v;

			ck_assert_ptr_nonnull(p);
			expected(r ? &prev[i] : NULL, &cur[i], r ? at[r] - at[r - 1] : 0, &c, &d, &rt);
			check_equal(json_object_get(p, "counters"), c, "counters", i);
			check_equal(json_object_get(p, "deltas"), d, "deltas", i);
			check_equal(json_object_get(p, "rates"), rt, "rates", i);
			with_rates += json_object_size(rt) > 0;
			json_object_foreach(d, name, v) {
				int k = pma_counter_by_name(name);
				const char *state = json_string_value(json_object_get(v, "state"));

				for (int sidx = 0; sidx <= CDELTA_NOT_READ; sidx++)
					states[sidx] += !strcmp(state, cdelta_state_name(sidx));
				from_zero += r && (prev[i].cleared & (1u << k)) && prev[i].s.bits[k] &&
					     prev[i].s.v[k] > cur[i].s.v[k] && !strcmp(state, "ok");
			}
			if (json_is_number(json_object_get(rt, "PortXmitWait")) &&
			    json_number_value(json_object_get(rt, "PortXmitWait")) > best)
				best = json_number_value(json_object_get(rt, "PortXmitWait"));
			json_decref(c);
			json_decref(d);
			json_decref(rt);
			checked++;
		}
		/* The busiest port by PortXmitWait comes first in `top --sort wait`. */
		ck_assert_msg(counters_db_top(store_db(st), "ib0", "wait", 1, &top, err,
					      sizeof(err)) == 0, "%s", err);
		if (best > 0)
			ck_assert_double_eq_tol(json_number_value(json_object_get(json_object_get(
				json_array_get(json_object_get(top, "ports"), 0), "rates"),
				"PortXmitWait")), best, best * 1e-12);
		json_decref(top);
		json_decref(out);
		memcpy(prev, cur, sizeof(prev));
	}
	/* The samples reached what the rows must get right. */
	ck_assert_uint_eq(checked, (size_t)reads * N_PORTS);
	ck_assert_uint_gt(with_rates, N_PORTS);
	ck_assert_uint_gt(from_zero, 5);  /* cleared counters counted from zero */
	for (int sidx = 0; sidx < CDELTA_NOT_READ; sidx++)
		ck_assert_msg(states[sidx] > 10, "state %s seen %zu times", cdelta_state_name(sidx),
			      states[sidx]);
	store_close(st);
}
END_TEST

/* A port that stops answering keeps its last sample, marked stale with the
 * reason (never zeros); a port the next read does not ask for is gone. */
START_TEST(a_silent_port_keeps_its_sample_as_stale_and_an_uncabled_one_is_forgotten)
{
	struct store *st = open_with_subnet();
	struct counters_port ports[3];
	struct counters_answer a;
	struct counters_recorded rec;
	json_t *out, *p;

	rnd_state = 42;
	for (int i = 0; i < 3; i++)
		port(i, NULL, &ports[i]);
	answer_of(&a, ports, 3, 100.0, 100.5);
	ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, &a, NULL), 0);
	ports[1].answered = 0;
	snprintf(ports[1].reason, sizeof(ports[1].reason), "no answer to PortCounters");
	answer_of(&a, ports, 2, 110.0, 110.5);  /* ports[2] no longer asked for */
	a.done.answered = 1;
	ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, &a, &rec), 0);
	ck_assert_uint_eq(rec.stale, 1);
	out = read_back(st);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "ports")), 2);
	ck_assert_ptr_null(find(json_object_get(out, "ports"), ports[2].guid, ports[2].port));
	p = (json_t *)find(json_object_get(out, "ports"), ports[1].guid, ports[1].port);
	ck_assert_ptr_nonnull(p);
	ck_assert(json_is_false(json_object_get(p, "answered")));
	ck_assert(json_is_true(json_object_get(p, "stale")));
	ck_assert_str_eq(json_string_value(json_object_get(p, "reason")),
			 "no answer to PortCounters");
	/* The last sample, as it was read: not zeros. */
	for (int k = 0; k < PMA_N_COUNTERS; k++)
		if (ports[1].s.bits[k])
			ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p,
				"counters"), pma_counter_name(k))), (json_int_t)ports[1].s.v[k]);
	ck_assert_uint_eq(json_object_size(json_object_get(p, "rates")), 0);
	json_decref(out);
	store_close(st);
}
END_TEST

/* One port's details over four reads: the first (no delta), one that moved
 * (exact delta), one that did not ask them (telemetry.details_every: the
 * value carried, delta 0), one that asked again (its delta counts from the
 * last read that asked). The isolation's helper (counters_db_details) and
 * `loomctl counters` say the same; a port whose PMA has none shows none. */
START_TEST(detail_counters_get_deltas_and_are_carried_between_reads_that_skip_them)
{
	struct store *st = open_with_subnet();
	struct counters_port ports[2];
	struct counters_answer a;
	struct counters_db_details d;
	const uint64_t dlid[] = { 5, 8, 0, 12 };
	const enum cdelta_state want[] = { CDELTA_FIRST, CDELTA_OK, CDELTA_CARRIED, CDELTA_OK };
	const uint64_t delta[] = { 0, 3, 0, 4 };
	char guid[24];
	int64_t sid;

	rnd_state = 7;
	port(0, NULL, &ports[0]);
	port(1, NULL, &ports[1]);
	snprintf(guid, sizeof(guid), "0x%016llX", (unsigned long long)ports[0].guid);
	sid = store_subnet_id(st, "ib0");
	ck_assert_int_gt(sid, 0);
	ck_assert_int_eq(counters_db_details(store_db(st), sid, guid, ports[0].port, &d), -ENOENT);
	for (int r = 0; r < 4; r++) {
		json_t *out, *p, *det;

		memset(&ports[0].ds, 0, sizeof(ports[0].ds));
		if (r != 2) {
			ports[0].ds.bits[PMA_D_DLID_MAPPING_ERR] = 16;
			ports[0].ds.v[PMA_D_DLID_MAPPING_ERR] = dlid[r];
			ports[0].ds.bits[PMA_D_VL_XMIT_WAIT + 1] = 16;
			ports[0].ds.v[PMA_D_VL_XMIT_WAIT + 1] = 100u * (unsigned)r;
		}
		answer_of(&a, ports, 2, 100.0 + 10 * r, 100.5 + 10 * r);
		a.details = r == 2 ? 0 : PMA_DA_ALL;
		ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, &a, NULL), 0);
		ck_assert_int_eq(counters_db_details(store_db(st), sid, guid, ports[0].port, &d), 0);
		ck_assert_int_eq(d.answered, 1);
		ck_assert_double_eq(d.sampled, 100.5 + 10 * r);
		ck_assert_uint_eq(d.ds.bits[PMA_D_DLID_MAPPING_ERR], 16);
		ck_assert_uint_eq(d.ds.v[PMA_D_DLID_MAPPING_ERR], r == 2 ? dlid[1] : dlid[r]);
		ck_assert_msg(d.dd[PMA_D_DLID_MAPPING_ERR].state == want[r], "read %d: %s", r,
			      cdelta_state_name(d.dd[PMA_D_DLID_MAPPING_ERR].state));
		ck_assert_uint_eq(d.dd[PMA_D_DLID_MAPPING_ERR].delta, delta[r]);
		ck_assert_uint_eq(d.ds.bits[PMA_D_LOOPING_ERR], 0);
		ck_assert_int_eq(d.dd[PMA_D_LOOPING_ERR].state, CDELTA_NOT_READ);
		out = read_back(st);
		p = (json_t *)find(json_object_get(out, "ports"), ports[0].guid, ports[0].port);
		det = json_object_get(p, "details");
		ck_assert_uint_eq(json_object_size(det), 2);
		ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(det,
				 "PortDLIDMappingErrors"), "delta")), (json_int_t)delta[r]);
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(det,
				 "PortVLXmitWait1"), "state")), cdelta_state_name(want[r]));
		p = (json_t *)find(json_object_get(out, "ports"), ports[1].guid, ports[1].port);
		ck_assert_ptr_null(json_object_get(p, "details"));
		json_decref(out);
	}
	/* Asked and not answered (the PMA refused them): no value, no carry. */
	memset(&ports[0].ds, 0, sizeof(ports[0].ds));
	answer_of(&a, ports, 2, 200.0, 200.5);
	a.details = PMA_DA_ALL;
	ck_assert_int_eq(store_record_counters(st, "ib0", &thresholds, &a, NULL), 0);
	ck_assert_int_eq(counters_db_details(store_db(st), sid, guid, ports[0].port, &d), 0);
	ck_assert_uint_eq(d.ds.bits[PMA_D_DLID_MAPPING_ERR], 0);
	ck_assert_int_eq(d.dd[PMA_D_DLID_MAPPING_ERR].state, CDELTA_NOT_READ);
	ck_assert_int_eq(counters_db_details(store_db(st), sid, guid, 99, &d), -ENOENT);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_counters");
	TCase *tc = tcase_create("store_counters");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, stored_rows_give_back_each_sample_delta_and_rate_the_plain_way);
	tcase_add_test(tc, a_silent_port_keeps_its_sample_as_stale_and_an_uncabled_one_is_forgotten);
	tcase_add_test(tc, detail_counters_get_deltas_and_are_carried_between_reads_that_skip_them);
	suite_add_tcase(s, tc);
	return check_run(s);
}
