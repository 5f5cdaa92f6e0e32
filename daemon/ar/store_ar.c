/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/store_ar.c: the adaptive-routing probe of a subnet in the database
 * (see store_ar.h). One transaction per probe, on the caller's connection
 * (a request thread's own, as route check's). */
#include "autoconf.h"
#include "daemon/ar/store_ar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/util/log.h"
#include "daemon/core/store.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* An integer or boolean member bound as such, null or missing as NULL. */
static void bind_json(sqlite3_stmt *s, int col, const json_t *v)
{
	if (json_is_integer(v))
		sqlite3_bind_int64(s, col, json_integer_value(v));
	else if (json_is_boolean(v))
		sqlite3_bind_int(s, col, json_is_true(v));
	else
		sqlite3_bind_null(s, col);
}

/* The stored "supported" of a switch: 0 / 1, or -1 when it has no row. */
static int old_supported(sqlite3 *db, sqlite3_stmt *s, int64_t sid, const char *guid, int *old)
{
	int rc;

	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*old = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	sqlite3_reset(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_db_fail(db, "read AR switch");
}

static int upsert(sqlite3 *db, sqlite3_stmt *s, int64_t sid, const json_t *sw, double probed)
{
	const json_t *caps = json_object_get(sw, "caps");
	char *caps_text = json_is_object(caps) ? json_dumps(caps, JSON_COMPACT) : NULL;
	int rc;

	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, jstr(sw, "guid"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, jstr(sw, "desc"), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, json_integer_value(json_object_get(sw, "lid")));
	sqlite3_bind_int(s, 5, json_is_true(json_object_get(sw, "supported")));
	bind_json(s, 6, json_object_get(sw, "enabled"));
	bind_json(s, 7, json_object_get(sw, "groups_used"));
	bind_json(s, 8, json_object_get(sw, "group_cap"));
	sqlite3_bind_text(s, 9, jstr(sw, "reason"), -1, SQLITE_STATIC);
	bind_json(s, 10, json_object_get(sw, "mad_status"));
	if (caps_text)
		sqlite3_bind_text(s, 11, caps_text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 11);
	sqlite3_bind_double(s, 12, probed);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	free(caps_text);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write AR switch");
}

/* The event of a switch whose capability is new or changed. */
static int change_event(struct store *st, int64_t sid, double time, const json_t *sw, int old,
			size_t *n_events)
{
	char subject[320], text[640];
	int now = json_is_true(json_object_get(sw, "supported"));

	if (old == now)
		return 0;
	snprintf(subject, sizeof(subject), "%s (%s)", jstr(sw, "guid"), jstr(sw, "desc"));
	if (now)
		snprintf(text, sizeof(text), "AR supported: %s; static routing stays until "
			 "`loomctl ar program`", jstr(sw, "reason"));
	else
		snprintf(text, sizeof(text), "AR unsupported: %s; left on static routing",
			 jstr(sw, "reason"));
	if (n_events)
		(*n_events)++;
	/* A switch losing AR it had is worth a warning; a first finding is not. */
	return store_record_event(st, time, sid, now ? (old < 0 ? "info" : "notice") :
				  (old < 0 ? "notice" : "warning"),
				  now ? "ar_supported" : "ar_unsupported", subject,
				  old < 0 ? "" : old ? "supported" : "unsupported", text);
}

static int probe_row(sqlite3 *db, int64_t sid, const json_t *probe, double finished)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO ar_probes (subnet_id, started, "
			       "finished, switches, smps, timeout_ms, retries, in_flight) VALUES "
			       "(?, ?, ?, ?, ?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "write AR probe");
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_double(s, 2, json_number_value(json_object_get(probe, "started")));
	sqlite3_bind_double(s, 3, finished);
	sqlite3_bind_int64(s, 4, json_integer_value(json_object_get(probe, "switches")));
	sqlite3_bind_int64(s, 5, json_integer_value(json_object_get(probe, "smps")));
	sqlite3_bind_int64(s, 6, json_integer_value(json_object_get(probe, "timeout_ms")));
	sqlite3_bind_int64(s, 7, json_integer_value(json_object_get(probe, "retries")));
	sqlite3_bind_int64(s, 8, json_integer_value(json_object_get(probe, "in_flight")));
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write AR probe");
}

static int record(struct store *st, int64_t sid, const json_t *probe, const json_t *switches,
		  size_t *n_events)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *get = NULL, *put = NULL, *drop = NULL;
	double finished = json_number_value(json_object_get(probe, "finished"));
	const json_t *sw;
	size_t i;
	int rc = 0, old;

	if (sqlite3_prepare_v2(db, "SELECT supported FROM ar_switches WHERE subnet_id = ? AND "
			       "guid = ?", -1, &get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO ar_switches (subnet_id, guid, "
			       "description, lid, supported, enabled, groups_used, group_cap, "
			       "reason, mad_status, caps, probed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
			       "?, ?, ?, ?)", -1, &put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM ar_switches WHERE subnet_id = ? AND probed <> ?",
			       -1, &drop, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "prepare AR statements");
		goto out;
	}
	json_array_foreach(switches, i, sw) {
		if ((rc = old_supported(db, get, sid, jstr(sw, "guid"), &old)) < 0 ||
		    (rc = upsert(db, put, sid, sw, finished)) < 0 ||
		    (rc = change_event(st, sid, finished, sw, old, n_events)) < 0)
			goto out;
	}
	/* Switches gone from the fabric since the last probe. */
	sqlite3_bind_int64(drop, 1, sid);
	sqlite3_bind_double(drop, 2, finished);
	if (sqlite3_step(drop) != SQLITE_DONE)
		rc = store_db_fail(db, "drop AR switches");
	else
		rc = probe_row(db, sid, probe, finished);
out:
	sqlite3_finalize(get);
	sqlite3_finalize(put);
	sqlite3_finalize(drop);
	return rc;
}

int store_record_ar(struct store *st, const char *subnet, const json_t *probe,
		    const json_t *switches, size_t *n_events)
{
	sqlite3 *db = store_db(st);
	int64_t sid;
	int rc;

	if (n_events)
		*n_events = 0;
	if ((sid = store_subnet_id(st, subnet)) <= 0)
		return sid < 0 ? (int)sid : -ENOENT;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin recording the AR probe");
	rc = record(st, sid, probe, switches, n_events);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the AR probe");
	if (rc < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		if (n_events)
			*n_events = 0;
	}
	return rc;
}

/* ---- ar program ------------------------------------------------------------------ */

static int program_event(struct store *st, int64_t sid, double time, const json_t *sw)
{
	const char *result = jstr(sw, "result");
	char subject[320];
	const char *kind, *severity;

	if (!strcmp(result, "programmed")) {
		kind = "ar_programmed";
		severity = "notice";
	} else if (!strcmp(result, "unsupported")) {
		kind = "ar_unsupported";
		severity = "info";
	} else if (!strcmp(result, "refused")) {
		kind = "ar_program_refused";
		severity = "warning";
	} else {
		kind = "ar_program_failed";
		severity = "error";
	}
	snprintf(subject, sizeof(subject), "%s (%s)", jstr(sw, "guid"), jstr(sw, "desc"));
	return store_record_event(st, time, sid, severity, kind, subject, "", jstr(sw, "reason"));
}

/* The stored status of a switch Sets were sent to. */
static int program_status(sqlite3 *db, sqlite3_stmt *s, int64_t sid, const json_t *sw,
			  double time)
{
	const char *result = jstr(sw, "result");
	int programmed = !strcmp(result, "programmed");
	json_int_t groups = json_integer_value(json_object_get(sw, "groups"));
	int rc;

	if (!programmed && strcmp(result, "failed"))
		return 0;  /* nothing was sent: what the probe found stands */
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, jstr(sw, "guid"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, jstr(sw, "desc"), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, json_integer_value(json_object_get(sw, "lid")));
	if (programmed)
		sqlite3_bind_int(s, 5, groups > 0);
	else if (json_is_true(json_object_get(sw, "ar_state_unknown")))
		sqlite3_bind_null(s, 5);
	else
		sqlite3_bind_int(s, 5, 0);
	if (programmed)
		sqlite3_bind_int64(s, 6, groups);
	else if (json_is_true(json_object_get(sw, "ar_state_unknown")))
		sqlite3_bind_null(s, 6);
	else
		sqlite3_bind_int64(s, 6, 0);
	sqlite3_bind_text(s, 7, jstr(sw, "reason"), -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 8, time);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write AR switch status");
}

int store_record_ar_program(struct store *st, const char *subnet, int quiet, const json_t *done,
			    const json_t *switches, size_t *n_events)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *up = NULL;
	double time = json_number_value(json_object_get(done, "finished"));
	const json_t *sw;
	int64_t sid;
	size_t i;
	int rc = 0;

	if (n_events)
		*n_events = 0;
	if ((sid = store_subnet_id(st, subnet)) <= 0)
		return sid < 0 ? (int)sid : -ENOENT;
	/* A switch loom programmed supports AR whatever an older probe said;
	 * its capability columns stay the probe's (or unknown). */
	if (sqlite3_prepare_v2(db, "INSERT INTO ar_switches (subnet_id, guid, description, lid, "
			       "supported, enabled, groups_used, reason, probed) VALUES (?, ?, ?, "
			       "?, 1, ?, ?, ?, ?) ON CONFLICT (subnet_id, guid) DO UPDATE SET "
			       "description = excluded.description, lid = excluded.lid, "
			       "supported = 1, enabled = excluded.enabled, groups_used = "
			       "excluded.groups_used, reason = excluded.reason", -1, &up, NULL)
	    != SQLITE_OK)
		return store_db_fail(db, "prepare the AR status update");
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_finalize(up);
		return store_db_fail(db, "begin recording the AR programming");
	}
	json_array_foreach(switches, i, sw) {
		const char *result = jstr(sw, "result");

		if ((rc = program_status(db, up, sid, sw, time)) < 0)
			break;
		if (quiet && (!strcmp(result, "programmed") || !strcmp(result, "unsupported")))
			continue;
		if ((rc = program_event(st, sid, time, sw)) < 0)
			break;
		if (n_events)
			(*n_events)++;
	}
	sqlite3_finalize(up);
	if (rc == 0 && quiet) {
		char what[200];

		snprintf(what, sizeof(what), "after a reroute: %lld programmed, %lld unsupported, "
			 "%lld refused, %lld failed",
			 (long long)json_integer_value(json_object_get(done, "programmed")),
			 (long long)json_integer_value(json_object_get(done, "unsupported")),
			 (long long)json_integer_value(json_object_get(done, "refused")),
			 (long long)json_integer_value(json_object_get(done, "failed")));
		rc = store_record_event(st, time, sid, "info", "ar_program_run", subnet, "", what);
		if (rc == 0 && n_events)
			(*n_events)++;
	}
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the AR programming");
	if (rc < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		if (n_events)
			*n_events = 0;
	}
	return rc;
}
