/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_paths.c: see route_paths.h. */
#include "autoconf.h"
#include "lib/route/route_paths.h"
#include "lib/route/route_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

void rt_paths_clear(struct rt_paths *p)
{
	if (!p)
		return;
	free(p->links);
	memset(p, 0, sizeof(*p));
}

uint64_t rt_paths_pairs_on(const struct rt_paths *p, uint32_t link)
{
	size_t lo = 0, hi = p->n_links;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->links[mid].link == link)
			return p->links[mid].pairs;
		if (p->links[mid].link < link)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void note_broken(struct rt_paths *out, size_t src, size_t dst, int loop)
{
	if (out->n_broken < RT_PATHS_MAX_BROKEN)
		out->broken[out->n_broken++] = (struct rt_path_broken){
			.src = (uint32_t)src, .dst = (uint32_t)dst, .loop = loop };
}

/* The sources: every CA of set[0..m), or a sample drawn from seed. */
static size_t *sources(const struct rt_paths_opts *o, const size_t *set, size_t m,
		       struct rt_paths *out)
{
	uint64_t max = o && o->max_pairs ? o->max_pairs : RT_PATHS_MAX_PAIRS;
	size_t k = m, *src, *perm = NULL;

	out->seed = o ? o->seed : 0;
	if (m > 1 && out->pairs_total > max) {
		uint64_t seed = out->seed;

		k = (size_t)(max / (m - 1));
		if (k < 1)
			k = 1;
		if (!(perm = malloc(m * sizeof(*perm))))
			return NULL;
		rt_metrics_shuffle(perm, m, &seed);
		out->sampled = 1;
	}
	if (!(src = malloc((k ? k : 1) * sizeof(*src)))) {
		free(perm);
		return NULL;
	}
	for (size_t i = 0; i < k; i++)
		src[i] = perm ? set[perm[i]] : set[i];
	free(perm);
	qsort(src, k, sizeof(*src), cmp_size);
	out->sources = k;
	return src;
}

int rt_paths_compute(const struct rt_graph *g, const struct rt_lfts *l, const size_t *ca,
		     size_t n, const struct rt_paths_opts *opts, struct rt_paths *out)
{
	uint8_t *member = NULL, *is_src = NULL;
	size_t *set = NULL, *src = NULL, m = 0, n_links = 0;
	uint32_t *per_sw = NULL, *path = NULL;
	int32_t *first_src = NULL;
	uint64_t *use = NULL;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (ca[i] >= g->n_ca)
			return -EINVAL;
	if (!(member = calloc(g->n_ca ? g->n_ca : 1, 1)) ||
	    !(is_src = calloc(g->n_ca ? g->n_ca : 1, 1)) ||
	    !(set = malloc((n ? n : 1) * sizeof(*set))))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!member[ca[i]]) {
			member[ca[i]] = 1;
			set[m++] = ca[i];
		}
	qsort(set, m, sizeof(*set), cmp_size);
	out->n_ca = m;
	out->pairs_total = m > 1 ? (uint64_t)m * (m - 1) : 0;
	if (!(src = sources(opts, set, m, out)))
		goto out;
	out->pairs = m > 1 ? (uint64_t)out->sources * (m - 1) : 0;
	/* Two halves: the links out of switch ports, then into them from CAs. */
	if (!(use = calloc(2 * (g->n_ports ? g->n_ports : 1), sizeof(*use))) ||
	    !(per_sw = calloc(g->n_sw ? g->n_sw : 1, sizeof(*per_sw))) ||
	    !(first_src = malloc((g->n_sw ? g->n_sw : 1) * sizeof(*first_src))) ||
	    !(path = malloc((g->n_sw + 1) * sizeof(*path))))
		goto out;
	for (size_t s = 0; s < g->n_sw; s++)
		first_src[s] = -1;
	for (size_t i = 0; i < out->sources && m > 1; i++) {
		const struct rt_ca *c = &g->ca[src[i]];

		is_src[src[i]] = 1;
		if (c->sw < 0) {
			/* Cabled to no switch: nothing leaves it. */
			out->dropped += m - 1;
			note_broken(out, src[i], set[src[i] == set[0] ? 1 : 0], 0);
			continue;
		}
		per_sw[c->sw]++;
		if (first_src[c->sw] < 0)
			first_src[c->sw] = (int32_t)src[i];
		use[g->n_ports + rt_graph_port_index(g, (size_t)c->sw, c->sw_port)] += m - 1;
	}
	/* One walk per (source switch, destination) for all its sources. */
	for (size_t s = 0; s < g->n_sw; s++) {
		if (!per_sw[s])
			continue;
		for (size_t k = 0; k < m; k++) {
			size_t b = set[k], len = 0;
			uint64_t w = per_sw[s] - (is_src[b] && g->ca[b].sw == (int32_t)s ? 1 : 0);
			enum rt_walk_result r;

			if (!w)
				continue;
			r = rt_walk(g, l, (int32_t)s, b, path, &len);
			/* Traffic crosses the links up to where it is lost too. */
			for (size_t h = 0; h < len; h++)
				use[path[h]] += w;
			if (r == RT_WALK_DELIVERED) {
				out->delivered += w;
				continue;
			}
			if (r == RT_WALK_LOOP)
				out->loops += w;
			else
				out->dropped += w;
			/* A source of this switch other than b names the pair. */
			for (size_t i = 0; out->n_broken < RT_PATHS_MAX_BROKEN && i < out->sources; i++)
				if (src[i] != b && g->ca[src[i]].sw == (int32_t)s) {
					note_broken(out, src[i], b, r == RT_WALK_LOOP);
					break;
				}
		}
	}
	for (size_t i = 0; i < 2 * g->n_ports; i++)
		n_links += use[i] != 0;
	if (n_links && !(out->links = malloc(n_links * sizeof(*out->links))))
		goto out;
	for (size_t i = 0; i < 2 * g->n_ports; i++)
		if (use[i])
			out->links[out->n_links++] = (struct rt_path_link){
				.link = i < g->n_ports ? RT_PATHS_OUT(i) : RT_PATHS_IN(i - g->n_ports),
				.pairs = use[i] };
	rc = 0;
out:
	if (rc < 0)
		rt_paths_clear(out);
	free(member);
	free(is_src);
	free(set);
	free(src);
	free(use);
	free(per_sw);
	free(first_src);
	free(path);
	return rc;
}
