/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/counters_db.h: the port counters of a subnet as loom's database
 * holds them (schema 010, written by daemon/telemetry/store_counters.c).
 * Shared by loomd's "counters" command and `loomctl --db counters`. */
#ifndef LOOM_COUNTERS_DB_H
#define LOOM_COUNTERS_DB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma_details.h"

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
 *               "rates": {name: per second},
 *               "details": {name: {"value", "delta", "state"}}, only when the
 *               port's PMA detail attributes were read (issue 42;
 *               lib/telemetry/pma_details.h's names)}]}
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

/* A port's detail counters as its last stored sample has them (issue 42:
 * what the isolation rules judge). State CDELTA_NOT_READ where a counter
 * has no value (ds.bits 0: its attribute never read, or refused by the
 * PMA); CDELTA_CARRIED where the last read did not ask it
 * (telemetry.details_every): its value is older and its delta 0. */
struct counters_db_details {
	int answered;                     /* 0: the last read got no answer (stale) */
	double sampled;                   /* when the sample was read (Unix time) */
	double interval_s;                /* since the sample before (0: none) */
	struct pma_details ds;            /* the values, bits[d] 0: none */
	struct cdelta dd[PMA_N_DETAILS];  /* what each did since the sample before */
};

/* The detail counters of port `port` of the node `guid` ("0x" and 16 hex
 * digits, any case) on subnet `subnet_id` (the subnets table's id): 0 with
 * *out; -ENOENT when no sample of that port is stored; -EIO on a database
 * error. One indexed row read: for the isolation worker, per port. */
int counters_db_details(sqlite3 *db, int64_t subnet_id, const char *guid, unsigned port,
			struct counters_db_details *out);

/* The ports with stored counters, of subnet (NULL: all): 0 with *n, or
 * -errno with err. */
int counters_db_count(sqlite3 *db, const char *subnet, long long *n, char *err, size_t errlen);

#endif
