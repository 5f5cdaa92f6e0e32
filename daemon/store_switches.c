/* daemon/store_switches.c: see store_switches.h. */
#include "autoconf.h"
#include "store_switches.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "log.h"
#include "store.h"
#include "store_routing.h"

static int fail(sqlite3 *db, const char *what)
{
	log_err("store: %s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static int exec1(sqlite3 *db, const char *sql, const char *const *text, int n_text)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(db, sql);
	for (int i = 0; i < n_text; i++)
		sqlite3_bind_text(s, i + 1, text[i], -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail(db, sql);
}

/* The neighbour of `port` in the read's neighbors list, or NULL. */
static const json_t *neighbor_of(const json_t *sw, const char *port)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(sw, "neighbors"), i, n)
		if (!strcmp(str(n, "local_port"), port))
			return n;
	return NULL;
}

static int event(struct store *st, double now, const char *severity, const char *kind,
		 const char *name, const char *old_value, const char *new_value)
{
	char subject[160];

	snprintf(subject, sizeof(subject), "switch %s", name);
	return store_record_event(st, now, 0, severity, kind, subject, old_value, new_value);
}

static int in_read(const json_t *sw, const char *port)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(sw, "port_list"), i, p)
		if (!strcmp(str(p, "name"), port))
			return 1;
	return 0;
}

/* Stored ports that the read no longer lists: gone (eth_port_gone). The
 * names are gathered first: rows are not deleted under a running SELECT. */
static int drop_gone(struct store *st, double now, const json_t *sw, const char *name)
{
	sqlite3 *db = store_db(st);
	json_t *gone = json_array();
	sqlite3_stmt *s;
	size_t i;
	json_t *g;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT name FROM eth_ports WHERE switch = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		json_decref(gone);
		return fail(db, "list a switch's ports");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *port = (const char *)sqlite3_column_text(s, 0);

		if (!in_read(sw, port))
			json_array_append_new(gone, json_string(port));
	}
	sqlite3_finalize(s);
	json_array_foreach(gone, i, g) {
		const char *v[] = { name, json_string_value(g) };

		if ((rc = event(st, now, "warning", "eth_port_gone", name, v[1], "")) < 0 ||
		    (rc = exec1(db, "DELETE FROM eth_ports WHERE switch = ?1 AND name = ?2", v, 2)) < 0)
			break;
	}
	json_decref(gone);
	return rc;
}

/* The ports of one read against the stored ones: events and new rows. */
static int record_ports(struct store *st, double now, const json_t *sw, const char *name,
			int is_new)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *old = NULL, *up = NULL;
	size_t i;
	json_t *p;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT oper_up, peer_name, peer_port FROM eth_ports "
			       "WHERE switch = ? AND name = ?", -1, &old, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO eth_ports (switch, name, alias, "
			       "speed_mbps, mtu, admin_up, oper_up, peer_name, peer_port, "
			       "peer_chassis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &up,
			       NULL) != SQLITE_OK) {
		rc = fail(db, "prepare the switch's ports");
		goto out;
	}
	json_array_foreach(json_object_get(sw, "port_list"), i, p) {
		const char *port = str(p, "name");
		const json_t *n = neighbor_of(sw, port);
		const char *peer = n ? str(n, "sys_name") : "", *peer_port = n ? str(n, "port_id") : "";
		int oper = json_is_true(json_object_get(p, "oper_up"));
		char a[160], b[160];

		sqlite3_bind_text(old, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(old, 2, port, -1, SQLITE_STATIC);
		if (sqlite3_step(old) == SQLITE_ROW && !is_new) {
			int was_up = sqlite3_column_int(old, 0);
			const char *was_peer = (const char *)sqlite3_column_text(old, 1);
			const char *was_port = (const char *)sqlite3_column_text(old, 2);

			if (was_up != oper)
				rc = event(st, now, oper ? "notice" : "warning",
					   oper ? "eth_port_up" : "eth_port_down", name, port, "");
			snprintf(a, sizeof(a), "%s %s", was_peer ? was_peer : "", was_port ? was_port : "");
			snprintf(b, sizeof(b), "%s %s", peer, peer_port);
			if (rc == 0 && strcmp(a, b)) {
				char what[200];

				snprintf(what, sizeof(what), "%s: %s", port, a[1] ? a : "(none)");
				rc = event(st, now, "notice", "eth_neighbor", name, what,
					   b[1] ? b : "(none)");
			}
		}
		sqlite3_reset(old);
		if (rc < 0)
			goto out;
		sqlite3_bind_text(up, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 2, port, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 3, str(p, "alias"), -1, SQLITE_STATIC);
		sqlite3_bind_int64(up, 4, num(p, "speed_mbps"));
		sqlite3_bind_int64(up, 5, num(p, "mtu"));
		sqlite3_bind_int(up, 6, json_is_true(json_object_get(p, "admin_up")));
		sqlite3_bind_int(up, 7, oper);
		sqlite3_bind_text(up, 8, peer, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 9, peer_port, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 10, n ? str(n, "chassis_id") : "", -1, SQLITE_STATIC);
		if (sqlite3_step(up) != SQLITE_DONE) {
			rc = fail(db, "record a switch port");
			goto out;
		}
		sqlite3_reset(up);
	}
	rc = drop_gone(st, now, sw, name);
out:
	sqlite3_finalize(old);
	sqlite3_finalize(up);
	return rc;
}

int store_record_switch(struct store *st, double now, const json_t *sw)
{
	sqlite3 *db = store_db(st);
	const char *name = str(sw, "name");
	int reached = json_object_get(sw, "port_list") != NULL, is_new = 0, rc;
	sqlite3_stmt *s;
	char t[32];

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "begin");
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM eth_switches WHERE name = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = fail(db, "look up a switch");
		goto out;
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	is_new = sqlite3_step(s) != SQLITE_ROW;
	sqlite3_finalize(s);
	snprintf(t, sizeof(t), "%.6f", now);
	{
		const char *v[] = { name, str(sw, "plugin"), str(sw, "address"), t };

		rc = exec1(db, "INSERT OR IGNORE INTO eth_switches (name, plugin, address, "
			   "first_seen, last_seen, last_tried) VALUES (?1, ?2, ?3, ?4, 0, ?4)", v, 4);
	}
	if (rc == 0) {
		const char *v[] = { name, str(sw, "plugin"), str(sw, "address"), t,
				    str(sw, "state"), str(sw, "error") };

		rc = exec1(db, "UPDATE eth_switches SET plugin = ?2, address = ?3, last_tried = ?4, "
			   "qos_state = ?5, qos_error = ?6 WHERE name = ?1", v, 6);
	}
	if (rc == 0 && reached) {
		const char *v[] = { name, t, str(sw, "hostname"), str(sw, "model"),
				    str(sw, "os_version"), str(sw, "mac") };

		rc = exec1(db, "UPDATE eth_switches SET last_seen = ?2, hostname = ?3, model = ?4, "
			   "os_version = ?5, mac = ?6 WHERE name = ?1", v, 6);
		if (rc == 0 && is_new)
			rc = event(st, now, "notice", "eth_switch_added", name, "",
				   str(sw, "model"));
		if (rc == 0)
			rc = record_ports(st, now, sw, name, is_new);
	}
out:
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = fail(db, "commit");
	return rc;
}
