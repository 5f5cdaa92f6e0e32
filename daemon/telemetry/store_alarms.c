/* daemon/telemetry/store_alarms.c: see store_alarms.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_alarms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "lib/util/log.h"

struct store_alarms {
	struct store *st;
	sqlite3 *db;
	int64_t sid;
	struct port_thresholds t;
	double now;
	sqlite3_stmt *get, *put, *del;
	size_t raised, cleared;
};

struct store_alarms *store_alarms_new(struct store *st, int64_t subnet_id,
				      const struct port_thresholds *t, double now)
{
	struct store_alarms *a = calloc(1, sizeof(*a));

	if (!a) {
		log_err("counters: out of memory for the port alarms");
		return NULL;
	}
	a->st = st;
	a->db = store_db(st);
	a->sid = subnet_id;
	a->t = *t;
	a->now = now;
	if (sqlite3_prepare_v2(a->db, "SELECT kind, calm, why FROM port_alarms WHERE subnet_id = ? "
			       "AND guid = ? AND port = ?", -1, &a->get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a->db, "INSERT INTO port_alarms (subnet_id, guid, port, kind, since, "
			       "last, calm, why) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7) ON CONFLICT "
			       "DO UPDATE SET calm = ?6, last = CASE WHEN ?6 = 0 THEN ?5 ELSE last END, "
			       "why = CASE WHEN ?6 = 0 THEN ?7 ELSE why END", -1, &a->put,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a->db, "DELETE FROM port_alarms WHERE subnet_id = ? AND guid = ? "
			       "AND port = ? AND kind = ?", -1, &a->del, NULL) != SQLITE_OK) {
		store_db_fail(a->db, "prepare the port alarm statements");
		store_alarms_free(a);
		return NULL;
	}
	return a;
}

void store_alarms_free(struct store_alarms *a)
{
	if (!a)
		return;
	sqlite3_finalize(a->get);
	sqlite3_finalize(a->put);
	sqlite3_finalize(a->del);
	free(a);
}

/* The stored state of one port's alarms. */
struct port_state {
	int raised[PORT_ALARM_N], calm[PORT_ALARM_N];
	char why[PORT_ALARM_N][200];
};

static int load(struct store_alarms *a, const char *guid, int port, struct port_state *ps)
{
	int rc;

	memset(ps, 0, sizeof(*ps));
	sqlite3_bind_int64(a->get, 1, a->sid);
	sqlite3_bind_text(a->get, 2, guid, -1, SQLITE_STATIC);
	sqlite3_bind_int(a->get, 3, port);
	while ((rc = sqlite3_step(a->get)) == SQLITE_ROW) {
		int k = port_alarm_by_name((const char *)sqlite3_column_text(a->get, 0));
		const char *why = (const char *)sqlite3_column_text(a->get, 2);

		if (k < 0)
			continue;  /* a kind of a later loom: left alone */
		ps->raised[k] = 1;
		ps->calm[k] = sqlite3_column_int(a->get, 1);
		snprintf(ps->why[k], sizeof(ps->why[k]), "%s", why ? why : "");
	}
	sqlite3_reset(a->get);
	return rc == SQLITE_DONE ? 0 : store_db_fail(a->db, "read the port alarms");
}

static int event(struct store_alarms *a, enum port_alarm k, int raise, const char *subject,
		 const char *was, const char *why)
{
	char kind[64];

	snprintf(kind, sizeof(kind), "%s%s", port_alarm_name(k), raise ? "" : "_cleared");
	if (raise)
		log_warn("counters: %s: %s: %s", subject, port_alarm_name(k), why);
	else
		log_info("counters: %s: %s cleared", subject, port_alarm_name(k));
	return store_record_event(a->st, a->now, a->sid, raise ? "warning" : "info", kind, subject,
				  raise ? NULL : was, raise ? why : NULL);
}

int store_alarms_port(struct store_alarms *a, const char *guid, int port, const char *node,
		      const struct port_judgement *j)
{
	struct port_state ps;
	char subject[256];
	int rc;

	if ((rc = load(a, guid, port, &ps)) < 0)
		return rc;
	snprintf(subject, sizeof(subject), "port %s/%d (%s)", guid, port, node);
	for (int k = 0; k < PORT_ALARM_N; k++) {
		enum port_alarm_step step = port_alarm_step(&ps.raised[k], &ps.calm[k],
							    !!(j->known & (1u << k)),
							    !!(j->active & (1u << k)),
							    a->t.clear_after);
		sqlite3_stmt *s;

		if (step == PORT_ALARM_CLEAR) {
			s = a->del;
			sqlite3_bind_int64(s, 1, a->sid);
			sqlite3_bind_text(s, 2, guid, -1, SQLITE_STATIC);
			sqlite3_bind_int(s, 3, port);
			sqlite3_bind_text(s, 4, port_alarm_name(k), -1, SQLITE_STATIC);
			a->cleared++;
			if ((rc = event(a, k, 0, subject, ps.why[k], NULL)) < 0)
				return rc;
		} else if (ps.raised[k]) {
			/* Raised now, or still: its calm count and what it saw. */
			if (step == PORT_ALARM_RAISE) {
				a->raised++;
				if ((rc = event(a, k, 1, subject, NULL, j->why[k])) < 0)
					return rc;
			}
			s = a->put;
			sqlite3_bind_int64(s, 1, a->sid);
			sqlite3_bind_text(s, 2, guid, -1, SQLITE_STATIC);
			sqlite3_bind_int(s, 3, port);
			sqlite3_bind_text(s, 4, port_alarm_name(k), -1, SQLITE_STATIC);
			sqlite3_bind_double(s, 5, a->now);
			sqlite3_bind_int(s, 6, ps.calm[k]);
			sqlite3_bind_text(s, 7, ps.calm[k] ? ps.why[k] : j->why[k], -1, SQLITE_STATIC);
		} else {
			continue;
		}
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		if (rc != SQLITE_DONE)
			return store_db_fail(a->db, "write a port alarm");
	}
	return 0;
}

int store_alarms_finish(struct store_alarms *a, size_t *raised, size_t *cleared)
{
	sqlite3_stmt *s;
	int rc;

	if (raised)
		*raised = a->raised;
	if (cleared)
		*cleared = a->cleared;
	if (sqlite3_prepare_v2(a->db, "DELETE FROM port_alarms WHERE subnet_id = ?1 AND NOT EXISTS "
			       "(SELECT 1 FROM port_counters c WHERE c.subnet_id = ?1 AND "
			       "c.guid = port_alarms.guid AND c.port = port_alarms.port)", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(a->db, "prepare the port alarms clean-up");
	sqlite3_bind_int64(s, 1, a->sid);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(a->db, "forget the alarms of ports no longer cabled");
}
