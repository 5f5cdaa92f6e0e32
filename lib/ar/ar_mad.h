/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_mad.h: NVIDIA (Mellanox) adaptive-routing vendor SMP attributes as
 * plain C structs, encoded to and decoded from the 64-byte SMP data field
 * (issue 7). Upstream OpenSM has no AR manager; loom programs AR itself with
 * SubnGet/SubnSet (class 0x01 LID-routed, 0x81 directed route) of:
 *
 *   0xFF20 AdaptiveRoutingInfo         capabilities and enables
 *   0xFF21 AdaptiveRoutingGroupTable   2 port-mask entries of 256 bits a block
 *   0xFF22 ARLinearForwardingTable     32 entries of 16 bits a block
 *   0xFF23 ARLinearForwardingTableSX   16 entries of 32 bits a block (with the
 *                                      static "default" port; the one NVIDIA's
 *                                      own OpenSM sends)
 *
 * Field positions, their sources and what is NOT confirmed (the attribute
 * modifiers above all) are in docs/ar-mad-notes.md and at the top of
 * ar_mad.c. Pure functions: no I/O. Every decoder takes exactly the 64-byte
 * data field and never reads past it; every encoder writes all 64 bytes and
 * refuses (-ERANGE) a value wider than its field instead of truncating it. */
#ifndef LOOM_AR_MAD_H
#define LOOM_AR_MAD_H

#include <stddef.h>
#include <stdint.h>

#define AR_MAD_DATA_LEN 64  /* the SMP data field */

#define AR_MAD_ATTR_INFO        0xFF20
#define AR_MAD_ATTR_GROUP_TABLE 0xFF21
#define AR_MAD_ATTR_LFT         0xFF22
#define AR_MAD_ATTR_LFT_SX      0xFF23

#define AR_MAD_GROUP_ENTRIES    2    /* port-mask entries in a group-table block */
#define AR_MAD_GROUP_PORTS      256  /* bits (ports 0..255) in one entry */
#define AR_MAD_LFT_ENTRIES      32   /* LIDs in an 0xFF22 block */
#define AR_MAD_LFT_SX_ENTRIES   16   /* LIDs in an 0xFF23 block */

/* LidState of an AR LFT entry. 3 is "reserved" in the ibutils2 layouts and
 * "HBF" (hash-based forwarding) in NVIDIA's OpenSM: decoders accept it. */
enum ar_mad_lid_state {
	AR_MAD_LID_BOUNDED = 0,  /* bounded AR: no port change within a burst */
	AR_MAD_LID_FREE = 1,     /* free AR */
	AR_MAD_LID_STATIC = 2,   /* static: group_number is the port */
	AR_MAD_LID_HBF = 3,
};

/* AdaptiveRoutingInfo (0xFF20). Widths in bits in the comments; one-bit
 * fields are 0 or 1. "Internal" fields are documented as such by NVIDIA. */
struct ar_mad_info {
	uint8_t e;                        /* 1: AR enabled (RW) */
	uint8_t is_arn_sup;               /* AR notifications supported */
	uint8_t is_frn_sup;               /* fault-recovery notifications supported */
	uint8_t is_fr_sup;                /* fallback routing supported */
	uint8_t fr_enabled;               /* fallback routing enabled (RW) */
	uint8_t rn_xmit_enabled;          /* may generate / pass on RN packets (RW) */
	uint8_t is_ar_trials_supported;   /* PortARTrials counter exists */
	uint8_t sub_grps_active;          /* 4: ARSubGroups used in each ARGroup (RW) */
	uint8_t group_table_copy_sup;     /* 4: groups the GroupTableCopy attr copies */
	uint8_t direction_num_sup;        /* 8: supported directions */
	uint8_t no_fallback;              /* a plain LFT Set: 0 disables AR, 1 fails (RW) */
	uint8_t is4_mode;                 /* 0: 1 TQ ("Shaldag"), 1: 3 TQs ("Baz") */
	uint8_t glb_groups;               /* 1: groups global, 0: per pLFT */
	uint8_t by_sl_cap;                /* enable_by_sl_mask supported */
	uint8_t by_sl_en;                 /* use enable_by_sl_mask, else AR on all SLs (RW) */
	uint8_t by_transp_cap;            /* by_transport_disable supported */
	uint8_t dyn_cap_calc_sup;         /* capabilities recomputed from the selection */
	uint16_t group_cap;               /* 12: ARGroups per group table; 0: no AR */
	uint16_t group_top;               /* 12: index of the highest enabled group (RW) */
	uint8_t group_table_cap;          /* 4: number of group tables */
	uint8_t string_width_cap;         /* 4: RN string width */
	uint8_t ar_version_cap;           /* 4 */
	uint8_t rn_version_cap;           /* 4 */
	uint8_t sub_grps_supported;       /* 8: ARSubGroups an ARGroup may have */
	uint16_t enable_by_sl_mask;       /* 16: SLs that AR applies to when by_sl_en (RW) */
	uint8_t by_transport_disable;     /* 8: bit 0 UD, 1 RC, 2 UC, 3 DCT (RW) */
	uint32_t ageing_time_value;       /* 32: microseconds, bounded AR (RW) */
	uint8_t pfrn_enabled;
	uint8_t by_vl_en;
	uint8_t whbf_en;
	uint8_t by_sl_hbf_en;
	uint8_t is_pfrn_supported;
	uint8_t by_vl_cap;
	uint8_t is_bth_dqp_hash_supported;
	uint8_t is_dceth_hash_supported;
	uint8_t is_symmetric_hash_supported;
	uint8_t is_whbf_supported;
	uint8_t is_hbf_supported;
	uint16_t enable_by_sl_mask_hbf;   /* 16: SLs under hash-based forwarding */
	uint8_t whbf_granularity;         /* 3 */
	uint16_t enable_by_vl_mask;       /* 16: internal */
	uint8_t sl_vl_mode;               /* 4: internal */
	uint16_t enable_by_vl_mask_hbf;   /* 16: internal */
};

/* One AdaptiveRoutingGroupTable block (0xFF21): AR_MAD_GROUP_ENTRIES port
 * masks. ports[e][w] bit b is port 64 * w + b of entry e. With
 * sub_grps_active 0 an entry is an ARGroup; docs/ar-mad-notes.md says what
 * is not confirmed about entries when sub-groups are active. */
struct ar_mad_group_block {
	uint64_t ports[AR_MAD_GROUP_ENTRIES][4];
};

/* One entry of an ARLinearForwardingTable block (0xFF22). */
struct ar_mad_lft_entry {
	uint8_t group_number;  /* 8: AR group; the port when lid_state is static */
	uint8_t table_number;  /* 4: group table; not used when static */
	uint8_t lid_state;     /* 2: enum ar_mad_lid_state */
};

struct ar_mad_lft_block {
	struct ar_mad_lft_entry e[AR_MAD_LFT_ENTRIES];
};

/* One entry of an ARLinearForwardingTableSX block (0xFF23). */
struct ar_mad_lft_sx_entry {
	uint16_t group_number;  /* 12: AR group; the port when lid_state is static */
	uint8_t default_port;   /* 8: port for traffic routed statically */
	uint8_t table_number;   /* 4 */
	uint8_t lid_state;      /* 2: enum ar_mad_lid_state */
};

struct ar_mad_lft_sx_block {
	struct ar_mad_lft_sx_entry e[AR_MAD_LFT_SX_ENTRIES];
};

/* Decoders: data is the 64-byte SMP data field (len must be
 * AR_MAD_DATA_LEN). 0, or -EINVAL with err. Every bit pattern decodes:
 * reserved bits are ignored and reserved values (LidState 3) kept, because
 * firmware gives them meaning over time and loom must not refuse a switch
 * for that. */
int ar_mad_info_decode(const uint8_t *data, size_t len, struct ar_mad_info *out,
		       char *err, size_t errlen);
int ar_mad_group_decode(const uint8_t *data, size_t len, struct ar_mad_group_block *out,
			char *err, size_t errlen);
int ar_mad_lft_decode(const uint8_t *data, size_t len, struct ar_mad_lft_block *out,
		      char *err, size_t errlen);
int ar_mad_lft_sx_decode(const uint8_t *data, size_t len, struct ar_mad_lft_sx_block *out,
			 char *err, size_t errlen);

/* Encoders: the whole data field (len must be AR_MAD_DATA_LEN; reserved bits
 * zero). 0, -EINVAL (no data or another length: data untouched), or -ERANGE
 * naming the field that does not fit its width (data left all zero). */
int ar_mad_info_encode(const struct ar_mad_info *in, uint8_t *data, size_t len,
		       char *err, size_t errlen);
int ar_mad_group_encode(const struct ar_mad_group_block *in, uint8_t *data, size_t len,
			char *err, size_t errlen);
int ar_mad_lft_encode(const struct ar_mad_lft_block *in, uint8_t *data, size_t len,
		      char *err, size_t errlen);
int ar_mad_lft_sx_encode(const struct ar_mad_lft_sx_block *in, uint8_t *data, size_t len,
			 char *err, size_t errlen);

/* Port p (0..255) of group-table entry e (0..1). */
void ar_mad_group_set_port(struct ar_mad_group_block *b, unsigned e, unsigned p);
int ar_mad_group_has_port(const struct ar_mad_group_block *b, unsigned e, unsigned p);

/* Attribute modifiers. PROVISIONAL: no public source that could be read
 * gives their bit positions (docs/ar-mad-notes.md); they live in one table
 * in ar_mad.c so that a correction is one line. Verify against a real switch
 * before any Set. 0, or -ERANGE with err when a part does not fit.
 *   info:  get_cap asks for the capabilities instead of the current state
 *   group: block of AR_MAD_GROUP_ENTRIES entries, group table, pLFT
 *   lft:   LID block (of 32 for 0xFF22, of 16 for 0xFF23), pLFT */
uint32_t ar_mad_info_am(int get_cap);
int ar_mad_group_am(unsigned block, unsigned table, unsigned plft, uint32_t *am,
		    char *err, size_t errlen);
int ar_mad_lft_am(unsigned block, unsigned plft, uint32_t *am, char *err, size_t errlen);

#endif
