/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/store_switches.c: see store_switches.h. */
#include "autoconf.h"
#include "daemon/roce/store_switches.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/util/log.h"
#include "daemon/core/store.h"

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
		return store_db_fail(db, sql);
	for (int i = 0; i < n_text; i++)
		sqlite3_bind_text(s, i + 1, text[i], -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : store_db_fail(db, sql);
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

static int in_read(const json_t *sw, const char *port)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(sw, "port_list"), i, p)
		if (!strcmp(str(p, "name"), port))
			return 1;
	return 0;
}

/* ---- the fabric around one switch, before and after its read ----------------- */

/* What a read can change, as sets (JSON objects) to compare:
 * links: key (the smaller managed end, "sw[port]") -> {"subject", "rate",
 *        "nodes": [a, b]}, for the links with an end on the switch read;
 * ports: "port" -> "up" | "down", the switch's own ports;
 * hosts: node name -> its chassis id, every unmanaged node of the fabric. */
struct eth_view {
	json_t *links, *ports, *hosts;
};

static void view_clear(struct eth_view *v)
{
	json_decref(v->links);
	json_decref(v->ports);
	json_decref(v->hosts);
	memset(v, 0, sizeof(*v));
}

static const char *col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? t : "";
}

/* "100G" from 100000 Mb/s; "" when unknown. */
static void rate_str(char *buf, size_t len, long long mbps)
{
	if (mbps <= 0)
		buf[0] = '\0';
	else if (mbps % 1000 == 0)
		snprintf(buf, len, "%lldG", mbps / 1000);
	else
		snprintf(buf, len, "%lldM", mbps);
}

static int add_link(json_t *links, sqlite3_stmt *s)
{
	char a[160], b[160], subject[330], rate[24];
	const char *lo, *hi, *key;
	int b_managed = sqlite3_column_type(s, 5) != SQLITE_NULL;

	snprintf(a, sizeof(a), "%s[%s]", col(s, 0), col(s, 1));
	snprintf(b, sizeof(b), "%s[%s]", col(s, 2), col(s, 3));
	lo = strcmp(a, b) <= 0 ? a : b;
	hi = lo == a ? b : a;
	key = b_managed ? lo : a;
	snprintf(subject, sizeof(subject), "%s <-> %s", lo, hi);
	rate_str(rate, sizeof(rate), sqlite3_column_int64(s, 4));
	return json_object_set_new(links, key,
				   json_pack("{s:s, s:s, s:[s,s]}", "subject", subject, "rate", rate,
					     "nodes", col(s, 0), col(s, 2)));
}

static int view_read(sqlite3 *db, const char *name, struct eth_view *v)
{
	sqlite3_stmt *s = NULL;
	int rc;

	v->links = json_object();
	v->ports = json_object();
	v->hosts = json_object();
	if (!v->links || !v->ports || !v->hosts)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT a_node, a_port, b_node, b_port, a_speed, b_speed "
			       "FROM eth_links WHERE a_node = ?1 OR b_switch = ?1", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the switch's links");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (add_link(v->links, s) < 0)
			break;
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "read the switch's links");
	if (sqlite3_prepare_v2(db, "SELECT name, oper_up FROM eth_ports WHERE switch = ?", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the switch's ports");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_object_set_new(v->ports, col(s, 0),
				    json_string(sqlite3_column_int(s, 1) ? "up" : "down"));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "read the switch's ports");
	if (sqlite3_prepare_v2(db, "SELECT name, mac FROM eth_nodes WHERE type = 'host'", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the fabric's hosts");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_object_set_new(v->hosts, col(s, 0), json_string(col(s, 1)));
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the fabric's hosts");
}

/* The events between two views, of the kinds an IB sweep records (see
 * lib/fabric/fabric_diff.c), against the Ethernet fabric's subnet row. As there:
 * a node's appearance explains its links, a link's change explains its
 * ports' state. `is_new`: the switch read is itself new. */
struct eth_diff {
	struct store *st;
	double now;
	int64_t sid;
	const char *name;
	int is_new;
	json_t *covered; /* "sw[port]" ends explained by a link event */
};

static int ev(struct eth_diff *d, const char *severity, const char *kind, const char *subject,
	      const char *old_value, const char *new_value)
{
	return store_record_event(d->st, d->now, d->sid, severity, kind, subject, old_value,
				  new_value);
}

/* Was a node of link `l` absent from the other view (`hosts`), or new? */
static int explained(struct eth_diff *d, const json_t *l, const json_t *hosts_then,
		     const json_t *hosts_now)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(l, "nodes"), i, n) {
		const char *node = json_string_value(n);

		if (d->is_new && !strcmp(node, d->name))
			return 1;
		if (json_object_get(hosts_then, node) && !json_object_get(hosts_now, node))
			return 1;
		if (!json_object_get(hosts_then, node) && json_object_get(hosts_now, node))
			return 1;
	}
	return 0;
}

static void cover(struct eth_diff *d, const json_t *l)
{
	/* "a[p] <-> b[q]": both ends. */
	const char *subject = str(l, "subject"), *sep = strstr(subject, " <-> ");

	if (!sep)
		return;
	json_object_set_new(d->covered, sep + 5, json_true());
	{
		char a[160];

		snprintf(a, sizeof(a), "%.*s", (int)(sep - subject), subject);
		json_object_set_new(d->covered, a, json_true());
	}
}

static int diff_links(struct eth_diff *d, const struct eth_view *then, const struct eth_view *now)
{
	const char *key;
	json_t *l;
	int rc;

	json_object_foreach(then->links, key, l) {
		json_t *n = json_object_get(now->links, key);

		if (n && !strcmp(str(n, "subject"), str(l, "subject")))
			continue;
		cover(d, l);
		if (explained(d, l, then->hosts, now->hosts))
			continue;
		if ((rc = ev(d, "warning", "link_down", str(l, "subject"), str(l, "rate"), "")) < 0)
			return rc;
	}
	json_object_foreach(now->links, key, l) {
		json_t *o = json_object_get(then->links, key);

		if (o && !strcmp(str(o, "subject"), str(l, "subject")))
			continue;
		cover(d, l);
		if (explained(d, l, then->hosts, now->hosts))
			continue;
		if ((rc = ev(d, "notice", "link_up", str(l, "subject"), "", str(l, "rate"))) < 0)
			return rc;
	}
	return 0;
}

static int diff_hosts(struct eth_diff *d, const struct eth_view *then, const struct eth_view *now)
{
	const char *host;
	json_t *v;
	int rc;

	json_object_foreach(now->hosts, host, v)
		if (!json_object_get(then->hosts, host) &&
		    (rc = ev(d, "notice", "node_appeared", host, "", "host")) < 0)
			return rc;
	json_object_foreach(then->hosts, host, v)
		if (!json_object_get(now->hosts, host) &&
		    (rc = ev(d, "warning", "node_disappeared", host, "host", "")) < 0)
			return rc;
	return 0;
}

/* A port's state change that no link event explains (the new switch's
 * ports are its appearance). */
static int diff_ports(struct eth_diff *d, const struct eth_view *then, const struct eth_view *now)
{
	const char *port;
	json_t *v;
	int rc;

	if (d->is_new)
		return 0;
	json_object_foreach(now->ports, port, v) {
		const char *was = json_string_value(json_object_get(then->ports, port));
		const char *is = json_string_value(v);
		char subject[160];

		if (!was)
			was = "absent";
		if (!strcmp(was, is))
			continue;
		snprintf(subject, sizeof(subject), "%s[%s]", d->name, port);
		if (json_object_get(d->covered, subject))
			continue;
		if ((rc = ev(d, !strcmp(is, "down") ? "warning" : "notice", "port_state", subject,
			     was, is)) < 0)
			return rc;
	}
	json_object_foreach(then->ports, port, v) {
		char subject[160];

		if (json_object_get(now->ports, port))
			continue;
		snprintf(subject, sizeof(subject), "%s[%s]", d->name, port);
		if (json_object_get(d->covered, subject))
			continue;
		if ((rc = ev(d, "warning", "port_state", subject, json_string_value(v),
			     "absent")) < 0)
			return rc;
	}
	return 0;
}

/* ---- recording one read ------------------------------------------------------ */

/* Stored ports that the read no longer lists. The names are gathered
 * first: rows are not deleted under a running SELECT. */
static int drop_gone(sqlite3 *db, const json_t *sw, const char *name)
{
	json_t *gone = json_array();
	sqlite3_stmt *s;
	size_t i;
	json_t *g;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT name FROM eth_ports WHERE switch = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		json_decref(gone);
		return store_db_fail(db, "list a switch's ports");
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

		if ((rc = exec1(db, "DELETE FROM eth_ports WHERE switch = ?1 AND name = ?2", v, 2)) < 0)
			break;
	}
	json_decref(gone);
	return rc;
}

/* The ports of one read, replacing the stored ones. */
static int record_ports(sqlite3 *db, const json_t *sw, const char *name)
{
	sqlite3_stmt *up = NULL;
	size_t i;
	json_t *p;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO eth_ports (switch, name, alias, "
			       "speed_mbps, mtu, admin_up, oper_up, peer_name, peer_port, "
			       "peer_chassis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &up,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "prepare the switch's ports");
	json_array_foreach(json_object_get(sw, "port_list"), i, p) {
		const char *port = str(p, "name");
		const json_t *n = neighbor_of(sw, port);

		sqlite3_bind_text(up, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 2, port, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 3, str(p, "alias"), -1, SQLITE_STATIC);
		sqlite3_bind_int64(up, 4, num(p, "speed_mbps"));
		sqlite3_bind_int64(up, 5, num(p, "mtu"));
		sqlite3_bind_int(up, 6, json_is_true(json_object_get(p, "admin_up")));
		sqlite3_bind_int(up, 7, json_is_true(json_object_get(p, "oper_up")));
		sqlite3_bind_text(up, 8, n ? str(n, "sys_name") : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 9, n ? str(n, "port_id") : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 10, n ? str(n, "chassis_id") : "", -1, SQLITE_STATIC);
		if (sqlite3_step(up) != SQLITE_DONE) {
			sqlite3_finalize(up);
			return store_db_fail(db, "record a switch port");
		}
		sqlite3_reset(up);
	}
	sqlite3_finalize(up);
	return drop_gone(db, sw, name);
}

static int eth_subnet(sqlite3 *db, int64_t *sid)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT id FROM subnets WHERE kind = 'eth'", -1, &s, NULL) !=
	    SQLITE_OK)
		return store_db_fail(db, "look up the Ethernet fabric");
	rc = sqlite3_step(s);
	*sid = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_db_fail(db, "look up the Ethernet fabric");
}

/* The reached switch's inventory and ports, and the events they make. */
static int record_reached(struct store *st, double now, const json_t *sw, const char *name,
			  const char *t, int is_new)
{
	sqlite3 *db = store_db(st);
	struct eth_view then = { 0 }, after = { 0 };
	struct eth_diff d = { .st = st, .now = now, .name = name, .is_new = is_new };
	const char *v[] = { name, t, str(sw, "hostname"), str(sw, "model"),
			    str(sw, "os_version"), str(sw, "mac") };
	int rc;

	if ((rc = eth_subnet(db, &d.sid)) < 0 || (rc = view_read(db, name, &then)) < 0)
		goto out;
	if ((rc = exec1(db, "UPDATE eth_switches SET last_seen = ?2, hostname = ?3, model = ?4, "
			"os_version = ?5, mac = ?6 WHERE name = ?1", v, 6)) < 0 ||
	    (rc = record_ports(db, sw, name)) < 0 || (rc = view_read(db, name, &after)) < 0)
		goto out;
	if (!(d.covered = json_object())) {
		rc = -ENOMEM;
		goto out;
	}
	if (is_new && (rc = ev(&d, "notice", "node_appeared", name, "", "switch")) < 0)
		goto out;
	if ((rc = diff_hosts(&d, &then, &after)) < 0 || (rc = diff_links(&d, &then, &after)) < 0)
		goto out;
	rc = diff_ports(&d, &then, &after);
out:
	json_decref(d.covered);
	view_clear(&then);
	view_clear(&after);
	return rc;
}

int store_declare_switch(struct store *st, double now, const char *name, const char *plugin,
			const char *address)
{
	char t[32];
	const char *v[] = { name, plugin, address, t };

	snprintf(t, sizeof(t), "%.6f", now);
	return exec1(store_db(st), "INSERT OR IGNORE INTO eth_switches (name, plugin, address, "
		     "first_seen, last_seen, last_tried) VALUES (?1, ?2, ?3, ?4, 0, 0)", v, 4);
}

int store_record_switch(struct store *st, double now, const json_t *sw)
{
	sqlite3 *db = store_db(st);
	const char *name = str(sw, "name");
	int reached = json_object_get(sw, "port_list") != NULL, is_new = 0, rc;
	sqlite3_stmt *s;
	char t[32];

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin");
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM eth_switches WHERE name = ? AND last_seen > 0", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = store_db_fail(db, "look up a switch");
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
	if (rc == 0 && reached)
		rc = record_reached(st, now, sw, name, t, is_new);
out:
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = store_db_fail(db, "commit");
	return rc;
}
