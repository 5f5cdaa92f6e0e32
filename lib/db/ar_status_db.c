/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/ar_status_db.c: the newest stored AR probe of a subnet (schema 8), for
 * loomd's `ar-status` answer and loomctl --db alike (see ar_status.h). */
#include "autoconf.h"
#include "lib/db/ar_status_db.h"
#include "lib/ar/ar_status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db/db_query.h"
#include "lib/route/route_live.h"
#include "lib/db/route_live_db.h"

static int db_fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "database: %s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	int found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
			       "name = ?", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

/* A column as JSON: NULL as null, integers as booleans when `flag`. */
static json_t *col_int(sqlite3_stmt *s, int col, int flag)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return json_null();
	return flag ? json_boolean(sqlite3_column_int(s, col)) :
		      json_integer(sqlite3_column_int64(s, col));
}

/* Text from the database as a JSON string; bytes that are not UTF-8 as '?'. */
static json_t *col_text(sqlite3_stmt *s, int col)
{
	const char *t = (const char *)sqlite3_column_text(s, col);
	json_t *v = json_string(t ? t : "");
	char buf[512];
	size_t i;

	if (v || !t)
		return v;
	for (i = 0; t[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)t[i] < 0x80 ? t[i] : '?';
	buf[i] = '\0';
	return json_string(buf);
}

static json_t *switch_row(sqlite3_stmt *s)
{
	const char *caps = (const char *)sqlite3_column_text(s, 10);
	json_t *c = caps ? json_loads(caps, 0, NULL) : NULL;

	return json_pack("{s:o, s:o, s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "guid", col_text(s, 0), "desc", col_text(s, 1),
			 "lid", sqlite3_column_int(s, 2), "supported", sqlite3_column_int(s, 3),
			 "enabled", col_int(s, 4, 1), "groups_used", col_int(s, 5, 0),
			 "group_cap", col_int(s, 6, 0), "reason", col_text(s, 7),
			 "mad_status", col_int(s, 8, 0), "caps", c ? c : json_null());
}

/* The "probe" object; -ENOENT when the subnet was never probed. */
static int probe_info(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	char ts[32];
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT p.started, p.finished, p.switches, p.smps, "
			       "p.timeout_ms, p.retries, p.in_flight FROM ar_probes p JOIN "
			       "subnets n ON n.id = p.subnet_id WHERE n.name = ?", -1, &s, NULL)
	    != SQLITE_OK)
		return db_fail(db, err, errlen, "AR probes");
	sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		double started = sqlite3_column_double(s, 0), finished = sqlite3_column_double(s, 1);

		*out = json_pack("{s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:I}",
				 "time", dbq_time_str(finished, ts, sizeof(ts)), "ts", finished,
				 "duration_ms", (json_int_t)((finished - started) * 1000.0 + 0.5),
				 "switches", (json_int_t)sqlite3_column_int64(s, 2),
				 "smps", (json_int_t)sqlite3_column_int64(s, 3),
				 "timeout_ms", (json_int_t)sqlite3_column_int64(s, 4),
				 "retries", (json_int_t)sqlite3_column_int64(s, 5),
				 "in_flight", (json_int_t)sqlite3_column_int64(s, 6));
		rc = *out ? 0 : -ENOMEM;
		if (rc < 0)
			snprintf(err, errlen, "out of memory");
	} else if (rc == SQLITE_DONE) {
		snprintf(err, errlen, "adaptive routing has not been probed on subnet %s yet "
			 "(loomctl ar status, with loomd running, probes it)", subnet);
		rc = -ENOENT;
	} else {
		rc = db_fail(db, err, errlen, "AR probes");
	}
	sqlite3_finalize(s);
	return rc;
}

int ar_db_status(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen)
{
	char name[256], ca[256];
	json_t *probe = NULL, *arr = NULL, *row;
	sqlite3_stmt *s;
	long n_sup = 0, n_unsup = 0;
	int port, rc;

	*out = NULL;
	if ((rc = rl_db_subnet(db, subnet, name, sizeof(name), ca, sizeof(ca), &port, err,
			       errlen)) < 0)
		return rc;
	if (!has_table(db, "ar_probes")) {
		snprintf(err, errlen, "the database predates adaptive routing probes (schema 8): "
			 "run a newer loomd on it first");
		return -ENOENT;
	}
	if ((rc = probe_info(db, name, &probe, err, errlen)) < 0)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT a.guid, a.description, a.lid, a.supported, "
			       "a.enabled, a.groups_used, a.group_cap, a.reason, a.mad_status, "
			       "a.probed, a.caps FROM ar_switches a JOIN subnets n ON "
			       "n.id = a.subnet_id WHERE n.name = ? ORDER BY a.description, a.guid",
			       -1, &s, NULL) != SQLITE_OK) {
		json_decref(probe);
		return db_fail(db, err, errlen, "AR switches");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	arr = json_array();
	while (arr && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!(row = switch_row(s)) || json_array_append_new(arr, row) < 0) {
			json_decref(arr);
			arr = NULL;
			break;
		}
		if (sqlite3_column_int(s, 3))
			n_sup++;
		else
			n_unsup++;
	}
	sqlite3_finalize(s);
	if (!arr || rc != SQLITE_DONE) {
		json_decref(arr);
		json_decref(probe);
		if (!arr) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return db_fail(db, err, errlen, "AR switches");
	}
	*out = json_pack("{s:s, s:o, s:I, s:I, s:o}", "subnet", name, "probe", probe,
			 "supported", (json_int_t)n_sup, "unsupported", (json_int_t)n_unsup,
			 "switches", arr);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
