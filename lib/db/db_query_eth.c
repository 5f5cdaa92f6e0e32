/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_query_eth.c: the Ethernet switches and their fabric (schemas 4 and
 * 5) as JSON, for lib/db/db_query.h. The fabric's nodes, ports and links have
 * the shapes of the IB ones with "fabric": "eth" and these differences:
 * node: "guid" null, "mac", "type" "switch" or "host" (an LLDP neighbour
 *       that is not a managed switch), "model", "os_version";
 * port: "port" is the switch's port name (a string), "node" its node's
 *       name, "state" "up" | "down", "admin" "up" | "down", "speed" "100G",
 *       "peer": {"node", "port"} | null;
 * link: ends {"guid": null, "node", "port", "desc"}; "degraded" when the
 *       two managed ends run at different speeds. */
#include "autoconf.h"
#include "lib/db/db_query.h"
#include "lib/db/db_query_impl.h"
#include "lib/db/db_row.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int dbq_has_eth_fabric(sqlite3 *db)
{
	sqlite3_stmt *s;
	int has;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND "
			       "name = 'eth_links'", -1, &s, NULL) != SQLITE_OK)
		return 0;
	has = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return has;
}

/* Run `sql` (with ?1 bound to `arg`) and append its rows to `arr`. */
static int append(sqlite3 *db, const char *sql, const char *arg,
		  json_t *(*row_fn)(sqlite3_stmt *), json_t *arr, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	json_t *rows;
	int rc;

	if (!dbq_has_eth_fabric(db))
		return 0;
	if ((rc = dbq_prepare(db, sql, &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_text(s, 1, arg, -1, SQLITE_TRANSIENT);
	if ((rc = dbq_collect(db, s, row_fn, &rows, err, errlen)) < 0)
		return rc;
	rc = json_array_extend(arr, rows);
	json_decref(rows);
	return rc < 0 ? dbq_fail(err, errlen, -ENOMEM, "out of memory") : 0;
}

/* "100G" from 100000 Mb/s; "" when unknown. */
static json_t *speed(sqlite3_stmt *s, int col)
{
	long long mbps = sqlite3_column_int64(s, col);
	char buf[24] = "";

	if (mbps > 0 && mbps % 1000 == 0)
		snprintf(buf, sizeof(buf), "%lldG", mbps / 1000);
	else if (mbps > 0)
		snprintf(buf, sizeof(buf), "%lldM", mbps);
	return json_string(buf);
}

static json_t *time_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL || sqlite3_column_double(s, col) <= 0 ?
	       json_null() : dbq_col_time(s, col);
}

/* ---- nodes ------------------------------------------------------------------- */

#define ETH_NODE_SQL \
	"SELECT name, type, mac, model, os_version, nports, first_seen, last_seen FROM eth_nodes "

static json_t *node_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:n, s:s, s:o, s:I, s:s, s:s, s:s, s:n, s:o, s:o}",
			 "fabric", "eth", "subnet", "ethernet", "guid", "mac", dbq_col_str(s, 2),
			 "desc", dbq_col_text(s, 0), "ports", (json_int_t)sqlite3_column_int64(s, 5),
			 "type", dbq_col_str(s, 1), "model", dbq_col_str(s, 3),
			 "os_version", dbq_col_str(s, 4), "lid", "first_seen", time_or_null(s, 6),
			 "last_seen", time_or_null(s, 7));
}

int dbq_eth_nodes(sqlite3 *db, const char *type, json_t *arr, char *err, size_t errlen)
{
	return append(db, ETH_NODE_SQL "WHERE ?1 IS NULL OR type = ?1 ORDER BY type DESC, name",
		      type, node_json, arr, err, errlen);
}

/* ---- ports ------------------------------------------------------------------- */

/* A managed switch's ports (with the far end of their link, if any), then
 * the hosts' ports as their links show them. */
#define ETH_PORT_SQL \
	"SELECT * FROM (SELECT p.switch AS node, w.mac, p.name AS port, p.alias, p.oper_up, " \
	"p.admin_up, p.speed_mbps, p.mtu, e.b_node, e.b_port FROM eth_ports p " \
	"JOIN eth_switches w ON w.name = p.switch " \
	"LEFT JOIN eth_link_ends e ON e.a_node = p.switch AND e.a_port = p.name " \
	"WHERE ?1 IS NULL OR p.switch = ?1 " \
	"UNION ALL SELECT b_node, b_chassis, b_port, '', 1, 1, a_speed, 0, a_node, a_port " \
	"FROM eth_links WHERE b_switch IS NULL AND (?1 IS NULL OR b_node = ?1)) " \
	"ORDER BY node, length(port), port"

static json_t *port_json(sqlite3_stmt *s)
{
	json_t *peer = sqlite3_column_type(s, 8) == SQLITE_NULL ? json_null() :
		       json_pack("{s:s, s:s}", "node", dbq_col_str(s, 8), "port", dbq_col_str(s, 9));

	return json_pack("{s:s, s:s, s:n, s:s, s:o, s:o, s:s, s:s, s:n, s:s, s:s, s:s, s:o,"
			 " s:I, s:o}",
			 "fabric", "eth", "subnet", "ethernet", "node_guid", "node_mac",
			 dbq_col_str(s, 1), "node", dbq_col_text(s, 0), "node_desc",
			 dbq_col_text(s, 0), "port", dbq_col_str(s, 2), "alias", dbq_col_str(s, 3),
			 "lid", "state", sqlite3_column_int(s, 4) ? "up" : "down",
			 "admin", sqlite3_column_int(s, 5) ? "up" : "down", "width", "",
			 "speed", speed(s, 6), "mtu", (json_int_t)sqlite3_column_int64(s, 7),
			 "peer", peer);
}

int dbq_eth_ports(sqlite3 *db, const char *node, json_t *arr, char *err, size_t errlen)
{
	return append(db, ETH_PORT_SQL, node, port_json, arr, err, errlen);
}

int dbq_eth_node(sqlite3 *db, const char *id, json_t **out, char *err, size_t errlen)
{
	json_t *rows = json_array(), *ports = json_array();
	const char *name;
	int rc;

	if (!rows || !ports) {
		rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	rc = append(db, ETH_NODE_SQL "WHERE name = ?1 OR (mac <> '' AND lower(mac) = lower(?1)) "
		    "ORDER BY type DESC, name", id, node_json, rows, err, errlen);
	if (rc < 0)
		goto out;
	if (json_array_size(rows) != 1) {
		rc = json_array_size(rows) ? dbq_fail(err, errlen, -EEXIST, "\"%s\" is the MAC of "
						      "%zu Ethernet nodes; use a name", id,
						      json_array_size(rows)) : -ENOENT;
		goto out;
	}
	name = json_string_value(json_object_get(json_array_get(rows, 0), "desc"));
	if ((rc = dbq_eth_ports(db, name, ports, err, errlen)) < 0)
		goto out;
	*out = json_incref(json_array_get(rows, 0));
	json_object_set(*out, "port_list", ports);
out:
	json_decref(rows);
	json_decref(ports);
	return rc;
}

/* ---- links ------------------------------------------------------------------- */

static json_t *link_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:{s:n, s:s, s:s, s:o}, s:{s:n, s:s, s:s, s:o}, s:s, s:o,"
			 " s:b}",
			 "fabric", "eth", "subnet", "ethernet",
			 "a", "guid", "node", dbq_col_str(s, 0), "port", dbq_col_str(s, 1),
			 "desc", dbq_col_text(s, 0),
			 "b", "guid", "node", dbq_col_str(s, 2), "port", dbq_col_str(s, 3),
			 "desc", dbq_col_text(s, 2),
			 "width", "", "speed", speed(s, 4),
			 "degraded", sqlite3_column_type(s, 5) != SQLITE_NULL &&
				     sqlite3_column_int64(s, 5) != sqlite3_column_int64(s, 4));
}

int dbq_eth_links(sqlite3 *db, json_t *arr, char *err, size_t errlen)
{
	return append(db, "SELECT a_node, a_port, b_node, b_port, a_speed, b_speed FROM eth_links "
		      "WHERE ?1 IS NULL ORDER BY a_node, length(a_port), a_port", NULL, link_json,
		      arr, err, errlen);
}

/* ---- the fabric as a subnet ----------------------------------------------------- */

static json_t *subnet_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:n}",
			 "name", dbq_col_str(s, 0), "kind", "eth", "ca", "", "port", 0,
			 "nodes", (json_int_t)sqlite3_column_int64(s, 1),
			 "switches", (json_int_t)sqlite3_column_int64(s, 2),
			 "cas", (json_int_t)sqlite3_column_int64(s, 3),
			 "ports", (json_int_t)sqlite3_column_int64(s, 4),
			 "links", (json_int_t)sqlite3_column_int64(s, 5), "last_sweep");
}

int dbq_eth_subnets(sqlite3 *db, json_t *arr, char *err, size_t errlen)
{
	return append(db, "SELECT s.name, (SELECT count(*) FROM eth_nodes), "
		      "(SELECT count(*) FROM eth_nodes WHERE type = 'switch'), "
		      "(SELECT count(*) FROM eth_nodes WHERE type = 'host'), "
		      "(SELECT count(*) FROM eth_ports), (SELECT count(*) FROM eth_links) "
		      "FROM subnets s WHERE s.kind = 'eth' AND ?1 IS NULL", NULL, subnet_json,
		      arr, err, errlen);
}

/* ---- the switches as loomd reads them (schema 4) ------------------------------ */

static json_t *switch_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:I}",
			 "name", dbq_col_str(s, 0), "plugin", dbq_col_str(s, 1), "address", dbq_col_str(s, 2),
			 "hostname", dbq_col_str(s, 3), "model", dbq_col_str(s, 4),
			 "os_version", dbq_col_str(s, 5), "mac", dbq_col_str(s, 6),
			 "qos_state", dbq_col_str(s, 7), "qos_error", dbq_col_str(s, 8),
			 "last_seen", sqlite3_column_double(s, 9) > 0 ? dbq_col_time(s, 9) : json_null(),
			 "last_tried", time_or_null(s, 10),
			 "ports", (json_int_t)sqlite3_column_int64(s, 11),
			 "ports_up", (json_int_t)sqlite3_column_int64(s, 12),
			 "neighbors", (json_int_t)sqlite3_column_int64(s, 13));
}

static json_t *eth_port_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:b, s:b, s:s, s:s, s:s}",
			 "name", dbq_col_str(s, 0), "alias", dbq_col_str(s, 1),
			 "speed_mbps", (json_int_t)sqlite3_column_int64(s, 2),
			 "mtu", (json_int_t)sqlite3_column_int64(s, 3),
			 "admin_up", sqlite3_column_int(s, 4), "oper_up", sqlite3_column_int(s, 5),
			 "peer_name", dbq_col_str(s, 6), "peer_port", dbq_col_str(s, 7),
			 "peer_chassis", dbq_col_str(s, 8));
}

int dbq_switches(sqlite3 *db, const char *name, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	json_t *list, *ports;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT w.name, w.plugin, w.address, w.hostname, w.model, w.os_version, "
			       "w.mac, w.qos_state, w.qos_error, w.last_seen, w.last_tried, "
			       "(SELECT count(*) FROM eth_ports p WHERE p.switch = w.name), "
			       "(SELECT count(*) FROM eth_ports p WHERE p.switch = w.name AND p.oper_up), "
			       "(SELECT count(*) FROM eth_ports p WHERE p.switch = w.name AND "
			       "p.peer_name <> '') FROM eth_switches w WHERE ?1 IS NULL OR w.name = ?1 "
			       "ORDER BY w.name", -1, &s, NULL) != SQLITE_OK) {
		if (strstr(sqlite3_errmsg(db), "no such table"))
			return dbq_fail(err, errlen, -ENOENT, "this database has no Ethernet switches "
				    "(its schema predates them: run a newer loomd on it once)");
		return dbq_db_fail(db, err, errlen, "prepare");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = dbq_collect(db, s, switch_json, &list, err, errlen)) < 0 || !name) {
		*out = rc < 0 ? NULL : list;
		return rc;
	}
	if (!json_array_size(list)) {
		json_decref(list);
		return dbq_fail(err, errlen, -ENOENT, "no switch \"%s\" has been read (loom.yaml "
			    "switches:, and loomctl qos status to read them now)", name);
	}
	if (sqlite3_prepare_v2(db, "SELECT name, alias, speed_mbps, mtu, admin_up, oper_up, "
			       "peer_name, peer_port, peer_chassis FROM eth_ports WHERE switch = ? "
			       "ORDER BY length(name), name", -1, &s, NULL) != SQLITE_OK) {
		json_decref(list);
		return dbq_db_fail(db, err, errlen, "prepare");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = dbq_collect(db, s, eth_port_json, &ports, err, errlen)) < 0) {
		json_decref(list);
		return rc;
	}
	*out = json_incref(json_array_get(list, 0));
	json_object_set_new(*out, "port_list", ports);
	json_decref(list);
	return 0;
}
