/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/lft_history.h: the history of a subnet's forwarding tables
 * (schema 021: lft_versions, lft_version_tables), so that the tables in
 * force at any time within events.keep_days can be rebuilt (issue 42, the
 * job post-mortem). A read whose tables equal the previous read's adds no
 * version (it moves the newest one's last_seen); one that differs adds a
 * version holding only the switches whose table changed, over the version
 * before it. Pruning makes the version in force at the cutoff a full copy
 * and drops the older ones, in batches (each statement its own short
 * transaction). Only SQL over the connection given: the callers decide
 * where it runs (the store's writer on a worker, the events pruning job). */
#ifndef LOOM_LFT_HISTORY_H
#define LOOM_LFT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct rl_read;

struct lfth_version {
	int64_t id;
	int64_t prev_id;      /* the version it holds the changes over; 0: full */
	double time;          /* the read that found it */
	double after;         /* the previous version's last read (0: none):
			       * the change happened between after and time */
	double until;         /* the next version's time; 0: still in force */
	int64_t switches, changed;
};

/* After read `read_id` of subnet `subnet_id` was stored (its lfts rows in;
 * inside the caller's transaction, before older reads are pruned): a new
 * version if its tables differ from the newest version's last read (a full
 * one when there is none, or that read is gone), else last_seen moved.
 * *added: 1 a version was added. 0 or -EIO (sqlite's message in err). */
int lfth_record(sqlite3 *db, int64_t subnet_id, int64_t read_id, double time, int *added,
		char *err, size_t errlen);

/* The versions in force within [from, to] (the one in force at `from`
 * first, when there is one), oldest first. *out is malloc'ed (free()).
 * 0 or -errno with err. */
int lfth_versions(sqlite3 *db, int64_t subnet_id, double from, double to,
		  struct lfth_version **out, size_t *n, char *err, size_t errlen);

/* The id of the version in force at t (0: none before t). -errno. */
int64_t lfth_in_force(sqlite3 *db, int64_t subnet_id, double t, char *err, size_t errlen);

/* The tables of version `id`, rebuilt along its chain (sorted). NULL with
 * err (-errno in *rc). */
struct rl_read *lfth_load(sqlite3 *db, int64_t id, int *rc, char *err, size_t errlen);

/* The changes of version `id` applied to r, the tables of the version it
 * holds them over (its prev_id: lfth_load's or an earlier lfth_apply's),
 * walking a window's versions in order without rebuilding each from its
 * chain. r's time becomes `time`. 0 or -errno with err. */
int lfth_apply(sqlite3 *db, struct rl_read *r, int64_t id, double time, char *err,
	       size_t errlen);

/* Drop what is older than `cutoff` on every subnet, keeping the version in
 * force at the cutoff (made full first). batch: rows a statement touches;
 * between(arg) is called after each statement and stops the pruning when
 * it returns nonzero. The versions deleted, or -EIO with err. */
long long lfth_prune(sqlite3 *db, double cutoff, int batch, int (*between)(void *),
		     void *arg, char *err, size_t errlen);

#endif
