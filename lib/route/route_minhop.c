/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_minhop.c: balanced shortest-path routing (the min-hop family,
 * which OpenSM's default engine also belongs to).
 *
 * Hop counts come from one breadth-first search per destination switch over
 * the switch-to-switch links: O(S * (S + L)). Links are undirected, so the
 * search from d gives every switch's distance to d, and dist is kept as
 * dist[s * S + d], row by source, so the candidate scan below reads rows
 * sequentially.
 *
 * Then each switch chooses alone: a switch's choice depends only on the load
 * of its own ports, so switches are independent: the searches (one per
 * destination switch, each writing its own column of dist) and the choices
 * (one per switch, its own row of the tables) are split over g->pool's
 * threads, each with scratch of its own, and the tables are the same for any
 * number of them. For a switch s, the minimum-hop ports toward every destination
 * switch are listed once (O(S * links of s)); then the LIDs are taken in
 * ascending order and each goes out the least-loaded candidate port, ties to
 * the lowest port number. Load is the number of CA LIDs a port carries: switch
 * LIDs carry only management traffic, and counting them would skew the
 * spreading of the CA LIDs that carry the data. */
#include "autoconf.h"
#include "lib/route/route.h"
#include "lib/util/par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_HOPS 0xFF    /* more hops than a uint8_t holds counts as no path */

/* dist[s * n + d] for destination switches d in [begin, end): hops
 * between s and d, or NO_HOPS (dist starts all NO_HOPS). */
static void hop_counts(const struct rt_graph *g, uint8_t *dist, int32_t *queue, size_t begin,
		       size_t end)
{
	size_t n = g->n_sw;

	for (size_t d = begin; d < end; d++) {
		size_t head = 0, tail = 0;

		dist[d * n + d] = 0;
		queue[tail++] = (int32_t)d;
		while (head < tail) {
			size_t s = (size_t)queue[head++];
			uint8_t hops = dist[s * n + d];
			const struct rt_link *l = &g->links[g->sw[s].first_link];

			if (hops == NO_HOPS - 1)
				continue;
			for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
				size_t p = (size_t)l[i].peer;

				if (dist[p * n + d] != NO_HOPS)
					continue;
				dist[p * n + d] = (uint8_t)(hops + 1);
				queue[tail++] = (int32_t)p;
			}
		}
	}
}

/* What each LID is: dest[lid] = the switch it is reached through (-1: held
 * by nobody, or by a CA cabled to no switch), last_port[lid] = the port out
 * of that switch (0 for the switch itself), is_ca[lid]. */
struct lid_map {
	int32_t *dest;
	uint8_t *last_port;
	uint8_t *is_ca;
	uint8_t *held;
};

static int lid_map_fill(const struct rt_graph *g, struct lid_map *m)
{
	size_t n = (size_t)g->max_lid + 1;

	m->dest = malloc(n * sizeof(*m->dest));
	m->last_port = calloc(n, 1);
	m->is_ca = calloc(n, 1);
	m->held = calloc(n, 1);
	if (!m->dest || !m->last_port || !m->is_ca || !m->held)
		return -ENOMEM;
	for (size_t lid = 0; lid < n; lid++) {
		int32_t s = rt_graph_lid_switch(g, (unsigned)lid);
		int32_t c = rt_graph_lid_ca(g, (unsigned)lid);

		m->dest[lid] = -1;
		if (s >= 0) {
			m->dest[lid] = s;
			m->held[lid] = 1;
		} else if (c >= 0) {
			m->dest[lid] = g->ca[c].sw;
			m->last_port[lid] = g->ca[c].sw_port;
			m->is_ca[lid] = 1;
			m->held[lid] = 1;
		}
	}
	return 0;
}

static void lid_map_free(struct lid_map *m)
{
	free(m->dest);
	free(m->last_port);
	free(m->is_ca);
	free(m->held);
}

/* Route every LID at switch s. cand holds n * n_links(s) ports: the
 * min-hop ports toward destination switch d are cand[d * width ..], ncand[d]
 * of them, in ascending port order (the link list is). */
struct scratch {
	int32_t *queue;        /* n_sw */
	uint8_t *cand, *ncand; /* n_sw * widest switch, n_sw */
	uint32_t *load;        /* per port */
	size_t routed, unreachable;
};

static void route_switch(const struct rt_graph *g, const uint8_t *dist, const struct lid_map *m,
			 size_t s, struct scratch *w, struct rt_lfts *out)
{
	uint8_t *cand = w->cand, *ncand = w->ncand;
	uint32_t *load = w->load;
	size_t n = g->n_sw, width = g->sw[s].n_links;
	const uint8_t *row = dist + s * n;
	const struct rt_link *links = &g->links[g->sw[s].first_link];
	uint8_t *lft = rt_lfts_row(out, s);

	memset(ncand, 0, n);
	for (size_t i = 0; i < width; i++) {
		const uint8_t *prow = dist + (size_t)links[i].peer * n;

		for (size_t d = 0; d < n; d++)
			if (row[d] != NO_HOPS && row[d] != 0 && prow[d] + 1 == row[d])
				cand[d * width + ncand[d]++] = links[i].port;
	}
	memset(load, 0, ((size_t)g->sw[s].nports + 1) * sizeof(*load));
	for (size_t lid = 1; lid <= g->max_lid; lid++) {
		int32_t d = m->dest[lid];
		const uint8_t *c;
		uint8_t best;

		if (!m->held[lid])
			continue;
		if (d < 0 || row[d] == NO_HOPS) {
			w->unreachable++;
			continue;
		}
		if ((size_t)d == s) {
			lft[lid] = m->last_port[lid];
			w->routed++;
			continue;
		}
		c = cand + (size_t)d * width;
		best = c[0];
		for (uint8_t k = 1; k < ncand[d]; k++)
			if (load[c[k]] < load[best])
				best = c[k];
		lft[lid] = best;
		load[best] += m->is_ca[lid];
		w->routed++;
	}
}

struct job {
	const struct rt_graph *g;
	uint8_t *dist;
	const struct lid_map *m;
	struct scratch *w;     /* one per worker */
	struct rt_lfts *out;
};

static void hops_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;

	hop_counts(jb->g, jb->dist, jb->w[worker].queue, begin, end);
}

static void switches_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct job *jb = ctx;

	for (size_t s = begin; s < end; s++)
		route_switch(jb->g, jb->dist, jb->m, s, &jb->w[worker], jb->out);
}

int rt_route_minhop(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen)
{
	size_t n = g->n_sw, width = 1;
	unsigned threads = par_pool_threads(g->pool);
	struct lid_map m = { 0 };
	struct scratch *w = calloc(threads, sizeof(*w));
	struct job jb = { .g = g, .m = &m, .w = w, .out = out };
	int rc = -ENOMEM;

	if (out->n_sw != n || out->max_lid != g->max_lid) {
		snprintf(err, errlen, "the tables were not made for this graph");
		free(w);
		return -EINVAL;
	}
	for (size_t s = 0; s < n; s++)
		if (g->sw[s].n_links > width)
			width = g->sw[s].n_links;
	jb.dist = malloc(n * n + 1);
	if (!w || !jb.dist || lid_map_fill(g, &m) < 0)
		goto nomem;
	for (unsigned i = 0; i < threads; i++) {
		w[i].queue = malloc((n + 1) * sizeof(*w[i].queue));
		w[i].cand = malloc(n * width + 1);
		w[i].ncand = malloc(n + 1);
		w[i].load = malloc(256 * sizeof(*w[i].load));
		if (!w[i].queue || !w[i].cand || !w[i].ncand || !w[i].load)
			goto nomem;
	}
	out->n_routed = out->n_unreachable = 0;
	memset(jb.dist, NO_HOPS, n * n);
	par_pool_for(g->pool, n, 16, hops_part, &jb);
	par_pool_for(g->pool, n, 4, switches_part, &jb);
	for (unsigned i = 0; i < threads; i++) {
		out->n_routed += w[i].routed;
		out->n_unreachable += w[i].unreachable;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory for the hop table of %zu switches", n);
out:
	lid_map_free(&m);
	for (unsigned i = 0; w && i < threads; i++) {
		free(w[i].queue);
		free(w[i].cand);
		free(w[i].ncand);
		free(w[i].load);
	}
	free(w);
	free(jb.dist);
	return rc;
}
