/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/store.h: loom's SQLite database (WAL, foreign keys, migrations from
 * schemas/ applied on open). One `struct store` is one connection, used by
 * one thread at a time. */
#ifndef LOOMD_STORE_H
#define LOOMD_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>


struct store;

/* Open (creating it and its directory's file if needed) and migrate the
 * database to the newest schema, a database with history first copied to
 * PATH.schema-N.bak (store_backup.h; the last 3 kept). NULL + err on
 * failure, errno EPROTO when the database's user_version is newer than
 * this loomd knows (refused), EIO otherwise. */
struct store *store_open(const char *path, char *err, size_t errlen);
void store_close(struct store *st);
/* Before loomd's first open: the database file (created if missing) and
 * its -wal and -shm files readable by their owner and `group` only (""
 * keeps the file's group): mode 0640 for new files, the bits for others
 * taken away from existing ones, the group set. SQLite gives the -wal and
 * -shm files it creates later the database file's mode and owner. 0, or
 * -errno with err naming the file. */
int store_restrict(const char *path, const char *group, char *err, size_t errlen);
/* The connection, for read queries (lib/db/db_query.h). */
sqlite3 *store_db(struct store *st);
/* Schema version this build migrates to. */
int store_schema_version(void);

/* What every module's tables share. store_db_fail: log "database PATH:
 * what: message" once and map SQLite's error to -EBUSY (busy, locked),
 * -ENOSPC (full), -ENOMEM, -EINVAL (constraint) or -EIO; store_fail the
 * same for a store; store_exec runs SQL without results. */
int store_db_fail(sqlite3 *db, const char *what);
int store_fail(struct store *st, const char *what);
int store_exec(struct store *st, const char *sql);
/* The id of subnet `name`: > 0, 0 when there is none, or -errno. */
int64_t store_subnet_id(struct store *st, const char *name);
const char *store_path(const struct store *st);

/* One event as it is written, for whoever listens (daemon/events: the log
 * and the forwarding sinks). The strings live only for the call. */
struct store_event {
	double time;
	int64_t subnet_id;        /* 0: none */
	const char *severity;     /* "info", "notice", "warning", "error" */
	const char *kind, *subject, *old_value, *new_value;
};
typedef void (*store_event_fn)(const struct store_event *ev, void *arg);
/* The one listener of the process (NULL: none), called on the thread that
 * wrote the event once it is committed: at once outside a transaction,
 * else as the transaction commits (SQLite's commit hook; a transaction
 * rolled back tells nothing). It must not block nor touch the database.
 * Set by loomd.c before any module writes and cleared after the last has
 * stopped. */
void store_on_event(store_event_fn fn, void *arg);
/* An event written on st with SQL of a module's own (daemon/ib/
 * store_sweep.c): counted and told as above; store_record_event does it
 * itself. 0, or -ENOMEM (the event is written, not told). */
int store_event_told(struct store *st, const struct store_event *ev);

/* Record one event that no sweep found (OpenSM's, the Ethernet switches',
 * a tenant's...): subnet_id 0 for none. 0 or -errno. */
int store_record_event(struct store *st, double time, int64_t subnet_id, const char *severity,
		       const char *kind, const char *subject, const char *old_value,
		       const char *new_value);

#endif
