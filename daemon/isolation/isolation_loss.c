/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_loss.c: the routes of a subnet now (loom's
 * engine on its fabric without the isolated cables), kept by the worker
 * while the fabric and the set stay, and what one more cable out costs
 * them against isolation.min_paths and ebb_floor_pct
 * (lib/route/route_loss.h). The worker's alone. Both run on a pool of
 * every core (lib/util/par.h; the figures never depend on it), a
 * candidate's graph is the kept one without its cable, and only the
 * destinations its reroute moved are judged again (rt_loss_judge_after):
 * at 11664 hosts a candidate costs about 0.1 s on two cores
 * (bench/results-isolation.md). */
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
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/par.h"

/* ---- the routes now, and what a candidate costs ---------------------------------- */


int iso_out_add(struct iso_out *o, const struct iso_link *l)
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
	fab_free(b->fab);
	memset(b, 0, sizeof(*b));
}

void iso_bases_clear(struct isolation_mod *m)
{
	for (size_t i = 0; i < ISO_NAMES_MAX; i++)
		base_clear(&m->bases[i]);
}

/* fab without the cables of o (and extra, when not NULL): a copy. */
static struct fab *fab_without(const struct fab *fab, const struct iso_out *o,
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
int iso_base_ready(struct isolation_mod *m, unsigned idx, const struct fab *fab,
		      int64_t version, const struct iso_out *o, char *err, size_t errlen)
{
	struct iso_base *b = &m->bases[idx];
	struct rt_metrics_opts opts;
	struct rt_judged jd;
	struct fab *f;
	double t0 = clock_mono(), t1 = t0, t2 = t0;
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
	b->g->pool = par_pool_new(0);  /* NULL: this thread alone */
	t1 = clock_mono();
	if ((rc = rt_route_loom(b->g, b->l, err, errlen)) >= 0) {
		t2 = clock_mono();
		rt_loss_opts(b->g, &opts);
		if ((rc = rt_loss_judge(b->g, b->l, &opts, &jd)) < 0)
			snprintf(err, errlen, "out of memory");
	}
	par_pool_free(b->g->pool);
	b->g->pool = NULL;
	if (rc < 0) {
		base_clear(b);
		return rc;
	}
	judged_into(b, &jd);
	log_info("isolation: the routes now of %zu switches, %zu CA ports made in %.0f ms "
		 "(graph %.0f, loom's engine %.0f, judged %.0f ms)", b->g->n_sw, b->g->n_ca,
		 (clock_mono() - t0) * 1000.0, (t1 - t0) * 1000.0, (t2 - t1) * 1000.0,
		 (clock_mono() - t2) * 1000.0);
	b->fab = fab_hold((struct fab *)fab);
	b->version = version;
	return 0;
}


void iso_loss_clear(struct iso_loss *x)
{
	rt_lfts_free(x->l);
	rt_graph_free(x->g);
	x->l = NULL;
	x->g = NULL;
}

/* b's graph without cand when cand is one of its switch-to-switch cables
 * (the graph of fab without o and cand: b was made of fab without o), else
 * that graph made from a copy of fab. NULL with err. */
static struct rt_graph *graph_without(const struct iso_base *b, const struct fab *fab,
				      const struct iso_out *o, const struct iso_link *cand,
				      char *err, size_t errlen)
{
	const struct rt_graph *g = b->g;
	size_t lo = 0, hi = g->n_sw;
	struct rt_graph *g2;
	struct fab *f;

	while (lo < hi) {  /* the switches are in GUID order */
		size_t mid = lo + (hi - lo) / 2;

		if (g->sw[mid].guid < cand->a.guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->n_sw && g->sw[lo].guid == cand->a.guid && cand->a.port >= 1 &&
	    cand->a.port <= g->sw[lo].nports &&
	    rt_graph_port(g, lo, cand->a.port)->kind == RT_PEER_SWITCH) {
		struct rt_cut cut = { (int32_t)lo, (uint8_t)cand->a.port };

		return rt_graph_without(g, &cut, 1, err, errlen);
	}
	if (!(f = fab_without(fab, o, cand))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g2 = rt_graph_new(f, err, errlen);
	fab_free(f);
	return g2;
}

/* What the routes lose without cand, against the floors of conf. */
int iso_loss_of(const struct iso_job *j, const struct iso_base *b, const struct fab *fab,
		   const struct iso_out *o, const struct iso_link *cand, struct iso_loss *x)
{
	const struct isolation_conf *c = &j->conf;
	struct rt_metrics_opts opts;
	char err[256];
	int incr = 0, rc;
	double t0 = clock_mono();

	memset(x, 0, sizeof(*x));
	if ((x->g = graph_without(b, fab, o, cand, err, sizeof(err))))
		x->g->pool = par_pool_new(0);  /* NULL: this thread alone */
	if (!x->g || !(x->l = rt_loss_reroute(b->g, b->l, x->g, rt_engine_find("loom"), &incr,
					      err, sizeof(err)))) {
		if (x->g)
			par_pool_free(x->g->pool);
		iso_loss_clear(x);
		x->refused = 1;
		snprintf(x->why, sizeof(x->why), "the routes without it cannot be computed: %.200s",
			 err);
		return 0;
	}
	rt_loss_opts(x->g, &opts);
	/* Only the destinations the reroute moved are walked again, on both
	 * sides (the kept graph lends the pool for its side). */
	b->g->pool = x->g->pool;
	rc = rt_loss_judge_after(b->g, b->l, b->unreachable, x->g, x->l, &opts, &x->jd);
	b->g->pool = NULL;
	if (rc == -EINVAL)  /* not graphs of the same hosts and LIDs */
		rc = rt_loss_judge(x->g, x->l, &opts, &x->jd);
	par_pool_free(x->g->pool);
	x->g->pool = NULL;  /* x->g may become the base (iso_base_take) */
	if (rc < 0) {
		iso_loss_clear(x);
		return -ENOMEM;
	}
	log_debug("isolation: 0x%016" PRIx64 "[%u]: the routes without it judged in %.0f ms",
		  cand->a.guid, cand->a.port, (clock_mono() - t0) * 1000.0);
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
void iso_base_take(struct iso_base *b, struct iso_loss *x)
{
	rt_lfts_free(b->l);
	rt_graph_free(b->g);
	b->g = x->g;
	b->l = x->l;
	x->g = NULL;
	x->l = NULL;
	judged_into(b, &x->jd);
}
