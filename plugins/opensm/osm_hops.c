/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_hops.c: OpenSM's min-hop tables, which its multicast
 * manager and SA read (hops from every switch port to every switch LID),
 * computed with one breadth-first search per switch instead of OpenSM's own
 * relaxation, which sweeps every switch's neighbours until nothing changes
 * and takes most of the routing time on large fabrics (about 7 s of the
 * 8.7 s loom needs on 1620 switches, against 1 s for loom's engine).
 *
 * The values are the ones OpenSM's relaxation converges to: switch s, port p
 * cabled to switch q over a healthy link, destination switch d: hops =
 * 1 + least hops from q to d; d itself: 0 on port 0. With a hop_weights_file
 * (the only source of weights other than 1: OpenSM sets each port's hop_wf
 * inside its own relaxation) OpenSM's own code runs instead.
 *
 * The searches are split over the plugin's threads, a destination switch
 * at a time per worker. That is safe inside OpenSM because of what
 * osm_switch_set_hops() touches (OpenSM 3.3.x, osm_switch.c): the row of
 * the one LID it is given, allocated on its first set (malloc), in each
 * switch's array of rows, which OpenSM sized before it called us
 * (ucast_mgr_setup_all_switches, osm_switch_prepare_path_rebuild). A
 * destination's LID is set by the one worker that searches from it, so no
 * two workers write one row. The calling thread holds OpenSM's exclusive
 * lock throughout (the routing callbacks run under it): no SA thread reads
 * the rows meanwhile.
 *
 * A switch's row for a LID is num_ports bytes, port 0 holding the least
 * (osm_switch.h's inline readers take it so). The first entry of each row
 * goes through osm_switch_set_hops, which allocates the row; the others are
 * written into it directly, the least kept in port 0 the way that function
 * keeps it: 75 million calls on 1620 switches were most of the 1.75 s the
 * tables took at 11664 hosts. */
#include "autoconf.h"
#include "loomosm.h"
#include "lib/util/par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAR 0xFFFFFFFFu

struct edge {            /* s -> q over s's port */
	uint32_t s, q;
	uint8_t port;
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(osm_switch_t *const *)a, y = (uintptr_t)*(osm_switch_t *const *)b;

	return x < y ? -1 : x > y;
}

/* The index of sw among the sorted switches, or -1. */
static int32_t sw_index(osm_switch_t *const *sws, uint32_t n, const osm_switch_t *sw)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)sws[mid] < (uintptr_t)sw)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sws[lo] == sw ? (int32_t)lo : -1;
}

struct hops_job {
	osm_switch_t **sws;
	uint32_t n, ne;
	const struct edge *edges;
	const uint32_t *in_first, *in_list;
	uint32_t *dist, *queue;    /* n + 1 per worker */
};

/* The searches from destination switches [begin, end). */
static void hops_part(void *ctx, unsigned worker, size_t begin, size_t end)
{
	const struct hops_job *jb = ctx;
	uint32_t n = jb->n;
	uint32_t *dist = jb->dist + (size_t)worker * (n + 1);
	uint32_t *queue = jb->queue + (size_t)worker * (n + 1);

	for (size_t d = begin; d < end; d++) {
		uint16_t lid = cl_ntoh16(osm_node_get_base_lid(jb->sws[d]->p_node, 0));
		uint32_t head = 0, tail = 0;

		if (!lid)
			continue;
		for (uint32_t i = 0; i < n; i++)
			dist[i] = FAR;
		dist[d] = 0;
		queue[tail++] = (uint32_t)d;
		while (head < tail) {
			uint32_t q = queue[head++];

			for (uint32_t j = jb->in_first[q]; j < jb->in_first[q + 1]; j++) {
				uint32_t s = jb->edges[jb->in_list[j]].s;

				if (dist[s] == FAR) {
					dist[s] = dist[q] + 1;
					queue[tail++] = s;
				}
			}
		}
		osm_switch_set_hops(jb->sws[d], lid, 0, 0);
		/* The edges come switch by switch: the first of a switch's
		 * entries through osm_switch_set_hops (which allocates the row),
		 * the others straight into it, as that function would. */
		for (uint32_t e = 0; e < jb->ne;) {
			uint32_t s = jb->edges[e].s;
			osm_switch_t *sw = jb->sws[s];
			uint8_t *row = NULL;

			for (; e < jb->ne && jb->edges[e].s == s; e++) {
				const struct edge *ed = &jb->edges[e];
				uint8_t h;

				if (dist[ed->q] == FAR || dist[ed->q] + 1 >= OSM_NO_PATH)
					continue;
				h = (uint8_t)(dist[ed->q] + 1);
				if (!row) {
					osm_switch_set_hops(sw, lid, ed->port, h);
					row = sw->hops[lid];
				} else {
					row[ed->port] = h;
					if (row[0] > h)
						row[0] = h;
				}
			}
		}
	}
}

int losm_build_hops(osm_subn_t *subn, struct par_pool *pool, char *err, size_t errlen)
{
	cl_qmap_t *tbl = &subn->sw_guid_tbl;
	uint32_t n = (uint32_t)cl_qmap_count(tbl), ne = 0, k = 0;
	osm_switch_t **sws = NULL;
	struct edge *edges = NULL;
	uint32_t *in_first = NULL, *in_list = NULL;
	int rc = -ENOMEM;

	if (subn->opt.hop_weights_file)
		return 1;
	sws = malloc((n + 1) * sizeof(*sws));
	if (!sws)
		goto out;
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it))
		sws[k++] = (osm_switch_t *)it;
	qsort(sws, n, sizeof(*sws), cmp_ptr);

	/* The healthy switch-to-switch links, as OpenSM's relaxation uses them. */
	for (uint32_t i = 0; i < n; i++)
		ne += sws[i]->num_ports;
	edges = malloc((ne + 1) * sizeof(*edges));
	if (!edges)
		goto out;
	ne = 0;
	for (uint32_t i = 0; i < n; i++) {
		osm_node_t *node = sws[i]->p_node;

		for (uint8_t p = 1; p < sws[i]->num_ports; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, p);
			osm_node_t *rn;
			int32_t q;

			if (!ph || !ph->p_remote_physp || !osm_link_is_healthy(ph))
				continue;
			rn = ph->p_remote_physp->p_node;
			if (!rn || !rn->sw || rn == node || (q = sw_index(sws, n, rn->sw)) < 0)
				continue;
			edges[ne].s = i;
			edges[ne].q = (uint32_t)q;
			edges[ne].port = p;
			ne++;
		}
	}
	/* Reverse adjacency: for q, the edges s -> q (a search from d walks
	 * them backwards). */
	in_first = calloc(n + 1, sizeof(*in_first));
	in_list = malloc((ne + 1) * sizeof(*in_list));
	if (!in_first || !in_list)
		goto out;
	for (uint32_t e = 0; e < ne; e++)
		in_first[edges[e].q + 1]++;
	for (uint32_t i = 0; i < n; i++)
		in_first[i + 1] += in_first[i];
	{
		uint32_t *fill = calloc(n + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (uint32_t e = 0; e < ne; e++)
			in_list[in_first[edges[e].q] + fill[edges[e].q]++] = e;
		free(fill);
	}

	{
		struct hops_job jb = { .sws = sws, .n = n, .edges = edges, .ne = ne,
				       .in_first = in_first, .in_list = in_list };
		unsigned threads = par_pool_threads(pool);

		jb.dist = malloc((size_t)threads * (n + 1) * sizeof(*jb.dist));
		jb.queue = malloc((size_t)threads * (n + 1) * sizeof(*jb.queue));
		if (!jb.dist || !jb.queue) {
			free(jb.dist);
			free(jb.queue);
			goto out;
		}
		par_pool_for(pool, n, 8, hops_part, &jb);
		free(jb.dist);
		free(jb.queue);
	}
	rc = 0;
out:
	if (rc < 0)
		snprintf(err, errlen, "out of memory for the hop tables of %u switches", n);
	free(sws);
	free(edges);
	free(in_first);
	free(in_list);
	return rc;
}
