/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/ar_status_db.h: the adaptive-routing status of a subnet as loom's
 * database holds it (lib/db/ar_status_db.c; shapes in lib/ar/ar_status.h).
 * Shared by loomd's ar-status and loomctl --db. */
#ifndef LOOM_AR_STATUS_DB_H
#define LOOM_AR_STATUS_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* The newest stored probe of `subnet` (NULL: the only swept subnet), shape
 * above, switches sorted by description then GUID. 0, or -ENOENT when the
 * subnet was never probed (or the database is older than schema 8), or
 * another -errno, with err. */
int ar_db_status(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen);

#endif
