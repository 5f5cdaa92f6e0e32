/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/store_routing.c: OpenSM's routing runs and events in the database
 * (see store_routing.h). Single statements on the loop thread's
 * connection; the caller groups a batch into one transaction. */
#include "autoconf.h"
#include "daemon/routing/store_routing.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/fabric/ibtypes.h"
#include "lib/util/log.h"
#include "daemon/core/store.h"

/* Runs kept: years of heavy sweeps at a few an hour, a few MB at most. */
#define STORE_ROUTING_RUNS_KEPT 10000

int store_routing_begin(struct store *st)
{
	sqlite3 *db = store_db(st);

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin recording OpenSM's reports");
	return 0;
}

int store_routing_end(struct store *st, int rc)
{
	sqlite3 *db = store_db(st);

	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit OpenSM's reports");
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static void bind_guid(sqlite3_stmt *s, int col, uint64_t guid)
{
	char buf[24];

	sqlite3_bind_text(s, col, ibt_guid_str(guid, buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
}

/* The loom subnet whose ports hold the SM's port GUID: 0 when loomd has not
 * swept it (or the SM's GUID is not known yet). */
static int sm_subnet(sqlite3 *db, uint64_t sm_guid, int64_t *sid)
{
	sqlite3_stmt *s;
	int rc;

	*sid = 0;
	if (!sm_guid)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT subnet_id FROM ports WHERE guid = ? LIMIT 1", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "look up the SM's subnet");
	bind_guid(s, 1, sm_guid);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*sid = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_db_fail(db, "look up the SM's subnet");
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *s, int col, const char *v)
{
	if (v)
		sqlite3_bind_text(s, col, v, -1, SQLITE_STATIC);
}

int store_record_routing_run(struct store *st, const struct store_routing_run *run,
			     int64_t *id)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int64_t sid;
	int rc;

	if ((rc = sm_subnet(db, run->sm_guid, &sid)) < 0)
		return rc;
	if (sqlite3_prepare_v2(db, "INSERT INTO routing_runs (time, received, subnet_id, sm_guid, "
			       "sm_pid, engine, routed_by, note, result, reason, duration_ms, vls, "
			       "switches, ca_ports, entries_routed, entries_unreachable, metrics) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "insert routing run");
	sqlite3_bind_double(s, 1, run->time);
	sqlite3_bind_double(s, 2, run->received);
	if (sid)
		sqlite3_bind_int64(s, 3, sid);
	bind_guid(s, 4, run->sm_guid);
	sqlite3_bind_int(s, 5, run->sm_pid);
	sqlite3_bind_text(s, 6, run->engine, -1, SQLITE_STATIC);
	bind_text_or_null(s, 7, run->routed_by);
	sqlite3_bind_text(s, 8, run->note ? run->note : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, run->ok ? "ok" : "failed", -1, SQLITE_STATIC);
	bind_text_or_null(s, 10, run->reason);
	sqlite3_bind_double(s, 11, run->duration_ms);
	sqlite3_bind_int(s, 12, run->vls);
	sqlite3_bind_int64(s, 13, run->switches);
	sqlite3_bind_int64(s, 14, run->ca_ports);
	sqlite3_bind_int64(s, 15, run->entries_routed);
	sqlite3_bind_int64(s, 16, run->entries_unreachable);
	bind_text_or_null(s, 17, run->metrics);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "insert routing run");
	if (id)
		*id = sqlite3_last_insert_rowid(db);
	if (sqlite3_prepare_v2(db, "DELETE FROM routing_runs WHERE id <= "
			       "(SELECT max(id) FROM routing_runs) - ?", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "prune routing runs");
	sqlite3_bind_int(s, 1, STORE_ROUTING_RUNS_KEPT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "prune routing runs");
}

int store_record_osm_event(struct store *st, double time, uint64_t sm_guid,
			   const char *severity, const char *kind, const char *subject,
			   const char *old_value, const char *new_value)
{
	int64_t sid;
	int rc;

	if ((rc = sm_subnet(store_db(st), sm_guid, &sid)) < 0)
		return rc;
	return store_record_event(st, time, sid, severity, kind, subject, old_value, new_value);
}

int store_osm_lid_desc(struct store *st, uint64_t sm_guid, unsigned lid, char *buf, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int64_t sid;
	int rc;

	buf[0] = '\0';
	if ((rc = sm_subnet(db, sm_guid, &sid)) < 0)
		return rc;
	if (!sid || !lid)
		return -ENOENT;
	/* A switch's LID is its port 0's; loom's sweeps may repeat it on the
	 * external ports, hence the lowest port. */
	if (sqlite3_prepare_v2(db, "SELECT n.description FROM ports p JOIN nodes n ON "
			       "n.subnet_id = p.subnet_id AND n.guid = p.node_guid "
			       "WHERE p.subnet_id = ? AND p.lid = ? ORDER BY p.num LIMIT 1", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "look up a LID");
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_int(s, 2, (int)lid);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_db_fail(db, "look up a LID");
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

int store_last_sm_pid(struct store *st, int *pid)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	*pid = 0;
	if (sqlite3_prepare_v2(db, "SELECT sm_pid FROM routing_runs ORDER BY id DESC LIMIT 1", -1,
			       &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read OpenSM's pid");
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*pid = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_db_fail(db, "read OpenSM's pid");
}

int store_routing_vls(struct store *st)
{
	sqlite3_stmt *s;
	int vls = 1, rc;

	if (sqlite3_prepare_v2(store_db(st), "SELECT vls FROM routing_runs WHERE result = "
			       "'ok' ORDER BY time DESC, id DESC LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_int(s, 0) > 1)
		vls = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? vls : -1;
}
