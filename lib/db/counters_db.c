/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/counters_db.c: see counters_db.h. */
#include "autoconf.h"
#include "lib/db/counters_db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/telemetry/counter_row.h"

static json_t *col_real(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? json_null()
							   : json_real(sqlite3_column_double(s, col));
}

/* A row of COLS. */
static json_t *port_row(sqlite3_stmt *s)
{
	int answered = sqlite3_column_int(s, 5);
	struct counter_row row;
	int has = counter_row_unpack(sqlite3_column_blob(s, 9),
				     (size_t)sqlite3_column_bytes(s, 9), &row) == 0;
	double dt = sqlite3_column_type(s, 10) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 10);
	json_t *o = json_pack("{s:o, s:o, s:o, s:i, s:i, s:b}", "guid", dbq_col_text(s, 0),
			      "node", dbq_col_text(s, 1), "type", dbq_col_text(s, 2), "port",
			      sqlite3_column_int(s, 3), "lid", sqlite3_column_int(s, 4), "answered",
			      answered);

	if (!o)
		return NULL;
	json_object_set_new(o, "desc", dbq_col_text(s, 11));
	if (!answered)
		json_object_set_new(o, "reason", dbq_col_text(s, 6));
	if (!has)
		return o;
	/* Counters that an earlier read left: stale, never shown as new. */
	json_object_set_new(o, "stale", json_boolean(!answered));
	json_object_set_new(o, "sampled", dbq_col_time(s, 8));
	json_object_set_new(o, "interval_s", col_real(s, 10));
	json_object_set_new(o, "counters", counter_row_counters_json(&row));
	json_object_set_new(o, "deltas", answered ? counter_row_deltas_json(&row) : json_object());
	json_object_set_new(o, "rates", answered ? counter_row_rates_json(&row, dt) : json_object());
	counter_row_add_details(o, &row);
	return o;
}

/* "node" is the node's display name (the site's node-name-map, else its
 * description), "desc" its description */
#define COLS "guid, " NAMES_DB_NAME("port_counters.guid", "description") ", type, port, lid, " \
	"answered, reason, read, sampled, sample, interval_s, description"

/* The subnet to show: `want`, or the only one read. */
static int pick_subnet(sqlite3 *db, const char *want, int64_t *sid, char *name, size_t len,
		       char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int n = 0, rc;

	if (sqlite3_prepare_v2(db, "SELECT s.id, s.name FROM counter_reads r JOIN subnets s ON "
			       "s.id = r.subnet_id WHERE ?1 IS NULL OR s.name = ?1 ORDER BY s.name",
			       -1, &s, NULL) != SQLITE_OK) {
		if (strstr(sqlite3_errmsg(db), "no such table"))
			return dbq_fail(err, errlen, -ENOENT, "no counters were read yet (the "
					"database is older than schema 10)");
		return dbq_db_fail(db, err, errlen, "read the counters reads");
	}
	if (want)
		sqlite3_bind_text(s, 1, want, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n++ == 0) {
			*sid = sqlite3_column_int64(s, 0);
			snprintf(name, len, "%s", dbq_col_str(s, 1));
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "read the counters reads");
	if (!n)
		return dbq_fail(err, errlen, -ENOENT, want ? "no counters were read on subnet %s"
						       : "no counters were read yet%s",
				want ? want : "");
	if (n > 1)
		return dbq_fail(err, errlen, -EEXIST, "counters were read on %d subnets: name one "
				"(--subnet)", n);
	return 0;
}

static int read_info(sqlite3 *db, int64_t sid, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if ((rc = dbq_prepare(db, "SELECT started, finished, ports, answered, mads, timeout_ms, "
			      "retries, in_flight FROM counter_reads WHERE subnet_id = ?", &s, err,
			      errlen)) < 0)
		return rc;
	sqlite3_bind_int64(s, 1, sid);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return dbq_db_fail(db, err, errlen, "read the counters read");
	}
	*out = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "started",
			 dbq_col_time(s, 0), "finished", dbq_col_time(s, 1), "ports",
			 (json_int_t)sqlite3_column_int64(s, 2), "answered",
			 (json_int_t)sqlite3_column_int64(s, 3), "mads",
			 (json_int_t)sqlite3_column_int64(s, 4), "timeout_ms",
			 (json_int_t)sqlite3_column_int64(s, 5), "retries",
			 (json_int_t)sqlite3_column_int64(s, 6), "in_flight",
			 (json_int_t)sqlite3_column_int64(s, 7));
	sqlite3_finalize(s);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}

int counters_db_read(sqlite3 *db, const char *subnet, const char *node, unsigned port,
		     json_t **out, char *err, size_t errlen)
{
	char name[128];
	json_t *info = NULL, *ports = NULL;
	sqlite3_stmt *s;
	int64_t sid = 0;
	int rc;

	*out = NULL;
	if ((rc = pick_subnet(db, subnet, &sid, name, sizeof(name), err, errlen)) < 0 ||
	    (rc = read_info(db, sid, &info, err, errlen)) < 0)
		return rc;
	if ((rc = dbq_prepare(db, "SELECT " COLS " FROM port_counters WHERE "
			      "subnet_id = ?1 AND (?2 IS NULL OR "
			      "description = ?2 OR guid = lower(?2) OR "
			      NAMES_DB_NAME("port_counters.guid", "NULL") " = ?2) AND "
			      "(?3 = 0 OR port = ?3) "
			      "ORDER BY description, guid, port", &s, err, errlen)) < 0) {
		json_decref(info);
		return rc;
	}
	sqlite3_bind_int64(s, 1, sid);
	if (node)
		sqlite3_bind_text(s, 2, node, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, (int)port);
	if ((rc = dbq_collect(db, s, port_row, &ports, err, errlen)) < 0) {
		json_decref(info);
		return rc;
	}
	if (!json_array_size(ports) && (node || port)) {
		json_decref(info);
		json_decref(ports);
		if (port)
			return dbq_fail(err, errlen, -ENOENT, "no counters of %s%s%u on subnet %s",
					node ? node : "", node ? ":" : "port ", port, name);
		return dbq_fail(err, errlen, -ENOENT, "no counters of %s on subnet %s", node, name);
	}
	*out = json_pack("{s:s, s:o, s:o}", "subnet", name, "read", info, "ports", ports);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}

int counters_db_details(sqlite3 *db, int64_t subnet_id, const char *guid, unsigned port,
			struct counters_db_details *out)
{
	sqlite3_stmt *s;
	struct counter_row row;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!guid)
		return -EINVAL;
	if (sqlite3_prepare_v2(db, "SELECT answered, sampled, interval_s, sample FROM "
			       "port_counters WHERE subnet_id = ? AND guid = lower(?) AND port = ?",
			       -1, &s, NULL) != SQLITE_OK)
		return strstr(sqlite3_errmsg(db), "no such table") ? -ENOENT : -EIO;
	sqlite3_bind_int64(s, 1, subnet_id);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, (int)port);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 1) != SQLITE_NULL &&
	    counter_row_unpack(sqlite3_column_blob(s, 3), (size_t)sqlite3_column_bytes(s, 3),
			       &row) == 0) {
		out->answered = sqlite3_column_int(s, 0);
		out->sampled = sqlite3_column_double(s, 1);
		out->interval_s = sqlite3_column_double(s, 2);
		out->ds = row.ds;
		memcpy(out->dd, row.dd, sizeof(out->dd));
		rc = 0;
	} else {
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	sqlite3_finalize(s);
	return rc;
}

int counters_db_count(sqlite3 *db, const char *subnet, long long *n, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	*n = 0;
	if ((rc = dbq_prepare(db, "SELECT count(*) FROM port_counters c JOIN subnets s ON "
			      "s.id = c.subnet_id WHERE ?1 IS NULL OR s.name = ?1", &s, err,
			      errlen)) < 0)
		return rc;
	if (subnet)
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		*n = sqlite3_column_int64(s, 0);
	else
		rc = dbq_db_fail(db, err, errlen, "count the port counters");
	sqlite3_finalize(s);
	return rc;
}

/* The SQL order of a sort key, largest first (schema 013's columns). */
static const char *order_by(const char *sort)
{
	if (!strcmp(sort, "data"))
		return "coalesce(data_per_s, 0)";
	if (!strcmp(sort, "wait"))
		return "coalesce(xmit_wait_per_s, 0)";
	if (!strcmp(sort, "errors"))
		return "coalesce(errors, 0)";
	return NULL;
}

int counters_db_top(sqlite3 *db, const char *subnet, const char *sort, unsigned limit,
		    json_t **out, char *err, size_t errlen)
{
	char name[128], sql[1024];
	const char *order = order_by(sort ? sort : "data");
	json_t *info = NULL, *ports = NULL;
	sqlite3_stmt *s;
	int64_t sid = 0;
	int rc;

	*out = NULL;
	if (!order)
		return dbq_fail(err, errlen, -EINVAL, "cannot sort by \"%s\": data, wait or errors",
				sort);
	if ((rc = pick_subnet(db, subnet, &sid, name, sizeof(name), err, errlen)) < 0 ||
	    (rc = read_info(db, sid, &info, err, errlen)) < 0)
		return rc;
	if ((rc = dbq_prepare(db, "SELECT count(*) FROM port_counters WHERE subnet_id = ? AND "
			      "answered = 0", &s, err, errlen)) < 0) {
		json_decref(info);
		return rc;
	}
	sqlite3_bind_int64(s, 1, sid);
	if (sqlite3_step(s) == SQLITE_ROW)
		json_object_set_new(info, "stale", json_integer(sqlite3_column_int64(s, 0)));
	sqlite3_finalize(s);
	/* Ports that answered first, busiest first; then the stale ones. */
	snprintf(sql, sizeof(sql), "SELECT " COLS " FROM port_counters WHERE subnet_id = ?1 "
		 "ORDER BY answered DESC, %s DESC, description, port LIMIT ?2",
		 order);
	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0) {
		json_decref(info);
		return rc;
	}
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_int64(s, 2, limit ? (sqlite3_int64)limit : -1);
	if ((rc = dbq_collect(db, s, port_row, &ports, err, errlen)) < 0) {
		json_decref(info);
		return rc;
	}
	*out = json_pack("{s:s, s:o, s:o}", "subnet", name, "read", info, "ports", ports);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}
