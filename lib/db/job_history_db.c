/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_history_db.c: see job_history_db.h. */
#include "autoconf.h"
#include "lib/db/job_history_db.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/db/db_query.h"
#include "lib/db/db_row.h"
#include "lib/db/lft_history.h"
#include "lib/db/names_db.h"
#include "lib/db/route_live_db.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/nodename.h"
#include "lib/route/route_live.h"
#include "lib/route/route_paths.h"

/* ---- times -------------------------------------------------------------------------- */

int job_history_time_parse(const char *s, double now, double *out)
{
	static const char *const local[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M" };

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "now")) {
		*out = now;
		return 0;
	}
	if (s[0] == '-') {
		size_t n = strlen(s);

		/* an age: a unit is required (-1700000000 is no time) */
		if (n < 3 || !strchr("smhd", s[n - 1]))
			return -EINVAL;
		return dbq_time_parse(s + 1, now, out);
	}
	if (strchr(s, '-') && strchr(s, ' ') && !strchr(s, 'Z')) {
		for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
			struct tm tm;
			const char *end;

			memset(&tm, 0, sizeof(tm));
			end = strptime(s, local[i], &tm);
			if (end && !*end) {
				tm.tm_isdst = -1;
				*out = (double)mktime(&tm);
				return 0;
			}
		}
		return -EINVAL;
	}
	return dbq_time_parse(s, now, out);
}

/* ---- the job's hosts ---------------------------------------------------------------- */

/* The tenant's ports: the running one's, else those of its last end kept. */
static int job_ports(sqlite3 *db, const char *job, json_t *out, char *err, size_t errlen)
{
	static const char *const sql[] = {
		"SELECT host, port_guid, NULL FROM tenant_ports WHERE tenant = ?1 ORDER BY host",
		"SELECT host, port_guid, ended FROM tenant_ends WHERE tenant = ?1 AND ended = "
		"(SELECT max(ended) FROM tenant_ends WHERE tenant = ?1) ORDER BY host",
	};
	json_t *hosts = json_object_get(out, "hosts");

	for (size_t k = 0; k < 2 && !json_array_size(hosts); k++) {
		sqlite3_stmt *s;
		int rc;

		if ((rc = dbq_prepare(db, sql[k], &s, err, errlen)) < 0)
			return rc;
		sqlite3_bind_text(s, 1, job, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			json_array_append_new(hosts, json_pack("{s:s, s:s}", "host",
							       dbq_col_str(s, 0), "port_guid",
							       dbq_col_str(s, 1)));
			if (k == 1)
				json_object_set_new(out, "ended", dbq_col_time(s, 2));
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return dbq_db_fail(db, err, errlen, "read the job's hosts");
	}
	if (!json_array_size(hosts))
		return dbq_fail(err, errlen, -ENOENT, "no job (tenant) %s, running or ended within "
				"events.keep_days", job);
	return 0;
}

/* ---- the fabric --------------------------------------------------------------------- */

/* Put back the cables cut since (a port without a peer that had one,
 * schema 019), when both ends are still in the fabric: the older tables
 * routed over them. The cables put back. */
static int recable(sqlite3 *db, struct fab *fab, int64_t sid, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	int rc, n = 0;

	if (dbq_prepare(db, "SELECT node_guid, num, last_peer_guid, last_peer_port FROM ports "
			"WHERE subnet_id = ? AND peer_guid IS NULL AND last_peer_guid IS NOT NULL",
			&s, err, errlen) < 0)
		return 0;   /* a schema before 019: nothing to put back */
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t a = strtoull(dbq_col_str(s, 0), NULL, 16);
		uint64_t b = strtoull(dbq_col_str(s, 2), NULL, 16);
		struct fab_node *na = fab_find(fab, a), *nb = fab_find(fab, b);
		struct fab_port *pa = na ? fab_port(na, (unsigned)sqlite3_column_int(s, 1)) : NULL;
		struct fab_port *pb = nb ? fab_port(nb, (unsigned)sqlite3_column_int(s, 3)) : NULL;

		if (!pa || !pb || (pb->has_peer && (pb->peer_guid != a || pb->peer_port != pa->num)))
			continue;
		pa->has_peer = pb->has_peer = 1;
		pa->peer_guid = b;
		pa->peer_port = pb->num;
		pb->peer_guid = a;
		pb->peer_port = pa->num;
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return dbq_db_fail(db, err, errlen, "read the cut cables");
	return n / 2 + n % 2;   /* both ends of a cable are listed */
}

struct hctx {
	sqlite3 *db;
	int64_t sid;
	struct fab *fab;
	struct rt_graph *g;
	struct nodename_map *names;
	uint32_t *port_sw;          /* global switch port -> switch */
	size_t *ca, n_ca;           /* the job's CA ports */
	json_t *out;
	/* the ends of every link of every version: (guid, port) */
	struct hend { uint64_t guid; unsigned port; int evented; uint64_t pairs; } *ends;
	size_t n_ends, cap_ends;
};

static const char *node_name(const struct hctx *c, uint64_t guid, char *buf, size_t len)
{
	const struct fab_node *n = fab_find(c->fab, guid);
	const char *name = n ? nodename_of(c->names, guid, n->desc) : "";

	if (!name[0])
		ibt_guid_str(guid, buf, len);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* The sending and receiving ends of a link (route_paths.h). */
static void link_ends(const struct hctx *c, uint32_t link, struct hend *tx, struct hend *rx)
{
	uint32_t i = RT_PATHS_PORT(link), sw = c->port_sw[i];
	const struct rt_port *rp = &c->g->ports[i];
	struct hend *here = RT_PATHS_IS_IN(link) ? rx : tx, *there = here == tx ? rx : tx;

	*here = (struct hend){ c->g->sw[sw].guid, i - c->g->sw[sw].first_port, 0, 0 };
	if (rp->kind == RT_PEER_CA)
		*there = (struct hend){ c->g->ca[rp->peer].node_guid, c->g->ca[rp->peer].port, 0, 0 };
	else if (rp->kind == RT_PEER_SWITCH)
		*there = (struct hend){ c->g->sw[rp->peer].guid, rp->peer_port, 0, 0 };
	else
		*there = (struct hend){ 0, 0, 0, 0 };
}

static json_t *link_name(const struct hctx *c, uint32_t link)
{
	struct hend tx, rx;
	char a[NODENAME_LEN], b[NODENAME_LEN];

	link_ends(c, link, &tx, &rx);
	return json_sprintf("%s[%u] -> %s[%u]", node_name(c, tx.guid, a, sizeof(a)), tx.port,
			    node_name(c, rx.guid, b, sizeof(b)), rx.port);
}

static int cmp_end(const void *x, const void *y)
{
	const struct hend *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int end_add(struct hctx *c, struct hend e)
{
	if (!e.guid)
		return 0;
	if (c->n_ends == c->cap_ends) {
		size_t cap = c->cap_ends ? 2 * c->cap_ends : 256;
		struct hend *bigger = realloc(c->ends, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		c->ends = bigger;
		c->cap_ends = cap;
	}
	c->ends[c->n_ends++] = e;
	return 0;
}

/* ---- one version ------------------------------------------------------------------------ */

/* links of p not in q, as names */
static json_t *links_minus(const struct hctx *c, const struct rt_paths *p,
			   const struct rt_paths *q)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < p->n_links; i++)
		if (!rt_paths_pairs_on(q, p->links[i].link) &&
		    json_array_size(a) < JOB_HISTORY_MAX_LINKS)
			json_array_append_new(a, link_name(c, p->links[i].link));
	return a;
}

static json_t *time_or_null(double t)
{
	char buf[32];

	return t > 0 ? json_string(dbq_time_str(t, buf, sizeof(buf))) : json_null();
}

/* r: the tables of version v (rebuilt by the caller). */
static int version_json(struct hctx *c, const struct lfth_version *v, const struct rl_read *r,
			struct rt_paths *p, const struct rt_paths *prev, json_t **out, char *err,
			size_t errlen)
{
	struct rt_lfts *l;
	size_t missing = 0;
	json_t *links;
	char ts[32];
	int rc;

	l = rl_lfts(c->g, r, &missing);
	if (!l)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	rc = rt_paths_compute(c->g, l, c->ca, c->n_ca, NULL, p);
	rt_lfts_free(l);
	if (rc < 0)
		return dbq_fail(err, errlen, rc, "cannot follow the job's pairs: %s", strerror(-rc));
	if (!(links = json_array()))
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n_links; i++) {
		struct hend tx, rx;

		link_ends(c, p->links[i].link, &tx, &rx);
		tx.pairs = rx.pairs = p->links[i].pairs;
		if (end_add(c, tx) < 0 || end_add(c, rx) < 0) {
			json_decref(links);
			return dbq_fail(err, errlen, -ENOMEM, "out of memory");
		}
		if (i < JOB_HISTORY_MAX_LINKS)
			json_array_append_new(links, json_pack("{s:o, s:I}", "link",
							       link_name(c, p->links[i].link),
							       "pairs",
							       (json_int_t)p->links[i].pairs));
	}
	*out = json_pack("{s:I, s:s, s:f, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, "
			 "s:o}",
			 "id", (json_int_t)v->id, "time", dbq_time_str(v->time, ts, sizeof(ts)),
			 "ts", v->time, "after", time_or_null(v->after),
			 "until", time_or_null(v->until), "switches", (json_int_t)v->switches,
			 "changed_switches", (json_int_t)v->changed,
			 "switches_without_table", (json_int_t)missing,
			 "pairs", (json_int_t)p->pairs, "delivered", (json_int_t)p->delivered,
			 "dropped", (json_int_t)p->dropped, "loops", (json_int_t)p->loops,
			 "n_links", (json_int_t)p->n_links, "links", links,
			 "moved", prev ? json_pack("{s:o, s:o}", "added", links_minus(c, p, prev),
						   "removed", links_minus(c, prev, p)) :
				 json_null());
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}

/* ---- events --------------------------------------------------------------------------- */

/* Sorted, one entry a port, with the most pairs of a link at it. */
static void ends_collapse(struct hctx *c)
{
	size_t k = 0;

	if (c->n_ends)
		qsort(c->ends, c->n_ends, sizeof(*c->ends), cmp_end);
	for (size_t i = 0; i < c->n_ends; i++) {
		if (k && !cmp_end(&c->ends[i], &c->ends[k - 1])) {
			if (c->ends[i].pairs > c->ends[k - 1].pairs)
				c->ends[k - 1].pairs = c->ends[i].pairs;
			continue;
		}
		c->ends[k++] = c->ends[i];
	}
	c->n_ends = k;
}

static const struct hend *has_end(const struct hctx *c, uint64_t guid, unsigned port)
{
	struct hend k = { guid, port, 0, 0 };

	return bsearch(&k, c->ends, c->n_ends, sizeof(k), cmp_end);
}

/* The port of the job's links the subject names, or NULL: "0xG[P]" (a
 * link or port event) or "port 0xG/P" (an alarm, an isolation). */
static const struct hend *names_end(const struct hctx *c, const char *subj)
{
	for (const char *at = subj; (at = strstr(at, "0x")) != NULL; at += 2) {
		char *end;
		uint64_t g = strtoull(at + 2, &end, 16);
		unsigned long port;

		if (end - at != 18 || (*end != '[' && *end != '/') || !isdigit((unsigned char)end[1]))
			continue;
		port = strtoul(end + 1, NULL, 10);
		if (port <= 255 && has_end(c, g, (unsigned)port))
			return has_end(c, g, (unsigned)port);
	}
	return NULL;
}

static int names_host(const struct hctx *c, const char *subj)
{
	size_t i;
	json_t *h;

	json_array_foreach(json_object_get(c->out, "hosts"), i, h) {
		const char *name = json_string_value(json_object_get(h, "host"));
		const char *at = name && *name ? strstr(subj, name) : NULL;
		size_t n = name ? strlen(name) : 0;

		if (at && (at == subj || !isalnum((unsigned char)at[-1])) &&
		    !isalnum((unsigned char)at[n]))
			return 1;
	}
	return 0;
}

static int window_events_json(struct hctx *c, double from, double to, char *err, size_t errlen)
{
	json_t *ev = json_array();
	json_int_t more = 0;
	sqlite3_stmt *s;
	int rc;

	if (!ev)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	json_object_set_new(c->out, "events", ev);
	ends_collapse(c);
	if ((rc = dbq_prepare(c->db, "SELECT time, severity, kind, subject, old_value, new_value "
			      "FROM events WHERE time >= ?1 AND time <= ?2 AND (subnet_id = ?3 OR "
			      "subnet_id IS NULL) AND (kind LIKE 'link\\_%' ESCAPE '\\' OR kind "
			      "LIKE 'osm\\_%' ESCAPE '\\' OR kind IN ('host_drained', "
			      "'host_resumed', 'ber', 'ber_cleared')) ORDER BY time, id", &s, err,
			      errlen)) < 0)
		return rc;
	sqlite3_bind_double(s, 1, from);
	sqlite3_bind_double(s, 2, to);
	sqlite3_bind_int64(s, 3, c->sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *kind = dbq_col_str(s, 2), *subj = dbq_col_str(s, 3);
		const struct hend *e = NULL;
		const char *why;
		json_t *one;
		char name[NODENAME_LEN];

		if (!strncmp(kind, "osm_", 4))
			why = "reroute";
		else if (!strncmp(kind, "host_", 5))
			why = names_host(c, subj) ? "host" : NULL;
		else
			why = (e = names_end(c, subj)) ? "link" : NULL;
		if (!why)
			continue;
		if (json_array_size(ev) >= JOB_HISTORY_MAX_EVENTS) {
			more++;
			continue;
		}
		one = json_pack("{s:o, s:f, s:s, s:s, s:o, s:o, s:o, s:s}", "time",
				dbq_col_time(s, 0), "ts", sqlite3_column_double(s, 0), "severity",
				dbq_col_str(s, 1), "kind", kind, "subject", dbq_col_text(s, 3),
				"old_value", dbq_col_text(s, 4), "new_value", dbq_col_text(s, 5),
				"matched", why);
		if (e)
			((struct hend *)e)->evented = 1;   /* its counters asked first */
		if (one && e) {
			json_object_set_new(one, "port", json_sprintf("%s[%u]", node_name(
				c, e->guid, name, sizeof(name)), e->port));
			json_object_set_new(one, "pairs", json_integer((json_int_t)e->pairs));
		}
		json_array_append_new(ev, one);
	}
	sqlite3_finalize(s);
	json_object_set_new(c->out, "events_more", json_integer(more));
	return rc == SQLITE_DONE ? 0 : dbq_db_fail(c->db, err, errlen, "read the events");
}

/* Those named by an event first, then the busiest. */
static int cmp_interest(const void *x, const void *y)
{
	const struct hend *a = x, *b = y;

	if (a->evented != b->evented)
		return b->evented - a->evented;
	if (a->pairs != b->pairs)
		return a->pairs < b->pairs ? 1 : -1;
	return cmp_end(a, b);
}

/* Every distinct port at an end of the job's links (for the counters):
 * those an event of the window named first, then by the job's pairs on
 * their links. The ends are left in that order. */
static json_t *ports_json(struct hctx *c)
{
	json_t *a = json_array();
	char g[24], name[NODENAME_LEN];

	if (c->n_ends)
		qsort(c->ends, c->n_ends, sizeof(*c->ends), cmp_interest);
	for (size_t i = 0; a && i < c->n_ends; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:I, s:b}", "guid",
						   ibt_guid_str(c->ends[i].guid, g, sizeof(g)),
						   "port", (int)c->ends[i].port, "name",
						   node_name(c, c->ends[i].guid, name, sizeof(name)),
						   "pairs", (json_int_t)c->ends[i].pairs, "evented",
						   c->ends[i].evented));
	return a;
}

/* ---- the answer ------------------------------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The job's CA ports in the graph (by port GUID). */
static int job_cas(struct hctx *c, char *err, size_t errlen)
{
	json_t *hosts = json_object_get(c->out, "hosts"), *h;
	uint64_t *want;
	size_t i, n = json_array_size(hosts);

	if (!(want = malloc((n ? n : 1) * sizeof(*want))) ||
	    !(c->ca = malloc((n ? n : 1) * sizeof(*c->ca)))) {
		free(want);
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	}
	json_array_foreach(hosts, i, h)
		want[i] = strtoull(json_string_value(json_object_get(h, "port_guid")), NULL, 16);
	qsort(want, n, sizeof(*want), cmp_u64);
	for (size_t k = 0; k < c->g->n_ca; k++)
		if (bsearch(&c->g->ca[k].guid, want, n, sizeof(*want), cmp_u64))
			c->ca[c->n_ca++] = k;
	free(want);
	return 0;
}

/* *to: where the answer stops (the window's end, or the time of the
 * first version beyond JOB_HISTORY_MAX_VERSIONS). */
static int versions_json(struct hctx *c, double from, double *to, char *err, size_t errlen)
{
	struct lfth_version *v = NULL;
	struct rl_read *r = NULL;
	struct rt_paths p[2];
	json_t *arr = json_array(), *one = NULL;
	size_t n = 0;
	int rc;

	memset(p, 0, sizeof(p));
	if (!arr)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	json_object_set_new(c->out, "versions", arr);
	if ((rc = lfth_versions(c->db, c->sid, from, *to, &v, &n, err, errlen)) < 0)
		return rc;
	/* Bounded: a window of months is answered up to the 64th version. */
	if (n > JOB_HISTORY_MAX_VERSIONS) {
		char t[32];

		*to = v[JOB_HISTORY_MAX_VERSIONS].time;
		json_object_set_new(c->out, "cut_at", json_string(dbq_time_str(*to, t, sizeof(t))));
		json_object_set_new(c->out, "versions_more",
				    json_integer((json_int_t)(n - JOB_HISTORY_MAX_VERSIONS)));
		n = JOB_HISTORY_MAX_VERSIONS;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		/* The next version over the one before: only its changes applied. */
		if (r && v[i].prev_id == v[i - 1].id)
			rc = lfth_apply(c->db, r, v[i].id, v[i].time, err, errlen);
		else {
			rl_read_free(r);
			r = lfth_load(c->db, v[i].id, &rc, err, errlen);
		}
		rt_paths_clear(&p[i % 2]);
		if (rc == 0 && (rc = version_json(c, &v[i], r, &p[i % 2], i ? &p[(i + 1) % 2] : NULL,
						  &one, err, errlen)) == 0)
			json_array_append_new(arr, one);
	}
	rl_read_free(r);
	rt_paths_clear(&p[0]);
	rt_paths_clear(&p[1]);
	free(v);
	return rc;
}

static int answer(struct hctx *c, const struct job_history_query *q, const char *subnet,
		  char *err, size_t errlen)
{
	double to = q->to;
	int rc, cables;

	if ((rc = job_ports(c->db, q->job, c->out, err, errlen)) < 0)
		return rc;
	if (!(c->fab = rl_db_load_fabric(c->db, subnet, err, errlen)))
		return -EIO;
	if ((cables = recable(c->db, c->fab, c->sid, err, errlen)) < 0)
		return cables;
	json_object_set_new(c->out, "fabric", json_sprintf(
		"the fabric as last swept%s%d cut cable%s put back from its last peer (loom keeps "
		"no older fabric)", cables ? ", " : "; ", cables, cables == 1 ? "" : "s"));
	if (!(c->g = rt_graph_new(c->fab, err, errlen)))
		return -EINVAL;
	if ((rc = names_db_load(c->db, &c->names, err, errlen)) < 0)
		return rc;
	if (!(c->port_sw = malloc((c->g->n_ports ? c->g->n_ports : 1) * sizeof(*c->port_sw))))
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t k = 0; k < c->g->n_sw; k++)
		for (unsigned p = 0; p <= c->g->sw[k].nports; p++)
			c->port_sw[rt_graph_port_index(c->g, k, p)] = (uint32_t)k;
	if ((rc = job_cas(c, err, errlen)) < 0 ||
	    (rc = versions_json(c, q->from, &to, err, errlen)) < 0 ||
	    (rc = window_events_json(c, q->from, to, err, errlen)) < 0)
		return rc;
	json_object_set_new(c->out, "ports", ports_json(c));
	return 0;
}

int job_history_db(sqlite3 *db, const struct job_history_query *q, json_t **out, char *err,
		   size_t errlen)
{
	struct hctx c = { .db = db };
	char subnet[256], ca[64], f[32], t[32];
	int port, rc;
	sqlite3_stmt *s;

	*out = NULL;
	if (!q->job || !*q->job)
		return dbq_fail(err, errlen, -EINVAL, "name the job (a tenant, the Slurm job id)");
	if (!(q->from <= q->to))
		return dbq_fail(err, errlen, -EINVAL, "the window ends (%s) before it starts (%s)",
				dbq_time_str(q->to, t, sizeof(t)), dbq_time_str(q->from, f, sizeof(f)));
	if ((rc = rl_db_subnet(db, q->subnet, subnet, sizeof(subnet), ca, sizeof(ca), &port, err,
			       errlen)) < 0)
		return rc;
	if ((rc = dbq_prepare(db, "SELECT id FROM subnets WHERE name = ?", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		c.sid = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	c.out = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:[], s:n}", "job", q->job, "subnet",
			  subnet, "from", dbq_time_str(q->from, f, sizeof(f)), "to",
			  dbq_time_str(q->to, t, sizeof(t)), "from_ts", q->from, "to_ts", q->to,
			  "hosts", "ended");
	if (!c.out)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	rc = answer(&c, q, subnet, err, errlen);
	free(c.ends);
	free(c.ca);
	free(c.port_sw);
	nodename_map_free(c.names);
	rt_graph_free(c.g);
	fab_free(c.fab);
	if (rc < 0) {
		json_decref(c.out);
		return rc;
	}
	*out = c.out;
	return 0;
}
