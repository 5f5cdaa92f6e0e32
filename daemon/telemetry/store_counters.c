/* daemon/telemetry/store_counters.c: see store_counters.h. */
#include "autoconf.h"
#include "daemon/telemetry/store_counters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/telemetry/store_alarms.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_int_t jint(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* ---- the JSON texts of a row --------------------------------------------------
 * A read of 70k ports writes four JSON texts per port: built here as text,
 * byte for byte what json_dumps(JSON_COMPACT | JSON_SORT_KEYS) writes for
 * the same objects (keys sorted by strcmp, jansson's real format), without
 * an object per counter (tests/unit/test_store_counters.c compares the two). */

struct text {
	char *p;
	size_t len, cap;
	int oom;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 1024;
		char *p;

		while (t->len + n + 1 > cap)
			cap *= 2;
		if (!(p = realloc(t->p, cap))) {
			t->oom = 1;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

static void text_puts(struct text *t, const char *s)
{
	text_add(t, s, strlen(s));
}

static void text_int(struct text *t, json_int_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, v);

	text_add(t, buf, (size_t)n);
}

/* A key jansson writes as it is (nothing to escape). */
static int plain_key(const char *k)
{
	for (; *k; k++)
		if (*k == '"' || *k == '\\' || (unsigned char)*k < 0x20)
			return 0;
	return 1;
}

/* '{' or ',', then "key": */
static void text_key(struct text *t, int first, const char *k)
{
	text_add(t, first ? "{\"" : ",\"", 2);
	text_puts(t, k);
	text_add(t, "\":", 2);
}

/* jansson's real: "%.17g", ".0" added when that reads as an integer, the
 * exponent without '+' and leading zeros. */
static void text_real(struct text *t, double v)
{
	char buf[64], *e;
	int n = snprintf(buf, sizeof(buf), "%.17g", v);

	if (n < 0 || (size_t)n + 3 >= sizeof(buf)) {
		t->oom = 1;
		return;
	}
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = '.';  /* a locale's decimal comma, as jansson undoes it */
	if (!strchr(buf, '.') && !strchr(buf, 'e'))
		strcat(buf, ".0");
	if ((e = strchr(buf, 'e'))) {
		char *start = e + 1, *end = e + 2;

		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start)
			memmove(start, end, strlen(end) + 1);
	}
	text_puts(t, buf);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A flat object of integers (a port's counters or widths) into t; 0, or
 * -EINVAL for any other object (the caller dumps that one). */
static int flat_ints(const json_t *o, struct text *t)
{
	const char *keys[64];
	size_t n = 0;
	const char *k;
	json_t *v;

	t->len = 0;
	if (!json_is_object(o) || json_object_size(o) > sizeof(keys) / sizeof(keys[0]))
		return -EINVAL;
	json_object_foreach((json_t *)o, k, v) {
		if (!json_is_integer(v) || !plain_key(k))
			return -EINVAL;
		keys[n++] = k;
	}
	qsort(keys, n, sizeof(keys[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		text_key(t, i == 0, keys[i]);
		text_int(t, json_integer_value(json_object_get(o, keys[i])));
	}
	text_puts(t, n ? "}" : "{}");
	return t->oom ? -ENOMEM : 0;
}

/* The texts of a port's row, and the counters in name order. */
struct texts {
	int order[PMA_N_COUNTERS];
	struct text counters, bits, deltas, rates;
};

static void texts_init(struct texts *x)
{
	const char *names[PMA_N_COUNTERS];

	memset(x, 0, sizeof(*x));
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		names[c] = pma_counter_name(c);
	qsort(names, PMA_N_COUNTERS, sizeof(names[0]), by_name);
	for (int i = 0; i < PMA_N_COUNTERS; i++)
		for (int c = 0; c < PMA_N_COUNTERS; c++)
			if (names[i] == pma_counter_name(c))
				x->order[i] = c;
}

static void texts_free(struct texts *x)
{
	free(x->counters.p);
	free(x->bits.p);
	free(x->deltas.p);
	free(x->rates.p);
}

/* Bind t (built: 0) or, when it could not be built, json_dumps of v. */
static void bind_text(sqlite3_stmt *s, int col, int built, const struct text *t,
		      const json_t *v)
{
	char *d;

	if (built == 0) {
		sqlite3_bind_text(s, col, t->p, (int)t->len, SQLITE_TRANSIENT);
		return;
	}
	d = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (d)
		sqlite3_bind_text(s, col, d, -1, free);
	else
		sqlite3_bind_null(s, col);
}

/* What each counter did from the stored sample (old, old_bits: JSON text
 * or NULL) to the new one, over dt seconds: x->deltas and x->rates, and
 * d_out[] (CDELTA_NOT_READ for a counter without a value). */
static int compare(const char *old_text, const char *old_bits_text, const char *old_cleared_text,
		   const json_t *cur, const json_t *cur_bits, double dt, struct texts *x,
		   struct cdelta d_out[PMA_N_COUNTERS])
{
	json_t *old = old_text ? json_loads(old_text, 0, NULL) : NULL;
	json_t *old_bits = old_bits_text ? json_loads(old_bits_text, 0, NULL) : NULL;
	json_t *cleared = old_cleared_text ? json_loads(old_cleared_text, 0, NULL) : NULL;
	const json_t *name_v;
	size_t k;
	int nd = 0, nr = 0;

	/* What loomd cleared after the stored sample counts from zero. */
	json_array_foreach(cleared, k, name_v) {
		const char *name = json_string_value(name_v);

		if (name && json_is_integer(json_object_get(old, name)))
			json_object_set_new(old, name, json_integer(0));
	}
	json_decref(cleared);

	x->deltas.len = x->rates.len = 0;
	for (int i = 0; i < PMA_N_COUNTERS; i++) {
		const int c = x->order[i];
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
		text_key(&x->deltas, nd++ == 0, name);
		text_puts(&x->deltas, "{\"delta\":");
		text_int(&x->deltas, (json_int_t)d.delta);
		text_puts(&x->deltas, ",\"state\":\"");
		text_puts(&x->deltas, cdelta_state_name(d.state));
		text_puts(&x->deltas, "\"}");
		/* json_real() takes no NaN or infinity: such a rate stays out. */
		if (cdelta_rate(&d, dt, &rate) == 0 && isfinite(rate)) {
			text_key(&x->rates, nr++ == 0, name);
			text_real(&x->rates, rate);
		}
	}
	text_puts(&x->deltas, nd ? "}" : "{}");
	text_puts(&x->rates, nr ? "}" : "{}");
	json_decref(old);
	json_decref(old_bits);
	return x->deltas.oom || x->rates.oom ? -ENOMEM : 0;
}

struct stmts {
	sqlite3_stmt *old, *put, *stale;
	struct store_alarms *alarms;
	const struct port_thresholds *t;
	struct texts x;
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
		const json_t *cur = json_object_get(p, "counters"), *bits = json_object_get(p, "bits");
		double dt = have && old ? now - sampled : 0;
		int c_built = flat_ints(cur, &q->x.counters), b_built = flat_ints(bits, &q->x.bits);

		r.interval_s = dt;
		if (c_built == -ENOMEM || b_built == -ENOMEM ||
		    compare(old, old_bits, old_cleared, cur, bits, dt, &q->x, r.d) < 0) {
			free(old);
			free(old_bits);
			free(old_cleared);
			return -ENOMEM;
		}
		sqlite3_bind_double(q->put, 10, now);
		bind_text(q->put, 16, -1, NULL, json_object_get(p, "cleared"));
		bind_text(q->put, 11, c_built, &q->x.counters, cur);
		bind_text(q->put, 12, b_built, &q->x.bits, bits);
		if (dt > 0)
			sqlite3_bind_double(q->put, 13, dt);
		else
			sqlite3_bind_null(q->put, 13);
		bind_text(q->put, 14, 0, &q->x.deltas, NULL);
		bind_text(q->put, 15, 0, &q->x.rates, NULL);
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

	texts_init(&q.x);

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
	texts_free(&q.x);
	return rc;
}

int store_record_counters(struct store *st, const char *subnet,
			  const struct port_thresholds *t, const json_t *done, const json_t *ports,
			  struct counters_recorded *out)
{
	sqlite3 *db = store_db(st);
	struct counters_recorded ignored;
	double t0 = clock_mono();
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
	else
		log_debug("subnet %s: %zu port counter rows written in %.0f ms", subnet,
			  json_array_size(ports), (clock_mono() - t0) * 1000.0);
	return rc;
}
