/* daemon/store_tenants.c: see store_tenants.h. */
#include "autoconf.h"
#include "store_tenants.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "db_query.h"
#include "log.h"
#include "store.h"
#include "store_routing.h"

static int fail(sqlite3 *db, const char *what)
{
	log_err("store: %s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static const char *col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? t : "";
}

int store_tenant_host_ports(struct store *st, json_t **map)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT CASE WHEN instr(n.description, ' ') > 0 THEN "
			       "substr(n.description, 1, instr(n.description, ' ') - 1) ELSE "
			       "n.description END, p.guid FROM nodes n JOIN ports p ON "
			       "p.subnet_id = n.subnet_id AND p.node_guid = n.guid WHERE "
			       "n.type = 'ca' AND p.num >= 1 ORDER BY 1, p.guid", -1, &s, NULL) !=
	    SQLITE_OK)
		return fail(db, "read the hosts' ports");
	*map = json_object();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *a = json_object_get(*map, col(s, 0));

		if (!a)
			json_object_set_new(*map, col(s, 0), a = json_array());
		json_array_append_new(a, json_string(col(s, 1)));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(*map);
		return fail(db, "read the hosts' ports");
	}
	return 0;
}

static json_t *time_json(double t)
{
	char buf[32];

	return json_string(dbq_time_str(t, buf, sizeof(buf)));
}

#define TENANT_COLS "name, pkey, membership, state, error, created, updated, created_by, " \
	"(SELECT count(DISTINCT host) FROM tenant_ports WHERE tenant = name), " \
	"(SELECT count(*) FROM tenant_ports WHERE tenant = name) "

static json_t *tenant_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:o, s:i, s:I, s:I}",
			 "name", col(s, 0), "pkey", sqlite3_column_int(s, 1),
			 "membership", col(s, 2), "state", col(s, 3), "error", col(s, 4),
			 "created", time_json(sqlite3_column_double(s, 5)),
			 "updated", time_json(sqlite3_column_double(s, 6)),
			 "created_by", sqlite3_column_int(s, 7),
			 "n_hosts", (json_int_t)sqlite3_column_int64(s, 8),
			 "n_ports", (json_int_t)sqlite3_column_int64(s, 9));
}

int store_tenant_list(struct store *st, json_t **list)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT " TENANT_COLS "FROM tenants ORDER BY created, name", -1,
			       &s, NULL) != SQLITE_OK)
		return fail(db, "list tenants");
	*list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(*list, tenant_json(s));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(*list);
		return fail(db, "list tenants");
	}
	return 0;
}

int store_tenant_get(struct store *st, const char *name, json_t **tenant)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	json_t *hosts, *ports;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT " TENANT_COLS "FROM tenants WHERE name = ?", -1, &s,
			       NULL) != SQLITE_OK)
		return fail(db, "read a tenant");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*tenant = rc == SQLITE_ROW ? tenant_json(s) : NULL;
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return -ENOENT;
	if (rc != SQLITE_ROW)
		return fail(db, "read a tenant");
	if (sqlite3_prepare_v2(db, "SELECT host, port_guid FROM tenant_ports WHERE tenant = ? "
			       "ORDER BY host, port_guid", -1, &s, NULL) != SQLITE_OK) {
		json_decref(*tenant);
		return fail(db, "read a tenant's ports");
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	hosts = json_array();
	ports = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t n = json_array_size(hosts);

		if (!n || strcmp(json_string_value(json_array_get(hosts, n - 1)), col(s, 0)))
			json_array_append_new(hosts, json_string(col(s, 0)));
		json_array_append_new(ports, json_pack("{s:s, s:s}", "host", col(s, 0), "guid",
						       col(s, 1)));
	}
	sqlite3_finalize(s);
	json_object_set_new(*tenant, "hosts", hosts);
	json_object_set_new(*tenant, "ports", ports);
	if (rc != SQLITE_DONE) {
		json_decref(*tenant);
		return fail(db, "read a tenant's ports");
	}
	return 0;
}

static int step_done(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : fail(db, what);
}

static int audit(struct store *st, double now, const char *kind, const char *name, int uid,
		 const char *what)
{
	char subject[160], who[512];

	snprintf(subject, sizeof(subject), "tenant %s", name);
	snprintf(who, sizeof(who), "%s (uid %d)", what, uid);
	return store_record_event(st, now, 0, "notice", kind, subject, "", who);
}

int store_tenant_put(struct store *st, double now, const char *name, unsigned pkey,
		     int limited, const json_t *ports, int uid, const char *kind,
		     const char *what)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	size_t i;
	json_t *p;
	int rc;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "begin");
	if (sqlite3_prepare_v2(db, "INSERT INTO tenants (name, pkey, membership, state, created, "
			       "updated, created_by) VALUES (?1, ?2, ?3, 'applying', ?4, ?4, ?5) "
			       "ON CONFLICT (name) DO UPDATE SET pkey = ?2, membership = ?3, "
			       "state = 'applying', error = '', updated = ?4", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = fail(db, "write a tenant");
		goto out;
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)pkey);
	sqlite3_bind_text(s, 3, limited ? "limited" : "full", -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 4, now);
	sqlite3_bind_int(s, 5, uid);
	if ((rc = step_done(db, s, "write a tenant")) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "DELETE FROM tenant_ports WHERE tenant = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = fail(db, "replace a tenant's ports");
		goto out;
	}
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = step_done(db, s, "replace a tenant's ports")) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO tenant_ports (tenant, host, port_guid) "
			       "VALUES (?, ?, ?)", -1, &s, NULL) != SQLITE_OK) {
		rc = fail(db, "write a tenant's ports");
		goto out;
	}
	json_array_foreach(ports, i, p) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, json_string_value(json_object_get(p, "host")), -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(s, 3, json_string_value(json_object_get(p, "guid")), -1,
				  SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE) {
			sqlite3_finalize(s);
			rc = fail(db, "write a tenant's ports");
			goto out;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	rc = audit(st, now, kind, name, uid, what);
out:
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = fail(db, "commit");
	return rc;
}

int store_tenant_delete(struct store *st, double now, const char *name, int uid)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "begin");
	if (sqlite3_prepare_v2(db, "DELETE FROM tenants WHERE name = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = fail(db, "delete a tenant");
	} else {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		rc = step_done(db, s, "delete a tenant");
		if (rc == 0 && sqlite3_changes(db) > 0)
			rc = audit(st, now, "tenant_deleted", name, uid, "deleted");
	}
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = fail(db, "commit");
	return rc;
}

int store_tenant_set_state(struct store *st, double now, const char *name, const char *state,
			   const char *error)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, "UPDATE tenants SET state = ?2, error = ?3, updated = ?4 "
			       "WHERE name = ?1", -1, &s, NULL) != SQLITE_OK)
		return fail(db, "update a tenant");
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
	if (sqlite3_prepare_v2(db, "SELECT pkey FROM tenants", -1, &s, NULL) != SQLITE_OK)
		return fail(db, "read the tenants' PKeys");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		unsigned k = (unsigned)sqlite3_column_int(s, 0) & 0x7fff;

		used[k / 8] |= (uint8_t)(1u << (k % 8));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : fail(db, "read the tenants' PKeys");
}

int store_last_sm_pid(struct store *st, int *pid)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	*pid = 0;
	if (sqlite3_prepare_v2(db, "SELECT sm_pid FROM routing_runs ORDER BY id DESC LIMIT 1", -1,
			       &s, NULL) != SQLITE_OK)
		return fail(db, "read OpenSM's pid");
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*pid = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(db, "read OpenSM's pid");
}
