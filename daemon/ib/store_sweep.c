/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/store_sweep.c: the IB fabric's tables (nodes, ports, links,
 * sweeps, their events; LFT reads) in loom's database (see store_sweep.h).
 * A sweep is recorded in one transaction: the diff against the stored
 * fabric, the changed rows and the change events, or nothing. */
#include "autoconf.h"
#include "daemon/ib/store_sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "lib/fabric/fabric_diff.h"
#include "lib/fabric/ibtypes.h"
#include "lib/db/job_db.h"
#include "lib/db/lft_history.h"
#include "lib/util/log.h"
#include "lib/route/route_live.h"
#include "lib/db/route_live_db.h"

/* ---- loading the stored fabric -------------------------------------------- */

static int subnet_id(struct store *st, const char *name, int64_t *id)
{
	int64_t v = store_subnet_id(st, name);

	*id = v > 0 ? v : 0;
	return v < 0 ? (int)v : 0;
}

struct fab *store_load_fabric(struct store *st, const char *subnet, char *err, size_t errlen)
{
	struct fab *fab = rl_db_load_fabric(store_db(st), subnet, err, errlen);

	if (!fab)
		log_err("database %s: %s", store_path(st), err);
	return fab;
}

/* ---- recording a sweep ------------------------------------------------------ */

enum {
	Q_NODE_UPSERT,
	Q_NODE_DELETE,
	Q_NODES_SEEN,
	Q_PORT_UPSERT,
	Q_PORT_DELETE,
	Q_LINK_UPSERT,
	Q_LINK_DELETE,
	Q_EVENT_INSERT,
	Q_COUNT
};

static const char *const record_sql[Q_COUNT] = {
	[Q_NODE_UPSERT] =
		"INSERT INTO nodes (subnet_id, guid, type, sysimg_guid, vendor_id, device_id, "
		"revision, description, nports, first_seen, last_seen) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10) "
		"ON CONFLICT (subnet_id, guid) DO UPDATE SET type = excluded.type, "
		"sysimg_guid = excluded.sysimg_guid, vendor_id = excluded.vendor_id, "
		"device_id = excluded.device_id, revision = excluded.revision, "
		"description = excluded.description, nports = excluded.nports, "
		"last_seen = excluded.last_seen",
	[Q_NODE_DELETE] = "DELETE FROM nodes WHERE subnet_id = ? AND guid = ?",
	[Q_NODES_SEEN] = "UPDATE nodes SET last_seen = ?2 WHERE subnet_id = ?1",
	/* An upsert is an UPDATE for a row that exists: it does not cascade to
	 * the links that reference the port, as a DELETE + INSERT would. */
	[Q_PORT_UPSERT] =
		"INSERT INTO ports (subnet_id, node_guid, num, guid, lid, lmc, state, phys_state, "
		"width_active, width_enabled, width_supported, speed_active, speed_enabled, "
		"speed_supported, mtu, vls, peer_guid, peer_port, last_peer_guid, last_peer_port, "
		"last_peer_desc) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
		"?18, ?17, ?18, ?19) "
		"ON CONFLICT (subnet_id, node_guid, num) DO UPDATE SET guid = excluded.guid, "
		"lid = excluded.lid, lmc = excluded.lmc, state = excluded.state, "
		"phys_state = excluded.phys_state, width_active = excluded.width_active, "
		"width_enabled = excluded.width_enabled, width_supported = excluded.width_supported, "
		"speed_active = excluded.speed_active, speed_enabled = excluded.speed_enabled, "
		"speed_supported = excluded.speed_supported, mtu = excluded.mtu, vls = excluded.vls, "
		"peer_guid = excluded.peer_guid, peer_port = excluded.peer_port, "
		/* The last peer (schema 017): kept while the port has none,
		 * forgotten when it is disabled (PortPhysicalState 3). */
		"last_peer_guid = CASE WHEN excluded.phys_state = 3 THEN NULL ELSE "
		"coalesce(excluded.peer_guid, ports.last_peer_guid) END, "
		"last_peer_port = CASE WHEN excluded.phys_state = 3 THEN NULL ELSE "
		"coalesce(excluded.peer_port, ports.last_peer_port) END, "
		"last_peer_desc = CASE WHEN excluded.phys_state = 3 THEN NULL ELSE "
		"coalesce(excluded.last_peer_desc, ports.last_peer_desc) END",
	[Q_PORT_DELETE] = "DELETE FROM ports WHERE subnet_id = ? AND node_guid = ? AND num = ?",
	[Q_LINK_UPSERT] =
		"INSERT OR REPLACE INTO links (subnet_id, a_guid, a_port, b_guid, b_port, width, "
		"speed, degraded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[Q_LINK_DELETE] = "DELETE FROM links WHERE subnet_id = ? AND a_guid = ? AND a_port = ?",
	[Q_EVENT_INSERT] =
		"INSERT INTO events (time, subnet_id, sweep_id, severity, kind, subject, "
		"old_value, new_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
};

struct recorder {
	struct store *st;
	int64_t sid;
	sqlite3_stmt *q[Q_COUNT];
};

static int step_reset(struct recorder *r, int which)
{
	sqlite3_stmt *s = r->q[which];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return store_fail(r->st, record_sql[which]);
	return 0;
}

static void bind_guid(sqlite3_stmt *s, int col, uint64_t guid)
{
	char buf[24];

	sqlite3_bind_text(s, col, ibt_guid_str(guid, buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
}

static int write_node(struct recorder *r, const struct fab_node *n, double now)
{
	sqlite3_stmt *s = r->q[Q_NODE_UPSERT];

	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, n->guid);
	sqlite3_bind_text(s, 3, ibt_node_type_name(n->type), -1, SQLITE_STATIC);
	bind_guid(s, 4, n->sysimg_guid);
	sqlite3_bind_int64(s, 5, n->vendor_id);
	sqlite3_bind_int(s, 6, n->device_id);
	sqlite3_bind_int64(s, 7, n->revision);
	sqlite3_bind_text(s, 8, n->desc, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 9, n->nports);
	sqlite3_bind_double(s, 10, now);
	return step_reset(r, Q_NODE_UPSERT);
}

static int write_port(struct recorder *r, const struct fab *fab, const struct fab_node *n,
		      const struct fab_port *p)
{
	sqlite3_stmt *s = r->q[Q_PORT_UPSERT];
	const struct fab_node *pn;

	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, n->guid);
	sqlite3_bind_int(s, 3, p->num);
	bind_guid(s, 4, p->guid);
	sqlite3_bind_int(s, 5, p->lid);
	sqlite3_bind_int(s, 6, p->lmc);
	sqlite3_bind_int(s, 7, p->state);
	sqlite3_bind_int(s, 8, p->phys_state);
	sqlite3_bind_int(s, 9, p->width_active);
	sqlite3_bind_int(s, 10, p->width_enabled);
	sqlite3_bind_int(s, 11, p->width_supported);
	sqlite3_bind_int(s, 12, p->speed_active);
	sqlite3_bind_int(s, 13, p->speed_enabled);
	sqlite3_bind_int(s, 14, p->speed_supported);
	sqlite3_bind_int(s, 15, p->mtu);
	sqlite3_bind_int(s, 16, p->vls);
	if (p->has_peer) {
		bind_guid(s, 17, p->peer_guid);
		sqlite3_bind_int(s, 18, p->peer_port);
		if ((pn = fab_find(fab, p->peer_guid)))
			sqlite3_bind_text(s, 19, pn->desc, -1, SQLITE_STATIC);
	}
	return step_reset(r, Q_PORT_UPSERT);
}

static int delete_port(struct recorder *r, uint64_t node_guid, unsigned num)
{
	sqlite3_stmt *s = r->q[Q_PORT_DELETE];

	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, node_guid);
	sqlite3_bind_int(s, 3, (int)num);
	return step_reset(r, Q_PORT_DELETE);
}

static int write_link(struct recorder *r, const struct fab_link *l)
{
	sqlite3_stmt *s = r->q[Q_LINK_UPSERT];

	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, l->a_node->guid);
	sqlite3_bind_int(s, 3, l->a->num);
	bind_guid(s, 4, l->b_node->guid);
	sqlite3_bind_int(s, 5, l->b->num);
	sqlite3_bind_int(s, 6, l->a->width_active);
	sqlite3_bind_int(s, 7, l->a->speed_active);
	sqlite3_bind_int(s, 8, fab_link_degraded(l->a, l->b));
	return step_reset(r, Q_LINK_UPSERT);
}

static int delete_link(struct recorder *r, uint64_t a_guid, unsigned a_port)
{
	sqlite3_stmt *s = r->q[Q_LINK_DELETE];

	sqlite3_bind_int64(s, 1, r->sid);
	bind_guid(s, 2, a_guid);
	sqlite3_bind_int(s, 3, (int)a_port);
	return step_reset(r, Q_LINK_DELETE);
}

static int write_event(struct recorder *r, int64_t sweep_id, double time,
		       const char *severity, const char *kind, const char *subject,
		       const char *old_value, const char *new_value)
{
	sqlite3_stmt *s = r->q[Q_EVENT_INSERT];

	sqlite3_bind_double(s, 1, time);
	sqlite3_bind_int64(s, 2, r->sid);
	sqlite3_bind_int64(s, 3, sweep_id);
	sqlite3_bind_text(s, 4, severity, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, old_value, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, new_value, -1, SQLITE_STATIC);
	int rc = step_reset(r, Q_EVENT_INSERT);

	if (rc == 0)
		store_event_told(r->st, &(struct store_event){ time, r->sid, severity, kind,
								subject, old_value, new_value });
	return rc;
}

static int recorder_init(struct recorder *r, struct store *st)
{
	memset(r, 0, sizeof(*r));
	r->st = st;
	for (int i = 0; i < Q_COUNT; i++)
		if (sqlite3_prepare_v2(store_db(st), record_sql[i], -1, &r->q[i], NULL) != SQLITE_OK)
			return store_fail(st, record_sql[i]);
	return 0;
}

static void recorder_fini(struct recorder *r)
{
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(r->q[i]);
}

/* The subnet's row, created on its first sweep; its CA/port follow config. */
static int ensure_subnet(struct store *st, const struct store_sweep_info *info, int64_t *sid)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(store_db(st),
			       "INSERT INTO subnets (name, ca, port, created) VALUES (?, ?, ?, ?) "
			       "ON CONFLICT (name) DO UPDATE SET ca = excluded.ca, port = excluded.port",
			       -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "insert subnet");
	sqlite3_bind_text(s, 1, info->subnet, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, info->ca ? info->ca : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, info->port);
	sqlite3_bind_double(s, 4, info->started);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "insert subnet");
	return subnet_id(st, info->subnet, sid);
}

static int had_ok_sweep(struct store *st, int64_t sid, int *yes)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(store_db(st), "SELECT 1 FROM sweeps WHERE subnet_id = ? AND "
			       "status = 'ok' LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "look up sweeps");
	sqlite3_bind_int64(s, 1, sid);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "look up sweeps");
	*yes = rc == SQLITE_ROW;
	return 0;
}

/* A walk's count, or NULL (left unbound) when it is not known. */
static void bind_count(sqlite3_stmt *s, int i, uint64_t v)
{
	if (v != FAB_COUNT_UNKNOWN)
		sqlite3_bind_int64(s, i, (int64_t)v);
}

/* The subnet's sums of its sweeps' SMP counts (schema 022's totals, what
 * /metrics reads), in the sweep's transaction; a count not known adds
 * nothing, a sum stays NULL until one is. */
#define ADD_COUNT(c) c " = CASE WHEN excluded." c " IS NULL THEN " c " ELSE " \
	"coalesce(" c ", 0) + excluded." c " END"
static int add_smp_totals(struct store *st, int64_t sid, const struct fab_smps *c)
{
	sqlite3_stmt *s;
	int rc;

	if (c->sent == FAB_COUNT_UNKNOWN && c->retries == FAB_COUNT_UNKNOWN &&
	    c->lost == FAB_COUNT_UNKNOWN)
		return 0;
	if (sqlite3_prepare_v2(store_db(st),
			       "INSERT INTO sweep_smp_totals (subnet_id, smps, smp_retries, "
			       "smps_lost) VALUES (?, ?, ?, ?) ON CONFLICT (subnet_id) DO UPDATE "
			       "SET " ADD_COUNT("smps") ", " ADD_COUNT("smp_retries") ", "
			       ADD_COUNT("smps_lost"), -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "add the sweep's SMPs");
	sqlite3_bind_int64(s, 1, sid);
	bind_count(s, 2, c->sent);
	bind_count(s, 3, c->retries);
	bind_count(s, 4, c->lost);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_fail(st, "add the sweep's SMPs");
}

static int insert_sweep(struct store *st, int64_t sid, const struct store_sweep_info *info,
			const char *error, const struct fab *fab, size_t n_events, int64_t *id)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(store_db(st),
			       "INSERT INTO sweeps (subnet_id, started, finished, status, error, "
			       "nodes, ports, links, events, kind, smps, smp_retries, smps_lost) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "insert sweep");
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_double(s, 2, info->started);
	sqlite3_bind_double(s, 3, info->finished);
	sqlite3_bind_text(s, 4, error ? "failed" : "ok", -1, SQLITE_STATIC);
	if (error)
		sqlite3_bind_text(s, 5, error, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 6, fab ? (int64_t)fab->n_nodes : 0);
	sqlite3_bind_int64(s, 7, fab ? (int64_t)fab_count_ports(fab) : 0);
	sqlite3_bind_int64(s, 8, fab ? (int64_t)fab_count_links(fab) : 0);
	sqlite3_bind_int64(s, 9, (int64_t)n_events);
	sqlite3_bind_text(s, 10, info->kind ? info->kind : "full", -1, SQLITE_STATIC);
	if (fab) {
		bind_count(s, 11, fab->smps.sent);
		bind_count(s, 12, fab->smps.retries);
		bind_count(s, 13, fab->smps.lost);
	}
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "insert sweep");
	*id = sqlite3_last_insert_rowid(store_db(st));
	return fab ? add_smp_totals(st, sid, &fab->smps) : 0;
}

/* Replace the subnet's nodes, ports and links with `fab`. */
static int same_node(const struct fab_node *a, const struct fab_node *b)
{
	return a->type == b->type && a->sysimg_guid == b->sysimg_guid &&
	       a->vendor_id == b->vendor_id && a->device_id == b->device_id &&
	       a->revision == b->revision && a->nports == b->nports &&
	       strcmp(a->desc, b->desc) == 0;
}

/* Every field the ports table keeps (fab_port has padding: no memcmp). */
static int same_port(const struct fab_port *a, const struct fab_port *b)
{
	return a->present == b->present && a->guid == b->guid && a->lid == b->lid &&
	       a->lmc == b->lmc && a->state == b->state && a->phys_state == b->phys_state &&
	       a->width_active == b->width_active && a->width_enabled == b->width_enabled &&
	       a->width_supported == b->width_supported &&
	       a->speed_active == b->speed_active && a->speed_enabled == b->speed_enabled &&
	       a->speed_supported == b->speed_supported && a->mtu == b->mtu &&
	       a->vls == b->vls && a->has_peer == b->has_peer &&
	       (!a->has_peer || (a->peer_guid == b->peer_guid && a->peer_port == b->peer_port));
}

/* The port `num` of node guid in f, or NULL if f has no such present port. */
static const struct fab_port *port_in(const struct fab *f, uint64_t guid, unsigned num)
{
	const struct fab_node *n = fab_find(f, guid);

	return n ? fab_port(n, num) : NULL;
}

struct link_sync {
	struct recorder *r;
	const struct fab *other;
	int writing;    /* 1: links of the new fabric (write); 0: of the old (delete) */
};

/* A link is unchanged when the other fabric has the same link from the same
 * end with the same ports: width, speed and the degraded flag follow from
 * those ports, which same_port() compares. */
static int link_unchanged(const struct fab *other, const struct fab_link *l)
{
	const struct fab_port *a = port_in(other, l->a_node->guid, l->a->num);
	const struct fab_port *b = port_in(other, l->b_node->guid, l->b->num);

	return a && b && same_port(a, l->a) && same_port(b, l->b);
}

static int sync_link(const struct fab_link *l, void *arg)
{
	struct link_sync *ls = arg;

	if (link_unchanged(ls->other, l))
		return 0;
	return ls->writing ? write_link(ls->r, l) : delete_link(ls->r, l->a_node->guid, l->a->num);
}

/* Bring the stored fabric (prev, as loaded from the database in this very
 * transaction) to `fab`, writing only rows that changed: a sweep of an
 * unchanged fabric then costs one UPDATE of last_seen. Deleting a node or a
 * port cascades to the links that reference it. */
static int write_fabric(struct recorder *r, const struct fab *prev, const struct fab *fab,
			double now)
{
	struct link_sync ls = { .r = r };
	sqlite3_stmt *s;
	int rc;

	for (size_t i = 0; i < prev->n_nodes; i++) {
		if (fab_find(fab, prev->nodes[i]->guid))
			continue;
		s = r->q[Q_NODE_DELETE];
		sqlite3_bind_int64(s, 1, r->sid);
		bind_guid(s, 2, prev->nodes[i]->guid);
		if ((rc = step_reset(r, Q_NODE_DELETE)) < 0)
			return rc;
	}
	/* Old links that are gone or changed, before their ports change. */
	ls.other = fab;
	if ((rc = fab_foreach_link(prev, sync_link, &ls)) < 0)
		return rc;

	s = r->q[Q_NODES_SEEN];
	sqlite3_bind_int64(s, 1, r->sid);
	sqlite3_bind_double(s, 2, now);
	if ((rc = step_reset(r, Q_NODES_SEEN)) < 0)
		return rc;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];
		const struct fab_node *old = fab_find(prev, n->guid);
		unsigned last = n->nports;

		if ((!old || !same_node(old, n)) && (rc = write_node(r, n, now)) < 0)
			return rc;
		if (old && old->nports > last)
			last = old->nports;
		for (unsigned p = 0; p <= last; p++) {
			const struct fab_port *np = fab_port(n, p);
			const struct fab_port *op = old ? fab_port(old, p) : NULL;

			if (np && !(op && same_port(op, np)))
				rc = write_port(r, fab, n, np);
			else if (!np && op)
				rc = delete_port(r, n->guid, p);
			if (rc < 0)
				return rc;
		}
	}
	/* New links and changed ones. */
	ls.other = prev;
	ls.writing = 1;
	return fab_foreach_link(fab, sync_link, &ls);
}

/* A link's event with the jobs that crossed it (as the job index saw the
 * tables before this sweep) after its new value: "jobs: A, B". */
static const char *event_jobs(const struct store_sweep_info *info, const struct fab_event *ev,
			      char *buf, size_t len)
{
	unsigned long long guid;
	unsigned port;
	char names[512];

	if (!info->jobs || (ev->kind != FAB_EV_LINK_DOWN && ev->kind != FAB_EV_LINK_DEGRADED) ||
	    sscanf(ev->subject, "0x%llx[%u]", &guid, &port) != 2 ||
	    !job_index_names_at(info->jobs, info->subnet, guid, port, 0, names,
				sizeof(names))[0])
		return ev->new_value;
	snprintf(buf, len, "%s%sjobs: %s", ev->new_value, ev->new_value[0] ? "; " : "", names);
	return buf;
}

/* A link that bounces is one link_flap event with a count (docs/events.md):
 * its first down and up are link_down and link_up as ever; a down again
 * within FLAP_WINDOW_S of the last of those is link_flap (warning), "2
 * bounces"; each change after that within the window from the flap event
 * adds to its count in place, and writes nothing new. A link quiet for the
 * window starts over. 1: ev was folded into a flap (written or counted), 0:
 * record it as it is, -errno. */
#define FLAP_WINDOW_S 600

static int fold_flap(struct recorder *r, int64_t sweep_id, double now, const struct fab_event *ev)
{
	sqlite3 *db = store_db(r->st);
	sqlite3_stmt *s;
	char kind[32] = "", value[128];
	int64_t id = 0;
	int rc, count = 0;

	if (ev->kind != FAB_EV_LINK_DOWN && ev->kind != FAB_EV_LINK_UP)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT id, kind, new_value FROM events WHERE time > ?1 AND "
			       "subnet_id = ?2 AND subject = ?3 AND kind IN ('link_down', "
			       "'link_up', 'link_flap') ORDER BY id DESC LIMIT 1", -1, &s, NULL)
	    != SQLITE_OK)
		return store_fail(r->st, "look for a flapping link");
	sqlite3_bind_double(s, 1, now - FLAP_WINDOW_S);
	sqlite3_bind_int64(s, 2, r->sid);
	sqlite3_bind_text(s, 3, ev->subject, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		id = sqlite3_column_int64(s, 0);
		snprintf(kind, sizeof(kind), "%s", (const char *)sqlite3_column_text(s, 1));
		count = atoi((const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(r->st, "look for a flapping link");
	if (strcmp(kind, "link_flap") == 0) {
		/* Counted in place: one more change of the same link. */
		snprintf(value, sizeof(value), "%d bounces; now %s", count + (ev->kind ==
			 FAB_EV_LINK_DOWN), ev->kind == FAB_EV_LINK_DOWN ? "down" : "up");
		if (sqlite3_prepare_v2(db, "UPDATE events SET new_value = ?1 WHERE id = ?2", -1, &s,
				       NULL) != SQLITE_OK)
			return store_fail(r->st, "count a flapping link");
		sqlite3_bind_text(s, 1, value, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, id);
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		return rc == SQLITE_DONE ? 1 : store_fail(r->st, "count a flapping link");
	}
	if (ev->kind != FAB_EV_LINK_DOWN || strcmp(kind, "link_up") != 0)
		return 0;
	/* Down again soon after it came back: a flap. */
	rc = write_event(r, sweep_id, now, "warning", "link_flap", ev->subject, ev->old_value,
			 "2 bounces; now down");
	return rc < 0 ? rc : 1;
}

static int record(struct store *st, const struct store_sweep_info *info,
		  const struct fab *fab, struct store_sweep_result *res)
{
	struct recorder r;
	struct fab *prev = NULL;
	struct fab_diff *diff = NULL;
	char err[512];
	int64_t sweep_id = 0;
	int ok_before = 0;
	int rc;

	if ((rc = recorder_init(&r, st)) < 0)
		goto out;
	if ((rc = ensure_subnet(st, info, &r.sid)) < 0 ||
	    (rc = had_ok_sweep(st, r.sid, &ok_before)) < 0)
		goto out;
	if (!(prev = store_load_fabric(st, info->subnet, err, sizeof(err)))) {
		rc = -EIO;
		goto out;
	}
	if (!(diff = fab_diff_new(ok_before ? prev : NULL, fab, info->names))) {
		rc = -ENOMEM;
		log_err("subnet %s: out of memory comparing sweeps", info->subnet);
		goto out;
	}
	if ((rc = write_fabric(&r, prev, fab, info->finished)) < 0 ||
	    (rc = insert_sweep(st, r.sid, info, NULL, fab, diff->n_events, &sweep_id)) < 0)
		goto out;
	for (size_t i = 0; i < diff->n_events; i++) {
		const struct fab_event *ev = &diff->events[i];
		char with_jobs[768];

		if ((rc = fold_flap(&r, sweep_id, info->finished, ev)) != 0) {
			if (rc < 0)
				goto out;
			rc = 0;
			continue;
		}
		rc = write_event(&r, sweep_id, info->finished, fab_ev_severity_name(ev->severity),
				 fab_ev_kind_name(ev->kind), ev->subject, ev->old_value,
				 event_jobs(info, ev, with_jobs, sizeof(with_jobs)));
		if (rc < 0)
			goto out;
	}
	if (res) {
		res->sweep_id = sweep_id;
		res->n_events = diff->n_events;
	}
out:
	fab_diff_free(diff);
	fab_free(prev);
	recorder_fini(&r);
	return rc;
}

/* BEGIN IMMEDIATE takes the write lock up front, so the diff is computed
 * against the fabric this very transaction replaces. */
static int in_transaction(struct store *st,
			  int (*body)(struct store *, const void *, struct store_sweep_result *),
			  const void *arg, struct store_sweep_result *res)
{
	struct store_sweep_result tmp = { 0, 0 };
	int rc;

	if ((rc = store_exec(st, "BEGIN IMMEDIATE")) < 0)
		return rc;
	rc = body(st, arg, &tmp);
	if (rc == 0)
		rc = store_exec(st, "COMMIT");
	if (rc < 0) {
		sqlite3_exec(store_db(st), "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	if (res)
		*res = tmp;
	return 0;
}

struct sweep_args {
	const struct store_sweep_info *info;
	const struct fab *fab;
	const char *error;
};

static int record_ok(struct store *st, const void *arg, struct store_sweep_result *res)
{
	const struct sweep_args *a = arg;

	return record(st, a->info, a->fab, res);
}

int store_record_sweep(struct store *st, const struct store_sweep_info *info,
		       const struct fab *fab, struct store_sweep_result *res)
{
	struct sweep_args a = { .info = info, .fab = fab };
	char err[512];

	/* A graph whose peers do not point back would store links to ports that
	 * are not there: refuse it whole rather than record half of it. */
	if (fab_check(fab, err, sizeof(err)) < 0) {
		log_err("subnet %s: sweep not recorded: %s", info->subnet, err);
		return -EINVAL;
	}
	return in_transaction(st, record_ok, &a, res);
}

static int record_failed(struct store *st, const void *arg, struct store_sweep_result *res)
{
	const struct sweep_args *a = arg;
	struct recorder r;
	char subject[160];
	int64_t sweep_id;
	int rc;

	if ((rc = recorder_init(&r, st)) < 0 ||
	    (rc = ensure_subnet(st, a->info, &r.sid)) < 0 ||
	    (rc = insert_sweep(st, r.sid, a->info, a->error, NULL, 1, &sweep_id)) < 0)
		goto out;
	snprintf(subject, sizeof(subject), "subnet %s", a->info->subnet);
	rc = write_event(&r, sweep_id, a->info->finished, "warning", "sweep_failed", subject,
			 "", a->error);
	if (rc == 0) {
		res->sweep_id = sweep_id;
		res->n_events = 1;
	}
out:
	recorder_fini(&r);
	return rc;
}

int store_record_failed_sweep(struct store *st, const struct store_sweep_info *info,
			      const char *error, struct store_sweep_result *res)
{
	struct sweep_args a = { .info = info, .error = error && *error ? error : "unknown error" };

	return in_transaction(st, record_failed, &a, res);
}

/* ---- forwarding tables read back from the switches -------------------------- */

/* Reads kept per subnet: enough to look back at the last few checks, while
 * a fabric of thousands of switches adds megabytes per read. */
#define STORE_LFT_READS_KEPT 8

struct lfts_args {
	const char *subnet;
	int64_t sweep_id;
	const struct rl_read *r;
	int64_t *read_id;
};

static int record_lfts(struct store *st, const void *arg, struct store_sweep_result *res)
{
	const struct lfts_args *a = arg;
	sqlite3_stmt *s = NULL;
	int64_t sid, id;
	int rc;

	(void)res;
	if ((rc = subnet_id(st, a->subnet, &sid)) < 0)
		return rc;
	if (!sid) {
		log_err("subnet %s: forwarding tables not recorded: the subnet was never swept",
			a->subnet);
		return -ENOENT;
	}
	if (sqlite3_prepare_v2(store_db(st), "INSERT INTO lft_reads (subnet_id, sweep_id, started, "
			       "finished, switches, smps) VALUES (?, ?, ?, ?, ?, ?)", -1, &s,
			       NULL) != SQLITE_OK)
		return store_fail(st, "insert LFT read");
	sqlite3_bind_int64(s, 1, sid);
	if (a->sweep_id > 0)
		sqlite3_bind_int64(s, 2, a->sweep_id);
	sqlite3_bind_double(s, 3, a->r->started);
	sqlite3_bind_double(s, 4, a->r->finished);
	sqlite3_bind_int64(s, 5, (int64_t)a->r->n);
	sqlite3_bind_int64(s, 6, (int64_t)a->r->smps);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "insert LFT read");
	id = sqlite3_last_insert_rowid(store_db(st));
	if (sqlite3_prepare_v2(store_db(st), "INSERT INTO lfts (read_id, switch_guid, lid, top, lft) "
			       "VALUES (?, ?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "insert LFT");
	for (size_t i = 0; i < a->r->n; i++) {
		const struct rl_table *t = &a->r->t[i];

		sqlite3_bind_int64(s, 1, id);
		bind_guid(s, 2, t->guid);
		sqlite3_bind_int(s, 3, t->lid);
		sqlite3_bind_int(s, 4, t->top);
		sqlite3_bind_blob(s, 5, t->port, (int)t->top + 1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE) {
			rc = store_fail(st, "insert LFT");
			sqlite3_finalize(s);
			return rc;
		}
	}
	sqlite3_finalize(s);
	/* The history (schema 021) compares with the previous read: before
	 * the older reads go. */
	{
		char why[256];
		int added;

		if (lfth_record(store_db(st), sid, id, a->r->started, &added, why,
				sizeof(why)) < 0) {
			log_err("subnet %s: forwarding table history: %s", a->subnet, why);
			return -EIO;
		}
		if (added)
			log_info("subnet %s: forwarding tables changed: a new version kept",
				 a->subnet);
	}
	if (sqlite3_prepare_v2(store_db(st), "DELETE FROM lft_reads WHERE subnet_id = ?1 AND id NOT IN "
			       "(SELECT id FROM lft_reads WHERE subnet_id = ?1 ORDER BY id DESC "
			       "LIMIT ?2)", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune LFT reads");
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_int(s, 2, STORE_LFT_READS_KEPT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "prune LFT reads");
	if (a->read_id)
		*a->read_id = id;
	return 0;
}

int store_record_lfts(struct store *st, const char *subnet, int64_t sweep_id,
		      const struct rl_read *r, int64_t *read_id)
{
	struct lfts_args a = { .subnet = subnet, .sweep_id = sweep_id, .r = r, .read_id = read_id };

	return in_transaction(st, record_lfts, &a, NULL);
}

int store_subnet_of_port(struct store *st, uint64_t port_guid, char *name, size_t len)
{
	sqlite3_stmt *s;
	char guid[24];
	int found = 0;

	if (sqlite3_prepare_v2(store_db(st), "SELECT s.name FROM ports p JOIN subnets s "
			       "ON s.id = p.subnet_id WHERE p.guid = ? LIMIT 1", -1, &s, NULL)
	    != SQLITE_OK)
		return store_fail(st, "look up a port's subnet");
	sqlite3_bind_text(s, 1, ibt_guid_str(port_guid, guid, sizeof(guid)), -1,
			  SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
		snprintf(name, len, "%s", sqlite3_column_text(s, 0));
		found = 1;
	}
	sqlite3_finalize(s);
	return found;
}
