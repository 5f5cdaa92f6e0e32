/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_eval.c: the isolation's worker (isolation.h):
 * one evaluation, or one operator's isolate or restore, in one transaction
 * on a connection of its own; then the file libloomosm reads and OpenSM's
 * reroute when the set of cables changed. Runs one at a time (a work queue
 * of one): the windows, the routes kept between evaluations and the
 * decisions already told are this worker's alone. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/file_atomic.h"
#include "daemon/core/store.h"
#include "daemon/isolation/isolation_impl.h"
#include "daemon/isolation/store_isolation.h"
#include "lib/db/job_db.h"
#include "lib/db/link_state_db.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/route/route.h"
#include "lib/route/route_loss.h"
#include "lib/util/log.h"

/* ---- the routes now, and what a candidate costs ---------------------------------- */

/* The cables out of one subnet's routes in this job: the stored ones and
 * those taken since. */
struct out_set {
	struct iso_link *v;
	size_t n, cap;
};

static int out_add(struct out_set *o, const struct iso_link *l)
{
	if (o->n == o->cap) {
		struct iso_link *v = realloc(o->v, (o->cap = o->cap ? 2 * o->cap : 8) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->v = v;
	}
	o->v[o->n++] = *l;
	return 0;
}

static void base_clear(struct iso_base *b)
{
	rt_lfts_free(b->l);
	rt_graph_free(b->g);
	memset(b, 0, sizeof(*b));
}

void iso_bases_clear(struct isolation_mod *m)
{
	for (size_t i = 0; i < ISO_NAMES_MAX; i++)
		base_clear(&m->bases[i]);
}

/* fab without the cables of o (and extra, when not NULL): a copy. */
static struct fab *fab_without(const struct fab *fab, const struct out_set *o,
			       const struct iso_link *extra)
{
	struct fab *f = fab_dup(fab);

	if (!f)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		fab_unlink(f, o->v[i].a.guid, o->v[i].a.port);
	if (extra)
		fab_unlink(f, extra->a.guid, extra->a.port);
	return f;
}

static void judged_into(struct iso_base *b, const struct rt_judged *jd)
{
	b->ebb = jd->ebb;
	b->unreachable = jd->unreachable;
	b->shift = jd->shift_max_load;
	b->min_paths = jd->min_paths;
	b->tree = jd->tree;
}

/* The subnet's routes now in m->bases[idx], made when the fabric or the
 * set moved since. */
static int base_ready(struct isolation_mod *m, unsigned idx, const struct fab *fab,
		      int64_t version, const struct out_set *o, char *err, size_t errlen)
{
	struct iso_base *b = &m->bases[idx];
	struct rt_metrics_opts opts;
	struct rt_judged jd;
	struct fab *f;
	int rc;

	if (b->g && b->fab == fab && b->version == version)
		return 0;
	base_clear(b);
	if (!(f = fab_without(fab, o, NULL))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->g = rt_graph_new(f, err, errlen);
	fab_free(f);
	if (!b->g)
		return -EINVAL;
	if (!(b->l = rt_lfts_new(b->g))) {
		base_clear(b);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = rt_route_loom(b->g, b->l, err, errlen)) < 0) {
		base_clear(b);
		return rc;
	}
	rt_loss_opts(b->g, &opts);
	if ((rc = rt_loss_judge(b->g, b->l, &opts, &jd)) < 0) {
		base_clear(b);
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	judged_into(b, &jd);
	b->fab = fab;
	b->version = version;
	return 0;
}

struct loss {
	int refused;
	char why[256];        /* the floor it would cross */
	char text[256];       /* what the routes lose, for the events and the row */
	struct rt_graph *g;   /* the routes without it (taken when it is isolated) */
	struct rt_lfts *l;
	struct rt_judged jd;
};

static void loss_clear(struct loss *x)
{
	rt_lfts_free(x->l);
	rt_graph_free(x->g);
	x->l = NULL;
	x->g = NULL;
}

/* What the routes lose without cand, against the floors of conf. */
static int loss_of(const struct iso_job *j, const struct iso_base *b, const struct fab *fab,
		   const struct out_set *o, const struct iso_link *cand, struct loss *x)
{
	const struct isolation_conf *c = &j->conf;
	struct rt_metrics_opts opts;
	struct fab *f = fab_without(fab, o, cand);
	char err[256];
	int incr = 0;

	memset(x, 0, sizeof(*x));
	if (!f)
		return -ENOMEM;
	x->g = rt_graph_new(f, err, sizeof(err));
	fab_free(f);
	if (!x->g || !(x->l = rt_loss_reroute(b->g, b->l, x->g, rt_engine_find("loom"), &incr,
					      err, sizeof(err)))) {
		loss_clear(x);
		x->refused = 1;
		snprintf(x->why, sizeof(x->why), "the routes without it cannot be computed: %.200s",
			 err);
		return 0;
	}
	rt_loss_opts(x->g, &opts);
	if (rt_loss_judge(x->g, x->l, &opts, &x->jd) < 0) {
		loss_clear(x);
		return -ENOMEM;
	}
	snprintf(x->text, sizeof(x->text), "EBB %.3f -> %.3f, worst shift load %zu -> %zu, "
		 "paths between leaves %zu -> %zu, pairs without a route %zu -> %zu (%s)",
		 b->ebb, x->jd.ebb, b->shift, x->jd.shift_max_load,
		 b->min_paths == SIZE_MAX ? 0 : b->min_paths,
		 x->jd.min_paths == SIZE_MAX ? 0 : x->jd.min_paths, b->unreachable,
		 x->jd.unreachable, incr ? "incremental reroute" : "full run");
	if (x->jd.unreachable > b->unreachable) {
		x->refused = 1;
		snprintf(x->why, sizeof(x->why), "%zu pairs of CA ports would lose their route",
			 x->jd.unreachable - b->unreachable);
	} else if (c->iso_min_paths > 0 && x->jd.tree && x->jd.min_paths != SIZE_MAX &&
		   x->jd.min_paths < (size_t)c->iso_min_paths) {
		x->refused = 1;
		snprintf(x->why, sizeof(x->why), "two leaves would keep %zu paths between them "
			 "(isolation.min_paths %d)", x->jd.min_paths, c->iso_min_paths);
	} else if (c->iso_ebb_floor_pct > 0 && x->jd.ebb * 100.0 < c->iso_ebb_floor_pct) {
		x->refused = 1;
		snprintf(x->why, sizeof(x->why), "the effective bisection bandwidth would fall to "
			 "%.1f%% (isolation.ebb_floor_pct %d)", x->jd.ebb * 100.0,
			 c->iso_ebb_floor_pct);
	}
	return 0;
}

/* The candidate's routes become the subnet's routes now. */
static void base_take(struct iso_base *b, struct loss *x)
{
	rt_lfts_free(b->l);
	rt_graph_free(b->g);
	b->g = x->g;
	b->l = x->l;
	x->g = NULL;
	x->l = NULL;
	judged_into(b, &x->jd);
}

/* ---- the candidates ---------------------------------------------------------------- */

struct cands {
	struct iso_candidate *v;
	uint64_t *errors, *symbol, *downs;   /* per candidate, both ends summed */
	uint64_t *evdowns;                   /* per candidate: downs the sweeps' events saw */
	size_t n, cap;
};

static void cands_free(struct cands *c)
{
	free(c->v);
	free(c->errors);
	free(c->symbol);
	free(c->downs);
	free(c->evdowns);
	memset(c, 0, sizeof(*c));
}

/* The link at (guid, port) in fab, a its lower end: 0, or -ENOENT (no
 * cable there). */
static int link_at(const struct fab *fab, uint64_t guid, unsigned port, struct iso_link *l)
{
	const struct fab_node *n = fab_find(fab, guid), *pn = NULL;
	const struct fab_port *p = n ? fab_port(n, port) : NULL, *pp;

	if (!p || !p->has_peer || !(pp = fab_peer(fab, p, &pn)) || !pn)
		return -ENOENT;
	*l = (struct iso_link){ { n->guid, (uint8_t)port, n->type != IBT_NODE_SWITCH },
				{ pn->guid, pp->num, pn->type != IBT_NODE_SWITCH } };
	iso_link_canon(l);
	return 0;
}

static long cand_of(struct cands *c, const struct iso_link *l)
{
	for (size_t i = 0; i < c->n; i++)
		if (iso_link_eq(&c->v[i].link, l))
			return (long)i;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct iso_candidate *v = realloc(c->v, cap * sizeof(*v));
		uint64_t *e = v ? realloc(c->errors, cap * sizeof(*e)) : NULL;
		uint64_t *s = e ? (c->errors = e, realloc(c->symbol, cap * sizeof(*s))) : NULL;
		uint64_t *d = s ? (c->symbol = s, realloc(c->downs, cap * sizeof(*d))) : NULL;
		uint64_t *ev = d ? (c->downs = d, realloc(c->evdowns, cap * sizeof(*ev))) : NULL;

		if (v)
			c->v = v;
		if (!ev)
			return -1;
		c->evdowns = ev;
		c->cap = cap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[0]));
	c->v[c->n].link = *l;
	c->errors[c->n] = c->symbol[c->n] = c->downs[c->n] = c->evdowns[c->n] = 0;
	return (long)c->n++;
}

struct win_ctx {
	struct cands *c;
	const struct fab *fab;
	unsigned subnet;
};

static int win_add(void *arg, unsigned subnet, uint64_t guid, unsigned port,
		   const struct iso_moves *sum)
{
	struct win_ctx *w = arg;
	struct iso_link l;
	long k;

	if (subnet != w->subnet || link_at(w->fab, guid, port, &l) < 0)
		return 0;
	if ((k = cand_of(w->c, &l)) < 0)
		return -ENOMEM;
	w->c->errors[k] += sum->errors;
	w->c->symbol[k] += sum->symbol;
	w->c->downs[k] += sum->downed;
	return 0;
}

/* The link_down and link_flap events of the window (a cable cut and put
 * back, which the counters of ibsim, and of a port reset, do not count):
 * "0xA[p] (...) <-> 0xB[q] (...)"; a link_flap's new_value "N bounces"
 * stands for N - 1 downs after the link_down before it. */
static int flap_events(sqlite3 *db, int64_t sid, double since, const struct fab *fab,
		       struct cands *c)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT subject, kind, new_value FROM events WHERE time > ?1 "
			       "AND subnet_id = ?2 AND kind IN ('link_down', 'link_flap')", -1, &s,
			       NULL) != SQLITE_OK)
		return store_db_fail(db, "read the links that went down");
	sqlite3_bind_double(s, 1, since);
	sqlite3_bind_int64(s, 2, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *subj = (const char *)sqlite3_column_text(s, 0);
		const char *kind = (const char *)sqlite3_column_text(s, 1);
		const char *val = (const char *)sqlite3_column_text(s, 2);
		const char *other = subj ? strstr(subj, "<-> ") : NULL;
		uint64_t ga, gb;
		unsigned pa, pb;
		struct iso_link l;
		long k;
		int n = 1;

		if (!other || sscanf(subj, "0x%" SCNx64 "[%u]", &ga, &pa) != 2 ||
		    sscanf(other + 4, "0x%" SCNx64 "[%u]", &gb, &pb) != 2 || !pa || !pb ||
		    pa > 254 || pb > 254)
			continue;
		if (!strcmp(kind, "link_flap"))
			n = val ? atoi(val) - 1 : 1;
		if (n <= 0)
			continue;
		if (link_at(fab, ga, pa, &l) < 0) {
			/* Down now: judged when it comes back, by its ends. */
			l = (struct iso_link){ { ga, (uint8_t)pa, 0 }, { gb, (uint8_t)pb, 0 } };
			iso_link_canon(&l);
			{
				const struct fab_node *na = fab_find(fab, l.a.guid);
				const struct fab_node *nb = fab_find(fab, l.b.guid);

				if (!na || !nb)
					continue;   /* a node gone with it */
				l.a.is_ca = na->type != IBT_NODE_SWITCH;
				l.b.is_ca = nb->type != IBT_NODE_SWITCH;
			}
		}
		if ((k = cand_of(c, &l)) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
		c->evdowns[k] += (uint64_t)n;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the links that went down");
}

struct deg_ctx {
	struct cands *c;
	int failed;
};

static int deg_link(const struct fab_link *fl, void *arg)
{
	struct deg_ctx *d = arg;
	struct link_caps a = { fl->a->width_enabled, fl->a->width_supported,
			       fl->a->speed_enabled, fl->a->speed_supported };
	struct link_caps b = { fl->b->width_enabled, fl->b->width_supported,
			       fl->b->speed_enabled, fl->b->speed_supported };
	unsigned w, sp;
	struct iso_link l = { { fl->a_node->guid, fl->a->num, fl->a_node->type != IBT_NODE_SWITCH },
			      { fl->b_node->guid, fl->b->num, fl->b_node->type != IBT_NODE_SWITCH } };
	long k;

	link_state_best(&a, &b, &w, &sp);
	if (!link_state_degraded(fl->a->width_active, fl->a->speed_active, w, sp))
		return 0;
	iso_link_canon(&l);
	if ((k = cand_of(d->c, &l)) < 0) {
		d->failed = 1;
		return -ENOMEM;
	}
	d->c->v[k].rules |= 1u << ISO_RULE_DEGRADED;
	snprintf(d->c->v[k].evidence, sizeof(d->c->v[k].evidence), "runs %s %s, both ends "
		 "enable %s %s", ibt_width_name(fl->a->width_active),
		 ibt_speed_name(fl->a->speed_active), ibt_width_name(w), ibt_speed_name(sp));
	return 0;
}

/* The bits a port's link carries in window_s at its active rate. */
static double window_bits(const struct fab *fab, const struct iso_link *l, double window_s)
{
	const struct fab_node *n = fab_find(fab, l->a.guid);
	const struct fab_port *p = n ? fab_port(n, l->a.port) : NULL;

	if (!p || !p->width_active || !p->speed_active)
		return 0;
	return ibt_width_lanes(p->width_active) * ibt_lane_gbps(p->speed_active) * 1e9 * window_s;
}

/* Every link whose rules hold in the window, their evidence said. */
static int gather(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
		  const struct fab *fab, struct cands *c)
{
	const struct isolation_conf *cf = &j->conf;
	double since = j->now - cf->iso_window_s;
	struct win_ctx w = { c, fab, idx };
	struct deg_ctx d = { c, 0 };
	size_t keep = 0;
	int rc;

	if ((rc = iso_windows_foreach(j->m->win, since, win_add, &w)) < 0 ||
	    (rc = flap_events(db, sid, since, fab, c)) < 0)
		return rc;
	if (cf->iso_degraded && (fab_foreach_link(fab, deg_link, &d) < 0 || d.failed))
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct iso_candidate *v = &c->v[i];
		double bits = window_bits(fab, &v->link, cf->iso_window_s);
		double ber = bits > 0 ? (double)c->symbol[i] / bits : 0;
		char more[384] = "";
		size_t len = strlen(v->evidence);

		/* A down the counters saw may be one a sweep saw too: the larger. */
		if (c->evdowns[i] > c->downs[i])
			c->downs[i] = c->evdowns[i];

		if (cf->iso_errors > 0 && c->errors[i] >= (uint64_t)cf->iso_errors)
			v->rules |= 1u << ISO_RULE_ERRORS;
		if (cf->iso_ber_exp > 0 && c->symbol[i] && ber > pow(10.0, -cf->iso_ber_exp))
			v->rules |= 1u << ISO_RULE_BER;
		if (cf->iso_flaps > 0 && c->downs[i] >= (uint64_t)cf->iso_flaps)
			v->rules |= 1u << ISO_RULE_FLAPS;
		if (!v->rules)
			continue;
		snprintf(more, sizeof(more), "%s%" PRIu64 " errors, %" PRIu64 " symbol errors "
			 "(BER %.1e), down %" PRIu64 " times in %d s", len ? "; " : "", c->errors[i],
			 c->symbol[i], ber, c->downs[i], cf->iso_window_s);
		snprintf(v->evidence + len, sizeof(v->evidence) - len, "%s", more);
		v->severity = (double)__builtin_popcount(v->rules) * 1e15 + (double)c->downs[i] * 1e9 +
			      (double)c->errors[i] + (double)c->symbol[i];
		c->v[keep] = *v;
		c->errors[keep] = c->errors[i];
		c->symbol[keep] = c->symbol[i];
		c->downs[keep] = c->downs[i];
		keep++;
	}
	c->n = keep;
	return 0;
}

static int by_severity(const void *x, const void *y)
{
	const struct iso_candidate *a = x, *b = y;

	return a->severity < b->severity ? 1 : a->severity > b->severity ? -1 :
	       (a->link.a.guid > b->link.a.guid) - (a->link.a.guid < b->link.a.guid);
}

/* ---- telling --------------------------------------------------------------------- */

static void rules_text(unsigned rules, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int r = 0; r < ISO_RULE_N; r++)
		if (rules & (1u << r))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
					      iso_rule_name((enum iso_rule)r));
}

static const char *node_name(const struct fab *fab, uint64_t guid)
{
	const struct fab_node *n = fab ? fab_find(fab, guid) : NULL;

	return n && n->desc[0] ? n->desc : "?";
}

static void subject_of(const struct fab *fab, const struct iso_link *l, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64 "[%u] (%s) <-> 0x%016" PRIx64 "[%u] (%s)", l->a.guid,
		 l->a.port, node_name(fab, l->a.guid), l->b.guid, l->b.port,
		 node_name(fab, l->b.guid));
}

static int tell(struct store *st, double now, int64_t sid, const char *sev, const char *kind,
		const struct fab *fab, const struct iso_link *l, const char *old,
		const char *text)
{
	char subj[320];

	subject_of(fab, l, subj, sizeof(subj));
	return store_record_event(st, now, sid, sev, kind, subj, old ? old : "", text);
}

/* Once per candidate and decision: 1 when it is new (and remembered). */
static int told_new(struct isolation_mod *m, unsigned idx, const struct iso_link *l, int act,
		    const char *why, unsigned char *seen)
{
	for (size_t i = 0; i < m->n_told; i++) {
		struct iso_told *t = &m->told[i];

		if (t->subnet != idx || !iso_link_eq(&t->link, l))
			continue;
		seen[i] = 1;
		if (t->act == act && !strncmp(t->why, why, sizeof(t->why) - 1))
			return 0;
		t->act = act;
		snprintf(t->why, sizeof(t->why), "%s", why);
		return 1;
	}
	{
		struct iso_told *v = realloc(m->told, (m->n_told + 1) * sizeof(*v));

		if (!v)
			return 1;
		m->told = v;
		v[m->n_told] = (struct iso_told){ .subnet = idx, .link = *l, .act = act };
		snprintf(v[m->n_told].why, sizeof(v[0].why), "%s", why);
		m->n_told++;
	}
	return 1;
}

static void jobs_on(const struct iso_job *j, const char *subnet, const struct iso_link *l,
		    char *buf, size_t len)
{
	buf[0] = '\0';
	if (j->jobs)
		job_index_names_at(j->jobs, subnet, l->a.guid, l->a.port, 0, buf, len);
}

/* ---- one subnet's evaluation ------------------------------------------------------- */

struct subnet_run {
	struct iso_job *j;
	struct store *st;
	sqlite3 *db;
	int64_t sid, version;
	unsigned idx;
	const char *name;
	const struct fab *fab;
	struct iso_rows *rows;
	struct out_set out;
	int changed;
	unsigned char *seen;   /* per m->told entry: still a candidate */
};

static int put_row(struct subnet_run *r, const struct iso_link *l, int state, int host,
		   const char *by, const char *rules, const char *reason, const char *evidence,
		   const char *loss, unsigned returns, double probation)
{
	struct iso_row row;

	memset(&row, 0, sizeof(row));
	row.sid = r->sid;
	snprintf(row.subnet, sizeof(row.subnet), "%s", r->name);
	row.e.link = *l;
	row.e.state = state;
	row.e.since = row.e.clean_since = r->j->now;
	row.e.probation_s = probation;
	row.e.returns = returns;
	row.host = host;
	snprintf(row.by, sizeof(row.by), "%s", by);
	snprintf(row.rules, sizeof(row.rules), "%s", rules);
	snprintf(row.reason, sizeof(row.reason), "%s", reason);
	snprintf(row.evidence, sizeof(row.evidence), "%s", evidence);
	snprintf(row.loss, sizeof(row.loss), "%s", loss ? loss : "");
	jobs_on(r->j, r->name, l, row.jobs, sizeof(row.jobs));
	if (host)
		snprintf(row.host_name, sizeof(row.host_name), "%.63s",
			 node_name(r->fab, l->a.is_ca ? l->a.guid : l->b.guid));
	return store_iso_put(r->db, &row);
}

/* A candidate the policy lets loom take out of the routes (or would, in
 * dry-run): the loss first. */
static int isolate(struct subnet_run *r, const struct iso_candidate *c, int dry)
{
	struct iso_job *j = r->j;
	struct isolation_mod *m = j->m;
	struct iso_bounds b;
	struct loss x;
	char rules[64], text[1024], jobs[256], err[256];
	int rc;

	if ((rc = base_ready(m, r->idx, r->fab, r->version, &r->out, err, sizeof(err))) < 0) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_REFUSE, err, r->seen))
			tell(r->st, j->now, r->sid, "warning", "link_isolation_refused", r->fab,
			     &c->link, NULL, err);
		return rc == -ENOMEM ? rc : 0;
	}
	if ((rc = loss_of(j, &m->bases[r->idx], r->fab, &r->out, &c->link, &x)) < 0)
		return rc;
	rules_text(c->rules, rules, sizeof(rules));
	jobs_on(j, r->name, &c->link, jobs, sizeof(jobs));
	if (x.refused) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_REFUSE, x.why, r->seen)) {
			snprintf(text, sizeof(text), "refused: %s; rules %s: %s; loss %s%s%s", x.why,
				 rules, c->evidence, x.text, jobs[0] ? "; jobs: " : "", jobs);
			rc = tell(r->st, j->now, r->sid, "warning", "link_isolation_refused", r->fab,
				  &c->link, NULL, text);
		}
		loss_clear(&x);
		return rc < 0 ? rc : 0;
	}
	snprintf(text, sizeof(text), "rules %s: %s; loss %s%s%s", rules, c->evidence, x.text,
		 jobs[0] ? "; jobs: " : "", jobs);
	if (dry) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_WOULD_ISOLATE, "", r->seen))
			rc = tell(r->st, j->now, r->sid, "notice", "link_would_isolate", r->fab,
				  &c->link, NULL, text);
		loss_clear(&x);
		return rc < 0 ? rc : 0;
	}
	isolation_conf_bounds(&j->conf, &b);
	{
		unsigned returns = store_iso_returns(r->db, r->sid, &c->link);

		if ((rc = put_row(r, &c->link, ISO_ISOLATED, 0, "loom", rules, c->evidence,
				  c->evidence, x.text, returns, iso_probation(&b, returns))) < 0 ||
		    (rc = tell(r->st, j->now, r->sid, "warning", "link_isolated", r->fab, &c->link,
			       NULL, text)) < 0 ||
		    (rc = out_add(&r->out, &c->link)) < 0) {
			loss_clear(&x);
			return rc;
		}
	}
	told_new(m, r->idx, &c->link, ISO_ACT_ISOLATE, "", r->seen);
	base_take(&m->bases[r->idx], &x);
	r->changed = 1;
	return 0;
}

static int act_entry(struct subnet_run *r, struct iso_row *row, const struct iso_decision *d)
{
	struct iso_job *j = r->j;
	char text[512];
	int rc;

	switch (d->act) {
	case ISO_ACT_DIRTY:
		row->e.clean_since = j->now;
		return store_iso_put(r->db, row);
	case ISO_ACT_HOLD:
		row->e.state = ISO_HELD;
		if ((rc = store_iso_put(r->db, row)) < 0)
			return rc;
		return tell(r->st, j->now, r->sid, "warning", "link_isolation_held", r->fab,
			    &row->e.link, NULL, d->why);
	case ISO_ACT_RESTORE:
		if ((rc = store_iso_delete(r->db, r->sid, &row->e.link)) < 0 ||
		    (rc = store_iso_returned(r->db, r->sid, &row->e.link, j->now)) < 0)
			return rc;
		snprintf(text, sizeof(text), "%s; isolated since %.0f for %s", d->why, row->e.since,
			 row->rules);
		if (!row->host)
			r->changed = 1;
		return tell(r->st, j->now, r->sid, "notice", row->host ? "host_resumed" :
			    "link_restored", r->fab, &row->e.link, NULL, text);
	}
	return 0;
}

static int act_candidate(struct subnet_run *r, const struct iso_candidate *c,
			 const struct iso_decision *d)
{
	struct iso_job *j = r->j;
	char rules[64], text[1024], jobs[256];
	int rc = 0;

	rules_text(c->rules, rules, sizeof(rules));
	jobs_on(j, r->name, &c->link, jobs, sizeof(jobs));
	switch (d->act) {
	case ISO_ACT_ISOLATE:
	case ISO_ACT_WOULD_ISOLATE:
		return isolate(r, c, d->act == ISO_ACT_WOULD_ISOLATE);
	case ISO_ACT_REFUSE:
		if (!told_new(j->m, r->idx, &c->link, ISO_ACT_REFUSE, d->why, r->seen))
			return 0;
		snprintf(text, sizeof(text), "refused: %s; rules %s: %s%s%s", d->why, rules,
			 c->evidence, jobs[0] ? "; jobs: " : "", jobs);
		return tell(r->st, j->now, r->sid, "notice", "link_isolation_refused", r->fab,
			    &c->link, NULL, text);
	case ISO_ACT_DRAIN:
	case ISO_ACT_WOULD_DRAIN:
		if (!told_new(j->m, r->idx, &c->link, d->act, "", r->seen))
			return 0;
		snprintf(text, sizeof(text), "host %s: rules %s: %s%s%s",
			 node_name(r->fab, c->link.a.is_ca ? c->link.a.guid : c->link.b.guid), rules,
			 c->evidence, jobs[0] ? "; jobs: " : "", jobs);
		if (d->act == ISO_ACT_DRAIN &&
		    (rc = put_row(r, &c->link, ISO_DRAINED, 1, "loom", rules, c->evidence,
				  c->evidence, NULL, 0, j->conf.iso_clean_for_s)) < 0)
			return rc;
		return tell(r->st, j->now, r->sid, d->act == ISO_ACT_DRAIN ? "warning" : "notice",
			    d->act == ISO_ACT_DRAIN ? "host_drained" : "host_would_drain", r->fab,
			    &c->link, NULL, text);
	}
	return 0;
}

/* The rows of subnet sid, their entries for the policy. */
static struct iso_entry *entries_of(struct iso_rows *rows, int64_t sid, size_t **at, size_t *n)
{
	struct iso_entry *e = calloc(rows->n ? rows->n : 1, sizeof(*e));

	*at = calloc(rows->n ? rows->n : 1, sizeof(**at));
	*n = 0;
	if (!e || !*at) {
		free(e);
		free(*at);
		*at = NULL;
		return NULL;
	}
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].sid == sid) {
			(*at)[*n] = i;
			e[(*n)++] = rows->v[i].e;
		}
	return e;
}

static int eval_subnet(struct subnet_run *r)
{
	struct iso_job *j = r->j;
	struct cands c = { 0 };
	struct iso_bounds b;
	struct iso_decision *d = NULL;
	struct iso_entry *e = NULL;
	size_t *at = NULL, n_e = 0, n_d;
	int rc;

	if ((rc = gather(j, r->db, r->sid, r->idx, r->fab, &c)) < 0)
		goto out;
	qsort(c.v, c.n, sizeof(c.v[0]), by_severity);
	if (!(e = entries_of(r->rows, r->sid, &at, &n_e)) ||
	    !(d = calloc(n_e + c.n + 1, sizeof(*d)))) {
		rc = -ENOMEM;
		goto out;
	}
	isolation_conf_bounds(&j->conf, &b);
	if (!j->may_act && b.mode == ISO_MODE_ON)
		b.mode = ISO_MODE_DRY_RUN;   /* a follower tells, the leader acts */
	n_d = iso_policy_decide(&b, e, n_e, c.v, c.n, j->now, d);
	for (size_t i = 0; i < n_d && rc == 0; i++) {
		if (d[i].act == ISO_ACT_DIRTY || d[i].act == ISO_ACT_RESTORE ||
		    d[i].act == ISO_ACT_HOLD) {
			if (j->may_act || d[i].act == ISO_ACT_DIRTY)
				rc = act_entry(r, &r->rows->v[at[d[i].index]], &d[i]);
		} else {
			rc = act_candidate(r, &c.v[d[i].index], &d[i]);
		}
	}
out:
	free(d);
	free(e);
	free(at);
	cands_free(&c);
	return rc;
}

/* ---- operators ----------------------------------------------------------------------- */

/* "NODE:PORT": NODE a GUID or a node's description. */
static int resolve_port(const struct fab *fab, const char *spec, uint64_t *guid,
			unsigned *port, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char node[128], *end;
	unsigned long p;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(node)) {
		snprintf(err, errlen, "\"%s\": a port is NODE:PORT (a GUID or a node's description)",
			 spec);
		return -EINVAL;
	}
	memcpy(node, spec, (size_t)(colon - spec));
	node[colon - spec] = '\0';
	p = strtoul(colon + 1, &end, 10);
	if (*end || !p || p > 254) {
		snprintf(err, errlen, "\"%s\": port %s is not 1-254", spec, colon + 1);
		return -EINVAL;
	}
	*port = (unsigned)p;
	if (ibt_guid_parse(node, guid) == 0 && fab_find(fab, *guid))
		return 0;
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (!strcmp(fab->nodes[i]->desc, node)) {
			*guid = fab->nodes[i]->guid;
			return 0;
		}
	snprintf(err, errlen, "no node \"%s\" in subnet %s's last sweep", node, fab->subnet);
	return -ENOENT;
}

static long row_with(const struct iso_rows *rows, int64_t sid, uint64_t guid, unsigned port)
{
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].sid == sid && iso_link_has(&rows->v[i].e.link, guid, port))
			return (long)i;
	return -1;
}

static int operator_isolate(struct subnet_run *r, char *err, size_t errlen)
{
	struct iso_job *j = r->j;
	uint64_t guid;
	unsigned port;
	struct iso_link l;
	struct loss x;
	char text[1024], jobs[256], evidence[384];
	long k;
	int rc;

	if ((rc = resolve_port(r->fab, j->port, &guid, &port, err, errlen)) < 0)
		return rc;
	if ((k = row_with(r->rows, r->sid, guid, port)) >= 0) {
		snprintf(err, errlen, "%s is out of the routes already (%s by %s)", j->port,
			 iso_state_name(r->rows->v[k].e.state), r->rows->v[k].by);
		return -EEXIST;
	}
	if (link_at(r->fab, guid, port, &l) < 0) {
		snprintf(err, errlen, "%s has no cable in the last sweep", j->port);
		return -ENOENT;
	}
	if (iso_link_is_host(&l)) {
		snprintf(err, errlen, "%s is a host's cable: traffic to the host has no other way, "
			 "so loom never takes it out of the routes (drain the host in Slurm)", j->port);
		return -EINVAL;
	}
	if ((rc = base_ready(j->m, r->idx, r->fab, r->version, &r->out, err, errlen)) < 0)
		return rc;
	if ((rc = loss_of(j, &j->m->bases[r->idx], r->fab, &r->out, &l, &x)) < 0)
		return rc;
	if (x.refused && !j->force) {
		snprintf(err, errlen, "refused: %s (loss %s); --force to isolate it anyway", x.why,
			 x.text);
		loss_clear(&x);
		return -EPERM;
	}
	jobs_on(j, r->name, &l, jobs, sizeof(jobs));
	snprintf(evidence, sizeof(evidence), "isolated by %.127s%s%.200s", j->by,
		 x.refused ? ", forced past: " : "", x.refused ? x.why : "");
	snprintf(text, sizeof(text), "by %s: %s; loss %s%s%s", j->by, j->reason, x.text,
		 jobs[0] ? "; jobs: " : "", jobs);
	if ((rc = put_row(r, &l, ISO_ISOLATED, 0, j->by, "operator", j->reason, evidence, x.text,
			  0, 0)) < 0 ||
	    (rc = tell(r->st, j->now, r->sid, "warning", "link_isolated", r->fab, &l, NULL,
		       text)) < 0 ||
	    (rc = out_add(&r->out, &l)) < 0) {
		loss_clear(&x);
		return rc;
	}
	base_take(&j->m->bases[r->idx], &x);
	r->changed = 1;
	j->result = json_pack("{s:s, s:s, s:s, s:b}", "port", j->port, "loss", x.text,
			      "jobs", jobs, "forced", x.refused);
	return 0;
}

static int operator_restore(struct subnet_run *r, char *err, size_t errlen)
{
	struct iso_job *j = r->j;
	uint64_t guid;
	unsigned port;
	long k;
	int rc;
	char text[512];
	struct iso_row *row;

	if ((rc = resolve_port(r->fab, j->port, &guid, &port, err, errlen)) < 0)
		return rc;
	if ((k = row_with(r->rows, r->sid, guid, port)) < 0) {
		snprintf(err, errlen, "%s is not isolated", j->port);
		return -ENOENT;
	}
	row = &r->rows->v[k];
	if ((rc = store_iso_delete(r->db, r->sid, &row->e.link)) < 0 ||
	    (rc = store_iso_forget_returns(r->db, r->sid, &row->e.link)) < 0)
		return rc;
	snprintf(text, sizeof(text), "restored by %s; %s since %.0f by %s (%s)", j->by,
		 iso_state_name(row->e.state), row->e.since, row->by, row->rules);
	if ((rc = tell(r->st, j->now, r->sid, "notice", row->host ? "host_resumed" :
		       "link_restored", r->fab, &row->e.link, NULL, text)) < 0)
		return rc;
	r->changed |= !row->host;
	j->result = json_pack("{s:s, s:s}", "port", j->port, "was", iso_state_name(row->e.state));
	return 0;
}

/* ---- the file ------------------------------------------------------------------------ */

/* The set libloomosm reads: every cable out of the routes, of every subnet.
 * 0 written, 1 the file says so already, -errno. */
static int write_file(const char *path, const struct iso_rows *rows, int64_t version, char *err,
		      size_t errlen)
{
	size_t cap = 256 + rows->n * 400, n = 0;
	char *text = malloc(cap);
	int rc;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n += (size_t)snprintf(text + n, cap - n, "# loom: links taken out of the routes (written "
			      "by loomd, read by libloomosm at each routing run)\nversion %" PRId64
			      "\n", version);
	for (size_t i = 0; i < rows->n && n < cap; i++) {
		const struct iso_row *r = &rows->v[i];
		char why[512];

		if (r->host)
			continue;
		snprintf(why, sizeof(why), "%s: %s by %s: %s", r->subnet, iso_state_name(r->e.state),
			 r->by, r->rules);
		for (char *p = why; *p; p++)
			if (*p == '\n' || *p == '#')
				*p = ' ';
		n += (size_t)snprintf(text + n, cap - n, "0x%016" PRIx64 " %u # %s\n",
				      r->e.link.a.guid, r->e.link.a.port, why);
	}
	{
		/* The same set already there (a restart): nothing to write or ask. */
		char rerr[64];
		char *now = file_read_text(path, rerr, sizeof(rerr));

		rc = now && !strcmp(now, text) ? 1 : 0;
		free(now);
	}
	if (rc == 0)
		rc = file_write_atomic(path, text, err, errlen);
	free(text);
	return rc;
}

/* ---- the job ------------------------------------------------------------------------- */

static void take_pending(struct iso_job *j)
{
	struct isolation_mod *m = j->m;

	for (size_t i = 0; i < j->n_pending; i++) {
		const struct iso_pending *p = &j->pending[i];

		for (size_t k = 0; k < p->n; k++) {
			struct iso_moves mv = { p->v[k].errors, p->v[k].symbol, p->v[k].downed };

			iso_windows_add(m->win, p->subnet, p->v[k].guid, p->v[k].port, p->at, &mv);
		}
	}
	iso_windows_expire(m->win, j->now - j->conf.iso_window_s);
}

/* Forget the decisions told of links that are no candidate any more: when
 * one comes back, it is told again. */
static void told_sweep(struct isolation_mod *m, const unsigned char *seen, const int *ran)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n_told; i++)
		if (seen[i] || !ran[m->told[i].subnet])
			m->told[k++] = m->told[i];
	m->n_told = k;
}

int iso_eval_run(void *arg, char *err, size_t errlen)
{
	struct iso_job *j = arg;
	struct isolation_mod *m = j->m;
	struct store *st = store_open(j->db_path, err, errlen);
	struct iso_rows rows = { 0 };
	unsigned char *seen = NULL;
	int ran[ISO_NAMES_MAX] = { 0 }, changed = 0, rc = 0, found = 0;
	int64_t version;
	sqlite3 *db;

	take_pending(j);
	if (!st)
		return -EIO;
	db = store_db(st);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot begin: %s", sqlite3_errmsg(db));
		store_close(st);
		return -EIO;
	}
	if ((rc = store_iso_load(db, &rows)) < 0 || (version = store_iso_version(db)) < 0 ||
	    !(seen = calloc(m->n_told + 1, 1))) {
		rc = rc < 0 ? rc : -ENOMEM;
		snprintf(err, errlen, "cannot read the isolated links");
		goto rollback;
	}
	for (size_t i = 0; i < j->n && rc == 0; i++) {
		struct subnet_run r = { .j = j, .st = st, .db = db, .idx = j->s[i].idx,
					.name = j->s[i].name, .fab = j->s[i].fab, .rows = &rows,
					.version = version, .seen = seen };

		if (j->kind != ISO_JOB_EVAL && j->subnet[0] && strcmp(j->subnet, r.name))
			continue;
		if ((r.sid = store_subnet_id(st, r.name)) <= 0)
			continue;
		for (size_t k = 0; k < rows.n; k++)
			if (rows.v[k].sid == r.sid && !rows.v[k].host &&
			    (rc = out_add(&r.out, &rows.v[k].e.link)) < 0)
				break;
		found = 1;
		ran[r.idx] = 1;
		if (rc == 0) {
			if (j->kind == ISO_JOB_EVAL)
				rc = eval_subnet(&r);
			else if (j->kind == ISO_JOB_ISOLATE)
				rc = operator_isolate(&r, err, errlen);
			else
				rc = operator_restore(&r, err, errlen);
		}
		changed |= r.changed;
		free(r.out.v);
		if (j->kind != ISO_JOB_EVAL)
			break;   /* the one subnet (several swept: --subnet names it) */
	}
	if (rc == 0 && j->kind != ISO_JOB_EVAL && !found) {
		snprintf(err, errlen, "no subnet %s%swas swept since loomd started", j->subnet,
			 j->subnet[0] ? " " : "");
		rc = -ENOENT;
	}
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		goto rollback;
	}
	if (changed && (version = store_iso_bump(db)) < 0) {
		rc = (int)version;
		goto rollback;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "commit the isolation");
		snprintf(err, errlen, "cannot commit: %s", sqlite3_errmsg(db));
		goto rollback;
	}
	/* The routes kept are those of the new version now. */
	for (size_t i = 0; i < ISO_NAMES_MAX; i++)
		if (ran[i] && m->bases[i].g && changed)
			m->bases[i].version = version;
	if (j->kind == ISO_JOB_EVAL)
		told_sweep(m, seen, ran);
	free(seen);
	store_iso_rows_free(&rows);
	if (version != m->file_version) {
		char ferr[512];

		if ((rc = store_iso_load(db, &rows)) < 0 ||
		    (rc = write_file(j->conf.iso_file, &rows, version, ferr, sizeof(ferr))) < 0) {
			log_err("isolation: the isolated set (version %" PRId64 ") is stored but not "
				"written for OpenSM: %s; tried again at the next evaluation", version,
				rc == -ENOMEM ? "out of memory" : ferr);
		} else if (rc == 1) {
			m->file_version = version;
		} else {
			int pid = 0;

			m->file_version = version;
			rc = opensm_sweep_ask(&j->osm, "loom isolation: the isolated links changed",
					      &pid, j->note, sizeof(j->note));
			if (rc < 0)
				log_warn("isolation: the isolated set (version %" PRId64 ") is written, "
					 "but OpenSM was not asked to reroute: %s", version, j->note);
			else
				log_notice("isolation: the isolated set (version %" PRId64 ", %zu links) "
					   "written; %s to reroute", version, rows.n, j->note);
		}
		store_iso_rows_free(&rows);
	}
	store_close(st);
	return 0;

rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	/* The routes kept may hold what was rolled back. */
	iso_bases_clear(m);
	free(seen);
	store_iso_rows_free(&rows);
	store_close(st);
	return rc;
}
