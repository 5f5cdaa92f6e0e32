/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_pma.c: the PerfMgt attribute decoders (lib/telemetry/pma.c)
 * and what a counter did between two samples (lib/telemetry/counter_delta.c).
 *
 * The layouts are checked against libibmad's own field table (what perfquery
 * prints): a data field is written with mad_set_field(IB_PC_*_F, ...) and
 * loom's decoder must read back every value, so a slip in a position or a
 * width (the two 4-bit fields share a byte) fails here. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "tests/unit/fixtures/check_run.h"

/* libibmad's field for each of loom's counters. */
static const enum MAD_FIELDS mad_field[PMA_N_COUNTERS] = {
	[PMA_SYMBOL_ERR] = IB_PC_ERR_SYM_F,
	[PMA_LINK_ERR_RECOVERY] = IB_PC_LINK_RECOVERS_F,
	[PMA_LINK_DOWNED] = IB_PC_LINK_DOWNED_F,
	[PMA_RCV_ERR] = IB_PC_ERR_RCV_F,
	[PMA_RCV_REMOTE_PHYS_ERR] = IB_PC_ERR_PHYSRCV_F,
	[PMA_RCV_SWITCH_RELAY_ERR] = IB_PC_ERR_SWITCH_REL_F,
	[PMA_XMIT_DISCARDS] = IB_PC_XMT_DISCARDS_F,
	[PMA_XMIT_CONSTRAINT_ERR] = IB_PC_ERR_XMTCONSTR_F,
	[PMA_RCV_CONSTRAINT_ERR] = IB_PC_ERR_RCVCONSTR_F,
	[PMA_LOCAL_LINK_INTEGRITY] = IB_PC_ERR_LOCALINTEG_F,
	[PMA_EXCESSIVE_BUF_OVERRUN] = IB_PC_ERR_EXCESS_OVR_F,
	[PMA_VL15_DROPPED] = IB_PC_VL15_DROPPED_F,
	[PMA_XMIT_DATA] = IB_PC_XMT_BYTES_F,
	[PMA_RCV_DATA] = IB_PC_RCV_BYTES_F,
	[PMA_XMIT_PKTS] = IB_PC_XMT_PKTS_F,
	[PMA_RCV_PKTS] = IB_PC_RCV_PKTS_F,
	[PMA_XMIT_WAIT] = IB_PC_XMT_WAIT_F,
};

static const struct pma_caps all_caps = { .xmit_wait = 1, .ext = 1 };

/* A value that fills most of a field `bits` wide and differs per counter. */
static uint64_t value_for(int c, unsigned bits)
{
	uint64_t max = cdelta_max(bits);

	return (max - (uint64_t)c * 3) & max;
}

START_TEST(every_port_counter_is_where_libibmad_puts_it)
{
	uint8_t data[PMA_DATA_LEN];
	struct pma_sample s;

	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 7);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT2_F, 0xff);
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		mad_set_field(data, 0, mad_field[c], (uint32_t)value_for(c, pma_counter_bits(c)));
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 7, &all_caps, &s), 0);
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		ck_assert_msg(s.v[c] == value_for(c, pma_counter_bits(c)),
			      "%s: read %llu, libibmad wrote %llu", pma_counter_name(c),
			      (unsigned long long)s.v[c],
			      (unsigned long long)value_for(c, pma_counter_bits(c)));
		ck_assert_uint_eq(s.bits[c], pma_counter_bits(c));
	}
}
END_TEST

/* One field at a time, the others zero: a decoder that read a neighbour's
 * bits would see them here. */
START_TEST(each_counter_alone_is_read_alone)
{
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		uint8_t data[PMA_DATA_LEN];
		struct pma_sample s;

		memset(data, 0, sizeof(data));
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 1);
		mad_set_field(data, 0, mad_field[c], 1);
		ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 1, &all_caps, &s), 0);
		for (int o = 0; o < PMA_N_COUNTERS; o++)
			ck_assert_msg(s.v[o] == (o == c), "%s set, %s reads %llu",
				      pma_counter_name(c), pma_counter_name(o),
				      (unsigned long long)s.v[o]);
	}
}
END_TEST

START_TEST(extended_counters_replace_the_32_bit_ones)
{
	static const enum MAD_FIELDS ext[] = { IB_PC_EXT_XMT_BYTES_F, IB_PC_EXT_RCV_BYTES_F,
					       IB_PC_EXT_XMT_PKTS_F, IB_PC_EXT_RCV_PKTS_F };
	static const enum pma_counter ours[] = { PMA_XMIT_DATA, PMA_RCV_DATA, PMA_XMIT_PKTS,
						 PMA_RCV_PKTS };
	uint8_t pc[PMA_DATA_LEN], data[PMA_DATA_LEN];
	struct pma_sample s;

	memset(pc, 0, sizeof(pc));
	mad_set_field(pc, 0, IB_PC_PORT_SELECT_F, 3);
	mad_set_field(pc, 0, IB_PC_ERR_SYM_F, 5);
	mad_set_field(pc, 0, IB_PC_XMT_BYTES_F, 0xffffffffu);
	ck_assert_int_eq(pma_decode_port_counters(pc, sizeof(pc), 3, &all_caps, &s), 0);
	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_EXT_PORT_SELECT_F, 3);
	for (size_t i = 0; i < 4; i++) {
		uint64_t v = (UINT64_C(1) << 40) + i * 1000003;

		mad_set_field64(data, 0, ext[i], v);
	}
	/* The 64-bit unicast/multicast counters behind them are not loom's. */
	mad_set_field64(data, 0, IB_PC_EXT_XMT_UPKTS_F, 99);
	ck_assert_int_eq(pma_decode_port_counters_ext(data, sizeof(data), 3, &s), 0);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(s.v[ours[i]], (UINT64_C(1) << 40) + i * 1000003);
		ck_assert_uint_eq(s.bits[ours[i]], 64);
	}
	ck_assert_uint_eq(s.v[PMA_SYMBOL_ERR], 5);  /* the error counters stay */
	ck_assert_uint_eq(s.bits[PMA_SYMBOL_ERR], 16);
}
END_TEST

/* A PMA with IsAdditionalPortCountersExtendedSupported (CapabilityMask2
 * bit 1) gives every counter in PortCountersExtended, 64 bits wide: each
 * is read where libibmad puts it (IB_PC_EXT_ERR_SYM_F ... XMT_WAIT_F). */
START_TEST(additional_extended_counters_are_where_libibmad_puts_them)
{
	static const struct {
		enum MAD_FIELDS f;
		enum pma_counter c;
	} addl[] = {
		{ IB_PC_EXT_XMT_BYTES_F, PMA_XMIT_DATA }, { IB_PC_EXT_RCV_BYTES_F, PMA_RCV_DATA },
		{ IB_PC_EXT_XMT_PKTS_F, PMA_XMIT_PKTS }, { IB_PC_EXT_RCV_PKTS_F, PMA_RCV_PKTS },
		{ IB_PC_EXT_ERR_SYM_F, PMA_SYMBOL_ERR },
		{ IB_PC_EXT_LINK_RECOVERS_F, PMA_LINK_ERR_RECOVERY },
		{ IB_PC_EXT_LINK_DOWNED_F, PMA_LINK_DOWNED }, { IB_PC_EXT_ERR_RCV_F, PMA_RCV_ERR },
		{ IB_PC_EXT_ERR_PHYSRCV_F, PMA_RCV_REMOTE_PHYS_ERR },
		{ IB_PC_EXT_ERR_SWITCH_REL_F, PMA_RCV_SWITCH_RELAY_ERR },
		{ IB_PC_EXT_XMT_DISCARDS_F, PMA_XMIT_DISCARDS },
		{ IB_PC_EXT_ERR_XMTCONSTR_F, PMA_XMIT_CONSTRAINT_ERR },
		{ IB_PC_EXT_ERR_RCVCONSTR_F, PMA_RCV_CONSTRAINT_ERR },
		{ IB_PC_EXT_ERR_LOCALINTEG_F, PMA_LOCAL_LINK_INTEGRITY },
		{ IB_PC_EXT_ERR_EXCESS_OVR_F, PMA_EXCESSIVE_BUF_OVERRUN },
		{ IB_PC_EXT_VL15_DROPPED_F, PMA_VL15_DROPPED }, { IB_PC_EXT_XMT_WAIT_F, PMA_XMIT_WAIT },
	};
	uint8_t cpi[PMA_DATA_LEN], data[PMA_DATA_LEN];
	struct pma_caps caps;
	struct pma_sample s;

	ck_assert_uint_eq(sizeof(addl) / sizeof(addl[0]), PMA_N_COUNTERS);
	memset(cpi, 0, sizeof(cpi));
	mad_set_field(cpi, 0, IB_CPI_CAPMASK_F, (1u << 9) | (1u << 12));
	ck_assert_int_eq(pma_decode_class_port_info(cpi, sizeof(cpi), &caps), 0);
	ck_assert(!caps.ext_all);  /* not without CapabilityMask2 bit 1 */
	mad_set_field(cpi, 0, IB_CPI_CAPMASK2_F, 1u << 1);
	ck_assert_int_eq(pma_decode_class_port_info(cpi, sizeof(cpi), &caps), 0);
	ck_assert(caps.ext_all);
	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_EXT_PORT_SELECT_F, 7);
	for (size_t i = 0; i < PMA_N_COUNTERS; i++)
		mad_set_field64(data, 0, addl[i].f, (UINT64_C(1) << 33) + i * 7919);
	mad_set_field64(data, 0, IB_PC_EXT_QP1_DROP_F, 12345);  /* not loom's */
	ck_assert_int_eq(pma_decode_port_counters_ext_all(data, sizeof(data), 7, &caps, &s), 0);
	for (size_t i = 0; i < PMA_N_COUNTERS; i++) {
		ck_assert_msg(s.v[addl[i].c] == (UINT64_C(1) << 33) + i * 7919, "%s",
			      pma_counter_name(addl[i].c));
		ck_assert_uint_eq(s.bits[addl[i].c], 64);
	}
	ck_assert_int_eq(pma_decode_port_counters_ext_all(data, sizeof(data), 6, &caps, &s),
			 -EPROTO);
	caps.xmit_wait = 0;
	ck_assert_int_eq(pma_decode_port_counters_ext_all(data, sizeof(data), 7, &caps, &s), 0);
	ck_assert_uint_eq(s.bits[PMA_XMIT_WAIT], 0);
}
END_TEST

START_TEST(xmit_wait_without_the_capability_has_no_value)
{
	uint8_t cpi[PMA_DATA_LEN], data[PMA_DATA_LEN];
	struct pma_caps caps;
	struct pma_sample s;

	memset(cpi, 0, sizeof(cpi));
	mad_set_field(cpi, 0, IB_CPI_CAPMASK_F, 1u << 9);
	ck_assert_int_eq(pma_decode_class_port_info(cpi, sizeof(cpi), &caps), 0);
	ck_assert(caps.ext);
	ck_assert(!caps.xmit_wait);
	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 1);
	mad_set_field(data, 0, IB_PC_XMT_WAIT_F, 1234);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 1, &caps, &s), 0);
	ck_assert_uint_eq(s.bits[PMA_XMIT_WAIT], 0);
	ck_assert_int_eq(cdelta_of(0, 0, s.v[PMA_XMIT_WAIT], s.bits[PMA_XMIT_WAIT]).state,
			 CDELTA_NOT_READ);

	mad_set_field(cpi, 0, IB_CPI_CAPMASK_F, (1u << 12) | (1u << 10));
	mad_set_field(cpi, 0, IB_CPI_CAPMASK2_F, 0x4000001);
	ck_assert_int_eq(pma_decode_class_port_info(cpi, sizeof(cpi), &caps), 0);
	ck_assert(caps.ext);
	ck_assert(caps.xmit_wait);
	ck_assert_uint_eq(caps.cap_mask2, 0x4000001);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 1, &caps, &s), 0);
	ck_assert_uint_eq(s.v[PMA_XMIT_WAIT], 1234);
	ck_assert_uint_eq(s.bits[PMA_XMIT_WAIT], 32);
}
END_TEST

START_TEST(an_answer_for_another_port_or_too_short_is_refused)
{
	uint8_t data[PMA_DATA_LEN];
	struct pma_sample s;
	struct pma_caps caps;

	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 2);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 1, &all_caps, &s), -EPROTO);
	ck_assert_int_eq(pma_decode_port_counters_ext(data, sizeof(data), 1, &s), -EPROTO);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data) - 1, 2, &all_caps, &s),
			 -EINVAL);
	ck_assert_int_eq(pma_decode_port_counters_ext(data, 64, 2, &s), -EINVAL);
	ck_assert_int_eq(pma_decode_class_port_info(data, 100, &caps), -EINVAL);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), 2, &all_caps, &s), 0);
}
END_TEST

START_TEST(a_counter_that_moved_forward_gives_an_exact_delta_and_rate)
{
	struct cdelta d = cdelta_of(100, 32, 1100, 32);
	double r = -1;

	ck_assert_int_eq(d.state, CDELTA_OK);
	ck_assert_uint_eq(d.delta, 1000);
	ck_assert_int_eq(cdelta_rate(&d, 10.0, &r), 0);
	ck_assert(fabs(r - 100.0) < 1e-9);
	d = cdelta_of(7, 16, 7, 16);
	ck_assert_int_eq(d.state, CDELTA_OK);
	ck_assert_uint_eq(d.delta, 0);
	/* 64-bit counters are exact up to all ones. */
	d = cdelta_of(UINT64_MAX - 5, 64, UINT64_MAX, 64);
	ck_assert_int_eq(d.state, CDELTA_OK);
	ck_assert_uint_eq(d.delta, 5);
}
END_TEST

START_TEST(a_counter_that_went_backwards_marks_a_reset_and_gives_no_rate)
{
	struct cdelta d = cdelta_of(4000000000u, 32, 12, 32);
	double r = 42;

	ck_assert_int_eq(d.state, CDELTA_RESET);
	ck_assert_uint_eq(d.delta, 12);  /* at least what came after the clear */
	ck_assert_int_eq(cdelta_rate(&d, 10.0, &r), -EAGAIN);
	ck_assert(r == 42);  /* untouched: no huge or negative rate */
	ck_assert_str_eq(cdelta_state_name(d.state), "reset");
}
END_TEST

START_TEST(a_counter_stopped_at_all_ones_is_saturated_not_a_rate)
{
	struct cdelta d = cdelta_of(65000, 16, 65535, 16);
	double r;

	ck_assert_int_eq(d.state, CDELTA_SATURATED);
	ck_assert_uint_eq(d.delta, 535);
	ck_assert_int_eq(cdelta_rate(&d, 1.0, &r), -EAGAIN);
	ck_assert_int_eq(cdelta_of(15, 4, 15, 4).state, CDELTA_SATURATED);
	ck_assert_int_eq(cdelta_of(0xfffffffe, 32, 0xffffffff, 32).state, CDELTA_SATURATED);
	/* A value wider than its counter was not read right. */
	ck_assert_int_eq(cdelta_of(0, 8, 256, 8).state, CDELTA_NOT_READ);
}
END_TEST

START_TEST(no_earlier_sample_or_a_new_width_gives_nothing)
{
	double r;
	struct cdelta d = cdelta_of(0, 0, 10, 32);

	ck_assert_int_eq(d.state, CDELTA_FIRST);
	ck_assert_int_eq(cdelta_rate(&d, 1.0, &r), -EAGAIN);
	ck_assert_int_eq(cdelta_of(10, 32, 1ull << 40, 64).state, CDELTA_FIRST);
	d = cdelta_of(1, 32, 2, 32);
	ck_assert_int_eq(cdelta_rate(&d, 0.0, &r), -EINVAL);
	ck_assert_int_eq(cdelta_rate(&d, -1.0, &r), -EINVAL);
	ck_assert_int_eq(cdelta_rate(&d, NAN, &r), -EINVAL);
	ck_assert_int_eq(cdelta_rate(&d, INFINITY, &r), -EINVAL);
}
END_TEST

START_TEST(near_full_follows_perfmgrs_three_quarters)
{
	ck_assert(!cdelta_near_full(9, 4));
	ck_assert(cdelta_near_full(10, 4));
	ck_assert(!cdelta_near_full(190, 8));
	ck_assert(cdelta_near_full(192, 8));
	ck_assert(!cdelta_near_full(49151, 16));
	ck_assert(cdelta_near_full(49152, 16));
	ck_assert(!cdelta_near_full(0xbffffffeu, 32));
	ck_assert(cdelta_near_full(0xc0000000u, 32));
	ck_assert(!cdelta_near_full(1ull << 62, 64));
	ck_assert(!cdelta_near_full(5, 0));
}
END_TEST

/* A switch's sums (AllPortSelect) prove its ports' PortCounters unchanged
 * only when every error counter and PortXmitWait is the same and none has
 * stopped at the top of its width; data and packets are not compared. */
START_TEST(an_unchanged_sum_proves_unchanged_ports_only_when_nothing_saturated)
{
	uint8_t data[PMA_DATA_LEN];
	struct pma_caps caps;
	struct pma_sample before, now;

	pma_caps_of(&caps, PMA_CAP_ALL_PORT_SELECT | PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT, 0);
	ck_assert(caps.all_ports);
	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, PMA_PORT_ALL);
	mad_set_field(data, 0, IB_PC_ERR_SYM_F, 12);
	mad_set_field(data, 0, IB_PC_XMT_WAIT_F, 5000);
	mad_set_field(data, 0, IB_PC_XMT_BYTES_F, 100);
	ck_assert_int_eq(pma_decode_port_counters(data, sizeof(data), PMA_PORT_ALL, &caps,
						  &before), 0);
	now = before;
	ck_assert_int_eq(pma_sums_unchanged(&before, &now), 1);
	now.v[PMA_XMIT_DATA] += 1000;  /* traffic: not compared */
	now.v[PMA_RCV_PKTS] += 10;
	ck_assert_int_eq(pma_sums_unchanged(&before, &now), 1);
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (!pma_counter_is_error(c) && c != PMA_XMIT_WAIT)
			continue;
		now = before;
		now.v[c] += 1;
		ck_assert_msg(!pma_sums_unchanged(&before, &now), "%s moved unseen",
			      pma_counter_name(c));
		now = before;
		now.bits[c] = 0;
		ck_assert_msg(!pma_sums_unchanged(&before, &now), "%s lost unseen",
			      pma_counter_name(c));
	}
	/* Stopped at all ones: it may have moved under the top. */
	before.v[PMA_LOCAL_LINK_INTEGRITY] = 15;
	now = before;
	ck_assert_int_eq(pma_sums_unchanged(&before, &now), 0);
	before.v[PMA_LOCAL_LINK_INTEGRITY] = 14;
	now = before;
	ck_assert_int_eq(pma_sums_unchanged(&before, &now), 1);
	/* Without AllPortSelect in the capabilities, no sums. */
	pma_caps_of(&caps, PMA_CAP_EXT_WIDTH, 0);
	ck_assert(!caps.all_ports);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pma");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_port_counter_is_where_libibmad_puts_it);
	tcase_add_test(tc, each_counter_alone_is_read_alone);
	tcase_add_test(tc, extended_counters_replace_the_32_bit_ones);
	tcase_add_test(tc, additional_extended_counters_are_where_libibmad_puts_them);
	tcase_add_test(tc, xmit_wait_without_the_capability_has_no_value);
	tcase_add_test(tc, an_answer_for_another_port_or_too_short_is_refused);
	tcase_add_test(tc, a_counter_that_moved_forward_gives_an_exact_delta_and_rate);
	tcase_add_test(tc, a_counter_that_went_backwards_marks_a_reset_and_gives_no_rate);
	tcase_add_test(tc, a_counter_stopped_at_all_ones_is_saturated_not_a_rate);
	tcase_add_test(tc, no_earlier_sample_or_a_new_width_gives_nothing);
	tcase_add_test(tc, near_full_follows_perfmgrs_three_quarters);
	tcase_add_test(tc, an_unchanged_sum_proves_unchanged_ports_only_when_nothing_saturated);
	suite_add_tcase(s, tc);
	return check_run(s);
}
