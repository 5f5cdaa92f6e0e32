/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/switch_counters_db.h: the Ethernet switches' counters as loom's
 * database holds them (schema 012, written by
 * daemon/telemetry/store_switch_counters.c). Shared by loomd's
 * "switch_counters" command and `loomctl --db counters --eth`. */
#ifndef LOOM_SWITCH_COUNTERS_DB_H
#define LOOM_SWITCH_COUNTERS_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* The last read of every switch (sw: only that one; port: only that port
 * of it), switches and ports sorted by name (ports naturally):
 *   {"switches": [{"switch", "plugin", "started", "finished" (ISO 8601),
 *                  "answered", "reason" (when not), "ports", "port_errors"}],
 *    "ports": [{"switch", "port", "answered", "reason" (when not),
 *               "stale": true when the counters are an older read's,
 *               "sampled", "interval_s", "counters": {NAME: n},
 *               "bits": {NAME: width}, "gauges": {NAME: level},
 *               "deltas": {NAME: {"state", "delta"}},
 *               "rates": {NAME: per second}}]}
 * NAMEs as loom_plugin.h's with ".pN" (priority) or ".qN" (queue). A port
 * never read has no "counters"; a stale port's deltas and rates are empty.
 * 0, or -ENOENT when nothing was read (or the database is older than
 * schema 12) or nothing matches, another -errno; with err. */
int switch_counters_db_read(sqlite3 *db, const char *sw, const char *port, json_t **out,
			    char *err, size_t errlen);

#endif
