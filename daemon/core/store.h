/* daemon/core/store.h: loom's SQLite database (WAL, foreign keys, migrations from
 * schemas/ applied on open). One `struct store` is one connection, used by
 * one thread at a time. */
#ifndef LOOMD_STORE_H
#define LOOMD_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/fabric/fabric.h"

struct store;

/* Open (creating it and its directory's file if needed) and migrate the
 * database to the newest schema. NULL + err on failure. A database whose
 * user_version is newer than this loomd knows is refused. */
struct store *store_open(const char *path, char *err, size_t errlen);
void store_close(struct store *st);
/* The connection, for read queries (lib/db/db_query.h). */
sqlite3 *store_db(struct store *st);
/* Schema version this build migrates to. */
int store_schema_version(void);

struct store_sweep_info {
	const char *subnet;      /* loom's subnet name */
	const char *ca;          /* local HCA and port it was swept from */
	int port;
	double started, finished;/* unix seconds */
};

struct store_sweep_result {
	int64_t sweep_id;
	size_t n_events;
};

/* Record one complete sweep: diff `fab` against the stored fabric of this
 * subnet, replace the subnet's nodes/ports/links with `fab`, and write the
 * change events and the sweep row, all in one transaction. Either all of it
 * is recorded or nothing. 0 or -errno. */
int store_record_sweep(struct store *st, const struct store_sweep_info *info,
		       const struct fab *fab, struct store_sweep_result *res);
/* Record a sweep that failed: a sweep row with status "failed" and the error,
 * and a warning event; the stored fabric is left as it was. */
int store_record_failed_sweep(struct store *st, const struct store_sweep_info *info,
			      const char *error, struct store_sweep_result *res);

/* Record one read of a subnet's forwarding tables (lib/route/route_live.h),
 * taken with the sweep `sweep_id` (0: none), and drop the subnet's oldest
 * reads beyond the few kept. The subnet must have been swept. 0 or -errno. */
struct rl_read;
int store_record_lfts(struct store *st, const char *subnet, int64_t sweep_id,
		      const struct rl_read *r, int64_t *read_id);

/* The stored fabric of a subnet (empty fabric if none). NULL on error. */
struct fab *store_load_fabric(struct store *st, const char *subnet, char *err, size_t errlen);

#endif
