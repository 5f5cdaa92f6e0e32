/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_row.h: the row helpers of lib/db/ (db_row.c), shared by its
 * query files; not for anyone else. */
#ifndef LOOM_DB_ROW_H
#define LOOM_DB_ROW_H

#include <stddef.h>
#include <sqlite3.h>
#include <jansson.h>

/* Write the message to err and return rc. */
int dbq_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* -EIO with sqlite's message for `what`. */
int dbq_db_fail(sqlite3 *db, char *err, size_t errlen, const char *what);
int dbq_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s, char *err, size_t errlen);
/* Step through `s` (finalized here), a new array of row_fn(row) in *out. */
int dbq_collect(sqlite3 *db, sqlite3_stmt *s, json_t *(*row_fn)(sqlite3_stmt *),
		json_t **out, char *err, size_t errlen);
/* A text column, "" for NULL. */
const char *dbq_col_str(sqlite3_stmt *s, int col);
/* A text column as a JSON string, forced to ASCII when it is not UTF-8. */
json_t *dbq_col_text(sqlite3_stmt *s, int col);
/* A unix time column as an ISO 8601 UTC string. */
json_t *dbq_col_time(sqlite3_stmt *s, int col);

#endif
