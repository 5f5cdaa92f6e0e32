/* lib/route/route_metrics.c: see route_metrics.h.
 *
 * All pairs are not walked one by one: every CA on the same switch starts
 * at that switch and follows the same entries, so one walk per (source
 * switch, destination CA) stands for all the CAs of that switch, weighted by
 * their number. That makes the all-pairs part O(leaf switches * n_ca * hops)
 * instead of O(n_ca^2 * hops). Permutations walk each flow.
 *
 * The channel dependencies are marked during that same walk, one bit per
 * (VL, channel, port of the switch the channel leads to), so a dependency
 * met by many pairs costs one bit, and each VL's graph is then searched
 * depth first for a cycle. Bisections walk each flow twice: once to load
 * the links, once to read the most loaded link of its path, which keeps
 * them O(n_ca * hops) without storing paths. */
#include "autoconf.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_cdg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum walk_result { WALK_DELIVERED, WALK_UNREACHABLE, WALK_LOOP };

/* Follow the tables from switch s toward CA dst. path[] gets the global
 * index of every switch output port used (room for n_sw + 1), *len their
 * number. */
static enum walk_result walk(const struct rt_graph *g, const struct rt_lfts *l, int32_t s,
			     size_t dst, uint32_t *path, size_t *len)
{
	unsigned lid = g->ca[dst].lid;

	*len = 0;
	while (s >= 0) {
		uint8_t p = rt_lfts_get(l, (size_t)s, lid);
		const struct rt_port *rp;

		if (p == RT_NO_PORT || p == 0 || p > g->sw[s].nports)
			return WALK_UNREACHABLE;
		if (*len >= g->n_sw)
			return WALK_LOOP;  /* about to visit switch n_sw + 1 */
		path[(*len)++] = (uint32_t)rt_graph_port_index(g, (size_t)s, p);
		rp = rt_graph_port(g, (size_t)s, p);
		if (rp->kind == RT_PEER_CA)
			return rp->peer == (int32_t)dst ? WALK_DELIVERED : WALK_UNREACHABLE;
		if (rp->kind != RT_PEER_SWITCH)
			return WALK_UNREACHABLE;
		s = rp->peer;
	}
	return WALK_UNREACHABLE;
}

/* splitmix64 (Vigna): tiny, seedable, and the same on every libc, so a
 * seed names one set of permutations everywhere (rand() would not). */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rt_metrics_shuffle(size_t *perm, size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	/* Fisher-Yates; the modulo bias is negligible for n << 2^64. */
	for (size_t i = n > 0 ? n - 1 : 0; i > 0; i--) {
		size_t j = (size_t)(splitmix64(seed) % (i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

struct scratch {
	uint32_t *path;        /* n_sw + 1 */
	uint32_t *count;       /* per switch port: flows of one permutation */
	uint32_t *touched;     /* ports count[] was raised on, to clear them */
	size_t *dst;           /* n_ca: the permutation */
};

/* Worst link load of one permutation: CA i sends to dst[i] (i: nothing).
 * Only the ports it raised are cleared afterwards, so a permutation costs
 * O(n_ca * hops), not O(ports). */
static size_t permutation_load(const struct rt_graph *g, const struct rt_lfts *l,
			       struct scratch *w)
{
	size_t worst = 0, len, n_touched = 0;

	for (size_t i = 0; i < g->n_ca; i++) {
		if (w->dst[i] == i || g->ca[i].sw < 0 ||
		    walk(g, l, g->ca[i].sw, w->dst[i], w->path, &len) != WALK_DELIVERED)
			continue;
		for (size_t h = 0; h < len; h++) {
			uint32_t p = w->path[h];

			if (w->count[p]++ == 0)
				w->touched[n_touched++] = p;
			if (w->count[p] > worst)
				worst = w->count[p];
		}
	}
	for (size_t t = 0; t < n_touched; t++)
		w->count[w->touched[t]] = 0;
	return worst;
}

/* The dependencies of one delivered path on VL v: each channel on the
 * next one. The VL's graph is made even for a one-hop path, which has
 * none: the VL is still used. */
static int cdg_mark(struct rt_cdg *c, uint8_t v, const uint32_t *path, size_t len)
{
	const struct rt_graph *g = c->g;

	if (rt_cdg_use(c, v) < 0)
		return -ENOMEM;
	for (size_t h = 0; h + 1 < len; h++) {
		const struct rt_port *rp = &g->ports[path[h]];

		rt_cdg_set(c, v, path[h], path[h + 1] - g->sw[rp->peer].first_port);
	}
	return 0;
}

static void deadlock_freedom(struct rt_cdg *c, struct rt_metrics *out)
{
	out->cdg_acyclic = 1;
	for (size_t v = 0; v < RT_CDG_VLS; v++) {
		if (!c->vl[v])
			continue;
		out->cdg_vls++;
		out->cdg_edges += rt_cdg_edges(c, (uint8_t)v);
		if (rt_cdg_cycle(c, (uint8_t)v, NULL, NULL))
			out->cdg_acyclic = 0;
	}
}

/* Every ordered pair, one walk per (source switch, destination CA). 0 or
 * -ENOMEM. */
static int all_pairs(const struct rt_graph *g, const struct rt_lfts *l, const uint32_t *n_at,
		     uint64_t *efi, uint32_t *path, struct rt_cdg *cdg, struct rt_metrics *out)
{
	size_t len;

	/* CAs on no switch: none of their pairs can be delivered. */
	for (size_t a = 0; a < g->n_ca; a++) {
		if (g->ca[a].sw < 0) {
			out->pairs += g->n_ca - 1;
			out->unreachable += g->n_ca - 1;
		}
	}
	for (size_t s = 0; s < g->n_sw; s++) {
		if (!n_at[s])
			continue;
		for (size_t b = 0; b < g->n_ca; b++) {
			size_t weight = n_at[s] - (g->ca[b].sw == (int32_t)s);

			if (!weight)
				continue;
			out->pairs += weight;
			switch (walk(g, l, (int32_t)s, b, path, &len)) {
			case WALK_DELIVERED:
				out->delivered += weight;
				if (len - 1 > out->max_hops)
					out->max_hops = len - 1;
				for (size_t h = 0; h < len; h++)
					efi[path[h]] += weight;
				if (cdg_mark(cdg, rt_lfts_sl(l, s, g->ca[b].lid), path, len) < 0)
					return -ENOMEM;
				break;
			case WALK_LOOP:
				out->loops += weight;
				break;
			default:
				out->unreachable += weight;
			}
		}
	}
	return 0;
}

static void edge_forwarding_index(const struct rt_graph *g, const uint64_t *efi,
				  struct rt_metrics *out)
{
	uint64_t total = 0;

	for (size_t s = 0; s < g->n_sw; s++) {
		for (unsigned p = 1; p <= g->sw[s].nports; p++) {
			size_t i = rt_graph_port_index(g, s, p);

			if (rt_graph_port(g, s, p)->kind == RT_PEER_NONE)
				continue;
			out->efi_links++;
			total += efi[i];
			if (efi[i] > out->efi_max)
				out->efi_max = (size_t)efi[i];
		}
	}
	out->efi_mean = out->efi_links ? (double)total / (double)out->efi_links : 0.0;
}

static void shifts(const struct rt_graph *g, const struct rt_lfts *l, size_t max_shifts,
		   struct scratch *w, struct rt_metrics *out)
{
	size_t n = g->n_ca, count = max_shifts && max_shifts < n - 1 ? max_shifts : n - 1;

	for (size_t j = 0; j < count; j++) {
		/* Evenly spread, distinct since count <= n - 1; j = 0 is k = 1. */
		size_t k = 1 + j * (n - 1) / count, load;

		for (size_t i = 0; i < n; i++)
			w->dst[i] = (i + k) % n;
		load = permutation_load(g, l, w);
		if (load > out->shift_max_load) {
			out->shift_max_load = load;
			out->shift_worst_k = k;
		}
	}
	out->shifts = count;
}

static void randoms(const struct rt_graph *g, const struct rt_lfts *l, unsigned n_random,
		    uint64_t seed, struct scratch *w, struct rt_metrics *out)
{
	size_t n = g->n_ca;
	double sq = 0;

	for (unsigned r = 0; r < n_random; r++) {
		size_t load;

		rt_metrics_shuffle(w->dst, n, &seed);
		load = permutation_load(g, l, w);
		if (load > out->random_max_load)
			out->random_max_load = load;
		out->random_mean_load += (double)load;
		sq += (double)load * (double)load;
		out->randoms++;
	}
	if (out->randoms) {
		double k = (double)out->randoms, mean = out->random_mean_load / k;
		double var = k > 1 ? (sq - k * mean * mean) / (k - 1) : 0;

		out->random_mean_load = mean;
		out->random_mean_se = var > 0 ? sqrt(var / k) : 0;
	}
}

/* The most flows on a link of the path from CA a to CA b (w->count loaded),
 * 0 if the flow is not delivered. */
static size_t flow_max_load(const struct rt_graph *g, const struct rt_lfts *l, size_t a,
			    size_t b, struct scratch *w, size_t *len)
{
	size_t worst = 1;  /* a's injection link carries its one flow */

	if (g->ca[a].sw < 0 || walk(g, l, g->ca[a].sw, b, w->path, len) != WALK_DELIVERED)
		return 0;
	for (size_t h = 0; h < *len; h++)
		if (w->count[w->path[h]] > worst)
			worst = w->count[w->path[h]];
	return worst;
}

/* Effective bisection bandwidth over n_bisect random bisections. w->dst
 * holds a shuffled list of the CAs: the first half sends to and receives
 * from the second. */
static void bisections(const struct rt_graph *g, const struct rt_lfts *l, unsigned n_bisect,
		       uint64_t seed, struct scratch *w, struct rt_metrics *out)
{
	size_t n = g->n_ca, half = n / 2, flows = 0;
	double sum = 0.0;

	for (unsigned r = 0; r < n_bisect; r++) {
		size_t n_touched = 0, len;

		rt_metrics_shuffle(w->dst, n, &seed);
		for (size_t f = 0; f < 2 * half; f++) {
			size_t a, b;

			rt_metrics_bisection_flow(w->dst, n, f, &a, &b);
			if (g->ca[a].sw < 0 ||
			    walk(g, l, g->ca[a].sw, b, w->path, &len) != WALK_DELIVERED)
				continue;
			for (size_t h = 0; h < len; h++)
				if (w->count[w->path[h]]++ == 0)
					w->touched[n_touched++] = w->path[h];
		}
		for (size_t f = 0; f < 2 * half; f++) {
			size_t a, b, worst;

			rt_metrics_bisection_flow(w->dst, n, f, &a, &b);
			worst = flow_max_load(g, l, a, b, w, &len);

			if (worst)
				sum += 1.0 / (double)worst;
		}
		flows += 2 * half;
		for (size_t t = 0; t < n_touched; t++)
			w->count[w->touched[t]] = 0;
		out->bisections++;
	}
	out->ebb = flows ? sum / (double)flows : 0.0;
}

int rt_metrics_compute(const struct rt_graph *g, const struct rt_lfts *l,
		       const struct rt_metrics_opts *opts, struct rt_metrics *out)
{
	struct scratch w = { 0 };
	struct rt_cdg cdg;
	uint64_t *efi = calloc(g->n_ports + 1, sizeof(*efi));
	uint32_t *n_at = calloc(g->n_sw + 1, sizeof(*n_at));
	int rc = 0;

	memset(out, 0, sizeof(*out));
	w.path = malloc((g->n_sw + 2) * sizeof(*w.path));
	w.count = calloc(g->n_ports + 1, sizeof(*w.count));
	w.touched = malloc((g->n_ports + 1) * sizeof(*w.touched));
	w.dst = malloc((g->n_ca + 1) * sizeof(*w.dst));
	if (rt_cdg_init(&cdg, g) < 0 || !efi || !n_at || !w.path || !w.count || !w.touched ||
	    !w.dst) {
		rc = -ENOMEM;
		goto out;
	}
	if (l->n_sw != g->n_sw || l->max_lid != g->max_lid) {
		rc = -EINVAL;
		goto out;
	}
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			n_at[g->ca[c].sw]++;
	if ((rc = all_pairs(g, l, n_at, efi, w.path, &cdg, out)) < 0)
		goto out;
	edge_forwarding_index(g, efi, out);
	deadlock_freedom(&cdg, out);
	if (g->n_ca > 1) {
		shifts(g, l, opts ? opts->max_shifts : 0, &w, out);
		if (opts) {
			randoms(g, l, opts->n_random, opts->seed, &w, out);
			bisections(g, l, opts->n_bisect, opts->seed, &w, out);
		}
	}
out:
	rt_cdg_free(&cdg);
	free(efi);
	free(n_at);
	free(w.path);
	free(w.count);
	free(w.touched);
	free(w.dst);
	return rc;
}
