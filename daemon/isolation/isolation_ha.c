/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_ha.c: the isolated set under HA (issue 21's
 * etcd, docs/ha.md). The leader puts the whole set, every row as
 * link-isolated shows it and the version, under /loom/CLUSTER/isolation/set
 * (core/intent.h's fenced txn) before the transaction that changes it
 * commits, so that what it then writes for OpenSM is what etcd holds; a
 * put refused (another node leads) rolls the change back. A follower
 * mirrors the record into its database (its worker then writes its own
 * file); a new leader takes the record over before it changes anything, so
 * the isolations and their probations go on where the old leader left them.
 * Restored cables' history (isolation_returns) stays each node's own. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/isolation/isolation_impl.h"
#include "daemon/isolation/store_isolation.h"
#include "lib/util/log.h"

#define ISO_HA_KEY "isolation/set"

/* {"version": V, "links": [rows]}, each row as link-isolated shows it
 * without the probation left (computed, not kept: two records differ only
 * when a stored field does). */
static json_t *record_of(const struct iso_rows *rows, int64_t version)
{
	json_t *links = json_array();

	for (size_t i = 0; links && i < rows->n; i++) {
		json_t *l = store_iso_row_json(&rows->v[i], 0);

		json_object_del(l, "probation_left_s");
		json_array_append_new(links, l);
	}
	return json_pack("{s:I, s:o*}", "version", (json_int_t)version, "links", links);
}

/* The record of db now (its own transaction's view). */
static json_t *record_now(sqlite3 *db)
{
	struct iso_rows rows;
	json_t *o;
	int64_t v = store_iso_version(db);

	if (v < 0 || store_iso_load(db, &rows) < 0)
		return NULL;
	o = record_of(&rows, v);
	store_iso_rows_free(&rows);
	return o;
}

int iso_ha_put(struct iso_job *j, sqlite3 *db, const json_t *before, char *err, size_t errlen)
{
	json_t *after;
	char *text;
	int rc;

	if (!j->intent.put)
		return 0;
	if (!(after = record_now(db))) {
		snprintf(err, errlen, "cannot read the isolated set for etcd");
		return -EIO;
	}
	if (before && json_equal(before, after) &&
	    j->etcd_version == json_integer_value(json_object_get(after, "version"))) {
		json_decref(after);
		return 0;   /* etcd holds it already */
	}
	if (!(text = json_dumps(after, JSON_COMPACT))) {
		json_decref(after);
		return -ENOMEM;
	}
	rc = j->intent.put(j->intent.arg, ISO_HA_KEY, text, err, errlen);
	if (rc == 0)
		j->put_version = json_integer_value(json_object_get(after, "version"));
	else if (rc == -EPERM)
		snprintf(err, errlen, "this node no longer leads: the isolation change is not made");
	free(text);
	json_decref(after);
	return rc;
}

json_t *iso_ha_before(const struct iso_job *j, const struct iso_rows *rows, int64_t version)
{
	return j->intent.put ? record_of(rows, version) : NULL;
}

int iso_ha_mirror(struct store *st, const json_t *rec)
{
	sqlite3 *db = store_db(st);
	json_t *links = json_object_get(rec, "links"), *l;
	json_int_t version = json_integer_value(json_object_get(rec, "version"));
	size_t i, skipped = 0;
	int rc = 0;

	if (!json_is_array(links) || version < 0)
		return -EINVAL;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "begin the isolated set's mirror");
	if (sqlite3_exec(db, "DELETE FROM isolated_links", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "clear the isolated links");
	json_array_foreach(links, i, l) {
		struct iso_row r;

		if (rc < 0)
			break;
		if (store_iso_row_from_json(l, &r) < 0 ||
		    (r.sid = store_subnet_id(st, r.subnet)) <= 0) {
			skipped++;   /* a subnet this node has not swept */
			continue;
		}
		rc = store_iso_put(db, &r);
	}
	if (rc == 0)
		rc = store_iso_set_version(db, version);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = store_db_fail(db, "commit the isolated set's mirror");
	if (rc < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	if (skipped)
		log_warn("isolation: %zu isolated links of subnets this node has not swept are not "
			 "mirrored", skipped);
	return 0;
}
