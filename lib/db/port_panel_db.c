/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/port_panel_db.c: see port_panel_db.h. Three indexed reads of one
 * node (its ports with their peers, its counters, its alarms), each row
 * put on the port of the same number. */
#include "autoconf.h"
#include "lib/db/port_panel_db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/link_state_db.h"
#include "lib/db/names_db.h"
#include "lib/fabric/ibtypes.h"
#include "lib/telemetry/counter_row.h"
#include "lib/telemetry/pma.h"

/* The row of port number num in ports (ports come in number order). */
static json_t *port_of(json_t *ports, int num)
{
	size_t i;
	json_t *p;

	json_array_foreach(ports, i, p)
		if (json_integer_value(json_object_get(p, "port")) == num)
			return p;
	return NULL;
}

static const char *wname(unsigned v)
{
	return v ? ibt_width_name(v) : "";
}

static const char *sname(unsigned v)
{
	return v ? ibt_speed_name(v) : "";
}

static json_t *col_time_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? json_null() : dbq_col_time(s, col);
}

/* Peers, capabilities, degraded, down_since. */
static int add_links(sqlite3 *db, int64_t sid, const char *guid, json_t *ports, char *err,
		     size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db,
		"SELECT p.num, p.width_active, p.speed_active, p.width_enabled, p.width_supported, "
		"p.speed_enabled, p.speed_supported, q.width_enabled, q.width_supported, "
		"q.speed_enabled, q.speed_supported, q.num IS NOT NULL, "
		NAMES_DB_NAME("p.peer_guid", "(SELECT n.description FROM nodes n WHERE "
			      "n.subnet_id = p.subnet_id AND n.guid = p.peer_guid)") ", "
		"p.peer_guid IS NULL AND p.last_peer_guid IS NOT NULL, p.last_peer_guid, "
		"p.last_peer_port, " NAMES_DB_NAME("p.last_peer_guid",
						   "coalesce(p.last_peer_desc, p.last_peer_guid)") ", "
		LINK_STATE_DOWN_SINCE("p.node_guid", "p.num", "p.last_peer_guid") " "
		"FROM ports p LEFT JOIN ports q ON q.subnet_id = p.subnet_id AND "
		"q.node_guid = p.peer_guid AND q.num = p.peer_port "
		"WHERE p.subnet_id = ?1 AND p.node_guid = ?2 ORDER BY p.num", &s, err, errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *p = port_of(ports, sqlite3_column_int(s, 0)), *peer;
		unsigned w = (unsigned)sqlite3_column_int(s, 1), sp = (unsigned)sqlite3_column_int(s, 2);
		unsigned bw = 0, bs = 0, cw = 0, cs = 0;

		if (!p)
			continue;
		if (sqlite3_column_int(s, 11)) {
			struct link_caps a = { (unsigned)sqlite3_column_int(s, 3),
					       (unsigned)sqlite3_column_int(s, 4),
					       (unsigned)sqlite3_column_int(s, 5),
					       (unsigned)sqlite3_column_int(s, 6) };
			struct link_caps b = { (unsigned)sqlite3_column_int(s, 7),
					       (unsigned)sqlite3_column_int(s, 8),
					       (unsigned)sqlite3_column_int(s, 9),
					       (unsigned)sqlite3_column_int(s, 10) };

			link_state_best(&a, &b, &bw, &bs);
			link_state_capable(&a, &b, &cw, &cs);
		}
		if ((peer = json_object_get(p, "peer")) && json_is_object(peer))
			json_object_set_new(peer, "name", dbq_col_text(s, 12));
		json_object_set_new(p, "width_max", json_string(wname(bw)));
		json_object_set_new(p, "speed_max", json_string(sname(bs)));
		json_object_set_new(p, "width_capable", json_string(wname(cw)));
		json_object_set_new(p, "speed_capable", json_string(sname(cs)));
		json_object_set_new(p, "degraded", json_boolean(link_state_degraded(w, sp, bw, bs)));
		json_object_set_new(p, "alarms", json_array());
		json_object_set_new(p, "rates", json_null());
		json_object_set_new(p, "errors", json_null());
		if (sqlite3_column_int(s, 13)) {
			json_object_set_new(p, "down_since", col_time_or_null(s, 17));
			json_object_set_new(p, "last_peer",
					    json_pack("{s:s, s:i, s:o}", "guid", dbq_col_str(s, 14),
						      "port", sqlite3_column_int(s, 15),
						      "name", dbq_col_text(s, 16)));
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "ports of a node");
}

static json_t *errors_json(const struct counter_row *row, sqlite3_stmt *s)
{
	json_t *values = json_object(), *deltas = json_object();

	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		const char *name = pma_counter_name((enum pma_counter)c);

		if (!row->s.bits[c] || !pma_counter_is_error((enum pma_counter)c))
			continue;
		json_object_set_new(values, name, json_integer((json_int_t)row->s.v[c]));
		if (row->d[c].delta && sqlite3_column_int(s, 1))
			json_object_set_new(deltas, name, json_integer((json_int_t)row->d[c].delta));
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "values", values, "deltas", deltas,
			 "interval_s", sqlite3_column_type(s, 3) == SQLITE_NULL ? json_null() :
				       json_real(sqlite3_column_double(s, 3)),
			 "last_error", col_time_or_null(s, 4),
			 "last_error_n", sqlite3_column_type(s, 5) == SQLITE_NULL ? json_null() :
					 json_integer(sqlite3_column_int64(s, 5)));
}

/* Rates and errors from the last counters read. */
static int add_counters(sqlite3 *db, int64_t sid, const char *guid, json_t *ports, char *err,
			size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db, "SELECT port, answered, sample, interval_s, err_last, err_last_n "
			     "FROM port_counters WHERE subnet_id = ?1 AND guid = ?2", &s, err,
			     errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *p = port_of(ports, sqlite3_column_int(s, 0));
		struct counter_row row;
		double dt = sqlite3_column_double(s, 3), rx, tx;

		if (!p || counter_row_unpack(sqlite3_column_blob(s, 2),
					     (size_t)sqlite3_column_bytes(s, 2), &row) < 0)
			continue;
		json_object_set_new(p, "errors", errors_json(&row, s));
		counter_row_add_details(p, &row);
		/* PortRcvData/PortXmitData count 4-octet words */
		if (sqlite3_column_int(s, 1) &&
		    counter_row_rate(&row, PMA_RCV_DATA, dt, &rx) == 0 &&
		    counter_row_rate(&row, PMA_XMIT_DATA, dt, &tx) == 0)
			json_object_set_new(p, "rates", json_pack("{s:f, s:f}", "rx_bytes_s",
								  rx * 4, "tx_bytes_s", tx * 4));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "port counters of a node");
}

static int add_alarms(sqlite3 *db, int64_t sid, const char *guid, json_t *ports, char *err,
		      size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db, "SELECT port, kind, since, why FROM port_alarms WHERE "
			     "subnet_id = ?1 AND guid = ?2 ORDER BY port, since", &s, err, errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *p = port_of(ports, sqlite3_column_int(s, 0));

		if (p)
			json_array_append_new(json_object_get(p, "alarms"),
					      json_pack("{s:o, s:o, s:o}", "kind", dbq_col_text(s, 1),
							"since", dbq_col_time(s, 2), "why",
							dbq_col_text(s, 3)));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "port alarms of a node");
}

int port_panel_add(sqlite3 *db, int64_t sid, const char *guid, json_t *ports, char *err,
		   size_t errlen)
{
	int rc = add_links(db, sid, guid, ports, err, errlen);

	if (rc == 0)
		rc = add_counters(db, sid, guid, ports, err, errlen);
	if (rc == 0)
		rc = add_alarms(db, sid, guid, ports, err, errlen);
	return rc;
}
