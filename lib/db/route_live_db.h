/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/route_live_db.h: route check and route trace on loom's database
 * (lib/db/route_live_db.c): the stored fabric, the newest stored read of a
 * subnet's forwarding tables, judged and traced with lib/route/route_live.h.
 * Shared by loomd and loomctl --db, so both give the same answers. */
#ifndef LOOM_ROUTE_LIVE_DB_H
#define LOOM_ROUTE_LIVE_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#include "lib/route/route_live.h"

/* The stored fabric of a subnet (empty if none). NULL + err on failure.
 * daemon/core/store.c's store_load_fabric is this on its own connection. */
struct fab *rl_db_load_fabric(sqlite3 *db, const char *subnet, char *err, size_t errlen);
/* The subnet named `want`, or when want is NULL the only one the database
 * knows; its local CA and port. -ENOENT / -EINVAL (several) with err. */
int rl_db_subnet(sqlite3 *db, const char *want, char *name, size_t namelen, char *ca,
		 size_t calen, int *port, char *err, size_t errlen);
/* The newest read of a subnet's tables (sorted), and its "read" JSON.
 * -ENOENT when none was stored. */
int rl_db_load_read(sqlite3 *db, const char *subnet, struct rl_read **out, json_t **info,
		    char *err, size_t errlen);
/* route check / route trace on the newest stored read of `subnet` (NULL:
 * the only subnet), on the stored fabric; vl as rl_check's (SL-to-VL
 * tables are not stored: only a live read has them). */
int rl_db_check(sqlite3 *db, const char *subnet, const struct rt_metrics_opts *opts,
		const struct rl_vl_input *vl, json_t **out, char *err, size_t errlen);
int rl_db_trace(sqlite3 *db, const char *subnet, const char *src, const char *dst,
		json_t **out, char *err, size_t errlen);

#endif
