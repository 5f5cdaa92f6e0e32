/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/validate_db.c: see validate_db.h. */
#include "autoconf.h"
#include "lib/db/validate_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/validate/report.h"

static json_t *issue_row(sqlite3_stmt *s)
{
	const char *code = dbq_col_str(s, 1);
	json_t *o = json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:i, s:o, s:o, s:s}",
			      "subnet", dbq_col_text(s, 0), "code", code,
			      "severity", dbq_col_str(s, 2), "subject", dbq_col_text(s, 3),
			      "want", dbq_col_text(s, 4), "got", dbq_col_text(s, 5),
			      "line", sqlite3_column_int(s, 6), "since", dbq_col_time(s, 7),
			      "last", dbq_col_time(s, 8), "what",
			      val_code_what(val_code_of(code)));

	return o;
}

static int has_table(sqlite3 *db)
{
	sqlite3_stmt *s;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
			       "name = 'validation_issues'", -1, &s, NULL) != SQLITE_OK)
		return 0;
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

int validate_db_keep_open(sqlite3 *db, const char *subnet, int (*of)(enum val_code),
			  struct val_report *r, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT i.code, i.subject, i.want, i.got, i.line FROM "
			       "validation_issues i JOIN subnets n ON n.id = i.subnet_id WHERE "
			       "n.name = ?1", -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "the open issues: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		enum val_code c = val_code_of((const char *)sqlite3_column_text(s, 0));

		if (c == VAL_CODE_COUNT || !of(c))
			continue;
		if (val_add(r, c, (unsigned)sqlite3_column_int(s, 4),
			    (const char *)sqlite3_column_text(s, 2),
			    (const char *)sqlite3_column_text(s, 3), "%s",
			    (const char *)sqlite3_column_text(s, 1)) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "the open issues: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

int validate_db_issues(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	json_t *list = NULL;
	size_t errors = 0, warnings = 0, i;
	json_t *it;
	int rc;

	*out = NULL;
	if (subnet) {
		if ((rc = dbq_prepare(db, "SELECT id FROM subnets WHERE name = ?1", &s, err,
				      errlen)) < 0)
			return rc;
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		if (rc != SQLITE_ROW)
			return dbq_fail(err, errlen, -ENOENT, "no subnet \"%s\"", subnet);
	}
	if (!has_table(db)) {
		list = json_array();
	} else {
		if ((rc = dbq_prepare(db, "SELECT n.name, v.code, v.severity, v.subject, v.want, "
				      "v.got, v.line, v.since, v.last FROM validation_issues v "
				      "JOIN subnets n ON n.id = v.subnet_id WHERE ?1 IS NULL OR "
				      "n.name = ?1 ORDER BY v.severity = 'warning', v.subject, "
				      "v.code", &s, err, errlen)) < 0)
			return rc;
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
		if ((rc = dbq_collect(db, s, issue_row, &list, err, errlen)) < 0)
			return rc;
	}
	json_array_foreach(list, i, it) {
		if (!strcmp(json_string_value(json_object_get(it, "severity")), "error"))
			errors++;
		else
			warnings++;
	}
	*out = json_pack("{s:I, s:I, s:o}", "errors", (json_int_t)errors, "warnings",
			 (json_int_t)warnings, "issues", list);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}

/* ---- issue 43: the tenants' partitions ---------------------------------------- */

void validate_db_tenants_clear(struct validate_db_tenants *t)
{
	free(t->t);
	free(t->guids);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

static int count(sqlite3 *db, const char *sql, size_t *n, size_t *bytes)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(s);
	*n = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(s, 0) : 0;
	if (bytes)
		*bytes = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(s, 1) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

int validate_db_tenants_changed(sqlite3 *db, double since, int *changed, char *err,
				size_t errlen)
{
	sqlite3_stmt *s;
	size_t n = 0;
	int rc;

	*changed = 0;
	if (count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'tenants'", &n, NULL) < 0)
		return dbq_db_fail(db, err, errlen, "read the tenants' changes");
	if (!n)
		return 0;
	if ((rc = dbq_prepare(db, "SELECT EXISTS (SELECT 1 FROM tenants WHERE updated >= ?1) OR "
			      "EXISTS (SELECT 1 FROM events WHERE time >= ?1 AND kind LIKE "
			      "'tenant\\_%' ESCAPE '\\')", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_double(s, 1, since);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*changed = sqlite3_column_int(s, 0) != 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : dbq_db_fail(db, err, errlen, "read the tenants' changes");
}

int validate_db_tenants(sqlite3 *db, struct validate_db_tenants *out, char *err,
			size_t errlen)
{
	size_t n_t = 0, n_p = 0, bytes = 0, at = 0, used = 0;
	sqlite3_stmt *s;
	int rc;

	memset(out, 0, sizeof(*out));
	/* In one read transaction, so that the counts hold for the rows. */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "read the tenants");
	if (count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'tenant_ports'", &n_t,
		  NULL) < 0 || !n_t) {
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		return 0;
	}
	if (count(db, "SELECT count(*), total(length(name) + 1) FROM tenants WHERE pkey IS NOT "
		  "NULL", &n_t, &bytes) < 0 ||
	    count(db, "SELECT count(*) FROM tenant_ports p JOIN tenants t ON t.name = p.tenant "
		  "WHERE t.pkey IS NOT NULL", &n_p, NULL) < 0) {
		rc = dbq_db_fail(db, err, errlen, "count the tenants");
		goto out;
	}
	out->t = calloc(n_t + 1, sizeof(*out->t));
	out->guids = calloc(n_p + 1, sizeof(*out->guids));
	out->names = calloc(bytes + 1, 1);
	if (!out->t || !out->guids || !out->names) {
		rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = dbq_prepare(db, "SELECT t.name, t.pkey, t.membership, t.state, p.port_guid FROM "
			      "tenants t LEFT JOIN tenant_ports p ON p.tenant = t.name WHERE "
			      "t.pkey IS NOT NULL ORDER BY t.name", &s, err, errlen)) < 0)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = dbq_col_str(s, 0), *guid = (const char *)sqlite3_column_text(s, 4);
		struct partitions_tenant *t = out->n ? &out->t[out->n - 1] : NULL;

		if (!t || strcmp(t->name, name)) {
			size_t len = strlen(name) + 1;

			if (out->n == n_t || used + len > bytes) {
				rc = SQLITE_ERROR;
				break;
			}
			t = &out->t[out->n];
			t->name = memcpy(out->names + used, name, len);
			used += len;
			t->pkey = (unsigned)sqlite3_column_int(s, 1) & 0x7fffu;
			t->limited = !strcmp(dbq_col_str(s, 2), "limited");
			t->guids = out->guids + at;
			t->pending = !strcmp(dbq_col_str(s, 3), "applying");
			out->n++;
		}
		if (guid && at < n_p) {
			out->guids[at++] = strtoull(guid, NULL, 16);
			t->n_guids++;
		}
	}
	sqlite3_finalize(s);
	rc = rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "read the tenants");
out:
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc < 0)
		validate_db_tenants_clear(out);
	return rc;
}
