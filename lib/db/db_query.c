/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_query.c: read-only queries on loom's database, as JSON.
 * Failures are reported through `err` (the caller decides where it goes:
 * the control socket's reply or loomctl's stderr), never logged here. */
#include "autoconf.h"
#include "lib/db/db_query.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/db/db_query_impl.h"
#include "lib/db/db_row.h"
#include "lib/db/link_state_db.h"
#include "lib/db/names_db.h"
#include "lib/db/port_panel_db.h"
#include "lib/fabric/fabric_diff.h"
#include "lib/fabric/ibtypes.h"
#include "lib/telemetry/port_alarms.h"
#include "lib/util/log.h"

sqlite3 *dbq_open_readonly(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int version = 0;

	/* sqlite would create nothing here, but its "unable to open" hides why. */
	if (stat(path, &sb) < 0) {
		dbq_fail(err, errlen, 0, "%s: %s (has loomd run with this database?)", path,
		     strerror(errno));
		return NULL;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		dbq_fail(err, errlen, 0, "%s: cannot open the database: %s", path,
		     db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW || (version = sqlite3_column_int(s, 0)) <= 0) {
		dbq_fail(err, errlen, 0, "%s: not a loom database%s%s", path,
		     version ? "" : " (", version ? "" : "no loom schema)");
		sqlite3_finalize(s);
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_finalize(s);
	return db;
}

int dbq_data_version(sqlite3 *db, unsigned *out)
{
	sqlite3_stmt *s = NULL;
	unsigned v = 0;

	/* The pager sees other connections' commits when a read begins: a
	 * statement first, then its counter (which, unlike the pragma's
	 * value, also moves on this connection's own commits). */
	if (sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return -EIO;
	}
	sqlite3_finalize(s);
	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK)
		return -EIO;
	*out = v;
	return 0;
}

/* ---- row -> JSON ------------------------------------------------------------- */

static json_t *hex(unsigned long v, int digits)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%0*lx", digits, v);
	return json_string(buf);
}

/* A width/speed single bit by name; a port that is down has none: "". */
static const char *width_name(unsigned v)
{
	return v ? ibt_width_name(v) : "";
}

static const char *speed_name(unsigned v)
{
	return v ? ibt_speed_name(v) : "";
}

#define NODE_COLS \
	"s.name, n.guid, n.type, n.description, n.nports, n.sysimg_guid, n.vendor_id, " \
	"n.device_id, n.revision, (SELECT p.lid FROM ports p WHERE p.subnet_id = " \
	"n.subnet_id AND p.node_guid = n.guid AND p.lid <> 0 ORDER BY p.num LIMIT 1), " \
	"n.first_seen, n.last_seen, " NAMES_DB_NAME("n.guid", "n.description") " "
#define NODE_FROM " FROM nodes n JOIN subnets s ON s.id = n.subnet_id "

static json_t *node_json(sqlite3_stmt *s)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "fabric", "ib", "guid", dbq_col_str(s, 1), "type", dbq_col_str(s, 2),
			 "desc", dbq_col_text(s, 3), "name", dbq_col_text(s, 12),
			 "ports", sqlite3_column_int(s, 4),
			 "subnet", dbq_col_str(s, 0), "sysimg_guid", dbq_col_str(s, 5),
			 "vendor_id", hex((unsigned long)sqlite3_column_int64(s, 6), 6),
			 "device_id", hex((unsigned long)sqlite3_column_int64(s, 7), 4),
			 "revision", hex((unsigned long)sqlite3_column_int64(s, 8), 1),
			 "lid", sqlite3_column_type(s, 9) == SQLITE_NULL ? json_null() :
				json_integer(sqlite3_column_int(s, 9)),
			 "first_seen", dbq_col_time(s, 10), "last_seen", dbq_col_time(s, 11));
}

#define PORT_COLS \
	"s.name, p.node_guid, n.description, p.num, p.guid, p.lid, p.lmc, p.state, " \
	"p.phys_state, p.width_active, p.width_enabled, p.width_supported, p.speed_active, " \
	"p.speed_enabled, p.speed_supported, p.mtu, p.vls, p.peer_guid, p.peer_port, " \
	NAMES_DB_NAME("p.node_guid", "n.description") ", " \
	NAMES_DB_NAME("p.peer_guid", "(SELECT pn.description FROM nodes pn WHERE " \
		      "pn.subnet_id = p.subnet_id AND pn.guid = p.peer_guid)") " "
#define PORT_FROM \
	" FROM ports p JOIN nodes n ON n.subnet_id = p.subnet_id AND n.guid = p.node_guid " \
	"JOIN subnets s ON s.id = p.subnet_id "

static json_t *port_json(sqlite3_stmt *s)
{
	char we[64], ws[64], se[128], ss[128];
	json_t *peer = json_null();

	if (sqlite3_column_type(s, 17) != SQLITE_NULL)
		peer = json_pack("{s:s, s:i, s:o}", "guid", dbq_col_str(s, 17),
				 "port", sqlite3_column_int(s, 18), "name", dbq_col_text(s, 20));
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:s,"
			 " s:s, s:s, s:s, s:i, s:i, s:o}",
			 "fabric", "ib", "subnet", dbq_col_str(s, 0), "node_guid", dbq_col_str(s, 1),
			 "node_desc", dbq_col_text(s, 2), "node_name", dbq_col_text(s, 19),
			 "port", sqlite3_column_int(s, 3),
			 "guid", dbq_col_str(s, 4), "lid", sqlite3_column_int(s, 5),
			 "lmc", sqlite3_column_int(s, 6),
			 "state", ibt_port_state_name(sqlite3_column_int(s, 7)),
			 "phys_state", ibt_phys_state_name(sqlite3_column_int(s, 8)),
			 "width", width_name((unsigned)sqlite3_column_int(s, 9)),
			 "speed", speed_name((unsigned)sqlite3_column_int(s, 12)),
			 "width_enabled", ibt_width_mask_str((unsigned)sqlite3_column_int(s, 10),
							     we, sizeof(we)),
			 "width_supported", ibt_width_mask_str((unsigned)sqlite3_column_int(s, 11),
							       ws, sizeof(ws)),
			 "speed_enabled", ibt_speed_mask_str((unsigned)sqlite3_column_int(s, 13),
							     se, sizeof(se)),
			 "speed_supported", ibt_speed_mask_str((unsigned)sqlite3_column_int(s, 14),
							       ss, sizeof(ss)),
			 "mtu", ibt_mtu_bytes(sqlite3_column_int(s, 15)),
			 "vls", sqlite3_column_int(s, 16), "peer", peer);
}

/* After an IB query's array in *out, the Ethernet fabric's part (rc). */
static int eth_too(int rc, json_t **out)
{
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int dbq_nodes(sqlite3 *db, const char *type, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db, "SELECT " NODE_COLS NODE_FROM "WHERE ?1 IS NULL OR n.type = ?1 "
			 "ORDER BY s.name, n.guid", &s, err, errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_text(s, 1, type, -1, SQLITE_STATIC);
	if ((rc = dbq_collect(db, s, node_json, out, err, errlen)) < 0)
		return rc;
	return eth_too(dbq_eth_nodes(db, type, *out, err, errlen), out);
}

/* The one node `id` names: a node GUID, else an exact description or name
 * (the site's node-name-map). */
static int find_node(sqlite3 *db, const char *id, json_t **node, int64_t *subnet_id,
		     char *err, size_t errlen)
{
	char guid_str[24] = "";
	uint64_t guid;
	sqlite3_stmt *s;
	json_t *rows;
	size_t n;
	int rc;

	if (ibt_guid_parse(id, &guid) == 0)
		ibt_guid_str(guid, guid_str, sizeof(guid_str));
	/* A GUID match wins over a description that happens to look like hex. */
	rc = dbq_prepare(db, "SELECT " NODE_COLS NODE_FROM "WHERE n.guid = ?1 OR "
		     "((n.description = ?2 OR " NAMES_DB_NAME("n.guid", "NULL") " = ?2) AND "
		     "NOT EXISTS (SELECT 1 FROM nodes WHERE guid = ?1)) "
		     "ORDER BY s.name, n.guid", &s, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_text(s, 1, guid_str, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
	*subnet_id = 0;
	rc = dbq_collect(db, s, node_json, &rows, err, errlen);
	if (rc < 0)
		return rc;
	n = json_array_size(rows);
	if (n == 0) {
		json_decref(rows);
		return dbq_fail(err, errlen, -ENOENT, "no node with GUID, description or "
				"Ethernet name \"%s\"", id);
	}
	if (n > 1) {
		char list[512] = "";
		size_t off = 0;

		for (size_t i = 0; i < n && off < sizeof(list); i++) {
			json_t *r = json_array_get(rows, i);
			int w = snprintf(list + off, sizeof(list) - off, "%s%s (subnet %s)",
					 i ? ", " : "", json_string_value(json_object_get(r, "guid")),
					 json_string_value(json_object_get(r, "subnet")));

			if (w > 0)
				off += (size_t)w;
		}
		json_decref(rows);
		return dbq_fail(err, errlen, -EEXIST, "\"%s\" matches %zu nodes: %s; use a GUID", id,
			    n, list);
	}
	*node = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	/* The JSON carries the subnet's name; the port query wants its id. */
	rc = dbq_prepare(db, "SELECT id FROM subnets WHERE name = ?", &s, err, errlen);
	if (rc < 0) {
		json_decref(*node);
		return rc;
	}
	sqlite3_bind_text(s, 1, json_string_value(json_object_get(*node, "subnet")), -1,
			  SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW)
		*subnet_id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

static int node_ports(sqlite3 *db, int64_t subnet_id, const char *guid, json_t **out,
		      char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db, "SELECT " PORT_COLS PORT_FROM "WHERE p.subnet_id = ? AND "
			 "p.node_guid = ? ORDER BY p.num", &s, err, errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, subnet_id);
	sqlite3_bind_text(s, 2, guid, -1, SQLITE_TRANSIENT);
	if ((rc = dbq_collect(db, s, port_json, out, err, errlen)) < 0)
		return rc;
	/* a switch panel's fields (port_panel_db.h) */
	if ((rc = port_panel_add(db, subnet_id, guid, *out, err, errlen)) < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int dbq_node(sqlite3 *db, const char *guid_or_desc, json_t **out, char *err, size_t errlen)
{
	json_t *node, *ports;
	int64_t sid;
	int rc = find_node(db, guid_or_desc, &node, &sid, err, errlen);

	if (rc == -ENOENT && dbq_eth_node(db, guid_or_desc, out, NULL, 0) == 0)
		return 0;
	if (rc < 0)
		return rc;
	rc = node_ports(db, sid, json_string_value(json_object_get(node, "guid")), &ports,
			err, errlen);
	if (rc < 0) {
		json_decref(node);
		return rc;
	}
	json_object_set_new(node, "port_list", ports);
	*out = node;
	return 0;
}

int dbq_ports(sqlite3 *db, const char *node, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	json_t *n;
	int64_t sid;
	int rc;

	if (node) {
		rc = find_node(db, node, &n, &sid, err, errlen);
		if (rc == -ENOENT && dbq_eth_node(db, node, &n, NULL, 0) == 0) {
			*out = json_incref(json_object_get(n, "port_list"));
			json_decref(n);
			return 0;
		}
		if (rc < 0)
			return rc;
		rc = node_ports(db, sid, json_string_value(json_object_get(n, "guid")), out,
				err, errlen);
		json_decref(n);
		return rc;
	}
	rc = dbq_prepare(db, "SELECT " PORT_COLS PORT_FROM "ORDER BY s.name, p.node_guid, p.num",
		     &s, err, errlen);
	if (rc < 0 || (rc = dbq_collect(db, s, port_json, out, err, errlen)) < 0)
		return rc;
	return eth_too(dbq_eth_ports(db, NULL, *out, err, errlen), out);
}

static json_t *link_json(sqlite3_stmt *s)
{
	struct link_caps a, b;
	unsigned w = (unsigned)sqlite3_column_int(s, 7), sp = (unsigned)sqlite3_column_int(s, 8);
	unsigned bw, bs;
	char rate[64], best[64], reason[512];
	const char *state;
	int degraded;

	a = (struct link_caps){ (unsigned)sqlite3_column_int(s, 12), (unsigned)sqlite3_column_int(s, 13),
				(unsigned)sqlite3_column_int(s, 14), (unsigned)sqlite3_column_int(s, 15) };
	b = (struct link_caps){ (unsigned)sqlite3_column_int(s, 16), (unsigned)sqlite3_column_int(s, 17),
				(unsigned)sqlite3_column_int(s, 18), (unsigned)sqlite3_column_int(s, 19) };
	link_state_best(&a, &b, &bw, &bs);
	degraded = link_state_degraded(w, sp, bw, bs);
	rate[0] = best[0] = '\0';
	if (degraded) {   /* the reason's words; 35k links at 11664 hosts */
		snprintf(rate, sizeof(rate), "%s %s", width_name(w), speed_name(sp));
		snprintf(best, sizeof(best), "%s %s", width_name(bw), speed_name(bs));
	}
	state = link_state_of(dbq_col_str(s, 10), sqlite3_column_int(s, 2),
			      (const char *)sqlite3_column_text(s, 20), dbq_col_str(s, 11),
			      sqlite3_column_int(s, 5), (const char *)sqlite3_column_text(s, 21),
			      degraded, rate, best, reason, sizeof(reason));
	/* "degraded" stays the sweep's column (below what both ends support,
	 * enabled or not: iblinkinfo's "could be faster"); "state" says
	 * degraded only below what both can run (link_state_db.h) */
	return json_pack("{s:s, s:s, s:{s:s, s:i, s:o, s:o}, s:{s:s, s:i, s:o, s:o}, s:s, s:s, "
			 "s:b, s:s, s:s, s:s, s:s}",
			 "fabric", "ib", "subnet", dbq_col_str(s, 0),
			 "a", "guid", dbq_col_str(s, 1), "port", sqlite3_column_int(s, 2),
			 "desc", dbq_col_text(s, 3), "name", dbq_col_text(s, 10),
			 "b", "guid", dbq_col_str(s, 4), "port", sqlite3_column_int(s, 5),
			 "desc", dbq_col_text(s, 6), "name", dbq_col_text(s, 11),
			 "width", width_name(w), "speed", speed_name(sp),
			 "degraded", sqlite3_column_int(s, 9),
			 "width_max", width_name(bw), "speed_max", speed_name(bs),
			 "state", state, "reason", reason);
}

#define LINK_CAPS(p) p ".width_enabled, " p ".width_supported, " p ".speed_enabled, " \
	p ".speed_supported"

int dbq_links(sqlite3 *db, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(db,
			 "SELECT s.name, l.a_guid, l.a_port, na.description, l.b_guid, l.b_port, "
			 "nb.description, l.width, l.speed, l.degraded, "
			 NAMES_DB_NAME("l.a_guid", "na.description") ", "
			 NAMES_DB_NAME("l.b_guid", "nb.description") ", "
			 LINK_CAPS("pa") ", " LINK_CAPS("pb") ", "
			 LINK_STATE_ALARMS("l.subnet_id", "l.a_guid", "l.a_port") ", "
			 LINK_STATE_ALARMS("l.subnet_id", "l.b_guid", "l.b_port") " FROM links l "
			 "JOIN subnets s ON s.id = l.subnet_id "
			 "JOIN nodes na ON na.subnet_id = l.subnet_id AND na.guid = l.a_guid "
			 "JOIN nodes nb ON nb.subnet_id = l.subnet_id AND nb.guid = l.b_guid "
			 "JOIN ports pa ON pa.subnet_id = l.subnet_id AND pa.node_guid = l.a_guid AND "
			 "pa.num = l.a_port "
			 "JOIN ports pb ON pb.subnet_id = l.subnet_id AND pb.node_guid = l.b_guid AND "
			 "pb.num = l.b_port "
			 "ORDER BY s.name, l.a_guid, l.a_port", &s, err, errlen);

	if (rc < 0 || (rc = dbq_collect(db, s, link_json, out, err, errlen)) < 0)
		return rc;
	if ((rc = link_state_down_links(db, *out, err, errlen)) < 0)
		return eth_too(rc, out);
	return eth_too(dbq_eth_links(db, *out, err, errlen), out);
}

static json_t *event_json(sqlite3_stmt *s)
{
	return json_pack("{s:I, s:o, s:f, s:o, s:o, s:s, s:s, s:o, s:o, s:o}",
			 "id", (json_int_t)sqlite3_column_int64(s, 0),
			 "time", dbq_col_time(s, 1), "ts", sqlite3_column_double(s, 1),
			 "subnet", sqlite3_column_type(s, 2) == SQLITE_NULL ? json_null() :
				   json_string(dbq_col_str(s, 2)),
			 "sweep", sqlite3_column_type(s, 3) == SQLITE_NULL ? json_null() :
				  json_integer(sqlite3_column_int64(s, 3)),
			 "severity", dbq_col_str(s, 4), "kind", dbq_col_str(s, 5),
			 "subject", dbq_col_text(s, 6), "old", dbq_col_text(s, 7), "new", dbq_col_text(s, 8));
}

/* The kinds of event loomd records, besides the sweep's (fabric_diff.h)
 * and the port alarms' (port_alarms.h, each also KIND_cleared), which
 * come from their own tables. A module that records a new kind adds it
 * here, or `events --kind` refuses it. */
static const char *const event_kinds[] = {
	"sweep_failed",
	"osm_routing_failed", "osm_trap", "osm_subnet_up", "osm_lft_change", "osm_sm_state",
	"tenant_created", "tenant_changed", "tenant_deleted", "tenant_failed", "tenant_repaired",
	"tenant_restored", "tenant_rolled_back", "tenant_rollback_failed", "tenant_takeover",
	"host_claim",
	"qos_state", "qos_applied", "ib_qos_applied", "ib_qos_drift", "ib_qos_in_policy",
	"ib_cc_applied", "ib_cc_drift", "ib_cc_in_policy", "ha_takeover_policy",
	"ar_supported", "ar_unsupported", "ar_programmed", "ar_program_refused",
	"ar_program_failed", "ar_program_run",
	"slurm_topology", "slurm_topology_refused", "slurm_topology_error",
	"slurm_topology_bad_names",
	"validation_issue", "validation_issue_cleared",
	"validation_issues", "validation_issues_cleared", "link_flap",
	"link_isolated", "link_would_isolate", "link_isolation_refused", "link_restored",
	"link_isolation_held", "host_drained", "host_would_drain", "host_resumed",
	"host_drain_refused", "host_resume_refused",
};
#define N_EVENT_KINDS (sizeof(event_kinds) / sizeof(event_kinds[0]))

/* The i-th known kind into buf (i from 0); NULL past the last. */
static const char *event_kind(size_t i, char *buf, size_t len)
{
	size_t n_fab = FAB_EV_COUNT;

	if (i < n_fab)
		return fab_ev_kind_name((enum fab_ev_kind)i);
	i -= n_fab;
	if (i < 2 * PORT_ALARM_N) {
		snprintf(buf, len, "%s%s", port_alarm_name((enum port_alarm)(i / 2)),
			 i % 2 ? "_cleared" : "");
		return buf;
	}
	i -= 2 * PORT_ALARM_N;
	return i < N_EVENT_KINDS ? event_kinds[i] : NULL;
}

static int event_kind_known(const char *kind, size_t len)
{
	char buf[64];
	const char *k;

	for (size_t i = 0; (k = event_kind(i, buf, sizeof(buf))); i++)
		if (strlen(k) == len && !strncmp(k, kind, len))
			return 1;
	return 0;
}

int dbq_event_kinds_check(const char *kinds, char *err, size_t errlen)
{
	char buf[64];
	const char *k;
	size_t off;
	int w;

	for (const char *p = kinds; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n && !event_kind_known(p, n)) {
			w = snprintf(err, errlen, "unknown event kind \"%.*s\"; the kinds are",
				     (int)(n > 64 ? 64 : n), p);
			off = w > 0 ? (size_t)w : 0;
			for (size_t i = 0; (k = event_kind(i, buf, sizeof(buf))) && off < errlen; i++)
				if ((w = snprintf(err + off, errlen - off, "%s %s", i ? "," : "", k)) > 0)
					off += (size_t)w;
			return -EINVAL;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int dbq_events(sqlite3 *db, double since, const char *kinds, long limit, json_t **out,
	       char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc = dbq_event_kinds_check(kinds, err, errlen);

	if (rc < 0)
		return rc;
	rc = dbq_prepare(db,
			 "SELECT e.id, e.time, s.name, e.sweep_id, e.severity, e.kind, e.subject, "
			 "e.old_value, e.new_value FROM events e "
			 "LEFT JOIN subnets s ON s.id = e.subnet_id WHERE (?1 IS NULL OR e.time >= ?1) "
			 "AND (?3 IS NULL OR instr(',' || ?3 || ',', ',' || e.kind || ',') > 0) "
			 "ORDER BY e.time DESC, e.id DESC LIMIT ?2", &s, err, errlen);

	if (rc < 0)
		return rc;
	if (since > 0)
		sqlite3_bind_double(s, 1, since);
	sqlite3_bind_int64(s, 2, limit > 0 ? (sqlite3_int64)limit : -1);
	if (kinds && *kinds)
		sqlite3_bind_text(s, 3, kinds, -1, SQLITE_TRANSIENT);
	return dbq_collect(db, s, event_json, out, err, errlen);
}

/* Integer column or JSON null (a count not known). */
static json_t *col_int_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? json_null() :
	       json_integer((json_int_t)sqlite3_column_int64(s, col));
}

static json_t *subnet_json(sqlite3_stmt *s)
{
	json_t *last = json_null();

	if (sqlite3_column_type(s, 9) != SQLITE_NULL) {
		double started = sqlite3_column_double(s, 11);
		double finished = sqlite3_column_double(s, 12);

		last = json_pack("{s:I, s:s, s:o, s:I, s:o, s:o, s:o, s:o}",
				 "id", (json_int_t)sqlite3_column_int64(s, 9),
				 "status", dbq_col_str(s, 10), "started", dbq_col_time(s, 11),
				 "duration_ms", (json_int_t)llround((finished - started) * 1000.0),
				 "error", sqlite3_column_type(s, 13) == SQLITE_NULL ? json_null() :
					  json_string(dbq_col_str(s, 13)),
				 "smps", col_int_or_null(s, 14),
				 "smp_retries", col_int_or_null(s, 15),
				 "smps_lost", col_int_or_null(s, 16));
	}
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "name", dbq_col_str(s, 0), "kind", "ib", "ca", dbq_col_str(s, 1),
			 "port", sqlite3_column_int(s, 2),
			 "nodes", (json_int_t)sqlite3_column_int64(s, 3),
			 "switches", (json_int_t)sqlite3_column_int64(s, 4),
			 "cas", (json_int_t)sqlite3_column_int64(s, 5),
			 "ports", (json_int_t)sqlite3_column_int64(s, 6),
			 "links", (json_int_t)sqlite3_column_int64(s, 7), "last_sweep", last);
}

/* smps: the last sweep's SMP counts (schema 022), or NULLs before it. */
#define SUBNET_SQL(smps) \
	"SELECT s.name, s.ca, s.port, " \
	"(SELECT count(*) FROM nodes WHERE subnet_id = s.id), " \
	"(SELECT count(*) FROM nodes WHERE subnet_id = s.id AND type = 'switch'), " \
	"(SELECT count(*) FROM nodes WHERE subnet_id = s.id AND type = 'ca'), " \
	"(SELECT count(*) FROM ports WHERE subnet_id = s.id), " \
	"(SELECT count(*) FROM links WHERE subnet_id = s.id), " \
	"s.id, w.id, w.status, w.started, w.finished, w.error, " smps " " \
	"FROM subnets s LEFT JOIN sweeps w ON w.id = " \
	"(SELECT max(id) FROM sweeps WHERE subnet_id = s.id) "

#define SMPS_COLS "w.smps, w.smp_retries, w.smps_lost"
#define NO_SMPS "NULL, NULL, NULL"

/* Does the database have schema 022's SMP counts (--db on an older one)? */
static int has_sweep_smps(sqlite3 *db)
{
	sqlite3_stmt *s;
	int yes;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('sweeps') WHERE name = "
			       "'smps'", -1, &s, NULL) != SQLITE_OK)
		return 0;
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

int dbq_subnets(sqlite3 *db, json_t **out, char *err, size_t errlen)
{
	/* From schema 5 on, the Ethernet fabric is a row too, with its own counts. */
	int eth = dbq_has_eth_fabric(db), smps = has_sweep_smps(db);
	sqlite3_stmt *s;
	int rc = dbq_prepare(db,
			     eth && smps ? SUBNET_SQL(SMPS_COLS) "WHERE s.kind = 'ib' ORDER BY s.name" :
			     eth ? SUBNET_SQL(NO_SMPS) "WHERE s.kind = 'ib' ORDER BY s.name" :
			     smps ? SUBNET_SQL(SMPS_COLS) "ORDER BY s.name" :
			     SUBNET_SQL(NO_SMPS) "ORDER BY s.name", &s, err, errlen);

	if (rc < 0 || (rc = dbq_collect(db, s, subnet_json, out, err, errlen)) < 0)
		return rc;
	return eth_too(dbq_eth_subnets(db, *out, err, errlen), out);
}

/* Text column or JSON null. */
static json_t *col_text_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? json_null() : dbq_col_text(s, col);
}

static json_t *run_json(sqlite3_stmt *s)
{
	json_t *metrics = NULL;

	/* Stored as the plugin sent it (loomd parsed it then): a row that does
	 * not parse now shows as no metrics rather than failing the list. */
	if (sqlite3_column_type(s, 16) != SQLITE_NULL)
		metrics = json_loads(dbq_col_str(s, 16), 0, NULL);
	return json_pack("{s:I, s:o, s:f, s:o, s:s, s:i, s:s, s:o, s:o, s:s, s:o, s:f, s:i, s:I,"
			 " s:I, s:I, s:I, s:o}",
			 "id", (json_int_t)sqlite3_column_int64(s, 0),
			 "time", dbq_col_time(s, 1), "ts", sqlite3_column_double(s, 1),
			 "subnet", col_text_or_null(s, 2), "sm_guid", dbq_col_str(s, 3),
			 "sm_pid", sqlite3_column_int(s, 4), "engine", dbq_col_str(s, 5),
			 "routed_by", col_text_or_null(s, 6), "note", dbq_col_text(s, 7),
			 "result", dbq_col_str(s, 8), "reason", col_text_or_null(s, 9),
			 "duration_ms", sqlite3_column_double(s, 10),
			 "vls", sqlite3_column_int(s, 11),
			 "switches", (json_int_t)sqlite3_column_int64(s, 12),
			 "ca_ports", (json_int_t)sqlite3_column_int64(s, 13),
			 "entries_routed", (json_int_t)sqlite3_column_int64(s, 14),
			 "entries_unreachable", (json_int_t)sqlite3_column_int64(s, 15),
			 "metrics", metrics ? metrics : json_null());
}

int dbq_routing_runs(sqlite3 *db, long limit, json_t **out, char *err, size_t errlen)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db,
			       "SELECT r.id, r.time, s.name, r.sm_guid, r.sm_pid, r.engine, "
			       "r.routed_by, r.note, r.result, r.reason, r.duration_ms, r.vls, "
			       "r.switches, r.ca_ports, r.entries_routed, r.entries_unreachable, "
			       "r.metrics FROM routing_runs r "
			       "LEFT JOIN subnets s ON s.id = r.subnet_id "
			       "ORDER BY r.time DESC, r.id DESC LIMIT ?", -1, &s, NULL) != SQLITE_OK) {
		/* A database of a loomd before schema 3 (read with --db). */
		if (strstr(sqlite3_errmsg(db), "no such table"))
			return dbq_fail(err, errlen, -ENOENT, "this database has no routing runs "
				    "(its schema predates them: run a newer loomd on it once)");
		return dbq_db_fail(db, err, errlen, "prepare");
	}
	sqlite3_bind_int64(s, 1, limit > 0 ? (sqlite3_int64)limit : -1);
	return dbq_collect(db, s, run_json, out, err, errlen);
}

/* ---- times ------------------------------------------------------------------ */

/* The whole of `s` as `fmt` (strptime), UTC. */
static int parse_utc(const char *s, const char *fmt, double *out)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, fmt, &tm);
	if (!end || *end)
		return -EINVAL;
	*out = (double)timegm(&tm);
	return 0;
}

int dbq_time_parse(const char *s, double now, double *out)
{
	static const char *const formats[] = {
		"%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d",
	};
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	/* strptime accepts a year of any width, so try dates before numbers
	 * only when the string looks like one. */
	if (strchr(s, '-')) {
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (parse_utc(s, formats[i], out) == 0)
				return 0;
		return -EINVAL;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (*end == '\0') {
		*out = v;
		return 0;
	}
	if (end[1] != '\0')
		return -EINVAL;
	switch (*end) {
	case 's': v = now - v; break;
	case 'm': v = now - v * 60; break;
	case 'h': v = now - v * 3600; break;
	case 'd': v = now - v * 86400; break;
	default: return -EINVAL;
	}
	/* "1e305d" is a finite number of days but no time */
	if (!isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}
