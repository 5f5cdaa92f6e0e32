/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_index.c: the job index of job_db.h, kept up to date from the
 * database: per subnet the stored fabric and newest stored tables (reloaded
 * when a newer sweep or table read is stored), and per tenant the links
 * its pairs cross (recomputed only then, or when its ports change). */
#include "autoconf.h"
#include "lib/db/job_db_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/route_live_db.h"
#include "lib/route/route_live.h"

struct job_index *job_index_new(void)
{
	struct job_index *ix = calloc(1, sizeof(*ix));

	if (ix && pthread_mutex_init(&ix->mu, NULL)) {
		free(ix);
		return NULL;
	}
	return ix;
}

static void tenant_free(struct jx_tenant *t)
{
	free(t->name);
	free(t->digest);
	json_decref(t->ports);
	free(t->ca);
	rt_paths_clear(&t->p);
	memset(t, 0, sizeof(*t));
}

static void subnet_unload(struct jx_subnet *s)
{
	rt_lfts_free(s->l);
	rt_graph_free(s->g);
	fab_free(s->fab);
	json_decref(s->read_info);
	free(s->port_sw);
	free(s->by_guid);
	s->l = NULL;
	s->g = NULL;
	s->fab = NULL;
	s->read_info = NULL;
	s->port_sw = NULL;
	s->by_guid = NULL;
	s->n_by_guid = 0;
}

void job_index_free(struct job_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n_s; i++) {
		subnet_unload(&ix->s[i]);
		for (size_t k = 0; k < ix->s[i].n_t; k++)
			tenant_free(&ix->s[i].t[k]);
		free(ix->s[i].t);
		free(ix->s[i].use);
	}
	free(ix->s);
	pthread_mutex_destroy(&ix->mu);
	free(ix);
}

/* ---- lookups ------------------------------------------------------------------------ */

const struct jx_tenant *jx_tenant_find(const struct jx_subnet *s, const char *name)
{
	for (size_t i = 0; i < s->n_t; i++)
		if (s->t[i].name && !strcmp(s->t[i].name, name))
			return &s->t[i];
	return NULL;
}

int32_t jx_switch_of(const struct jx_subnet *s, uint64_t node_guid)
{
	size_t lo = 0, hi = s->g ? s->g->n_sw : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->g->sw[mid].guid == node_guid)
			return (int32_t)mid;
		if (s->g->sw[mid].guid < node_guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int32_t jx_ca_of(const struct jx_subnet *s, uint64_t node_guid, unsigned port)
{
	size_t lo = 0, hi = s->g ? s->g->n_ca : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rt_ca *c = &s->g->ca[mid];

		if (c->node_guid == node_guid && c->port == port)
			return (int32_t)mid;
		if (c->node_guid < node_guid || (c->node_guid == node_guid && c->port < port))
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int32_t jx_ca_by_guid(const struct jx_subnet *s, uint64_t port_guid)
{
	size_t lo = 0, hi = s->n_by_guid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->by_guid[mid].guid == port_guid)
			return (int32_t)s->by_guid[mid].ca;
		if (s->by_guid[mid].guid < port_guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- loading a subnet ------------------------------------------------------------- */

static int cmp_port(const void *a, const void *b)
{
	uint64_t x = ((const struct jx_port *)a)->guid, y = ((const struct jx_port *)b)->guid;

	return x < y ? -1 : x > y;
}

/* The most common value of counts[0..n) (the first on a tie). */
static unsigned mode_of(const size_t *counts, unsigned n)
{
	unsigned best = 0;

	for (unsigned i = 1; i < n; i++)
		if (counts[i] > counts[best])
			best = i;
	return best;
}

/* The width and speed most active links run at: the fabric's norm. */
static void norms(struct jx_subnet *s)
{
	size_t w[16] = { 0 }, v[16] = { 0 };

	for (size_t i = 0; i < s->fab->n_nodes; i++) {
		const struct fab_node *n = s->fab->nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *fp = fab_port(n, p);

			if (!fp || !fp->has_peer || fp->state != JX_PORT_ACTIVE)
				continue;
			for (unsigned b = 0; b < 16; b++) {
				w[b] += fp->width_active == (1u << b);
				v[b] += fp->speed_active == (1u << b);
			}
		}
	}
	s->norm_width = 1u << mode_of(w, 16);
	s->norm_speed = 1u << mode_of(v, 16);
}

static int subnet_load(sqlite3 *db, struct jx_subnet *s, char *err, size_t errlen)
{
	struct rl_read *r = NULL;
	size_t missing = 0;

	subnet_unload(s);
	s->why[0] = '\0';
	if (!(s->fab = rl_db_load_fabric(db, s->name, err, errlen)))
		return -EIO;
	if (!(s->g = rt_graph_new(s->fab, err, errlen)))
		return -EINVAL;
	norms(s);
	if (!(s->port_sw = malloc((s->g->n_ports ? s->g->n_ports : 1) * sizeof(*s->port_sw))) ||
	    !(s->by_guid = malloc((s->g->n_ca ? s->g->n_ca : 1) * sizeof(*s->by_guid))))
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t k = 0; k < s->g->n_sw; k++)
		for (unsigned p = 0; p <= s->g->sw[k].nports; p++)
			s->port_sw[rt_graph_port_index(s->g, k, p)] = (uint32_t)k;
	for (size_t c = 0; c < s->g->n_ca; c++)
		s->by_guid[s->n_by_guid++] = (struct jx_port){ s->g->ca[c].guid, (uint32_t)c };
	qsort(s->by_guid, s->n_by_guid, sizeof(*s->by_guid), cmp_port);
	/* No tables: the hosts and switches are still known, no links. */
	if (rl_db_load_read(db, s->name, &r, &s->read_info, s->why, sizeof(s->why)) < 0)
		return 0;
	if (s->g->lids_assigned) {
		snprintf(s->why, sizeof(s->why), "the stored fabric has ports without a LID: its "
			 "tables mean nothing yet");
		rl_read_free(r);
		return 0;
	}
	s->l = rl_lfts(s->g, r, &missing);
	rl_read_free(r);
	if (!s->l)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/* The newest sweep and table read stored for subnet `name`: what a loaded
 * entry is compared with. */
static int versions(sqlite3 *db, const char *name, int64_t *sweep, int64_t *read, char *err,
		    size_t errlen)
{
	sqlite3_stmt *s;
	int rc;

	*sweep = *read = 0;
	if ((rc = dbq_prepare(db, "SELECT (SELECT max(w.id) FROM sweeps w WHERE w.subnet_id = "
			      "n.id), (SELECT max(r.id) FROM lft_reads r WHERE r.subnet_id = n.id) "
			      "FROM subnets n WHERE n.name = ?", &s, err, errlen)) < 0)
		return rc;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*sweep = sqlite3_column_int64(s, 0);
		*read = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return dbq_fail(err, errlen, -ENOENT, "no subnet %s", name);
	return rc == SQLITE_ROW ? 0 : dbq_db_fail(db, err, errlen, "read the subnet's versions");
}

/* ---- the tenants ------------------------------------------------------------------- */

struct tn_row {
	char *name, *digest;
	json_t *ports;
};

/* Every tenant that is not failed, with its ports: [{name, digest, ports}]
 * by name. No tenants table (an old schema): none. */
static int tenants_read(sqlite3 *db, struct tn_row **out, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT p.tenant, p.host, p.port_guid FROM tenant_ports p JOIN "
			       "tenants t ON t.name = p.tenant WHERE t.state != 'failed' ORDER BY "
			       "p.tenant, p.port_guid", -1, &s, NULL) != SQLITE_OK)
		return strstr(sqlite3_errmsg(db), "no such table") ? 0 :
			dbq_db_fail(db, err, errlen, "read the tenants");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = dbq_col_str(s, 0), *guid = dbq_col_str(s, 2);
		struct tn_row *t = *n ? &(*out)[*n - 1] : NULL;
		char *d;

		if (!t || strcmp(t->name, name)) {
			if (*n == cap) {
				struct tn_row *bigger = realloc(*out, (cap = cap ? 2 * cap : 16) *
								sizeof(*bigger));

				if (!bigger)
					break;
				*out = bigger;
			}
			t = &(*out)[(*n)++];
			t->name = strdup(name);
			t->digest = strdup("");
			t->ports = json_array();
			if (!t->name || !t->digest || !t->ports)
				break;
		}
		if (!(d = realloc(t->digest, strlen(t->digest) + strlen(guid) + 2)))
			break;
		t->digest = d;
		strcat(strcat(d, guid), " ");
		json_array_append_new(t->ports, json_pack("{s:s, s:s}", "host", dbq_col_str(s, 1),
							  "guid", guid));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : rc == SQLITE_ROW ?
		dbq_fail(err, errlen, -ENOMEM, "out of memory") :
		dbq_db_fail(db, err, errlen, "read the tenants");
}

static void rows_free(struct tn_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].digest);
		json_decref(rows[i].ports);
	}
	free(rows);
}

/* The tenant's CA ports on this subnet and the links of their pairs. */
static int tenant_paths(struct jx_subnet *s, struct jx_tenant *t)
{
	size_t i, n = json_array_size(t->ports);
	json_t *p;

	free(t->ca);
	rt_paths_clear(&t->p);
	t->n_ca = t->n_elsewhere = 0;
	if (!(t->ca = malloc((n ? n : 1) * sizeof(*t->ca))))
		return -ENOMEM;
	json_array_foreach(t->ports, i, p) {
		uint64_t guid = strtoull(json_string_value(json_object_get(p, "guid")), NULL, 16);
		int32_t c = jx_ca_by_guid(s, guid);

		if (c < 0)
			t->n_elsewhere++;
		else
			t->ca[t->n_ca++] = (size_t)c;
	}
	s->recomputed++;
	return s->l ? rt_paths_compute(s->g, s->l, t->ca, t->n_ca, NULL, &t->p) : 0;
}

static int cmp_use(const void *a, const void *b)
{
	const struct jx_use *x = a, *y = b;

	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return x->tenant < y->tenant ? -1 : x->tenant > y->tenant;
}

/* The index link -> tenants, from every tenant's links. */
static int uses_build(struct jx_subnet *s)
{
	size_t n = 0;

	free(s->use);
	s->use = NULL;
	s->n_use = 0;
	for (size_t k = 0; k < s->n_t; k++)
		n += s->t[k].p.n_links;
	if (!n)
		return 0;
	if (!(s->use = malloc(n * sizeof(*s->use))))
		return -ENOMEM;
	for (size_t k = 0; k < s->n_t; k++)
		for (size_t i = 0; i < s->t[k].p.n_links; i++)
			s->use[s->n_use++] = (struct jx_use){ s->t[k].p.links[i].link, (uint32_t)k };
	qsort(s->use, s->n_use, sizeof(*s->use), cmp_use);
	return 0;
}

const struct jx_use *jx_uses_of(const struct jx_subnet *s, uint32_t link, size_t *n)
{
	size_t lo = 0, hi = s->n_use, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->use[mid].link < link)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < s->n_use && s->use[end].link == link; end++)
		;
	*n = end - lo;
	return *n ? &s->use[lo] : NULL;
}

static int tenants_refresh(sqlite3 *db, struct jx_subnet *s, int reloaded, char *err,
			   size_t errlen)
{
	struct tn_row *rows = NULL;
	struct jx_tenant *next;
	size_t n = 0;
	int rc, changed;

	if ((rc = tenants_read(db, &rows, &n, err, errlen)) < 0)
		return rc;
	if (!(next = calloc(n ? n : 1, sizeof(*next)))) {
		rows_free(rows, n);
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	}
	changed = reloaded || n != s->n_t;
	for (size_t i = 0; i < n; i++) {
		struct jx_tenant *old = (struct jx_tenant *)jx_tenant_find(s, rows[i].name);

		if (old && !reloaded && !strcmp(old->digest, rows[i].digest)) {
			next[i] = *old;        /* moved: its old place is left empty */
			memset(old, 0, sizeof(*old));
			free(rows[i].name);
			free(rows[i].digest);
			json_decref(rows[i].ports);
			continue;
		}
		next[i] = (struct jx_tenant){ .name = rows[i].name, .digest = rows[i].digest,
					      .ports = rows[i].ports };
		changed = 1;
		/* After a failure the rest are kept without paths (and freed). */
		if (rc == 0 && (rc = tenant_paths(s, &next[i])) < 0)
			dbq_fail(err, errlen, rc, "out of memory");
	}
	for (size_t k = 0; k < s->n_t; k++)
		tenant_free(&s->t[k]);
	free(s->t);
	free(rows);
	s->t = next;
	s->n_t = n;
	if (rc == 0 && changed && (rc = uses_build(s)) < 0)
		dbq_fail(err, errlen, rc, "out of memory");
	return rc;
}

struct jx_subnet *jx_refresh(sqlite3 *db, struct job_index *ix, const char *name, int *rc,
			     char *err, size_t errlen)
{
	struct jx_subnet *s = NULL;
	int64_t sweep, read;
	int reloaded = 0;

	if ((*rc = versions(db, name, &sweep, &read, err, errlen)) < 0)
		return NULL;
	for (size_t i = 0; i < ix->n_s && !s; i++)
		if (!strcmp(ix->s[i].name, name))
			s = &ix->s[i];
	if (!s) {
		struct jx_subnet *bigger = realloc(ix->s, (ix->n_s + 1) * sizeof(*bigger));

		if (!bigger) {
			*rc = dbq_fail(err, errlen, -ENOMEM, "out of memory");
			return NULL;
		}
		ix->s = bigger;
		s = &ix->s[ix->n_s++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->sweep_id = -1;
	}
	if (!s->fab || s->sweep_id != sweep || s->read_id != read) {
		if ((*rc = subnet_load(db, s, err, errlen)) < 0) {
			subnet_unload(s);
			s->sweep_id = -1;
			return NULL;
		}
		s->sweep_id = sweep;
		s->read_id = read;
		s->reloads++;
		reloaded = 1;
	}
	if ((*rc = tenants_refresh(db, s, reloaded, err, errlen)) < 0)
		return NULL;
	return s;
}

int job_index_refresh(sqlite3 *db, struct job_index *ix, char *err, size_t errlen)
{
	json_t *names = json_array(), *v;
	sqlite3_stmt *s;
	size_t i;
	int rc;

	if (!names)
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	if ((rc = dbq_prepare(db, "SELECT name FROM subnets WHERE id IN (SELECT subnet_id FROM "
			      "sweeps) ORDER BY name", &s, err, errlen)) < 0) {
		json_decref(names);
		return rc;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(names, json_string(dbq_col_str(s, 0)));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(names);
		return dbq_db_fail(db, err, errlen, "read the swept subnets");
	}
	rc = 0;
	pthread_mutex_lock(&ix->mu);
	json_array_foreach(names, i, v)
		if (rc == 0 && !jx_refresh(db, ix, json_string_value(v), &rc, err, errlen) &&
		    rc == 0)
			rc = -EIO;
	pthread_mutex_unlock(&ix->mu);
	json_decref(names);
	return rc;
}
