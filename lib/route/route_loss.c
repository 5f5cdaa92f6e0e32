/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_loss.c: see route_loss.h. */
#include "autoconf.h"
#include "lib/route/route_loss.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Few enough draws that judging an 11664-host tree twice stays well under
 * a routing run; the same seed for both sides of the comparison. */
#define LOSS_SHIFTS 64
#define LOSS_BISECT 8
#define LOSS_SEED 0x6c6f6f6dULL

void rt_loss_opts(const struct rt_graph *g, struct rt_metrics_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = LOSS_SEED;
	o->n_bisect = LOSS_BISECT;
	if (g->n_ca > LOSS_SHIFTS + 1) {
		o->max_shifts = LOSS_SHIFTS;
		o->sample_shifts = 1;
	}
}

int rt_loss_paths(const struct rt_graph *g, struct rt_judged *out)
{
	uint16_t *level = calloc(g->n_sw ? g->n_sw : 1, sizeof(*level));
	int32_t *order = calloc(g->n_sw ? g->n_sw : 1, sizeof(*order));
	int32_t *leaf_of = NULL, *leaves = NULL;
	uint64_t *down = NULL, *reach = NULL;
	size_t *cnt = NULL, n_leaves = 0, words, n_order;
	int rc = -ENOMEM;

	out->min_paths = SIZE_MAX;
	out->min_a = out->min_b = -1;
	out->tree = 0;
	if (!level || !order)
		goto out;
	if ((rc = rt_graph_tree_levels(g, level, order)) < 0) {
		rc = rc == -EINVAL ? 0 : rc;   /* no tree: no floor to compute */
		goto out;
	}
	out->tree = 1;
	rc = -ENOMEM;
	if (!(leaf_of = malloc(g->n_sw * sizeof(*leaf_of))) ||
	    !(leaves = malloc(g->n_sw * sizeof(*leaves))))
		goto out;
	for (size_t s = 0; s < g->n_sw; s++) {
		leaf_of[s] = -1;
		if (level[s] == 0) {
			leaf_of[s] = (int32_t)n_leaves;
			leaves[n_leaves++] = (int32_t)s;
		}
	}
	words = (n_leaves + 63) / 64;
	if (n_leaves < 2) {
		rc = 0;
		goto out;
	}
	if (!(down = calloc(g->n_sw * words, sizeof(*down))) ||
	    !(reach = calloc(g->n_sw * words, sizeof(*reach))) ||
	    !(cnt = malloc(n_leaves * sizeof(*cnt))))
		goto out;
	for (size_t s = 0; s < g->n_sw; s++)
		if (leaf_of[s] >= 0)
			down[s * words + (size_t)leaf_of[s] / 64] |= 1ULL << (leaf_of[s] % 64);
	/* The levels are a breadth-first order: children before parents. */
	n_order = 0;
	for (size_t s = 0; s < g->n_sw; s++)
		n_order += level[s] != RT_NO_LEVEL;
	for (size_t i = 0; i < n_order; i++) {
		size_t s = (size_t)order[i];

		for (uint32_t k = 0; k < g->sw[s].n_links; k++) {
			const struct rt_link *lk = &g->links[g->sw[s].first_link + k];
			size_t p = (size_t)lk->peer;

			if (level[p] == level[s] + 1)
				for (size_t w = 0; w < words; w++)
					down[p * words + w] |= down[s * words + w];
		}
	}
	/* reach(s) = down(s) and the reach of its parents: parents first. */
	for (size_t i = n_order; i-- > 0;) {
		size_t s = (size_t)order[i];

		for (size_t w = 0; w < words; w++)
			reach[s * words + w] |= down[s * words + w];
		for (uint32_t k = 0; k < g->sw[s].n_links; k++) {
			const struct rt_link *lk = &g->links[g->sw[s].first_link + k];
			size_t p = (size_t)lk->peer;

			if (level[p] == level[s] + 1)
				for (size_t w = 0; w < words; w++)
					reach[s * words + w] |= reach[p * words + w];
		}
	}
	for (size_t ai = 0; ai < n_leaves; ai++) {
		size_t a = (size_t)leaves[ai];

		memset(cnt, 0, n_leaves * sizeof(*cnt));
		for (uint32_t k = 0; k < g->sw[a].n_links; k++) {
			const struct rt_link *lk = &g->links[g->sw[a].first_link + k];
			const uint64_t *r = &reach[(size_t)lk->peer * words];

			if (level[lk->peer] != 1)
				continue;
			for (size_t b = 0; b < n_leaves; b++)
				cnt[b] += (r[b / 64] >> (b % 64)) & 1;
		}
		for (size_t b = 0; b < n_leaves; b++)
			if (b != ai && cnt[b] < out->min_paths) {
				out->min_paths = cnt[b];
				out->min_a = (int32_t)a;
				out->min_b = leaves[b];
			}
	}
	rc = 0;
out:
	free(level);
	free(order);
	free(leaf_of);
	free(leaves);
	free(down);
	free(reach);
	free(cnt);
	return rc;
}

int rt_loss_judge(const struct rt_graph *g, const struct rt_lfts *l,
		  const struct rt_metrics_opts *o, struct rt_judged *out)
{
	struct rt_metrics m;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = rt_metrics_compute(g, l, o, &m)) < 0)
		return rc;
	out->pairs = m.pairs;
	out->unreachable = m.unreachable + m.loops;
	out->shift_max_load = m.shift_max_load;
	out->ebb = m.ebb;
	return rt_loss_paths(g, out);
}

/* The CAs whose walks may differ between (g, l) and (g2, l2): flagged in
 * dst; their number, or -EINVAL when g2 has not g's switches, CAs and
 * LIDs. */
static long moved_destinations(const struct rt_graph *g, const struct rt_lfts *l,
			       const struct rt_graph *g2, const struct rt_lfts *l2, uint8_t *dst)
{
	size_t row = (size_t)l->max_lid + 1;
	long n = 0;

	if (g->n_sw != g2->n_sw || g->n_ca != g2->n_ca || g->n_ports != g2->n_ports ||
	    g->max_lid != g2->max_lid || l->n_sw != g->n_sw || l2->n_sw != g->n_sw ||
	    l->max_lid != g->max_lid || l2->max_lid != g->max_lid)
		return -EINVAL;
	for (size_t s = 0; s < g->n_sw; s++)
		if (g->sw[s].lid != g2->sw[s].lid || g->sw[s].nports != g2->sw[s].nports ||
		    g->sw[s].first_port != g2->sw[s].first_port)
			return -EINVAL;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].lid != g2->ca[c].lid || g->ca[c].sw != g2->ca[c].sw ||
		    g->ca[c].sw_port != g2->ca[c].sw_port)
			return -EINVAL;
	for (size_t s = 0; s < g->n_sw; s++) {
		const uint8_t *a = l->port + s * row, *b = l2->port + s * row;
		int cut = 0;

		for (unsigned p = 1; p <= g->sw[s].nports && !cut; p++) {
			const struct rt_port *x = rt_graph_port(g, s, p), *y = rt_graph_port(g2, s, p);

			cut = x->kind != y->kind || x->peer != y->peer || x->peer_port != y->peer_port;
		}
		if (!cut && !memcmp(a, b, row))
			continue;
		for (size_t c = 0; c < g->n_ca; c++) {
			unsigned lid = g->ca[c].lid;
			const struct rt_port *x, *y;

			if (dst[c])
				continue;
			if (a[lid] != b[lid]) {
				dst[c] = 1;
			} else if (cut && b[lid] != RT_NO_PORT && b[lid] && b[lid] <= g->sw[s].nports) {
				x = rt_graph_port(g, s, b[lid]);
				y = rt_graph_port(g2, s, b[lid]);
				dst[c] = x->kind != y->kind || x->peer != y->peer ||
					 x->peer_port != y->peer_port;
			}
			n += dst[c];
		}
	}
	return n;
}

int rt_loss_judge_after(const struct rt_graph *g, const struct rt_lfts *l, size_t unreachable,
			const struct rt_graph *g2, const struct rt_lfts *l2,
			const struct rt_metrics_opts *o, struct rt_judged *out)
{
	struct rt_metrics_opts before = { .no_permutations = 1 }, after = *o;
	struct rt_metrics mb, ma;
	uint8_t *dst = calloc(g->n_ca + 1, 1);
	long moved;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!dst)
		return -ENOMEM;
	if ((moved = moved_destinations(g, l, g2, l2, dst)) < 0) {
		free(dst);
		return (int)moved;
	}
	before.dst_only = after.dst_only = dst;
	mb.unreachable = mb.loops = 0;
	if ((moved && (rc = rt_metrics_compute(g, l, &before, &mb)) < 0) ||
	    (rc = rt_metrics_compute(g2, l2, &after, &ma)) < 0) {
		free(dst);
		return rc;
	}
	free(dst);
	if (mb.unreachable + mb.loops > unreachable)
		return -EINVAL;  /* not l's judgement */
	out->pairs = g2->n_ca > 1 ? g2->n_ca * (g2->n_ca - 1) : 0;
	out->unreachable = unreachable - (mb.unreachable + mb.loops) + ma.unreachable + ma.loops;
	out->shift_max_load = ma.shift_max_load;
	out->ebb = ma.ebb;
	return rt_loss_paths(g2, out);
}

struct rt_lfts *rt_loss_reroute(const struct rt_graph *g, const struct rt_lfts *l,
				const struct rt_graph *g2, const struct rt_engine *engine,
				int *incremental, char *err, size_t errlen)
{
	struct rt_lfts *out = rt_lfts_new(g2);
	struct rt_reroute_stats st;
	char why[200];

	*incremental = 0;
	if (!out) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (l && rt_reroute(g, l, g2, out, &st, why, sizeof(why)) == 0) {
		*incremental = 1;
		return out;
	}
	memset(out->port, RT_NO_PORT, out->n_sw * ((size_t)out->max_lid + 1));
	if (engine->route(g2, out, err, errlen) < 0) {
		rt_lfts_free(out);
		return NULL;
	}
	return out;
}
