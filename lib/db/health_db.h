/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/health_db.h: the fabric's health as loom's database holds it
 * (issue 19): the alarms the port counters raised (schema 011), the worst
 * ports by errors (in their last read, or within a window) and by congestion
 * in their last read, and the ports whose
 * counters are stale, each with the port at the other end of its link.
 * Shared by loomd's "health" command and `loomctl --db health`. */
#ifndef LOOM_HEALTH_DB_H
#define LOOM_HEALTH_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* Over every subnet read (or `subnet`), at most `top` rows in each list:
 *   {"reads": [{"subnet", "finished", "ports", "answered"}],
 *    "alarms": [{"subnet", "guid", "node", "port", "peer", "kind", "since",
 *                "last", "why", "clearing": reads calm so far}],
 *    "errors": [{..., "errors": sum of the error counters' deltas in the
 *                last read, "lower_bound": true when a counter was reset or
 *                saturated, "moved": {name: delta}, "last_error": when
 *                they last moved, "last_errors": that read's sum,
 *                "counts": {name: value as the PMA holds it, not 0}}],
 *               the ports whose errors moved in the last read or within
 *               window_s seconds of now, worst (then latest) first
 *    "congestion": [{..., "xmit_wait_per_s", "xmit_mb_s"}],  worst first
 *    "stale": [{..., "reason", "sampled"}],
 *    "congestion_trees": [{"subnet", "tables", ...congestion_roots()}],
 *    and without `subnet`, the Ethernet switches:
 *    "switch_alarms": [{"switch", "port", "peer", "kind", "since", "last",
 *                       "why", "clearing"}],
 *    "pause_trees": pause_trees() of the ports with pfc_storm}
 * "peer" is "NODE:PORT" at the other end of the link (null: not known).
 * 0; -ENOENT when nothing was read (or the database is older than schema
 * 11, or there is no such subnet), another -errno; with err. */
int health_db_read(sqlite3 *db, const char *subnet, unsigned top, unsigned window_s,
		   json_t **out, char *err, size_t errlen);

#endif
