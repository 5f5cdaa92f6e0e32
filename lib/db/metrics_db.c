/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/metrics_db.c: see metrics_db.h. */
#include "autoconf.h"
#include "lib/db/metrics_db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/telemetry/counter_row.h"

struct rows {
	struct mt_read *reads;
	size_t n_reads;
	struct mt_port *ports;
	size_t n_ports;
	char **strs;        /* every string the rows point to */
	size_t n_strs, cap_strs;
};

static const char *keep(struct rows *r, const char *s)
{
	char *d;

	if (r->n_strs == r->cap_strs) {
		size_t cap = r->cap_strs ? 2 * r->cap_strs : 256;
		char **p = realloc(r->strs, cap * sizeof(*p));

		if (!p)
			return NULL;
		r->strs = p;
		r->cap_strs = cap;
	}
	if (!(d = strdup(s ? s : "")))
		return NULL;
	return r->strs[r->n_strs++] = d;
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n_strs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->reads);
	for (size_t i = 0; i < r->n_ports; i++)
		free((void *)r->ports[i].ds);
	free(r->ports);
}

static int no_table(sqlite3 *db)
{
	return strstr(sqlite3_errmsg(db), "no such table") != NULL;
}

static int load_reads(sqlite3 *db, struct rows *r, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT s.name, r.started, r.finished, r.ports, r.answered "
			       "FROM counter_reads r JOIN subnets s ON s.id = r.subnet_id "
			       "ORDER BY s.name", -1, &s, NULL) != SQLITE_OK)
		return no_table(db) ? 0 : dbq_db_fail(db, err, errlen, "read the counters reads");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct mt_read *m;

		if (r->n_reads == cap) {
			size_t nc = cap ? 2 * cap : 4;
			struct mt_read *p = realloc(r->reads, nc * sizeof(*p));

			if (!p)
				break;
			r->reads = p;
			cap = nc;
		}
		m = &r->reads[r->n_reads];
		if (!(m->subnet = keep(r, dbq_col_str(s, 0))))
			break;
		m->started = sqlite3_column_double(s, 1);
		m->finished = sqlite3_column_double(s, 2);
		m->ports = sqlite3_column_int64(s, 3);
		m->answered = sqlite3_column_int64(s, 4);
		r->n_reads++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "read the counters reads");
}

/* The counters (and their widths) of a packed row (counter_row.h), its
 * detail counters when it has any, and PortXmitWait's rate over
 * interval_s. 0, or -ENOMEM. */
static int take_sample(struct mt_port *p, const void *sample, size_t len, double interval_s)
{
	struct counter_row row;
	double rate;

	p->has_sample = counter_row_unpack(sample, len, &row) == 0;
	for (int i = 0; p->has_sample && i < PMA_N_COUNTERS; i++) {
		p->v[i] = row.s.v[i];
		p->bits[i] = row.s.bits[i];
	}
	if (p->has_sample && counter_row_rate(&row, PMA_XMIT_WAIT, interval_s, &rate) == 0) {
		p->has_xmit_wait_rate = 1;
		p->xmit_wait_per_s = rate;
	}
	for (int d = 0; p->has_sample && d < PMA_N_DETAILS; d++) {
		struct pma_details *ds;

		if (!row.ds.bits[d])
			continue;
		if (!(ds = malloc(sizeof(*ds))))
			return -ENOMEM;
		*ds = row.ds;
		p->ds = ds;
		break;
	}
	return 0;
}

static int load_ports(sqlite3 *db, struct rows *r, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT s.name, p.guid, p.port, "
			       NAMES_DB_NAME("p.guid", "p.description") ", p.answered, "
			       "p.reason, p.sample, p.interval_s FROM port_counters p "
			       "JOIN subnets s ON s.id = p.subnet_id "
			       "ORDER BY s.name, p.description, p.guid, p.port", -1, &s,
			       NULL) != SQLITE_OK)
		return no_table(db) ? 0 : dbq_db_fail(db, err, errlen, "read the port counters");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct mt_port *p;

		if (r->n_ports == cap) {
			size_t nc = cap ? 2 * cap : 256;
			struct mt_port *np = realloc(r->ports, nc * sizeof(*np));

			if (!np)
				break;
			r->ports = np;
			cap = nc;
		}
		p = memset(&r->ports[r->n_ports], 0, sizeof(*p));
		if (!(p->subnet = keep(r, dbq_col_str(s, 0))) ||
		    !(p->guid = keep(r, dbq_col_str(s, 1))) ||
		    !(p->node = keep(r, mt_node_name(p->guid, dbq_col_str(s, 3)))) ||
		    !(p->reason = keep(r, dbq_col_str(s, 5))))
			break;
		p->port = (unsigned)sqlite3_column_int(s, 2);
		p->answered = sqlite3_column_int(s, 4) != 0;
		if (take_sample(p, sqlite3_column_blob(s, 6), (size_t)sqlite3_column_bytes(s, 6),
				sqlite3_column_double(s, 7)) < 0)
			break;
		r->n_ports++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(db, err, errlen, "read the port counters");
}

/* `name="value"` (value escaped), after a comma unless first. */
static void label(struct mt_buf *b, int first, const char *name, const char *value)
{
	if (!first)
		mt_puts(b, ",");
	mt_puts(b, name);
	mt_puts(b, "=\"");
	mt_put_label_value(b, value);
	mt_puts(b, "\"");
}

/* The alarms raised now (schema 011), 1 each: for alerting rules. One
 * series per raised alarm, so as many as there are alarms. */
static int render_alarms(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen)
{
	static const struct {
		const char *family, *help, *sql;
	} fam[] = {
		{ "loom_port_alarm", "An alarm the InfiniBand port's counters raised (1 while "
		  "raised): link_errors, link_congested, link_flapped, counters_unreadable.",
		  "SELECT a.kind, s.name, a.guid, a.port, "
		  NAMES_DB_NAME("a.guid", "coalesce(c.description, '')") " FROM "
		  "port_alarms a JOIN subnets s ON s.id = a.subnet_id LEFT JOIN port_counters c ON "
		  "c.subnet_id = a.subnet_id AND c.guid = a.guid AND c.port = a.port ORDER BY "
		  "s.name, a.guid, a.port, a.kind" },
		{ "loom_switch_port_alarm", "An alarm the Ethernet switch port's counters raised "
		  "(1 while raised): pfc_storm, ecn_marking, link_errors, counters_unreadable.",
		  "SELECT kind, switch, port FROM switch_port_alarms ORDER BY switch, port, kind" },
	};

	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		sqlite3_stmt *s;
		int rc;

		mt_puts(out, "# HELP ");
		mt_puts(out, fam[f].family);
		mt_puts(out, " ");
		mt_puts(out, fam[f].help);
		mt_puts(out, "\n# TYPE ");
		mt_puts(out, fam[f].family);
		mt_puts(out, " gauge\n");
		if (sqlite3_prepare_v2(db, fam[f].sql, -1, &s, NULL) != SQLITE_OK) {
			if (no_table(db))
				continue;  /* older than schema 11 */
			return dbq_db_fail(db, err, errlen, "read the alarms");
		}
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			mt_puts(out, fam[f].family);
			mt_puts(out, "{");
			label(out, 1, "kind", dbq_col_str(s, 0));
			if (f == 0) {
				label(out, 0, "subnet", dbq_col_str(s, 1));
				label(out, 0, "guid", dbq_col_str(s, 2));
				label(out, 0, "port", dbq_col_str(s, 3));
				label(out, 0, "node", mt_node_name(dbq_col_str(s, 2),
								   dbq_col_str(s, 4)));
			} else {
				label(out, 0, "switch", dbq_col_str(s, 1));
				label(out, 0, "port", dbq_col_str(s, 2));
			}
			mt_puts(out, "} 1\n");
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return dbq_db_fail(db, err, errlen, "read the alarms");
	}
	return out->oom ? dbq_fail(err, errlen, -ENOMEM, "out of memory for the metrics text") : 0;
}

int metrics_db_render(sqlite3 *db, const struct mt_options *o, struct mt_buf *out,
		      char *err, size_t errlen)
{
	struct rows r;
	int rc;

	memset(&r, 0, sizeof(r));
	/* One snapshot: the reads and the ports of the same transaction. */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return dbq_db_fail(db, err, errlen, "begin the metrics read");
	if ((rc = load_reads(db, &r, err, errlen)) == 0 &&
	    (rc = load_ports(db, &r, err, errlen)) == 0 &&
	    (rc = mt_render(r.reads, r.n_reads, r.ports, r.n_ports, o, out)) < 0)
		dbq_fail(err, errlen, rc, "out of memory for the metrics text");
	if (rc == 0)
		rc = render_alarms(db, out, err, errlen);
	if (rc == 0)
		rc = metrics_db_render_switches(db, out, err, errlen);
	if (rc == 0)
		rc = metrics_db_render_fabric(db, out, err, errlen);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	rows_free(&r);
	return rc;
}
