/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/store.c: loom's SQLite database: the connection, the
 * migrations from schemas/ and what every module's tables share (the one
 * error mapping, events). Each module keeps its own tables' code:
 * daemon/ib/store_sweep.c (fabric, sweeps, LFT reads), daemon/routing/
 * store_routing.c, daemon/ar/store_ar.c, daemon/roce/store_switches.c,
 * daemon/tenants/store_tenants.c. */
#include "autoconf.h"
#include "daemon/core/store.h"
#include "daemon/core/event_count.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <unistd.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util/log.h"
#include "daemon/core/schema.h"
#include "daemon/core/store_backup.h"

/* An event written inside a transaction, told when it commits. */
struct pending_event {
	struct store_event ev;
	char *text;                  /* the strings of ev, one allocation */
};

struct store {
	sqlite3 *db;
	char path[4096];
	struct pending_event *pending;   /* this connection's transaction's events */
	size_t n_pending, cap_pending;
};

int store_db_fail(sqlite3 *db, const char *what)
{
	int code = sqlite3_extended_errcode(db);
	const char *path = sqlite3_db_filename(db, "main");

	log_err("database %s: %s: %s", path ? path : "?", what, sqlite3_errmsg(db));
	if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
		return -EBUSY;
	if ((code & 0xff) == SQLITE_FULL)
		return -ENOSPC;
	if ((code & 0xff) == SQLITE_NOMEM)
		return -ENOMEM;
	if ((code & 0xff) == SQLITE_CONSTRAINT)
		return -EINVAL;
	return -EIO;
}

int store_fail(struct store *st, const char *what)
{
	return store_db_fail(st->db, what);
}

int64_t store_subnet_id(struct store *st, const char *name)
{
	sqlite3_stmt *s;
	int64_t id = 0;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT id FROM subnets WHERE name = ?", -1, &s, NULL)
	    != SQLITE_OK)
		return store_fail(st, "look up subnet");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "look up subnet");
	return id;
}

int store_exec(struct store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, sql);
	return 0;
}

static int user_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

int store_schema_version(void)
{
	return schema_n_migrations ? schema_migrations[schema_n_migrations - 1].version : 0;
}

/* Does the database break no foreign key? (Migrations run with foreign
 * keys off, so each is checked before its commit.) */
static int foreign_keys_hold(sqlite3 *db)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &s, NULL) != SQLITE_OK)
		return 0;
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE;
}

/* One migration and its user_version bump, in one transaction. */
static int migrate_one(struct store *st, const struct schema_migration *m, char *err,
		       size_t errlen)
{
	char bump[64];
	const char *why = NULL;

	snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", m->version);
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, m->sql, NULL, NULL, NULL) != SQLITE_OK)
		why = sqlite3_errmsg(st->db);
	else if (!foreign_keys_hold(st->db))
		why = "it would break a foreign key";
	else if (sqlite3_exec(st->db, bump, NULL, NULL, NULL) != SQLITE_OK ||
		 sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		why = sqlite3_errmsg(st->db);
	if (!why)
		return 0;
	snprintf(err, errlen, "%s: migration %s failed: %s", st->path, m->name, why);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -EIO;
}

/* Each migration and its user_version bump commit together, so a crash
 * leaves the database at one version or the next, never in between.
 * Foreign keys are off while they run: a migration may rebuild a table
 * (SQLite's way of changing a constraint), and dropping the old one must
 * not cascade into the tables that refer to it. */
static int migrate(struct store *st, char *err, size_t errlen)
{
	int version, rc = 0;

	if (user_version(st->db, &version) < 0) {
		snprintf(err, errlen, "%s: cannot read the schema version: %s", st->path,
			 sqlite3_errmsg(st->db));
		return -EIO;
	}
	if (version > store_schema_version()) {
		snprintf(err, errlen, "%s: database schema version %d is newer than this loomd "
			 "knows (%d); use a newer loomd", st->path, version, store_schema_version());
		return -EPROTO;
	}
	/* A database with history (not a new one) is copied first: a
	 * migration that goes wrong, or a downgrade, has it to go back to. */
	if (version > 0 && version < store_schema_version()) {
		char copy[4200], why[4400];

		if (store_backup(st->db, st->path, version, copy, sizeof(copy), why,
				 sizeof(why)) < 0) {
			snprintf(err, errlen, "%s: cannot keep a copy before migrating from schema %d "
				 "(nothing migrated): %s", st->path, version, why);
			return -EIO;
		}
		log_notice("database %s: migrating from schema %d to %d; the copy before is %s",
			   st->path, version, store_schema_version(), copy);
	}
	sqlite3_exec(st->db, "PRAGMA foreign_keys=OFF", NULL, NULL, NULL);
	for (int i = 0; i < schema_n_migrations && rc == 0; i++) {
		const struct schema_migration *m = &schema_migrations[i];

		if (m->version <= version)
			continue;
		if ((rc = migrate_one(st, m, err, errlen)) == 0 && version > 0)
			log_notice("database %s: migrated to schema %d (%s)", st->path, m->version,
				   m->name);
		else if (rc == 0)
			log_info("database %s: created schema %d (%s)", st->path, m->version, m->name);
	}
	sqlite3_exec(st->db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
	return rc;
}

/* ---- the events' listener ------------------------------------------------------ */

static struct {
	store_event_fn fn;
	void *arg;
} event_listener;

void store_on_event(store_event_fn fn, void *arg)
{
	event_listener.arg = arg;
	event_listener.fn = fn;
}

static void tell(const struct store_event *ev)
{
	event_count_add(ev->kind, ev->severity);
	if (event_listener.fn)
		event_listener.fn(ev, event_listener.arg);
}

static void pending_clear(struct store *st)
{
	for (size_t i = 0; i < st->n_pending; i++)
		free(st->pending[i].text);
	st->n_pending = 0;
}

/* SQLite's commit hook: the transaction's events are told (0: let it commit). */
static int on_commit(void *arg)
{
	struct store *st = arg;

	for (size_t i = 0; i < st->n_pending; i++)
		tell(&st->pending[i].ev);
	pending_clear(st);
	return 0;
}

static void on_rollback(void *arg)
{
	pending_clear(arg);
}

/* A copy of ev that lives until the transaction ends. */
static int pending_add(struct store *st, const struct store_event *ev)
{
	const char *f[5] = { ev->severity, ev->kind, ev->subject, ev->old_value, ev->new_value };
	size_t len[5], total = 0, off = 0;
	struct pending_event *p;

	if (st->n_pending == st->cap_pending) {
		size_t cap = st->cap_pending ? 2 * st->cap_pending : 64;
		struct pending_event *np = realloc(st->pending, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		st->pending = np;
		st->cap_pending = cap;
	}
	for (int i = 0; i < 5; i++)
		total += (len[i] = strlen(f[i] ? f[i] : "")) + 1;
	p = &st->pending[st->n_pending];
	if (!(p->text = malloc(total)))
		return -ENOMEM;
	p->ev = *ev;
	for (int i = 0; i < 5; i++) {
		memcpy(p->text + off, f[i] ? f[i] : "", len[i] + 1);
		f[i] = p->text + off;
		off += len[i] + 1;
	}
	p->ev.severity = f[0];
	p->ev.kind = f[1];
	p->ev.subject = f[2];
	p->ev.old_value = f[3];
	p->ev.new_value = f[4];
	st->n_pending++;
	return 0;
}

int store_event_told(struct store *st, const struct store_event *ev)
{
	if (sqlite3_get_autocommit(st->db)) {
		tell(ev);
		return 0;
	}
	if (pending_add(st, ev) < 0) {
		log_err("database %s: out of memory for an event's forwarding: %s %s not told",
			st->path, ev->kind, ev->subject);
		return -ENOMEM;
	}
	return 0;
}

/* ---- open and close --------------------------------------------------------------- */

/* The database's directory (one level) is created if missing, so a fresh
 * install with the default path works without a packaging step. */
static void make_parent_dir(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	if (mkdir(dirname(tmp), 0750) < 0 && errno != EEXIST)
		log_debug("cannot create the directory of %s: %s", path, strerror(errno));
}

/* The gid of `group`: 0, -ENOENT or another -errno. */
static int group_gid(const char *group, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[4096];
	int rc = getgrnam_r(group, &gr, buf, sizeof(buf), &res);

	if (rc)
		return -rc;
	if (!res)
		return -ENOENT;
	*gid = gr.gr_gid;
	return 0;
}

int store_restrict(const char *path, const char *group, char *err, size_t errlen)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	gid_t gid = (gid_t)-1;
	int fd, rc;

	if (group && *group && (rc = group_gid(group, &gid)) < 0) {
		snprintf(err, errlen, "database %s: group \"%s\" (control.admin_group): %s", path,
			 group, rc == -ENOENT ? "no such group" : strerror(-rc));
		return rc;
	}
	make_parent_dir(path);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "database %s: %s", path, strerror(errno));
		return rc;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char f[4200];
		struct stat st;

		snprintf(f, sizeof(f), "%s%s", path, suffix[i]);
		if (stat(f, &st) < 0)
			continue;       /* no -wal or -shm now: SQLite makes them alike */
		if (((st.st_mode & 07777) & ~(mode_t)0660) && chmod(f, st.st_mode & 0660) < 0) {
			rc = -errno;
			snprintf(err, errlen, "database %s: chmod: %s", f, strerror(errno));
			return rc;
		}
		if (gid != (gid_t)-1 && st.st_gid != gid && chown(f, (uid_t)-1, gid) < 0) {
			rc = -errno;
			snprintf(err, errlen, "database %s: chgrp %s: %s", f, group, strerror(errno));
			return rc;
		}
	}
	return 0;
}

struct store *store_open(const char *path, char *err, size_t errlen)
{
	struct store *st = calloc(1, sizeof(*st));
	int rc;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(st->path, sizeof(st->path), "%s", path);
	make_parent_dir(path);
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the database: %s", path,
			 st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* Events written in a transaction are told once it commits. */
	sqlite3_commit_hook(st->db, on_commit, st);
	sqlite3_rollback_hook(st->db, on_rollback, st);
	/* The daemon reads on its own connection while a sweep worker writes
	 * on another: wait for the other instead of failing with SQLITE_BUSY. */
	sqlite3_busy_timeout(st->db, 5000);
	/* WAL with synchronous=NORMAL already survives kill -9 of loomd (the
	 * WAL is in the page cache when COMMIT returns); FULL also syncs the
	 * WAL at every commit, so a committed sweep survives a power loss too.
	 * Sweeps commit a few times a minute at most, so the fsync is free. */
	if (sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
			 "PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: not a usable database: %s", path, sqlite3_errmsg(st->db));
		goto fail;
	}
	if ((rc = migrate(st, err, errlen)) < 0)
		goto fail;
	return st;
fail:
	log_err("%s", err);
	sqlite3_close(st->db);
	free(st);
	errno = rc == -EPROTO ? EPROTO : EIO;
	return NULL;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (sqlite3_close(st->db) != SQLITE_OK)
		log_err("database %s: close: %s", st->path, sqlite3_errmsg(st->db));
	pending_clear(st);
	free(st->pending);
	free(st);
}

sqlite3 *store_db(struct store *st)
{
	return st->db;
}

const char *store_path(const struct store *st)
{
	return st->path;
}

int store_record_event(struct store *st, double time, int64_t subnet_id, const char *severity,
		       const char *kind, const char *subject, const char *old_value,
		       const char *new_value)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT INTO events (time, subnet_id, severity, kind, subject, "
			       "old_value, new_value) VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &s, NULL)
	    != SQLITE_OK)
		return store_db_fail(db, "insert event");
	sqlite3_bind_double(s, 1, time);
	if (subnet_id)
		sqlite3_bind_int64(s, 2, subnet_id);
	sqlite3_bind_text(s, 3, severity, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, old_value ? old_value : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, new_value ? new_value : "", -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "insert event");
	store_event_told(st, &(struct store_event){ time, subnet_id, severity, kind, subject,
						    old_value ? old_value : "",
						    new_value ? new_value : "" });
	return 0;
}
