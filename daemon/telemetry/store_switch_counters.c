/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_switch_counters.c: see store_switch_counters.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_switch_counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_alarms.h"
#include "lib/telemetry/eth_alarms.h"
#include "lib/telemetry/counter_delta.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* What each counter of cur did since old (JSON texts or NULL) over dt
 * seconds (0: no earlier sample). */
static int compare(const char *old_text, const char *old_bits_text, const json_t *cur,
		   const json_t *cur_bits, double dt, json_t **deltas, json_t **rates)
{
	json_t *old = old_text ? json_loads(old_text, 0, NULL) : NULL;
	json_t *old_bits = old_bits_text ? json_loads(old_bits_text, 0, NULL) : NULL;
	const char *name;
	json_t *nv;

	*deltas = json_object();
	*rates = json_object();
	json_object_foreach((json_t *)cur, name, nv) {
		json_t *ov = json_object_get(old, name);
		unsigned bits = (unsigned)json_integer_value(json_object_get(cur_bits, name));
		struct cdelta d;
		double rate;

		if (!*deltas || !*rates)
			break;
		if (!json_is_integer(nv))
			continue;
		d = cdelta_of((uint64_t)json_integer_value(ov),
			      json_is_integer(ov) && dt > 0 ?
			      (unsigned)json_integer_value(json_object_get(old_bits, name)) : 0,
			      (uint64_t)json_integer_value(nv), bits);
		json_object_set_new(*deltas, name,
				    json_pack("{s:s, s:I}", "state", cdelta_state_name(d.state),
					      "delta", (json_int_t)d.delta));
		if (dt > 0 && cdelta_rate(&d, dt, &rate) == 0)
			json_object_set_new(*rates, name, json_real(rate));
	}
	json_decref(old);
	json_decref(old_bits);
	if (!*deltas || !*rates) {
		json_decref(*deltas);
		json_decref(*rates);
		return -ENOMEM;
	}
	return 0;
}

static void bind_json(sqlite3_stmt *s, int col, const json_t *v)
{
	char *t = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	if (t)
		sqlite3_bind_text(s, col, t, -1, free);
	else
		sqlite3_bind_null(s, col);
}

struct stmts {
	sqlite3_stmt *old, *put, *stale, *stale_all, *read;
};

/* One port for the observer; deltas, rates, gauges borrowed (NULL: none). */
static void observe(json_t *observed, const char *sw, const char *port, int answered,
		    const char *reason, double dt, const json_t *deltas, const json_t *rates,
		    const json_t *gauges)
{
	json_t *o;

	if (!observed)
		return;
	o = json_pack("{s:s, s:s, s:b, s:s, s:o, s:o, s:o, s:o}", "switch", sw, "port", port,
		      "answered", answered, "reason", reason, "interval_s",
		      dt > 0 ? json_real(dt) : json_null(),
		      "deltas", deltas ? json_deep_copy(deltas) : json_object(),
		      "rates", rates ? json_deep_copy(rates) : json_object(),
		      "gauges", gauges ? json_deep_copy(gauges) : json_object());
	if (o)
		json_array_append_new(observed, o);
}

static int record_port(sqlite3 *db, struct stmts *q, const char *sw, const char *port,
		       const json_t *p, double sampled, double now, json_t *observed)
{
	const char *error = json_string_value(json_object_get(p, "error"));
	char *old = NULL, *old_bits = NULL;
	double old_sampled = 0;
	int have = 0, rc;

	sqlite3_bind_text(q->old, 1, sw, -1, SQLITE_STATIC);
	sqlite3_bind_text(q->old, 2, port, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(q->old)) == SQLITE_ROW) {
		have = 1;
		old_sampled = sqlite3_column_double(q->old, 2);
		if (sqlite3_column_type(q->old, 0) == SQLITE_TEXT) {
			old = strdup((const char *)sqlite3_column_text(q->old, 0));
			old_bits = strdup((const char *)sqlite3_column_text(q->old, 1));
		}
	}
	sqlite3_reset(q->old);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_db_fail(db, "read switch port counters");
	if (error && have) {
		/* Stale: the last sample stays, the row says why. */
		sqlite3_bind_double(q->stale, 1, now);
		sqlite3_bind_text(q->stale, 2, error, -1, SQLITE_STATIC);
		sqlite3_bind_text(q->stale, 3, sw, -1, SQLITE_STATIC);
		sqlite3_bind_text(q->stale, 4, port, -1, SQLITE_STATIC);
		rc = sqlite3_step(q->stale);
		sqlite3_reset(q->stale);
		free(old);
		free(old_bits);
		observe(observed, sw, port, 0, error, 0, NULL, NULL, NULL);
		return rc == SQLITE_DONE ? 0 : store_db_fail(db, "mark switch port counters stale");
	}
	sqlite3_bind_text(q->put, 1, sw, -1, SQLITE_STATIC);
	sqlite3_bind_text(q->put, 2, port, -1, SQLITE_STATIC);
	sqlite3_bind_double(q->put, 3, now);
	sqlite3_bind_int(q->put, 4, !error);
	sqlite3_bind_text(q->put, 5, error ? error : "", -1, SQLITE_STATIC);
	if (!error) {
		json_t *deltas = NULL, *rates = NULL;
		const json_t *cur = json_object_get(p, "counters"), *bits = json_object_get(p, "bits");
		double dt = old ? sampled - old_sampled : 0;

		if (dt < 0)
			dt = 0;         /* a clock stepped back: no rate this time */
		if (compare(old, old_bits, cur, bits, dt, &deltas, &rates) < 0) {
			free(old);
			free(old_bits);
			return -ENOMEM;
		}
		sqlite3_bind_double(q->put, 6, sampled);
		bind_json(q->put, 7, cur);
		bind_json(q->put, 8, bits);
		bind_json(q->put, 9, json_object_get(p, "gauges"));
		if (dt > 0)
			sqlite3_bind_double(q->put, 10, dt);
		else
			sqlite3_bind_null(q->put, 10);
		bind_json(q->put, 11, deltas);
		bind_json(q->put, 12, rates);
		observe(observed, sw, port, 1, "", dt, deltas, rates, json_object_get(p, "gauges"));
		json_decref(deltas);
		json_decref(rates);
	} else {
		for (int col = 6; col <= 12; col++)
			sqlite3_bind_null(q->put, col);
		observe(observed, sw, port, 0, error, 0, NULL, NULL, NULL);
	}
	free(old);
	free(old_bits);
	rc = sqlite3_step(q->put);
	sqlite3_reset(q->put);
	sqlite3_clear_bindings(q->put);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write switch port counters");
}

/* The switch gave nothing: every port it had keeps its counters, stale. */
static int record_silent(sqlite3 *db, struct stmts *q, const char *sw, const char *reason,
			 double now, json_t *observed)
{
	sqlite3_stmt *s;
	int rc;

	sqlite3_bind_double(q->stale_all, 1, now);
	sqlite3_bind_text(q->stale_all, 2, reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(q->stale_all, 3, sw, -1, SQLITE_STATIC);
	rc = sqlite3_step(q->stale_all);
	sqlite3_reset(q->stale_all);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "mark a switch's counters stale");
	if (!observed)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT port FROM switch_port_counters WHERE switch = ? "
			       "ORDER BY port", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "list a switch's ports");
	sqlite3_bind_text(s, 1, sw, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		observe(observed, sw, (const char *)sqlite3_column_text(s, 0), 0, reason, 0,
			NULL, NULL, NULL);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "list a switch's ports");
}

static int record_switch(sqlite3 *db, struct stmts *q, const json_t *r, double now,
			 json_t *observed)
{
	const char *sw = jstr(r, "switch"), *name;
	int answered = json_is_true(json_object_get(r, "answered"));
	const json_t *ports = json_object_get(r, "ports"), *p;
	double sampled = json_number_value(json_object_get(r, "finished"));
	json_int_t n = 0, bad = 0;
	int rc = 0;

	if (!answered)
		rc = record_silent(db, q, sw, jstr(r, "reason"), now, observed);
	json_object_foreach((json_t *)ports, name, p) {
		if (!answered || rc)
			break;
		if (json_object_get(p, "error"))
			bad++;
		else
			n++;
		rc = record_port(db, q, sw, name, p, sampled, now, observed);
	}
	if (rc)
		return rc;
	sqlite3_bind_text(q->read, 1, sw, -1, SQLITE_STATIC);
	sqlite3_bind_text(q->read, 2, jstr(r, "plugin"), -1, SQLITE_STATIC);
	sqlite3_bind_double(q->read, 3, json_number_value(json_object_get(r, "started")));
	sqlite3_bind_double(q->read, 4, sampled);
	sqlite3_bind_int(q->read, 5, answered);
	sqlite3_bind_text(q->read, 6, jstr(r, "reason"), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q->read, 7, n);
	sqlite3_bind_int64(q->read, 8, bad);
	rc = sqlite3_step(q->read);
	sqlite3_reset(q->read);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write a switch counters read");
}

static int record(sqlite3 *db, const json_t *reads, double now, json_t *observed)
{
	struct stmts q = { NULL, NULL, NULL, NULL, NULL };
	sqlite3_stmt *s = NULL;
	const json_t *r;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT counters, bits, sampled FROM switch_port_counters "
			       "WHERE switch = ? AND port = ?", -1, &q.old, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO switch_port_counters (switch, port, "
			       "read, answered, reason, sampled, counters, bits, gauges, "
			       "interval_s, deltas, rates) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
			       "?, ?)", -1, &q.put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE switch_port_counters SET read = ?, answered = 0, "
			       "reason = ? WHERE switch = ? AND port = ?", -1, &q.stale,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE switch_port_counters SET read = ?1, answered = 0, "
			       "reason = ?2 WHERE switch = ?3", -1, &q.stale_all, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO switch_counter_reads (switch, plugin, "
			       "started, finished, answered, reason, ports, port_errors) VALUES "
			       "(?, ?, ?, ?, ?, ?, ?, ?)", -1, &q.read, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "prepare the switch counters statements");
		goto out;
	}
	json_array_foreach(reads, i, r)
		if ((rc = record_switch(db, &q, r, now, observed)) < 0)
			goto out;
	/* What this read did not touch: ports a switch no longer reports,
	 * switches no longer configured. */
	if (sqlite3_prepare_v2(db, "DELETE FROM switch_port_counters WHERE read <> ?1", -1, &s, NULL) != SQLITE_OK) {
		s = NULL;
		rc = store_db_fail(db, "prepare the switch counters clean-up");
		goto out;
	}
	sqlite3_bind_double(s, 1, now);
	if (sqlite3_step(s) != SQLITE_DONE) {
		rc = store_db_fail(db, "forget switch ports no longer reported");
		goto out;
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "DELETE FROM switch_counter_reads WHERE switch NOT IN (SELECT "
			       "json_extract(value, '$.switch') FROM json_each(?1))", -1, &s, NULL) != SQLITE_OK) {
		s = NULL;
		rc = store_db_fail(db, "prepare the switch counters clean-up");
		goto out;
	}
	bind_json(s, 1, reads);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = store_db_fail(db, "forget switches no longer configured");
out:
	sqlite3_finalize(s);
	sqlite3_finalize(q.old);
	sqlite3_finalize(q.put);
	sqlite3_finalize(q.stale);
	sqlite3_finalize(q.stale_all);
	sqlite3_finalize(q.read);
	return rc;
}

/* Each recorded port's alarms (lib/telemetry/eth_alarms.h), in the same
 * transaction. */
static int judge(struct store *st, const struct port_thresholds *t, const json_t *observed,
		 double now, size_t *raised, size_t *cleared)
{
	struct store_alarms *a = store_alarms_new_eth(st, t, now);
	const json_t *p;
	size_t i;
	int rc = 0;

	if (!a)
		return -ENOMEM;
	json_array_foreach(observed, i, p) {
		struct port_judgement j;

		eth_alarms_judge(t, p, &j);
		if ((rc = store_alarms_switch_port(a, jstr(p, "switch"), jstr(p, "port"), &j)) < 0)
			break;
	}
	if (rc == 0)
		rc = store_alarms_finish(a, raised, cleared);
	store_alarms_free(a);
	return rc;
}

int store_record_switch_counters(struct store *st, const struct port_thresholds *t,
				 const json_t *reads, double now, json_t *observed)
{
	sqlite3 *db = store_db(st);
	json_t *mine = NULL;
	size_t raised = 0, cleared = 0;
	int rc;

	if (t && !observed && !(observed = mine = json_array()))
		return -ENOMEM;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		json_decref(mine);
		return store_db_fail(db, "begin the switch counters transaction");
	}
	rc = record(db, reads, now, observed);
	if (rc == 0 && t)
		rc = judge(st, t, observed, now, &raised, &cleared);
	json_decref(mine);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the switch counters");
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
