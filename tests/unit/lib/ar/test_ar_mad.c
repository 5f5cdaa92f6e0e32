/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/ar/test_ar_mad.c: the AR vendor SMP layouts (lib/ar/ar_mad.c).
 *
 * The tables here are written again, independently of ar_mad.c's, from the
 * ibutils2 layout comments ("Offset 0xD / 0xD.L - 0xD.H": bits L..H of the
 * big-endian 32-bit word at byte D, bit 0 least significant), so a slip in
 * either copy shows up as a failing field. The byte-level tests check the
 * same positions a second way, against NVIDIA OpenSM's hand-written byte
 * structs (iba/ib_types.h: ib_ar_info_t, ib_ar_lft_entry_t). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ar/ar_mad.h"
#include "tests/unit/fixtures/check_run.h"

/* ---- helpers ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Bit b (0 = least significant) of the big-endian word at byte off. */
static void set_bit(uint8_t *d, unsigned off, unsigned b)
{
	d[off + 3 - b / 8] |= (uint8_t)(1u << (b % 8));
}

static void set_bits(uint8_t *d, unsigned off, unsigned hi, unsigned lo)
{
	for (unsigned b = lo; b <= hi; b++)
		set_bit(d, off, b);
}

static void dump_diff(const uint8_t *got, const uint8_t *want, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (unsigned i = 0; i < AR_MAD_DATA_LEN && n + 24 < len; i++)
		if (got[i] != want[i])
			n += (size_t)snprintf(out + n, len - n, " [%u] %02x!=%02x", i, got[i], want[i]);
}

/* ---- AdaptiveRoutingInfo: the table, from adaptive_routing_info --------------- */

struct info_bits {
	const char *name;
	size_t at, size;       /* member of struct ar_mad_info */
	unsigned off, hi, lo;  /* as the layout writes it: 0xOFF.LO - 0xOFF.HI */
};

#define I(m, off, lo, hi) \
	{ #m, offsetof(struct ar_mad_info, m), sizeof(((struct ar_mad_info *)0)->m), off, hi, lo }

static const struct info_bits info_layout[] = {
	I(e, 0x0, 0, 0),
	I(is_arn_sup, 0x0, 1, 1),
	I(is_frn_sup, 0x0, 2, 2),
	I(is_fr_sup, 0x0, 3, 3),
	I(fr_enabled, 0x0, 4, 4),
	I(rn_xmit_enabled, 0x0, 5, 5),
	I(is_ar_trials_supported, 0x0, 6, 6),
	I(sub_grps_active, 0x0, 8, 11),
	I(group_table_copy_sup, 0x0, 12, 15),
	I(direction_num_sup, 0x0, 16, 23),
	I(no_fallback, 0x0, 24, 24),
	I(is4_mode, 0x0, 25, 25),
	I(glb_groups, 0x0, 26, 26),
	I(by_sl_cap, 0x0, 27, 27),
	I(by_sl_en, 0x0, 28, 28),
	I(by_transp_cap, 0x0, 29, 29),
	I(dyn_cap_calc_sup, 0x0, 30, 30),
	I(group_cap, 0x4, 0, 11),
	I(group_top, 0x4, 12, 23),
	I(group_table_cap, 0x4, 24, 27),
	I(string_width_cap, 0x4, 28, 31),
	I(ar_version_cap, 0x8, 0, 3),
	I(rn_version_cap, 0x8, 4, 7),
	I(sub_grps_supported, 0x8, 8, 15),
	I(enable_by_sl_mask, 0x8, 16, 31),
	I(by_transport_disable, 0xc, 0, 7),
	I(ageing_time_value, 0x10, 0, 31),
	I(pfrn_enabled, 0x14, 12, 12),
	I(by_vl_en, 0x14, 13, 13),
	I(whbf_en, 0x14, 14, 14),
	I(by_sl_hbf_en, 0x14, 15, 15),
	I(is_pfrn_supported, 0x14, 25, 25),
	I(by_vl_cap, 0x14, 26, 26),
	I(is_bth_dqp_hash_supported, 0x14, 27, 27),
	I(is_dceth_hash_supported, 0x14, 28, 28),
	I(is_symmetric_hash_supported, 0x14, 29, 29),
	I(is_whbf_supported, 0x14, 30, 30),
	I(is_hbf_supported, 0x14, 31, 31),
	I(enable_by_sl_mask_hbf, 0x18, 0, 15),
	I(whbf_granularity, 0x18, 29, 31),
	I(enable_by_vl_mask, 0x1c, 0, 15),
	I(sl_vl_mode, 0x1c, 28, 31),
	I(enable_by_vl_mask_hbf, 0x20, 0, 15),
};

#undef I

#define N_INFO (sizeof(info_layout) / sizeof(info_layout[0]))

static void info_put(struct ar_mad_info *s, const struct info_bits *f, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;
	uint8_t *p = (uint8_t *)s + f->at;

	if (f->size == 1)
		memcpy(p, &v8, 1);
	else if (f->size == 2)
		memcpy(p, &v16, 2);
	else
		memcpy(p, &v32, 4);
}

static uint64_t ones(unsigned width)
{
	return (1ULL << width) - 1;
}

START_TEST(each_info_field_sets_exactly_the_bits_the_layout_names)
{
	for (size_t i = 0; i < N_INFO; i++) {
		const struct info_bits *f = &info_layout[i];
		struct ar_mad_info s;
		uint8_t got[AR_MAD_DATA_LEN], want[AR_MAD_DATA_LEN];
		char err[256] = "", diff[512];

		memset(&s, 0, sizeof(s));
		info_put(&s, f, ones(f->hi - f->lo + 1));
		memset(want, 0, sizeof(want));
		set_bits(want, f->off, f->hi, f->lo);
		ck_assert_int_eq(ar_mad_info_encode(&s, got, sizeof(got), err, sizeof(err)), 0);
		dump_diff(got, want, diff, sizeof(diff));
		ck_assert_msg(!memcmp(got, want, sizeof(got)), "%s:%s", f->name, diff);
	}
}
END_TEST

START_TEST(an_info_value_wider_than_its_field_is_refused_not_truncated)
{
	for (size_t i = 0; i < N_INFO; i++) {
		const struct info_bits *f = &info_layout[i];
		unsigned width = f->hi - f->lo + 1;
		struct ar_mad_info s;
		uint8_t got[AR_MAD_DATA_LEN], zero[AR_MAD_DATA_LEN] = { 0 };
		char err[256] = "";

		if (width == 8 * f->size)
			continue;  /* the member cannot hold more */
		memset(&s, 0, sizeof(s));
		info_put(&s, f, 1ULL << width);
		ck_assert_int_eq(ar_mad_info_encode(&s, got, sizeof(got), err, sizeof(err)), -ERANGE);
		ck_assert_msg(strstr(err, f->name), "%s: err \"%s\"", f->name, err);
		ck_assert(!memcmp(got, zero, sizeof(got)));
	}
}
END_TEST

START_TEST(every_info_bit_the_layout_defines_decodes_and_nothing_else_encodes)
{
	uint8_t all[AR_MAD_DATA_LEN], want[AR_MAD_DATA_LEN], got[AR_MAD_DATA_LEN];
	struct ar_mad_info d, expect;
	char err[256] = "";

	memset(all, 0xff, sizeof(all));
	memset(want, 0, sizeof(want));
	memset(&expect, 0, sizeof(expect));
	for (size_t i = 0; i < N_INFO; i++) {
		set_bits(want, info_layout[i].off, info_layout[i].hi, info_layout[i].lo);
		info_put(&expect, &info_layout[i], ones(info_layout[i].hi - info_layout[i].lo + 1));
	}
	ck_assert_int_eq(ar_mad_info_decode(all, sizeof(all), &d, err, sizeof(err)), 0);
	ck_assert(!memcmp(&d, &expect, sizeof(d)));  /* every member is in the table */
	ck_assert_int_eq(ar_mad_info_encode(&d, got, sizeof(got), err, sizeof(err)), 0);
	ck_assert(!memcmp(got, want, sizeof(got)));  /* reserved bits come back zero */
}
END_TEST

START_TEST(info_bytes_match_nvidia_opensms_byte_struct)
{
	struct ar_mad_info s;
	uint8_t d[AR_MAD_DATA_LEN];
	char err[256] = "";

	memset(&s, 0, sizeof(s));
	s.e = 1;                   /* enable_features (byte 3) bit 0 */
	s.rn_xmit_enabled = 1;     /* enable_features bit 5 */
	s.no_fallback = 1;         /* enabled_and_cap_fields (byte 0) bit 0 */
	s.by_sl_en = 1;            /* byte 0 bit 4 */
	s.sub_grps_active = 0x3;   /* byte 2 bits 0-3 */
	s.group_cap = 0xabc;       /* ntohl(group_info) & 0xfff */
	s.group_top = 0x123;       /* (ntohl(group_info) >> 12) & 0xfff */
	s.group_table_cap = 0x5;   /* >> 24 & 0xf */
	s.enable_by_sl_mask = 0x8001;
	s.sub_grps_supported = 0x42;
	s.ar_version_cap = 0x2;    /* ar_nv_version_cap bits 0-3 */
	s.by_transport_disable = 0x0b;
	s.ageing_time_value = 0x01020304;
	s.is_hbf_supported = 1;    /* cap_fields1 (byte 20) bit 7 */
	s.pfrn_enabled = 1;        /* enable_features1 (byte 22) bit 4 */
	s.enable_by_sl_mask_hbf = 0x00f0;
	ck_assert_int_eq(ar_mad_info_encode(&s, d, sizeof(d), err, sizeof(err)), 0);
	ck_assert_uint_eq(d[0], 0x11);
	ck_assert_uint_eq(d[2], 0x03);
	ck_assert_uint_eq(d[3], 0x21);
	ck_assert_uint_eq(d[4], 0x05);
	ck_assert_uint_eq(d[5], 0x12);
	ck_assert_uint_eq(d[6], 0x3a);
	ck_assert_uint_eq(d[7], 0xbc);
	ck_assert_uint_eq(d[8], 0x80);
	ck_assert_uint_eq(d[9], 0x01);
	ck_assert_uint_eq(d[10], 0x42);
	ck_assert_uint_eq(d[11], 0x02);
	ck_assert_uint_eq(d[15], 0x0b);
	ck_assert_uint_eq(d[16], 0x01);
	ck_assert_uint_eq(d[19], 0x04);
	ck_assert_uint_eq(d[20], 0x80);
	ck_assert_uint_eq(d[22], 0x10);
	ck_assert_uint_eq(d[26], 0x00);
	ck_assert_uint_eq(d[27], 0xf0);
}
END_TEST

START_TEST(random_infos_survive_encode_then_decode)
{
	for (int n = 0; n < 2000; n++) {
		struct ar_mad_info s, d;
		uint8_t buf[AR_MAD_DATA_LEN];
		char err[256] = "";

		memset(&s, 0, sizeof(s));
		for (size_t i = 0; i < N_INFO; i++)
			info_put(&s, &info_layout[i],
				 rnd() & ones(info_layout[i].hi - info_layout[i].lo + 1));
		ck_assert_int_eq(ar_mad_info_encode(&s, buf, sizeof(buf), err, sizeof(err)), 0);
		ck_assert_int_eq(ar_mad_info_decode(buf, sizeof(buf), &d, err, sizeof(err)), 0);
		ck_assert(!memcmp(&s, &d, sizeof(s)));
	}
}
END_TEST

/* ---- AdaptiveRoutingGroupTable ----------------------------------------------------- */

/* ib_ar_grp_table: Group[2] of ib_portgroup_block_element (32 bytes):
 * SubGroup_3 at 0x0, _2 at 0x8, _1 at 0x10, _0 at 0x18, each "0xD.0 -
 * 0xD+4.31", a big-endian 64-bit word; SubGroup_k holds ports 64k..64k+63. */
static const unsigned subgroup_off[4] = { 0x18, 0x10, 0x08, 0x00 };

START_TEST(each_group_port_sets_exactly_its_bit)
{
	for (unsigned e = 0; e < AR_MAD_GROUP_ENTRIES; e++)
		for (unsigned p = 0; p < AR_MAD_GROUP_PORTS; p++) {
			struct ar_mad_group_block b;
			uint8_t got[AR_MAD_DATA_LEN], want[AR_MAD_DATA_LEN];
			unsigned off = 32 * e + subgroup_off[p / 64], bit = p % 64;
			char err[256] = "";

			memset(&b, 0, sizeof(b));
			ar_mad_group_set_port(&b, e, p);
			ck_assert(ar_mad_group_has_port(&b, e, p));
			memset(want, 0, sizeof(want));
			/* bit 32..63 of the 64-bit word are bits 0..31 of its first dword */
			set_bit(want, bit >= 32 ? off : off + 4, bit % 32);
			ck_assert_int_eq(ar_mad_group_encode(&b, got, sizeof(got), err, sizeof(err)), 0);
			ck_assert_msg(!memcmp(got, want, sizeof(got)), "entry %u port %u", e, p);
		}
}
END_TEST

START_TEST(group_ports_land_where_a_256_bit_big_endian_mask_has_them)
{
	struct ar_mad_group_block b;
	uint8_t d[AR_MAD_DATA_LEN];
	char err[256] = "";

	memset(&b, 0, sizeof(b));
	ar_mad_group_set_port(&b, 0, 1);
	ar_mad_group_set_port(&b, 0, 64);
	ar_mad_group_set_port(&b, 1, 255);
	ar_mad_group_set_port(&b, 1, 9);
	ar_mad_group_set_port(&b, 2, 1);    /* no entry 2: ignored */
	ar_mad_group_set_port(&b, 0, 256);  /* no port 256: ignored */
	ck_assert_int_eq(ar_mad_group_encode(&b, d, sizeof(d), err, sizeof(err)), 0);
	ck_assert_uint_eq(d[31], 0x02);
	ck_assert_uint_eq(d[23], 0x01);
	ck_assert_uint_eq(d[32], 0x80);
	ck_assert_uint_eq(d[62], 0x02);
	for (unsigned i = 0; i < AR_MAD_DATA_LEN; i++)
		if (i != 31 && i != 23 && i != 32 && i != 62)
			ck_assert_uint_eq(d[i], 0);
	ck_assert(!ar_mad_group_has_port(&b, 0, 2));
	ck_assert(!ar_mad_group_has_port(&b, 2, 1));
}
END_TEST

START_TEST(random_group_blocks_survive_encode_then_decode)
{
	for (int n = 0; n < 2000; n++) {
		struct ar_mad_group_block s, d;
		uint8_t buf[AR_MAD_DATA_LEN];
		char err[256] = "";

		for (unsigned e = 0; e < AR_MAD_GROUP_ENTRIES; e++)
			for (unsigned w = 0; w < 4; w++)
				s.ports[e][w] = rnd();
		ck_assert_int_eq(ar_mad_group_encode(&s, buf, sizeof(buf), err, sizeof(err)), 0);
		ck_assert_int_eq(ar_mad_group_decode(buf, sizeof(buf), &d, err, sizeof(err)), 0);
		ck_assert(!memcmp(&s, &d, sizeof(s)));
	}
}
END_TEST

/* ---- ARLinearForwardingTable (0xFF22) --------------------------------------------- */

/* ib_ar_linear_forwarding_table: LidEntry[32] "0x0.16 - 0x40.15" of
 * ib_ar_lft_block_element (16 bits): GroupNumber 0.0-0.7, TableNumber
 * 0.8-0.11, LidState 0.14-0.15. Element 0 starts at bit 16 of word 0. */
enum { LFT_GROUP, LFT_TABLE, LFT_STATE };
static const struct { unsigned hi, lo; } lft_elem[] = {
	[LFT_GROUP] = { 7, 0 }, [LFT_TABLE] = { 11, 8 }, [LFT_STATE] = { 15, 14 },
};

static void lft_put(struct ar_mad_lft_entry *x, int f, unsigned v)
{
	if (f == LFT_GROUP)
		x->group_number = (uint8_t)v;
	else if (f == LFT_TABLE)
		x->table_number = (uint8_t)v;
	else
		x->lid_state = (uint8_t)v;
}

START_TEST(each_lft_entry_field_sets_exactly_the_bits_the_layout_names)
{
	for (unsigned i = 0; i < AR_MAD_LFT_ENTRIES; i++)
		for (int f = LFT_GROUP; f <= LFT_STATE; f++) {
			struct ar_mad_lft_block b;
			uint8_t got[AR_MAD_DATA_LEN], want[AR_MAD_DATA_LEN];
			unsigned shift = i % 2 ? 0 : 16;
			char err[256] = "";

			memset(&b, 0, sizeof(b));
			lft_put(&b.e[i], f, (unsigned)ones(lft_elem[f].hi - lft_elem[f].lo + 1));
			memset(want, 0, sizeof(want));
			set_bits(want, 4 * (i / 2), lft_elem[f].hi + shift, lft_elem[f].lo + shift);
			ck_assert_int_eq(ar_mad_lft_encode(&b, got, sizeof(got), err, sizeof(err)), 0);
			ck_assert_msg(!memcmp(got, want, sizeof(got)), "entry %u field %d", i, f);
		}
}
END_TEST

START_TEST(lft_entries_are_in_lid_order_two_bytes_each)
{
	struct ar_mad_lft_block b, d;
	uint8_t buf[AR_MAD_DATA_LEN];
	char err[256] = "";

	memset(&b, 0, sizeof(b));
	b.e[0].group_number = 0xab;
	b.e[1].group_number = 0xcd;
	b.e[31].lid_state = AR_MAD_LID_STATIC;
	b.e[31].table_number = 0x7;
	ck_assert_int_eq(ar_mad_lft_encode(&b, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_uint_eq(buf[1], 0xab);
	ck_assert_uint_eq(buf[3], 0xcd);
	ck_assert_uint_eq(buf[62], 0x87);
	b.e[5].table_number = 16;
	ck_assert_int_eq(ar_mad_lft_encode(&b, buf, sizeof(buf), err, sizeof(err)), -ERANGE);
	ck_assert(strstr(err, "entry 5"));
	for (int n = 0; n < 2000; n++) {
		for (unsigned i = 0; i < AR_MAD_LFT_ENTRIES; i++) {
			b.e[i].group_number = (uint8_t)rnd();
			b.e[i].table_number = (uint8_t)(rnd() & 0xf);
			b.e[i].lid_state = (uint8_t)(rnd() & 0x3);
		}
		ck_assert_int_eq(ar_mad_lft_encode(&b, buf, sizeof(buf), err, sizeof(err)), 0);
		ck_assert_int_eq(ar_mad_lft_decode(buf, sizeof(buf), &d, err, sizeof(err)), 0);
		ck_assert(!memcmp(&b, &d, sizeof(b)));
	}
}
END_TEST

/* ---- ARLinearForwardingTableSX (0xFF23) -------------------------------------------- */

/* ib_ar_linear_forwarding_table_sx: LidEntry[16] "0x0.0 - 0x3c.31" of
 * ib_ar_lft_block_element_sx (32 bits): GroupNumber 0.0-0.11, DefaultPort
 * 0.16-0.23, TableNumber 0.24-0.27, LidState 0.30-0.31. */
enum { SX_GROUP, SX_PORT, SX_TABLE, SX_STATE };
static const struct { unsigned hi, lo; } sx_elem[] = {
	[SX_GROUP] = { 11, 0 }, [SX_PORT] = { 23, 16 }, [SX_TABLE] = { 27, 24 },
	[SX_STATE] = { 31, 30 },
};

static void sx_put(struct ar_mad_lft_sx_entry *x, int f, unsigned v)
{
	if (f == SX_GROUP)
		x->group_number = (uint16_t)v;
	else if (f == SX_PORT)
		x->default_port = (uint8_t)v;
	else if (f == SX_TABLE)
		x->table_number = (uint8_t)v;
	else
		x->lid_state = (uint8_t)v;
}

START_TEST(each_sx_entry_field_sets_exactly_the_bits_the_layout_names)
{
	for (unsigned i = 0; i < AR_MAD_LFT_SX_ENTRIES; i++)
		for (int f = SX_GROUP; f <= SX_STATE; f++) {
			struct ar_mad_lft_sx_block b;
			uint8_t got[AR_MAD_DATA_LEN], want[AR_MAD_DATA_LEN];
			char err[256] = "";

			memset(&b, 0, sizeof(b));
			sx_put(&b.e[i], f, (unsigned)ones(sx_elem[f].hi - sx_elem[f].lo + 1));
			memset(want, 0, sizeof(want));
			set_bits(want, 4 * i, sx_elem[f].hi, sx_elem[f].lo);
			ck_assert_int_eq(ar_mad_lft_sx_encode(&b, got, sizeof(got), err, sizeof(err)), 0);
			ck_assert_msg(!memcmp(got, want, sizeof(got)), "entry %u field %d", i, f);
		}
}
END_TEST

START_TEST(sx_entries_match_nvidia_opensms_byte_struct)
{
	struct ar_mad_lft_sx_block b, d;
	uint8_t buf[AR_MAD_DATA_LEN];
	char err[256] = "";

	memset(&b, 0, sizeof(b));
	/* ib_ar_lft_entry_t: state_table (state << 6 | table), legacy_port,
	 * group_number big-endian */
	b.e[3].lid_state = AR_MAD_LID_FREE;
	b.e[3].table_number = 0x2;
	b.e[3].default_port = 17;
	b.e[3].group_number = 0x345;
	ck_assert_int_eq(ar_mad_lft_sx_encode(&b, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_uint_eq(buf[12], 0x42);
	ck_assert_uint_eq(buf[13], 17);
	ck_assert_uint_eq(buf[14], 0x03);
	ck_assert_uint_eq(buf[15], 0x45);
	b.e[0].group_number = 0x1000;
	ck_assert_int_eq(ar_mad_lft_sx_encode(&b, buf, sizeof(buf), err, sizeof(err)), -ERANGE);
	ck_assert(strstr(err, "entry 0"));
	for (int n = 0; n < 2000; n++) {
		for (unsigned i = 0; i < AR_MAD_LFT_SX_ENTRIES; i++) {
			b.e[i].group_number = (uint16_t)(rnd() & 0xfff);
			b.e[i].default_port = (uint8_t)rnd();
			b.e[i].table_number = (uint8_t)(rnd() & 0xf);
			b.e[i].lid_state = (uint8_t)(rnd() & 0x3);
		}
		ck_assert_int_eq(ar_mad_lft_sx_encode(&b, buf, sizeof(buf), err, sizeof(err)), 0);
		ck_assert_int_eq(ar_mad_lft_sx_decode(buf, sizeof(buf), &d, err, sizeof(err)), 0);
		ck_assert(!memcmp(&b, &d, sizeof(b)));
	}
}
END_TEST

START_TEST(reserved_bits_are_ignored_and_lid_state_3_is_kept)
{
	uint8_t buf[AR_MAD_DATA_LEN];
	struct ar_mad_lft_sx_block d;
	char err[256] = "";

	memset(buf, 0, sizeof(buf));
	buf[0] = 0xff;  /* state 3 (HBF in NVIDIA's OpenSM), reserved 28-29, table 15 */
	buf[2] = 0xf0;  /* reserved 12-15 */
	ck_assert_int_eq(ar_mad_lft_sx_decode(buf, sizeof(buf), &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d.e[0].lid_state, AR_MAD_LID_HBF);
	ck_assert_uint_eq(d.e[0].table_number, 0xf);
	ck_assert_uint_eq(d.e[0].group_number, 0);
}
END_TEST

/* ---- all decoders: malformed input -------------------------------------------------- */

typedef int (*decode_fn)(const uint8_t *, size_t, void *, char *, size_t);

static int dec_info(const uint8_t *d, size_t n, void *o, char *e, size_t el)
{
	return ar_mad_info_decode(d, n, o, e, el);
}

static int dec_group(const uint8_t *d, size_t n, void *o, char *e, size_t el)
{
	return ar_mad_group_decode(d, n, o, e, el);
}

static int dec_lft(const uint8_t *d, size_t n, void *o, char *e, size_t el)
{
	return ar_mad_lft_decode(d, n, o, e, el);
}

static int dec_sx(const uint8_t *d, size_t n, void *o, char *e, size_t el)
{
	return ar_mad_lft_sx_decode(d, n, o, e, el);
}

START_TEST(truncated_or_oversized_data_fails_cleanly_in_every_decoder)
{
	static const decode_fn fns[] = { dec_info, dec_group, dec_lft, dec_sx };
	union {
		struct ar_mad_info i;
		struct ar_mad_group_block g;
		struct ar_mad_lft_block l;
		struct ar_mad_lft_sx_block s;
	} out;

	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
		char err[256] = "";

		ck_assert_int_eq(fns[k](NULL, AR_MAD_DATA_LEN, &out, err, sizeof(err)), -EINVAL);
		ck_assert(err[0]);
		for (size_t len = 0; len <= AR_MAD_DATA_LEN + 1; len++) {
			/* exactly len bytes on the heap: an over-read trips ASan/valgrind */
			uint8_t *d = malloc(len ? len : 1);

			ck_assert_ptr_nonnull(d);
			memset(d, 0xa5, len ? len : 1);
			err[0] = 0;
			if (len == AR_MAD_DATA_LEN)
				ck_assert_int_eq(fns[k](d, len, &out, err, sizeof(err)), 0);
			else {
				ck_assert_int_eq(fns[k](d, len, &out, err, sizeof(err)), -EINVAL);
				ck_assert_msg(strstr(err, "bytes"), "len %zu: \"%s\"", len, err);
			}
			free(d);
		}
	}
}
END_TEST

START_TEST(encoders_refuse_a_buffer_that_is_not_a_data_field)
{
	struct ar_mad_info i;
	struct ar_mad_group_block g;
	struct ar_mad_lft_block l;
	struct ar_mad_lft_sx_block s;
	uint8_t buf[AR_MAD_DATA_LEN + 1];
	char err[256] = "";

	memset(&i, 0, sizeof(i));
	memset(&g, 0, sizeof(g));
	memset(&l, 0, sizeof(l));
	memset(&s, 0, sizeof(s));
	memset(buf, 0x5a, sizeof(buf));
	ck_assert_int_eq(ar_mad_info_encode(&i, buf, 63, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ar_mad_group_encode(&g, buf, 65, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ar_mad_lft_encode(&l, NULL, 64, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ar_mad_lft_sx_encode(&s, buf, 0, err, sizeof(err)), -EINVAL);
	for (size_t k = 0; k < sizeof(buf); k++)
		ck_assert_uint_eq(buf[k], 0x5a);  /* untouched */
}
END_TEST

/* ---- attribute modifiers (provisional positions: only their shape is tested) ------ */

START_TEST(modifier_parts_never_overlap_and_too_large_parts_are_refused)
{
	uint32_t a, b, c;
	char err[256] = "";

	ck_assert_uint_eq(ar_mad_info_am(0), 0);
	ck_assert_uint_ne(ar_mad_info_am(1), 0);
	ck_assert_int_eq(ar_mad_group_am(0xfff, 0, 0, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_group_am(0, 0xf, 0, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_group_am(0, 0, 0xf, &c, err, sizeof(err)), 0);
	ck_assert(a && b && c && !(a & b) && !(a & c) && !(b & c));
	ck_assert_int_eq(ar_mad_group_am(1023, 7, 3, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_group_am(0x1000, 0, 0, &a, err, sizeof(err)), -ERANGE);
	ck_assert(strstr(err, "group block"));
	ck_assert_int_eq(ar_mad_group_am(0, 16, 0, &a, err, sizeof(err)), -ERANGE);
	ck_assert_int_eq(ar_mad_lft_am(0xffff, 0, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_lft_am(0, 0xf, &b, err, sizeof(err)), 0);
	ck_assert(a && b && !(a & b));
	ck_assert_int_eq(ar_mad_lft_am(3071, 16, &a, err, sizeof(err)), -ERANGE);
	ck_assert(strstr(err, "pLFT"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ar_mad");
	TCase *tc = tcase_create("ar_mad");

	tcase_add_test(tc, each_info_field_sets_exactly_the_bits_the_layout_names);
	tcase_add_test(tc, an_info_value_wider_than_its_field_is_refused_not_truncated);
	tcase_add_test(tc, every_info_bit_the_layout_defines_decodes_and_nothing_else_encodes);
	tcase_add_test(tc, info_bytes_match_nvidia_opensms_byte_struct);
	tcase_add_test(tc, random_infos_survive_encode_then_decode);
	tcase_add_test(tc, each_group_port_sets_exactly_its_bit);
	tcase_add_test(tc, group_ports_land_where_a_256_bit_big_endian_mask_has_them);
	tcase_add_test(tc, random_group_blocks_survive_encode_then_decode);
	tcase_add_test(tc, each_lft_entry_field_sets_exactly_the_bits_the_layout_names);
	tcase_add_test(tc, lft_entries_are_in_lid_order_two_bytes_each);
	tcase_add_test(tc, each_sx_entry_field_sets_exactly_the_bits_the_layout_names);
	tcase_add_test(tc, sx_entries_match_nvidia_opensms_byte_struct);
	tcase_add_test(tc, reserved_bits_are_ignored_and_lid_state_3_is_kept);
	tcase_add_test(tc, truncated_or_oversized_data_fails_cleanly_in_every_decoder);
	tcase_add_test(tc, encoders_refuse_a_buffer_that_is_not_a_data_field);
	tcase_add_test(tc, modifier_parts_never_overlap_and_too_large_parts_are_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
