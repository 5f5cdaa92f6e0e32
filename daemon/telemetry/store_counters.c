/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_counters.c: see store_counters.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_alarms.h"
#include "lib/telemetry/counter_row.h"
#include "lib/telemetry/port_history.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

/* ---- the stored rows, read once per read ----------------------------------------
 * One scan of the subnet's rows into a hash by (GUID, port): no query per
 * port, and each row is then written back by its rowid (its key does not
 * change, so SQLite touches no index). */

struct old_row {
	int64_t rowid;
	uint64_t guid;
	unsigned port;
	int has_sample;              /* a sample is stored (sampled and the packed row) */
	double sampled;
	uint32_t cleared;            /* cleared after that sample: counts from 0 */
	size_t blob, blob_len;       /* the packed row, in olds.bytes */
	int seen;                    /* this read asked for the port */
};

struct olds {
	struct old_row *rows;
	size_t n, cap;
	size_t *slot;                /* 1 + index into rows; 0: empty */
	size_t n_slots;              /* a power of two, at least twice n */
	uint8_t *bytes;
	size_t n_bytes, cap_bytes;
};

static size_t slot_of(uint64_t guid, unsigned port, size_t n_slots)
{
	uint64_t h = (guid ^ ((uint64_t)port << 56) ^ port) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (n_slots - 1);
}

static int olds_add(struct olds *o, const struct old_row *r, const void *blob)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		struct old_row *rows = realloc(o->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		o->rows = rows;
		o->cap = cap;
	}
	o->rows[o->n] = *r;
	if (blob && r->blob_len) {
		if (o->n_bytes + r->blob_len > o->cap_bytes) {
			size_t cap = o->cap_bytes ? 2 * o->cap_bytes : 65536;
			uint8_t *b;

			while (cap < o->n_bytes + r->blob_len)
				cap *= 2;
			if (!(b = realloc(o->bytes, cap)))
				return -ENOMEM;
			o->bytes = b;
			o->cap_bytes = cap;
		}
		memcpy(o->bytes + o->n_bytes, blob, r->blob_len);
		o->rows[o->n].blob = o->n_bytes;
		o->n_bytes += r->blob_len;
	}
	o->n++;
	return 0;
}

static int olds_index(struct olds *o)
{
	size_t n = 16;

	while (n < 2 * o->n)
		n *= 2;
	if (!(o->slot = calloc(n, sizeof(*o->slot))))
		return -ENOMEM;
	o->n_slots = n;
	for (size_t i = 0; i < o->n; i++) {
		size_t s = slot_of(o->rows[i].guid, o->rows[i].port, n);

		while (o->slot[s])
			s = (s + 1) & (n - 1);
		o->slot[s] = i + 1;
	}
	return 0;
}

static struct old_row *olds_find(const struct olds *o, uint64_t guid, unsigned port)
{
	if (!o->n_slots)
		return NULL;
	for (size_t s = slot_of(guid, port, o->n_slots); o->slot[s];
	     s = (s + 1) & (o->n_slots - 1)) {
		struct old_row *r = &o->rows[o->slot[s] - 1];

		if (r->guid == guid && r->port == port)
			return r;
	}
	return NULL;
}

static void olds_free(struct olds *o)
{
	free(o->rows);
	free(o->slot);
	free(o->bytes);
}

static int olds_load(sqlite3 *db, int64_t sid, struct olds *o)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT rowid, guid, port, sampled, sample, cleared FROM "
			       "port_counters WHERE subnet_id = ?", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "prepare the stored counters' read");
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *guid = (const char *)sqlite3_column_text(s, 1);
		const void *blob = sqlite3_column_blob(s, 4);
		int len = sqlite3_column_bytes(s, 4);
		struct old_row r = { .rowid = sqlite3_column_int64(s, 0),
				     .port = (unsigned)sqlite3_column_int(s, 2) };

		r.guid = guid ? strtoull(guid, NULL, 16) : 0;
		r.has_sample = blob && len > 0 && len <= COUNTER_ROW_MAX &&
			       sqlite3_column_type(s, 3) != SQLITE_NULL;
		r.sampled = sqlite3_column_double(s, 3);
		r.cleared = (uint32_t)sqlite3_column_int64(s, 5);
		r.blob_len = r.has_sample ? (size_t)len : 0;
		if (olds_add(o, &r, r.has_sample ? blob : NULL) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "read the stored counters");
	return olds_index(o);
}

/* ---- one port ------------------------------------------------------------------- */

struct stmts {
	sqlite3_stmt *ins, *upd, *stale, *del;
	struct store_alarms *alarms;
	const struct port_thresholds *t;
	int64_t sid;
	double now;
	struct olds olds;
	const char *subnet;
	struct port_history *hist;   /* the last reads in memory (NULL: none) */
	size_t hist_refused;         /* ports it had no room for */
	unsigned details_asked;      /* the read's detail attributes (enum pma_detail_attr bits) */
};

/* The detail counters of p into row from prev (NULL: no stored row):
 * deltas like the others; those of an attribute this read did not ask
 * (asked: enum pma_detail_attr bits) keep the stored value, "carried", so
 * that the next read that asks counts from the last that did. */
static void compare_details(const struct counter_row *prev, const struct counters_port *p,
			    unsigned asked, struct counter_row *row)
{
	row->ds = p->ds;
	for (int d = 0; d < PMA_N_DETAILS; d++) {
		uint64_t pv = prev ? prev->ds.v[d] : 0;
		unsigned pb = prev ? prev->ds.bits[d] : 0;

		if (!p->ds.bits[d] && pb && !(asked & (1u << pma_detail_attr_of((enum pma_detail)d)))) {
			row->ds.v[d] = (uint16_t)pv;
			row->ds.bits[d] = (uint8_t)pb;
			row->dd[d] = (struct cdelta){ CDELTA_CARRIED, 0 };
			continue;
		}
		row->dd[d] = cdelta_of(pv, pb, p->ds.v[d], p->ds.bits[d]);
	}
}

/* What each counter did from the stored row (old: NULL when none) to p's
 * sample, into *row; the interval in *dt (0: none). */
static void compare(const struct olds *o, const struct old_row *old,
		    const struct counters_port *p, double now, unsigned asked,
		    struct counter_row *row, double *dt)
{
	struct counter_row prev;
	int have = old && old->has_sample &&
		   counter_row_unpack(o->bytes + old->blob, old->blob_len, &prev) == 0;

	row->s = p->s;
	*dt = have ? now - old->sampled : 0;
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		uint64_t pv = have ? prev.s.v[c] : 0;
		unsigned pb = have ? prev.s.bits[c] : 0;

		/* What loomd cleared after the stored sample counts from zero. */
		if (have && pb && (old->cleared & (1u << c)))
			pv = 0;
		row->d[c] = cdelta_of(pv, pb, p->s.v[c], p->s.bits[c]);
	}
	compare_details(have ? &prev : NULL, p, asked, row);
}

/* A port read "same" (counters_wire.h) with the counters it was not read
 * for taken from its stored sample, into *out: 0, or -ENOENT when there is
 * none (those counters then have no value: never zeros). */
static int carry(const struct olds *o, const struct old_row *old, const struct counters_port *p,
		 struct counters_port *out)
{
	struct counter_row prev;

	*out = *p;
	if (!old || !old->has_sample ||
	    counter_row_unpack(o->bytes + old->blob, old->blob_len, &prev) < 0)
		return -ENOENT;
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (out->s.bits[c] || !prev.s.bits[c])
			continue;
		/* Cleared after the stored sample: it went on from zero. */
		out->s.v[c] = old->cleared & (1u << c) ? 0 : prev.s.v[c];
		out->s.bits[c] = prev.s.bits[c];
	}
	return 0;
}

static void bind_rate(sqlite3_stmt *s, int col, const struct counter_row *row,
		      enum pma_counter c, double dt)
{
	double rate;

	if (counter_row_rate(row, c, dt, &rate) == 0)
		sqlite3_bind_double(s, col, rate);
	else
		sqlite3_bind_null(s, col);
}

/* ?1 description, ?2 type, ?3 lid, ?4 read, ?5 answered, ?6 reason, ?7
 * sampled, ?8 interval_s, ?9 sample, ?10 cleared, ?11 errors, ?12
 * xmit_wait_per_s, ?13 xmit_data_per_s, ?14 data_per_s; and ?15: the
 * rowid (update) or the subnet (insert), ?16 GUID, ?17 port (insert). */
static void bind_row(sqlite3_stmt *s, const struct counters_port *p, double now,
		     const struct counter_row *row, double dt)
{
	uint8_t packed[COUNTER_ROW_MAX];
	double x, r;
	int hx, hr;

	sqlite3_bind_text(s, 1, p->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, p->is_switch ? "switch" : "CA", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, p->lid);
	sqlite3_bind_double(s, 4, now);
	sqlite3_bind_int(s, 5, p->answered);
	sqlite3_bind_text(s, 6, p->answered ? "" : p->reason, -1, SQLITE_STATIC);
	if (!row) {
		for (int col = 7; col <= 14; col++)
			sqlite3_bind_null(s, col);
		sqlite3_bind_int(s, 10, 0);
		return;
	}
	sqlite3_bind_double(s, 7, now);
	if (dt > 0)
		sqlite3_bind_double(s, 8, dt);
	else
		sqlite3_bind_null(s, 8);
	sqlite3_bind_blob(s, 9, packed, (int)counter_row_pack(row, packed), SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 10, p->cleared);
	sqlite3_bind_int64(s, 11, (sqlite3_int64)counter_row_errors(row, NULL));
	bind_rate(s, 12, row, PMA_XMIT_WAIT, dt);
	bind_rate(s, 13, row, PMA_XMIT_DATA, dt);
	hx = counter_row_rate(row, PMA_XMIT_DATA, dt, &x) == 0;
	hr = counter_row_rate(row, PMA_RCV_DATA, dt, &r) == 0;
	if (hx || hr)
		sqlite3_bind_double(s, 14, (hx ? x : 0) + (hr ? r : 0));
	else
		sqlite3_bind_null(s, 14);
}

static int step(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, what);
}

/* A LinkDownedCounter that moved (an exact delta or a lower bound). */
static void note_flap(struct counters_recorded *out, const struct counters_port *p,
		      const struct cdelta *d)
{
	if (d->delta == 0 || (d->state != CDELTA_OK && d->state != CDELTA_RESET &&
			      d->state != CDELTA_SATURATED))
		return;
	if (out->flapped < COUNTERS_FLAPPED_MAX) {
		out->flapped_port[out->flapped].guid = p->guid;
		out->flapped_port[out->flapped].port = p->port;
	}
	out->flapped++;
}

void counters_recorded_clear(struct counters_recorded *r)
{
	free(r->moved);
	r->moved = NULL;
	r->n_moved = r->n_moved_over = 0;
}

/* What moved on the port in this read, for the isolation's windows. */
static void note_moved(struct counters_recorded *out, const struct counters_port *p,
		       const struct counter_row *row)
{
	uint64_t downed = row->d[PMA_LINK_DOWNED].delta, errors = counter_row_errors(row, NULL);
	struct counters_moved *m;

	if (row->s.bits[PMA_LINK_DOWNED] && errors >= downed)
		errors -= downed;
	if (!errors && !downed)
		return;
	if (out->n_moved >= COUNTERS_MOVED_MAX) {
		out->n_moved_over++;
		return;
	}
	if ((out->n_moved & (out->n_moved + 1)) == 0 || !out->moved) {
		/* at 0, 1, 3, 7...: room for twice as many */
		m = realloc(out->moved, 2 * (out->n_moved + 1) * sizeof(*m));
		if (!m) {
			out->n_moved_over++;
			return;
		}
		out->moved = m;
	}
	out->moved[out->n_moved++] = (struct counters_moved){
		.guid = p->guid, .port = p->port, .errors = errors,
		.symbol = row->s.bits[PMA_SYMBOL_ERR] ? row->d[PMA_SYMBOL_ERR].delta : 0,
		.downed = row->s.bits[PMA_LINK_DOWNED] ? downed : 0,
	};
}

static int record_port(sqlite3 *db, struct stmts *q, const struct counters_port *read,
		       struct counters_recorded *out)
{
	struct old_row *old = olds_find(&q->olds, read->guid, read->port);
	struct counters_port carried;
	const struct counters_port *p = read;
	struct port_reading r = { .answered = p->answered, .reason = p->reason };
	struct port_judgement j;
	struct counter_row row;
	char guid[24];
	int rc;

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, p->guid);
	if (read->answered && read->same) {
		out->same++;
		out->unsure += carry(&q->olds, old, read, &carried) < 0;
		p = &carried;
	}
	if (old)
		old->seen = 1;
	if (!p->answered && old) {
		/* Stale: the last sample stays, the row says why. */
		sqlite3_bind_double(q->stale, 1, q->now);
		sqlite3_bind_text(q->stale, 2, p->reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q->stale, 3, old->rowid);
		rc = step(db, q->stale, "mark port counters stale");
	} else {
		sqlite3_stmt *s = old ? q->upd : q->ins;
		double dt = 0;

		if (p->answered)
			compare(&q->olds, old, p, q->now, q->details_asked, &row, &dt);
		bind_row(s, p, q->now, p->answered ? &row : NULL, dt);
		if (old) {
			sqlite3_bind_int64(s, 15, old->rowid);
		} else {
			sqlite3_bind_int64(s, 15, q->sid);
			sqlite3_bind_text(s, 16, guid, -1, SQLITE_STATIC);
			sqlite3_bind_int(s, 17, (int)p->port);
		}
		rc = step(db, s, "write port counters");
		if (p->answered && q->hist &&
		    port_history_add(q->hist, q->subnet, p->guid, p->port, q->now, &row, dt) < 0)
			q->hist_refused++;
		if (p->answered) {
			memcpy(r.d, row.d, sizeof(r.d));
			r.interval_s = dt;
			note_flap(out, p, &row.d[PMA_LINK_DOWNED]);
			note_moved(out, p, &row);
		}
	}
	if (rc < 0)
		return rc;
	port_alarms_judge(q->t, &r, &j);
	return store_alarms_port(q->alarms, guid, (int)p->port, p->node, &j);
}

/* ---- the read ------------------------------------------------------------------- */

static int prepare(sqlite3 *db, struct stmts *q)
{
	static const char *const cols = "description = ?1, type = ?2, lid = ?3, read = ?4, "
		"answered = ?5, reason = ?6, sampled = ?7, interval_s = ?8, sample = ?9, "
		"cleared = ?10, errors = ?11, xmit_wait_per_s = ?12, xmit_data_per_s = ?13, "
		"data_per_s = ?14, "
		/* the last read whose error counters moved (health's window) */
		"err_last = CASE WHEN ?11 > 0 THEN ?4 ELSE err_last END, "
		"err_last_n = CASE WHEN ?11 > 0 THEN ?11 ELSE err_last_n END";
	char upd[768];

	snprintf(upd, sizeof(upd), "UPDATE port_counters SET %s WHERE rowid = ?15", cols);
	if (sqlite3_prepare_v2(db, upd, -1, &q->upd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO port_counters (description, type, lid, read, "
			       "answered, reason, sampled, interval_s, sample, cleared, errors, "
			       "xmit_wait_per_s, xmit_data_per_s, data_per_s, subnet_id, guid, port, "
			       "err_last, err_last_n) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
			       "?15, ?16, ?17, CASE WHEN ?11 > 0 THEN ?4 END, "
			       "CASE WHEN ?11 > 0 THEN ?11 END)", -1, &q->ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE port_counters SET read = ?1, answered = 0, reason = ?2 "
			       "WHERE rowid = ?3", -1, &q->stale, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM port_counters WHERE rowid = ?", -1, &q->del,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "prepare the counters statements");
	return 0;
}

static int put_read(sqlite3 *db, int64_t sid, const struct counters_done *d)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO counter_reads (subnet_id, started, "
			       "finished, ports, answered, mads, timeout_ms, retries, in_flight) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "prepare the counters read");
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_double(s, 2, d->started);
	sqlite3_bind_double(s, 3, d->finished);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)d->ports);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)d->answered);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)d->mads);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)d->timeout_ms);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)d->retries);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)d->in_flight);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write the counters read");
}

static int record(struct store *st, int64_t sid, const char *subnet,
		  const struct port_thresholds *t, const struct counters_answer *a,
		  struct counters_recorded *out, struct job_index *jobs,
		  struct port_history *hist)
{
	sqlite3 *db = store_db(st);
	struct stmts q = { .t = t, .sid = sid, .now = a->done.finished, .subnet = subnet,
			   .hist = hist, .details_asked = a->details };
	int rc;

	if ((rc = prepare(db, &q)) < 0 || (rc = olds_load(db, sid, &q.olds)) < 0 ||
	    (rc = put_read(db, sid, &a->done)) < 0)
		goto out;
	if (!(q.alarms = store_alarms_new(st, sid, t, q.now))) {
		rc = -ENOMEM;
		goto out;
	}
	store_alarms_set_jobs(q.alarms, jobs, subnet);
	for (size_t i = 0; i < a->n_ports; i++) {
		out->stale += !a->ports[i].answered;
		if ((rc = record_port(db, &q, &a->ports[i], out)) < 0)
			goto out;
	}
	/* Ports this read did not ask for are no longer cabled. */
	for (size_t i = 0; i < q.olds.n; i++) {
		if (q.olds.rows[i].seen)
			continue;
		sqlite3_bind_int64(q.del, 1, q.olds.rows[i].rowid);
		if ((rc = step(db, q.del, "forget ports no longer cabled")) < 0)
			goto out;
	}
	rc = store_alarms_finish(q.alarms, &out->raised, &out->cleared);
	out->history_refused = q.hist_refused;
	out->read_at = q.now;
out:
	store_alarms_free(q.alarms);
	sqlite3_finalize(q.ins);
	sqlite3_finalize(q.upd);
	sqlite3_finalize(q.stale);
	sqlite3_finalize(q.del);
	olds_free(&q.olds);
	return rc;
}

int store_record_counters(struct store *st, const char *subnet,
			  const struct port_thresholds *t, const struct counters_answer *a,
			  struct counters_recorded *out)
{
	int rc = store_record_counters_jobs(st, subnet, t, a, out, NULL, NULL);

	if (out)
		counters_recorded_clear(out);   /* its callers read no moves */
	return rc;
}

int store_record_counters_jobs(struct store *st, const char *subnet,
			       const struct port_thresholds *t, const struct counters_answer *a,
			       struct counters_recorded *out, struct job_index *jobs,
			       struct port_history *hist)
{
	sqlite3 *db = store_db(st);
	struct counters_recorded ignored;
	double t0 = clock_mono();
	int64_t sid;
	int rc;

	if (!out)
		out = &ignored;
	memset(out, 0, sizeof(*out));
	if ((sid = store_subnet_id(st, subnet)) <= 0)
		return sid < 0 ? (int)sid : -ENOENT;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin the counters transaction");
	rc = record(st, sid, subnet, t, a, out, jobs, hist);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the counters");
	if (rc < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		counters_recorded_clear(out);   /* nothing of it was recorded */
	} else
		log_debug("subnet %s: %zu port counter rows written in %.0f ms", subnet,
			  a->n_ports, (clock_mono() - t0) * 1000.0);
	if (out == &ignored)
		counters_recorded_clear(out);
	return rc;
}
