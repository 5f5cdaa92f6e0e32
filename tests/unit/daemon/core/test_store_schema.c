/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_store_schema.c: the store's schema: older
 * databases migrated with their rows kept (a copy made first, the last
 * three kept), a newer one refused (daemon/core/store.c, store_backup.c). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util/log.h"
#include "daemon/core/store.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_store.h"

START_TEST(newer_database_is_refused)
{
	struct store *st = store_fixture_open();
	char sql[64], err[512] = "";

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", store_schema_version() + 1);
	ck_assert_int_eq(sqlite3_exec(store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
	ck_assert_ptr_null(store_open(store_db_path, err, sizeof(err)));
	ck_assert_msg(strstr(err, "newer") != NULL, "unclear error: %s", err);
	ck_assert_int_eq(errno, EPROTO);  /* loomd exits LOOMD_EXIT_CONFIG on it */
}
END_TEST


/* The file PATH.schema-V.bak exists (1) or not (0). */
static int backup_exists(int version)
{
	char p[256];

	snprintf(p, sizeof(p), "%s.schema-%d.bak", store_db_path, version);
	return access(p, F_OK) == 0;
}

/* A database with history is copied before a migration changes it: the
 * copy is the database as it was (its schema, its rows); a new database
 * makes none; only the newest three copies stay. */
START_TEST(migration_keeps_a_copy_from_before_and_the_last_three)
{
	char p[256];
	sqlite3 *db;
	struct store *st;

	st = store_fixture_open();  /* a new database: nothing to keep */
	store_close(st);
	for (int v = 1; v <= store_schema_version(); v++)
		ck_assert_msg(!backup_exists(v), "a new database made a copy (schema %d)", v);
	for (int v = 3; v <= 6; v++) {
		const char *ext[] = { "", "-wal", "-shm" };

		for (size_t i = 0; i < 3; i++) {
			snprintf(p, sizeof(p), "%s%s", store_db_path, ext[i]);
			unlink(p);
		}
		ck_assert_int_eq(sqlite3_open(store_db_path, &db), SQLITE_OK);
		store_fixture_migrate_to(db, v);
		snprintf(p, sizeof(p), "INSERT INTO subnets (name, created) VALUES ('at-%d', 1)", v);
		ck_assert_int_eq(sqlite3_exec(db, p, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		st = store_fixture_open();
		ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"), store_schema_version());
		store_close(st);
		ck_assert_msg(backup_exists(v), "no copy before migrating from schema %d", v);
	}
	ck_assert(!backup_exists(3) && backup_exists(4) && backup_exists(5) && backup_exists(6));
	snprintf(p, sizeof(p), "%s.schema-6.bak", store_db_path);
	ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
	ck_assert_int_eq(store_fixture_count(db, "PRAGMA user_version"), 6);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM subnets WHERE name = 'at-6'"), 1);
	sqlite3_close(db);
}
END_TEST

/* Schema 7 rebuilds the tenants table (its PKey became optional): a tenant
 * of schema 6 keeps its ports, its key, and gets no VLAN. With foreign keys
 * on during the rebuild, dropping the old table would cascade into
 * tenant_ports and lose them. */
START_TEST(migration_7_keeps_the_tenants_and_their_ports)
{
	sqlite3 *db;
	struct store *st;

	ck_assert_int_eq(sqlite3_open(store_db_path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL), SQLITE_OK);
	store_fixture_migrate_to(db, 6);
	ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO tenants VALUES ('job1', 4098, 'full', 'active', '', "
				      "1, 1, 0); INSERT INTO tenant_ports VALUES ('job1', 'host-0000', "
				      "'0x0002c90000000020'), ('job1', 'host-0001', "
				      "'0x0002c90000000030')", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	st = store_fixture_open();
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"), store_schema_version());
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM tenant_ports WHERE "
			       "tenant = 'job1'"), 2);
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT pkey FROM tenants WHERE name = 'job1' AND "
			       "vlan IS NULL AND state = 'active'"), 4098);
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA foreign_keys"), 1);
	/* The rebuilt table still cascades to its ports. */
	ck_assert_int_eq(sqlite3_exec(store_db(st), "DELETE FROM tenants", NULL, NULL, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM tenant_ports"), 0);
	store_close(st);
}
END_TEST

/* Schema 14 names who created a tenant: the uid of a tenant created over the
 * socket becomes "uid N"; one created over HTTP (created_by -1) gets none,
 * since the store kept no principal for it before. */
START_TEST(migration_14_names_the_uid_that_created_a_tenant)
{
	sqlite3 *db;
	struct store *st;

	ck_assert_int_eq(sqlite3_open(store_db_path, &db), SQLITE_OK);
	store_fixture_migrate_to(db, 13);
	ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO tenants (name, pkey, membership, state, created, "
				      "updated, created_by) VALUES ('bysocket', 4098, 'full', 'active', "
				      "1, 1, 1000), ('byhttp', 4099, 'full', 'active', 1, 1, -1)",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	st = store_fixture_open();
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"), store_schema_version());
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM tenants WHERE "
			       "name = 'bysocket' AND creator = 'uid 1000'"), 1);
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM tenants WHERE "
			       "name = 'byhttp' AND creator = '' AND created_by = -1"), 1);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_schema");
	TCase *tc = tcase_create("schema");

	tcase_add_checked_fixture(tc, store_fixture_setup, store_fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, newer_database_is_refused);
	tcase_add_test(tc, migration_keeps_a_copy_from_before_and_the_last_three);
	tcase_add_test(tc, migration_7_keeps_the_tenants_and_their_ports);
	tcase_add_test(tc, migration_14_names_the_uid_that_created_a_tenant);
	suite_add_tcase(s, tc);
	return check_run(s);
}
