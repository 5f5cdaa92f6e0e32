/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/names_db.c: see names_db.h. */
#include "autoconf.h"
#include "lib/db/names_db.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/db/db_row.h"

/* Every line of m into `table` (emptied first). */
static int fill(sqlite3 *db, const char *table, const struct nodename_map *m, char *err,
		size_t errlen)
{
	char sql[128];
	sqlite3_stmt *s;
	int rc = 0;

	snprintf(sql, sizeof(sql), "DELETE FROM %s", table);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "clear the node names");
	snprintf(sql, sizeof(sql), "INSERT INTO %s (guid, name) VALUES (?, ?)", table);
	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0)
		return rc;
	for (size_t i = 0; i < nodename_map_count(m) && rc == 0; i++) {
		char g[24];
		uint64_t guid;
		const char *name;

		nodename_map_entry(m, i, &guid, &name);
		snprintf(g, sizeof(g), "0x%016" PRIx64, guid);
		sqlite3_bind_text(s, 1, g, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = dbq_db_fail(db, err, errlen, "write the node names");
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return rc;
}

int names_db_store(sqlite3 *db, const struct nodename_map *m, char *err, size_t errlen)
{
	int rc;

	if (sqlite3_exec(db, "SAVEPOINT names", NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "begin the node names");
	rc = fill(db, "main.node_names", m, err, errlen);
	if (rc < 0) {
		sqlite3_exec(db, "ROLLBACK TO names", NULL, NULL, NULL);
		sqlite3_exec(db, "RELEASE names", NULL, NULL, NULL);
		return rc;
	}
	if (sqlite3_exec(db, "RELEASE names", NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "commit the node names");
	return 0;
}

int names_db_shadow(sqlite3 *db, const struct nodename_map *m, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int stored = 0;

	if (!m && sqlite3_prepare_v2(db, "SELECT 1 FROM main.node_names LIMIT 1", -1, &s,
				     NULL) == SQLITE_OK) {
		sqlite3_finalize(s);
		stored = 1;
	}
	if (stored)
		return 0;
	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS node_names (guid TEXT PRIMARY KEY, "
			 "name TEXT NOT NULL) WITHOUT ROWID", NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "make the node names table");
	return fill(db, "temp.node_names", m, err, errlen);
}

int names_db_load(sqlite3 *db, struct nodename_map **out, char *err, size_t errlen)
{
	struct nodename_map *m = nodename_map_new();
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	if (!m)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if ((rc = dbq_prepare(db, "SELECT guid, name FROM node_names", &s, err, errlen)) < 0) {
		nodename_map_free(m);
		return rc;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *g = dbq_col_str(s, 0);

		if (nodename_map_add(m, strtoull(g, NULL, 16), dbq_col_str(s, 1)) == -ENOMEM)
			break;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		nodename_map_free(m);
		return rc == SQLITE_ROW ? dbq_fail(err, errlen, -ENOMEM, "out of memory")
					: dbq_db_fail(db, err, errlen, "read the node names");
	}
	nodename_map_seal(m);
	*out = m;
	return 0;
}
