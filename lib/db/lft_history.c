/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/lft_history.c: see lft_history.h. */
#include "autoconf.h"
#include "lib/db/lft_history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/fabric/ibtypes.h"
#include "lib/route/route_live.h"

/* A switch gone at some version (no LID is 0xffff: the permissive LID). */
#define LFTH_GONE 0xffff

/* One statement with up to four integer/real parameters, stepped to the
 * end. The rows it changed, or -EIO. */
static long long exec4(sqlite3 *db, const char *sql, const double *v, int n, char *err,
		       size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0)
		return rc;
	for (int i = 0; i < n; i++)
		if (v[i] == (double)(sqlite3_int64)v[i])
			sqlite3_bind_int64(s, i + 1, (sqlite3_int64)v[i]);
		else
			sqlite3_bind_double(s, i + 1, v[i]);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "forwarding table history");
	return sqlite3_changes(db);
}

/* The first column of the first row (0 when none), or -EIO. */
static int64_t one_int(sqlite3 *db, const char *sql, const double *v, int n, char *err,
		       size_t errlen)
{
	sqlite3_stmt *s;
	int64_t out = 0;
	int rc;

	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0)
		return rc;
	for (int i = 0; i < n; i++)
		sqlite3_bind_double(s, i + 1, v[i]);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "forwarding table history");
	return out;
}

/* A patch of the entries where `now` differs from `was` (both n bytes):
 * 3 bytes each, the LID little-endian then the port. Its length, or 0
 * when the table itself is no longer (then the row is the table). */
static size_t patch_of(const uint8_t *was, const uint8_t *now, size_t n, uint8_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (was[i] == now[i])
			continue;
		if (k + 3 >= n)
			return 0;
		out[k++] = (uint8_t)(i & 0xff);
		out[k++] = (uint8_t)(i >> 8);
		out[k++] = now[i];
	}
	return k;
}

/* The rows of version `id`: each switch of read `read_id` whose table is
 * new or differs from read `prev`'s (a patch when that is smaller, and
 * lid and top did not change), and a NULL row for each switch gone. The
 * rows written, or -errno. */
static long long record_changes(sqlite3 *db, int64_t id, int64_t read_id, int64_t prev,
				char *err, size_t errlen)
{
	sqlite3_stmt *q, *ins;
	uint8_t *patch = NULL;
	long long n = 0;
	int rc;

	if ((rc = dbq_prepare(db, "SELECT n.switch_guid, n.lid, n.top, n.lft, o.lid, o.top, o.lft "
			      "FROM lfts n LEFT JOIN lfts o ON o.read_id = ?2 AND o.switch_guid = "
			      "n.switch_guid WHERE n.read_id = ?1 AND (o.switch_guid IS NULL OR "
			      "o.lid != n.lid OR o.top != n.top OR o.lft != n.lft)", &q, err,
			      errlen)) < 0)
		return rc;
	if ((rc = dbq_prepare(db, "INSERT INTO lft_version_tables (version_id, switch_guid, lid, "
			      "top, full, lft) VALUES (?, ?, ?, ?, ?, ?)", &ins, err, errlen)) < 0) {
		sqlite3_finalize(q);
		return rc;
	}
	sqlite3_bind_int64(q, 1, read_id);
	sqlite3_bind_int64(q, 2, prev);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const uint8_t *now = sqlite3_column_blob(q, 3), *was = sqlite3_column_blob(q, 6);
		size_t len = (size_t)sqlite3_column_bytes(q, 3), k = 0;

		if (was && (size_t)sqlite3_column_bytes(q, 6) == len &&
		    sqlite3_column_int(q, 1) == sqlite3_column_int(q, 4)) {
			uint8_t *bigger = realloc(patch, len ? len : 1);

			if (!bigger) {
				rc = SQLITE_NOMEM;
				break;
			}
			patch = bigger;
			k = patch_of(was, now, len, patch);
		}
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_text(ins, 2, dbq_col_str(q, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 3, sqlite3_column_int(q, 1));
		sqlite3_bind_int(ins, 4, sqlite3_column_int(q, 2));
		sqlite3_bind_int(ins, 5, k == 0);
		if (k)
			sqlite3_bind_blob(ins, 6, patch, (int)k, SQLITE_STATIC);
		else
			sqlite3_bind_blob(ins, 6, now, (int)len, SQLITE_STATIC);
		rc = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (rc != SQLITE_DONE)
			break;
		n++;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	free(patch);
	if (rc == SQLITE_NOMEM)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if (rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "forwarding table history");
	{
		double v[] = { (double)id, (double)read_id, (double)prev };
		long long gone = exec4(db, "INSERT INTO lft_version_tables (version_id, switch_guid, "
				       "lid, top, full, lft) SELECT ?1, o.switch_guid, 0, 0, 1, NULL "
				       "FROM lfts o WHERE o.read_id = ?3 AND NOT EXISTS (SELECT 1 "
				       "FROM lfts n WHERE n.read_id = ?2 AND n.switch_guid = "
				       "o.switch_guid)", v, 3, err, errlen);

		return gone < 0 ? gone : n + gone;
	}
}

int lfth_record(sqlite3 *db, int64_t subnet_id, int64_t read_id, double time, int *added,
		char *err, size_t errlen)
{
	double sub = (double)subnet_id, rd = (double)read_id;
	int64_t last, prev_read = 0, id;
	long long n;
	sqlite3_stmt *s;
	int rc;

	*added = 0;
	if ((rc = dbq_prepare(db, "SELECT v.id, v.last_read FROM lft_versions v JOIN lft_reads r "
			      "ON r.id = v.last_read WHERE v.subnet_id = ? ORDER BY v.time DESC, "
			      "v.id DESC LIMIT 1", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int64(s, 1, subnet_id);
	last = 0;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		last = sqlite3_column_int64(s, 0);
		prev_read = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "forwarding table history");
	/* The newest version may be another's than the one its last read
	 * compared with: only a version whose last read is still stored can
	 * be compared; otherwise a full copy starts a new chain. */
	if (last && one_int(db, "SELECT max(id) FROM lft_versions WHERE subnet_id = ?",
			    &sub, 1, err, errlen) != last)
		last = 0;
	{
		double v[] = { sub, last ? (double)last : 0, time, time, rd };

		if ((n = exec4(db, last ?
			       "INSERT INTO lft_versions (subnet_id, prev_id, time, last_seen, "
			       "last_read, switches, changed) SELECT ?1, ?2, ?3, ?4, ?5, count(*), 0 "
			       "FROM lfts WHERE read_id = ?5" :
			       "INSERT INTO lft_versions (subnet_id, prev_id, time, last_seen, "
			       "last_read, switches, changed) SELECT ?1, NULL, ?3, ?4, ?5, count(*), 0 "
			       "FROM lfts WHERE read_id = ?5 AND ?2 = 0", v, 5, err, errlen)) < 0)
			return (int)n;
	}
	id = sqlite3_last_insert_rowid(db);
	if (last)
		n = record_changes(db, id, read_id, prev_read, err, errlen);
	else {
		double v[] = { (double)id, rd };

		n = exec4(db, "INSERT INTO lft_version_tables (version_id, switch_guid, lid, top, "
			  "full, lft) SELECT ?1, switch_guid, lid, top, 1, lft FROM lfts WHERE "
			  "read_id = ?2", v, 2, err, errlen);
	}
	if (n < 0)
		return (int)n;
	if (last && n == 0) {
		double v[] = { (double)id, time, rd, (double)last };

		if ((n = exec4(db, "DELETE FROM lft_versions WHERE id = ?1", v, 1, err,
			       errlen)) < 0 ||
		    (n = exec4(db, "UPDATE lft_versions SET last_seen = ?2, last_read = ?3 WHERE "
			       "id = ?4", v, 4, err, errlen)) < 0)
			return (int)n;
		return 0;
	}
	{
		double v[] = { (double)id, (double)n };

		if ((n = exec4(db, "UPDATE lft_versions SET changed = ?2 WHERE id = ?1", v, 2, err,
			       errlen)) < 0)
			return (int)n;
	}
	*added = 1;
	return 0;
}

int64_t lfth_in_force(sqlite3 *db, int64_t subnet_id, double t, char *err, size_t errlen)
{
	double v[] = { (double)subnet_id, t };

	return one_int(db, "SELECT id FROM lft_versions WHERE subnet_id = ?1 AND time <= ?2 "
		       "ORDER BY time DESC, id DESC LIMIT 1", v, 2, err, errlen);
}

int lfth_versions(sqlite3 *db, int64_t subnet_id, double from, double to,
		  struct lfth_version **out, size_t *n, char *err, size_t errlen)
{
	int64_t first = lfth_in_force(db, subnet_id, from, err, errlen);
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (first < 0)
		return (int)first;
	/* Each with the previous one's last read and the next one's time. */
	if ((rc = dbq_prepare(db, "SELECT id, time, switches, changed, prev_id, (SELECT p.last_seen FROM "
			      "lft_versions p WHERE p.subnet_id = v.subnet_id AND p.time < v.time "
			      "ORDER BY p.time DESC LIMIT 1), (SELECT x.time FROM lft_versions x "
			      "WHERE x.subnet_id = v.subnet_id AND x.time > v.time ORDER BY x.time "
			      "LIMIT 1) FROM lft_versions v WHERE subnet_id = ?1 AND (id = ?2 OR "
			      "(time > ?3 AND time <= ?4)) ORDER BY time, id", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int64(s, 1, subnet_id);
	sqlite3_bind_int64(s, 2, first);
	sqlite3_bind_double(s, 3, from);
	sqlite3_bind_double(s, 4, to);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			struct lfth_version *bigger = realloc(*out, (cap = cap ? 2 * cap : 8) *
							      sizeof(*bigger));

			if (!bigger)
				break;
			*out = bigger;
		}
		(*out)[(*n)++] = (struct lfth_version){
			.id = sqlite3_column_int64(s, 0), .time = sqlite3_column_double(s, 1),
			.switches = sqlite3_column_int64(s, 2), .changed = sqlite3_column_int64(s, 3),
			.prev_id = sqlite3_column_int64(s, 4),
			.after = sqlite3_column_double(s, 5), .until = sqlite3_column_double(s, 6),
		};
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return 0;
	free(*out);
	*out = NULL;
	*n = 0;
	return rc == SQLITE_ROW ? dbq_fail(err, errlen, -ENOMEM, "out of memory") :
		dbq_db_fail(db, err, errlen, "forwarding table history");
}

/* The table of guid among r's first `sorted` (in GUID order), or NULL. */
static struct rl_table *find_sorted(struct rl_read *r, size_t sorted, uint64_t guid)
{
	size_t lo = 0, hi = sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->t[mid].guid == guid)
			return &r->t[mid];
		if (r->t[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Apply one stored row to r (its first `sorted` tables in GUID order; new
 * ones appended): a table, a patch, or gone. */
static int apply_row(struct rl_read *r, size_t sorted, sqlite3_stmt *tab, char *err,
		     size_t errlen)
{
	uint64_t guid = strtoull(dbq_col_str(tab, 0), NULL, 16);
	const uint8_t *blob = sqlite3_column_blob(tab, 4);
	size_t len = (size_t)sqlite3_column_bytes(tab, 4);
	int top = sqlite3_column_int(tab, 2), full = sqlite3_column_int(tab, 3);
	struct rl_table *t = find_sorted(r, sorted, guid);

	if (sqlite3_column_type(tab, 4) == SQLITE_NULL) {   /* gone */
		if (t)
			t->lid = LFTH_GONE;
		return 0;
	}
	if (top < 0 || top > 0xffff || (full && len != (size_t)top + 1) ||
	    (!full && (len % 3 || !t || t->lid == LFTH_GONE || t->top != top)))
		return dbq_fail(err, errlen, -EIO, "the stored table of switch %s is damaged",
				dbq_col_str(tab, 0));
	if (full && !t) {
		if (rl_read_add(r, guid, (uint16_t)sqlite3_column_int(tab, 1), (uint16_t)top,
				blob) < 0)
			return dbq_fail(err, errlen, -ENOMEM, "out of memory");
		return 0;
	}
	if (full) {
		uint8_t *p = realloc(t->port, len);

		if (!p)
			return dbq_fail(err, errlen, -ENOMEM, "out of memory");
		memcpy(p, blob, len);
		t->port = p;
		t->top = (uint16_t)top;
		t->lid = (uint16_t)sqlite3_column_int(tab, 1);
		return 0;
	}
	for (size_t i = 0; i < len; i += 3) {
		unsigned lid = blob[i] | (unsigned)blob[i + 1] << 8;

		if (lid > (unsigned)top)
			return dbq_fail(err, errlen, -EIO, "the stored table of switch %s is "
					"damaged", dbq_col_str(tab, 0));
		t->port[lid] = blob[i + 2];
	}
	return 0;
}

/* The rows of version `id` (tab: its query) applied to r, sorted after. */
static int apply_version(sqlite3 *db, sqlite3_stmt *tab, struct rl_read *r, int64_t id,
			 char *err, size_t errlen)
{
	size_t sorted = r->n;
	int step, rc = 0;

	sqlite3_bind_int64(tab, 1, id);
	while (rc == 0 && (step = sqlite3_step(tab)) == SQLITE_ROW)
		rc = apply_row(r, sorted, tab, err, errlen);
	sqlite3_reset(tab);
	rl_read_sort(r);
	if (rc == 0 && step != SQLITE_DONE)
		rc = dbq_db_fail(db, err, errlen, "forwarding table history");
	return rc;
}

/* The switches marked gone leave r. */
static void drop_gone(struct rl_read *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->t[i].lid == LFTH_GONE) {
			free(r->t[i].port);
			continue;
		}
		r->t[k++] = r->t[i];
	}
	r->n = k;
}

int lfth_apply(sqlite3 *db, struct rl_read *r, int64_t id, double time, char *err,
	       size_t errlen)
{
	sqlite3_stmt *tab;
	int rc;

	if ((rc = dbq_prepare(db, "SELECT switch_guid, lid, top, full, lft FROM "
			      "lft_version_tables WHERE version_id = ?", &tab, err, errlen)) < 0)
		return rc;
	rc = apply_version(db, tab, r, id, err, errlen);
	sqlite3_finalize(tab);
	drop_gone(r);
	r->started = r->finished = time;
	return rc;
}

struct rl_read *lfth_load(sqlite3 *db, int64_t id, int *rc, char *err, size_t errlen)
{
	struct rl_read *r = rl_read_new();
	sqlite3_stmt *tab = NULL, *up = NULL;
	int64_t *chain = NULL;
	size_t n = 0, cap = 0;
	int step;

	*rc = -ENOMEM;
	if (!r) {
		dbq_fail(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	if ((*rc = dbq_prepare(db, "SELECT switch_guid, lid, top, full, lft FROM "
			       "lft_version_tables WHERE version_id = ?", &tab, err, errlen)) < 0 ||
	    (*rc = dbq_prepare(db, "SELECT prev_id, time FROM lft_versions WHERE id = ?", &up, err,
			       errlen)) < 0)
		goto fail;
	/* The chain, newest first, back to its full version. */
	while (id > 0) {
		if (n == cap) {
			int64_t *bigger = realloc(chain, (cap = cap ? 2 * cap : 16) * sizeof(*chain));

			if (!bigger) {
				*rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
				goto fail;
			}
			chain = bigger;
		}
		chain[n++] = id;
		sqlite3_bind_int64(up, 1, id);
		if ((step = sqlite3_step(up)) != SQLITE_ROW) {
			*rc = step == SQLITE_DONE ?
				dbq_fail(err, errlen, -EIO, "forwarding table version %lld is "
					 "missing", (long long)id) :
				dbq_db_fail(db, err, errlen, "forwarding table history");
			goto fail;
		}
		if (n == 1)
			r->started = r->finished = sqlite3_column_double(up, 1);
		id = sqlite3_column_type(up, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(up, 0);
		sqlite3_reset(up);
	}
	/* Applied oldest first. */
	while (n-- > 0)
		if ((*rc = apply_version(db, tab, r, chain[n], err, errlen)) < 0)
			goto fail;
	sqlite3_finalize(tab);
	sqlite3_finalize(up);
	free(chain);
	drop_gone(r);
	*rc = 0;
	return r;
fail:
	sqlite3_finalize(tab);
	sqlite3_finalize(up);
	free(chain);
	rl_read_free(r);
	return NULL;
}

/* ---- pruning ------------------------------------------------------------------------ */

/* Make version `keep` full: its tables rebuilt, each written whole into
 * it, `batch` switches a statement (a row written whole is right whatever
 * the chain below it: stopped half way, the version still rebuilds the
 * same), then cut from the versions before. 0, 1 stopped, or -errno. */
static int make_full(sqlite3 *db, int64_t keep, int batch, int (*between)(void *), void *arg,
		     char *err, size_t errlen)
{
	double v[] = { (double)keep };
	struct rl_read *r;
	sqlite3_stmt *ins;
	char g[24];
	int rc;

	if ((rc = (int)one_int(db, "SELECT prev_id IS NULL FROM lft_versions WHERE id = ?", v, 1,
			       err, errlen)) != 0)
		return rc < 0 ? rc : 0;   /* already full */
	if (!(r = lfth_load(db, keep, &rc, err, errlen)))
		return rc;
	if ((rc = dbq_prepare(db, "INSERT OR REPLACE INTO lft_version_tables (version_id, "
			      "switch_guid, lid, top, full, lft) VALUES (?, ?, ?, ?, 1, ?)", &ins,
			      err, errlen)) < 0) {
		rl_read_free(r);
		return rc;
	}
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		if (i % (size_t)batch == 0 && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
			rc = dbq_db_fail(db, err, errlen, "forwarding table history");
		sqlite3_bind_int64(ins, 1, keep);
		ibt_guid_str(r->t[i].guid, g, sizeof(g));   /* as lfts and the store write it */
		sqlite3_bind_text(ins, 2, g, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 3, r->t[i].lid);
		sqlite3_bind_int(ins, 4, r->t[i].top);
		sqlite3_bind_blob(ins, 5, r->t[i].port, (int)r->t[i].top + 1, SQLITE_STATIC);
		if (rc == 0 && sqlite3_step(ins) != SQLITE_DONE)
			rc = dbq_db_fail(db, err, errlen, "forwarding table history");
		sqlite3_reset(ins);
		if ((i + 1) % (size_t)batch == 0 || i + 1 == r->n || rc < 0) {
			sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
			if (rc == 0 && between && between(arg))
				rc = 1;
		}
	}
	sqlite3_finalize(ins);
	rl_read_free(r);
	if (rc != 0)
		return rc;
	return exec4(db, "UPDATE lft_versions SET prev_id = NULL WHERE id = ?1", v, 1, err,
		     errlen) < 0 ? -EIO : 0;
}

/* Delete version `id`, its rows a batch at a time. 0, 1 stopped, -EIO. */
static int drop_version(sqlite3 *db, int64_t id, int batch, int (*between)(void *), void *arg,
			char *err, size_t errlen)
{
	double v[] = { (double)id, (double)batch };
	long long n;

	do {
		if ((n = exec4(db, "DELETE FROM lft_version_tables WHERE version_id = ?1 AND "
			       "switch_guid IN (SELECT switch_guid FROM lft_version_tables WHERE "
			       "version_id = ?1 LIMIT ?2)", v, 2, err, errlen)) < 0)
			return (int)n;
		if (between && between(arg))
			return 1;
	} while (n == batch);
	/* Its successor (older than the kept one too) starts a chain. */
	if (exec4(db, "UPDATE lft_versions SET prev_id = NULL WHERE prev_id = ?1", v, 1, err,
		  errlen) < 0 ||
	    exec4(db, "DELETE FROM lft_versions WHERE id = ?1", v, 1, err, errlen) < 0)
		return -EIO;
	return 0;
}

long long lfth_prune(sqlite3 *db, double cutoff, int batch, int (*between)(void *),
		     void *arg, char *err, size_t errlen)
{
	long long deleted = 0;
	sqlite3_stmt *s;
	int64_t sub[64];
	size_t n = 0;
	int rc;

	if ((rc = dbq_prepare(db, "SELECT DISTINCT subnet_id FROM lft_versions WHERE time < ? "
			      "LIMIT 64", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_double(s, 1, cutoff);
	while (n < 64 && (rc = sqlite3_step(s)) == SQLITE_ROW)
		sub[n++] = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	for (size_t i = 0; i < n; i++) {
		int64_t keep = lfth_in_force(db, sub[i], cutoff, err, errlen), old;
		double v[] = { (double)sub[i], cutoff, (double)keep };

		if (keep <= 0)
			continue;
		if ((rc = make_full(db, keep, batch, between, arg, err, errlen)) != 0)
			return rc < 0 ? rc : deleted;
		/* The older ones, oldest first. */
		while ((old = one_int(db, "SELECT id FROM lft_versions WHERE subnet_id = ?1 AND "
				      "time <= ?2 AND id != ?3 AND (time < (SELECT time FROM "
				      "lft_versions WHERE id = ?3) OR id < ?3) ORDER BY time, id "
				      "LIMIT 1", v, 3, err, errlen)) > 0) {
			if ((rc = drop_version(db, old, batch, between, arg, err, errlen)) != 0)
				return rc < 0 ? rc : deleted;
			deleted++;
		}
		if (old < 0)
			return old;
	}
	{
		double v[] = { cutoff };

		if (exec4(db, "DELETE FROM tenant_ends WHERE ended < ?1", v, 1, err, errlen) < 0)
			return -EIO;
	}
	return deleted;
}
