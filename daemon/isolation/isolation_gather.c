/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_gather.c: the links whose rules hold in the
 * window (isolation.h): the errors and LinkDownedCounter moves the windows
 * counted, the link_down and link_flap events the sweeps wrote, the
 * degraded links of the last sweep; both ends of a cable summed, worst
 * first. On the worker. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/isolation/isolation_impl.h"
#include "lib/db/link_state_db.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/route/route.h"
#include "lib/route/route_loss.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

/* ---- the candidates ---------------------------------------------------------------- */


void iso_cands_free(struct iso_cands *c)
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
int iso_link_at(const struct fab *fab, uint64_t guid, unsigned port, struct iso_link *l)
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

long iso_cand_of(struct iso_cands *c, const struct iso_link *l)
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
	struct iso_cands *c;
	const struct fab *fab;
	unsigned subnet;
};

static int win_add(void *arg, unsigned subnet, uint64_t guid, unsigned port,
		   const struct iso_moves *sum)
{
	struct win_ctx *w = arg;
	struct iso_link l;
	long k;

	if (subnet != w->subnet || iso_link_at(w->fab, guid, port, &l) < 0)
		return 0;
	if ((k = iso_cand_of(w->c, &l)) < 0)
		return -ENOMEM;
	w->c->errors[k] += sum->errors;
	w->c->symbol[k] += sum->symbol;
	w->c->downs[k] += sum->downed;
	return 0;
}

/* The downs one event stands for: a link_down 1, a link_flap's "N bounces"
 * N - 1 (the link_down before it counted its first). */
static unsigned downs_of(const char *kind, const char *value)
{
	int n = kind && !strcmp(kind, "link_flap") ? (value ? atoi(value) - 1 : 1) : 1;

	return n > 0 ? (unsigned)n : 0;
}

/* What a cable's two ends moved after `since`, summed. */
static void link_moves(const struct iso_windows *w, unsigned idx, const struct iso_link *l,
		       double since, struct iso_moves *sum)
{
	struct iso_moves b;

	iso_windows_sum(w, idx, l->a.guid, l->a.port, since, sum);
	iso_windows_sum(w, idx, l->b.guid, l->b.port, since, &b);
	sum->errors += b.errors;
	sum->symbol += b.symbol;
	sum->downed += b.downed;
}

/* The link_down and link_flap events of the window (a cable cut and put
 * back, which the counters of ibsim, and of a port reset, do not count):
 * "0xA[p] (...) <-> 0xB[q] (...)"; a link_flap's new_value "N bounces"
 * stands for N - 1 downs after the link_down before it. */
static int flap_events(sqlite3 *db, int64_t sid, double since, const struct fab *fab,
		       struct iso_cands *c)
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
		unsigned n = downs_of(kind, val);

		if (!n || !other || sscanf(subj, "0x%" SCNx64 "[%u]", &ga, &pa) != 2 ||
		    sscanf(other + 4, "0x%" SCNx64 "[%u]", &gb, &pb) != 2 || !pa || !pb ||
		    pa > 254 || pb > 254)
			continue;
		if (iso_link_at(fab, ga, pa, &l) < 0) {
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
		if ((k = iso_cand_of(c, &l)) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
		c->evdowns[k] += (uint64_t)n;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the links that went down");
}

struct deg_ctx {
	struct iso_cands *c;
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
	if ((k = iso_cand_of(d->c, &l)) < 0) {
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

static int by_severity(const void *x, const void *y)
{
	const struct iso_candidate *a = x, *b = y;

	return a->severity < b->severity ? 1 : a->severity > b->severity ? -1 :
	       (a->link.a.guid > b->link.a.guid) - (a->link.a.guid < b->link.a.guid);
}

/* Every link whose rules hold in the window, their evidence said, worst first. */
/* The node a validation finding names (the site's name, else its
 * description), or 0. */
static uint64_t node_named(const struct fab *fab, const struct nodename_map *names,
			   const char *name, size_t len)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];
		const char *nm = nodename_of(names, n->guid, n->desc);

		if (strlen(nm) == len && !strncmp(nm, name, len))
			return n->guid;
	}
	return 0;
}

/* "NAME[PORT]" of s..e: the node's GUID and the port, 0 when unknown. */
static int end_named(const struct fab *fab, const struct nodename_map *names, const char *s,
		     const char *e, uint64_t *guid, unsigned *port)
{
	const char *b = e;

	while (b > s && *b != '[')
		b--;
	if (b == s || sscanf(b, "[%u]", port) != 1)
		return 0;
	return (*guid = node_named(fab, names, s, (size_t)(b - s))) != 0;
}

/* The open validation findings of isolation.findings' codes on one cable
 * (lib/validate/health.c's and cabling.c's subjects). */
static int findings(struct iso_job *j, sqlite3 *db, int64_t sid, const struct fab *fab,
		    struct iso_cands *c)
{
	sqlite3_stmt *s;
	int rc;

	if (!j->conf.iso_findings)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT code, subject, want, got FROM validation_issues WHERE "
			       "subnet_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read the validation findings");
	sqlite3_bind_int64(s, 1, sid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *code = (const char *)sqlite3_column_text(s, 0);
		const char *subj = (const char *)sqlite3_column_text(s, 1);
		/* "A[p] - B[q]" (a cable: its first end), or "A[p]" (miswired,
		 * wrong-peer: the port that is cabled otherwise). */
		const char *sep = !subj ? NULL : strstr(subj, "] - ") ? strstr(subj, "] - ") :
				  strrchr(subj, ']');
		enum val_code vc = code ? val_code_of(code) : VAL_CODE_COUNT;
		uint64_t g;
		unsigned port;
		struct iso_link l;
		long k;
		size_t len;

		if (vc == VAL_CODE_COUNT || !(j->conf.iso_findings & (1ULL << vc)) || !sep ||
		    !end_named(fab, j->names, subj, sep, &g, &port) ||
		    iso_link_at(fab, g, port, &l) < 0)
			continue;
		if ((k = iso_cand_of(c, &l)) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
		c->v[k].rules |= 1u << ISO_RULE_FINDING;
		len = strlen(c->v[k].evidence);
		snprintf(c->v[k].evidence + len, sizeof(c->v[k].evidence) - len, "%svalidation %s: "
			 "%.60s (want %.60s)", len ? "; " : "", code,
			 (const char *)sqlite3_column_text(s, 3),
			 (const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the validation findings");
}

/* When the cable last came back into the routes (0: never). */
static double restored_at(sqlite3 *db, int64_t sid, const struct iso_link *l)
{
	sqlite3_stmt *s;
	char g[24];
	double t = 0;

	snprintf(g, sizeof(g), "0x%016" PRIx64, l->a.guid);
	if (sqlite3_prepare_v2(db, "SELECT last FROM isolation_returns WHERE subnet_id = ?1 AND "
			       "guid = ?2 AND port = ?3", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(s, 1, sid);
	sqlite3_bind_text(s, 2, g, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 3, l->a.port);
	if (sqlite3_step(s) == SQLITE_ROW)
		t = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return t;
}

/* The downs the sweeps' events saw of one cable after `from`. */
static uint64_t link_downs(sqlite3 *db, int64_t sid, const struct iso_link *l, double from)
{
	sqlite3_stmt *s;
	char like[64];
	uint64_t n = 0;

	snprintf(like, sizeof(like), "0x%016" PRIx64 "[%u] %%", l->a.guid, l->a.port);
	if (sqlite3_prepare_v2(db, "SELECT kind, new_value FROM events WHERE time > ?1 AND "
			       "subnet_id = ?2 AND kind IN ('link_down', 'link_flap') AND "
			       "subject LIKE ?3", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_double(s, 1, from);
	sqlite3_bind_int64(s, 2, sid);
	sqlite3_bind_text(s, 3, like, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW)
		n += downs_of((const char *)sqlite3_column_text(s, 0),
			      (const char *)sqlite3_column_text(s, 1));
	sqlite3_finalize(s);
	return n;
}

/* A cable that came back within the window is judged on what happened
 * since: the evidence that isolated it does not isolate it again. */
static void since_restored(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
			   struct iso_cands *c, size_t i, double since)
{
	const struct iso_link *l = &c->v[i].link;
	double from = restored_at(db, sid, l);
	struct iso_moves m;

	if (from <= since)
		return;
	link_moves(j->m->win, idx, l, from, &m);
	c->errors[i] = m.errors;
	c->symbol[i] = m.symbol;
	c->downs[i] = m.downed;
	c->evdowns[i] = link_downs(db, sid, l, from);
}

int iso_gather(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
		  const struct fab *fab, struct iso_cands *c)
{
	const struct isolation_conf *cf = &j->conf;
	double since = j->now - cf->iso_window_s;
	struct win_ctx w = { c, fab, idx };
	struct deg_ctx d = { c, 0 };
	size_t keep = 0;
	int rc;

	if ((rc = iso_windows_foreach(j->m->win, since, win_add, &w)) < 0 ||
	    (rc = flap_events(db, sid, since, fab, c)) < 0 ||
	    (rc = findings(j, db, sid, fab, c)) < 0)
		return rc;
	if (cf->iso_degraded && (fab_foreach_link(fab, deg_link, &d) < 0 || d.failed))
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct iso_candidate *v = &c->v[i];
		double bits = window_bits(fab, &v->link, cf->iso_window_s);
		double ber = bits > 0 ? (double)c->symbol[i] / bits : 0;
		char more[384] = "";
		size_t len = strlen(v->evidence);

		since_restored(j, db, sid, idx, c, i, since);
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
	if (c->n)
		qsort(c->v, c->n, sizeof(c->v[0]), by_severity);
	return 0;
}

/* Did anything move on an isolated cable since its clean time: its ends'
 * counters in the windows, or a sweep that saw it go down? */
int iso_entry_moved(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
		    const struct iso_entry *e)
{
	struct iso_moves m;

	link_moves(j->m->win, idx, &e->link, e->clean_since, &m);
	if (m.errors || m.symbol || m.downed)
		return 1;
	return link_downs(db, sid, &e->link, e->clean_since) > 0;
}
