/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_plan.c: the SMPs that would program one switch's adaptive routing;
 * see ar_plan.h for what a plan holds and in which order.
 *
 * Why this order. AR goes off first, so that no packet is steered by a
 * half-written table: a group entry or an LFT block written while AR is on
 * takes effect at once, and until every block is in, a LID could point at a
 * group that still holds another switch's (or a stale run's) ports. The
 * first ARInfo already sets sub_grps_active 0 because that decides how the
 * group table's entries read (one group each, or sub-groups). Groups go
 * before the LFT so that no LFT entry ever names a group not yet written;
 * the enable comes last, when both tables are whole.
 *
 * Why static LIDs are written at all. The SX entry carries the LID's
 * default (static) port, which the switch uses when AR is off for the LID's
 * SL or the LID is STATIC; writing every LID up to max_lid, and STATIC
 * where sw has no group, makes the AR table say what the static LFT says
 * everywhere AR has nothing to add, instead of trusting what an earlier run
 * left in it. */
#include "autoconf.h"
#include "lib/ar/ar_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/log.h"

/* The SX entry of one LID as sw wants it. */
static struct ar_mad_lft_sx_entry lid_entry(const struct rt_ar_switch *sw, uint32_t max_lid,
					    uint32_t lid)
{
	struct ar_mad_lft_sx_entry e = { .table_number = 0 };
	uint8_t port = lid <= max_lid ? sw->port[lid] : RT_NO_PORT;
	uint16_t grp = lid <= max_lid ? sw->group[lid] : RT_AR_NO_GROUP;

	e.default_port = port;
	if (grp != RT_AR_NO_GROUP) {
		e.lid_state = AR_MAD_LID_FREE;
		e.group_number = grp;
	} else {
		/* STATIC: the group number is the port (RT_NO_PORT, 255, when
		 * the LID is not routed here, as in the static LFT). */
		e.lid_state = AR_MAD_LID_STATIC;
		e.group_number = port;
	}
	return e;
}

/* The ARInfo both Sets carry: cap, with what loom manages set. */
static struct ar_mad_info plan_info(const struct ar_mad_info *cap, unsigned n_groups,
				    uint16_t sl_mask, uint8_t fr_enabled, int enable)
{
	struct ar_mad_info i = *cap;

	i.e = enable && n_groups > 0;
	/* Managed either way: shield off turns off what an earlier run (or
	 * another manager) turned on, so the switch does what loom.yaml says. */
	i.fr_enabled = fr_enabled;
	i.group_top = (uint16_t)(n_groups ? n_groups - 1 : 0);
	i.sub_grps_active = 0;  /* one entry of the group table = one group */
	if (sl_mask == AR_PLAN_ALL_SLS) {
		i.by_sl_en = 0;  /* AR on every SL; the mask is then ignored */
	} else {
		i.by_sl_en = 1;
		i.enable_by_sl_mask = sl_mask;
	}
	return i;
}

/* Arguments and sw itself: 0, or -EINVAL with the reason. */
static int plan_refuse(const struct rt_ar_switch *sw, uint32_t max_lid,
		       const struct ar_mad_info *cap, uint16_t sl_mask, char *err, size_t errlen)
{
	uint32_t lft_blocks = max_lid / AR_MAD_LFT_SX_ENTRIES + 1;
	uint32_t group_blocks = (sw->n_groups + AR_MAD_GROUP_ENTRIES - 1) / AR_MAD_GROUP_ENTRIES;

	if (cap->group_cap == 0)
		return err_fmt(err, errlen, -EINVAL, "no adaptive routing: ARInfo group_cap is 0 "
			       "(the switch has %u groups to program)", sw->n_groups);
	if (sw->n_groups > cap->group_cap)
		return err_fmt(err, errlen, -EINVAL, "%u AR groups, but ARInfo group_cap is %u",
			       sw->n_groups, cap->group_cap);
	if (group_blocks > AR_PLAN_GROUP_BLOCKS)
		return err_fmt(err, errlen, -EINVAL, "%u AR groups need %u group-table blocks, "
			       "the attribute has %u", sw->n_groups, group_blocks,
			       AR_PLAN_GROUP_BLOCKS);
	if (lft_blocks > AR_PLAN_LFT_SX_BLOCKS)
		return err_fmt(err, errlen, -EINVAL, "max LID %u needs %u AR LFT blocks, the "
			       "attribute has %u (LIDs up to %u)", max_lid, lft_blocks,
			       AR_PLAN_LFT_SX_BLOCKS,
			       AR_PLAN_LFT_SX_BLOCKS * AR_MAD_LFT_SX_ENTRIES - 1);
	if (sl_mask != AR_PLAN_ALL_SLS && !cap->by_sl_cap)
		return err_fmt(err, errlen, -EINVAL, "AR on SL mask 0x%04x, but ARInfo by_sl_cap "
			       "is 0: the switch can only do AR on all SLs (mask 0x%04x)",
			       sl_mask, AR_PLAN_ALL_SLS);
	/* Ports 0 (the switch itself) and 255 (the LFT's "unreachable") are no
	 * data ports: a group holding one would steer packets nowhere. rt_ar
	 * sets have room for ports 0..255 only, so nothing can lie above. */
	for (uint32_t g = 0; g < sw->n_groups; g++)
		if (rt_ar_ports_has(&sw->groups[g], 0) || rt_ar_ports_has(&sw->groups[g], 255))
			return err_fmt(err, errlen, -EINVAL, "AR group %u holds port %u, which is "
				       "no data port", g, rt_ar_ports_has(&sw->groups[g], 0) ? 0 : 255);
	for (uint32_t lid = 0; lid <= max_lid; lid++) {
		uint16_t grp = sw->group[lid];

		if (grp == RT_AR_NO_GROUP)
			continue;
		if (grp >= sw->n_groups)
			return err_fmt(err, errlen, -EINVAL, "LID %u: AR group %u, but the switch "
				       "has %u groups", lid, grp, sw->n_groups);
		/* The default port is what the switch falls back to: it must be
		 * one of the group's, or static and adaptive routing disagree. */
		if (!rt_ar_ports_has(&sw->groups[grp], sw->port[lid]))
			return err_fmt(err, errlen, -EINVAL, "LID %u: static port %u is not in its "
				       "AR group %u", lid, sw->port[lid], grp);
	}
	return 0;
}

static int add_info(struct ar_plan *p, const struct ar_mad_info *info, char *err, size_t errlen)
{
	struct ar_plan_mad *m = &p->mad[p->n];
	int rc;

	m->attr = AR_MAD_ATTR_INFO;
	m->am = ar_mad_info_am(0);
	if ((rc = ar_mad_info_encode(info, m->data, sizeof(m->data), err, errlen)) < 0)
		return rc;
	p->n++;
	return 0;
}

static int add_groups(struct ar_plan *p, const struct rt_ar_switch *sw, char *err, size_t errlen)
{
	for (unsigned b = 0; b < p->n_group_blocks; b++) {
		struct ar_plan_mad *m = &p->mad[p->n];
		struct ar_mad_group_block blk;
		int rc;

		memset(&blk, 0, sizeof(blk));
		for (unsigned e = 0; e < AR_MAD_GROUP_ENTRIES; e++) {
			unsigned g = b * AR_MAD_GROUP_ENTRIES + e;

			if (g < sw->n_groups)
				memcpy(blk.ports[e], sw->groups[g].w, sizeof(blk.ports[e]));
		}
		m->attr = AR_MAD_ATTR_GROUP_TABLE;
		if ((rc = ar_mad_group_am(b, 0, 0, &m->am, err, errlen)) < 0 ||
		    (rc = ar_mad_group_encode(&blk, m->data, sizeof(m->data), err, errlen)) < 0)
			return rc;
		p->n++;
	}
	return 0;
}

static int add_lft(struct ar_plan *p, const struct rt_ar_switch *sw, uint32_t max_lid,
		   char *err, size_t errlen)
{
	for (unsigned b = 0; b < p->n_lft_blocks; b++) {
		struct ar_plan_mad *m = &p->mad[p->n];
		struct ar_mad_lft_sx_block blk;
		int rc;

		memset(&blk, 0, sizeof(blk));
		for (unsigned i = 0; i < AR_MAD_LFT_SX_ENTRIES; i++)
			blk.e[i] = lid_entry(sw, max_lid, b * AR_MAD_LFT_SX_ENTRIES + i);
		m->attr = AR_MAD_ATTR_LFT_SX;
		if ((rc = ar_mad_lft_am(b, 0, &m->am, err, errlen)) < 0 ||
		    (rc = ar_mad_lft_sx_encode(&blk, m->data, sizeof(m->data), err, errlen)) < 0)
			return rc;
		p->n++;
	}
	return 0;
}

struct ar_plan *ar_plan_new(const struct rt_ar_switch *sw, uint32_t max_lid,
			    const struct ar_mad_info *cap, uint16_t sl_mask, unsigned flags,
			    char *err, size_t errlen)
{
	struct ar_plan *p;
	struct ar_mad_info off, on;

	if (!sw || !cap) {
		err_fmt(err, errlen, -EINVAL, "no switch or no ARInfo capabilities");
		return NULL;
	}
	if (plan_refuse(sw, max_lid, cap, sl_mask, err, errlen) < 0)
		return NULL;
	if (!(p = calloc(1, sizeof(*p)))) {
		err_fmt(err, errlen, -ENOMEM, "out of memory for an AR plan");
		return NULL;
	}
	p->n_groups = sw->n_groups;
	p->sl_mask = sl_mask;
	p->max_lid = max_lid;
	p->group_cap = cap->group_cap;
	p->flags = flags;
	p->fr_enabled = (flags & AR_PLAN_SHIELD) && cap->is_fr_sup;
	p->n_group_blocks = (sw->n_groups + AR_MAD_GROUP_ENTRIES - 1) / AR_MAD_GROUP_ENTRIES;
	p->n_lft_blocks = max_lid / AR_MAD_LFT_SX_ENTRIES + 1;
	if (!(p->mad = calloc((size_t)p->n_group_blocks + p->n_lft_blocks + 2, sizeof(*p->mad)))) {
		err_fmt(err, errlen, -ENOMEM, "out of memory for an AR plan of %u SMPs",
			p->n_group_blocks + p->n_lft_blocks + 2);
		free(p);
		return NULL;
	}
	/* Fault recovery steers by the groups: off while they are rewritten,
	 * on (if asked for) only with AR, once the tables verified. */
	off = plan_info(cap, sw->n_groups, sl_mask, 0, 0);
	on = plan_info(cap, sw->n_groups, sl_mask, p->fr_enabled, 1);
	/* The encoders refuse only values wider than their fields: a cap
	 * that decoded cannot have one, but a caller's hand-made one can. */
	if (add_info(p, &off, err, errlen) < 0 || add_groups(p, sw, err, errlen) < 0 ||
	    add_lft(p, sw, max_lid, err, errlen) < 0 || add_info(p, &on, err, errlen) < 0) {
		ar_plan_free(p);
		return NULL;
	}
	return p;
}

void ar_plan_free(struct ar_plan *p)
{
	if (!p)
		return;
	free(p->mad);
	free(p);
}

/* ---- checking a plan against the switch ---------------------------------------- */

/* MAD i is attribute attr with modifier am. */
static int check_mad(const struct ar_plan *p, size_t i, uint16_t attr, uint32_t am,
		     const char *what, char *err, size_t errlen)
{
	if (i >= p->n)
		return err_fmt(err, errlen, -EINVAL, "MAD %zu (%s): the plan has only %zu", i,
			       what, p->n);
	if (p->mad[i].attr != attr)
		return err_fmt(err, errlen, -EINVAL, "MAD %zu (%s): attribute 0x%04X, expected "
			       "0x%04X", i, what, p->mad[i].attr, attr);
	if (p->mad[i].am != am)
		return err_fmt(err, errlen, -EINVAL, "MAD %zu (%s): modifier 0x%08X, expected "
			       "0x%08X", i, what, p->mad[i].am, am);
	return 0;
}

static int check_info(const struct ar_plan *p, const struct rt_ar_switch *sw,
		      char *err, size_t errlen)
{
	struct ar_mad_info first, last, want;
	uint8_t a[AR_MAD_DATA_LEN], b[AR_MAD_DATA_LEN];
	int rc;

	if ((rc = check_mad(p, 0, AR_MAD_ATTR_INFO, ar_mad_info_am(0), "first ARInfo", err,
			    errlen)) < 0 ||
	    (rc = check_mad(p, p->n - 1, AR_MAD_ATTR_INFO, ar_mad_info_am(0), "last ARInfo",
			    err, errlen)) < 0)
		return rc;
	if ((rc = ar_mad_info_decode(p->mad[0].data, AR_MAD_DATA_LEN, &first, err, errlen)) < 0 ||
	    (rc = ar_mad_info_decode(p->mad[p->n - 1].data, AR_MAD_DATA_LEN, &last, err,
				     errlen)) < 0)
		return rc;
	if (first.e)
		return err_fmt(err, errlen, -EINVAL, "first ARInfo: e is 1: AR stays on while "
			       "the tables change");
	if (last.e != (sw->n_groups > 0))
		return err_fmt(err, errlen, -EINVAL, "last ARInfo: e is %u, the switch has %u "
			       "AR groups", last.e, sw->n_groups);
	if (sw->n_groups && last.group_top != sw->n_groups - 1)
		return err_fmt(err, errlen, -EINVAL, "last ARInfo: group_top %u, expected %u",
			       last.group_top, sw->n_groups - 1);
	if (last.sub_grps_active != 0)
		return err_fmt(err, errlen, -EINVAL, "last ARInfo: sub_grps_active %u, expected 0",
			       last.sub_grps_active);
	if (p->sl_mask == AR_PLAN_ALL_SLS ? last.by_sl_en != 0 :
	    last.by_sl_en != 1 || last.enable_by_sl_mask != p->sl_mask)
		return err_fmt(err, errlen, -EINVAL, "last ARInfo: by_sl_en %u, enable_by_sl_mask "
			       "0x%04x, expected AR on SL mask 0x%04x", last.by_sl_en,
			       last.enable_by_sl_mask, p->sl_mask);
	if (last.fr_enabled != p->fr_enabled)
		return err_fmt(err, errlen, -EINVAL, "last ARInfo: fr_enabled %u, expected %u "
			       "(fast link fault recovery %s)", last.fr_enabled, p->fr_enabled,
			       p->fr_enabled ? "on" : "off");
	if (first.fr_enabled)
		return err_fmt(err, errlen, -EINVAL, "first ARInfo: fr_enabled is 1: fault "
			       "recovery would steer by groups being rewritten");
	/* Both Sets are the same but for e and fr_enabled: the first already
	 * sets the layout the tables are written for, and neither may touch
	 * differently what loom does not manage. */
	want = last;
	want.e = 0;
	want.fr_enabled = 0;
	/* Compared re-encoded: struct padding may differ, fields may not. */
	if ((rc = ar_mad_info_encode(&want, a, sizeof(a), err, errlen)) < 0 ||
	    (rc = ar_mad_info_encode(&first, b, sizeof(b), err, errlen)) < 0)
		return rc;
	if (memcmp(a, b, sizeof(a)) != 0)
		return err_fmt(err, errlen, -EINVAL, "first ARInfo differs from the last in more "
			       "than e and fr_enabled");
	return 0;
}

static int check_groups(const struct ar_plan *p, const struct rt_ar_switch *sw,
			char *err, size_t errlen)
{
	unsigned n_blocks = (sw->n_groups + AR_MAD_GROUP_ENTRIES - 1) / AR_MAD_GROUP_ENTRIES;
	int rc;

	for (unsigned b = 0; b < n_blocks; b++) {
		struct ar_mad_group_block blk;
		uint32_t am;

		if ((rc = ar_mad_group_am(b, 0, 0, &am, err, errlen)) < 0 ||
		    (rc = check_mad(p, 1 + b, AR_MAD_ATTR_GROUP_TABLE, am, "group table", err,
				    errlen)) < 0 ||
		    (rc = ar_mad_group_decode(p->mad[1 + b].data, AR_MAD_DATA_LEN, &blk, err,
					      errlen)) < 0)
			return rc;
		for (unsigned e = 0; e < AR_MAD_GROUP_ENTRIES; e++) {
			unsigned g = b * AR_MAD_GROUP_ENTRIES + e;

			for (unsigned port = 0; port < AR_MAD_GROUP_PORTS; port++) {
				int want = g < sw->n_groups && rt_ar_ports_has(&sw->groups[g], port);

				if (ar_mad_group_has_port(&blk, e, port) == want)
					continue;
				if (g >= sw->n_groups)
					return err_fmt(err, errlen, -EINVAL, "group table block %u "
						       "entry %u: port %u in entry past the last "
						       "group (%u groups)", b, e, port,
						       sw->n_groups);
				return err_fmt(err, errlen, -EINVAL, "group %u: port %u %s", g,
					       port, want ? "missing" : "not in the switch's set");
			}
		}
	}
	return 0;
}

static int check_lft(const struct ar_plan *p, const struct rt_ar_switch *sw, uint32_t max_lid,
		     unsigned first_mad, char *err, size_t errlen)
{
	unsigned n_blocks = max_lid / AR_MAD_LFT_SX_ENTRIES + 1;
	int rc;

	for (unsigned b = 0; b < n_blocks; b++) {
		struct ar_mad_lft_sx_block blk;
		uint32_t am;

		if ((rc = ar_mad_lft_am(b, 0, &am, err, errlen)) < 0 ||
		    (rc = check_mad(p, first_mad + b, AR_MAD_ATTR_LFT_SX, am, "AR LFT", err,
				    errlen)) < 0 ||
		    (rc = ar_mad_lft_sx_decode(p->mad[first_mad + b].data, AR_MAD_DATA_LEN, &blk,
					       err, errlen)) < 0)
			return rc;
		for (unsigned i = 0; i < AR_MAD_LFT_SX_ENTRIES; i++) {
			uint32_t lid = b * AR_MAD_LFT_SX_ENTRIES + i;
			const struct ar_mad_lft_sx_entry *got = &blk.e[i];
			/* Expected straight from sw, not from the builder's
			 * lid_entry(): a slip there must not hide here. */
			uint8_t port = lid <= max_lid ? sw->port[lid] : RT_NO_PORT;
			uint16_t grp = lid <= max_lid ? sw->group[lid] : RT_AR_NO_GROUP;
			int in_group = grp != RT_AR_NO_GROUP;
			unsigned state = in_group ? AR_MAD_LID_FREE : AR_MAD_LID_STATIC;
			unsigned number = in_group ? grp : port;

			if (got->default_port != port)
				return err_fmt(err, errlen, -EINVAL, "LID %u: default port %u, the "
					       "static LFT has %u", lid, got->default_port, port);
			if (got->lid_state != state)
				return err_fmt(err, errlen, -EINVAL, "LID %u: lid_state %u, expected "
					       "%u (%s)", lid, got->lid_state, state,
					       in_group ? "in an AR group" : "static");
			if (got->group_number != number)
				return err_fmt(err, errlen, -EINVAL, "LID %u: group_number %u, "
					       "expected %s %u", lid, got->group_number,
					       in_group ? "group" : "port", number);
			if (got->table_number != 0)
				return err_fmt(err, errlen, -EINVAL, "LID %u: table_number %u, "
					       "expected 0", lid, got->table_number);
			/* A FREE LID's default must be one of its group's ports. */
			if (got->lid_state == AR_MAD_LID_FREE && got->group_number >= sw->n_groups)
				return err_fmt(err, errlen, -EINVAL, "LID %u: group %u, the switch "
					       "has %u groups", lid, got->group_number,
					       sw->n_groups);
			if (got->lid_state == AR_MAD_LID_FREE &&
			    !rt_ar_ports_has(&sw->groups[got->group_number], got->default_port))
				return err_fmt(err, errlen, -EINVAL, "LID %u: default port %u is not "
					       "in its group %u", lid, got->default_port,
					       got->group_number);
		}
	}
	return 0;
}

int ar_plan_check(const struct ar_plan *p, const struct rt_ar_switch *sw, uint32_t max_lid,
		  char *err, size_t errlen)
{
	unsigned n_group_blocks, n_lft_blocks;
	size_t want_n;
	int rc;

	if (!p || !sw)
		return err_fmt(err, errlen, -EINVAL, "no plan or no switch");
	if (max_lid / AR_MAD_LFT_SX_ENTRIES + 1 > AR_PLAN_LFT_SX_BLOCKS)
		return err_fmt(err, errlen, -EINVAL, "max LID %u beyond the AR LFT", max_lid);
	n_group_blocks = (sw->n_groups + AR_MAD_GROUP_ENTRIES - 1) / AR_MAD_GROUP_ENTRIES;
	n_lft_blocks = max_lid / AR_MAD_LFT_SX_ENTRIES + 1;
	want_n = (size_t)n_group_blocks + n_lft_blocks + 2;
	if (p->n != want_n)
		return err_fmt(err, errlen, -EINVAL, "%zu MADs, expected %zu (2 ARInfo, %u group "
			       "table, %u AR LFT)", p->n, want_n, n_group_blocks, n_lft_blocks);
	if ((rc = check_info(p, sw, err, errlen)) < 0 ||
	    (rc = check_groups(p, sw, err, errlen)) < 0 ||
	    (rc = check_lft(p, sw, max_lid, 1 + n_group_blocks, err, errlen)) < 0)
		return rc;
	return 0;
}
