/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/store_backup.h: the copy of the database a migration keeps
 * (store_backup.c); for store.c only. */
#ifndef LOOMD_STORE_BACKUP_H
#define LOOMD_STORE_BACKUP_H

#include <stddef.h>

#include <sqlite3.h>

/* Copies kept next to the database: one per schema migrated from. */
#define STORE_BACKUPS_KEPT 3

/* Copy the database db (file path, at schema `version`) to
 * PATH.schema-VERSION.bak (its name into out), then drop all but the
 * newest STORE_BACKUPS_KEPT copies. 0, or -errno with err naming the
 * copy; a failed copy leaves no file. */
int store_backup(sqlite3 *db, const char *path, int version, char *out, size_t outlen,
		 char *err, size_t errlen);

#endif
