/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/route_ar_plan.c: `route compute --ar-plan PATH`: for every switch
 * with adaptive routing groups, the SubnSet SMPs lib/ar/ar_plan.c makes to
 * program them, as text an operator can review or replay with smpdump-like
 * tools, one line per SMP in sending order:
 *
 *   # switch 0x0002c90300000001 'leaf-1' LID 3: 1 groups, 12 SMPs, assuming ...
 *   Set 0xFF20 am 0x00000000 <the 64-byte data field, 128 hex digits>
 *
 * Offline there is no ARInfo to read, so every plan is made for a switch
 * that reports group_cap = --ar-cap, by_sl_cap 1 and every other field 0;
 * the file says so. Nothing sends these: the attribute modifiers are not
 * confirmed (docs/ar-mad-notes.md), and the file says that too. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <string.h>

#include "lib/ar/ar_plan.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_graph.h"

static void print_mad(FILE *out, const struct ar_plan_mad *m)
{
	fprintf(out, "Set 0x%04X am 0x%08X ", m->attr, m->am);
	for (size_t i = 0; i < sizeof(m->data); i++)
		fprintf(out, "%02x", m->data[i]);
	fputc('\n', out);
}

static int err_switch(char *err, size_t errlen, const struct rt_graph *g, size_t s,
		      const char *why)
{
	snprintf(err, errlen, "switch 0x%016llx '%s': %s", (unsigned long long)g->sw[s].guid,
		 g->sw[s].desc, why);
	return -EINVAL;
}

int route_ar_plan_write(FILE *out, const char *topo, const struct rt_graph *g,
			const struct rt_ar *ar, uint16_t group_cap, char *err, size_t errlen)
{
	struct ar_mad_info cap;
	size_t n_sw = 0, n_mad = 0;

	memset(&cap, 0, sizeof(cap));
	cap.group_cap = group_cap;
	cap.by_sl_cap = 1;
	fprintf(out, "# loom adaptive routing plan for %s (%s mode): the SubnSet SMPs that "
		"would program each switch with AR groups, in sending order.\n", topo,
		rt_ar_mode_name(ar->mode));
	fprintf(out, "# NOT SENT by loom: the attribute modifiers are provisional "
		"(docs/ar-mad-notes.md); confirm them on a real switch before replaying a line.\n");
	fprintf(out, "# Offline: no ARInfo was read; every plan assumes ARInfo group_cap %u, "
		"by_sl_cap 1, every other field 0, and AR on all SLs.\n", group_cap);
	fprintf(out, "# Order: ARInfo e=0, group table (0xFF21), AR LFT SX (0xFF23) for LIDs "
		"0..%u, ARInfo e=1. Line: Set ATTR am MODIFIER DATA(64 bytes, hex).\n",
		ar->max_lid);
	for (size_t s = 0; s < ar->n_sw; s++) {
		const struct rt_ar_switch *sw = &ar->sw[s];
		struct ar_plan *p;
		char why[256] = "";

		if (sw->n_groups == 0)
			continue;
		if (!(p = ar_plan_new(sw, ar->max_lid, &cap, AR_PLAN_ALL_SLS, 0, why, sizeof(why))))
			return err_switch(err, errlen, g, s, why);
		/* Never print a plan that does not read back as the switch's
		 * groups and table: the check a writer will run on read-back. */
		if (ar_plan_check(p, sw, ar->max_lid, why, sizeof(why)) < 0) {
			ar_plan_free(p);
			return err_switch(err, errlen, g, s, why);
		}
		fprintf(out, "# switch 0x%016llx '%s' LID %u: %u groups, %zu SMPs, assuming "
			"ARInfo group_cap %u (offline, not read from the switch)\n",
			(unsigned long long)g->sw[s].guid, g->sw[s].desc, g->sw[s].lid,
			sw->n_groups, p->n, group_cap);
		for (size_t i = 0; i < p->n; i++)
			print_mad(out, &p->mad[i]);
		n_sw++;
		n_mad += p->n;
		ar_plan_free(p);
	}
	fprintf(out, "# %zu switches, %zu SMPs\n", n_sw, n_mad);
	if (ferror(out)) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}
