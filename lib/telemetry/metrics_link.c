/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/metrics_link.c: see metrics_link.h. */
#include "autoconf.h"
#include "lib/telemetry/metrics_link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

enum link_family { LF_STATE, LF_PHYS, LF_WIDTH, LF_SPEED, LF_RATE, LF_DEGRADED, LF_N };

static const struct {
	const char *name, *help;
	int up_only;      /* only while the link is up (state above Down) */
} fam[LF_N] = {
	[LF_STATE] = { "loom_port_state_id", "The port's logical state at the last sweep "
		       "(PortInfo:PortState): 1 Down, 2 Initialize, 3 Armed, 4 Active. A cut "
		       "cable keeps its series and turns to 1.", 0 },
	[LF_PHYS] = { "loom_port_physical_state_id", "The port's physical state at the last "
		      "sweep (PortInfo:PortPhysicalState): 1 Sleep, 2 Polling, 3 Disabled, "
		      "4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 PhyTest.", 0 },
	[LF_WIDTH] = { "loom_port_link_width_lanes", "Lanes the link runs on "
		       "(LinkWidthActive: 1, 2, 4, 8 or 12).", 1 },
	[LF_SPEED] = { "loom_port_link_lane_speed_bytes_per_second", "Nominal rate of one "
		       "lane in bytes per second (LinkSpeedActive: SDR 2.5 Gb/s ... NDR "
		       "100 Gb/s, divided by 8; base units, as promtool wants).", 1 },
	[LF_RATE] = { "loom_port_rate_bytes_per_second", "Nominal rate of the link: lanes "
		      "times the lane rate, in bytes per second (as node_exporter's "
		      "node_infiniband_rate_bytes_per_second).", 1 },
	[LF_DEGRADED] = { "loom_port_link_degraded", "1 when the link runs narrower or slower "
			  "than both its ends support, else 0.", 1 },
};

static void put_label(struct mt_buf *b, const char *name, const char *value)
{
	mt_puts(b, name);
	mt_puts(b, "=\"");
	mt_put_label_value(b, value);
	mt_puts(b, "\"");
}

static void labels(struct mt_buf *b, const struct mt_link_port *p)
{
	char num[16];

	put_label(b, "{subnet", p->subnet);
	put_label(b, ",guid", p->guid);
	snprintf(num, sizeof(num), "%u", p->port);
	put_label(b, ",port", num);
	put_label(b, ",node", p->node);
	put_label(b, ",remote_guid", p->remote_guid);
	snprintf(num, sizeof(num), "%u", p->remote_port);
	put_label(b, ",remote_port", num);
	put_label(b, ",remote_node", p->remote_node);
	mt_puts(b, "}");
}

static double value(enum link_family f, const struct mt_link_port *p)
{
	int lanes = ibt_width_lanes(p->width_active);
	double lane_bps = ibt_lane_gbps(p->speed_active) * 1e9;

	switch (f) {
	case LF_STATE: return p->state;
	case LF_PHYS: return p->phys_state;
	case LF_WIDTH: return lanes;
	case LF_SPEED: return lane_bps / 8;
	case LF_RATE: return lanes * lane_bps / 8;
	default: return p->degraded != 0;
	}
}

int mt_render_links(const struct mt_link_port *p, size_t n, struct mt_buf *out)
{
	struct mt_buf lab = { 0 };   /* every port's labels, escaped once */
	size_t *off = calloc(n + 1, sizeof(*off));
	char num[48];

	if (!off)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		off[i] = lab.len;
		labels(&lab, &p[i]);
	}
	off[n] = lab.len;
	for (int f = 0; f < LF_N && !lab.oom; f++) {
		mt_puts(out, "# HELP ");
		mt_puts(out, fam[f].name);
		mt_puts(out, " ");
		mt_puts(out, fam[f].help);
		mt_puts(out, "\n# TYPE ");
		mt_puts(out, fam[f].name);
		mt_puts(out, " gauge\n");
		for (size_t i = 0; i < n; i++) {
			if (fam[f].up_only && p[i].state <= 1)
				continue;
			mt_puts(out, fam[f].name);
			mt_put(out, lab.p + off[i], off[i + 1] - off[i]);
			snprintf(num, sizeof(num), " %.15g\n", value(f, &p[i]));
			mt_puts(out, num);
		}
	}
	free(off);
	if (lab.oom) {
		mt_buf_free(&lab);
		return -ENOMEM;
	}
	mt_buf_free(&lab);
	return out->oom ? -ENOMEM : 0;
}
