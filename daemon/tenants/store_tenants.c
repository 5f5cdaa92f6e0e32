/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/store_tenants.c: see store_tenants.h. */
#include "autoconf.h"
#include "daemon/tenants/store_tenants.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/db/db_query.h"
#include "lib/util/log.h"
#include "daemon/core/store.h"

static const char *col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? t : "";
}

int store_tenant_ca_ports(struct store *st, json_t **list)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT n.description, p.guid, n.guid, n.sysimg_guid "
			       "FROM nodes n JOIN ports p ON "
			       "p.subnet_id = n.subnet_id AND p.node_guid = n.guid WHERE "
			       "n.type = 'ca' AND p.num >= 1 ORDER BY 1, p.guid", -1, &s, NULL) !=
	    SQLITE_OK)
		return store_db_fail(db, "read the hosts' ports");
	*list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(*list, json_pack("{s:s, s:s, s:s, s:s}", "desc", col(s, 0),
						       "guid", col(s, 1), "node", col(s, 2),
						       "sysimg", col(s, 3)));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(*list);
		return store_db_fail(db, "read the hosts' ports");
	}
	return 0;
}

int store_tenant_eth_host_ports(struct store *st, json_t **list)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	/* A neighbour that is one of loom's switches is a switch, not a host. */
	if (sqlite3_prepare_v2(db, "SELECT CASE WHEN instr(p.peer_name, '.') > 1 THEN "
			       "substr(p.peer_name, 1, instr(p.peer_name, '.') - 1) ELSE "
			       "p.peer_name END, p.switch, p.name, "
			       "(SELECT tenant FROM tenant_eth_ports t WHERE t.switch = p.switch "
			       "AND t.port = p.name) FROM eth_ports p WHERE p.peer_name <> '' AND "
			       "NOT EXISTS (SELECT 1 FROM eth_switches s WHERE s.name = p.peer_name "
			       "OR (s.hostname <> '' AND s.hostname = p.peer_name)) "
			       "ORDER BY 1, 2, 3", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read the hosts' switch ports");
	*list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *x = json_pack("{s:s, s:s, s:s}", "host", col(s, 0), "switch", col(s, 1),
				      "port", col(s, 2));

		if (sqlite3_column_type(s, 3) != SQLITE_NULL)
			json_object_set_new(x, "tenant", json_string(col(s, 3)));
		json_array_append_new(*list, x);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(*list);
		return store_db_fail(db, "read the hosts' switch ports");
	}
	return 0;
}

static json_t *time_json(double t)
{
	char buf[32];

	return json_string(dbq_time_str(t, buf, sizeof(buf)));
}

#define TENANT_COLS "name, pkey, membership, state, error, created, updated, created_by, " \
	"(SELECT count(*) FROM (SELECT host FROM tenant_ports WHERE tenant = name UNION " \
	"SELECT host FROM tenant_eth_ports WHERE tenant = name)), " \
	"(SELECT count(*) FROM tenant_ports WHERE tenant = name), vlan, " \
	"(SELECT count(*) FROM tenant_eth_ports WHERE tenant = name), class, creator "

/* "pkey" and "vlan" only when the tenant has one. */
static json_t *tenant_json(sqlite3_stmt *s)
{
	json_t *t = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:i, s:I, s:I, s:I}",
			      "name", col(s, 0), "membership", col(s, 2), "state", col(s, 3),
			      "error", col(s, 4),
			      "created", time_json(sqlite3_column_double(s, 5)),
			      "updated", time_json(sqlite3_column_double(s, 6)),
			      "created_by", sqlite3_column_int(s, 7),
			      "n_hosts", (json_int_t)sqlite3_column_int64(s, 8),
			      "n_ports", (json_int_t)sqlite3_column_int64(s, 9),
			      "n_eth_ports", (json_int_t)sqlite3_column_int64(s, 11));

	if (t && sqlite3_column_type(s, 1) != SQLITE_NULL)
		json_object_set_new(t, "pkey", json_integer(sqlite3_column_int(s, 1)));
	if (t && sqlite3_column_type(s, 10) != SQLITE_NULL)
		json_object_set_new(t, "vlan", json_integer(sqlite3_column_int(s, 10)));
	if (t && *col(s, 12))
		json_object_set_new(t, "class", json_string(col(s, 12)));
	if (t && *col(s, 13))
		json_object_set_new(t, "creator", json_string(col(s, 13)));
	return t;
}

int store_tenant_list(struct store *st, json_t **list)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT " TENANT_COLS "FROM tenants ORDER BY created, name", -1,
			       &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "list tenants");
	*list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(*list, tenant_json(s));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(*list);
		return store_db_fail(db, "list tenants");
	}
	return 0;
}

int store_tenant_get(struct store *st, const char *name, json_t **tenant)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	json_t *hosts, *ports, *eth;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT " TENANT_COLS "FROM tenants WHERE name = ?", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read a tenant");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*tenant = rc == SQLITE_ROW ? tenant_json(s) : NULL;
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return -ENOENT;
	if (rc != SQLITE_ROW)
		return store_db_fail(db, "read a tenant");
	if (sqlite3_prepare_v2(db, "SELECT host, port_guid, NULL, NULL FROM tenant_ports WHERE "
			       "tenant = ?1 UNION ALL SELECT host, NULL, switch, port FROM "
			       "tenant_eth_ports WHERE tenant = ?1 ORDER BY 1, 2, 3, 4", -1, &s,
			       NULL) != SQLITE_OK) {
		json_decref(*tenant);
		return store_db_fail(db, "read a tenant's ports");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	hosts = json_array();
	ports = json_array();
	eth = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t n = json_array_size(hosts);

		if (!n || strcmp(json_string_value(json_array_get(hosts, n - 1)), col(s, 0)))
			json_array_append_new(hosts, json_string(col(s, 0)));
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			json_array_append_new(ports, json_pack("{s:s, s:s}", "host", col(s, 0),
							       "guid", col(s, 1)));
		else
			json_array_append_new(eth, json_pack("{s:s, s:s, s:s}", "host", col(s, 0),
							     "switch", col(s, 2), "port", col(s, 3)));
	}
	sqlite3_finalize(s);
	json_object_set_new(*tenant, "hosts", hosts);
	json_object_set_new(*tenant, "ports", ports);
	json_object_set_new(*tenant, "eth_ports", eth);
	if (rc != SQLITE_DONE) {
		json_decref(*tenant);
		return store_db_fail(db, "read a tenant's ports");
	}
	return 0;
}

static int step_done(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, what);
}

static int audit(struct store *st, double now, const char *kind, const char *name,
		 const char *who, const char *what)
{
	char subject[160], text[512];

	snprintf(subject, sizeof(subject), "tenant %s", name);
	snprintf(text, sizeof(text), "%s (%s)", what, who);
	return store_record_event(st, now, 0, "notice", kind, subject, "", text);
}

/* Replace the rows of `table` for tenant `name`: one `insert` per item of
 * `items`, bound to the tenant's name and then the items' `keys`. */
static int put_ports(sqlite3 *db, const char *name, const char *table, const char *insert,
		     const char *const *keys, size_t n_keys, const json_t *items)
{
	char sql[128];
	sqlite3_stmt *s;
	size_t i;
	json_t *p;
	int rc;

	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE tenant = ?", table);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "replace a tenant's ports");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = step_done(db, s, "replace a tenant's ports")) < 0)
		return rc;
	if (sqlite3_prepare_v2(db, insert, -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "write a tenant's ports");
	json_array_foreach(items, i, p) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		for (size_t k = 0; k < n_keys; k++)
			sqlite3_bind_text(s, (int)k + 2,
					  json_string_value(json_object_get(p, keys[k])), -1,
					  SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE) {
			sqlite3_finalize(s);
			return store_db_fail(db, "write a tenant's ports");
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

int store_tenant_put(struct store *st, double now, const struct store_tenant *t, int uid,
		     const char *who, const char *kind, const char *what)
{
	static const char *const ib_keys[] = { "host", "guid" };
	static const char *const eth_keys[] = { "host", "switch", "port" };
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin");
	if (sqlite3_prepare_v2(db, "INSERT INTO tenants (name, pkey, vlan, membership, state, "
			       "created, updated, created_by, class, creator) VALUES (?1, ?2, ?6, "
			       "?3, ?9, ?4, ?4, ?5, ?7, ?8) ON CONFLICT (name) DO UPDATE SET "
			       "pkey = ?2, vlan = ?6, membership = ?3, state = ?9, "
			       "error = '', updated = ?4, class = ?7", -1, &s, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "write a tenant");
		goto out;
	}
	sqlite3_bind_text(s, 1, t->name, -1, SQLITE_STATIC);
	if (t->pkey)
		sqlite3_bind_int(s, 2, (int)t->pkey);
	sqlite3_bind_text(s, 3, t->limited ? "limited" : "full", -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 4, now);
	sqlite3_bind_int(s, 5, uid);
	if (t->vlan)
		sqlite3_bind_int(s, 6, (int)t->vlan);
	sqlite3_bind_text(s, 7, t->class_name ? t->class_name : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, who, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, t->state ? t->state : "applying", -1, SQLITE_STATIC);
	if ((rc = step_done(db, s, "write a tenant")) < 0 ||
	    /* The same IB port twice (two names for one host) is one row; a
	     * switch port of another tenant is an error (an access port has
	     * one VLAN): the caller checks it first. */
	    (rc = put_ports(db, t->name, "tenant_ports", "INSERT OR IGNORE INTO tenant_ports "
			    "(tenant, host, port_guid) VALUES (?, ?, ?)", ib_keys, 2,
			    t->ports)) < 0 ||
	    (rc = put_ports(db, t->name, "tenant_eth_ports", "INSERT INTO tenant_eth_ports "
			    "(tenant, host, switch, port) VALUES (?, ?, ?, ?)", eth_keys, 3,
			    t->eth_ports)) < 0)
		goto out;
	rc = audit(st, now, kind, t->name, who, what);
out:
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = store_db_fail(db, "commit");
	return rc;
}

int store_tenant_delete(struct store *st, double now, const char *name, const char *who)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin");
	if (sqlite3_prepare_v2(db, "DELETE FROM tenants WHERE name = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = store_db_fail(db, "delete a tenant");
	} else {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		rc = step_done(db, s, "delete a tenant");
		if (rc == 0 && sqlite3_changes(db) > 0)
			rc = audit(st, now, "tenant_deleted", name, who, "deleted");
	}
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = store_db_fail(db, "commit");
	return rc;
}

int store_tenant_set_state(struct store *st, double now, const char *name, const char *state,
			   const char *error)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, "UPDATE tenants SET state = ?2, error = ?3, updated = ?4 "
			       "WHERE name = ?1", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "update a tenant");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, error ? error : "", -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 4, now);
	return step_done(db, s, "update a tenant");
}

int store_tenant_pkeys(struct store *st, uint8_t *used)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	memset(used, 0, 0x8000 / 8);
	if (sqlite3_prepare_v2(db, "SELECT pkey FROM tenants WHERE pkey IS NOT NULL", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the tenants' PKeys");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		unsigned k = (unsigned)sqlite3_column_int(s, 0) & 0x7fff;

		used[k / 8] |= (uint8_t)(1u << (k % 8));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the tenants' PKeys");
}

int store_tenant_vlans(struct store *st, uint8_t *used)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	memset(used, 0, 4096 / 8);
	if (sqlite3_prepare_v2(db, "SELECT vlan FROM tenants WHERE vlan IS NOT NULL", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the tenants' VLANs");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		unsigned v = (unsigned)sqlite3_column_int(s, 0) & 0xfff;

		used[v / 8] |= (uint8_t)(1u << (v % 8));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the tenants' VLANs");
}
