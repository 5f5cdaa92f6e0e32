/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/health_db.c: see health_db.h. */
#include "autoconf.h"
#include "lib/db/health_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/db/route_live_db.h"
#include "lib/telemetry/congestion.h"
#include "lib/telemetry/counter_row.h"
#include "lib/telemetry/pause_trees.h"
#include "lib/telemetry/pma.h"

/* The columns every list starts with: subnet, guid, node, port, peer. */
#define PORT_COLS "s.name, c.guid, " NAMES_DB_NAME("c.guid", "c.description") ", c.port, " \
	"(SELECT " NAMES_DB_NAME("n.guid", "n.description") " || ':' || p.peer_port " \
	"FROM ports p JOIN nodes n ON " \
	"n.subnet_id = p.subnet_id AND n.guid = p.peer_guid WHERE p.subnet_id = c.subnet_id " \
	"AND p.node_guid = c.guid AND p.num = c.port)"
#define PORT_FROM "FROM port_counters c JOIN subnets s ON s.id = c.subnet_id WHERE " \
	"(?1 IS NULL OR s.name = ?1)"
#define N_PORT_COLS 5

static json_t *port_obj(sqlite3_stmt *s)
{
	return json_pack("{s:o, s:o, s:o, s:i, s:o}", "subnet", dbq_col_text(s, 0), "guid",
			 dbq_col_text(s, 1), "node", dbq_col_text(s, 2), "port",
			 sqlite3_column_int(s, 3), "peer",
			 sqlite3_column_type(s, 4) == SQLITE_NULL ? json_null()
								  : dbq_col_text(s, 4));
}

static json_t *read_row(sqlite3_stmt *s)
{
	return json_pack("{s:o, s:o, s:I, s:I}", "subnet", dbq_col_text(s, 0), "finished",
			 dbq_col_time(s, 1), "ports", (json_int_t)sqlite3_column_int64(s, 2),
			 "answered", (json_int_t)sqlite3_column_int64(s, 3));
}

static json_t *alarm_row(sqlite3_stmt *s)
{
	json_t *o = port_obj(s);
	json_t *more = json_pack("{s:o, s:o, s:o, s:o, s:i}", "kind", dbq_col_text(s, 5), "since",
				 dbq_col_time(s, 6), "last", dbq_col_time(s, 7), "why",
				 dbq_col_text(s, 8), "clearing", sqlite3_column_int(s, 9));

	if (!o || !more || json_object_update(o, more) < 0) {
		json_decref(o);
		o = NULL;
	}
	json_decref(more);
	return o;
}

static json_t *error_row(sqlite3_stmt *s)
{
	struct counter_row row;
	json_t *moved = json_object(), *counts = json_object();
	json_t *o = port_obj(s);
	int lower = 0;

	if (counter_row_unpack(sqlite3_column_blob(s, 6), (size_t)sqlite3_column_bytes(s, 6),
			       &row) == 0) {
		counter_row_errors(&row, &lower);
		for (int c = 0; moved && c < PMA_N_COUNTERS; c++)
			if (row.s.bits[c] && pma_counter_is_error((enum pma_counter)c) &&
			    row.d[c].delta)
				json_object_set_new(moved, pma_counter_name((enum pma_counter)c),
						    json_integer((json_int_t)row.d[c].delta));
		/* the error counters as the PMA holds them (ibqueryerrors' view) */
		for (int c = 0; counts && c < PMA_N_COUNTERS; c++)
			if (row.s.bits[c] && pma_counter_is_error((enum pma_counter)c) &&
			    row.s.v[c])
				json_object_set_new(counts, pma_counter_name((enum pma_counter)c),
						    json_integer((json_int_t)row.s.v[c]));
	}
	if (!o || !moved || !counts) {
		json_decref(o);
		json_decref(moved);
		json_decref(counts);
		return NULL;
	}
	json_object_set_new(o, "errors", json_integer(sqlite3_column_int64(s, 5)));
	json_object_set_new(o, "lower_bound", json_boolean(lower));
	json_object_set_new(o, "moved", moved);
	json_object_set_new(o, "last_error", sqlite3_column_type(s, 7) == SQLITE_NULL ?
				json_null() : dbq_col_time(s, 7));
	json_object_set_new(o, "last_errors", sqlite3_column_type(s, 8) == SQLITE_NULL ?
				json_null() : json_integer(sqlite3_column_int64(s, 8)));
	json_object_set_new(o, "counts", counts);
	return o;
}

static json_t *congestion_row(sqlite3_stmt *s)
{
	json_t *o = port_obj(s);

	if (!o)
		return NULL;
	json_object_set_new(o, "xmit_wait_per_s", json_real(sqlite3_column_double(s, 5)));
	json_object_set_new(o, "xmit_mb_s", sqlite3_column_type(s, 6) == SQLITE_NULL ?
				json_null() : json_real(sqlite3_column_double(s, 6) * 4.0 / 1e6));
	return o;
}

static json_t *stale_row(sqlite3_stmt *s)
{
	json_t *o = port_obj(s);

	if (!o)
		return NULL;
	json_object_set_new(o, "reason", dbq_col_text(s, 5));
	json_object_set_new(o, "sampled", sqlite3_column_type(s, 6) == SQLITE_NULL ?
				json_null() : dbq_col_time(s, 6));
	return o;
}

static int list(sqlite3 *db, const char *sql, const char *subnet, unsigned top,
		json_t *(*row)(sqlite3_stmt *), json_t *out, const char *key, char *err,
		size_t errlen)
{
	sqlite3_stmt *s;
	json_t *arr = NULL;
	int rc;

	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0)
		return rc;
	if (subnet)
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)top);
	if ((rc = dbq_collect(db, s, row, &arr, err, errlen)) < 0)
		return rc;
	return json_object_set_new(out, key, arr) < 0 ? dbq_fail(err, errlen, -ENOMEM, "out of memory") : 0;
}

/* The link_congested ports of subnet sid. */
static int congested(sqlite3 *db, int64_t sid, struct cong_port **out, size_t *n, char *err,
		     size_t errlen)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = dbq_prepare(db, "SELECT guid, port FROM port_alarms WHERE subnet_id = ? AND "
			      "kind = 'link_congested' LIMIT ?", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_int(s, 2, CONG_MAX_PORTS);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			struct cong_port *p = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(*p));

			if (!p) {
				sqlite3_finalize(s);
				return dbq_fail(err, errlen, -ENOMEM, "out of memory");
			}
			*out = p;
		}
		(*out)[*n].guid = strtoull(dbq_col_str(s, 0), NULL, 16);
		(*out)[*n].port = (uint8_t)sqlite3_column_int(s, 1);
		(*n)++;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "read the congested ports");
}

/* Each subnet with congested ports: its congestion trees (congestion.h)
 * on the stored fabric and the newest stored forwarding tables, nodes
 * named by the stored map (names_db.h). */
static int trees(sqlite3 *db, const char *subnet, json_t *o, char *err, size_t errlen)
{
	json_t *arr = json_array();
	struct nodename_map *names = NULL;
	sqlite3_stmt *s;
	int rc;

	if (!arr || json_object_set_new(o, "congestion_trees", arr) < 0)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if ((rc = dbq_prepare(db, "SELECT DISTINCT s.id, s.name FROM port_alarms a JOIN subnets s "
			      "ON s.id = a.subnet_id WHERE a.kind = 'link_congested' AND (?1 IS "
			      "NULL OR s.name = ?1) ORDER BY s.name", &s, err, errlen)) < 0)
		return rc;
	if (subnet)
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char name[128], why[512] = "";
		struct cong_port *hot = NULL;
		struct rl_read *lfts = NULL;
		json_t *info = NULL, *t;
		struct fab *fab;
		size_t n;

		snprintf(name, sizeof(name), "%s", dbq_col_str(s, 1));
		if ((!names && (rc = names_db_load(db, &names, err, errlen)) < 0) ||
		    (rc = congested(db, sqlite3_column_int64(s, 0), &hot, &n, err, errlen)) < 0)
			break;
		if (!(fab = rl_db_load_fabric(db, name, err, errlen))) {
			free(hot);
			rc = -EIO;
			break;
		}
		if (rl_db_load_read(db, name, &lfts, &info, why, sizeof(why)) < 0)
			lfts = NULL;
		t = congestion_roots(fab, lfts, hot, n, names);
		free(hot);
		fab_free(fab);
		rl_read_free(lfts);
		if (!t) {
			json_decref(info);
			rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		json_object_set_new(t, "subnet", json_string(name));
		/* Which tables decided the routes, or why none did. */
		json_object_set_new(t, "tables", info ? json_incref(json_object_get(info, "time"))
						      : json_null());
		if (!info)
			json_object_set_new(t, "tables_missing", json_string(why));
		json_decref(info);
		json_array_append_new(arr, t);
	}
	sqlite3_finalize(s);
	nodename_map_free(names);
	return rc == SQLITE_DONE ? 0 : rc < 0 ? rc : dbq_db_fail(db, err, errlen, "read the congested subnets");
}

static json_t *switch_alarm_row(sqlite3_stmt *s)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}", "switch", dbq_col_text(s, 0),
			 "port", dbq_col_text(s, 1), "peer",
			 sqlite3_column_type(s, 2) == SQLITE_NULL ? json_null() : dbq_col_text(s, 2),
			 "kind", dbq_col_text(s, 3), "since", dbq_col_time(s, 4), "last",
			 dbq_col_time(s, 5), "why", dbq_col_text(s, 6), "clearing",
			 sqlite3_column_int(s, 7));
}

/* The Ethernet switches: their alarms, and the pause trees of the ports
 * with pfc_storm (pause_trees.h) over the LLDP links. */
static int switches(sqlite3 *db, unsigned top, json_t *o, char *err, size_t errlen)
{
	struct paused_port *pp = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	json_t *arr = NULL, *trees;
	int rc;

	if ((rc = dbq_prepare(db, "SELECT a.switch, a.port, (SELECT l.b_node || ':' || l.b_port "
			      "FROM eth_link_ends l WHERE l.a_node = a.switch AND l.a_port = a.port "
			      "LIMIT 1), a.kind, a.since, a.last, a.why, a.calm FROM "
			      "switch_port_alarms a ORDER BY a.kind, a.switch, a.port LIMIT ?2",
			      &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int(s, 2, (int)top);
	if ((rc = dbq_collect(db, s, switch_alarm_row, &arr, err, errlen)) < 0)
		return rc;
	json_object_set_new(o, "switch_alarms", arr);
	if ((rc = dbq_prepare(db, "SELECT a.switch, a.port, l.b_node, l.b_port, l.b_switch IS NOT "
			      "NULL FROM switch_port_alarms a LEFT JOIN eth_link_ends l ON "
			      "l.a_node = a.switch AND l.a_port = a.port WHERE a.kind = 'pfc_storm' "
			      "ORDER BY a.switch, a.port LIMIT ?", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int(s, 1, PAUSE_MAX_PORTS);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			struct paused_port *q = realloc(pp, (cap = cap ? 2 * cap : 16) * sizeof(*q));

			if (!q)
				break;
			pp = q;
		}
		pp[n].sw = strdup(dbq_col_str(s, 0));
		pp[n].port = strdup(dbq_col_str(s, 1));
		pp[n].peer_node = sqlite3_column_type(s, 2) == SQLITE_NULL ? NULL
									 : strdup(dbq_col_str(s, 2));
		pp[n].peer_port = sqlite3_column_type(s, 3) == SQLITE_NULL ? NULL
									 : strdup(dbq_col_str(s, 3));
		pp[n].peer_managed = sqlite3_column_int(s, 4);
		n++;
	}
	sqlite3_finalize(s);
	trees = rc == SQLITE_DONE ? pause_trees(pp, n) : NULL;
	for (size_t i = 0; i < n; i++) {
		free((char *)pp[i].sw);
		free((char *)pp[i].port);
		free((char *)pp[i].peer_node);
		free((char *)pp[i].peer_port);
	}
	free(pp);
	if (!trees)
		return rc == SQLITE_DONE ? dbq_fail(err, errlen, -ENOMEM, "out of memory")
					 : dbq_db_fail(db, err, errlen, "read the paused ports");
	json_object_set_new(o, "pause_trees", trees);
	return 0;
}

/* How many rows `sql` counts (0 when its table is missing). */
static long long count_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

int health_db_read(sqlite3 *db, const char *subnet, unsigned top, unsigned window_s,
		   json_t **out, char *err, size_t errlen)
{
	char sql[4096];
	json_t *o = json_object();
	int rc;

	*out = NULL;
	if (!o)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if ((rc = list(db, "SELECT s.name, r.finished, r.ports, r.answered FROM counter_reads r "
		       "JOIN subnets s ON s.id = r.subnet_id WHERE (?1 IS NULL OR s.name = ?1) "
		       "AND ?2 >= 0 ORDER BY s.name", subnet, top, read_row, o, "reads", err,
		       errlen)) < 0)
		goto fail;
	if (!json_array_size(json_object_get(o, "reads")) &&
	    (subnet || !count_of(db, "SELECT count(*) FROM switch_counter_reads"))) {
		rc = subnet ? dbq_fail(err, errlen, -ENOENT, "no counters were read on subnet %s", subnet)
			    : dbq_fail(err, errlen, -ENOENT, "no counters were read yet");
		goto fail;
	}
	snprintf(sql, sizeof(sql), "SELECT " PORT_COLS ", a.kind, a.since, a.last, a.why, a.calm "
		 "FROM port_alarms a JOIN port_counters c ON c.subnet_id = a.subnet_id AND "
		 "c.guid = a.guid AND c.port = a.port JOIN subnets s ON s.id = a.subnet_id WHERE "
		 "(?1 IS NULL OR s.name = ?1) ORDER BY a.kind, c.description, c.port LIMIT ?2");
	if ((rc = list(db, sql, subnet, top, alarm_row, o, "alarms", err, errlen)) < 0) {
		if (strstr(err, "no such table"))
			rc = dbq_fail(err, errlen, -ENOENT, "no alarms were recorded yet (the "
				      "database is older than schema 11)");
		goto fail;
	}
	/* Errors in the last read, and those of the window: a port whose error
	 * counters moved within window_s of now, though not in the last read. */
	snprintf(sql, sizeof(sql), "SELECT " PORT_COLS ", c.errors AS n, c.sample, c.err_last, "
		 "c.err_last_n " PORT_FROM " AND c.answered = 1 AND (n > 0 OR c.err_last >= "
		 "(julianday('now') - 2440587.5) * 86400.0 - %u) ORDER BY n DESC, c.err_last DESC, "
		 "c.description, c.port LIMIT ?2", window_s);
	if ((rc = list(db, sql, subnet, top, error_row, o, "errors", err, errlen)) < 0)
		goto fail;
	if ((rc = list(db, "SELECT " PORT_COLS ", c.xmit_wait_per_s AS w, c.xmit_data_per_s "
		       PORT_FROM " AND c.answered = 1 "
		       "AND w > 0 ORDER BY w DESC, c.description, c.port LIMIT ?2", subnet, top,
		       congestion_row, o, "congestion", err, errlen)) < 0)
		goto fail;
	if ((rc = list(db, "SELECT " PORT_COLS ", c.reason, c.sampled " PORT_FROM " AND "
		       "c.answered = 0 ORDER BY c.description, c.port LIMIT ?2", subnet, top,
		       stale_row, o, "stale", err, errlen)) < 0)
		goto fail;
	if ((rc = trees(db, subnet, o, err, errlen)) < 0)
		goto fail;
	/* The Ethernet switches belong to no InfiniBand subnet. */
	if (!subnet && (rc = switches(db, top, o, err, errlen)) < 0)
		goto fail;
	*out = o;
	return 0;
fail:
	json_decref(o);
	return rc;
}
