/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/telemetry/test_pma_details.c: the PerfMgt detail attributes'
 * decoders (lib/telemetry/pma_details.c), checked two ways: against bytes
 * laid out by hand from the specification's tables, and against libibmad's
 * own field table (what perfquery -E, -D, --vlxmitcounters and
 * --vlxmitflowctlerrors print): every field is written with mad_set_field
 * and loom's decoder must read back each value, alone and all together. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma_details.h"
#include "tests/unit/fixtures/check_run.h"

/* libibmad's field of each detail. */
static enum MAD_FIELDS mad_field(int d)
{
	static const enum MAD_FIELDS fixed[PMA_D_VL_XMIT_WAIT] = {
		[PMA_D_LOCAL_PHYS_ERR] = IB_PC_RCV_LOCAL_PHY_ERR_F,
		[PMA_D_MALFORMED_PKT_ERR] = IB_PC_RCV_MALFORMED_PKT_ERR_F,
		[PMA_D_BUF_OVERRUN_ERR] = IB_PC_RCV_BUF_OVR_ERR_F,
		[PMA_D_DLID_MAPPING_ERR] = IB_PC_RCV_DLID_MAP_ERR_F,
		[PMA_D_VL_MAPPING_ERR] = IB_PC_RCV_VL_MAP_ERR_F,
		[PMA_D_LOOPING_ERR] = IB_PC_RCV_LOOPING_ERR_F,
		[PMA_D_INACTIVE_DISC] = IB_PC_XMT_INACT_DISC_F,
		[PMA_D_NEIGHBOR_MTU_DISC] = IB_PC_XMT_NEIGH_MTU_DISC_F,
		[PMA_D_SW_LIFETIME_DISC] = IB_PC_XMT_SW_LIFE_DISC_F,
		[PMA_D_SW_HOQ_LIFETIME_DISC] = IB_PC_XMT_SW_HOL_DISC_F,
	};

	if (d < PMA_D_VL_XMIT_WAIT)
		return fixed[d];
	if (d < PMA_D_VL_FC_UPDATE_ERR)
		return IB_PC_PORT_VL_XMIT_WAIT0_F + (d - PMA_D_VL_XMIT_WAIT);
	return IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS0_F + (d - PMA_D_VL_FC_UPDATE_ERR);
}

/* A value that fills most of detail d's width and differs per detail. */
static uint64_t value_for(int d)
{
	uint64_t max = cdelta_max(pma_detail_bits(d));

	return (max - (uint64_t)d * 5) & max;
}

START_TEST(every_detail_is_where_libibmad_puts_it)
{
	for (int a = 0; a < PMA_N_DETAIL_ATTRS; a++) {
		uint8_t data[192];
		struct pma_details s;

		memset(data, 0, sizeof(data));
		memset(&s, 0, sizeof(s));
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 9);
		mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
		for (int d = 0; d < PMA_N_DETAILS; d++)
			if (pma_detail_attr_of(d) == (enum pma_detail_attr)a)
				mad_set_field(data, 0, mad_field(d), (uint32_t)value_for(d));
		ck_assert_int_eq(pma_decode_details(a, data, sizeof(data), 9, &s), 0);
		for (int d = 0; d < PMA_N_DETAILS; d++) {
			if (pma_detail_attr_of(d) != (enum pma_detail_attr)a) {
				ck_assert_msg(!s.bits[d], "%s read from %s", pma_detail_name(d),
					      pma_detail_attr_name(a));
				continue;
			}
			ck_assert_msg(s.v[d] == value_for(d), "%s: read %llu, libibmad wrote %llu",
				      pma_detail_name(d), (unsigned long long)s.v[d],
				      (unsigned long long)value_for(d));
			ck_assert_uint_eq(s.bits[d], pma_detail_bits(d));
		}
	}
}
END_TEST

/* One field at a time at its top, the others zero: a decoder that read
 * a neighbour's bits (the 2-bit flow control counters share bytes) sees
 * them here. */
START_TEST(each_detail_alone_is_read_alone)
{
	for (int d = 0; d < PMA_N_DETAILS; d++) {
		enum pma_detail_attr a = pma_detail_attr_of(d);
		uint8_t data[192];
		struct pma_details s;

		memset(data, 0, sizeof(data));
		memset(&s, 0, sizeof(s));
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 1);
		mad_set_field(data, 0, mad_field(d), (uint32_t)cdelta_max(pma_detail_bits(d)));
		ck_assert_int_eq(pma_decode_details(a, data, sizeof(data), 1, &s), 0);
		for (int o = 0; o < PMA_N_DETAILS; o++) {
			if (pma_detail_attr_of(o) != a)
				continue;
			ck_assert_msg(s.v[o] == (o == d ? cdelta_max(pma_detail_bits(d)) : 0),
				      "%s set, %s read %llu", pma_detail_name(d),
				      pma_detail_name(o), (unsigned long long)s.v[o]);
		}
	}
}
END_TEST

/* The specification's layout, byte by byte: PortSelect at byte 1,
 * PortDLIDMappingErrors at bytes 10-11, PortNeighborMTUDiscards at 6-7,
 * PortVLXmitWait[15] at bytes 34-35, PortVLXmitFlowCtlUpdateErrors[0] the
 * top two bits of byte 4 and [3] its lowest two (VL4, the top of byte 5,
 * set beside it, stays out of [3] and [5]). */
START_TEST(spec_layout_by_hand)
{
	static const struct {
		enum pma_detail_attr a;
		unsigned byte;           /* the first of two bytes set */
		uint8_t hi, lo;
		int d, zero;             /* the detail read, and a neighbour that stays 0 */
		uint64_t v;
	} cases[] = {
		{ PMA_DA_RCV_ERR, 10, 0x01, 0x02, PMA_D_DLID_MAPPING_ERR, PMA_D_LOOPING_ERR, 0x0102 },
		{ PMA_DA_XMIT_DISCARD, 6, 0xab, 0xcd, PMA_D_NEIGHBOR_MTU_DISC, PMA_D_INACTIVE_DISC,
		  0xabcd },
		{ PMA_DA_VL_XMIT_WAIT, 34, 0x12, 0x34, PMA_D_VL_XMIT_WAIT + 15, PMA_D_VL_XMIT_WAIT + 14,
		  0x1234 },
		/* byte 4 is VL0..3 (2 bits each, VL0 highest), byte 5 VL4..7 */
		{ PMA_DA_VL_FC_UPDATE_ERR, 4, 0x80 | 0x03, 0x00, PMA_D_VL_FC_UPDATE_ERR + 0,
		  PMA_D_VL_FC_UPDATE_ERR + 1, 2 },
		{ PMA_DA_VL_FC_UPDATE_ERR, 4, 0x03, 0x40, PMA_D_VL_FC_UPDATE_ERR + 3,
		  PMA_D_VL_FC_UPDATE_ERR + 5, 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t data[192];
		struct pma_details s;

		memset(&s, 0, sizeof(s));
		memset(data, 0, sizeof(data));
		data[1] = 3;  /* PortSelect */
		data[cases[i].byte] = cases[i].hi;
		data[cases[i].byte + 1] = cases[i].lo;
		ck_assert_int_eq(pma_decode_details(cases[i].a, data, sizeof(data), 3, &s), 0);
		ck_assert_msg(s.v[cases[i].d] == cases[i].v, "%s: %llu", pma_detail_name(cases[i].d),
			      (unsigned long long)s.v[cases[i].d]);
		ck_assert_uint_eq(s.v[cases[i].zero], 0);
		ck_assert_uint_eq(s.bits[cases[i].d], pma_detail_bits(cases[i].d));
	}
}
END_TEST

START_TEST(an_answer_for_another_port_or_too_short_is_refused)
{
	uint8_t data[192];
	struct pma_details s;

	memset(data, 0, sizeof(data));
	memset(&s, 0, sizeof(s));
	data[1] = 4;
	ck_assert_int_eq(pma_decode_details(PMA_DA_RCV_ERR, data, sizeof(data), 5, &s), -EPROTO);
	ck_assert_int_eq(pma_decode_details(PMA_DA_RCV_ERR, data, 100, 4, &s), -EINVAL);
	ck_assert_int_eq(pma_decode_details(PMA_N_DETAIL_ATTRS, data, sizeof(data), 4, &s),
			 -EINVAL);
	for (int d = 0; d < PMA_N_DETAILS; d++)
		ck_assert_uint_eq(s.bits[d], 0);
}
END_TEST

START_TEST(names_ids_kinds_and_vls)
{
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_RCV_ERR), 0x15);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_XMIT_DISCARD), 0x16);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_VL_FC_UPDATE_ERR), 0x1B);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_VL_XMIT_WAIT), 0x1C);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_RCV_ERR), IB_GSI_PORT_RCV_ERROR_DETAILS);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_XMIT_DISCARD), IB_GSI_PORT_XMIT_DISCARD_DETAILS);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_VL_FC_UPDATE_ERR),
			  IB_GSI_PORT_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS);
	ck_assert_uint_eq(pma_detail_attr_id(PMA_DA_VL_XMIT_WAIT),
			  IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS);
	ck_assert_str_eq(pma_detail_name(PMA_D_DLID_MAPPING_ERR), "PortDLIDMappingErrors");
	ck_assert_str_eq(pma_detail_name(PMA_D_VL_XMIT_WAIT + 3), "PortVLXmitWait3");
	ck_assert_str_eq(pma_detail_name(PMA_D_VL_FC_UPDATE_ERR + 15),
			 "PortVLXmitFlowCtlUpdateErrors15");
	ck_assert_str_eq(pma_detail_kind(PMA_D_SW_HOQ_LIFETIME_DISC), "sw_hoq_lifetime_limit");
	ck_assert_ptr_null(pma_detail_kind(PMA_D_VL_XMIT_WAIT));
	ck_assert_int_eq(pma_detail_vl(PMA_D_VL_FC_UPDATE_ERR + 7), 7);
	ck_assert_int_eq(pma_detail_vl(PMA_D_LOOPING_ERR), -1);
	for (int d = 0; d < PMA_N_DETAILS; d++)
		ck_assert_int_eq(pma_detail_by_name(pma_detail_name(d)), d);
	ck_assert_int_eq(pma_detail_by_name("PortVLXmitWait16"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pma_details");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_detail_is_where_libibmad_puts_it);
	tcase_add_test(tc, each_detail_alone_is_read_alone);
	tcase_add_test(tc, spec_layout_by_hand);
	tcase_add_test(tc, an_answer_for_another_port_or_too_short_is_refused);
	tcase_add_test(tc, names_ids_kinds_and_vls);
	suite_add_tcase(s, tc);
	return check_run(s);
}
