/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/counters_db.h: the port counters of a subnet as loom's database
 * holds them (schema 010, written by daemon/telemetry/store_counters.c).
 * Shared by loomd's "counters" command and `loomctl --db counters`. */
#ifndef LOOM_COUNTERS_DB_H
#define LOOM_COUNTERS_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* The last counters read of `subnet` (NULL: the only subnet read), its
 * ports filtered by node (a description or a GUID; NULL: all) and port
 * (0: all), sorted by description, GUID and port:
 *   {"subnet": name,
 *    "read": {"started", "finished" (ISO 8601), "ports", "answered", "mads",
 *             "timeout_ms", "retries", "in_flight"},
 *    "ports": [{"guid", "node", "type", "port", "lid", "answered",
 *               "reason" (when not answered), "stale": true when the
 *               counters are an older read's, "sampled", "interval_s",
 *               "counters": {...}, "deltas": {name: {"state", "delta"}},
 *               "rates": {name: per second}}]}
 * 0, or -ENOENT when nothing was read (or the database is older than
 * schema 10, or no port matches), -EEXIST when subnet is NULL and several
 * subnets were read, another -errno; with err. */
int counters_db_read(sqlite3 *db, const char *subnet, const char *node, unsigned port,
		     json_t **out, char *err, size_t errlen);

/* The busiest ports instead, for `loomctl top` on fabrics too large to
 * send whole: sorted by `sort` ("data": both ways' data rates, "wait":
 * PortXmitWait per second, "errors": error-counter increments of the last
 * read), at most `limit` ports; "read" also says "stale" (ports that did
 * not answer). Otherwise as counters_db_read; -EINVAL for another sort. */
int counters_db_top(sqlite3 *db, const char *subnet, const char *sort, unsigned limit,
		    json_t **out, char *err, size_t errlen);

/* The ports with stored counters, of subnet (NULL: all): 0 with *n, or
 * -errno with err. */
int counters_db_count(sqlite3 *db, const char *subnet, long long *n, char *err, size_t errlen);

#endif
