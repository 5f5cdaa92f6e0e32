/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/validate_db.h: the open findings of fabric validation as loom's
 * database holds them (schema 015, issue 22). Shared by loomd's
 * "fabric-issues" command and `loomctl --db fabric issues`. */
#ifndef LOOM_VALIDATE_DB_H
#define LOOM_VALIDATE_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#include "lib/validate/partitions.h"
#include "lib/validate/report.h"

/* Of every subnet (or `subnet`), errors first, then by subject:
 *   {"errors": N, "warnings": N,
 *    "issues": [{"subnet", "code", "severity", "subject", "want", "got",
 *                "line", "since", "last", "what"}]}
 * 0; -ENOENT for an unknown subnet; another -errno; with err. A database
 * older than schema 15 has no issues. */
int validate_db_issues(sqlite3 *db, const char *subnet, json_t **out, char *err, size_t errlen);

/* issue 43: the subnet's open issues whose code `of` takes, added to r as
 * they are (a rule whose data could not be read this time keeps its
 * findings open: neither cleared nor opened). 0, -ENOMEM, or -EIO with err. */
int validate_db_keep_open(sqlite3 *db, const char *subnet, int (*of)(enum val_code),
			  struct val_report *r, char *err, size_t errlen);

/* issue 43: the tenants with a PKey as the store keeps them (schema 6/7),
 * for the partitions rule (lib/validate/partitions.h): each with its member
 * port GUIDs; a tenant still being applied is `pending`. */
struct validate_db_tenants {
	size_t n;
	struct partitions_tenant *t;
	/* private: */
	uint64_t *guids;
	char *names;
};
/* 0 (no tenants table: none), or -errno with err. */
int validate_db_tenants(sqlite3 *db, struct validate_db_tenants *out, char *err,
			size_t errlen);
void validate_db_tenants_clear(struct validate_db_tenants *t);
/* Did the tenants change at or after `since` (wall-clock seconds): a
 * tenant's row updated (created, confirmed, failed, changed) or a tenant
 * event recorded (a deletion leaves only its event)? *changed 1 or 0; 0,
 * or -errno with err. The partitions rule judges PKey tables read at
 * `since` by the tenants of that time only. */
int validate_db_tenants_changed(sqlite3 *db, double since, int *changed, char *err,
				size_t errlen);

#endif
