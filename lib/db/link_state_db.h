/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/link_state_db.h: a link's state from the fabric as loom's database
 * holds it (issue 41), not from the events: shared by `links` (db_query.c)
 * and a switch panel's `ports` (port_panel_db.c).
 *
 * Degraded: the active width or speed is below the best that both ends can
 * run, which is the highest width (speed) that each end both supports and
 * has enabled (a port reporting no enabled set: what it supports). On
 * ibsim every port supports 12x QDR but enables 4x SDR: its 4x SDR links
 * are not degraded. The state of a link, worst first:
 *   "down"       a port that was cabled (schema 019's last peer) has no
 *                peer now; kept until the port is cabled again or disabled
 *                (PortPhysicalState Disabled: how an operator retires it)
 *   "errors"     an end has link_errors or link_flapped raised (the port
 *                alarms: telemetry.thresholds over a read, cleared after
 *                clear_after calm reads)
 *   "congested"  an end has link_congested raised (PortXmitWait a second
 *                above telemetry.thresholds.xmit_wait_per_s)
 *   "degraded"   as above
 *   "up"         none of these. */
#ifndef LOOM_LINK_STATE_DB_H
#define LOOM_LINK_STATE_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* One end's width and speed sets (IBT_WIDTH_*, IBT_SPEED_* bits). */
struct link_caps {
	unsigned width_enabled, width_supported, speed_enabled, speed_supported;
};

/* The best width and speed (single bits, 0: none known) a and b can run at. */
void link_state_best(const struct link_caps *a, const struct link_caps *b, unsigned *width,
		     unsigned *speed);
/* The best that a and b support, enabled or not (the hardware's ceiling). */
void link_state_capable(const struct link_caps *a, const struct link_caps *b,
			unsigned *width, unsigned *speed);
/* Is an active width and speed below the best (link_state_best)? */
int link_state_degraded(unsigned width_active, unsigned speed_active, unsigned best_width,
			unsigned best_speed);

/* The state of an up link from its ends' raised alarms ("kind: why" joined
 * by "; ", NULL: none) and whether it is degraded; *reason gets why (a
 * static buffer of the caller's, len bytes: "" when up). */
const char *link_state_of(const char *a_name, int a_port, const char *a_alarms,
			  const char *b_name, int b_port, const char *b_alarms, int degraded,
			  const char *rate, const char *best, char *reason, size_t len);

/* Append to links (the array of `links`) the links that are down now: a
 * port whose last peer is known and which has no peer, once per cable,
 * each {"fabric": "ib", "subnet", "a": {"guid", "port", "desc", "name"},
 * "b": {...: the last peer}, "width": "", "speed": "", "degraded": false,
 * "state": "down", "reason", "down_since": LINK_STATE_DOWN_SINCE's time,
 * or null}. 0, or -errno with err. */
int link_state_down_links(sqlite3 *db, json_t *links, char *err, size_t errlen);

/* The SQL of when a port (node GUID and number columns) that faced
 * last_guid went down: its newest link_down or port_state event, or its
 * last peer's node_disappeared (a host whose one cable was cut leaves the
 * fabric: no link_down then); NULL when the events have none (pruned, or
 * coalesced into a nodes_disappeared). Newest first along events' time
 * index: a recent cut is found at once. */
#define LINK_STATE_DOWN_SINCE(guid_col, num_col, last_guid_col) \
	"(SELECT e.time FROM events e WHERE " \
	"(e.kind IN ('link_down', 'port_state') AND " \
	"(e.subject LIKE " guid_col " || '[' || " num_col " || ']%' OR " \
	"e.subject LIKE '%<-> ' || " guid_col " || '[' || " num_col " || ']%')) OR " \
	"(e.kind = 'node_disappeared' AND e.subject LIKE " last_guid_col " || ' %') " \
	"ORDER BY e.time DESC LIMIT 1)"

/* The SQL of a port's raised alarms as "kind: why; kind: why", NULL: none. */
#define LINK_STATE_ALARMS(subnet_col, guid_col, port_col) \
	"(SELECT group_concat(pa.kind || ': ' || pa.why, '; ') FROM port_alarms pa " \
	"WHERE pa.subnet_id = " subnet_col " AND pa.guid = " guid_col " AND pa.port = " \
	port_col " AND pa.kind <> 'counters_unreadable')"

#endif
