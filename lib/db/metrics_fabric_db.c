/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/metrics_fabric_db.c: the swept fabric in Prometheus' text format,
 * for /metrics (see metrics_db.h; issue 39): every cabled port's link
 * (lib/telemetry/metrics_link.h) and the families of the fabric as a whole,
 * per subnet: nodes by type, links, the last sweep (duration, result,
 * when), open validation issues by severity, the last routing run and its
 * quality, tenants by state; the cables isolation took out of the routes
 * (schema 020, issue 42) and the isolated set's version. Each family is
 * one SQL query whose rows are the label values then the value (a NULL
 * value: no series), so a family is a line in a table. Every query reads
 * one row per subnet, or one per cabled port, or one per isolated cable
 * (isolation.max_isolated bounds them); none scans a table that grows with
 * time (sweeps and routing runs are read through their indexes, newest
 * first). */
#include "autoconf.h"
#include "lib/db/metrics_db.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/telemetry/metrics_link.h"

/* A database older than the tables or columns a query reads (a tool's
 * copy, or a test's): the family without series, not an error. */
static int too_old(sqlite3 *db)
{
	const char *m = sqlite3_errmsg(db);

	return strstr(m, "no such table") || strstr(m, "no such column");
}

/* ---- the ports' links --------------------------------------------------------- */

/* Cabled now, or at an earlier sweep (schema 019). A node's name is the
 * site's (names.node_name_map, schema 018), else its description; the
 * remote one's description is the live node's when it is still in the
 * fabric, else the one it had. */
#define LINKS_SQL \
	"SELECT s.name, p.node_guid, p.num, " NAMES_DB_NAME("p.node_guid", "n.description") ", " \
	"coalesce(p.peer_guid, p.last_peer_guid), coalesce(p.peer_port, p.last_peer_port), " \
	NAMES_DB_NAME("coalesce(p.peer_guid, p.last_peer_guid)", \
		      "coalesce(pn.description, p.last_peer_desc, '')") ", p.state, p.phys_state, " \
	"p.width_active, p.speed_active, coalesce(la.degraded, lb.degraded, 0) " \
	"FROM ports p JOIN subnets s ON s.id = p.subnet_id " \
	"JOIN nodes n ON n.subnet_id = p.subnet_id AND n.guid = p.node_guid " \
	"LEFT JOIN nodes pn ON pn.subnet_id = p.subnet_id AND " \
	"pn.guid = coalesce(p.peer_guid, p.last_peer_guid) " \
	"LEFT JOIN links la ON la.subnet_id = p.subnet_id AND la.a_guid = p.node_guid AND " \
	"la.a_port = p.num " \
	"LEFT JOIN links lb ON lb.subnet_id = p.subnet_id AND lb.b_guid = p.node_guid AND " \
	"lb.b_port = p.num " \
	"WHERE coalesce(p.peer_guid, p.last_peer_guid) IS NOT NULL " \
	"ORDER BY s.name, n.description, p.node_guid, p.num"

struct link_rows {
	struct mt_link_port *p;
	size_t n, cap;
	char *strs;            /* the rows' strings, NUL-separated */
	size_t len, scap;
};

/* Copy s into r->strs; its offset, or (size_t)-1 without memory. The
 * pointers are set once every row is read (strs moves while it grows). */
static size_t keep(struct link_rows *r, const char *s)
{
	size_t n = strlen(s) + 1, at = r->len;

	if (r->len + n > r->scap) {
		size_t cap = r->scap ? 2 * r->scap : 65536;
		char *p;

		while (cap < r->len + n)
			cap *= 2;
		if (!(p = realloc(r->strs, cap)))
			return (size_t)-1;
		r->strs = p;
		r->scap = cap;
	}
	memcpy(r->strs + at, s, n);
	r->len += n;
	return at;
}

static int read_links(sqlite3 *db, struct link_rows *r, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, LINKS_SQL, -1, &s, NULL) != SQLITE_OK)
		return too_old(db) ? 0 : dbq_db_fail(db, err, errlen, "read the ports' links");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct mt_link_port *p;
		size_t o[5];

		if (r->n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 1024;
			struct mt_link_port *np = realloc(r->p, cap * sizeof(*np));

			if (!np)
				break;
			r->p = np;
			r->cap = cap;
		}
		o[0] = keep(r, dbq_col_str(s, 0));
		o[1] = keep(r, dbq_col_str(s, 1));
		o[2] = keep(r, mt_node_name(dbq_col_str(s, 1), dbq_col_str(s, 3)));
		o[3] = keep(r, dbq_col_str(s, 4));
		o[4] = keep(r, mt_node_name(dbq_col_str(s, 4), dbq_col_str(s, 6)));
		if (o[0] == (size_t)-1 || o[1] == (size_t)-1 || o[2] == (size_t)-1 ||
		    o[3] == (size_t)-1 || o[4] == (size_t)-1)
			break;
		p = memset(&r->p[r->n++], 0, sizeof(*p));
		/* Offsets for now: made pointers once strs stops moving. */
		p->subnet = (const char *)(uintptr_t)o[0];
		p->guid = (const char *)(uintptr_t)o[1];
		p->node = (const char *)(uintptr_t)o[2];
		p->remote_guid = (const char *)(uintptr_t)o[3];
		p->remote_node = (const char *)(uintptr_t)o[4];
		p->port = (unsigned)sqlite3_column_int(s, 2);
		p->remote_port = (unsigned)sqlite3_column_int(s, 5);
		p->state = sqlite3_column_int(s, 7);
		p->phys_state = sqlite3_column_int(s, 8);
		p->width_active = (unsigned)sqlite3_column_int(s, 9);
		p->speed_active = (unsigned)sqlite3_column_int(s, 10);
		p->degraded = sqlite3_column_int(s, 11);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory for the ports' links");
	if (rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "read the ports' links");
	for (size_t i = 0; i < r->n; i++) {
		struct mt_link_port *p = &r->p[i];

		p->subnet = r->strs + (uintptr_t)p->subnet;
		p->guid = r->strs + (uintptr_t)p->guid;
		p->node = r->strs + (uintptr_t)p->node;
		p->remote_guid = r->strs + (uintptr_t)p->remote_guid;
		p->remote_node = r->strs + (uintptr_t)p->remote_node;
	}
	return 0;
}

static int render_links(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen)
{
	struct link_rows r = { 0 };
	int rc = read_links(db, &r, err, errlen);

	if (rc == 0 && (rc = mt_render_links(r.p, r.n, out)) < 0)
		dbq_fail(err, errlen, rc, "out of memory for the links' metrics");
	free(r.p);
	free(r.strs);
	return rc;
}

/* ---- the fabric's families ------------------------------------------------------ */

/* The newest sweep of subnet s (sweeps_subnet index). */
#define LAST_SWEEP "(SELECT max(id) FROM sweeps WHERE subnet_id = s.id)"
/* A subnet's sum of its sweeps' SMP counts (schema 022's sweep_smp_totals,
 * kept with each sweep; NULL: none known, no series). */
#define SMP_SUM(col) \
	"SELECT s.name, t." col " FROM subnets s JOIN sweep_smp_totals t ON t.subnet_id = " \
	"s.id ORDER BY 1"
/* The newest routing run per subnet (NULL subnet: OpenSM not on a swept
 * subnet; labelled subnet=""). */
#define LAST_RUNS \
	"FROM routing_runs r LEFT JOIN subnets s ON s.id = r.subnet_id WHERE r.id IN " \
	"(SELECT max(id) FROM routing_runs GROUP BY subnet_id) ORDER BY 1"

/* An isolated cable (schema 020), labelled as the links' series are: the
 * lower end, then the other. */
#define ISO_LINK_LABELS "subnet", "guid", "port", "node", "remote_guid", "remote_port", \
	"remote_node"
#define ISO_LINK_COLS \
	"s.name, i.guid, i.port, coalesce(" NAMES_DB_NAME("i.guid", "na.description") ", ''), " \
	"i.peer_guid, i.peer_port, coalesce(" NAMES_DB_NAME("i.peer_guid", "nb.description") \
	", '')"
#define ISO_LINKS_FROM \
	"FROM isolated_links i JOIN subnets s ON s.id = i.subnet_id " \
	"LEFT JOIN nodes na ON na.subnet_id = i.subnet_id AND na.guid = i.guid " \
	"LEFT JOIN nodes nb ON nb.subnet_id = i.subnet_id AND nb.guid = i.peer_guid " \
	"ORDER BY s.name, i.guid, i.port"
#define NOW_UNIX "((julianday('now') - 2440587.5) * 86400.0)"

static const struct fabric_family {
	const char *name, *type, *help;
	const char *labels[11];   /* the query's first columns; then the value */
	const char *sql;
} families[] = {
	{ "loom_fabric_nodes", "gauge", "Nodes of the subnet at its last sweep, by type "
	  "(ca, switch, router).", { "subnet", "type" },
	  "SELECT s.name, t.v, (SELECT count(*) FROM nodes n WHERE n.subnet_id = s.id AND "
	  "n.type = t.v) FROM subnets s, (SELECT 'ca' AS v UNION ALL SELECT 'switch' UNION ALL "
	  "SELECT 'router') t ORDER BY 1, 2" },
	{ "loom_fabric_links", "gauge", "Links (cables) of the subnet at its last sweep.",
	  { "subnet" },
	  "SELECT s.name, (SELECT count(*) FROM links l WHERE l.subnet_id = s.id) "
	  "FROM subnets s ORDER BY 1" },
	{ "loom_fabric_links_degraded", "gauge", "Links of the subnet running narrower or "
	  "slower than both their ends support.", { "subnet" },
	  "SELECT s.name, (SELECT count(*) FROM links l WHERE l.subnet_id = s.id AND "
	  "l.degraded) FROM subnets s ORDER BY 1" },
	{ "loom_sweep_duration_seconds", "gauge", "Wall time of the subnet's last sweep.",
	  { "subnet" },
	  "SELECT s.name, w.finished - w.started FROM subnets s JOIN sweeps w ON w.id = "
	  LAST_SWEEP " ORDER BY 1" },
	{ "loom_sweep_success", "gauge", "1 when the subnet's last sweep succeeded, 0 when "
	  "it failed.", { "subnet" },
	  "SELECT s.name, w.status = 'ok' FROM subnets s JOIN sweeps w ON w.id = "
	  LAST_SWEEP " ORDER BY 1" },
	{ "loom_sweep_timestamp_seconds", "gauge", "When the subnet's last sweep finished "
	  "(Unix time).", { "subnet" },
	  "SELECT s.name, w.finished FROM subnets s JOIN sweeps w ON w.id = " LAST_SWEEP
	  " ORDER BY 1" },
	{ "loom_sweep_last_success_timestamp_seconds", "gauge", "When the subnet's last "
	  "successful sweep finished (Unix time).", { "subnet" },
	  "SELECT s.name, (SELECT w.finished FROM sweeps w WHERE w.subnet_id = s.id AND "
	  "w.status = 'ok' ORDER BY w.id DESC LIMIT 1) FROM subnets s ORDER BY 1" },
	/* issue 44: the walks' SMPs, summed over the subnet's recorded sweeps
	 * as they were recorded (the sums only grow); a subnet whose walks
	 * never counted one (libibnetdisc's: no retries, no losses) has no
	 * series */
	{ "loom_sweep_smps_total", "counter", "SMPs the subnet's recorded sweeps sent, "
	  "every try counted.", { "subnet" }, SMP_SUM("smps") },
	{ "loom_sweep_smp_retries_total", "counter", "SMPs the subnet's recorded sweeps sent "
	  "again after an unanswered try (a fabric that drops SMPs shows here first).",
	  { "subnet" }, SMP_SUM("smp_retries") },
	{ "loom_sweep_smps_lost_total", "counter", "SMP requests of the subnet's recorded "
	  "sweeps left unanswered after every try.", { "subnet" }, SMP_SUM("smps_lost") },
	{ "loom_validation_issues", "gauge", "Validation findings open now (loomctl validate), "
	  "by severity (error, warning).", { "subnet", "severity" },
	  "SELECT s.name, v.v, (SELECT count(*) FROM validation_issues i WHERE i.subnet_id = "
	  "s.id AND i.severity = v.v) FROM subnets s, (SELECT 'error' AS v UNION ALL "
	  "SELECT 'warning') v ORDER BY 1, 2" },
	{ "loom_validation_issues_by_code", "gauge", "Validation findings open now, by "
	  "finding code (docs/validate.md's catalogue: swapped, sm-not-allowed, ...) and "
	  "severity: a series only for a code with an issue open.", { "subnet", "code",
	  "severity" },
	  "SELECT s.name, i.code, i.severity, count(*) FROM validation_issues i JOIN subnets s "
	  "ON s.id = i.subnet_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" },
	{ "loom_routing_run_success", "gauge", "1 when the last routing run OpenSM made with "
	  "loom's engines succeeded, 0 when it failed (OpenSM then fell back to its next "
	  "engine).", { "subnet" },
	  "SELECT coalesce(s.name, ''), r.result = 'ok' " LAST_RUNS },
	{ "loom_routing_run_timestamp_seconds", "gauge", "When the last routing run started "
	  "(Unix time).", { "subnet" }, "SELECT coalesce(s.name, ''), r.time " LAST_RUNS },
	{ "loom_routing_run_duration_seconds", "gauge", "Wall time of the last routing run.",
	  { "subnet" }, "SELECT coalesce(s.name, ''), r.duration_ms / 1000.0 " LAST_RUNS },
	{ "loom_routing_unreachable_pairs", "gauge", "Ordered pairs of CA ports the last "
	  "routing run's tables do not deliver.", { "subnet" },
	  "SELECT coalesce(s.name, ''), json_extract(r.metrics, '$.unreachable') " LAST_RUNS },
	{ "loom_routing_shift_worst_load", "gauge", "The most flows sharing one link in the "
	  "worst shift permutation of the last routing run (1: none share).", { "subnet" },
	  "SELECT coalesce(s.name, ''), json_extract(r.metrics, '$.shift_max_load') "
	  LAST_RUNS },
	{ "loom_routing_ebb_ratio", "gauge", "Effective bisection bandwidth of the last "
	  "routing run's tables, 0..1 of full bisection.", { "subnet" },
	  "SELECT coalesce(s.name, ''), json_extract(r.metrics, '$.ebb') " LAST_RUNS },
	{ "loom_tenants", "gauge", "Tenants by state (applying, active, failed).", { "state" },
	  "SELECT v.v, (SELECT count(*) FROM tenants t WHERE t.state = v.v) FROM "
	  "(SELECT 'active' AS v UNION ALL SELECT 'applying' UNION ALL SELECT 'failed') v "
	  "ORDER BY 1" },
	{ "loom_link_isolated", "gauge", "1 per cable isolation holds (issue 42): kind link, "
	  "out of the routes while it stays up (state isolated, or held: came back too often, "
	  "stays until an operator restores it); kind host, its host drained (state drained). "
	  "by: loom or the operator's principal; rules: what held.", { ISO_LINK_LABELS, "kind",
	  "state", "by", "rules" }, "SELECT " ISO_LINK_COLS ", i.kind, i.state, i.by, i.rules, 1 "
	  ISO_LINKS_FROM },
	{ "loom_isolation_probation_left_seconds", "gauge", "Seconds of a clean probation left "
	  "before loom puts an isolated cable back (its rules must not hold meanwhile); no "
	  "series for an operator's or a held one.", { ISO_LINK_LABELS },
	  "SELECT " ISO_LINK_COLS ", CASE WHEN i.state = 'isolated' AND i.by = 'loom' THEN "
	  "max(0, i.clean_since + i.probation_s - " NOW_UNIX ") END " ISO_LINKS_FROM },
	{ "loom_isolation_set_version", "gauge", "The version of the set of isolated cables "
	  "(the file OpenSM's loom engines read); loom_isolation_applied_version is the one "
	  "OpenSM last routed with.", { NULL },
	  "SELECT value FROM isolation_meta WHERE key = 'version'" },
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

static int render_family(sqlite3 *db, const struct fabric_family *f, struct mt_buf *out,
			 char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc, nl = 0;
	char num[48];

	while (nl < 11 && f->labels[nl])
		nl++;
	mt_puts(out, "# HELP ");
	mt_puts(out, f->name);
	mt_puts(out, " ");
	mt_puts(out, f->help);
	mt_puts(out, "\n# TYPE ");
	mt_puts(out, f->name);
	mt_puts(out, " ");
	mt_puts(out, f->type);
	mt_puts(out, "\n");
	if (sqlite3_prepare_v2(db, f->sql, -1, &s, NULL) != SQLITE_OK)
		return too_old(db) ? 0 : dbq_db_fail(db, err, errlen, f->name);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_type(s, nl) == SQLITE_NULL)
			continue;
		mt_puts(out, f->name);
		for (int i = 0; i < nl; i++) {
			mt_puts(out, i ? ",": "{");
			mt_puts(out, f->labels[i]);
			mt_puts(out, "=\"");
			mt_put_label_value(out, dbq_col_str(s, i));
			mt_puts(out, "\"");
		}
		snprintf(num, sizeof(num), "%s %.15g\n", nl ? "}" : "",
			 sqlite3_column_double(s, nl));
		mt_puts(out, num);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, f->name);
}

int metrics_db_render_fabric(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen)
{
	int rc = render_links(db, out, err, errlen);

	for (size_t i = 0; rc == 0 && i < N_FAMILIES; i++)
		rc = render_family(db, &families[i], out, err, errlen);
	if (rc == 0 && out->oom)
		rc = dbq_fail(err, errlen, -ENOMEM, "out of memory for the metrics text");
	return rc;
}
