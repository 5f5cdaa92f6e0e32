/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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
 * them O(n_ca * hops) without storing paths.
 *
 * With SL-to-VL tables, each hop's VL is looked up (the sending port's
 * table, by the port the path entered that switch): a dependency within a
 * VL is a bit as above, one across VLs a bit of a 16 x 16 matrix of
 * crossings. Per VL graphs then judge exactly when the crossings never lead
 * back to a VL (a cycle through (channel, VL) nodes cannot leave its VL and
 * come back); when they do, the tables are judged cyclic. The first hop's
 * VL depends on the CA port the path came in by: a switch whose CA ports
 * all have the same tables is walked once for all of them, else once per
 * CA port. */
#include "autoconf.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_cdg.h"
#include "lib/route/route_sl2vl.h"
#include "lib/util/par.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum rt_walk_result rt_walk(const struct rt_graph *g, const struct rt_lfts *l, int32_t s,
			    size_t dst, uint32_t *path, size_t *len)
{
	unsigned lid = g->ca[dst].lid;

	*len = 0;
	while (s >= 0) {
		uint8_t p = rt_lfts_get(l, (size_t)s, lid);
		const struct rt_port *rp;

		if (p == RT_NO_PORT || p == 0 || p > g->sw[s].nports)
			return RT_WALK_UNREACHABLE;
		if (*len >= g->n_sw)
			return RT_WALK_LOOP;  /* about to visit switch n_sw + 1 */
		path[(*len)++] = (uint32_t)rt_graph_port_index(g, (size_t)s, p);
		rp = rt_graph_port(g, (size_t)s, p);
		if (rp->kind == RT_PEER_CA)
			return rp->peer == (int32_t)dst ? RT_WALK_DELIVERED : RT_WALK_UNREACHABLE;
		if (rp->kind != RT_PEER_SWITCH)
			return RT_WALK_UNREACHABLE;
		s = rp->peer;
	}
	return RT_WALK_UNREACHABLE;
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

/* splitmix64 advances its state by this constant per draw, so the state
 * after any number of draws is known without drawing: the r-th random
 * permutation (or bisection) of a run starts from the seed advanced by the
 * n - 1 draws of each shuffle before it, and threads can take any r. */
#define SPLITMIX_STEP 0x9e3779b97f4a7c15ULL

static uint64_t seed_after(uint64_t seed, size_t shuffles, size_t n)
{
	return seed + (uint64_t)shuffles * (uint64_t)(n > 1 ? n - 1 : 0) * SPLITMIX_STEP;
}

/* One worker's share: its scratch and what it found, merged in worker
 * order by rules that do not depend on who did what (sums, maxima, the
 * lowest k). */
struct part {
	uint32_t *path;        /* n_sw + 1 */
	uint32_t *count;       /* per switch port: flows of one permutation */
	uint32_t *touched;     /* ports count[] was raised on, to clear them */
	size_t *dst;           /* n_ca: the permutation */
	uint64_t *efi;         /* per switch port */
	uint8_t vl_used[RT_CDG_VLS];
	uint8_t *vl;           /* n_sw + 1: the VL of each hop of a path */
	size_t pairs, delivered, unreachable, loops, max_hops;
	size_t shift_max, shift_k;
	size_t rand_max;
	uint64_t rand_sum, rand_sq;
	int nomem;
};

struct job {
	const struct rt_graph *g;
	const struct rt_lfts *l;
	const struct rt_metrics_opts *opts;
	const uint32_t *n_at;  /* CAs per switch */
	struct rt_cdg *cdg;
	/* With opts->sl2vl: the CA ports of each switch (ca_in[ca_first[s] ..
	 * ca_first[s + 1]]: their switch port numbers), 1 port only when their
	 * tables are all the same; crossings[a] bit b: a dependency from VL a
	 * to VL b, set atomically. */
	uint32_t *ca_first;
	uint8_t *ca_in;
	uint16_t crossings[RT_SLS];
	struct part *part;     /* one per worker */
	const size_t *ks;      /* the shifts evaluated */
	double *bisect_sum;    /* per bisection: the sum over its flows */
};

static void part_free(struct part *w)
{
	free(w->path);
	free(w->count);
	free(w->touched);
	free(w->dst);
	free(w->efi);
	free(w->vl);
}

static int part_init(struct part *w, const struct rt_graph *g)
{
	memset(w, 0, sizeof(*w));
	w->path = malloc((g->n_sw + 2) * sizeof(*w->path));
	w->count = calloc(g->n_ports + 1, sizeof(*w->count));
	w->touched = malloc((g->n_ports + 1) * sizeof(*w->touched));
	w->dst = malloc((g->n_ca + 1) * sizeof(*w->dst));
	w->efi = calloc(g->n_ports + 1, sizeof(*w->efi));
	w->vl = malloc(g->n_sw + 2);
	return w->path && w->count && w->touched && w->dst && w->efi && w->vl ? 0 : -ENOMEM;
}

/* Worst link load of one permutation: CA i sends to dst[i] (i: nothing).
 * Only the ports it raised are cleared afterwards, so a permutation costs
 * O(n_ca * hops), not O(ports). */
static size_t permutation_load(const struct rt_graph *g, const struct rt_lfts *l,
			       struct part *w)
{
	size_t worst = 0, len, n_touched = 0;

	for (size_t i = 0; i < g->n_ca; i++) {
		if (w->dst[i] == i || g->ca[i].sw < 0 ||
		    rt_walk(g, l, g->ca[i].sw, w->dst[i], w->path, &len) != RT_WALK_DELIVERED)
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

/* The dependencies of one delivered path on VL v (made before the pairs
 * are walked): each channel on the next one. The bitmap is shared by the
 * workers: a bit is read first, and only a missing one is set, atomically
 * (nearly every dependency is met by many pairs). */
static void cdg_mark(struct rt_cdg *c, uint8_t v, const uint32_t *path, size_t len)
{
	const struct rt_graph *g = c->g;

	for (size_t h = 0; h + 1 < len; h++) {
		const struct rt_port *rp = &g->ports[path[h]];
		size_t bit = c->base[path[h]] + (path[h + 1] - g->sw[rp->peer].first_port);
		uint64_t *word = &c->vl[v][bit / 64], mask = 1ULL << (bit % 64);

		if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & mask))
			__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
	}
}

/* One dependency, channel path[h] on VL a then path[h + 1] on VL b. A VL
 * that drops the SL (RT_VL_DROP) ends the path there: no dependency. */
static void cdg_dep(const struct job *jb, struct part *w, const uint32_t *path, size_t h,
		    uint8_t a, uint8_t b)
{
	struct rt_cdg *c = jb->cdg;
	const struct rt_port *rp = &c->g->ports[path[h]];
	size_t bit;
	uint64_t *word, mask;

	if (a == RT_VL_DROP || b == RT_VL_DROP)
		return;
	w->vl_used[a] = w->vl_used[b] = 1;
	if (a != b) {
		uint16_t *m = (uint16_t *)&jb->crossings[a];

		if (!(__atomic_load_n(m, __ATOMIC_RELAXED) & (1u << b)))
			__atomic_fetch_or(m, (uint16_t)(1u << b), __ATOMIC_RELAXED);
		return;
	}
	bit = c->base[path[h]] + (path[h + 1] - c->g->sw[rp->peer].first_port);
	word = &c->vl[a][bit / 64];
	mask = 1ULL << (bit % 64);
	if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & mask))
		__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
}

/* The dependencies of one delivered path of SL sl from switch s, each hop
 * on the VL the SL-to-VL tables give it. The last hop, to the CA, is
 * followed by nothing and so closes no loop whatever its VL (loomd reads no
 * table toward CAs): it counts on the VL of the hop before it. */
static void cdg_mark_vls(const struct job *jb, struct part *w, size_t s, uint8_t sl,
			 const uint32_t *path, size_t len)
{
	const struct rt_graph *g = jb->g;
	const struct rt_sl2vl *t = jb->opts->sl2vl;
	unsigned out0 = path[0] - g->sw[s].first_port;

	for (size_t h = 1; h < len; h++) {
		const struct rt_port *rp = &g->ports[path[h - 1]];

		w->vl[h] = h + 1 == len && h > 1 ? w->vl[h - 1] :
			   rt_sl2vl_vl(t, (size_t)rp->peer, rp->peer_port,
				       path[h] - g->sw[rp->peer].first_port, sl);
	}
	for (size_t h = 1; h + 1 < len; h++)
		cdg_dep(jb, w, path, h, w->vl[h], w->vl[h + 1]);
	for (uint32_t i = jb->ca_first[s]; i < jb->ca_first[s + 1]; i++) {
		uint8_t v0 = rt_sl2vl_vl(t, s, jb->ca_in[i], out0, sl);

		if (len > 1)
			cdg_dep(jb, w, path, 0, v0, len == 2 ? v0 : w->vl[1]);
		else if (v0 != RT_VL_DROP)
			w->vl_used[v0] = 1;
	}
}

/* Is there a way from some VL back to itself over the crossings? */
static int crossings_loop(const uint16_t m[RT_SLS])
{
	uint16_t reach[RT_SLS];

	memcpy(reach, m, sizeof(reach));
	for (unsigned k = 0; k < RT_SLS; k++)  /* transitive closure, Warshall */
		for (unsigned i = 0; i < RT_SLS; i++)
			if (reach[i] >> k & 1)
				reach[i] |= reach[k];
	for (unsigned i = 0; i < RT_SLS; i++)
		if (reach[i] >> i & 1)
			return 1;
	return 0;
}

static void deadlock_freedom(struct rt_cdg *c, const struct job *jb, struct rt_metrics *out)
{
	out->cdg_acyclic = 1;
	out->cdg_cycle_vl = -1;
	out->cdg_sl2vl = jb->opts->sl2vl != NULL;
	for (size_t v = 0; v < RT_CDG_VLS; v++) {
		const uint32_t *chans;
		size_t n;

		if (!c->vl[v])
			continue;
		out->cdg_vls++;
		out->cdg_edges += rt_cdg_edges(c, (uint8_t)v);
		if (!rt_cdg_cycle(c, (uint8_t)v, &chans, &n))
			continue;
		out->cdg_acyclic = 0;
		if (out->cdg_cycle_vl < 0) {
			out->cdg_cycle_vl = (int)v;
			out->cdg_cycle_len = n;
			memcpy(out->cdg_cycle, chans, (n < RT_METRICS_CYCLE_MAX ? n :
			       RT_METRICS_CYCLE_MAX) * sizeof(*chans));
		}
	}
	for (unsigned a = 0; a < RT_SLS; a++)
		out->cdg_vl_changes += (size_t)__builtin_popcount(jb->crossings[a]);
	if (crossings_loop(jb->crossings)) {
		out->cdg_vl_loop = 1;
		out->cdg_acyclic = 0;
	}
}

/* Every ordered pair from source switches [begin, end): one walk per
 * (source switch, destination CA), weighted by the switch's CAs. */
static void pairs_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;
	const struct rt_graph *g = jb->g;
	struct part *w = &jb->part[worker];
	size_t len;

	for (size_t s = begin; s < end; s++) {
		if (!jb->n_at[s])
			continue;
		for (size_t b = 0; b < g->n_ca; b++) {
			size_t weight = jb->n_at[s] - (g->ca[b].sw == (int32_t)s);
			uint8_t v;

			if (!weight || (jb->opts->dst_only && !jb->opts->dst_only[b]))
				continue;
			w->pairs += weight;
			switch (rt_walk(g, jb->l, (int32_t)s, b, w->path, &len)) {
			case RT_WALK_DELIVERED:
				w->delivered += weight;
				if (len - 1 > w->max_hops)
					w->max_hops = len - 1;
				for (size_t h = 0; h < len; h++)
					w->efi[w->path[h]] += weight;
				v = rt_lfts_sl(jb->l, s, g->ca[b].lid);
				if (jb->opts->sl2vl) {
					cdg_mark_vls(jb, w, s, v, w->path, len);
					break;
				}
				w->vl_used[v] = 1;
				cdg_mark(jb->cdg, v, w->path, len);
				break;
			case RT_WALK_LOOP:
				w->loops += weight;
				break;
			default:
				w->unreachable += weight;
			}
		}
	}
}

/* The VLs (SLs) the pairs may use, made before the walk; after it, those
 * no delivered path used are dropped again. 0 or -ENOMEM. */
static int cdg_prepare(const struct rt_graph *g, const struct rt_lfts *l, const uint32_t *n_at,
		       struct rt_cdg *cdg, const struct rt_sl2vl *t)
{
	if (t) {  /* any VL of the tables */
		for (unsigned v = 0; v < RT_VL_DROP; v++)
			if (rt_cdg_use(cdg, (uint8_t)v) < 0)
				return -ENOMEM;
		return 0;
	}
	if (!l->sl)
		return rt_cdg_use(cdg, 0);
	for (size_t s = 0; s < g->n_sw; s++) {
		if (!n_at[s])
			continue;
		for (size_t b = 0; b < g->n_ca; b++)
			if (rt_cdg_use(cdg, rt_lfts_sl(l, s, g->ca[b].lid)) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* The CA ports of each switch for cdg_mark_vls: all of them, or the first
 * alone when their tables to every port agree. 0 or -ENOMEM. */
static int ca_ports(const struct rt_graph *g, const struct rt_sl2vl *t, struct job *jb)
{
	uint32_t n = 0;

	jb->ca_first = calloc(g->n_sw + 2, sizeof(*jb->ca_first));
	jb->ca_in = malloc(g->n_ca + 1);
	if (!jb->ca_first || !jb->ca_in)
		return -ENOMEM;
	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rt_switch *sw = &g->sw[s];
		size_t np = (size_t)sw->nports + 1;
		int first = -1, same = 1;

		jb->ca_first[s] = n;
		for (unsigned p = 1; p <= sw->nports; p++) {
			if (rt_graph_port(g, s, p)->kind != RT_PEER_CA)
				continue;
			if (first < 0)
				first = (int)p;
			else if (memcmp(&t->map[t->base[s] + p * np],
					&t->map[t->base[s] + (unsigned)first * np],
					np * sizeof(*t->map)))
				same = 0;
			jb->ca_in[n++] = (uint8_t)p;
		}
		if (same && first >= 0)
			n = jb->ca_first[s] + 1;
	}
	jb->ca_first[g->n_sw] = n;
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

static void shifts_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;
	size_t n = jb->g->n_ca;
	struct part *w = &jb->part[worker];

	for (size_t j = begin; j < end; j++) {
		size_t k = jb->ks[j], load;

		for (size_t i = 0; i < n; i++)
			w->dst[i] = (i + k) % n;
		load = permutation_load(jb->g, jb->l, w);
		if (load > w->shift_max || (load == w->shift_max && load && k < w->shift_k)) {
			w->shift_max = load;
			w->shift_k = k;
		}
	}
}

/* The shifts to evaluate, ascending: all, `count` spread evenly, or a
 * seeded sample of `count` (a partial Fisher-Yates over 1..n-1). NULL when
 * out of memory. */
static size_t *shift_list(size_t n, size_t count, int sample, uint64_t seed)
{
	size_t *ks = malloc((n > 1 ? n - 1 : 1) * sizeof(*ks));

	if (!ks)
		return NULL;
	if (!sample || count >= n - 1) {
		for (size_t j = 0; j < count; j++)
			ks[j] = 1 + j * (n - 1) / count;  /* distinct since count <= n - 1 */
		return ks;
	}
	for (size_t j = 0; j < n - 1; j++)
		ks[j] = j + 1;
	for (size_t j = 0; j < count; j++) {
		size_t r = j + (size_t)(splitmix64(&seed) % (n - 1 - j)), t = ks[j];

		ks[j] = ks[r];
		ks[r] = t;
	}
	for (size_t j = 1; j < count; j++)  /* insertion sort: count is small */
		for (size_t i = j; i > 0 && ks[i - 1] > ks[i]; i--) {
			size_t t = ks[i];

			ks[i] = ks[i - 1];
			ks[i - 1] = t;
		}
	return ks;
}

static void randoms_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;
	size_t n = jb->g->n_ca;
	struct part *w = &jb->part[worker];

	for (size_t r = begin; r < end; r++) {
		uint64_t seed = seed_after(jb->opts->seed, r, n);
		size_t load;

		rt_metrics_shuffle(w->dst, n, &seed);
		load = permutation_load(jb->g, jb->l, w);
		if (load > w->rand_max)
			w->rand_max = load;
		w->rand_sum += load;
		w->rand_sq += (uint64_t)load * load;
	}
}

/* The most flows on a link of the path from CA a to CA b (w->count loaded),
 * 0 if the flow is not delivered. */
static size_t flow_max_load(const struct rt_graph *g, const struct rt_lfts *l, size_t a,
			    size_t b, struct part *w, size_t *len)
{
	size_t worst = 1;  /* a's injection link carries its one flow */

	if (g->ca[a].sw < 0 || rt_walk(g, l, g->ca[a].sw, b, w->path, len) != RT_WALK_DELIVERED)
		return 0;
	for (size_t h = 0; h < *len; h++)
		if (w->count[w->path[h]] > worst)
			worst = w->count[w->path[h]];
	return worst;
}

/* Bisections [begin, end): each draws a shuffled list of the CAs, whose
 * first half sends to and receives from the second; its flows' sum of
 * 1 / (their path's most loaded link) goes to bisect_sum[r], added up in
 * order afterwards. */
static void bisections_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;
	const struct rt_graph *g = jb->g;
	size_t n = g->n_ca, half = n / 2;
	struct part *w = &jb->part[worker];

	for (size_t r = begin; r < end; r++) {
		uint64_t seed = seed_after(jb->opts->seed, r, n);
		size_t n_touched = 0, len;
		double sum = 0.0;

		rt_metrics_shuffle(w->dst, n, &seed);
		for (size_t f = 0; f < 2 * half; f++) {
			size_t a, b;

			rt_metrics_bisection_flow(w->dst, n, f, &a, &b);
			if (g->ca[a].sw < 0 ||
			    rt_walk(g, jb->l, g->ca[a].sw, b, w->path, &len) != RT_WALK_DELIVERED)
				continue;
			for (size_t h = 0; h < len; h++)
				if (w->count[w->path[h]]++ == 0)
					w->touched[n_touched++] = w->path[h];
		}
		for (size_t f = 0; f < 2 * half; f++) {
			size_t a, b, worst;

			rt_metrics_bisection_flow(w->dst, n, f, &a, &b);
			worst = flow_max_load(g, jb->l, a, b, w, &len);
			if (worst)
				sum += 1.0 / (double)worst;
		}
		for (size_t t = 0; t < n_touched; t++)
			w->count[w->touched[t]] = 0;
		jb->bisect_sum[r] = sum;
	}
}

void rt_metrics_opts_auto(const struct rt_graph *g, struct rt_metrics_opts *o)
{
	if (o->max_shifts == 0 && g->n_ca > RT_METRICS_EXACT_CAS) {
		o->max_shifts = RT_METRICS_SAMPLE_SHIFTS;
		o->sample_shifts = 1;
	}
}

/* Grains: source switches, shifts, permutations, bisections a worker takes
 * at a time. */
#define PAIRS_GRAIN 4
#define PERM_GRAIN 1

int rt_metrics_compute(const struct rt_graph *g, const struct rt_lfts *l,
		       const struct rt_metrics_opts *opts, struct rt_metrics *out)
{
	static const struct rt_metrics_opts none = { 0 };
	unsigned threads = par_pool_threads(g->pool);
	struct part *part = calloc(threads, sizeof(*part));
	struct job jb = { .g = g, .l = l, .opts = opts ? opts : &none, .part = part };
	struct rt_cdg cdg;
	uint32_t *n_at = calloc(g->n_sw + 1, sizeof(*n_at));
	size_t *ks = NULL, n_to = 0;  /* n_to: the destinations the pairs go to */
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (rt_cdg_init(&cdg, g) < 0 || !part || !n_at)
		goto out;
	for (unsigned w = 0; w < threads; w++)
		if (part_init(&part[w], g) < 0)
			goto out;
	rc = -EINVAL;
	if (l->n_sw != g->n_sw || l->max_lid != g->max_lid)
		goto out;
	rc = -ENOMEM;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			n_at[g->ca[c].sw]++;
	jb.n_at = n_at;
	jb.cdg = &cdg;
	/* CAs on no switch: none of their pairs can be delivered. */
	for (size_t b = 0; b < g->n_ca; b++)
		n_to += !jb.opts->dst_only || jb.opts->dst_only[b];
	for (size_t a = 0; a < g->n_ca; a++) {
		if (g->ca[a].sw < 0) {
			size_t to = n_to - (!jb.opts->dst_only || jb.opts->dst_only[a]);

			out->pairs += to;
			out->unreachable += to;
		}
	}
	if (cdg_prepare(g, l, n_at, &cdg, jb.opts->sl2vl) < 0 ||
	    (jb.opts->sl2vl && ca_ports(g, jb.opts->sl2vl, &jb) < 0))
		goto out;
	par_pool_for(g->pool, g->n_sw, PAIRS_GRAIN, pairs_part, &jb);
	{
		uint8_t used[RT_CDG_VLS] = { 0 };

		for (unsigned w = 1; w < threads; w++)
			for (size_t i = 0; i < g->n_ports; i++)
				part[0].efi[i] += part[w].efi[i];
		for (unsigned w = 0; w < threads; w++) {
			out->pairs += part[w].pairs;
			out->delivered += part[w].delivered;
			out->unreachable += part[w].unreachable;
			out->loops += part[w].loops;
			if (part[w].max_hops > out->max_hops)
				out->max_hops = part[w].max_hops;
			for (size_t v = 0; v < RT_CDG_VLS; v++)
				used[v] |= part[w].vl_used[v];
		}
		for (size_t v = 0; v < RT_CDG_VLS; v++)
			if (!used[v]) {
				free(cdg.vl[v]);
				cdg.vl[v] = NULL;
			}
	}
	edge_forwarding_index(g, part[0].efi, out);
	deadlock_freedom(&cdg, &jb, out);
	if (g->n_ca > 1 && !jb.opts->no_permutations) {
		size_t n = g->n_ca, max = jb.opts->max_shifts;
		size_t count = max && max < n - 1 ? max : n - 1;

		if (!(ks = shift_list(n, count, jb.opts->sample_shifts, jb.opts->seed)))
			goto out;
		jb.ks = ks;
		par_pool_for(g->pool, count, PERM_GRAIN, shifts_part, &jb);
		for (unsigned w = 0; w < threads; w++)
			if (part[w].shift_max > out->shift_max_load ||
			    (part[w].shift_max == out->shift_max_load && part[w].shift_max &&
			     part[w].shift_k < out->shift_worst_k)) {
				out->shift_max_load = part[w].shift_max;
				out->shift_worst_k = part[w].shift_k;
			}
		out->shifts = count;
		out->shifts_total = n - 1;
		if (jb.opts->sample_shifts && count < n - 1) {
			out->shifts_sampled = 1;
			out->shift_bound95 = 1.0 - pow(0.05, 1.0 / (double)count);
		}
		if (jb.opts->n_random) {
			uint64_t sum = 0, sq = 0;
			double k = (double)jb.opts->n_random, mean, var;

			par_pool_for(g->pool, jb.opts->n_random, PERM_GRAIN, randoms_part, &jb);
			for (unsigned w = 0; w < threads; w++) {
				if (part[w].rand_max > out->random_max_load)
					out->random_max_load = part[w].rand_max;
				sum += part[w].rand_sum;
				sq += part[w].rand_sq;
			}
			out->randoms = jb.opts->n_random;
			mean = (double)sum / k;
			var = k > 1 ? ((double)sq - k * mean * mean) / (k - 1) : 0;
			out->random_mean_load = mean;
			out->random_mean_se = var > 0 ? sqrt(var / k) : 0;
		}
		if (jb.opts->n_bisect) {
			double sum = 0;

			if (!(jb.bisect_sum = calloc(jb.opts->n_bisect, sizeof(double))))
				goto out;
			par_pool_for(g->pool, jb.opts->n_bisect, PERM_GRAIN, bisections_part, &jb);
			for (unsigned r = 0; r < jb.opts->n_bisect; r++)
				sum += jb.bisect_sum[r];
			out->bisections = jb.opts->n_bisect;
			out->ebb = n / 2 ? sum / (double)(2 * (n / 2) * (size_t)jb.opts->n_bisect) :
				0.0;
		}
	}
	rc = 0;
out:
	rt_cdg_free(&cdg);
	for (unsigned w = 0; part && w < threads; w++)
		part_free(&part[w]);
	free(part);
	free(n_at);
	free(jb.ca_first);
	free(jb.ca_in);
	free(ks);
	free(jb.bisect_sum);
	return rc;
}
