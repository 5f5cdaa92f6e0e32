/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/db/test_validate_db.c: what the partitions rule asks of
 * the store before it judges PKey tables (lib/db/validate_db.h,
 * validate_db_tenants_changed): on a database at loomd's schema, tables
 * read at T are judged only when no tenant was made, changed or deleted
 * at or after T: a tenant row updated then, or a tenant event recorded
 * then (a deletion leaves only its event), says "changed"; older ones and
 * other events do not. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>

#include "daemon/core/store.h"
#include "lib/db/validate_db.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_store.h"

#define T 1000000.0   /* when the PKey tables were read */

static int changed_since(sqlite3 *db, double since)
{
	char err[256] = "";
	int changed = -1;

	ck_assert_msg(validate_db_tenants_changed(db, since, &changed, err, sizeof(err)) == 0,
		      "%s", err);
	return changed;
}

static void exec(sqlite3 *db, const char *sql)
{
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
}

START_TEST(tenants_changed_after_a_read_are_seen_and_older_changes_are_not)
{
	struct store *st = store_fixture_open();
	sqlite3 *db = store_db(st);
	char sql[512];

	ck_assert_int_eq(changed_since(db, T), 0);
	/* a tenant made and confirmed before the read, an unrelated event after */
	snprintf(sql, sizeof(sql), "INSERT INTO tenants (name, pkey, membership, state, created, "
		 "updated, created_by) VALUES ('jobA', 4098, 'full', 'active', %f, %f, 0); "
		 "INSERT INTO events (time, severity, kind, subject) VALUES (%f, 'notice', "
		 "'tenant_created', 'tenant jobA'), (%f, 'warning', 'link_down', 'x'), "
		 "(%f, 'notice', 'tenantXcreated', 'not a tenant event')",
		 T - 10, T - 5, T - 10, T + 1, T + 1);
	exec(db, sql);
	ck_assert_int_eq(changed_since(db, T), 0);
	/* confirmed (updated) after the read */
	snprintf(sql, sizeof(sql), "UPDATE tenants SET updated = %f WHERE name = 'jobA'", T + 0.5);
	exec(db, sql);
	ck_assert_int_eq(changed_since(db, T), 1);
	ck_assert_int_eq(changed_since(db, T + 1), 0);
	/* deleted after a later read: only its event is left */
	exec(db, "DELETE FROM tenants WHERE name = 'jobA'");
	ck_assert_int_eq(changed_since(db, T + 1), 0);
	snprintf(sql, sizeof(sql), "INSERT INTO events (time, severity, kind, subject) VALUES "
		 "(%f, 'notice', 'tenant_deleted', 'tenant jobA')", T + 2);
	exec(db, sql);
	ck_assert_int_eq(changed_since(db, T + 1), 1);
	ck_assert_int_eq(changed_since(db, T + 2), 1);   /* at the read's start counts */
	ck_assert_int_eq(changed_since(db, T + 3), 0);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_db");
	TCase *tc = tcase_create("validate_db");

	tcase_add_checked_fixture(tc, store_fixture_setup, store_fixture_teardown);
	tcase_add_test(tc, tenants_changed_after_a_read_are_seen_and_older_changes_are_not);
	suite_add_tcase(s, tc);
	return check_run(s);
}
