/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/events_prune.c: the events table kept within
 * events.keep_days and events.max_rows (events_impl.h).
 *
 * Every 60 s (the first 10 s after start) the loop submits one prune job
 * to a work queue of its own (one at a time: a job still running makes the
 * tick a no-op). The job opens its own connection and deletes in batches of
 * PRUNE_BATCH rows, each its own short transaction: "DELETE ... WHERE id IN
 * (SELECT id ... LIMIT N)", older than keep_days first, then the oldest
 * beyond the newest max_rows; a pause between batches lets the sweeps and
 * the loop's own writes take the lock. No statement holds the write lock
 * for long (bench/results-events.md: a 10M-row table pruned to 1M). The
 * forwarding tables' history (lib/db/lft_history.h) is pruned with the
 * same keep_days by the same job, 50 switches' tables a statement. */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/events/events_impl.h"
#include "lib/db/lft_history.h"
#include "lib/util/log.h"

#define PRUNE_BATCH 2000
#define PRUNE_PAUSE_MS 5
#define PRUNE_EVERY_S 60

struct events_prune {
	struct event_base *base;
	struct work_queue *q;
	struct event *tick;
	char db_path[PATH_MAX];
	int keep_days, max_rows;    /* the loop's; copied into each job */
	_Atomic int stopping;
};

struct prune_job {
	struct events_prune *p;
	int keep_days, max_rows;
	long long deleted, versions;
};

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Batches of `sql` (one ?1 bound to `arg`) until one deletes fewer than a
 * batch. The rows deleted, or -errno. */
static long long batches(struct store *st, struct events_prune *p, const char *sql,
			 sqlite3_int64 arg)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	long long total = 0;
	int n;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "prune events");
	do {
		sqlite3_bind_int64(s, 1, arg);
		sqlite3_bind_int(s, 2, PRUNE_BATCH);
		if (sqlite3_step(s) != SQLITE_DONE) {
			int rc = store_db_fail(db, "prune events");

			sqlite3_finalize(s);
			return rc;
		}
		n = sqlite3_changes(db);
		total += n;
		sqlite3_reset(s);
		pause_ms(PRUNE_PAUSE_MS);
	} while (n == PRUNE_BATCH && !atomic_load(&p->stopping));
	sqlite3_finalize(s);
	return total;
}

/* lfth_prune's pause between statements; nonzero: stop. */
static int between(void *arg)
{
	struct events_prune *p = arg;

	pause_ms(PRUNE_PAUSE_MS);
	return atomic_load(&p->stopping);
}

/* The id of the newest row beyond the newest max_rows; 0 none. */
static sqlite3_int64 cutoff_id(struct store *st, int max_rows)
{
	sqlite3_stmt *s;
	sqlite3_int64 id = 0;

	if (sqlite3_prepare_v2(store_db(st), "SELECT id FROM events ORDER BY id DESC LIMIT 1 "
			       "OFFSET ?", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune events");
	sqlite3_bind_int(s, 1, max_rows);
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

static int prune_run(void *arg, char *err, size_t errlen)
{
	struct prune_job *j = arg;
	struct store *st = store_open(j->p->db_path, err, errlen);
	long long n = 0;
	sqlite3_int64 id;

	if (!st)
		return -EIO;
	if (j->keep_days > 0) {
		double before = (double)time(NULL) - (double)j->keep_days * 86400.0;

		n = batches(st, j->p, "DELETE FROM events WHERE id IN (SELECT id FROM events "
			    "WHERE time < ?1 LIMIT ?2)", (sqlite3_int64)before);
	}
	if (n >= 0 && j->max_rows > 0 && (id = cutoff_id(st, j->max_rows)) > 0) {
		long long m = batches(st, j->p, "DELETE FROM events WHERE id IN (SELECT id FROM "
				      "events WHERE id <= ?1 ORDER BY id LIMIT ?2)", id);

		n = m < 0 ? m : n + m;
	}
	/* The forwarding tables' history, as old as the events (schema 021). */
	if (n >= 0 && j->keep_days > 0) {
		double before = (double)time(NULL) - (double)j->keep_days * 86400.0;
		long long m = lfth_prune(store_db(st), before, PRUNE_BATCH / 40, between, j->p,
					 err, errlen);

		if (m < 0) {
			store_close(st);
			return (int)m;
		}
		j->versions = m;
	}
	store_close(st);
	if (n < 0)
		return err_fmt(err, errlen, (int)n, "cannot prune the events table");
	j->deleted = n;
	return 0;
}

static void prune_done(void *arg, int rc, const char *err)
{
	struct prune_job *j = arg;

	if (rc < 0 && rc != -ECANCELED)
		log_warn("events: %s", err && *err ? err : strerror(-rc));
	else if (j->deleted)
		log_info("events: %lld old events pruned (keep_days %d, max_rows %d)", j->deleted,
			 j->keep_days, j->max_rows);
	if (rc == 0 && j->versions)
		log_info("events: %lld forwarding table versions older than %d days pruned",
			 j->versions, j->keep_days);
}

static const struct work_ops prune_ops = { prune_run, prune_done, free };

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct events_prune *p = arg;
	struct prune_job *j;
	struct timeval every = { PRUNE_EVERY_S, 0 };

	(void)fd;
	(void)what;
	evtimer_add(p->tick, &every);
	if ((!p->keep_days && !p->max_rows) || work_full(p->q) || !(j = calloc(1, sizeof(*j))))
		return;
	j->p = p;
	j->keep_days = p->keep_days;
	j->max_rows = p->max_rows;
	if (work_submit(p->q, &prune_ops, j) < 0)
		free(j);
}

struct events_prune *events_prune_new(struct event_base *base, const char *db_path,
				      char *err, size_t errlen)
{
	struct events_prune *p = calloc(1, sizeof(*p));

	if (!p) {
		err_fmt(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	p->base = base;
	snprintf(p->db_path, sizeof(p->db_path), "%s", db_path);
	if (!(p->q = work_queue_new(base, "events pruning", 1, WORK_REFUSE, err, errlen)) ||
	    !(p->tick = evtimer_new(base, tick_cb, p))) {
		events_prune_free(p);
		return NULL;
	}
	struct timeval first = { 10, 0 };

	evtimer_add(p->tick, &first);
	return p;
}

void events_prune_set(struct events_prune *p, int keep_days, int max_rows)
{
	p->keep_days = keep_days;
	p->max_rows = max_rows;
}

void events_prune_free(struct events_prune *p)
{
	if (!p)
		return;
	atomic_store(&p->stopping, 1);
	if (p->tick)
		event_free(p->tick);
	work_queue_free(p->q);
	free(p);
}
