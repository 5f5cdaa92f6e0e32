/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_counter_row.c: a port's counters packed for the
 * port_counters table (lib/telemetry/counter_row.c): packing loses nothing,
 * bytes that are not a packed row are refused, and the JSON views show only
 * counters with a value, with rates only for exact deltas. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/telemetry/counter_row.h"
#include "tests/unit/fixtures/check_run.h"

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void random_row(struct counter_row *r)
{
	static const unsigned widths[] = { 4, 8, 16, 32, 64 };

	memset(r, 0, sizeof(*r));
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		unsigned bits = widths[rnd() % 5];

		r->d[c].state = CDELTA_NOT_READ;
		if (rnd() % 5 == 0)
			continue;
		r->s.bits[c] = (uint8_t)bits;
		r->s.v[c] = rnd() % 3 ? rnd() & cdelta_max(bits) : cdelta_max(bits);
		r->d[c].state = (enum cdelta_state)(rnd() % CDELTA_NOT_READ);
		r->d[c].delta = rnd() % 2 ? rnd() : rnd() % 100;
	}
	for (int d = 0; d < PMA_N_DETAILS; d++) {
		unsigned bits = pma_detail_bits(d);

		r->dd[d].state = CDELTA_NOT_READ;
		if (rnd() % 3 == 0)
			continue;
		r->ds.bits[d] = (uint8_t)bits;
		r->ds.v[d] = rnd() & cdelta_max(bits);
		r->dd[d].state = (enum cdelta_state)(rnd() % (CDELTA_CARRIED + 1));
		if (r->dd[d].state == CDELTA_NOT_READ)
			r->dd[d].state = CDELTA_CARRIED;
		r->dd[d].delta = rnd() % 1000;
	}
}

START_TEST(packed_rows_unpack_to_the_same_counters_and_deltas)
{
	for (int i = 0; i < 10000; i++) {
		struct counter_row r, back;
		uint8_t buf[COUNTER_ROW_MAX];
		size_t n;

		random_row(&r);
		n = counter_row_pack(&r, buf);
		ck_assert_uint_le(n, COUNTER_ROW_MAX);
		ck_assert_int_eq(counter_row_unpack(buf, n, &back), 0);
		for (int c = 0; c < PMA_N_COUNTERS; c++) {
			ck_assert_uint_eq(back.s.bits[c], r.s.bits[c]);
			if (!r.s.bits[c]) {
				ck_assert_int_eq(back.d[c].state, CDELTA_NOT_READ);
				continue;
			}
			ck_assert_uint_eq(back.s.v[c], r.s.v[c]);
			ck_assert_uint_eq(back.d[c].delta, r.d[c].delta);
			ck_assert_int_eq(back.d[c].state, r.d[c].state);
		}
		for (int d = 0; d < PMA_N_DETAILS; d++) {
			ck_assert_uint_eq(back.ds.bits[d], r.ds.bits[d]);
			if (!r.ds.bits[d]) {
				ck_assert_int_eq(back.dd[d].state, CDELTA_NOT_READ);
				continue;
			}
			ck_assert_uint_eq(back.ds.v[d], r.ds.v[d]);
			ck_assert_uint_eq(back.dd[d].delta, r.dd[d].delta);
			ck_assert_int_eq(back.dd[d].state, r.dd[d].state);
		}
		/* Every shorter prefix but the whole counters is refused or
		 * is a row with fewer counters, never read past. */
		ck_assert_int_eq(counter_row_unpack(buf, 0, &back), -EINVAL);
	}
}
END_TEST

START_TEST(bytes_that_are_no_packed_row_are_refused)
{
	/* SymbolErrorCounter (0), 16 bits, ok, 77, delta 5. */
	const uint8_t good[] = { 1, 0, 16, 0, 77, 5 };
	struct {
		const char *why;
		uint8_t b[16];
		size_t n;
	} bad[] = {
		{ "another version", { 2, 0, 16, 0, 77, 5 }, 6 },
		{ "cut in a counter's head", { 1, 0, 16 }, 3 },
		{ "cut in a varint", { 1, 0, 16, 0, 0x80 }, 5 },
		{ "no delta", { 1, 0, 16, 0, 77 }, 5 },
		{ "a value past its width", { 1, 0, 4, 0, 16, 0 }, 6 },
		{ "width 0", { 1, 0, 0, 0, 0, 0 }, 6 },
		{ "width 65", { 1, 0, 65, 0, 0, 0 }, 6 },
		{ "an unknown counter", { 1, PMA_N_COUNTERS, 8, 0, 0, 0 }, 6 },
		{ "below the details", { 1, COUNTER_ROW_DETAIL - 1, 8, 0, 0, 0 }, 6 },
		{ "past the details", { 1, COUNTER_ROW_DETAIL + PMA_N_DETAILS, 8, 0, 0, 0 }, 6 },
		{ "a detail wider than 16 bits", { 1, COUNTER_ROW_DETAIL, 17, 0, 0, 0 }, 6 },
		{ "a detail before a counter", { 1, COUNTER_ROW_DETAIL, 16, 0, 0, 0, 0, 16, 0, 0, 0 },
		  11 },
		{ "an unknown state", { 1, 0, 8, 9, 0, 0 }, 6 },
		{ "counters out of order", { 1, 2, 8, 0, 0, 0, 1, 8, 0, 0, 0 }, 11 },
		{ "a counter twice", { 1, 2, 8, 0, 0, 0, 2, 8, 0, 0, 0 }, 11 },
	};
	struct counter_row r;

	ck_assert_int_eq(counter_row_unpack(good, sizeof(good), &r), 0);
	ck_assert_uint_eq(r.s.v[PMA_SYMBOL_ERR], 77);
	ck_assert_uint_eq(r.d[PMA_SYMBOL_ERR].delta, 5);
	ck_assert_int_eq(counter_row_unpack(NULL, 0, &r), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(counter_row_unpack(bad[i].b, bad[i].n, &r) == -EINVAL,
			      "%s was taken", bad[i].why);
}
END_TEST

/* A row the version before the details wrote (bytes as it packed them:
 * SymbolErrorCounter 77 delta 5, PortXmitData 64 bits 1000 delta 300)
 * reads back with the same counters and no detail; a new row with
 * PortDLIDMappingErrors 5 (delta 5) and PortVLXmitWait3 2 (carried) reads
 * back with them and shows them in its details view only. */
START_TEST(rows_without_details_still_decode_and_details_round_trip)
{
	const uint8_t old[] = { 1, 0, 16, 0, 77, 5, 12, 64, 0, 0xe8, 0x07, 0xac, 0x02 };
	struct counter_row r, back;
	uint8_t buf[COUNTER_ROW_MAX];
	json_t *d, *c;
	size_t n;

	ck_assert_int_eq(counter_row_unpack(old, sizeof(old), &r), 0);
	ck_assert_uint_eq(r.s.v[PMA_SYMBOL_ERR], 77);
	ck_assert_uint_eq(r.s.v[PMA_XMIT_DATA], 1000);
	ck_assert_uint_eq(r.d[PMA_XMIT_DATA].delta, 300);
	for (int k = 0; k < PMA_N_DETAILS; k++) {
		ck_assert_uint_eq(r.ds.bits[k], 0);
		ck_assert_int_eq(r.dd[k].state, CDELTA_NOT_READ);
	}
	d = counter_row_details_json(&r);
	ck_assert_uint_eq(json_object_size(d), 0);
	json_decref(d);
	/* Packed again without details, it is the same bytes. */
	ck_assert_uint_eq(counter_row_pack(&r, buf), sizeof(old));
	ck_assert_mem_eq(buf, old, sizeof(old));

	r.ds.bits[PMA_D_DLID_MAPPING_ERR] = 16;
	r.ds.v[PMA_D_DLID_MAPPING_ERR] = 5;
	r.dd[PMA_D_DLID_MAPPING_ERR] = (struct cdelta){ CDELTA_OK, 5 };
	r.ds.bits[PMA_D_VL_XMIT_WAIT + 3] = 16;
	r.ds.v[PMA_D_VL_XMIT_WAIT + 3] = 2;
	r.dd[PMA_D_VL_XMIT_WAIT + 3] = (struct cdelta){ CDELTA_CARRIED, 0 };
	n = counter_row_pack(&r, buf);
	ck_assert_int_eq(counter_row_unpack(buf, n, &back), 0);
	ck_assert_uint_eq(back.ds.v[PMA_D_DLID_MAPPING_ERR], 5);
	ck_assert_int_eq(back.dd[PMA_D_VL_XMIT_WAIT + 3].state, CDELTA_CARRIED);
	d = counter_row_details_json(&back);
	ck_assert_uint_eq(json_object_size(d), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(d,
			 "PortDLIDMappingErrors"), "delta")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d,
			 "PortVLXmitWait3"), "state")), "carried");
	c = counter_row_counters_json(&back);
	ck_assert_ptr_null(json_object_get(c, "PortDLIDMappingErrors"));
	ck_assert_uint_eq(json_object_size(c), 2);
	json_decref(c);
	json_decref(d);
}
END_TEST

START_TEST(views_show_counters_with_a_value_and_rates_of_exact_deltas_only)
{
	struct counter_row r;
	json_t *c, *d, *rt;
	double rate;

	memset(&r, 0, sizeof(r));
	for (int k = 0; k < PMA_N_COUNTERS; k++)
		r.d[k].state = CDELTA_NOT_READ;
	r.s.bits[PMA_XMIT_DATA] = 64;
	r.s.v[PMA_XMIT_DATA] = 5000;
	r.d[PMA_XMIT_DATA] = (struct cdelta){ CDELTA_OK, 1000 };
	r.s.bits[PMA_SYMBOL_ERR] = 16;
	r.s.v[PMA_SYMBOL_ERR] = 0xffff;
	r.d[PMA_SYMBOL_ERR] = (struct cdelta){ CDELTA_SATURATED, 10 };
	r.s.bits[PMA_LINK_DOWNED] = 8;
	r.s.v[PMA_LINK_DOWNED] = 2;
	r.d[PMA_LINK_DOWNED] = (struct cdelta){ CDELTA_RESET, 2 };
	c = counter_row_counters_json(&r);
	d = counter_row_deltas_json(&r);
	rt = counter_row_rates_json(&r, 4.0);
	ck_assert_uint_eq(json_object_size(c), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "PortXmitData")), 5000);
	ck_assert_ptr_null(json_object_get(c, "PortXmitWait"));  /* no value: never 0 */
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d,
			 "SymbolErrorCounter"), "state")), "saturated");
	ck_assert_uint_eq(json_object_size(rt), 1);
	ck_assert_double_eq(json_real_value(json_object_get(rt, "PortXmitData")), 250.0);
	ck_assert_int_eq(counter_row_rate(&r, PMA_SYMBOL_ERR, 4.0, &rate), -EAGAIN);
	ck_assert_int_eq(counter_row_rate(&r, PMA_XMIT_DATA, 0, &rate), -EAGAIN);
	/* Errors: saturated and reset deltas count, as lower bounds. */
	{
		int lower = 0;

		ck_assert_uint_eq(counter_row_errors(&r, &lower), 12);
		ck_assert_int_eq(lower, 1);
	}
	json_decref(c);
	json_decref(d);
	json_decref(rt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counter_row");
	TCase *tc = tcase_create("counter_row");

	tcase_add_test(tc, packed_rows_unpack_to_the_same_counters_and_deltas);
	tcase_add_test(tc, bytes_that_are_no_packed_row_are_refused);
	tcase_add_test(tc, rows_without_details_still_decode_and_details_round_trip);
	tcase_add_test(tc, views_show_counters_with_a_value_and_rates_of_exact_deltas_only);
	suite_add_tcase(s, tc);
	return check_run(s);
}
