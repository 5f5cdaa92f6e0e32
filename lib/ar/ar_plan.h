/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_plan.h: the SubnSet SMPs that would program one switch's NVIDIA
 * adaptive routing (issue 7): its AR groups (route_ar.h, struct
 * rt_ar_switch) and its static table, encoded with lib/ar/ar_mad.h for the
 * capabilities the switch reported in ARInfo (0xFF20 GetCap). Pure: nothing
 * here sends anything. The attribute modifiers are not confirmed
 * (docs/ar-mad-notes.md): only lib/ar/ar_program.c sends a plan, after its
 * modifier self-check on the switch, and only with ar.program: true.
 *
 * A plan, in the order a writer must send it:
 *   1. ARInfo (0xFF20), e = 0: AR off while its tables change, with the
 *      group-table layout the rest assumes (sub_grps_active 0);
 *   2. the group table (0xFF21): group g in block g / 2, entry g % 2,
 *      table 0, pLFT 0; the entry is the group's port mask;
 *   3. the AR LFT in the SX layout (0xFF23, 16 LIDs a block), LIDs
 *      0..max_lid: a LID with a group is FREE with that group and its
 *      static port as default; any other LID (no group, dropped for
 *      capacity, switch LIDs) is STATIC with the static port as both group
 *      number and default; an unrouted one STATIC to RT_NO_PORT (255), as
 *      the static LFT has it;
 *   4. ARInfo, e = 1 with group_top = n_groups - 1 (e stays 0 when the
 *      switch has no group: the plan then only makes its AR LFT static).
 * The ARInfo Sets carry cap with only e, group_top, sub_grps_active,
 * by_sl_en, enable_by_sl_mask and fr_enabled changed, so what loom does not
 * manage stays as the switch reported it. fr_enabled is 0 in the first Set
 * (fault recovery steers by the groups being rewritten) and p->fr_enabled
 * in the last. */
#ifndef LOOM_AR_PLAN_H
#define LOOM_AR_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/route_ar.h"

/* Blocks the attributes have (NVIDIA's AR manager, osm_armgr_types.hpp;
 * docs/ar-mad-notes.md): 1024 group-table blocks of 2 groups, 3072 SX LFT
 * blocks of 16 LIDs (LIDs 0..49151). */
#define AR_PLAN_GROUP_BLOCKS  1024
#define AR_PLAN_LFT_SX_BLOCKS 3072

#define AR_PLAN_ALL_SLS 0xFFFF  /* sl_mask: AR on every SL (by_sl_en 0) */

/* flags of ar_plan_new: */
#define AR_PLAN_SHIELD 0x1      /* fast link fault recovery (SHIELD): fr_enabled 1
				 * where ARInfo reports is_fr_sup; 0 elsewhere */

/* One SubnSet: attribute ID, attribute modifier, the 64-byte data field. */
struct ar_plan_mad {
	uint16_t attr;
	uint32_t am;
	uint8_t data[AR_MAD_DATA_LEN];
};

struct ar_plan {
	size_t n;                  /* MADs, in sending order */
	struct ar_plan_mad *mad;
	unsigned n_groups;         /* the switch's groups */
	unsigned sl_mask;          /* SLs under AR (AR_PLAN_ALL_SLS: all) */
	unsigned n_group_blocks;   /* 0xFF21 MADs: ceil(n_groups / 2) */
	unsigned n_lft_blocks;     /* 0xFF23 MADs: ceil((max_lid + 1) / 16) */
	uint32_t max_lid;
	uint16_t group_cap;        /* cap->group_cap the plan was made for */
	unsigned flags;            /* ar_plan_new's */
	uint8_t fr_enabled;        /* what the enabling ARInfo Set carries: 1 only
				    * with AR_PLAN_SHIELD on a switch with is_fr_sup */
};

/* The plan for switch sw (made by rt_ar_new for LIDs 0..max_lid) on a
 * switch whose ARInfo GetCap decoded to cap, with AR on the SLs of sl_mask.
 * flags: AR_PLAN_SHIELD or 0. fr_enabled is managed too: 1 with
 * AR_PLAN_SHIELD when cap->is_fr_sup, else 0 (a switch that cannot do it is
 * programmed without it, not refused; p->fr_enabled says which).
 * NULL with the reason in err when AR cannot be programmed as sw wants:
 * cap->group_cap 0 (no AR), more groups than group_cap or than the group
 * table's blocks hold, max_lid beyond the SX LFT's blocks, a group with
 * port 0 or 255 (no data port) or a LID naming a group sw lacks, an SL mask
 * other than AR_PLAN_ALL_SLS without cap->by_sl_cap; or out of memory. */
struct ar_plan *ar_plan_new(const struct rt_ar_switch *sw, uint32_t max_lid,
			    const struct ar_mad_info *cap, uint16_t sl_mask, unsigned flags,
			    char *err, size_t errlen);
void ar_plan_free(struct ar_plan *p);

/* Proves that p programs exactly sw (LIDs 0..max_lid) by decoding every MAD
 * back with the ar_mad decoders: the order and attribute modifiers above;
 * every group's mask is sw's set and no entry past the last group is used;
 * every LID's default port is sw->port[lid] (the static LFT), its state and
 * group number are those of sw->group[lid] (FREE in its group, or STATIC to
 * its port) and a FREE LID's default port is a member of its group; the
 * first ARInfo disables AR and the last enables it (when sw has groups)
 * with group_top n_groups - 1, sub_grps_active 0, p->sl_mask and
 * fr_enabled p->fr_enabled (the first: 0). Meant for
 * a read-back too. 0, or -EINVAL naming the first difference (MAD, LID,
 * group, field) in err. */
int ar_plan_check(const struct ar_plan *p, const struct rt_ar_switch *sw, uint32_t max_lid,
		  char *err, size_t errlen);

#endif
