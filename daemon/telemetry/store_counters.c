/* daemon/telemetry/store_counters.c: see store_counters.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_alarms.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_int_t jint(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* What each counter did from the stored sample (old, old_bits: JSON text
 * or NULL) to the new one, over dt seconds: *deltas and *rates (new), and
 * d[] (CDELTA_NOT_READ for a counter without a value). */
static int compare(const char *old_text, const char *old_bits_text, const char *old_cleared_text,
		   const json_t *cur, const json_t *cur_bits, double dt, json_t **deltas,
		   json_t **rates, struct cdelta d_out[PMA_N_COUNTERS])
{
	json_t *old = old_text ? json_loads(old_text, 0, NULL) : NULL;
	json_t *old_bits = old_bits_text ? json_loads(old_bits_text, 0, NULL) : NULL;
	json_t *cleared = old_cleared_text ? json_loads(old_cleared_text, 0, NULL) : NULL;
	const json_t *name_v;
	size_t k;

	/* What loomd cleared after the stored sample counts from zero. */
	json_array_foreach(cleared, k, name_v) {
		const char *name = json_string_value(name_v);

		if (name && json_is_integer(json_object_get(old, name)))
			json_object_set_new(old, name, json_integer(0));
	}
	json_decref(cleared);

	*deltas = json_object();
	*rates = json_object();
	for (int c = 0; c < PMA_N_COUNTERS && *deltas && *rates; c++) {
		const char *name = pma_counter_name(c);
		json_t *ov = json_object_get(old, name), *nv = json_object_get(cur, name);
		struct cdelta d;
		double rate;

		d_out[c] = (struct cdelta){ CDELTA_NOT_READ, 0 };
		if (!json_is_integer(nv))
			continue;
		d = cdelta_of((uint64_t)json_integer_value(ov),
			      json_is_integer(ov) ? (unsigned)jint(old_bits, name) : 0,
			      (uint64_t)json_integer_value(nv), (unsigned)jint(cur_bits, name));
		d_out[c] = d;
		json_object_set_new(*deltas, name,
				    json_pack("{s:s, s:I}", "state", cdelta_state_name(d.state),
					      "delta", (json_int_t)d.delta));
		if (cdelta_rate(&d, dt, &rate) == 0)
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
	sqlite3_stmt *old, *put, *stale;
	struct store_alarms *alarms;
	const struct port_thresholds *t;
};

/* The port's alarms, judged on what this read found (r). */
static int judge(struct stmts *q, const json_t *p, const char *guid, int port,
		 struct port_reading *r)
{
	struct port_judgement j;

	port_alarms_judge(q->t, r, &j);
	return store_alarms_port(q->alarms, guid, port, jstr(p, "node"), &j);
}

static int record_port(sqlite3 *db, struct stmts *q, int64_t sid, const json_t *p, double now)
{
	const char *guid = jstr(p, "guid");
	int port = (int)jint(p, "port"), answered = json_is_true(json_object_get(p, "answered"));
	char *old = NULL, *old_bits = NULL, *old_cleared = NULL;
	double sampled = 0;
	int have = 0, rc;
	struct port_reading r = { .answered = answered, .reason = jstr(p, "reason") };

	sqlite3_bind_int64(q->old, 1, sid);
	sqlite3_bind_text(q->old, 2, guid, -1, SQLITE_STATIC);
	sqlite3_bind_int(q->old, 3, port);
	if ((rc = sqlite3_step(q->old)) == SQLITE_ROW) {
		have = 1;
		sampled = sqlite3_column_double(q->old, 2);
		if (sqlite3_column_type(q->old, 0) == SQLITE_TEXT) {
			old = strdup((const char *)sqlite3_column_text(q->old, 0));
			old_bits = strdup((const char *)sqlite3_column_text(q->old, 1));
		}
		if (sqlite3_column_type(q->old, 3) == SQLITE_TEXT)
			old_cleared = strdup((const char *)sqlite3_column_text(q->old, 3));
	}
	sqlite3_reset(q->old);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_db_fail(db, "read port counters");
	if (!answered && have) {
		/* Stale: the last sample stays, the row says why. */
		sqlite3_bind_double(q->stale, 1, now);
		sqlite3_bind_text(q->stale, 2, jstr(p, "reason"), -1, SQLITE_STATIC);
		sqlite3_bind_int64(q->stale, 3, sid);
		sqlite3_bind_text(q->stale, 4, guid, -1, SQLITE_STATIC);
		sqlite3_bind_int(q->stale, 5, port);
		rc = sqlite3_step(q->stale);
		sqlite3_reset(q->stale);
		free(old);
		free(old_bits);
		free(old_cleared);
		if (rc != SQLITE_DONE)
			return store_db_fail(db, "mark port counters stale");
		return judge(q, p, guid, port, &r);
	}
	sqlite3_bind_int64(q->put, 1, sid);
	sqlite3_bind_text(q->put, 2, guid, -1, SQLITE_STATIC);
	sqlite3_bind_int(q->put, 3, port);
	sqlite3_bind_text(q->put, 4, jstr(p, "node"), -1, SQLITE_STATIC);
	sqlite3_bind_text(q->put, 5, jstr(p, "type"), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q->put, 6, jint(p, "lid"));
	sqlite3_bind_double(q->put, 7, now);
	sqlite3_bind_int(q->put, 8, answered);
	sqlite3_bind_text(q->put, 9, jstr(p, "reason"), -1, SQLITE_STATIC);
	if (answered) {
		json_t *deltas = NULL, *rates = NULL;
		const json_t *cur = json_object_get(p, "counters"), *bits = json_object_get(p, "bits");
		double dt = have && old ? now - sampled : 0;

		r.interval_s = dt;
		if (compare(old, old_bits, old_cleared, cur, bits, dt, &deltas, &rates, r.d) < 0) {
			free(old);
			free(old_bits);
			free(old_cleared);
			return -ENOMEM;
		}
		sqlite3_bind_double(q->put, 10, now);
		bind_json(q->put, 16, json_object_get(p, "cleared"));
		bind_json(q->put, 11, cur);
		bind_json(q->put, 12, bits);
		if (dt > 0)
			sqlite3_bind_double(q->put, 13, dt);
		else
			sqlite3_bind_null(q->put, 13);
		bind_json(q->put, 14, deltas);
		bind_json(q->put, 15, rates);
		json_decref(deltas);
		json_decref(rates);
	} else {
		for (int col = 10; col <= 16; col++)
			sqlite3_bind_null(q->put, col);
	}
	free(old);
	free(old_bits);
	free(old_cleared);
	rc = sqlite3_step(q->put);
	sqlite3_reset(q->put);
	sqlite3_clear_bindings(q->put);
	if (rc != SQLITE_DONE)
		return store_db_fail(db, "write port counters");
	return judge(q, p, guid, port, &r);
}

static int record(struct store *st, int64_t sid, const struct port_thresholds *t,
		  const json_t *done, const json_t *ports, struct counters_recorded *out)
{
	sqlite3 *db = store_db(st);
	double now = json_number_value(json_object_get(done, "finished"));
	struct stmts q = { .t = t };
	sqlite3_stmt *s = NULL;
	const json_t *p;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO counter_reads (subnet_id, started, "
			       "finished, ports, answered, mads, timeout_ms, retries, in_flight) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT counters, bits, sampled, cleared FROM port_counters WHERE "
			       "subnet_id = ? AND guid = ? AND port = ?", -1, &q.old, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO port_counters (subnet_id, guid, port, "
			       "description, type, lid, read, answered, reason, sampled, counters, "
			       "bits, interval_s, deltas, rates, cleared) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
			       "?, ?, ?, ?, ?, ?, ?, ?)", -1, &q.put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE port_counters SET read = ?, answered = 0, reason = ? "
			       "WHERE subnet_id = ? AND guid = ? AND port = ?", -1, &q.stale,
			       NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "prepare the counters statements");
		goto out;
	}
	if (!(q.alarms = store_alarms_new(st, sid, t, now))) {
		rc = -ENOMEM;
		goto out;
	}
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_double(s, 2, json_number_value(json_object_get(done, "started")));
	sqlite3_bind_double(s, 3, now);
	sqlite3_bind_int64(s, 4, jint(done, "ports"));
	sqlite3_bind_int64(s, 5, jint(done, "answered"));
	sqlite3_bind_int64(s, 6, jint(done, "mads"));
	sqlite3_bind_int64(s, 7, jint(done, "timeout_ms"));
	sqlite3_bind_int64(s, 8, jint(done, "retries"));
	sqlite3_bind_int64(s, 9, jint(done, "in_flight"));
	if (sqlite3_step(s) != SQLITE_DONE) {
		rc = store_db_fail(db, "write the counters read");
		goto out;
	}
	json_array_foreach(ports, i, p) {
		if (!json_is_true(json_object_get(p, "answered")))
			out->stale++;
		if ((rc = record_port(db, &q, sid, p, now)) < 0)
			goto out;
	}
	sqlite3_finalize(s);
	/* Ports this read did not ask for are no longer cabled. */
	if (sqlite3_prepare_v2(db, "DELETE FROM port_counters WHERE subnet_id = ? AND read <> ?",
			       -1, &s, NULL) != SQLITE_OK) {
		s = NULL;
		rc = store_db_fail(db, "prepare the counters clean-up");
		goto out;
	}
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_double(s, 2, now);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = store_db_fail(db, "forget ports no longer cabled");
	else
		rc = store_alarms_finish(q.alarms, &out->raised, &out->cleared);
out:
	store_alarms_free(q.alarms);
	sqlite3_finalize(s);
	sqlite3_finalize(q.old);
	sqlite3_finalize(q.put);
	sqlite3_finalize(q.stale);
	return rc;
}

int store_record_counters(struct store *st, const char *subnet,
			  const struct port_thresholds *t, const json_t *done, const json_t *ports,
			  struct counters_recorded *out)
{
	sqlite3 *db = store_db(st);
	struct counters_recorded ignored;
	int64_t sid;
	int rc;

	if (!out)
		out = &ignored;
	memset(out, 0, sizeof(*out));
	if ((sid = store_subnet_id(st, subnet)) <= 0)
		return sid < 0 ? (int)sid : -ENOENT;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin the counters transaction");
	rc = record(st, sid, t, done, ports, out);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the counters");
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
