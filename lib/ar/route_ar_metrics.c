/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/route_ar_metrics.c: adaptive routing groups judged (route_ar.h):
 * the channel dependency graph with every group member, and the effective
 * bisection bandwidth when flows spread over the groups.
 *
 * Dependencies. The metrics of route_metrics.c walk one path per pair; with
 * AR a packet may take any member at every switch, so the paths toward one
 * destination LID form a graph: the switches reached from the sources' own
 * switches by following every member. A channel c into a reached switch u
 * that some member of the previous switch takes depends on every member of
 * u. So per CA LID and per VL of its sources, one breadth-first search marks
 * the channels used and ORs u's member set, as a word-wide bit mask, into
 * c's dependency bits (bit base[c] + q: port q of the switch c leads to,
 * route_cdg.h's graphs, as route_metrics.c builds them). A dependency met
 * by many LIDs costs one bit; the graph of each VL is then searched depth
 * first, and the first cycle found is named. The CAs of one switch d mostly have the same
 * entries everywhere but at d (a fat tree's groups are per destination
 * switch): a CA whose entries (group or static port, and SLs) match, at
 * every other switch, those of one searched before on d, and that d hands
 * to its own port, has the same paths but for their last channel. Its
 * search is skipped: the channels into d that the earlier one took get the
 * dependency on its port instead. On a fat tree that is one search per
 * leaf, not per CA.
 *
 * Bandwidth. A flow's share is pushed hop by hop, level-synchronously: the
 * shares of the switches reached after h hops are split over their
 * members, and shares meeting at a switch at the same hop are merged (a
 * switch's choice does not depend on where a packet came from), so the
 * work is the channels the flow can use, not its paths (which multiply at
 * every level). Each flow is pushed once, its channels and shares kept
 * until it is known whole (a flow losing a share loads nothing, as an
 * undelivered path loads nothing in route_metrics.c), then its channels are
 * kept for the bisection so that, once every flow is loaded, the most
 * loaded channel of each is read without pushing it again: memory is the
 * channels all the flows of one bisection use, about 8 million on an
 * 11664-host 3-level tree in TREE mode (32 MB). */
#include "autoconf.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_cdg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ar_matches(const struct rt_graph *g, const struct rt_ar *ar)
{
	return ar->n_sw == g->n_sw && ar->max_lid == g->max_lid;
}

/* The members of (sw, lid) without copying a group: *m points at the group,
 * or at `one` holding the default port alone. Their number, 0 when the LID
 * is not routed there. lid <= ar->max_lid. */
static inline unsigned members(const struct rt_ar *ar, size_t sw, unsigned lid,
			       struct rt_ar_ports *one, const struct rt_ar_ports **m)
{
	const struct rt_ar_switch *s = &ar->sw[sw];
	uint16_t gr = s->group[lid];

	if (gr != RT_AR_NO_GROUP) {
		*m = &s->groups[gr];
		return rt_ar_ports_count(*m);
	}
	if (s->port[lid] == RT_NO_PORT)
		return 0;
	memset(one, 0, sizeof(*one));
	rt_ar_ports_add(one, s->port[lid]);
	*m = one;
	return 1;
}

/* Every port q of set m, lowest first, in the loop's body (continue goes
 * on to the next port; break would not leave the loop). */
#define FOR_EACH_PORT(m, q)							\
	for (unsigned fe_i_ = 0; fe_i_ < 4; fe_i_++)				\
		for (uint64_t fe_w_ = (m)->w[fe_i_]; fe_w_; fe_w_ &= fe_w_ - 1)	\
			for (unsigned q = fe_i_ * 64 + (unsigned)__builtin_ctzll(fe_w_), \
			     fe_once_ = 1; fe_once_; fe_once_ = 0)

/* ---- channel dependencies -------------------------------------------------------- */

/* The dependency graphs (route_cdg.h), and what the searches toward each
 * LID need besides. */
struct cdg {
	struct rt_cdg deps;
	uint32_t *owner;        /* per global port index: its switch */
	uint32_t *seen;         /* per switch: the search that reached it */
	uint32_t *queue;
	uint32_t stamp;
	uint32_t *ca_first, *ca_list;   /* the CAs of each switch */
};

/* A CA searched on its switch d, for others of d to share: the channels
 * into d its search took, each with its VL. */
#define REPS 4
struct rep {
	size_t ca;
	size_t n, cap;
	uint32_t *chan;
	uint8_t *vl;
};

static void cdg_free(struct cdg *c)
{
	rt_cdg_free(&c->deps);
	free(c->owner);
	free(c->seen);
	free(c->queue);
	free(c->ca_first);
	free(c->ca_list);
}

static int cdg_init(const struct rt_graph *g, struct cdg *c)
{
	memset(c, 0, sizeof(*c));
	c->owner = malloc((g->n_ports + 1) * sizeof(*c->owner));
	c->seen = calloc(g->n_sw + 1, sizeof(*c->seen));
	c->queue = malloc((g->n_sw + 1) * sizeof(*c->queue));
	c->ca_first = calloc(g->n_sw + 2, sizeof(*c->ca_first));
	c->ca_list = malloc((g->n_ca + 1) * sizeof(*c->ca_list));
	if (rt_cdg_init(&c->deps, g) < 0 || !c->owner || !c->seen || !c->queue ||
	    !c->ca_first || !c->ca_list)
		return -ENOMEM;
	for (size_t a = 0; a < g->n_ca; a++)
		if (g->ca[a].sw >= 0)
			c->ca_first[g->ca[a].sw + 1]++;
	for (size_t s = 0; s < g->n_sw; s++)
		c->ca_first[s + 1] += c->ca_first[s];
	for (size_t s = 0; s < g->n_sw; s++)
		c->queue[s] = c->ca_first[s];
	for (size_t a = 0; a < g->n_ca; a++)
		if (g->ca[a].sw >= 0)
			c->ca_list[c->queue[g->ca[a].sw]++] = (uint32_t)a;
	for (size_t s = 0; s < g->n_sw; s++)
		for (unsigned p = 0; p <= g->sw[s].nports; p++)
			c->owner[rt_graph_port_index(g, s, p)] = (uint32_t)s;
	return 0;
}

/* OR port set m into the dependency bits of channel chan on VL v (used),
 * a word at a time: chan depends on every member. */
static void cdg_or(struct rt_cdg *c, uint8_t v, size_t chan, const struct rt_ar_ports *m)
{
	size_t o = c->base[chan], w0 = o / 64;
	unsigned r = (unsigned)(o % 64);
	uint64_t *bits = c->vl[v];

	for (unsigned i = 0; i < 4; i++) {
		if (!m->w[i])
			continue;
		bits[w0 + i] |= m->w[i] << r;
		if (r)
			bits[w0 + i + 1] |= m->w[i] >> (64 - r);
	}
}

static int rep_add(struct rep *r, uint8_t v, size_t chan)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		uint32_t *ch = realloc(r->chan, cap * sizeof(*ch));
		uint8_t *vl;

		if (!ch)
			return -ENOMEM;
		r->chan = ch;
		if (!(vl = realloc(r->vl, cap)))
			return -ENOMEM;
		r->vl = vl;
		r->cap = cap;
	}
	r->chan[r->n] = (uint32_t)chan;
	r->vl[r->n++] = v;
	return 0;
}

/* The dependencies of every AR path toward lid from the switches in
 * from[0..n_from-1] (each holding a source CA), on VL v. With r, the
 * channels into switch dsw taken are added to it. */
static int cdg_search(const struct rt_graph *g, const struct rt_ar *ar, struct cdg *c,
		      uint8_t v, unsigned lid, const uint32_t *from, size_t n_from,
		      int32_t dsw, struct rep *r)
{
	size_t head = 0, tail = 0;

	if (++c->stamp == 0) {  /* wrapped: forget every mark */
		memset(c->seen, 0, g->n_sw * sizeof(*c->seen));
		c->stamp = 1;
	}
	for (size_t i = 0; i < n_from; i++) {
		if (c->seen[from[i]] != c->stamp) {
			c->seen[from[i]] = c->stamp;
			c->queue[tail++] = from[i];
		}
	}
	while (head < tail) {
		uint32_t u = c->queue[head++];
		const struct rt_ar_ports *m;
		struct rt_ar_ports one;

		if (!members(ar, u, lid, &one, &m))
			continue;
		FOR_EACH_PORT(m, q) {
			const struct rt_port *rp;
			const struct rt_ar_ports *next;
			struct rt_ar_ports one_next;
			size_t chan;

			if (q == 0 || q > g->sw[u].nports)
				continue;
			rp = rt_graph_port(g, u, q);
			if (rp->kind != RT_PEER_SWITCH)
				continue;  /* to a CA: nothing follows it */
			chan = rt_graph_port_index(g, u, q);
			if (members(ar, (size_t)rp->peer, lid, &one_next, &next)) {
				cdg_or(&c->deps, v, chan, next);
				if (r && rp->peer == dsw && rep_add(r, v, chan) < 0)
					return -ENOMEM;
			}
			if (c->seen[rp->peer] != c->stamp) {
				c->seen[rp->peer] = c->stamp;
				c->queue[tail++] = (uint32_t)rp->peer;
			}
		}
	}
	return 0;
}

/* Name channel chan ("'desc' port N", or the GUID without a description)
 * at the end of buf. */
static void name_channel(const struct rt_graph *g, const struct cdg *c, size_t chan, char *buf,
			 size_t len, const char *sep)
{
	const struct rt_switch *s = &g->sw[c->owner[chan]];
	size_t used = strlen(buf);
	unsigned port = (unsigned)(chan - s->first_port);

	if (used + 1 >= len)
		return;
	if (s->desc[0])
		snprintf(buf + used, len - used, "%s'%s' port %u", sep, s->desc, port);
	else
		snprintf(buf + used, len - used, "%s0x%016llx port %u", sep,
			 (unsigned long long)s->guid, port);
}

/* Does VL v's graph have a cycle? 1 with the first one found named in err. */
static int cdg_cycle(const struct rt_graph *g, struct cdg *c, uint8_t v, char *err,
		     size_t errlen)
{
	const uint32_t *chans;
	size_t n;

	if (!rt_cdg_cycle(&c->deps, v, &chans, &n))
		return 0;
	snprintf(err, errlen, "VL %u: ", v);
	for (size_t i = 0; i < n; i++)
		name_channel(g, c, chans[i], err, errlen, i == 0 ? "" : " -> ");
	name_channel(g, c, chans[0], err, errlen, " -> ");
	return 1;
}

/* Sources toward CA dst's LID grouped by VL: one search per VL that has
 * some. With r, the channels into dst's switch are kept there. */
static int cdg_lid(const struct rt_graph *g, const struct rt_lfts *l, const struct rt_ar *ar,
		   struct cdg *c, const uint32_t *n_at, size_t dst, uint32_t *from, struct rep *r)
{
	unsigned lid = g->ca[dst].lid;
	uint64_t vls[RT_CDG_VLS / 64] = { 0 };

	for (size_t s = 0; s < g->n_sw; s++)
		if (n_at[s] > (g->ca[dst].sw == (int32_t)s)) {
			uint8_t v = rt_lfts_sl(l, s, lid);

			vls[v / 64] |= 1ULL << (v % 64);
		}
	for (unsigned v = 0; v < RT_CDG_VLS; v++) {
		size_t n_from = 0;

		if (!(vls[v / 64] >> (v % 64) & 1))
			continue;
		for (size_t s = 0; s < g->n_sw; s++)
			if (n_at[s] > (g->ca[dst].sw == (int32_t)s) &&
			    rt_lfts_sl(l, s, lid) == v)
				from[n_from++] = (uint32_t)s;
		if (rt_cdg_use(&c->deps, (uint8_t)v) < 0)
			return -ENOMEM;
		if (cdg_search(g, ar, c, (uint8_t)v, lid, from, n_from, g->ca[dst].sw, r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Does CA a's switch hand a's LID to a, with no choice? */
static int ends_at_its_port(const struct rt_graph *g, const struct rt_ar *ar, size_t a)
{
	const struct rt_ar_switch *s = &ar->sw[g->ca[a].sw];
	unsigned lid = g->ca[a].lid;

	return s->group[lid] == RT_AR_NO_GROUP && s->port[lid] == g->ca[a].sw_port;
}

/* Do CAs a and b, both on switch d, have the same entries at every other
 * switch (and the same SLs from every source)? */
static int same_but_last(const struct rt_graph *g, const struct rt_lfts *l,
			 const struct rt_ar *ar, const uint32_t *n_at, size_t d, size_t a,
			 size_t b)
{
	unsigned x = g->ca[a].lid, y = g->ca[b].lid;

	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rt_ar_switch *sw = &ar->sw[s];

		if (s == d)
			continue;
		if (sw->group[x] != sw->group[y] ||
		    (sw->group[x] == RT_AR_NO_GROUP && sw->port[x] != sw->port[y]))
			return 0;
		if (l->sl && n_at[s] && rt_lfts_sl(l, s, x) != rt_lfts_sl(l, s, y))
			return 0;
	}
	return l->sl == NULL || !n_at[d] || rt_lfts_sl(l, d, x) == rt_lfts_sl(l, d, y);
}

/* Every CA of switch d: searched, or sharing the search of an earlier one. */
static int cdg_switch(const struct rt_graph *g, const struct rt_lfts *l, const struct rt_ar *ar,
		      struct cdg *c, const uint32_t *n_at, size_t d, uint32_t *from,
		      struct rep *reps)
{
	size_t n_reps = 0;

	for (uint32_t k = c->ca_first[d]; k < c->ca_first[d + 1]; k++) {
		size_t b = c->ca_list[k];
		int plain;
		size_t i;

		if (!g->ca[b].lid || g->ca[b].lid > g->max_lid)
			continue;
		plain = ends_at_its_port(g, ar, b);
		for (i = 0; plain && i < n_reps; i++)
			if (same_but_last(g, l, ar, n_at, d, reps[i].ca, b))
				break;
		if (plain && i < n_reps) {
			for (size_t t = 0; t < reps[i].n; t++)
				rt_cdg_set(&c->deps, reps[i].vl[t], reps[i].chan[t],
					   g->ca[b].sw_port);
			continue;
		}
		if (plain && n_reps < REPS) {
			reps[n_reps].ca = b;
			reps[n_reps].n = 0;
			if (cdg_lid(g, l, ar, c, n_at, b, from, &reps[n_reps++]) < 0)
				return -ENOMEM;
		} else if (cdg_lid(g, l, ar, c, n_at, b, from, NULL) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

int rt_ar_cdg_check(const struct rt_graph *g, const struct rt_lfts *l, const struct rt_ar *ar,
		    size_t *edges, size_t *vls, char *err, size_t errlen)
{
	struct cdg c;
	uint32_t *n_at = calloc(g->n_sw + 1, sizeof(*n_at));
	uint32_t *from = malloc((g->n_sw + 1) * sizeof(*from));
	struct rep reps[REPS];
	size_t n_edges = 0, n_vls = 0;
	int rc = 0;

	memset(reps, 0, sizeof(reps));
	if (cdg_init(g, &c) < 0 || !n_at || !from) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for the channel dependency graph");
		goto out;
	}
	if (!ar_matches(g, ar) || l->n_sw != g->n_sw || l->max_lid != g->max_lid) {
		rc = -EINVAL;
		snprintf(err, errlen, "groups or tables made for another graph");
		goto out;
	}
	for (size_t a = 0; a < g->n_ca; a++)
		if (g->ca[a].sw >= 0)
			n_at[g->ca[a].sw]++;
	/* CAs cabled to no switch first (nothing reaches them), then switch
	 * by switch. */
	for (size_t b = 0; b < g->n_ca && rc == 0; b++)
		if (g->ca[b].sw < 0 && g->ca[b].lid && g->ca[b].lid <= g->max_lid)
			rc = cdg_lid(g, l, ar, &c, n_at, b, from, NULL);
	for (size_t d = 0; d < g->n_sw && rc == 0; d++)
		rc = cdg_switch(g, l, ar, &c, n_at, d, from, reps);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory for the channel dependency graph");
		goto out;
	}
	for (unsigned v = 0; v < RT_CDG_VLS; v++) {
		if (!c.deps.vl[v])
			continue;
		n_vls++;
		n_edges += rt_cdg_edges(&c.deps, (uint8_t)v);
	}
	for (unsigned v = 0; v < RT_CDG_VLS && rc == 0; v++)
		if (cdg_cycle(g, &c, (uint8_t)v, err, errlen))
			rc = -EDEADLK;
	if (edges)
		*edges = n_edges;
	if (vls)
		*vls = n_vls;
out:
	for (size_t i = 0; i < REPS; i++) {
		free(reps[i].chan);
		free(reps[i].vl);
	}
	cdg_free(&c);
	free(n_at);
	free(from);
	return rc;
}

/* ---- effective bisection bandwidth ----------------------------------------------------- */

struct share {
	uint32_t chan;
	double part;
};

struct spread {
	double *load;           /* per channel (global port index) */
	uint32_t *touched;      /* channels load[] was raised on */
	size_t n_touched;
	double *at[2];          /* per switch: share reaching it this hop / the next */
	uint32_t *mark[2];      /* per switch: the hop stamp it is queued for */
	uint32_t *front[2];     /* the switches of this hop / the next */
	uint32_t stamp;
	struct share *used;     /* the current flow's channels and shares */
	size_t n_used, cap_used;
	uint32_t *chans;        /* the channels of the bisection's whole flows */
	size_t n_chans, cap_chans;
	size_t *end;            /* per flow: the end of its channels in chans */
	uint8_t *whole;         /* per flow: it arrives whole */
};

static void spread_free(struct spread *w)
{
	free(w->load);
	free(w->touched);
	for (int i = 0; i < 2; i++) {
		free(w->at[i]);
		free(w->mark[i]);
		free(w->front[i]);
	}
	free(w->used);
	free(w->chans);
	free(w->end);
	free(w->whole);
}

static int spread_init(const struct rt_graph *g, struct spread *w)
{
	size_t n = g->n_sw + 1;

	memset(w, 0, sizeof(*w));
	w->load = calloc(g->n_ports + 1, sizeof(*w->load));
	w->touched = malloc((g->n_ports + 1) * sizeof(*w->touched));
	w->end = malloc((g->n_ca + 1) * sizeof(*w->end));
	w->whole = malloc(g->n_ca + 1);
	for (int i = 0; i < 2; i++) {
		w->at[i] = calloc(n, sizeof(double));
		w->mark[i] = calloc(n, sizeof(uint32_t));
		w->front[i] = malloc(n * sizeof(uint32_t));
		if (!w->at[i] || !w->mark[i] || !w->front[i])
			return -ENOMEM;
	}
	return w->load && w->touched && w->end && w->whole ? 0 : -ENOMEM;
}

static int note_use(struct spread *w, size_t chan, double part)
{
	if (w->n_used == w->cap_used) {
		size_t cap = w->cap_used ? 2 * w->cap_used : 256;
		struct share *u = realloc(w->used, cap * sizeof(*u));

		if (!u)
			return -ENOMEM;
		w->used = u;
		w->cap_used = cap;
	}
	w->used[w->n_used++] = (struct share){ (uint32_t)chan, part };
	return 0;
}

/* Keep the current flow's channels for the bisection's second pass. */
static int keep_channels(struct spread *w)
{
	if (w->n_chans + w->n_used > w->cap_chans) {
		size_t cap = w->cap_chans ? w->cap_chans : 4096;
		uint32_t *c;

		while (cap < w->n_chans + w->n_used)
			cap *= 2;
		if (!(c = realloc(w->chans, cap * sizeof(*c))))
			return -ENOMEM;
		w->chans = c;
		w->cap_chans = cap;
	}
	for (size_t i = 0; i < w->n_used; i++)
		w->chans[w->n_chans++] = w->used[i].chan;
	return 0;
}

static uint32_t next_stamp(const struct rt_graph *g, struct spread *w)
{
	if (++w->stamp == 0) {
		for (int i = 0; i < 2; i++)
			memset(w->mark[i], 0, g->n_sw * sizeof(uint32_t));
		w->stamp = 1;
	}
	return w->stamp;
}

/* Push flow a -> b through the groups: w->used gets every (channel, share)
 * it takes. 1 when all of it reaches b, 0 when a share is lost, -ENOMEM. */
static int push_flow(const struct rt_graph *g, const struct rt_ar *ar, struct spread *w,
		     size_t a, size_t b)
{
	unsigned lid = g->ca[b].lid;
	size_t n_cur = 1, hop;
	int cur = 0, whole = 1;

	w->n_used = 0;
	if (g->ca[a].sw < 0)
		return 0;
	w->front[cur][0] = (uint32_t)g->ca[a].sw;
	w->at[cur][g->ca[a].sw] = 1.0;
	w->mark[cur][g->ca[a].sw] = next_stamp(g, w);
	for (hop = 0; n_cur > 0; hop++) {
		int nx = !cur;
		uint32_t st = next_stamp(g, w);
		size_t n_next = 0;

		for (size_t i = 0; i < n_cur; i++) {
			uint32_t u = w->front[cur][i];
			double x = w->at[cur][u], part;
			const struct rt_ar_ports *m;
			struct rt_ar_ports one;
			unsigned k;

			w->at[cur][u] = 0.0;
			w->mark[cur][u] = 0;
			/* A packet visits at most every switch once (the walk of
			 * route_metrics.c counts a longer one as a loop). */
			if (hop >= g->n_sw || lid > ar->max_lid || !(k = members(ar, u, lid, &one, &m))) {
				whole = 0;
				continue;
			}
			part = x / k;
			FOR_EACH_PORT(m, q) {
				const struct rt_port *rp;

				if (q == 0 || q > g->sw[u].nports) {
					whole = 0;  /* to the switch itself, or no such port */
					continue;
				}
				if (note_use(w, rt_graph_port_index(g, u, q), part) < 0)
					return -ENOMEM;
				rp = rt_graph_port(g, u, q);
				if (rp->kind == RT_PEER_CA) {
					whole &= rp->peer == (int32_t)b;
				} else if (rp->kind != RT_PEER_SWITCH) {
					whole = 0;
				} else {
					if (w->mark[nx][rp->peer] != st) {
						w->mark[nx][rp->peer] = st;
						w->front[nx][n_next++] = (uint32_t)rp->peer;
					}
					w->at[nx][rp->peer] += part;
				}
			}
		}
		cur = nx;
		n_cur = n_next;
	}
	return whole;
}

int rt_ar_ebb(const struct rt_graph *g, const struct rt_ar *ar,
	      const struct rt_metrics_opts *opts, double *ebb)
{
	size_t n = g->n_ca, half = n / 2, flows = 0;
	uint64_t seed = opts ? opts->seed : 0;
	unsigned n_bisect = opts && n > 1 ? opts->n_bisect : 0;
	size_t *perm = malloc((n + 1) * sizeof(*perm));
	struct spread w;
	double sum = 0.0;
	int rc = 0;

	*ebb = 0.0;
	if (spread_init(g, &w) < 0 || !perm) {
		rc = -ENOMEM;
		goto out;
	}
	if (!ar_matches(g, ar)) {
		rc = -EINVAL;
		goto out;
	}
	for (unsigned r = 0; r < n_bisect && rc == 0; r++) {
		rt_metrics_shuffle(perm, n, &seed);
		/* Load: only flows that arrive whole, as only delivered paths
		 * load the links in route_metrics.c. */
		w.n_chans = 0;
		for (size_t f = 0; f < 2 * half && rc == 0; f++) {
			size_t a, b;

			rt_metrics_bisection_flow(perm, n, f, &a, &b);
			rc = push_flow(g, ar, &w, a, b);
			w.whole[f] = rc == 1;
			if (rc == 1 && (rc = keep_channels(&w)) == 0) {
				for (size_t i = 0; i < w.n_used; i++) {
					uint32_t c = w.used[i].chan;

					if (w.load[c] == 0.0)
						w.touched[w.n_touched++] = c;
					w.load[c] += w.used[i].part;
				}
			}
			w.end[f] = w.n_chans;
			rc = rc < 0 ? rc : 0;
		}
		/* Summed per bisection, then over them in order, as
		 * route_metrics.c does: the same flows give the same sum. */
		double part = 0.0;

		for (size_t f = 0; f < 2 * half && rc == 0; f++) {
			double worst = 1.0;  /* its injection link carries it whole */

			if (!w.whole[f])
				continue;
			for (size_t i = f ? w.end[f - 1] : 0; i < w.end[f]; i++)
				if (w.load[w.chans[i]] > worst)
					worst = w.load[w.chans[i]];
			part += 1.0 / worst;
		}
		sum += part;
		flows += 2 * half;
		for (size_t t = 0; t < w.n_touched; t++)
			w.load[w.touched[t]] = 0.0;
		w.n_touched = 0;
	}
	if (rc == 0)
		*ebb = flows ? sum / (double)flows : 0.0;
out:
	spread_free(&w);
	free(perm);
	return rc;
}
