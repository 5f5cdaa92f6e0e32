/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_port_history.c: the in-memory history of
 * the ports' reads (lib/telemetry/port_history.c): a port keeps its last
 * `reads` reads, oldest first, with rates, each error counter that moved
 * (two by name, the others summed); the byte bound refuses new ports once
 * reached and counts them; ports of two subnets are apart; new bounds drop
 * what was kept; `since` filters. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/telemetry/port_history.h"
#include "tests/unit/fixtures/check_run.h"

/* A read: data moved by `words` 4-octet words each way, and `sym`, `rcv`,
 * `disc` errors (SymbolErrorCounter, PortRcvErrors, PortXmitDiscards). */
static void row_of(struct counter_row *r, uint64_t words, uint64_t sym, uint64_t rcv,
		   uint64_t disc)
{
	memset(r, 0, sizeof(*r));
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		r->s.bits[c] = 32;
		r->d[c].state = CDELTA_OK;
	}
	r->d[PMA_XMIT_DATA].delta = r->d[PMA_RCV_DATA].delta = words;
	r->d[PMA_SYMBOL_ERR].delta = sym;
	r->d[PMA_RCV_ERR].delta = rcv;
	r->d[PMA_XMIT_DISCARDS].delta = disc;
}

static json_t *errors_at(json_t *h, size_t i)
{
	return json_object_get(json_array_get(h, i), "errors");
}

START_TEST(a_port_keeps_its_last_reads_oldest_first_with_rates_and_errors)
{
	struct port_history *ph = port_history_new(3, 1 << 20);
	struct counter_row r;
	json_t *h;

	for (int i = 0; i < 5; i++) {
		row_of(&r, 250 * (uint64_t)(i + 1), i == 3 ? 7 : 0, i == 3 ? 2 : 0, i == 3 ? 1 : 0);
		ck_assert_int_eq(port_history_add(ph, "ib0", 0x10, 1, 1000 + 10 * i, &r, 10), 0);
	}
	h = port_history_json(ph, "ib0", 0x10, 1, 0);
	ck_assert_uint_eq(json_array_size(h), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 0), "ts")), 1020);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 2), "ts")), 1040);
	/* 1000 words in 10 s: 400 bytes a second */
	ck_assert(json_real_value(json_object_get(json_array_get(h, 1), "rx_bytes_s")) == 400.0);
	ck_assert_int_eq(json_integer_value(json_object_get(errors_at(h, 1), "SymbolErrorCounter")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(errors_at(h, 1), "PortRcvErrors")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(errors_at(h, 1), "other")), 1);
	ck_assert_uint_eq(json_object_size(errors_at(h, 0)), 0);
	json_decref(h);
	h = port_history_json(ph, "ib0", 0x10, 1, 1035);
	ck_assert_uint_eq(json_array_size(h), 1);
	json_decref(h);
	h = port_history_json(ph, "ib1", 0x10, 1, 0);   /* another subnet: none */
	ck_assert_uint_eq(json_array_size(h), 0);
	json_decref(h);
	port_history_free(ph);
}
END_TEST

START_TEST(the_bound_refuses_new_ports_and_counts_them)
{
	size_t cap = 8192 + 10 * PORT_HISTORY_PORT_BYTES(60);   /* buckets, then 10 ports */
	struct port_history *ph = port_history_new(60, cap);
	struct counter_row r;
	json_t *st;
	int refused = 0;

	row_of(&r, 1, 0, 0, 0);
	for (unsigned p = 1; p <= 20; p++)
		refused += port_history_add(ph, "ib0", 0x20, p, 1000, &r, 1) == -ENOSPC;
	ck_assert_int_eq(refused, 10);
	/* a kept port still takes reads */
	ck_assert_int_eq(port_history_add(ph, "ib0", 0x20, 1, 1001, &r, 1), 0);
	st = port_history_stats(ph);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "ports")), 10);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "refused")), 10);
	ck_assert(json_integer_value(json_object_get(st, "bytes")) <= (json_int_t)cap);
	json_decref(st);
	/* new bounds: what was kept goes */
	port_history_set(ph, 5, 1 << 20);
	st = port_history_json(ph, "ib0", 0x20, 1, 0);
	ck_assert_uint_eq(json_array_size(st), 0);
	json_decref(st);
	port_history_free(ph);
}
END_TEST

START_TEST(no_reads_keeps_nothing)
{
	struct port_history *ph = port_history_new(0, 1 << 20);
	struct counter_row r;
	json_t *h;

	row_of(&r, 1, 0, 0, 0);
	ck_assert_int_eq(port_history_add(ph, "ib0", 0x30, 1, 1000, &r, 1), 0);
	h = port_history_json(ph, "ib0", 0x30, 1, 0);
	ck_assert_uint_eq(json_array_size(h), 0);
	json_decref(h);
	port_history_free(ph);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("port_history");
	TCase *tc = tcase_create("port_history");

	tcase_add_test(tc, a_port_keeps_its_last_reads_oldest_first_with_rates_and_errors);
	tcase_add_test(tc, the_bound_refuses_new_ports_and_counts_them);
	tcase_add_test(tc, no_reads_keeps_nothing);
	suite_add_tcase(s, tc);
	return check_run(s);
}
