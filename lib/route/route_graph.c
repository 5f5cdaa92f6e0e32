/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_graph.c: the routing graph (see route_graph.h), built once
 * from a fabric graph. No per-port allocation: an 11664-host tree is a few
 * arrays, and lookups during the build bisect the GUID-sorted vertices
 * instead of hashing. */
#include "autoconf.h"
#include "lib/route/route_graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t rt_graph_switch(const struct rt_graph *g, uint64_t guid)
{
	size_t lo = 0, hi = g->n_sw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->sw[mid].guid < guid)
			lo = mid + 1;
		else if (g->sw[mid].guid > guid)
			hi = mid;
		else
			return (int32_t)mid;
	}
	return -1;
}

/* CA index by (node GUID, port), likewise. */
static int32_t ca_index(const struct rt_graph *g, uint64_t node_guid, unsigned port)
{
	size_t lo = 0, hi = g->n_ca;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rt_ca *c = &g->ca[mid];

		if (c->node_guid < node_guid || (c->node_guid == node_guid && c->port < port))
			lo = mid + 1;
		else if (c->node_guid == node_guid && c->port == port)
			return (int32_t)mid;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_node_guid(const void *a, const void *b)
{
	const struct fab_node *x = *(const struct fab_node *const *)a;
	const struct fab_node *y = *(const struct fab_node *const *)b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int is_endpoint_node(const struct fab_node *n)
{
	return n->type == IBT_NODE_CA || n->type == IBT_NODE_ROUTER;
}

/* Give every switch and CA port a LID, in a fixed order. */
static int assign_lids(struct rt_graph *g, char *err, size_t errlen)
{
	size_t need = g->n_sw + g->n_ca;

	if (need > 0xBFFF) {  /* unicast LIDs are 1..0xBFFF */
		snprintf(err, errlen, "%zu switches and CA ports do not fit the unicast LID space",
			 need);
		return -ERANGE;
	}
	for (size_t i = 0; i < g->n_sw; i++)
		g->sw[i].lid = (uint16_t)(1 + i);
	for (size_t i = 0; i < g->n_ca; i++) {
		g->ca[i].lid = (uint16_t)(1 + g->n_sw + i);
		g->ca[i].lmc = 0;
	}
	g->lids_assigned = 1;
	return 0;
}

static int index_lids(struct rt_graph *g, char *err, size_t errlen)
{
	uint16_t max = 0;

	for (size_t i = 0; i < g->n_sw; i++)
		if (g->sw[i].lid > max)
			max = g->sw[i].lid;
	for (size_t i = 0; i < g->n_ca; i++)
		if (g->ca[i].lid > max)
			max = g->ca[i].lid;
	if (max > 0xBFFF) {
		snprintf(err, errlen, "LID 0x%x is beyond the unicast range", max);
		return -ERANGE;
	}
	g->max_lid = max;
	g->lid_sw = malloc(((size_t)max + 1) * sizeof(*g->lid_sw));
	g->lid_ca = malloc(((size_t)max + 1) * sizeof(*g->lid_ca));
	if (!g->lid_sw || !g->lid_ca) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t l = 0; l <= max; l++)
		g->lid_sw[l] = g->lid_ca[l] = -1;
	for (size_t i = 0; i < g->n_sw; i++) {
		uint16_t lid = g->sw[i].lid;

		if (lid == 0 || g->lid_sw[lid] >= 0) {
			snprintf(err, errlen, "switch 0x%016llx: LID %u is 0 or held twice",
				 (unsigned long long)g->sw[i].guid, lid);
			return -EINVAL;
		}
		g->lid_sw[lid] = (int32_t)i;
	}
	for (size_t i = 0; i < g->n_ca; i++) {
		uint16_t lid = g->ca[i].lid;

		if (lid == 0 || g->lid_sw[lid] >= 0 || g->lid_ca[lid] >= 0) {
			snprintf(err, errlen, "LID %u of CA port 0x%016llx is already held", lid,
				 (unsigned long long)g->ca[i].guid);
			return -EINVAL;
		}
		g->lid_ca[lid] = (int32_t)i;
	}
	return 0;
}

/* Fill the port table and the CAs' attachment from the fabric's cables. */
static void connect_ports(struct rt_graph *g, const struct fab *fab,
			  const struct fab_node *const *nodes)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *fp = &n->ports[p];
			const struct fab_node *peer;

			if (!fp->present || !fp->has_peer || !fab_peer(fab, fp, &peer))
				continue;
			if (n->type == IBT_NODE_SWITCH) {
				struct rt_port *rp =
					&g->ports[g->sw[rt_graph_switch(g, n->guid)].first_port + p];
				int32_t idx = -1;

				if (peer->type == IBT_NODE_SWITCH)
					idx = rt_graph_switch(g, peer->guid);
				else if (is_endpoint_node(peer))
					idx = ca_index(g, peer->guid, fp->peer_port);
				if (idx < 0)
					continue;  /* a peer of unknown type: not routable */
				rp->kind = peer->type == IBT_NODE_SWITCH ? RT_PEER_SWITCH : RT_PEER_CA;
				rp->peer = idx;
				rp->peer_port = fp->peer_port;
			} else if (is_endpoint_node(n) && peer->type == IBT_NODE_SWITCH) {
				int32_t c = ca_index(g, n->guid, p);

				if (c >= 0) {
					g->ca[c].sw = rt_graph_switch(g, peer->guid);
					g->ca[c].sw_port = fp->peer_port;
				}
			}
		}
	}
}

/* The directed switch-to-switch link list, grouped by source switch. */
static int list_links(struct rt_graph *g)
{
	size_t n = 0;

	for (size_t p = 0; p < g->n_ports; p++)
		n += g->ports[p].kind == RT_PEER_SWITCH;
	g->links = calloc(n + 1, sizeof(*g->links));
	if (!g->links)
		return -ENOMEM;
	for (size_t s = 0; s < g->n_sw; s++) {
		g->sw[s].first_link = (uint32_t)g->n_links;
		for (unsigned p = 1; p <= g->sw[s].nports; p++) {
			const struct rt_port *rp = rt_graph_port(g, s, p);
			struct rt_link *l;

			if (rp->kind != RT_PEER_SWITCH)
				continue;
			l = &g->links[g->n_links++];
			l->sw = (int32_t)s;
			l->port = (uint8_t)p;
			l->peer = rp->peer;
			l->peer_port = rp->peer_port;
		}
		g->sw[s].n_links = (uint32_t)g->n_links - g->sw[s].first_link;
	}
	return 0;
}

struct rt_graph *rt_graph_new(const struct fab *fab, char *err, size_t errlen)
{
	struct rt_graph *g = calloc(1, sizeof(*g));
	const struct fab_node **nodes = malloc((fab->n_nodes + 1) * sizeof(*nodes));
	size_t si = 0, ci = 0;
	int no_lid = 0;

	if (!g || !nodes)
		goto oom;
	/* fab->nodes may be in insertion order; sorting a copy keeps fab const.
	 * An empty fabric has no array at all (memcpy from NULL is undefined
	 * even for 0 bytes: UBSan, tools/check-asan.sh). */
	if (fab->n_nodes) {
		memcpy(nodes, fab->nodes, fab->n_nodes * sizeof(*nodes));
		qsort(nodes, fab->n_nodes, sizeof(*nodes), cmp_node_guid);
	}

	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = nodes[i];

		if (n->type == IBT_NODE_SWITCH) {
			g->n_sw++;
			g->n_ports += (size_t)n->nports + 1;
		} else if (is_endpoint_node(n)) {
			for (unsigned p = 1; p <= n->nports; p++)
				if (n->ports[p].present && n->ports[p].has_peer)
					g->n_ca++;
		}
	}
	g->sw = calloc(g->n_sw + 1, sizeof(*g->sw));
	g->ca = calloc(g->n_ca + 1, sizeof(*g->ca));
	g->ports = calloc(g->n_ports + 1, sizeof(*g->ports));
	if (!g->sw || !g->ca || !g->ports)
		goto oom;
	for (size_t p = 0; p < g->n_ports; p++)
		g->ports[p].peer = -1;

	/* First pass: the vertices, in GUID order, so lookups can bisect. */
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = nodes[i];

		if (n->type == IBT_NODE_SWITCH) {
			struct rt_switch *s = &g->sw[si];

			s->guid = n->guid;
			s->lid = n->ports[0].present ? n->ports[0].lid : 0;
			s->nports = n->nports;
			s->first_port = (uint32_t)(si ? g->sw[si - 1].first_port +
						   g->sw[si - 1].nports + 1 : 0);
			memcpy(s->desc, n->desc, sizeof(s->desc));
			no_lid |= s->lid == 0;
			si++;
		} else if (is_endpoint_node(n)) {
			for (unsigned p = 1; p <= n->nports; p++) {
				const struct fab_port *fp = &n->ports[p];
				struct rt_ca *c;

				if (!fp->present || !fp->has_peer)
					continue;
				c = &g->ca[ci++];
				c->guid = fp->guid;
				c->node_guid = n->guid;
				c->port = (uint8_t)p;
				c->lid = fp->lid;
				c->lmc = fp->lmc;
				c->sw = -1;
				memcpy(c->desc, n->desc, sizeof(c->desc));
				no_lid |= c->lid == 0;
			}
		}
	}
	/* Second pass: the edges. */
	connect_ports(g, fab, nodes);
	free(nodes);
	nodes = NULL;
	if (list_links(g) < 0)
		goto oom;
	if ((no_lid && assign_lids(g, err, errlen) < 0) || index_lids(g, err, errlen) < 0) {
		rt_graph_free(g);
		return NULL;
	}
	return g;
oom:
	free(nodes);
	rt_graph_free(g);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

/* n copies of size bytes of src, or NULL (and *bad set) when out of memory. */
static void *copy_of(const void *src, size_t n, size_t size, int *bad)
{
	void *p = malloc((n ? n : 1) * size);

	if (!p)
		*bad = 1;
	else if (n)
		memcpy(p, src, n * size);
	return p;
}

struct rt_graph *rt_graph_without(const struct rt_graph *g, const struct rt_cut *cuts,
				  size_t n, char *err, size_t errlen)
{
	struct rt_graph *c = calloc(1, sizeof(*c));
	size_t lids = (size_t)g->max_lid + 1;
	int bad = !c;

	if (bad)
		goto oom;
	*c = *g;
	c->pool = NULL;
	c->n_links = 0;
	c->links = NULL;
	c->sw = copy_of(g->sw, g->n_sw, sizeof(*g->sw), &bad);
	c->ca = copy_of(g->ca, g->n_ca, sizeof(*g->ca), &bad);
	c->ports = copy_of(g->ports, g->n_ports, sizeof(*g->ports), &bad);
	c->lid_sw = copy_of(g->lid_sw, lids, sizeof(*g->lid_sw), &bad);
	c->lid_ca = copy_of(g->lid_ca, lids, sizeof(*g->lid_ca), &bad);
	if (bad)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct rt_port *a;  /* g's: a cable named twice is cut once */

		if (cuts[i].sw < 0 || (size_t)cuts[i].sw >= g->n_sw || cuts[i].port == 0 ||
		    cuts[i].port > g->sw[cuts[i].sw].nports ||
		    (a = rt_graph_port(g, (size_t)cuts[i].sw, cuts[i].port))->kind != RT_PEER_SWITCH) {
			snprintf(err, errlen, "switch %d port %u is no switch-to-switch cable",
				 (int)cuts[i].sw, cuts[i].port);
			rt_graph_free(c);
			return NULL;
		}
		c->ports[rt_graph_port_index(g, (size_t)a->peer, a->peer_port)] =
			c->ports[rt_graph_port_index(g, (size_t)cuts[i].sw, cuts[i].port)] =
				(struct rt_port){ .kind = RT_PEER_NONE, .peer = -1 };
	}
	if (list_links(c) < 0)
		goto oom;
	return c;
oom:
	rt_graph_free(c);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

size_t rt_graph_levels(const struct rt_graph *g, const uint8_t *leaf, uint16_t *level,
		       int32_t *order)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < g->n_sw; s++) {
		level[s] = RT_NO_LEVEL;
		if (leaf[s]) {
			level[s] = 0;
			order[tail++] = (int32_t)s;
		}
	}
	while (head < tail) {
		size_t s = (size_t)order[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (level[l[i].peer] == RT_NO_LEVEL) {
				level[l[i].peer] = (uint16_t)(level[s] + 1);
				order[tail++] = l[i].peer;
			}
	}
	return tail;
}

void rt_graph_hops(const struct rt_graph *g, size_t d, uint16_t *hops, int32_t *queue)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		hops[s] = RT_NO_LEVEL;
	hops[d] = 0;
	queue[tail++] = (int32_t)d;
	while (head < tail) {
		size_t s = (size_t)queue[head++];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		for (uint32_t i = 0; i < g->sw[s].n_links; i++)
			if (hops[l[i].peer] == RT_NO_LEVEL) {
				hops[l[i].peer] = (uint16_t)(hops[s] + 1);
				queue[tail++] = l[i].peer;
			}
	}
}

int rt_graph_tree_levels(const struct rt_graph *g, uint16_t *level, int32_t *order)
{
	uint8_t *leaf = calloc(g->n_sw + 1, 1);

	if (!leaf)
		return -ENOMEM;
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			leaf[g->ca[c].sw] = 1;
	rt_graph_levels(g, leaf, level, order);
	free(leaf);
	for (size_t i = 0; i < g->n_links; i++) {
		uint16_t a = level[g->links[i].sw], b = level[g->links[i].peer];

		if (a != RT_NO_LEVEL && b != RT_NO_LEVEL && a != b + 1 && b != a + 1)
			return -EINVAL;
	}
	return 0;
}

void rt_graph_free(struct rt_graph *g)
{
	if (!g)
		return;
	free(g->sw);
	free(g->ca);
	free(g->ports);
	free(g->links);
	free(g->lid_sw);
	free(g->lid_ca);
	free(g);
}
