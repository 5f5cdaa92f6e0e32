/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/switch_counters_db.c: see switch_counters_db.h. */
#include "autoconf.h"
#include "lib/db/switch_counters_db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db/db_row.h"

/* A JSON text column as its value; NULL and bad text as an empty object. */
static json_t *col_json(sqlite3_stmt *s, int col)
{
	const char *t = (const char *)sqlite3_column_text(s, col);
	json_t *v = t ? json_loads(t, 0, NULL) : NULL;

	return v ? v : json_object();
}

static json_t *switch_row(sqlite3_stmt *s)
{
	int answered = sqlite3_column_int(s, 4);
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:b, s:I, s:I}", "switch",
			      dbq_col_text(s, 0), "plugin", dbq_col_text(s, 1), "started",
			      dbq_col_time(s, 2), "finished", dbq_col_time(s, 3), "answered",
			      answered, "ports", (json_int_t)sqlite3_column_int64(s, 6),
			      "port_errors", (json_int_t)sqlite3_column_int64(s, 7));

	if (o && !answered)
		json_object_set_new(o, "reason", dbq_col_text(s, 5));
	return o;
}

static json_t *port_row(sqlite3_stmt *s)
{
	int answered = sqlite3_column_int(s, 2);
	int has = sqlite3_column_type(s, 5) != SQLITE_NULL;
	json_t *o = json_pack("{s:o, s:o, s:b}", "switch", dbq_col_text(s, 0), "port",
			      dbq_col_text(s, 1), "answered", answered);

	if (!o)
		return NULL;
	if (!answered)
		json_object_set_new(o, "reason", dbq_col_text(s, 3));
	if (!has)
		return o;
	/* Counters an earlier read left: stale, never shown as new. */
	json_object_set_new(o, "stale", json_boolean(!answered));
	json_object_set_new(o, "sampled", dbq_col_time(s, 4));
	json_object_set_new(o, "interval_s", sqlite3_column_type(s, 8) == SQLITE_NULL ?
			    json_null() : json_real(sqlite3_column_double(s, 8)));
	json_object_set_new(o, "counters", col_json(s, 5));
	json_object_set_new(o, "bits", col_json(s, 6));
	json_object_set_new(o, "gauges", col_json(s, 7));
	json_object_set_new(o, "deltas", answered ? col_json(s, 9) : json_object());
	json_object_set_new(o, "rates", answered ? col_json(s, 10) : json_object());
	return o;
}

/* Natural order of port names (Ethernet4 before Ethernet12). */
static int natural(void *unused, int la, const void *a, int lb, const void *b)
{
	char x[256], y[256];

	(void)unused;
	snprintf(x, sizeof(x), "%.*s", la, (const char *)a);
	snprintf(y, sizeof(y), "%.*s", lb, (const char *)b);
	return strverscmp(x, y);
}

int switch_counters_db_read(sqlite3 *db, const char *sw, const char *port, json_t **out,
			    char *err, size_t errlen)
{
	json_t *switches = NULL, *ports = NULL;
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT switch, plugin, started, finished, answered, reason, "
			       "ports, port_errors FROM switch_counter_reads WHERE ?1 IS NULL OR "
			       "switch = ?1 ORDER BY switch", -1, &s, NULL) != SQLITE_OK) {
		if (strstr(sqlite3_errmsg(db), "no such table"))
			return dbq_fail(err, errlen, -ENOENT, "no switch counters were read yet "
					"(the database is older than schema 12)");
		return dbq_db_fail(db, err, errlen, "read the switch counters reads");
	}
	if (sw)
		sqlite3_bind_text(s, 1, sw, -1, SQLITE_STATIC);
	if ((rc = dbq_collect(db, s, switch_row, &switches, err, errlen)) < 0)
		return rc;
	if (!json_array_size(switches)) {
		json_decref(switches);
		if (sw)
			return dbq_fail(err, errlen, -ENOENT, "no counters were read of switch %s",
					sw);
		return dbq_fail(err, errlen, -ENOENT, "no switch counters were read yet (loom.yaml "
				"switches:, telemetry.interval_s)");
	}
	sqlite3_create_collation(db, "loom_natural", SQLITE_UTF8, NULL, natural);
	if ((rc = dbq_prepare(db, "SELECT switch, port, answered, reason, sampled, counters, "
			      "bits, gauges, interval_s, deltas, rates FROM switch_port_counters "
			      "WHERE (?1 IS NULL OR switch = ?1) AND (?2 IS NULL OR port = ?2) "
			      "ORDER BY switch, port COLLATE loom_natural", &s, err, errlen)) < 0) {
		json_decref(switches);
		return rc;
	}
	if (sw)
		sqlite3_bind_text(s, 1, sw, -1, SQLITE_STATIC);
	if (port)
		sqlite3_bind_text(s, 2, port, -1, SQLITE_STATIC);
	if ((rc = dbq_collect(db, s, port_row, &ports, err, errlen)) < 0) {
		json_decref(switches);
		return rc;
	}
	if (port && !json_array_size(ports)) {
		json_decref(switches);
		json_decref(ports);
		return dbq_fail(err, errlen, -ENOENT, "no counters of %s%s%s", sw ? sw : "",
				sw ? ":" : "port ", port);
	}
	*out = json_pack("{s:o, s:o}", "switches", switches, "ports", ports);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}
