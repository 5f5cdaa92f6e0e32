/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/validate_db.c: see validate_db.h. */
#include "autoconf.h"
#include "lib/db/validate_db.h"

#include <errno.h>
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
