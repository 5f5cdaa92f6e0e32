/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/store_isolation.h: the isolated cables and drained hosts
 * (schema 020), on a worker's own connection. Rows are keyed by subnet and
 * the cable's lower end; the set's version is what the file carries. */
#ifndef LOOMD_STORE_ISOLATION_H
#define LOOMD_STORE_ISOLATION_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "daemon/core/config.h"
#include "daemon/isolation/isolation_policy.h"

struct iso_row {
	int64_t sid;
	char subnet[LOOM_NAME_LEN];
	struct iso_entry e;
	int host;                /* kind host: one end a CA */
	char by[128];            /* "loom" or the operator's principal */
	char rules[64];          /* "errors,flaps" */
	char reason[256];
	char evidence[384];
	char loss[256];
	char jobs[256];
	char host_name[64];
};

struct iso_rows {
	struct iso_row *v;
	size_t n;
};

/* Every row of every subnet into out (zeroed first). 0 or -errno. */
int store_iso_load(sqlite3 *db, struct iso_rows *out);
void store_iso_rows_free(struct iso_rows *r);
/* Insert or replace r. */
int store_iso_put(sqlite3 *db, const struct iso_row *r);
int store_iso_delete(sqlite3 *db, int64_t sid, const struct iso_link *l);
/* The times the cable came back (0: never), and one more. */
unsigned store_iso_returns(sqlite3 *db, int64_t sid, const struct iso_link *l);
int store_iso_returned(sqlite3 *db, int64_t sid, const struct iso_link *l, double now);
/* An operator's restore: no returns counted, but back at now (the window's
 * evidence before it isolates nothing again). */
int store_iso_forget_returns(sqlite3 *db, int64_t sid, const struct iso_link *l, double now);
/* The set's version, and the next one (stored). */
int64_t store_iso_version(sqlite3 *db);
int64_t store_iso_bump(sqlite3 *db);
/* A row as the commands show it (now: for the probation left), every
 * field, so that it also is the row's replicated form (HA). */
json_t *store_iso_row_json(const struct iso_row *r, double now);
/* Back from that form (sid left 0): 0, or -EINVAL. */
int store_iso_row_from_json(const json_t *o, struct iso_row *r);
/* The set's version as another node wrote it. */
int store_iso_set_version(sqlite3 *db, int64_t version);

#endif
