/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/validate_db.h: the open findings of fabric validation as loom's
 * database holds them (schema 015, issue 22). Shared by loomd's
 * "fabric-issues" command and `loomctl --db fabric issues`. */
#ifndef LOOM_VALIDATE_DB_H
#define LOOM_VALIDATE_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* Of every subnet (or `subnet`), errors first, then by subject:
 *   {"errors": N, "warnings": N,
 *    "issues": [{"subnet", "code", "severity", "subject", "want", "got",
 *                "line", "since", "last", "what"}]}
 * 0; -ENOENT for an unknown subnet; another -errno; with err. A database
 * older than schema 15 has no issues. */
int validate_db_issues(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen);

#endif
