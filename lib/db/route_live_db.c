/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/route_live_db.c: route check and route trace answered from loom's
 * database: the stored fabric of a subnet and the newest forwarding tables
 * read from its switches (schema 2, schemas/002_lfts.sql). Read-only, so
 * loomctl --db runs it on a stopped daemon's database exactly as loomd does.
 * Failures go to `err`, never to a log: the caller decides where they go. */
#include "autoconf.h"
#include "lib/db/route_live_db.h"
#include "lib/route/route_live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_query.h"
#include "lib/db/names_db.h"

static int db_err(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "database query (%s) failed: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static uint64_t col_guid(sqlite3_stmt *s, int col)
{
	const char *text = (const char *)sqlite3_column_text(s, col);
	uint64_t guid = 0;

	if (text)
		ibt_guid_parse(text, &guid);
	return guid;
}

static int subnet_id(sqlite3 *db, const char *name, int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	*id = 0;
	if (sqlite3_prepare_v2(db, "SELECT id FROM subnets WHERE name = ?", -1, &s, NULL)
	    != SQLITE_OK)
		return db_err(db, err, errlen, "look up subnet");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, err, errlen, "look up subnet");
	return 0;
}

/* ---- the stored fabric ---------------------------------------------------------- */

static int load_nodes(sqlite3 *db, struct fab *fab, int64_t sid, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT guid, type, sysimg_guid, vendor_id, device_id, revision, "
			       "description, nports FROM nodes WHERE subnet_id = ? ORDER BY guid",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(db, err, errlen, "load nodes");
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int nports = sqlite3_column_int(s, 7);
		struct fab_node *n = fab_add_node(fab, ibt_node_type_parse(
			(const char *)sqlite3_column_text(s, 1)), col_guid(s, 0),
			(uint8_t)(nports < 0 ? 0 : nports > 255 ? 255 : nports));

		if (!n) {
			int e = errno;

			snprintf(err, errlen, "cannot load node %s: %s", sqlite3_column_text(s, 0),
				 strerror(e));
			sqlite3_finalize(s);
			return -e;
		}
		n->sysimg_guid = col_guid(s, 2);
		n->vendor_id = (uint32_t)sqlite3_column_int64(s, 3);
		n->device_id = (uint16_t)sqlite3_column_int(s, 4);
		n->revision = (uint32_t)sqlite3_column_int64(s, 5);
		snprintf(n->desc, sizeof(n->desc), "%s", sqlite3_column_text(s, 6));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(db, err, errlen, "load nodes");
}

static int load_ports(sqlite3 *db, struct fab *fab, int64_t sid, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	struct fab_node *n = NULL;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT node_guid, num, guid, lid, lmc, state, phys_state, "
			       "width_active, width_enabled, width_supported, speed_active, "
			       "speed_enabled, speed_supported, mtu, vls, peer_guid, peer_port "
			       "FROM ports WHERE subnet_id = ? ORDER BY node_guid, num",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(db, err, errlen, "load ports");
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t guid = col_guid(s, 0);
		int num = sqlite3_column_int(s, 1);
		struct fab_port *p;

		if (!n || n->guid != guid)
			n = fab_find(fab, guid);
		if (!n || num < 0 || num > n->nports)
			continue; /* the schema's foreign key rules this out */
		p = &n->ports[num];
		p->present = 1;
		p->guid = col_guid(s, 2);
		p->lid = (uint16_t)sqlite3_column_int(s, 3);
		p->lmc = (uint8_t)sqlite3_column_int(s, 4);
		p->state = (uint8_t)sqlite3_column_int(s, 5);
		p->phys_state = (uint8_t)sqlite3_column_int(s, 6);
		p->width_active = (uint8_t)sqlite3_column_int(s, 7);
		p->width_enabled = (uint8_t)sqlite3_column_int(s, 8);
		p->width_supported = (uint8_t)sqlite3_column_int(s, 9);
		p->speed_active = (uint16_t)sqlite3_column_int(s, 10);
		p->speed_enabled = (uint16_t)sqlite3_column_int(s, 11);
		p->speed_supported = (uint16_t)sqlite3_column_int(s, 12);
		p->mtu = (uint8_t)sqlite3_column_int(s, 13);
		p->vls = (uint8_t)sqlite3_column_int(s, 14);
		if (sqlite3_column_type(s, 15) != SQLITE_NULL) {
			p->has_peer = 1;
			p->peer_guid = col_guid(s, 15);
			p->peer_port = (uint8_t)sqlite3_column_int(s, 16);
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(db, err, errlen, "load ports");
}

struct fab *rl_db_load_fabric(sqlite3 *db, const char *subnet, char *err, size_t errlen)
{
	struct fab *fab = fab_new(subnet);
	char why[512] = "";
	int64_t sid;
	int rc;

	if (!fab) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = subnet_id(db, subnet, &sid, why, sizeof(why));
	if (rc == 0 && sid)
		rc = load_nodes(db, fab, sid, why, sizeof(why));
	if (rc == 0 && sid)
		rc = load_ports(db, fab, sid, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "cannot load the fabric of subnet %s: %s", subnet, why);
		fab_free(fab);
		return NULL;
	}
	return fab;
}

/* ---- subnets and reads ---------------------------------------------------------- */

int rl_db_subnet(sqlite3 *db, const char *want, char *name, size_t namelen, char *ca,
		 size_t calen, int *port, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	char names[256] = "";
	int rc, n = 0;

	/* The InfiniBand subnets: those swept (not schema 5's Ethernet fabric). */
	if (sqlite3_prepare_v2(db, want ? "SELECT name, ca, port FROM subnets WHERE name = ? AND "
			       "id IN (SELECT subnet_id FROM sweeps)" :
			       "SELECT name, ca, port FROM subnets WHERE id IN (SELECT subnet_id "
			       "FROM sweeps) ORDER BY name", -1, &s, NULL)
	    != SQLITE_OK)
		return db_err(db, err, errlen, "subnets");
	if (want)
		sqlite3_bind_text(s, 1, want, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *nm = (const char *)sqlite3_column_text(s, 0);
		size_t used = strlen(names);

		if (n++ == 0) {
			snprintf(name, namelen, "%s", nm);
			snprintf(ca, calen, "%s", sqlite3_column_text(s, 1));
			*port = sqlite3_column_int(s, 2);
		}
		snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", nm);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(db, err, errlen, "subnets");
	if (n == 0) {
		if (want)
			snprintf(err, errlen, "no subnet is called \"%s\"", want);
		else
			snprintf(err, errlen, "no subnet has been swept yet");
		return -ENOENT;
	}
	if (n > 1) {
		snprintf(err, errlen, "there are several subnets (%s): name one with --subnet",
			 names);
		return -EINVAL;
	}
	return 0;
}

/* Databases of schema 1 (before LFTs were kept) have no tables to read. */
static int has_lft_tables(sqlite3 *db)
{
	sqlite3_stmt *s;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
			       "name = 'lft_reads'", -1, &s, NULL) != SQLITE_OK)
		return 0;
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* Whether a sweep of the subnet succeeded after the read's own. */
static int swept_since(sqlite3 *db, int64_t sid, int64_t sweep_id, double finished)
{
	sqlite3_stmt *s;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sweeps WHERE subnet_id = ?1 AND status = "
			       "'ok' AND id > ?2 AND finished > ?3 LIMIT 1", -1, &s, NULL)
	    != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_int64(s, 2, sweep_id);
	sqlite3_bind_double(s, 3, finished);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

static int load_tables(sqlite3 *db, struct rl_read *r, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT switch_guid, lid, top, lft FROM lfts WHERE "
			       "read_id = ?", -1, &s, NULL) != SQLITE_OK)
		return db_err(db, err, errlen, "load forwarding tables");
	sqlite3_bind_int64(s, 1, r->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(s, 3);
		int len = sqlite3_column_bytes(s, 3);
		int top = sqlite3_column_int(s, 2);

		/* The blob is the table; a row that disagrees is not trusted. */
		if (top < 0 || top > 0xffff || len != top + 1 || !blob) {
			snprintf(err, errlen, "the stored table of switch %s is damaged "
				 "(%d bytes, top %d)", sqlite3_column_text(s, 0), len, top);
			sqlite3_finalize(s);
			return -EIO;
		}
		if (rl_read_add(r, col_guid(s, 0), (uint16_t)sqlite3_column_int(s, 1),
				(uint16_t)top, blob) < 0) {
			snprintf(err, errlen, "out of memory");
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(db, err, errlen, "load forwarding tables");
	rl_read_sort(r);
	return 0;
}

int rl_db_load_read(sqlite3 *db, const char *subnet, struct rl_read **out, json_t **info,
		    char *err, size_t errlen)
{
	struct rl_read *r = NULL;
	sqlite3_stmt *s;
	int64_t sid;
	char ts[32];
	int rc;

	*out = NULL;
	*info = NULL;
	if (!has_lft_tables(db)) {
		snprintf(err, errlen, "this database has no forwarding tables (schema before 2)");
		return -ENOENT;
	}
	if ((rc = subnet_id(db, subnet, &sid, err, errlen)) < 0)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT id, sweep_id, started, finished, switches, smps "
			       "FROM lft_reads WHERE subnet_id = ? ORDER BY id DESC LIMIT 1",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(db, err, errlen, "forwarding table reads");
	sqlite3_bind_int64(s, 1, sid);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return db_err(db, err, errlen, "forwarding table reads");
		snprintf(err, errlen, "no forwarding tables of subnet %s were read yet: run "
			 "route check or route trace without --cached on a running loomd", subnet);
		return -ENOENT;
	}
	if (!(r = rl_read_new())) {
		sqlite3_finalize(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->id = sqlite3_column_int64(s, 0);
	r->sweep_id = sqlite3_column_int64(s, 1);
	r->started = sqlite3_column_double(s, 2);
	r->finished = sqlite3_column_double(s, 3);
	r->smps = (size_t)sqlite3_column_int64(s, 5);
	*info = json_pack("{s:I, s:s, s:f, s:I, s:I, s:I, s:o, s:b}",
			  "id", (json_int_t)r->id,
			  "time", dbq_time_str(r->finished, ts, sizeof(ts)), "ts", r->finished,
			  "duration_ms", (json_int_t)((r->finished - r->started) * 1000.0 + 0.5),
			  "switches", (json_int_t)sqlite3_column_int64(s, 4),
			  "smps", (json_int_t)r->smps,
			  "sweep", sqlite3_column_type(s, 1) == SQLITE_NULL ? json_null() :
				   json_integer(r->sweep_id),
			  "stale", swept_since(db, sid, r->sweep_id, r->finished));
	sqlite3_finalize(s);
	if (!*info) {
		rl_read_free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = load_tables(db, r, err, errlen)) < 0) {
		rl_read_free(r);
		json_decref(*info);
		*info = NULL;
		return rc;
	}
	*out = r;
	return 0;
}

/* ---- the two questions -------------------------------------------------------------- */

struct question {
	const struct rt_metrics_opts *opts;  /* check */
	const struct rl_vl_input *vl;        /* check: NULL, none */
	const char *src, *dst;               /* trace */
};

static int answer(sqlite3 *db, const char *subnet, const struct question *q,
		  json_t **out, char *err, size_t errlen)
{
	char name[FAB_NAME_LEN], ca[64];
	struct rl_read *r = NULL;
	struct fab *fab = NULL;
	struct nodename_map *names = NULL;
	json_t *info = NULL;
	int port, rc;

	*out = NULL;
	if ((rc = rl_db_subnet(db, subnet, name, sizeof(name), ca, sizeof(ca), &port,
			       err, errlen)) < 0 ||
	    (rc = rl_db_load_read(db, name, &r, &info, err, errlen)) < 0)
		return rc;
	if (!(fab = rl_db_load_fabric(db, name, err, errlen))) {
		rc = -EIO;
		goto out;
	}
	/* the site's names, as loomd stored them (or --node-name-map's) */
	if ((rc = names_db_load(db, &names, err, errlen)) < 0)
		goto out;
	rc = q->src ? rl_trace(fab, r, names, q->src, q->dst, out, err, errlen) :
		      rl_check(fab, r, names, q->opts, q->vl, out, err, errlen);
	if (rc == 0 && (json_object_set_new(*out, "subnet", json_string(name)) < 0 ||
			json_object_set(*out, "read", info) < 0)) {
		json_decref(*out);
		*out = NULL;
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
out:
	json_decref(info);
	fab_free(fab);
	nodename_map_free(names);
	rl_read_free(r);
	return rc;
}

int rl_db_check(sqlite3 *db, const char *subnet, const struct rt_metrics_opts *opts,
		const struct rl_vl_input *vl, json_t **out, char *err, size_t errlen)
{
	struct question q = { .opts = opts, .vl = vl };

	return answer(db, subnet, &q, out, err, errlen);
}

int rl_db_trace(sqlite3 *db, const char *subnet, const char *src, const char *dst,
		json_t **out, char *err, size_t errlen)
{
	struct question q = { .src = src, .dst = dst };

	return answer(db, subnet, &q, out, err, errlen);
}
