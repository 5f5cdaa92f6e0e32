/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_row.c: what every query file of lib/db/ uses to turn SQLite
 * rows into JSON and failures into one line of err: preparing, stepping
 * through a statement, reading text and time columns. Declared in
 * lib/db/db_row.h (dbq_time_str, which loomctl and loomd use too, in
 * lib/db/db_query.h). Knows no query of its own. */
#include "autoconf.h"
#include "lib/db/db_row.h"
#include "lib/db/db_query.h"
#include "lib/telemetry/pma.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util/log.h"

int dbq_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vfmt(err, errlen, rc, fmt, ap);
	va_end(ap);
	return rc;
}

int dbq_db_fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	return dbq_fail(err, errlen, -EIO, "database query (%s) failed: %s", what, sqlite3_errmsg(db));
}

int dbq_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "prepare");
	return 0;
}

const char *dbq_col_str(sqlite3_stmt *s, int col)
{
	const char *v = (const char *)sqlite3_column_text(s, col);

	return v ? v : "";
}

/* Node descriptions are raw bytes off the wire; JSON must be UTF-8, so a
 * description that is not becomes ASCII with '?' for the other bytes. */
json_t *dbq_col_text(sqlite3_stmt *s, int col)
{
	const char *v = dbq_col_str(s, col);
	json_t *j = json_string(v);
	char *copy;

	if (j || !(copy = strdup(v)))
		return j;
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80 || (unsigned char)*c < 0x20)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

json_t *dbq_col_time(sqlite3_stmt *s, int col)
{
	char buf[32];

	return json_string(dbq_time_str(sqlite3_column_double(s, col), buf, sizeof(buf)));
}

/* Step through `s`, appending row_fn(row) to a new array. */
int dbq_collect(sqlite3 *db, sqlite3_stmt *s, json_t *(*row_fn)(sqlite3_stmt *),
		   json_t **out, char *err, size_t errlen)
{
	json_t *arr = json_array();
	int rc;

	if (!arr) {
		sqlite3_finalize(s);
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *row = row_fn(s);

		if (!row || json_array_append_new(arr, row) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		rc = rc == SQLITE_NOMEM ? dbq_fail(err, errlen, -ENOMEM, "out of memory")
					: dbq_db_fail(db, err, errlen, "read");
		sqlite3_finalize(s);
		json_decref(arr);
		return rc;
	}
	sqlite3_finalize(s);
	*out = arr;
	return 0;
}

char *dbq_time_str(double t, char *buf, size_t len)
{
	time_t secs = (time_t)floor(t);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}
