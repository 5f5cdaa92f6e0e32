/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/store_isolation.c: see store_isolation.h. */
#include "autoconf.h"
#include "daemon/isolation/store_isolation.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"

static void text(char *dst, size_t len, sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

static uint64_t guid_of(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	return t ? strtoull((const char *)t, NULL, 16) : 0;
}

static int state_of(const char *s)
{
	return !strcmp(s, "held") ? ISO_HELD : !strcmp(s, "drained") ? ISO_DRAINED : ISO_ISOLATED;
}

int store_iso_load(sqlite3 *db, struct iso_rows *out)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db, "SELECT i.subnet_id, n.name, i.guid, i.port, i.peer_guid, "
			       "i.peer_port, i.a_ca, i.b_ca, i.kind, i.state, i.by, i.rules, "
			       "i.reason, i.evidence, i.loss, i.jobs, i.host, i.since, "
			       "i.clean_since, i.probation_s, i.returns FROM isolated_links i "
			       "JOIN subnets n ON n.id = i.subnet_id ORDER BY i.since, i.guid, i.port",
			       -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read the isolated links");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct iso_row *r;
		char state[16];

		if (out->n == cap) {
			struct iso_row *v = realloc(out->v, (cap = cap ? 2 * cap : 8) * sizeof(*v));

			if (!v) {
				sqlite3_finalize(s);
				store_iso_rows_free(out);
				return -ENOMEM;
			}
			out->v = v;
		}
		r = memset(&out->v[out->n++], 0, sizeof(*r));
		r->sid = sqlite3_column_int64(s, 0);
		text(r->subnet, sizeof(r->subnet), s, 1);
		r->e.link.a.guid = guid_of(s, 2);
		r->e.link.a.port = (uint8_t)sqlite3_column_int(s, 3);
		r->e.link.b.guid = guid_of(s, 4);
		r->e.link.b.port = (uint8_t)sqlite3_column_int(s, 5);
		r->e.link.a.is_ca = (uint8_t)sqlite3_column_int(s, 6);
		r->e.link.b.is_ca = (uint8_t)sqlite3_column_int(s, 7);
		r->host = !strcmp((const char *)sqlite3_column_text(s, 8), "host");
		text(state, sizeof(state), s, 9);
		r->e.state = state_of(state);
		text(r->by, sizeof(r->by), s, 10);
		r->e.by_operator = strcmp(r->by, "loom") != 0;
		text(r->rules, sizeof(r->rules), s, 11);
		text(r->reason, sizeof(r->reason), s, 12);
		text(r->evidence, sizeof(r->evidence), s, 13);
		text(r->loss, sizeof(r->loss), s, 14);
		text(r->jobs, sizeof(r->jobs), s, 15);
		text(r->host_name, sizeof(r->host_name), s, 16);
		r->e.since = sqlite3_column_double(s, 17);
		r->e.clean_since = sqlite3_column_double(s, 18);
		r->e.probation_s = sqlite3_column_double(s, 19);
		r->e.returns = (unsigned)sqlite3_column_int(s, 20);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_iso_rows_free(out);
		return store_db_fail(db, "read the isolated links");
	}
	return 0;
}

void store_iso_rows_free(struct iso_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void bind_guid(sqlite3_stmt *s, int i, uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
}

int store_iso_put(sqlite3 *db, const struct iso_row *r)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO isolated_links (subnet_id, guid, port, "
			       "peer_guid, peer_port, a_ca, b_ca, kind, state, by, rules, reason, "
			       "evidence, loss, jobs, host, since, clean_since, probation_s, returns) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
			       "?15, ?16, ?17, ?18, ?19, ?20)", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "prepare an isolated link");
	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, r->e.link.a.guid);
	sqlite3_bind_int(s, 3, r->e.link.a.port);
	bind_guid(s, 4, r->e.link.b.guid);
	sqlite3_bind_int(s, 5, r->e.link.b.port);
	sqlite3_bind_int(s, 6, r->e.link.a.is_ca);
	sqlite3_bind_int(s, 7, r->e.link.b.is_ca);
	sqlite3_bind_text(s, 8, r->host ? "host" : "link", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, iso_state_name(r->e.state), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, r->by, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, r->rules, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 12, r->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 13, r->evidence, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 14, r->loss, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 15, r->jobs, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 16, r->host_name, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 17, r->e.since);
	sqlite3_bind_double(s, 18, r->e.clean_since);
	sqlite3_bind_double(s, 19, r->e.probation_s);
	sqlite3_bind_int(s, 20, (int)r->e.returns);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "write an isolated link");
}

static int by_link(sqlite3 *db, const char *sql, int64_t sid, const struct iso_link *l,
		   double now, const char *what)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, what);
	sqlite3_bind_int64(s, 1, sid);
	bind_guid(s, 2, l->a.guid);
	sqlite3_bind_int(s, 3, l->a.port);
	if (sqlite3_bind_parameter_count(s) >= 4)
		sqlite3_bind_double(s, 4, now);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, what);
}

int store_iso_delete(sqlite3 *db, int64_t sid, const struct iso_link *l)
{
	return by_link(db, "DELETE FROM isolated_links WHERE subnet_id = ?1 AND guid = ?2 AND "
		       "port = ?3", sid, l, 0, "delete an isolated link");
}

unsigned store_iso_returns(sqlite3 *db, int64_t sid, const struct iso_link *l)
{
	sqlite3_stmt *s;
	unsigned n = 0;

	if (sqlite3_prepare_v2(db, "SELECT returns FROM isolation_returns WHERE subnet_id = ?1 AND "
			       "guid = ?2 AND port = ?3", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(s, 1, sid);
	bind_guid(s, 2, l->a.guid);
	sqlite3_bind_int(s, 3, l->a.port);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = (unsigned)sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

int store_iso_returned(sqlite3 *db, int64_t sid, const struct iso_link *l, double now)
{
	return by_link(db, "INSERT INTO isolation_returns (subnet_id, guid, port, returns, last) "
		       "VALUES (?1, ?2, ?3, 1, ?4) ON CONFLICT (subnet_id, guid, port) DO UPDATE "
		       "SET returns = returns + 1, last = ?4", sid, l, now, "count a return");
}

int store_iso_forget_returns(sqlite3 *db, int64_t sid, const struct iso_link *l, double now)
{
	return by_link(db, "INSERT INTO isolation_returns (subnet_id, guid, port, returns, last) "
		       "VALUES (?1, ?2, ?3, 0, ?4) ON CONFLICT (subnet_id, guid, port) DO UPDATE "
		       "SET returns = 0, last = ?4", sid, l, now, "forget the returns");
}

int64_t store_iso_version(sqlite3 *db)
{
	sqlite3_stmt *s;
	int64_t v = 0;

	if (sqlite3_prepare_v2(db, "SELECT value FROM isolation_meta WHERE key = 'version'", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the isolated set's version");
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int64_t store_iso_bump(sqlite3 *db)
{
	if (sqlite3_exec(db, "UPDATE isolation_meta SET value = value + 1 WHERE key = 'version'", NULL,
			 NULL, NULL) != SQLITE_OK)
		return store_db_fail(db, "count the isolated set's version");
	return store_iso_version(db);
}

json_t *store_iso_row_json(const struct iso_row *r, double now)
{
	char a[24], b[24];
	double left = r->e.clean_since + r->e.probation_s - now;

	snprintf(a, sizeof(a), "0x%016" PRIx64, r->e.link.a.guid);
	snprintf(b, sizeof(b), "0x%016" PRIx64, r->e.link.b.guid);
	return json_pack("{s:s, s:s, s:i, s:b, s:s, s:i, s:b, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
			 "s:s, s:s, s:f, s:f, s:f, s:o, s:i}",
			 "subnet", r->subnet, "guid", a, "port", r->e.link.a.port,
			 "ca", r->e.link.a.is_ca, "peer_guid", b,
			 "peer_port", r->e.link.b.port, "peer_ca", r->e.link.b.is_ca,
			 "kind", r->host ? "host" : "link",
			 "state", iso_state_name(r->e.state), "by", r->by, "rules", r->rules,
			 "reason", r->reason, "evidence", r->evidence, "loss", r->loss,
			 "jobs", r->jobs, "host", r->host_name, "since", r->e.since,
			 "clean_since", r->e.clean_since, "probation_s", r->e.probation_s,
			 "probation_left_s", r->e.by_operator || r->e.state == ISO_HELD ?
				json_null() : json_real(left > 0 ? left : 0),
			 "returns", (int)r->e.returns);
}

static void str_of(const json_t *o, const char *key, char *dst, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(dst, len, "%s", v ? v : "");
}

int store_iso_row_from_json(const json_t *o, struct iso_row *r)
{
	const char *a = json_string_value(json_object_get(o, "guid"));
	const char *b = json_string_value(json_object_get(o, "peer_guid"));
	const char *kind = json_string_value(json_object_get(o, "kind"));
	const char *state = json_string_value(json_object_get(o, "state"));
	json_int_t ap = json_integer_value(json_object_get(o, "port"));
	json_int_t bp = json_integer_value(json_object_get(o, "peer_port"));

	memset(r, 0, sizeof(*r));
	if (!a || !b || !kind || !state || ap < 1 || ap > 254 || bp < 1 || bp > 254 ||
	    strncmp(a, "0x", 2) || strncmp(b, "0x", 2))
		return -EINVAL;
	str_of(o, "subnet", r->subnet, sizeof(r->subnet));
	r->e.link.a.guid = strtoull(a, NULL, 16);
	r->e.link.a.port = (uint8_t)ap;
	r->e.link.a.is_ca = json_is_true(json_object_get(o, "ca"));
	r->e.link.b.guid = strtoull(b, NULL, 16);
	r->e.link.b.port = (uint8_t)bp;
	r->e.link.b.is_ca = json_is_true(json_object_get(o, "peer_ca"));
	r->host = !strcmp(kind, "host");
	r->e.state = state_of(state);
	str_of(o, "by", r->by, sizeof(r->by));
	r->e.by_operator = strcmp(r->by, "loom") != 0;
	str_of(o, "rules", r->rules, sizeof(r->rules));
	str_of(o, "reason", r->reason, sizeof(r->reason));
	str_of(o, "evidence", r->evidence, sizeof(r->evidence));
	str_of(o, "loss", r->loss, sizeof(r->loss));
	str_of(o, "jobs", r->jobs, sizeof(r->jobs));
	str_of(o, "host", r->host_name, sizeof(r->host_name));
	r->e.since = json_number_value(json_object_get(o, "since"));
	r->e.clean_since = json_number_value(json_object_get(o, "clean_since"));
	r->e.probation_s = json_number_value(json_object_get(o, "probation_s"));
	r->e.returns = (unsigned)json_integer_value(json_object_get(o, "returns"));
	return r->subnet[0] ? 0 : -EINVAL;
}

int store_iso_set_version(sqlite3 *db, int64_t version)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "UPDATE isolation_meta SET value = ?1 WHERE key = 'version'", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "set the isolated set's version");
	sqlite3_bind_int64(s, 1, version);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "set the isolated set's version");
}
