/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_db.c: see job_db.h. The index itself is job_index.c; here
 * its links are joined with the links' state (the stored fabric) and the
 * port counters and alarms of the last read. */
#include "autoconf.h"
#include "lib/db/job_db_impl.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/db/route_live_db.h"
#include "lib/fabric/hostmap.h"
#include "lib/route/route_live.h"
#include "lib/telemetry/congestion.h"
#include "lib/telemetry/counter_row.h"
#include "lib/telemetry/pma.h"
#include "lib/util/hostlist.h"

#define JOB_DEFAULT_TOP 10

/* ---- the ports with something to say: counters and alarms -------------------------- */

struct bad {
	uint64_t guid;
	unsigned port;
	int64_t errors;
	double wait;           /* PortXmitWait per second */
	json_t *moved;         /* {counter: delta}, or NULL */
	char kind[32];         /* an open alarm's kind, "" for a counters row */
	char why[160];
};

struct bads {
	struct bad *b;
	size_t n, cap;
};

static int cmp_bad(const void *a, const void *b)
{
	const struct bad *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static struct bad *bad_add(struct bads *l)
{
	if (l->n == l->cap) {
		struct bad *bigger = realloc(l->b, (l->cap = l->cap ? 2 * l->cap : 32) *
					     sizeof(*bigger));

		if (!bigger)
			return NULL;
		l->b = bigger;
	}
	memset(&l->b[l->n], 0, sizeof(l->b[0]));
	return &l->b[l->n++];
}

static void bads_free(struct bads *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->b[i].moved);
	free(l->b);
}

/* The error counters that moved in a stored sample. */
static json_t *moved_of(const void *blob, size_t len)
{
	struct counter_row row;
	json_t *moved;

	if (!blob || counter_row_unpack(blob, len, &row) < 0 || !(moved = json_object()))
		return NULL;
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (row.s.bits[c] && pma_counter_is_error((enum pma_counter)c) && row.d[c].delta)
			json_object_set_new(moved, pma_counter_name((enum pma_counter)c),
					    json_integer((json_int_t)row.d[c].delta));
	return moved;
}

/* The ports of `subnet` whose last read moved an error counter or waited,
 * and its open alarms. Without telemetry's tables (never read): none. */
static int bads_load(sqlite3 *db, const char *subnet, struct bads *l, char *err, size_t errlen)
{
	static const char *const sql[2] = {
		"SELECT c.guid, c.port, c.errors, c.xmit_wait_per_s, c.sample, '', '' FROM "
		"port_counters c JOIN subnets s ON s.id = c.subnet_id WHERE s.name = ? AND "
		"c.answered = 1 AND (c.errors > 0 OR c.xmit_wait_per_s > 0)",
		"SELECT a.guid, a.port, 0, 0, NULL, a.kind, a.why FROM port_alarms a JOIN subnets s "
		"ON s.id = a.subnet_id WHERE s.name = ?",
	};

	for (int q = 0; q < 2; q++) {
		sqlite3_stmt *s;
		int rc;

		if (sqlite3_prepare_v2(db, sql[q], -1, &s, NULL) != SQLITE_OK) {
			if (strstr(sqlite3_errmsg(db), "no such"))
				continue;
			return dbq_db_fail(db, err, errlen, "read the port counters");
		}
		sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			struct bad *b = bad_add(l);

			if (!b)
				break;
			b->guid = strtoull(dbq_col_str(s, 0), NULL, 16);
			b->port = (unsigned)sqlite3_column_int(s, 1);
			b->errors = sqlite3_column_int64(s, 2);
			b->wait = sqlite3_column_double(s, 3);
			b->moved = moved_of(sqlite3_column_blob(s, 4),
					    (size_t)sqlite3_column_bytes(s, 4));
			snprintf(b->kind, sizeof(b->kind), "%s", dbq_col_str(s, 5));
			snprintf(b->why, sizeof(b->why), "%s", dbq_col_str(s, 6));
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return rc == SQLITE_ROW ? dbq_fail(err, errlen, -ENOMEM, "out of memory")
						: dbq_db_fail(db, err, errlen, "read the port counters");
	}
	if (l->n)
		qsort(l->b, l->n, sizeof(*l->b), cmp_bad);
	return 0;
}

/* The first row of (guid, port), or NULL; its others follow it. */
static const struct bad *bad_find(const struct bads *l, uint64_t guid, unsigned port)
{
	size_t lo = 0, hi = l->n;
	struct bad key = { .guid = guid, .port = port };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_bad(&l->b[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && !cmp_bad(&l->b[lo], &key) ? &l->b[lo] : NULL;
}

/* ---- a directed link's ends ------------------------------------------------------ */

struct end {
	uint64_t guid;
	unsigned port;
	const struct fab_node *node;   /* NULL when the fabric lacks it */
	const struct fab_port *fp;
};

static void end_set(const struct jx_subnet *s, struct end *e, uint64_t guid, unsigned port)
{
	e->guid = guid;
	e->port = port;
	e->node = fab_find(s->fab, guid);
	e->fp = e->node ? fab_port(e->node, port) : NULL;
}

/* The sending (tx) and receiving (rx) port of a link (route_paths.h). */
static void link_ends(const struct jx_subnet *s, uint32_t link, struct end *tx, struct end *rx)
{
	uint32_t i = RT_PATHS_PORT(link), sw = s->port_sw[i];
	unsigned p = i - s->g->sw[sw].first_port;
	const struct rt_port *rp = &s->g->ports[i];
	struct end *here = RT_PATHS_IS_IN(link) ? rx : tx, *there = here == tx ? rx : tx;

	end_set(s, here, s->g->sw[sw].guid, p);
	if (rp->kind == RT_PEER_CA)
		end_set(s, there, s->g->ca[rp->peer].node_guid, s->g->ca[rp->peer].port);
	else if (rp->kind == RT_PEER_SWITCH)
		end_set(s, there, s->g->sw[rp->peer].guid, rp->peer_port);
	else
		end_set(s, there, 0, 0);
}

/* "NODE:PORT": the site's name of the node (names), else its description,
 * else its GUID. */
static json_t *end_name(const struct end *e, const struct nodename_map *names)
{
	char buf[NODENAME_LEN + 32], g[24];
	const char *name;

	if (!e->node)
		return e->guid ? json_sprintf("%s:%u", ibt_guid_str(e->guid, g, sizeof(g)), e->port)
			       : json_null();
	name = nodename_of(names, e->node->guid, e->node->desc);
	snprintf(buf, sizeof(buf), "%s:%u", name[0] ? name : ibt_guid_str(e->guid, g, sizeof(g)),
		 e->port);
	return json_string(buf);
}

/* The links of port (guid, port): the direction it sends in, and unless
 * sending_only the one it receives on. Returns their number (0..2). */
static size_t links_at(const struct jx_subnet *s, uint64_t guid, unsigned port,
		       int sending_only, uint32_t out[2])
{
	int32_t sw = jx_switch_of(s, guid), c;
	size_t n = 0;

	if (sw >= 0) {
		size_t i;
		const struct rt_port *rp;

		if (port == 0 || port > s->g->sw[sw].nports)
			return 0;
		i = rt_graph_port_index(s->g, (size_t)sw, port);
		rp = &s->g->ports[i];
		out[n++] = RT_PATHS_OUT(i);
		if (!sending_only && rp->kind == RT_PEER_SWITCH)
			out[n++] = RT_PATHS_OUT(rt_graph_port_index(s->g, (size_t)rp->peer,
								    rp->peer_port));
		else if (!sending_only && rp->kind == RT_PEER_CA)
			out[n++] = RT_PATHS_IN(i);
		return n;
	}
	if ((c = jx_ca_of(s, guid, port)) < 0 || s->g->ca[c].sw < 0)
		return 0;
	{
		size_t i = rt_graph_port_index(s->g, (size_t)s->g->ca[c].sw, s->g->ca[c].sw_port);

		out[n++] = RT_PATHS_IN(i);
		if (!sending_only)
			out[n++] = RT_PATHS_OUT(i);
	}
	return n;
}

/* The tenants other than `self` whose pairs cross any of links[0..n), in
 * name order: from the index link -> tenants. */
static json_t *jobs_on(const struct jx_subnet *s, const char *self, const uint32_t *links,
		       size_t n)
{
	json_t *arr = json_array();
	const struct jx_use *u[2] = { NULL, NULL };
	size_t nu[2] = { 0, 0 }, a = 0, b = 0;
	uint32_t last = UINT32_MAX;

	for (size_t i = 0; i < n && i < 2; i++)
		u[i] = jx_uses_of(s, links[i], &nu[i]);
	/* Merge the (one or two) lists, each in tenant order; a tenant on
	 * both comes twice in a row. */
	while (arr && (a < nu[0] || b < nu[1])) {
		uint32_t k;

		if (b >= nu[1] || (a < nu[0] && u[0][a].tenant <= u[1][b].tenant))
			k = u[0][a++].tenant;
		else
			k = u[1][b++].tenant;
		if (k == last)
			continue;
		last = k;
		if (!s->t[k].name || (self && !strcmp(s->t[k].name, self)))
			continue;
		json_array_append_new(arr, json_string(s->t[k].name));
	}
	return arr;
}

/* ---- one job's links judged ------------------------------------------------------- */

struct judged {
	uint32_t link;
	uint64_t pairs;
	int alarms, down, slow;
	int64_t errors;
	double wait;
};

/* Worst first: alarms, down, slow, errors, waiting, then pairs; the link
 * last, so that the order is the same every time. */
static int cmp_judged(const void *a, const void *b)
{
	const struct judged *x = a, *y = b;

	if (x->alarms != y->alarms)
		return y->alarms - x->alarms;
	if (x->down != y->down)
		return y->down - x->down;
	if (x->slow != y->slow)
		return y->slow - x->slow;
	if (x->errors != y->errors)
		return y->errors > x->errors ? 1 : -1;
	if (x->wait != y->wait)
		return y->wait > x->wait ? 1 : -1;
	if (x->pairs != y->pairs)
		return y->pairs > x->pairs ? 1 : -1;
	return x->link < y->link ? -1 : x->link > y->link;
}

static int slower(const struct jx_subnet *s, const struct fab_port *p)
{
	return p && (ibt_width_lanes(p->width_active) < ibt_width_lanes(s->norm_width) ||
		     p->speed_active < s->norm_speed);
}

/* What is wrong with a link; 0 when nothing is. why (may be NULL): the
 * reasons, "moved": the error counters of both ends, "alarms": kinds. */
static int judge(const struct jx_subnet *s, const struct bads *bl,
		 const struct nodename_map *names, uint32_t link, uint64_t pairs, struct judged *j,
		 json_t *why, json_t *moved, json_t *alarms)
{
	struct end e[2];

	*j = (struct judged){ .link = link, .pairs = pairs };
	link_ends(s, link, &e[0], &e[1]);
	if (!e[0].fp || !e[0].fp->has_peer || e[0].fp->state != JX_PORT_ACTIVE) {
		j->down = 1;
		if (why)
			json_array_append_new(why, json_sprintf(
				"the tables send over it but the port is %s",
				e[0].fp && e[0].fp->has_peer ? ibt_port_state_name(e[0].fp->state)
							     : "down"));
	} else if (slower(s, e[0].fp)) {
		j->slow = 1;
		if (why)
			json_array_append_new(why, json_sprintf(
				"runs %s %s, below the fabric's %s %s",
				ibt_width_name(e[0].fp->width_active),
				ibt_speed_name(e[0].fp->speed_active), ibt_width_name(s->norm_width),
				ibt_speed_name(s->norm_speed)));
	}
	for (int k = 0; k < 2; k++) {
		const struct bad *b = bad_find(bl, e[k].guid, e[k].port);
		json_t *name = end_name(&e[k], names);

		for (; b && b < bl->b + bl->n && b->guid == e[k].guid && b->port == e[k].port; b++) {
			if (b->kind[0]) {
				/* Congestion at the receiving end is the other direction's. */
				if (k == 1 && !strcmp(b->kind, "link_congested"))
					continue;
				j->alarms++;
				if (alarms)
					json_array_append_new(alarms, json_string(b->kind));
				if (why)
					json_array_append_new(why, json_sprintf(
						"alarm %s at %s: %s", b->kind,
						json_string_value(name) ? json_string_value(name) : "?",
						b->why));
				continue;
			}
			j->errors += b->errors;
			if (k == 0)
				j->wait += b->wait;
			if (why && b->errors > 0)
				json_array_append_new(why, json_sprintf(
					"%lld errors at %s", (long long)b->errors,
					json_string_value(name) ? json_string_value(name) : "?"));
			if (why && k == 0 && b->wait > 0)
				json_array_append_new(why, json_sprintf(
					"congested: PortXmitWait %.0f/s at %s", b->wait,
					json_string_value(name) ? json_string_value(name) : "?"));
			if (moved && b->moved) {
				const char *key;
				json_t *v;

				json_object_foreach(b->moved, key, v) {
					json_t *was = json_object_get(moved, key);

					json_object_set_new(moved, key, json_integer(
						json_integer_value(v) +
						(was ? json_integer_value(was) : 0)));
				}
			}
		}
		json_decref(name);
	}
	return j->alarms || j->down || j->slow || j->errors > 0 || j->wait > 0;
}

static json_t *worst_json(const struct jx_subnet *s, const struct bads *bl,
			  const struct nodename_map *names, const struct judged *jd, const char *self)
{
	struct end e[2];
	struct judged again;
	json_t *why = json_array(), *moved = json_object(), *alarms = json_array(), *o;

	link_ends(s, jd->link, &e[0], &e[1]);
	judge(s, bl, names, jd->link, jd->pairs, &again, why, moved, alarms);
	o = json_pack("{s:o, s:o, s:I, s:I, s:o, s:f, s:o, s:s, s:b, s:o, s:o}",
		      "from", end_name(&e[0], names), "to", end_name(&e[1], names),
		      "pairs", (json_int_t)jd->pairs, "errors", (json_int_t)jd->errors,
		      "moved", moved, "xmit_wait_per_s", jd->wait, "alarms", alarms,
		      "state", e[0].fp && e[0].fp->has_peer ? ibt_port_state_name(e[0].fp->state)
							     : "down",
		      "degraded", jd->slow, "why", why,
		      "jobs", jobs_on(s, self, &jd->link, 1));
	if (o)
		json_object_set_new(o, "congestion", json_null());
	return o;
}

/* ---- the job's CA ports ------------------------------------------------------------ */

struct job_cas {
	size_t *ca, n;
	json_t *hosts_of;      /* {"port GUID": host} */
	json_t *unknown;       /* hosts with no CA port here */
};

/* Hosts by name through the pattern's first group. */
static int cas_from_hosts(const struct jx_subnet *s, const struct job_query *q,
			  struct job_cas *jc, char *err, size_t errlen)
{
	struct hostlist hl;
	struct hostmap hm;
	json_t *found, *want;
	int rc;

	/* A list too large or malformed is the caller's error (-EINVAL), as
	 * the tenants take it. */
	if ((rc = hostlist_expand(q->hosts, &hl, err, errlen)) < 0)
		return rc == -ENOMEM ? rc : -EINVAL;
	/* The tenants' rule: the pattern, and the map's ports for the hosts
	 * it names (lib/fabric/hostmap.h). */
	if ((rc = hostmap_load(&hm, q->host_pattern ? q->host_pattern : HOSTMAP_DEFAULT_PATTERN,
			       q->host_map, err, errlen)) < 0) {
		hostlist_clear(&hl);
		return rc;
	}
	found = json_object();
	want = json_object();
	/* The names asked, hashed: a CA's host is looked up, not compared
	 * with each of them. */
	for (size_t h = 0; h < hl.n; h++)
		json_object_set_new(want, hl.names[h], json_true());
	if (!found || !want || !(jc->ca = malloc((s->g->n_ca ? s->g->n_ca : 1) * sizeof(*jc->ca))))
		rc = -ENOMEM;
	for (size_t c = 0; rc == 0 && c < s->g->n_ca; c++) {
		char host[HOSTMAP_NAME_LEN], g[24];

		if (!hostmap_host(&hm, s->g->ca[c].guid, s->g->ca[c].desc, host, sizeof(host)) ||
		    !json_object_get(want, host))
			continue;
		jc->ca[jc->n++] = c;
		json_object_set_new(jc->hosts_of, ibt_guid_str(s->g->ca[c].guid, g, sizeof(g)),
				    json_string(host));
		json_object_set_new(found, host, json_true());
	}
	for (size_t h = 0; rc == 0 && h < hl.n; h++)
		if (!json_object_get(found, hl.names[h]))
			json_array_append_new(jc->unknown, json_string(hl.names[h]));
	hostmap_clear(&hm);
	hostlist_clear(&hl);
	json_decref(found);
	json_decref(want);
	if (rc < 0)
		return dbq_fail(err, errlen, rc, "out of memory");
	if (!jc->n)
		return dbq_fail(err, errlen, -EINVAL, "none of the hosts has an HCA port in the "
				"fabric of subnet %s (by the host pattern%s)", s->name,
				q->host_map && q->host_map[0] ? " and map" : "");
	return 0;
}

static json_t *hosts_json(const struct jx_subnet *s, const struct job_cas *jc,
			  const struct nodename_map *names)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < jc->n; i++) {
		const struct rt_ca *c = &s->g->ca[jc->ca[i]];
		char g[24];
		json_t *host = json_object_get(jc->hosts_of, ibt_guid_str(c->guid, g, sizeof(g)));

		json_array_append_new(arr, json_pack(
			"{s:O, s:s, s:s, s:i, s:o, s:o}", "host", host ? host : json_null(),
			"port_guid", g, "node", nodename_of(names, c->node_guid, c->desc),
			"port", c->port, "switch", c->sw >= 0 ? json_string(nodename_of(
				names, s->g->sw[c->sw].guid, s->g->sw[c->sw].desc)) : json_null(),
			"switch_port", c->sw >= 0 ? json_integer(c->sw_port) : json_null()));
	}
	return arr;
}

static json_t *switches_json(const struct jx_subnet *s, const struct job_cas *jc,
			     const struct nodename_map *names)
{
	json_t *arr = json_array();
	uint32_t *count = calloc(s->g->n_sw ? s->g->n_sw : 1, sizeof(*count));

	for (size_t i = 0; count && i < jc->n; i++)
		if (s->g->ca[jc->ca[i]].sw >= 0)
			count[s->g->ca[jc->ca[i]].sw]++;
	for (size_t k = 0; count && arr && k < s->g->n_sw; k++)
		if (count[k])
			json_array_append_new(arr, json_pack("{s:s, s:i}", "switch", nodename_of(
				names, s->g->sw[k].guid, s->g->sw[k].desc), "hosts", (int)count[k]));
	free(count);
	return arr;
}

static json_t *paths_json(const struct jx_subnet *s, const struct rt_paths *p,
			  const struct nodename_map *names)
{
	json_t *broken = json_array();

	for (size_t i = 0; broken && i < p->n_broken; i++) {
		const struct rt_ca *a = &s->g->ca[p->broken[i].src], *b = &s->g->ca[p->broken[i].dst];

		json_array_append_new(broken, json_pack(
			"{s:s, s:s, s:s}", "src", nodename_of(names, a->node_guid, a->desc),
			"dst", nodename_of(names, b->node_guid, b->desc),
			"why", p->broken[i].loop ? "loop" : "dropped"));
	}
	return json_pack("{s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "pairs_total", (json_int_t)p->pairs_total, "pairs", (json_int_t)p->pairs,
			 "sampled", p->sampled, "sources", (json_int_t)p->sources,
			 "seed", (json_int_t)p->seed, "max_pairs", (json_int_t)RT_PATHS_MAX_PAIRS,
			 "delivered", (json_int_t)p->delivered, "dropped", (json_int_t)p->dropped,
			 "loops", (json_int_t)p->loops, "links", (json_int_t)p->n_links,
			 "broken", broken);
}

/* The other tenants sharing links with p: [{"job", "shared_links"}], most first. */
static int cmp_shared(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "shared_links"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "shared_links"));

	if (x != y)
		return y > x ? 1 : -1;
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "job")),
		      json_string_value(json_object_get(*(json_t *const *)b, "job")));
}

static json_t *others_json(const struct jx_subnet *s, const struct rt_paths *p, const char *self)
{
	json_t **items = calloc(s->n_t ? s->n_t : 1, sizeof(*items)), *arr = json_array();
	size_t *shared = calloc(s->n_t ? s->n_t : 1, sizeof(*shared)), n = 0;

	/* Each of its links: the tenants on it, from the index. */
	for (size_t i = 0; shared && i < p->n_links; i++) {
		size_t nu;
		const struct jx_use *u = jx_uses_of(s, p->links[i].link, &nu);

		for (size_t k = 0; k < nu; k++)
			shared[u[k].tenant]++;
	}
	for (size_t k = 0; items && shared && k < s->n_t; k++)
		if (shared[k] && s->t[k].name && (!self || strcmp(s->t[k].name, self)))
			items[n++] = json_pack("{s:s, s:I}", "job", s->t[k].name, "shared_links",
					       (json_int_t)shared[k]);
	if (n)
		qsort(items, n, sizeof(*items), cmp_shared);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, items[i]);
	free(items);
	free(shared);
	return arr;
}

/* ---- congestion: root or victim ------------------------------------------------------ */

/* Each congested worst link (link_congested at its sending end): the root
 * of its congestion as lib/telemetry/congestion.c follows it along the
 * tables, "congestion": {"root": "NODE:PORT", "is_root": bool} and a why
 * line. Only when the job has such a link (the tables copied once). */
static void congestion_of(const struct jx_subnet *s, const struct bads *bl,
			  const struct nodename_map *names, json_t *worst)
{
	struct cong_port *hot = malloc((bl->n ? bl->n : 1) * sizeof(*hot));
	struct rl_read *r = NULL;
	json_t *trees = NULL, *w, *root;
	size_t n = 0, i, k, any = 0;

	for (size_t b = 0; hot && b < bl->n && n < CONG_MAX_PORTS; b++)
		if (!strcmp(bl->b[b].kind, "link_congested"))
			hot[n++] = (struct cong_port){ bl->b[b].guid, (uint8_t)bl->b[b].port };
	json_array_foreach(worst, i, w) {
		json_t *kinds = json_object_get(w, "alarms"), *v;

		json_array_foreach(kinds, k, v)
			any |= !strcmp(json_string_value(v), "link_congested");
	}
	if (!hot || !n || !any || !(r = rl_read_new()))
		goto out;
	for (size_t sw = 0; sw < s->g->n_sw; sw++)
		if (rl_read_add(r, s->g->sw[sw].guid, s->g->sw[sw].lid, s->l->max_lid,
				rt_lfts_row(s->l, sw)) < 0)
			goto out;
	rl_read_sort(r);
	if (!(trees = congestion_roots(s->fab, r, hot, n, names)))
		goto out;
	json_array_foreach(worst, i, w) {
		const char *from = json_string_value(json_object_get(w, "from"));

		json_array_foreach(json_object_get(trees, "roots"), k, root) {
			char name[NODENAME_LEN + 16];
			json_t *v;
			size_t m;
			int is_root, victim = 0;

			snprintf(name, sizeof(name), "%s:%lld",
				 json_string_value(json_object_get(root, "node")),
				 (long long)json_integer_value(json_object_get(root, "port")));
			is_root = from && !strcmp(from, name);
			json_array_foreach(json_object_get(root, "victims"), m, v)
				victim |= from && !strcmp(from, json_string_value(v));
			if (!is_root && !victim)
				continue;
			json_object_set_new(w, "congestion", json_pack("{s:s, s:b}", "root", name,
								       "is_root", is_root));
			json_array_append_new(json_object_get(w, "why"), is_root ?
				json_string("the root of its congestion: it waits on no congested "
					    "port further on") :
				json_sprintf("waits on the congestion rooted at %s", name));
			break;
		}
	}
out:
	json_decref(trees);
	rl_read_free(r);
	free(hot);
}

/* ---- the queries ------------------------------------------------------------------- */

static int impact(sqlite3 *db, struct jx_subnet *s, const struct job_query *q, json_t **out,
		  char *err, size_t errlen)
{
	struct job_cas jc = { .hosts_of = json_object(), .unknown = json_array() };
	const struct jx_tenant *t = NULL;
	struct rt_paths own = { 0 };
	const struct rt_paths *p;
	struct bads bl = { 0 };
	struct judged *jd = NULL;
	size_t n_bad = 0, top = q->top ? q->top : JOB_DEFAULT_TOP;
	struct nodename_map *names = NULL;
	json_t *worst = json_array();
	int rc = 0;

	if (q->job) {
		size_t i;
		json_t *v;

		if (!(t = jx_tenant_find(s, q->job))) {
			rc = dbq_fail(err, errlen, -ENOENT, "no tenant %s (a Slurm job is the tenant "
				      "its prolog made; or give --hosts)", q->job);
			goto out;
		}
		jc.ca = t->ca;
		jc.n = t->n_ca;
		json_array_foreach(t->ports, i, v)
			json_object_set(jc.hosts_of, json_string_value(json_object_get(v, "guid")),
					json_object_get(v, "host"));
		p = &t->p;
		if (!jc.n) {
			rc = dbq_fail(err, errlen, -ENOENT, "tenant %s has no HCA port in the fabric "
				      "of subnet %s", q->job, s->name);
			goto out;
		}
	} else {
		if ((rc = cas_from_hosts(s, q, &jc, err, errlen)) < 0)
			goto out;
		p = &own;
	}
	if (!s->l) {
		rc = dbq_fail(err, errlen, -ENOENT, "no forwarding tables for subnet %s: %s",
			      s->name, s->why);
		goto out;
	}
	if (p == &own && (rc = rt_paths_compute(s->g, s->l, jc.ca, jc.n,
						 &(struct rt_paths_opts){ .seed = q->seed },
						 &own)) < 0) {
		dbq_fail(err, errlen, rc, "out of memory");
		goto out;
	}
	if ((rc = bads_load(db, s->name, &bl, err, errlen)) < 0 ||
	    (rc = names_db_load(db, &names, err, errlen)) < 0)
		goto out;
	if (!(jd = malloc((p->n_links ? p->n_links : 1) * sizeof(*jd)))) {
		rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->n_links; i++)
		if (judge(s, &bl, names, p->links[i].link, p->links[i].pairs, &jd[n_bad], NULL,
			  NULL, NULL))
			n_bad++;
	if (n_bad)
		qsort(jd, n_bad, sizeof(*jd), cmp_judged);
	for (size_t i = 0; i < n_bad && i < top; i++)
		json_array_append_new(worst, worst_json(s, &bl, names, &jd[i], q->job));
	congestion_of(s, &bl, names, worst);
	*out = json_pack("{s:o, s:s, s:O, s:o, s:O, s:o, s:o, s:o, s:I, s:o}",
			 "job", q->job ? json_string(q->job) : json_null(), "subnet", s->name,
			 "tables", s->read_info ? s->read_info : json_null(),
			 "hosts", hosts_json(s, &jc, names), "unknown_hosts", jc.unknown,
			 "switches", switches_json(s, &jc, names), "paths", paths_json(s, p, names),
			 "worst", worst, "bad_links", (json_int_t)n_bad,
			 "other_jobs", others_json(s, p, q->job));
	worst = NULL;
	if (!*out)
		rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
out:
	if (!t)
		free(jc.ca);
	json_decref(jc.hosts_of);
	json_decref(jc.unknown);
	json_decref(worst);
	rt_paths_clear(&own);
	bads_free(&bl);
	nodename_map_free(names);
	free(jd);
	return rc;
}

int job_db_impact(sqlite3 *db, struct job_index *ix, const struct job_query *q,
		  json_t **out, char *err, size_t errlen)
{
	struct job_index *own = ix ? NULL : job_index_new();
	char name[FAB_NAME_LEN], ca[64];
	struct jx_subnet *s;
	int port, rc;

	*out = NULL;
	if (!ix && !(ix = own))
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if ((!q->job) == (!q->hosts)) {
		job_index_free(own);
		return dbq_fail(err, errlen, -EINVAL, "give a job (tenant) or hosts, not both");
	}
	if ((rc = rl_db_subnet(db, q->subnet, name, sizeof(name), ca, sizeof(ca), &port, err,
			       errlen)) < 0) {
		job_index_free(own);
		return rc;
	}
	pthread_mutex_lock(&ix->mu);
	if ((s = jx_refresh(db, ix, name, &rc, err, errlen)))
		rc = impact(db, s, q, out, err, errlen);
	pthread_mutex_unlock(&ix->mu);
	job_index_free(own);
	return rc;
}

/* ---- health's rows ------------------------------------------------------------------ */

static void annotate(const struct jx_subnet *s, json_t *rows, int congestion)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row) {
		const char *subnet = json_string_value(json_object_get(row, "subnet"));
		const char *kind = json_string_value(json_object_get(row, "kind"));
		uint64_t guid = strtoull(json_string_value(json_object_get(row, "guid")) ?
					 json_string_value(json_object_get(row, "guid")) : "0",
					 NULL, 16);
		uint32_t links[2];
		size_t n;

		if (!subnet || strcmp(subnet, s->name))
			continue;
		n = links_at(s, guid, (unsigned)json_integer_value(json_object_get(row, "port")),
			     congestion || (kind && !strcmp(kind, "link_congested")), links);
		json_object_set_new(row, "jobs", jobs_on(s, NULL, links, n));
	}
}

int job_db_health_jobs(sqlite3 *db, struct job_index *ix, json_t *health, char *err,
		       size_t errlen)
{
	static const char *const lists[] = { "alarms", "errors", "congestion" };
	struct job_index *own = ix ? NULL : job_index_new();
	json_t *names = json_object(), *info = json_object(), *row;
	const char *name;
	size_t i;
	int rc = 0;

	if (!ix)
		ix = own;
	if (!ix || !names || !info) {
		json_decref(names);
		json_decref(info);
		job_index_free(own);
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t l = 0; l < 3; l++)
		json_array_foreach(json_object_get(health, lists[l]), i, row)
			if (json_string_value(json_object_get(row, "subnet")))
				json_object_set_new(names, json_string_value(json_object_get(
							row, "subnet")), json_true());
	pthread_mutex_lock(&ix->mu);
	/* Refreshed first, all of them: a refresh may move the entries. */
	json_object_foreach(names, name, row) {
		char why[512] = "";
		int r;

		if (!jx_refresh(db, ix, name, &r, why, sizeof(why)))
			json_object_set_new(info, name, json_pack("{s:s}", "error", why));
	}
	for (size_t k = 0; k < ix->n_s; k++) {
		const struct jx_subnet *s = &ix->s[k];

		if (!json_object_get(names, s->name) || json_object_get(info, s->name))
			continue;
		for (size_t l = 0; l < 3; l++)
			annotate(s, json_object_get(health, lists[l]), l == 2);
		json_object_set_new(info, s->name, json_pack(
			"{s:O, s:I, s:s?}", "tables", s->read_info ?
			json_object_get(s->read_info, "time") : json_null(),
			"tenants", (json_int_t)s->n_t, "no_tables", s->l ? NULL : s->why));
	}
	pthread_mutex_unlock(&ix->mu);
	json_object_set_new(health, "jobs_index", info);
	json_decref(names);
	job_index_free(own);
	return rc;
}

char *job_index_names_at(struct job_index *ix, const char *subnet, uint64_t guid,
			 unsigned port, int sending_only, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!ix)
		return buf;
	pthread_mutex_lock(&ix->mu);
	for (size_t k = 0; k < ix->n_s; k++) {
		const struct jx_subnet *s = &ix->s[k];
		uint32_t links[2];
		size_t n;
		json_t *names, *v;
		size_t i, off = 0;

		if (strcmp(s->name, subnet) || !s->g)
			continue;
		n = links_at(s, guid, port, sending_only, links);
		names = jobs_on(s, NULL, links, n);
		/* Whole names only (a job id cut short is another job's id),
		 * with room kept for "and N more" after them. */
		json_array_foreach(names, i, v) {
			size_t total = json_array_size(names), rest = total - i - 1;
			char more[32] = "";
			int w;

			if (rest)
				snprintf(more, sizeof(more), " and %zu more", rest);
			if (off + (i ? 2 : 0) + strlen(json_string_value(v)) + strlen(more) < len) {
				off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
							json_string_value(v));
				continue;
			}
			w = i ? snprintf(buf + off, len - off, " and %zu more", total - i)
			      : snprintf(buf, len, "%zu jobs", total);
			if (w < 0 || (size_t)w >= len - off)
				buf[off] = '\0';   /* not even that fits */
			break;
		}
		json_decref(names);
	}
	pthread_mutex_unlock(&ix->mu);
	return buf;
}
