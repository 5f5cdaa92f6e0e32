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
#include "lib/fabric/isolated_set.h"
#include "lib/fabric/ibtypes.h"
#include "lib/route/route.h"
#include "lib/route/route_loss.h"
#include "lib/util/log.h"

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

/* Once per candidate and decision: 1 when it is new (and remembered);
 * either way the cable is marked as seen in this evaluation's round. */
static int told_new(struct isolation_mod *m, unsigned idx, const struct iso_link *l, int act,
		    const char *why)
{
	for (size_t i = 0; i < m->n_told; i++) {
		struct iso_told *t = &m->told[i];

		if (t->subnet != idx || !iso_link_eq(&t->link, l))
			continue;
		t->round = m->round;
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
		v[m->n_told] = (struct iso_told){ .subnet = idx, .link = *l, .act = act,
						  .round = m->round };
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
	struct iso_out out;
	int changed;
};

/* The Slurm node of the cable's CA end, by the tenants' host rule (loaded
 * once per job): 1 with host, 0 none, -errno. */
static int host_of(struct subnet_run *r, const struct iso_link *l, char *host, size_t len)
{
	struct iso_job *j = r->j;
	const struct iso_end *ca = l->a.is_ca ? &l->a : &l->b;
	const struct fab_node *n = fab_find(r->fab, ca->guid);
	const struct fab_port *p = n ? fab_port(n, ca->port) : NULL;
	char err[256];

	if (!j->hm_loaded) {
		if (hostmap_load(&j->hm, j->hosts.pattern, j->hosts.map, err, sizeof(err)) < 0) {
			log_warn("isolation: the tenants' host rule cannot be read: %s", err);
			return 0;
		}
		j->hm_loaded = 1;
	}
	if (!n || !p)
		return 0;
	return hostmap_port_host(&j->hm, n, p, host, len) > 0 ? 1 : 0;
}

/* A drain (or a resume) for the loop, once the transaction is in; the
 * events say what Slurm did. */
static int host_act(struct subnet_run *r, int resume, const struct iso_link *l,
		    const char *host, const char *why)
{
	char subj[320];

	subject_of(r->fab, l, subj, sizeof(subj));
	return iso_host_act_add(r->j, resume, r->sid, host, why, subj);
}

int iso_host_act_add(struct iso_job *j, int resume, int64_t sid, const char *host,
		     const char *why, const char *subject)
{
	struct iso_host_act *v = realloc(j->host_acts, (j->n_host_acts + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	j->host_acts = v;
	v = memset(&v[j->n_host_acts++], 0, sizeof(*v));
	v->resume = resume;
	v->sid = sid;
	snprintf(v->host, sizeof(v->host), "%s", host);
	snprintf(v->why, sizeof(v->why), "%s", why);
	snprintf(v->subject, sizeof(v->subject), "%s", subject);
	return 0;
}

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
	if (host && host_of(r, l, row.host_name, sizeof(row.host_name)) <= 0)
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
	struct iso_loss x;
	char rules[64], text[1024], jobs[256], err[256];
	int rc;

	if ((rc = iso_base_ready(m, r->idx, r->fab, r->version, &r->out, err, sizeof(err))) < 0) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_REFUSE, err))
			tell(r->st, j->now, r->sid, "warning", "link_isolation_refused", r->fab,
			     &c->link, NULL, err);
		return rc == -ENOMEM ? rc : 0;
	}
	if ((rc = iso_loss_of(j, &m->bases[r->idx], r->fab, &r->out, &c->link, &x)) < 0)
		return rc;
	rules_text(c->rules, rules, sizeof(rules));
	jobs_on(j, r->name, &c->link, jobs, sizeof(jobs));
	if (x.refused) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_REFUSE, x.why)) {
			snprintf(text, sizeof(text), "refused: %s; rules %s: %s; loss %s%s%s", x.why,
				 rules, c->evidence, x.text, jobs[0] ? "; jobs: " : "", jobs);
			rc = tell(r->st, j->now, r->sid, "warning", "link_isolation_refused", r->fab,
				  &c->link, NULL, text);
		}
		iso_loss_clear(&x);
		return rc < 0 ? rc : 0;
	}
	snprintf(text, sizeof(text), "rules %s: %s; loss %s%s%s", rules, c->evidence, x.text,
		 jobs[0] ? "; jobs: " : "", jobs);
	if (dry) {
		if (told_new(m, r->idx, &c->link, ISO_ACT_WOULD_ISOLATE, ""))
			rc = tell(r->st, j->now, r->sid, "notice", "link_would_isolate", r->fab,
				  &c->link, NULL, text);
		iso_loss_clear(&x);
		return rc < 0 ? rc : 0;
	}
	isolation_conf_bounds(&j->conf, &b);
	{
		unsigned returns = store_iso_returns(r->db, r->sid, &c->link);

		if ((rc = put_row(r, &c->link, ISO_ISOLATED, 0, "loom", rules, c->evidence,
				  c->evidence, x.text, returns, iso_probation(&b, returns))) < 0 ||
		    (rc = tell(r->st, j->now, r->sid, "warning", "link_isolated", r->fab, &c->link,
			       NULL, text)) < 0 ||
		    (rc = iso_out_add(&r->out, &c->link)) < 0) {
			iso_loss_clear(&x);
			return rc;
		}
	}
	told_new(m, r->idx, &c->link, ISO_ACT_ISOLATE, "");
	iso_base_take(&m->bases[r->idx], &x);
	r->changed = 1;
	return 0;
}

/* A cable back in the routes: out of this job's set, and the routes kept
 * for the subnet no longer what the set makes (made again when needed). */
static void back_in(struct subnet_run *r, const struct iso_link *l)
{
	size_t k = 0;

	for (size_t i = 0; i < r->out.n; i++)
		if (!iso_link_eq(&r->out.v[i], l))
			r->out.v[k++] = r->out.v[i];
	r->out.n = k;
	r->j->m->bases[r->idx].version = -1;
	r->changed = 1;
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
		if (row->host)
			return host_act(r, 1, &row->e.link, row->host_name, text);
		back_in(r, &row->e.link);
		return tell(r->st, j->now, r->sid, "notice", "link_restored", r->fab, &row->e.link,
			    NULL, text);
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
		if (!told_new(j->m, r->idx, &c->link, ISO_ACT_REFUSE, d->why))
			return 0;
		snprintf(text, sizeof(text), "refused: %s; rules %s: %s%s%s", d->why, rules,
			 c->evidence, jobs[0] ? "; jobs: " : "", jobs);
		return tell(r->st, j->now, r->sid, "notice", "link_isolation_refused", r->fab,
			    &c->link, NULL, text);
	case ISO_ACT_DRAIN:
	case ISO_ACT_WOULD_DRAIN: {
		char host[64];

		if (!told_new(j->m, r->idx, &c->link, d->act, ""))
			return 0;
		if ((rc = host_of(r, &c->link, host, sizeof(host))) <= 0) {
			if (rc < 0)
				return rc;
			snprintf(text, sizeof(text), "refused: CA port 0x%016" PRIx64 "[%u] maps to no "
				 "Slurm node (tenants.host_pattern, host_map); rules %s: %s",
				 c->link.a.is_ca ? c->link.a.guid : c->link.b.guid,
				 c->link.a.is_ca ? c->link.a.port : c->link.b.port, rules, c->evidence);
			return tell(r->st, j->now, r->sid, "notice", "link_isolation_refused", r->fab,
				    &c->link, NULL, text);
		}
		{
			const struct iso_end *sw = c->link.a.is_ca ? &c->link.b : &c->link.a;

			snprintf(text, sizeof(text), "cable to %s[%u]: %s: %s%s%s",
				 node_name(r->fab, sw->guid), sw->port, rules, c->evidence,
				 jobs[0] ? "; jobs: " : "", jobs);
		}
		if (d->act == ISO_ACT_WOULD_DRAIN)
			return tell(r->st, j->now, r->sid, "notice", "host_would_drain", r->fab,
				    &c->link, NULL, text);
		if ((rc = put_row(r, &c->link, ISO_DRAINED, 1, "loom", rules, c->evidence,
				  c->evidence, NULL, 0, j->conf.iso_clean_for_s)) < 0)
			return rc;
		return host_act(r, 0, &c->link, host, text);
	}
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
	struct iso_cands c = { 0 };
	struct iso_bounds b;
	struct iso_decision *d = NULL;
	struct iso_entry *e = NULL;
	size_t *at = NULL, n_e = 0, n_d;
	int rc;

	if ((rc = iso_gather(j, r->db, r->sid, r->idx, r->fab, &c)) < 0)
		goto out;
	if (!(e = entries_of(r->rows, r->sid, &at, &n_e))) {
		rc = -ENOMEM;
		goto out;
	}
	/* An isolated cable is clean while nothing moves on it (the errors of
	 * the window that isolated it stay in the window) and it is not
	 * degraded: its candidate stays only when it is not. */
	for (size_t i = 0; i < n_e && rc == 0; i++) {
		long k = -1;
		int moved;

		for (size_t q = 0; q < c.n && k < 0; q++)
			if (iso_link_eq(&c.v[q].link, &e[i].link))
				k = (long)q;
		if ((moved = iso_entry_moved(j, r->db, r->sid, r->idx, &e[i])) < 0) {
			rc = moved;
			break;
		}
		if (moved && k < 0) {
			if ((k = iso_cand_of(&c, &e[i].link)) < 0)
				rc = -ENOMEM;
			else
				c.v[k].rules = 1u << ISO_RULE_N;   /* moved: not a rule of its own */
		} else if (!moved && k >= 0 && !(c.v[k].rules & (1u << ISO_RULE_DEGRADED)))
			c.v[k].rules = 0;   /* dropped below */
	}
	{
		size_t keep = 0;

		for (size_t q = 0; q < c.n; q++)
			if (c.v[q].rules)
				c.v[keep++] = c.v[q];
		c.n = keep;
	}
	if (rc < 0 || !(d = calloc(n_e + c.n + 1, sizeof(*d)))) {
		rc = rc < 0 ? rc : -ENOMEM;
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
	if (rc == 0 && b.mode != ISO_MODE_OFF) {
		/* The routes now made ahead of the next candidate (after a
		 * sweep: a full run of loom's engine, off the critical path). */
		char err[256];

		if (iso_base_ready(j->m, r->idx, r->fab, r->version, &r->out, err, sizeof(err)) < 0)
			log_debug("isolation: subnet %s: the routes now: %s", r->name, err);
	}
out:
	free(d);
	free(e);
	free(at);
	iso_cands_free(&c);
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
	struct iso_loss x;
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
	if (iso_link_at(r->fab, guid, port, &l) < 0) {
		snprintf(err, errlen, "%s has no cable in the last sweep", j->port);
		return -ENOENT;
	}
	if (iso_link_is_host(&l)) {
		snprintf(err, errlen, "%s is a host's cable: traffic to the host has no other way, "
			 "so loom never takes it out of the routes (drain the host in Slurm)", j->port);
		return -EINVAL;
	}
	if ((rc = iso_base_ready(j->m, r->idx, r->fab, r->version, &r->out, err, errlen)) < 0)
		return rc;
	if ((rc = iso_loss_of(j, &j->m->bases[r->idx], r->fab, &r->out, &l, &x)) < 0)
		return rc;
	if (x.refused && !j->force) {
		snprintf(err, errlen, "refused: %s (loss %s); --force to isolate it anyway", x.why,
			 x.text);
		iso_loss_clear(&x);
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
	    (rc = iso_out_add(&r->out, &l)) < 0) {
		iso_loss_clear(&x);
		return rc;
	}
	iso_base_take(&j->m->bases[r->idx], &x);
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
	    (rc = store_iso_forget_returns(r->db, r->sid, &row->e.link, j->now)) < 0)
		return rc;
	snprintf(text, sizeof(text), "restored by %s; %s since %.0f by %s (%s)", j->by,
		 iso_state_name(row->e.state), row->e.since, row->by, row->rules);
	if ((rc = row->host ? host_act(r, 1, &row->e.link, row->host_name, text) :
		   tell(r->st, j->now, r->sid, "notice", "link_restored", r->fab, &row->e.link, NULL,
			text)) < 0)
		return rc;
	if (!row->host)
		back_in(r, &row->e.link);
	j->result = json_pack("{s:s, s:s}", "port", j->port, "was", iso_state_name(row->e.state));
	return 0;
}

/* ---- the file ------------------------------------------------------------------------ */

/* The set libloomosm reads (lib/fabric/isolated_set.h): every cable out of
 * the routes, of every subnet, by its lower end. 0 written, 1 the file says
 * so already, -errno. */
static int write_file(const char *path, const struct iso_rows *rows, int64_t version, char *err,
		      size_t errlen)
{
	struct iso_set set = { .version = (uint64_t)version };
	char (*why)[200] = calloc(rows->n ? rows->n : 1, sizeof(*why));
	const char **comments = calloc(rows->n ? rows->n : 1, sizeof(*comments));
	char *text = NULL, *now, rerr[64];
	int rc = -ENOMEM;

	if (!why || !comments || !(set.v = calloc(rows->n ? rows->n : 1, sizeof(*set.v))))
		goto out;
	for (size_t i = 0; i < rows->n; i++) {
		const struct iso_row *r = &rows->v[i];

		if (r->host)
			continue;
		snprintf(why[set.n], sizeof(why[0]), "%s: %s by %.60s: %s", r->subnet,
			 iso_state_name(r->e.state), r->by, r->rules);
		comments[set.n] = why[set.n];
		set.v[set.n++] = (struct iso_port){ r->e.link.a.guid, r->e.link.a.port };
	}
	if (!(text = iso_set_format(&set, comments)))
		goto out;
	/* The same set already there (a restart): nothing to write or ask. */
	now = file_read_text(path, rerr, sizeof(rerr));
	rc = now && !strcmp(now, text) ? 1 : 0;
	free(now);
	if (rc == 0)
		rc = file_write_atomic(path, text, err, errlen);
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(text);
	free(set.v);
	free(comments);
	free(why);
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
static void told_sweep(struct isolation_mod *m, const int *ran)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n_told; i++)
		if (m->told[i].round == m->round || !ran[m->told[i].subnet])
			m->told[k++] = m->told[i];
	m->n_told = k;
}

int iso_eval_run(void *arg, char *err, size_t errlen)
{
	struct iso_job *j = arg;
	struct isolation_mod *m = j->m;
	struct store *st = store_open(j->db_path, err, errlen);
	struct iso_rows rows = { 0 };
	json_t *before = NULL;
	int ran[ISO_NAMES_MAX] = { 0 }, changed = 0, rc = 0, found = 0;
	int64_t old_version;
	int64_t version;
	sqlite3 *db;

	take_pending(j);
	m->round++;
	if (!st)
		return -EIO;
	db = store_db(st);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot begin: %s", sqlite3_errmsg(db));
		store_close(st);
		return -EIO;
	}
	if ((rc = store_iso_load(db, &rows)) < 0 || (version = store_iso_version(db)) < 0) {
		rc = rc < 0 ? rc : (int)version;
		snprintf(err, errlen, "cannot read the isolated links");
		goto rollback;
	}
	before = iso_ha_before(j, &rows, version);   /* before the rows change below */
	for (size_t i = 0; i < j->n && rc == 0; i++) {
		struct subnet_run r = { .j = j, .st = st, .db = db, .idx = j->s[i].idx,
					.name = j->s[i].name, .fab = j->s[i].fab, .rows = &rows,
					.version = version };

		if (j->kind != ISO_JOB_EVAL && j->subnet[0] && strcmp(j->subnet, r.name))
			continue;
		if ((r.sid = store_subnet_id(st, r.name)) <= 0)
			continue;
		for (size_t k = 0; k < rows.n; k++)
			if (rows.v[k].sid == r.sid && !rows.v[k].host &&
			    (rc = iso_out_add(&r.out, &rows.v[k].e.link)) < 0)
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
	old_version = version;
	if (changed && (version = store_iso_bump(db)) < 0) {
		rc = (int)version;
		goto rollback;
	}
	/* Under HA, etcd first: only the leader's change commits. */
	if (j->may_act && (rc = iso_ha_put(j, db, before, err, errlen)) < 0)
		goto rollback;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = store_db_fail(db, "commit the isolation");
		snprintf(err, errlen, "cannot commit: %s", sqlite3_errmsg(db));
		goto rollback;
	}
	/* The routes kept, made or moved in this job, are those of the new
	 * version now (those a restore made stale stay so). */
	for (size_t i = 0; i < ISO_NAMES_MAX; i++)
		if (ran[i] && m->bases[i].g && changed && m->bases[i].version == old_version)
			m->bases[i].version = version;
	if (j->kind == ISO_JOB_EVAL)
		told_sweep(m, ran);
	json_decref(before);
	store_iso_rows_free(&rows);
	/* Version 0: nothing was ever isolated; no file is the same set. */
	if (version != m->file_version && version > 0) {
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
			rc = opensm_sweep_reroute(&j->osm, "loom isolation: the isolated links changed",
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
	json_decref(before);
	store_iso_rows_free(&rows);
	store_close(st);
	return rc;
}
