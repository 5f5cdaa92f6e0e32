/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/port_panel_db.h: what a switch panel shows of each port of one
 * node (issue 41), added to the rows of `ports NODE` (db_query.c's
 * port_json) without changing the fields they had:
 *   "peer": {"guid", "port", "name"} (the peer node's display name)
 *   "width_max", "speed_max": the best both ends can run (enabled and
 *       supported, link_state_db.h), "" when not cabled;
 *   "width_capable", "speed_capable": the best both ends support;
 *   "degraded": the active width or speed below width_max/speed_max;
 *   "rates": {"rx_bytes_s", "tx_bytes_s"} of the last counters read, null
 *       when it had none (first read, not answered);
 *   "errors": {"values": {COUNTER: n}, "deltas": {COUNTER: n} (the last
 *       read's, non-zero ones), "interval_s", "last_error": time of the
 *       last read whose error counters moved (null: none since the row
 *       was made), "last_error_n": their sum then} or null (never read);
 *   "details": {NAME: {"value", "delta", "state"}}: the PMA detail
 *       attributes of the last counters read (issue 42,
 *       counter_row_details_json), only when they were read;
 *   "alarms": [{"kind", "since", "why"}] (port_alarms, raised now);
 *   "down_since": for a port cabled before (its last peer) with no peer
 *       now: when it went down (link_state_db.h: LINK_STATE_DOWN_SINCE), null
 *       when the events no longer say;
 *       "last_peer": {"guid", "port", "name"} then. Absent otherwise. */
#ifndef LOOM_PORT_PANEL_DB_H
#define LOOM_PORT_PANEL_DB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

/* Add the above to ports (the array of port_json rows of node guid on
 * subnet sid, in port order). 0, or -errno with err. */
int port_panel_add(sqlite3 *db, int64_t sid, const char *guid, json_t *ports, char *err,
		   size_t errlen);

#endif
