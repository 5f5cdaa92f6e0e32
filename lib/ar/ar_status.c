/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_status.c: one switch's ARInfo probe as a `loomctl ar status` row
 * (see ar_status.h). Pure: no I/O. The stored side is ar_status_db.c.
 *
 * What a probe can and cannot tell:
 *  - ARInfo answered with status 0: the block decodes (every bit pattern
 *    does, lib/ar/ar_mad.h); AR is supported when group_cap > 0 (ar_mad.h:
 *    "0 = no AR"), enabled is the block's `e`, and the groups in use are
 *    0..group_top when AR is enabled (group_top is "the index of the
 *    highest enabled group"), none when it is not. The Get carries
 *    modifier 0, the current state: the GetCap bit of the modifier is not
 *    confirmed (docs/ar-mad-notes.md), so it is not sent.
 *  - An error status: "unsupported class version / method / method +
 *    attribute" (IBA 13.4.7 codes 1-3) is a switch without NVIDIA AR; any
 *    other status says nothing about AR, and the reason says so.
 *  - No answer: a switch that drops vendor SMPs (ibsim 0.10 does) or one
 *    that is unreachable; AR may or may not be enabled there, so enabled and
 *    the group counts are null, not false or 0. */
#include "autoconf.h"
#include "lib/ar/ar_status.h"

#include <stdio.h>

#include "lib/fabric/ibtypes.h"

/* MAD status bits 4:2 (IBA 13.4.7). */
#define MAD_CODE(s) (((s) >> 2) & 0x7)

static const char *status_meaning(unsigned st)
{
	switch (MAD_CODE(st)) {
	case 1: return "unsupported class version";
	case 2: return "unsupported method";
	case 3: return "unsupported method/attribute";
	default: return NULL;
	}
}

#define CAP(name) json_object_set_new(o, #name, json_integer(in->name))
#define FLAG(name) json_object_set_new(o, #name, json_boolean(in->name))

json_t *ar_status_caps(const struct ar_mad_info *in)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	FLAG(e); FLAG(is_arn_sup); FLAG(is_frn_sup); FLAG(is_fr_sup); FLAG(fr_enabled);
	FLAG(rn_xmit_enabled); FLAG(is_ar_trials_supported);
	CAP(sub_grps_active); CAP(group_table_copy_sup); CAP(direction_num_sup);
	FLAG(no_fallback); FLAG(is4_mode); FLAG(glb_groups); FLAG(by_sl_cap); FLAG(by_sl_en);
	FLAG(by_transp_cap); FLAG(dyn_cap_calc_sup);
	CAP(group_cap); CAP(group_top); CAP(group_table_cap); CAP(string_width_cap);
	CAP(ar_version_cap); CAP(rn_version_cap); CAP(sub_grps_supported);
	CAP(enable_by_sl_mask); CAP(by_transport_disable); CAP(ageing_time_value);
	FLAG(pfrn_enabled); FLAG(by_vl_en); FLAG(whbf_en); FLAG(by_sl_hbf_en);
	FLAG(is_pfrn_supported); FLAG(by_vl_cap); FLAG(is_bth_dqp_hash_supported);
	FLAG(is_dceth_hash_supported); FLAG(is_symmetric_hash_supported);
	FLAG(is_whbf_supported); FLAG(is_hbf_supported);
	CAP(enable_by_sl_mask_hbf); CAP(whbf_granularity); CAP(enable_by_vl_mask);
	CAP(sl_vl_mode); CAP(enable_by_vl_mask_hbf);
	return o;
}

#undef CAP
#undef FLAG

/* "AR enabled on SLs 0x0003" / "on every SL" / "AR disabled". */
static void enable_text(const struct ar_mad_info *in, char *buf, size_t len)
{
	if (!in->e)
		snprintf(buf, len, "AR disabled");
	else if (in->by_sl_en)
		snprintf(buf, len, "AR enabled on SLs 0x%04x", in->enable_by_sl_mask);
	else
		snprintf(buf, len, "AR enabled on every SL");
}

/* A node description as a JSON string: they are bytes from the switch,
 * not always UTF-8; anything else is shown as '?'. */
static json_t *desc_json(const char *desc)
{
	char buf[128];
	size_t i;
	json_t *v = json_string(desc ? desc : "");

	if (v)
		return v;
	for (i = 0; desc[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)desc[i] < 0x80 ? desc[i] : '?';
	buf[i] = '\0';
	return json_string(buf);
}

json_t *ar_status_switch(const struct ar_status_probe *p)
{
	char guid[24], reason[256], en[64], derr[128] = "";
	struct ar_mad_info in;
	json_t *o, *caps = NULL, *enabled = json_null(), *used = json_null(), *cap = json_null();
	int supported = 0;

	if (!p->answered && p->local_timeouts) {
		snprintf(reason, sizeof(reason), "no answer to ARInfo (vendor attribute 0xFF20) "
			 "in %u tr%s: the local port reported %u timed out", p->tries,
			 p->tries == 1 ? "y" : "ies", p->local_timeouts);
	} else if (!p->answered) {
		snprintf(reason, sizeof(reason), "no answer to ARInfo (vendor attribute 0xFF20) "
			 "in %u tr%s of %u ms", p->tries, p->tries == 1 ? "y" : "ies",
			 p->timeout_ms);
	} else if (p->mad_status) {
		const char *m = status_meaning(p->mad_status);

		if (m)
			snprintf(reason, sizeof(reason), "status 0x%04x: %s", p->mad_status, m);
		else
			snprintf(reason, sizeof(reason), "status 0x%04x: ARInfo refused, AR "
				 "capability unknown", p->mad_status);
		/* "Unsupported" is an answer: a switch without the attribute has
		 * no AR to be enabled. */
		if (m)
			enabled = json_false();
	} else if (ar_mad_info_decode(p->data, p->data ? AR_MAD_DATA_LEN : 0, &in, derr,
				      sizeof(derr)) < 0) {
		snprintf(reason, sizeof(reason), "ARInfo answer not decoded: %s", derr);
	} else {
		caps = ar_status_caps(&in);
		enabled = json_boolean(in.e);
		cap = json_integer(in.group_cap);
		used = json_integer(in.e ? in.group_top + 1 : 0);
		enable_text(&in, en, sizeof(en));
		if (in.group_cap == 0) {
			snprintf(reason, sizeof(reason), "ARInfo answered with group_cap 0: no AR "
				 "groups");
		} else {
			supported = 1;
			snprintf(reason, sizeof(reason), "%u groups x %u table%s, %u sub-groups; %s",
				 in.group_cap, in.group_table_cap, in.group_table_cap == 1 ? "" : "s",
				 in.sub_grps_supported, en);
		}
	}
	o = json_pack("{s:s, s:o, s:i, s:b, s:o, s:o, s:o, s:s, s:o, s:o}",
		      "guid", ibt_guid_str(p->guid, guid, sizeof(guid)),
		      "desc", desc_json(p->desc), "lid", (int)p->lid,
		      "supported", supported, "enabled", enabled, "groups_used", used,
		      "group_cap", cap, "reason", reason,
		      "mad_status", p->answered ? json_integer(p->mad_status) : json_null(),
		      "caps", caps ? caps : json_null());
	return o;
}
