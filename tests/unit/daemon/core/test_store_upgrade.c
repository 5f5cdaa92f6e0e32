/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_store_upgrade.c: an upgrade from each schema
 * the project has shipped, schema 1 (schemas/001_init.sql) on, with rows in
 * every table that schema has: store_open (daemon/core/store.c) migrates the
 * database and keeps every row (no table has fewer rows, and every old
 * row's values are still there in the columns its table still has), and
 * the copy PATH.schema-N.bak holds the rows as they were. The rows are made
 * from the schema itself (sqlite_master, table_info, foreign_key_list, and
 * the CHECKs' IN lists and BETWEEN bounds), never from a list of tables:
 * a table that a future schema adds is filled, and checked, as it comes. */
#include "autoconf.h"

#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_store.h"

#define ROWS 3         /* rows made in each table */
#define MAX_TABLES 64
#define SQL_MAX 8192

/* The rows a migration drops on purpose, as its file says: an upgrade from
 * before `version` may lose the rows of `table` (its copy keeps them). A
 * migration that drops rows and is not listed here fails the test. */
static const struct {
	int version;
	const char *table;
} dropped[] = {
	{ 13, "port_counters" },  /* 013_counter_rows.sql: the last sample, read again */
};

/* A table as it was filled: its name, its rows, its columns ("a", "b"). */
struct filled {
	char name[64];
	int64_t rows;
	char cols[1024];
};

/* Does an upgrade from schema `from` drop the rows of `table` on purpose? */
static int dropped_on_purpose(int from, const char *table)
{
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		if (dropped[i].version > from && strcmp(dropped[i].table, table) == 0)
			return 1;
	return 0;
}

/* Append to a bounded SQL buffer. */
static void cat(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cat(char *buf, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	ck_assert_int_lt(vsnprintf(buf + n, SQL_MAX - n, fmt, ap), (int)(SQL_MAX - n));
	va_end(ap);
}

/* In a table's CREATE statement, the text right after `col` followed by
 * the keyword `kw` (IN, BETWEEN), or NULL. */
static const char *after_keyword(const char *create, const char *col, const char *kw)
{
	size_t n = strlen(col), k = strlen(kw);

	for (const char *p = create; (p = strstr(p, col)) != NULL; p += n) {
		const char *q = p + n;

		if ((p > create && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
		    isalnum((unsigned char)*q) || *q == '_')
			continue;
		while (isspace((unsigned char)*q))
			q++;
		if (strncasecmp(q, kw, k) == 0 && !isalnum((unsigned char)q[k]))
			return q + k;
	}
	return NULL;
}

/* The value of column `col` (declared `type`) of row `seq` as an SQL
 * expression that its table's CHECKs accept: the r-th item of a
 * `col IN (...)` list, a number within `col BETWEEN lo AND hi`, otherwise
 * a value of its type that no other row has. */
static void column_value(char *sql, const char *table, const char *create, const char *col,
			 const char *type, int r, int seq)
{
	const char *p = after_keyword(create, col, "IN");

	if (p && (p = strchr(p, '(')) != NULL) {
		const char *item[16];
		int n = 0;

		for (item[n++] = ++p; *p && *p != ')' && n < 16; p++)
			if (*p == ',')
				item[n++] = p + 1;
		p = item[r % n];
		while (isspace((unsigned char)*p))
			p++;
		cat(sql, "%.*s", (int)strcspn(p, ",)"), p);
		return;
	}
	if ((p = after_keyword(create, col, "BETWEEN")) != NULL) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if ((p = strcasestr(end, "AND")) != NULL)
			hi = strtol(p + 3, NULL, 10);
		cat(sql, "%ld", lo + seq % (hi - lo + 1));
		return;
	}
	if (strcasestr(type, "INT"))
		cat(sql, "%d", seq);
	else if (strcasestr(type, "REAL") || strcasestr(type, "FLOA") || strcasestr(type, "DOUB"))
		cat(sql, "%d.5", seq);
	else if (strcasestr(type, "BLOB"))
		cat(sql, "CAST('%s.%s.%d' AS BLOB)", table, col, seq);
	else
		cat(sql, "'%s.%s.%d'", table, col, seq);
}

/* The number of rows of `table` in db's schema `schema`. */
static int64_t rows_of(sqlite3 *db, const char *schema, const char *table)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %.16s.\"%.256s\"", schema, table);
	return store_fixture_count(db, sql);
}

/* Can t[i] be filled now: has each table its foreign keys point to (but
 * itself) been filled (the tables of t[0..n))? */
static int parents_filled(sqlite3 *db, const struct filled *t, int n, int i)
{
	char sql[256];
	sqlite3_stmt *s;
	int ok = 1;

	snprintf(sql, sizeof(sql), "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list('%s')",
		 t[i].name);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	while (ok && sqlite3_step(s) == SQLITE_ROW) {
		const char *parent = (const char *)sqlite3_column_text(s, 0);

		for (int j = 0; j < n; j++)
			if (j != i && strcmp(t[j].name, parent) == 0)
				ok = t[j].rows > 0;
	}
	sqlite3_finalize(s);
	return ok;
}

/* The foreign key column `col` of `table` in row r: (SELECT to FROM parent
 * ORDER BY to... LIMIT 1 OFFSET k), the same parent row for each column of
 * one key. 0 when `col` is in no foreign key. */
static int foreign_value(sqlite3 *db, char *sql, const char *table, const char *col, int r)
{
	char q[512], order[256] = "";
	sqlite3_stmt *s;
	int id = -1;

	snprintf(q, sizeof(q), "SELECT id, \"table\", \"to\" FROM pragma_foreign_key_list('%s') "
		 "WHERE \"from\" = '%s' LIMIT 1", table, col);
	ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *parent = (const char *)sqlite3_column_text(s, 1);
		const char *to = (const char *)sqlite3_column_text(s, 2);
		sqlite3_stmt *o;

		ck_assert_msg(to != NULL, "%s.%s: a foreign key without its column", table, col);
		id = sqlite3_column_int(s, 0);
		snprintf(q, sizeof(q), "SELECT \"to\" FROM pragma_foreign_key_list('%s') WHERE "
			 "id = %d ORDER BY seq", table, id);
		ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &o, NULL), SQLITE_OK);
		while (sqlite3_step(o) == SQLITE_ROW)
			snprintf(order + strlen(order), sizeof(order) - strlen(order), "%s\"%s\"",
				 order[0] ? ", " : "", (const char *)sqlite3_column_text(o, 0));
		sqlite3_finalize(o);
		/* a key on its own table (lft_versions.prev_id) has no row to
		 * point at while the first is made: NULL, as loomd's first is */
		if (rows_of(db, "main", parent) == 0)
			cat(sql, "NULL");
		else
			cat(sql, "(SELECT \"%s\" FROM \"%s\" ORDER BY %s LIMIT 1 OFFSET %d)",
			    to, parent, order, (int)(r % rows_of(db, "main", parent)));
	}
	sqlite3_finalize(s);
	return id >= 0;
}

/* ROWS rows in `t`, every column given, its constraints and foreign keys
 * kept; t->rows and t->cols say what it holds. */
static void fill_table(sqlite3 *db, struct filled *t, int *seq)
{
	char q[256], create[SQL_MAX] = "", sql[SQL_MAX];
	sqlite3_stmt *s;

	snprintf(q, sizeof(q), "SELECT sql FROM sqlite_master WHERE name = '%s'", t->name);
	ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	snprintf(create, sizeof(create), "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);

	for (int r = 0; r < ROWS; r++) {
		snprintf(q, sizeof(q), "SELECT name, type FROM pragma_table_info('%s') ORDER BY cid",
			 t->name);
		ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
		snprintf(sql, sizeof(sql), "INSERT INTO \"%s\" SELECT ", t->name);
		t->cols[0] = '\0';
		for (int c = 0; sqlite3_step(s) == SQLITE_ROW; c++) {
			const char *col = (const char *)sqlite3_column_text(s, 0);

			cat(sql, "%s", c ? ", " : "");
			if (!foreign_value(db, sql, t->name, col, r))
				column_value(sql, t->name, create, col,
					     (const char *)sqlite3_column_text(s, 1), r, *seq);
			snprintf(t->cols + strlen(t->cols), sizeof(t->cols) - strlen(t->cols),
				 "%s\"%s\"", c ? ", " : "", col);
		}
		sqlite3_finalize(s);
		ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK,
			      "cannot fill %s: %s\n%s", t->name, sqlite3_errmsg(db), sql);
		++*seq;
	}
	t->rows = rows_of(db, "main", t->name);
	ck_assert_int_ge(t->rows, ROWS);
}

/* Every table of db filled, parents before children; the tables in t[]. */
static int fill_every_table(sqlite3 *db, struct filled *t)
{
	sqlite3_stmt *s;
	int n = 0, done = 0, seq = 1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = "
					    "'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
					    -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		ck_assert_int_lt(n, MAX_TABLES);
		snprintf(t[n].name, sizeof(t[n].name), "%s", (const char *)sqlite3_column_text(s, 0));
		t[n++].rows = -1;
	}
	sqlite3_finalize(s);
	for (int progress = 1; progress && done < n;) {
		progress = 0;
		for (int i = 0; i < n; i++)
			if (t[i].rows < 0 && parents_filled(db, t, n, i)) {
				fill_table(db, &t[i], &seq);
				done++;
				progress = 1;
			}
	}
	for (int i = 0; i < n; i++)
		ck_assert_msg(t[i].rows > 0, "%s: its foreign keys point to no row", t[i].name);
	return n;
}

/* The rows of `table` in the copy that are not in the migrated database,
 * compared on `cols` (the columns it had). */
static int64_t rows_lost(sqlite3 *bak, const char *table, const char *cols)
{
	char sql[SQL_MAX];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (SELECT %.1024s FROM main.\"%.64s\" EXCEPT "
		 "SELECT %.1024s FROM cur.\"%.64s\")", cols, table, cols, table);
	return store_fixture_count(bak, sql);
}

/* A database left by a loomd of schema _i, every table with rows, opened by
 * this store: migrated to the current schema, nothing lost, the copy from
 * before there with every row. */
START_TEST(upgrade_from_each_shipped_schema_keeps_every_row)
{
	const int from = _i;
	struct filled t[MAX_TABLES];
	char path[256], sql[512];
	sqlite3 *db, *bak;
	struct store *st;
	int n;

	ck_assert_int_eq(sqlite3_open(store_db_path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL), SQLITE_OK);
	store_fixture_migrate_to(db, from);
	n = fill_every_table(db, t);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);

	st = store_fixture_open();
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"),
			 store_schema_version());
	store_close(st);

	snprintf(path, sizeof(path), "%s.schema-%d.bak", store_db_path, from);
	ck_assert_msg(sqlite3_open_v2(path, &bak, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK,
		      "no copy %s before migrating from schema %d", path, from);
	ck_assert_int_eq(store_fixture_count(bak, "PRAGMA user_version"), from);
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS cur", store_db_path);
	ck_assert_int_eq(sqlite3_exec(bak, sql, NULL, NULL, NULL), SQLITE_OK);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(rows_of(bak, "main", t[i].name) == t[i].rows,
			      "the copy of schema %d has %lld rows of %s, not %lld", from,
			      (long long)rows_of(bak, "main", t[i].name), t[i].name,
			      (long long)t[i].rows);
		if (dropped_on_purpose(from, t[i].name))
			continue;
		ck_assert_msg(rows_of(bak, "cur", t[i].name) >= t[i].rows,
			      "from schema %d: %s has %lld rows, had %lld", from, t[i].name,
			      (long long)rows_of(bak, "cur", t[i].name), (long long)t[i].rows);
		ck_assert_msg(rows_lost(bak, t[i].name, t[i].cols) == 0,
			      "from schema %d: %lld rows of %s changed or lost (%s)", from,
			      (long long)rows_lost(bak, t[i].name, t[i].cols), t[i].name, t[i].cols);
	}
	sqlite3_close(bak);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_upgrade");
	TCase *tc = tcase_create("upgrade");

	tcase_add_checked_fixture(tc, store_fixture_setup, store_fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, upgrade_from_each_shipped_schema_keeps_every_row, 1,
			    store_schema_version());
	suite_add_tcase(s, tc);
	return check_run(s);
}
