/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_alarms.c: see store_alarms.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_alarms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "lib/db/job_db.h"
#include "lib/util/log.h"

struct store_alarms {
	struct store *st;
	sqlite3 *db;
	int eth;                      /* switch_port_alarms, keyed by switch and port name */
	int64_t sid;
	struct port_thresholds t;
	double now;
	sqlite3_stmt *get, *put, *del;
	size_t raised, cleared;
	/* The ports with an alarm stored when the read began ("NODE/PORT",
	 * sorted): a port not among them with nothing active costs no query,
	 * which is every port of a healthy fabric. */
	char **with;
	size_t n_with;
	struct job_index *jobs;       /* names the jobs in raise events; NULL: none */
	char subnet[64];
};

void store_alarms_set_jobs(struct store_alarms *a, struct job_index *jobs, const char *subnet)
{
	if (!a || a->eth)
		return;
	a->jobs = jobs;
	snprintf(a->subnet, sizeof(a->subnet), "%s", subnet ? subnet : "");
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void key_of(char *buf, size_t len, const char *node, int port, const char *port_name)
{
	if (port_name)
		snprintf(buf, len, "%s/%s", node, port_name);
	else
		snprintf(buf, len, "%s/%d", node, port);
}

/* The stored alarms' ports into a->with. */
static int load_keys(struct store_alarms *a, const char *table)
{
	char sql[160];
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	snprintf(sql, sizeof(sql), a->eth ? "SELECT DISTINCT switch, port FROM %s" :
		 "SELECT DISTINCT guid, port FROM %s WHERE subnet_id = ?1", table);
	if (sqlite3_prepare_v2(a->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(a->db, "read the stored port alarms");
	if (!a->eth)
		sqlite3_bind_int64(s, 1, a->sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char key[320];

		if (a->n_with == cap) {
			char **w = realloc(a->with, (cap = cap ? 2 * cap : 16) * sizeof(*w));

			if (!w) {
				sqlite3_finalize(s);
				return -ENOMEM;
			}
			a->with = w;
		}
		key_of(key, sizeof(key), (const char *)sqlite3_column_text(s, 0),
		       sqlite3_column_int(s, 1), a->eth ? (const char *)sqlite3_column_text(s, 1)
						: NULL);
		if (!(a->with[a->n_with] = strdup(key))) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
		a->n_with++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_db_fail(a->db, "read the stored port alarms");
	if (a->n_with)  /* qsort and bsearch take no NULL, even for 0 members */
		qsort(a->with, a->n_with, sizeof(*a->with), cmp_str);
	return 0;
}

static struct store_alarms *alarms_new(struct store *st, int eth, int64_t subnet_id,
				       const struct port_thresholds *t, double now)
{
	struct store_alarms *a = calloc(1, sizeof(*a));
	/* The same statements over either table: ?2 and ?3 are the key. */
	const char *table = eth ? "switch_port_alarms" : "port_alarms";
	const char *key = eth ? "switch = ?2 AND port = ?3" : "subnet_id = ?1 AND guid = ?2 AND port = ?3";
	const char *cols = eth ? "switch, port" : "subnet_id, guid, port";
	const char *vals = eth ? "?2, ?3" : "?1, ?2, ?3";
	char get[256], put[512], del[256];

	if (!a) {
		log_err("counters: out of memory for the port alarms");
		return NULL;
	}
	a->st = st;
	a->db = store_db(st);
	a->eth = eth;
	a->sid = subnet_id;
	a->t = *t;
	a->now = now;
	snprintf(get, sizeof(get), "SELECT kind, calm, why FROM %s WHERE %s", table, key);
	snprintf(put, sizeof(put), "INSERT INTO %s (%s, kind, since, last, calm, why) VALUES "
		 "(%s, ?4, ?5, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET calm = ?6, last = CASE WHEN "
		 "?6 = 0 THEN ?5 ELSE last END, why = CASE WHEN ?6 = 0 THEN ?7 ELSE why END",
		 table, cols, vals);
	snprintf(del, sizeof(del), "DELETE FROM %s WHERE %s AND kind = ?4", table, key);
	if (sqlite3_prepare_v2(a->db, get, -1, &a->get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a->db, put, -1, &a->put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a->db, del, -1, &a->del, NULL) != SQLITE_OK) {
		store_db_fail(a->db, "prepare the port alarm statements");
		store_alarms_free(a);
		return NULL;
	}
	if (load_keys(a, table) < 0) {
		log_err("counters: cannot read the stored port alarms");
		store_alarms_free(a);
		return NULL;
	}
	return a;
}

struct store_alarms *store_alarms_new(struct store *st, int64_t subnet_id,
				      const struct port_thresholds *t, double now)
{
	return alarms_new(st, 0, subnet_id, t, now);
}

struct store_alarms *store_alarms_new_eth(struct store *st, const struct port_thresholds *t,
					  double now)
{
	return alarms_new(st, 1, 0, t, now);
}

/* The key of a port into s: ?1 subnet (IB), ?2 node GUID or switch, ?3
 * port number (IB) or name. */
static void bind_key(const struct store_alarms *a, sqlite3_stmt *s, const char *node,
		     int port, const char *port_name)
{
	if (!a->eth)
		sqlite3_bind_int64(s, 1, a->sid);
	sqlite3_bind_text(s, 2, node, -1, SQLITE_STATIC);
	if (a->eth)
		sqlite3_bind_text(s, 3, port_name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int(s, 3, port);
}

void store_alarms_free(struct store_alarms *a)
{
	if (!a)
		return;
	sqlite3_finalize(a->get);
	sqlite3_finalize(a->put);
	sqlite3_finalize(a->del);
	for (size_t i = 0; i < a->n_with; i++)
		free(a->with[i]);
	free(a->with);
	free(a);
}

/* The stored state of one port's alarms. */
struct port_state {
	int raised[PORT_ALARM_N], calm[PORT_ALARM_N];
	char why[PORT_ALARM_N][200];
};

static int load(struct store_alarms *a, const char *node, int port, const char *port_name,
		struct port_state *ps)
{
	int rc;

	memset(ps, 0, sizeof(*ps));
	bind_key(a, a->get, node, port, port_name);
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
		 const char *was, const char *why, const char *node, int port)
{
	char kind[64], names[512], with_jobs[1024];

	snprintf(kind, sizeof(kind), "%s%s", port_alarm_name(k), raise ? "" : "_cleared");
	/* The jobs on the link: for congestion, those it sends for. */
	if (raise && a->jobs && node &&
	    job_index_names_at(a->jobs, a->subnet, strtoull(node, NULL, 16), (unsigned)port,
			       k == PORT_ALARM_LINK_CONGESTED, names, sizeof(names))[0]) {
		snprintf(with_jobs, sizeof(with_jobs), "%s; jobs: %s", why, names);
		why = with_jobs;
	}
	/* A raise is a warning event, which daemon/events logs. */
	if (!raise)
		log_info("counters: %s: %s cleared", subject, port_alarm_name(k));
	return store_record_event(a->st, a->now, a->eth ? 0 : a->sid, raise ? "warning" : "info",
				  kind, subject,
				  raise ? NULL : was, raise ? why : NULL);
}

/* One port's step: node and port (IB: GUID and number) or port_name
 * (Ethernet: the switch and its port's name); subject names it in events. */
static int step(struct store_alarms *a, const char *node, int port, const char *port_name,
		const char *subject, const struct port_judgement *j)
{
	struct port_state ps;
	char key[320], *kp = key;
	int rc;

	key_of(key, sizeof(key), node, port, port_name);
	if (!j->active &&
	    (!a->n_with || !bsearch(&kp, a->with, a->n_with, sizeof(*a->with), cmp_str)))
		return 0;  /* nothing stored, nothing raised: nothing to do */
	if ((rc = load(a, node, port, port_name, &ps)) < 0)
		return rc;
	for (int k = 0; k < PORT_ALARM_N; k++) {
		enum port_alarm_step next = port_alarm_step(&ps.raised[k], &ps.calm[k],
							    !!(j->known & (1u << k)),
							    !!(j->active & (1u << k)),
							    a->t.clear_after);
		sqlite3_stmt *s;

		if (next == PORT_ALARM_CLEAR) {
			s = a->del;
			bind_key(a, s, node, port, port_name);
			sqlite3_bind_text(s, 4, port_alarm_name(k), -1, SQLITE_STATIC);
			a->cleared++;
			if ((rc = event(a, k, 0, subject, ps.why[k], NULL, NULL, 0)) < 0)
				return rc;
		} else if (ps.raised[k]) {
			/* Raised now, or still: its calm count and what it saw. */
			if (next == PORT_ALARM_RAISE) {
				a->raised++;
				if ((rc = event(a, k, 1, subject, NULL, j->why[k],
						port_name ? NULL : node, port)) < 0)
					return rc;
			}
			s = a->put;
			bind_key(a, s, node, port, port_name);
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

int store_alarms_port(struct store_alarms *a, const char *guid, int port, const char *node,
		      const struct port_judgement *j)
{
	char subject[256];

	snprintf(subject, sizeof(subject), "port %s/%d (%s)", guid, port, node);
	return step(a, guid, port, NULL, subject, j);
}

int store_alarms_switch_port(struct store_alarms *a, const char *sw, const char *port,
			     const struct port_judgement *j)
{
	char subject[256];

	snprintf(subject, sizeof(subject), "switch %s port %s", sw, port);
	return step(a, sw, 0, port, subject, j);
}

int store_alarms_finish(struct store_alarms *a, size_t *raised, size_t *cleared)
{
	sqlite3_stmt *s;
	int rc;

	if (raised)
		*raised = a->raised;
	if (cleared)
		*cleared = a->cleared;
	if (a->eth) {
		/* Ports the switches no longer report: no counters row. */
		if (sqlite3_prepare_v2(a->db, "DELETE FROM switch_port_alarms WHERE NOT EXISTS "
				       "(SELECT 1 FROM switch_port_counters c WHERE c.switch = "
				       "switch_port_alarms.switch AND c.port = switch_port_alarms.port)",
				       -1, &s, NULL) != SQLITE_OK)
			return store_db_fail(a->db, "prepare the switch port alarms clean-up");
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		return rc == SQLITE_DONE ? 0 : store_db_fail(a->db, "forget the alarms of ports no "
							       "longer reported");
	}
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
