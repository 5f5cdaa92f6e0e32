/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/store_validate.c: see store_validate.h. */
#include "autoconf.h"
#include "daemon/validate/store_validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "lib/util/log.h"
#include "lib/validate/report.h"

struct open_issue {
	char *key;                 /* "code subject" */
	int seen;                  /* the report has it */
};

static int key_cmp(const void *x, const void *y)
{
	return strcmp(((const struct open_issue *)x)->key, ((const struct open_issue *)y)->key);
}

static void issues_free(struct open_issue *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(o[i].key);
	free(o);
}

/* The subnet's open issues, sorted by key. */
static int load_open(sqlite3 *db, int64_t sid, struct open_issue **out, size_t *n_out)
{
	struct open_issue *o = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT code, subject FROM validation_issues WHERE "
			       "subnet_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read the open validation issues");
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *code = (const char *)sqlite3_column_text(s, 0);
		const char *subj = (const char *)sqlite3_column_text(s, 1);

		if (n == cap) {
			struct open_issue *no = realloc(o, (cap = cap ? 2 * cap : 64) * sizeof(*o));

			if (!no)
				goto oom;
			o = no;
		}
		if (asprintf(&o[n].key, "%s %s", code ? code : "", subj ? subj : "") < 0)
			goto oom;
		o[n++].seen = 0;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		issues_free(o, n);
		return store_db_fail(db, "read the open validation issues");
	}
	if (n > 1)
		qsort(o, n, sizeof(*o), key_cmp);
	*out = o;
	*n_out = n;
	return 0;
oom:
	sqlite3_finalize(s);
	issues_free(o, n);
	return -ENOMEM;
}

/* A storm coalesces (docs/events.md): when one check opens (or clears)
 * more than VAL_EVENTS_EACH issues of one code, they are one event,
 * validation_issues (validation_issues_cleared), subject the code, saying
 * how many and the first; the issues themselves are all stored as ever
 * (`loomctl fabric issues`). Bring-up's ports stuck in INIT are one event,
 * not one per port. */
#define VAL_EVENTS_EACH 16

struct tally {
	int opened, cleared;       /* per code, in this check */
	int worst;                 /* enum val_severity of the opened: lower is worse */
	char first_opened[256], first_cleared[256];
};

static enum val_code code_of_key(const char *key)
{
	char code[64];

	snprintf(code, sizeof(code), "%.*s", (int)strcspn(key, " "), key);
	return val_code_of(code);
}

static int summaries(struct store *st, int64_t sid, double now, const struct tally *t)
{
	char what[400];
	int rc;

	for (int c = 0; c < VAL_CODE_COUNT; c++) {
		const char *code = val_code_name((enum val_code)c);

		if (t[c].opened > VAL_EVENTS_EACH) {
			snprintf(what, sizeof(what), "%d opened, the first: %s", t[c].opened,
				 t[c].first_opened);
			if ((rc = store_record_event(st, now, sid,
						     val_severity_name((enum val_severity)t[c].worst),
						     "validation_issues", code, NULL, what)) < 0)
				return rc;
		}
		if (t[c].cleared > VAL_EVENTS_EACH) {
			snprintf(what, sizeof(what), "%d cleared, the first: %s", t[c].cleared,
				 t[c].first_cleared);
			if ((rc = store_record_event(st, now, sid, "info", "validation_issues_cleared",
						     code, NULL, what)) < 0)
				return rc;
		}
	}
	return 0;
}

static int record(struct store *st, int64_t sid, double now, const struct val_report *r,
		  struct store_validate_result *res)
{
	struct tally t[VAL_CODE_COUNT];
	sqlite3 *db = store_db(st);
	struct open_issue *o = NULL;
	size_t n = 0;
	sqlite3_stmt *put = NULL, *del = NULL;
	int rc;

	if ((rc = load_open(db, sid, &o, &n)) < 0)
		return rc;
	/* What this check opens and clears, per code, before any event. */
	memset(t, 0, sizeof(t));
	for (int c = 0; c < VAL_CODE_COUNT; c++)
		t[c].worst = VAL_WARNING;
	for (size_t i = 0; i < r->n; i++) {
		const struct val_finding *f = &r->f[i];
		char key[300];
		struct open_issue k = { key, 0 };

		snprintf(key, sizeof(key), "%s %s", val_code_name(f->code), f->subject);
		if ((unsigned)f->code < VAL_CODE_COUNT && !(n && bsearch(&k, o, n, sizeof(*o), key_cmp))) {
			if (!t[f->code].opened++)
				snprintf(t[f->code].first_opened, sizeof(t[f->code].first_opened), "%s",
					 f->subject);
			if ((int)f->sev < t[f->code].worst)
				t[f->code].worst = f->sev;
		}
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO validation_issues (subnet_id, code, subject, "
			       "severity, want, got, line, since, last) VALUES (?1, ?2, ?3, ?4, ?5, "
			       "?6, ?7, ?8, ?8) ON CONFLICT (subnet_id, code, subject) DO UPDATE SET "
			       "severity = ?4, want = ?5, got = ?6, line = ?7, last = ?8", -1, &put,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM validation_issues WHERE subnet_id = ?1 AND "
			       "code = ?2 AND subject = ?3", -1, &del, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "write the validation issues");
		goto out;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct val_finding *f = &r->f[i];
		const char *code = val_code_name(f->code);
		char key[300];
		struct open_issue k = { key, 0 }, *hit;

		snprintf(key, sizeof(key), "%s %s", code, f->subject);
		hit = n ? bsearch(&k, o, n, sizeof(*o), key_cmp) : NULL;
		if (hit && hit->seen)
			continue;   /* the same fault twice in one report: once */
		sqlite3_reset(put);
		sqlite3_bind_int64(put, 1, sid);
		sqlite3_bind_text(put, 2, code, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 3, f->subject, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 4, val_severity_name(f->sev), -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 5, f->want, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 6, f->got, -1, SQLITE_STATIC);
		sqlite3_bind_int(put, 7, (int)f->line);
		sqlite3_bind_double(put, 8, now);
		if (sqlite3_step(put) != SQLITE_DONE) {
			rc = store_db_fail(db, "write a validation issue");
			goto out;
		}
		if (hit) {
			hit->seen = 1;
			continue;
		}
		res->opened++;
		if ((unsigned)f->code < VAL_CODE_COUNT && t[f->code].opened > VAL_EVENTS_EACH)
			continue;
		if ((rc = store_record_event(st, now, sid, val_severity_name(f->sev),
					     "validation_issue", key, f->want, f->got)) < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		enum val_code c = code_of_key(o[i].key);

		if (!o[i].seen && (unsigned)c < VAL_CODE_COUNT && !t[c].cleared++)
			snprintf(t[c].first_cleared, sizeof(t[c].first_cleared), "%s",
				 o[i].key + strcspn(o[i].key, " ") + (o[i].key[strcspn(o[i].key, " ")] != 0));
	}
	for (size_t i = 0; i < n; i++) {
		char *sp = strchr(o[i].key, ' ');
		enum val_code c;

		if (o[i].seen) {
			res->open++;
			continue;
		}
		if (!sp)
			continue;
		*sp = '\0';
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, sid);
		sqlite3_bind_text(del, 2, o[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(del, 3, sp + 1, -1, SQLITE_STATIC);
		if (sqlite3_step(del) != SQLITE_DONE) {
			rc = store_db_fail(db, "clear a validation issue");
			goto out;
		}
		*sp = ' ';
		res->cleared++;
		c = code_of_key(o[i].key);
		if ((unsigned)c < VAL_CODE_COUNT && t[c].cleared > VAL_EVENTS_EACH)
			continue;
		if ((rc = store_record_event(st, now, sid, "info", "validation_issue_cleared",
					     o[i].key, NULL, NULL)) < 0)
			goto out;
	}
	res->open += res->opened;
	rc = summaries(st, sid, now, t);
out:
	sqlite3_finalize(put);
	sqlite3_finalize(del);
	issues_free(o, n);
	return rc;
}

int store_validate_record(struct store *st, const char *subnet, double now,
			  const struct val_report *r, struct store_validate_result *res)
{
	int64_t sid;
	int rc;

	memset(res, 0, sizeof(*res));
	if ((sid = store_subnet_id(st, subnet)) <= 0)
		return sid < 0 ? (int)sid : -ENOENT;
	if ((rc = store_exec(st, "BEGIN IMMEDIATE")) < 0)
		return rc;
	if ((rc = record(st, sid, now, r, res)) < 0) {
		store_exec(st, "ROLLBACK");
		return rc;
	}
	return store_exec(st, "COMMIT");
}
