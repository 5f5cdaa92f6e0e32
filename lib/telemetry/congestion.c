/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/congestion.c: see congestion.h. */
#include "autoconf.h"
#include "lib/telemetry/congestion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/route/route_lft.h"

#define MAX_LID 0xC000  /* unicast LIDs are 1..0xBFFF */

struct hot {
	const struct fab_node *node;
	const struct fab_port *port;
	const struct fab_node *peer;     /* NULL: no peer */
	const struct fab_port *peer_port;
	size_t *down;                    /* indexes of hot ports this one waits on */
	size_t n_down;
	int routes;                      /* the tables decided this step */
	int root_of;                     /* index of its root; -1: none yet; -2: a loop */
	int state;                       /* walk: 0 new, 1 on the path, 2 done */
};

/* A node by the site's name (names), else its description. */
static const char *node_name(const struct nodename_map *names, const struct fab_node *n)
{
	return nodename_of(names, n->guid, n->desc);
}

/* "NODE:PORT" */
static json_t *port_name(const struct nodename_map *names, const struct fab_node *n,
			 unsigned port)
{
	char buf[NODENAME_LEN + 8];
	const char *nm = node_name(names, n);

	snprintf(buf, sizeof(buf), "%s:%u", nm[0] ? nm : "?", port);
	return json_string(buf);
}

/* h is sorted by node GUID and port (cmp_hot): a binary search. */
static int cmp_key(uint64_t ga, unsigned pa, uint64_t gb, unsigned pb)
{
	return ga < gb ? -1 : ga > gb ? 1 : (int)pa - (int)pb;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	return cmp_key(x->node->guid, x->port->num, y->node->guid, y->port->num);
}

static int is_hot(const struct hot *h, size_t n, const struct fab_node *node, unsigned port,
		  size_t *at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(h[mid].node->guid, h[mid].port->num, node->guid, port);

		if (c == 0) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The out port of `sw` for lid, or RT_NO_PORT. */
static unsigned out_port(const struct rl_table *t, unsigned lid)
{
	return t && lid <= t->top ? t->port[lid] : RT_NO_PORT;
}

/* Which hot ports h[i] waits on: the ports of its peer that carry its
 * traffic on. */
static int find_down(const struct fab *fab, const struct rl_read *lfts, struct hot *h, size_t n,
		     size_t i)
{
	struct hot *p = &h[i];
	const struct rl_table *here = NULL, *there;
	uint8_t seen[256] = { 0 };
	size_t at;

	(void)fab;
	p->routes = 1;
	if (!p->peer || p->peer->type != IBT_NODE_SWITCH)
		return 0;  /* an HCA (or nothing) at the far end: the end of the tree */
	there = lfts ? rl_read_find(lfts, p->peer->guid) : NULL;
	if (p->node->type == IBT_NODE_SWITCH)
		here = lfts ? rl_read_find(lfts, p->node->guid) : NULL;
	if (!there || (p->node->type == IBT_NODE_SWITCH && !here)) {
		/* No tables: every congested port of the peer may be next. */
		p->routes = 0;
		for (unsigned q = 1; q <= p->peer->nports; q++)
			if (q != p->peer_port->num)
				seen[q] = 1;
	} else {
		for (unsigned lid = 1; lid <= there->top && lid < MAX_LID; lid++) {
			unsigned q;

			/* An HCA sends anything; a switch what its table puts here. */
			if (here && out_port(here, lid) != p->port->num)
				continue;
			q = out_port(there, lid);
			if (q != RT_NO_PORT && q != 0 && q != p->peer_port->num)
				seen[q] = 1;
		}
	}
	for (unsigned q = 1; q < 256; q++) {
		size_t *d;

		if (!seen[q] || !is_hot(h, n, p->peer, q, &at))
			continue;
		if (!(d = realloc(p->down, (p->n_down + 1) * sizeof(*d))))
			return -1;
		p->down = d;
		p->down[p->n_down++] = at;
	}
	return 0;
}

/* The root h[i] waits on (following the first congested next port), or
 * -2 when it only waits on a loop. */
static int root_of(struct hot *h, size_t i)
{
	struct hot *p = &h[i];
	int r = -2;

	if (p->state == 2)
		return p->root_of;
	if (p->state == 1)
		return -2;  /* back on our own path: a loop */
	if (!p->n_down) {
		p->state = 2;
		return p->root_of = (int)i;
	}
	p->state = 1;
	for (size_t k = 0; k < p->n_down && r == -2; k++)
		r = root_of(h, p->down[k]);
	p->state = 2;
	return p->root_of = r;
}

/* The hosts whose LIDs root h[r]'s table sends through it. */
static json_t *hosts_of(const struct fab *fab, const struct rl_read *lfts, const struct hot *p,
			const struct nodename_map *names, size_t *n_hosts)
{
	json_t *arr = json_array();
	const struct rl_table *t;

	*n_hosts = 0;
	if (!arr)
		return NULL;
	if (p->peer && p->peer->type != IBT_NODE_SWITCH) {
		json_array_append_new(arr, json_string(node_name(names, p->peer)));
		*n_hosts = 1;
		return arr;
	}
	if (p->node->type != IBT_NODE_SWITCH || !lfts ||
	    !(t = rl_read_find(lfts, p->node->guid)))
		return arr;
	for (size_t k = 0; k < fab->n_nodes; k++) {
		const struct fab_node *n = fab->nodes[k];

		if (n->type == IBT_NODE_SWITCH)
			continue;
		for (unsigned q = 1; q <= n->nports; q++) {
			const struct fab_port *fp = fab_port(n, q);

			if (!fp || !fp->present || !fp->lid || out_port(t, fp->lid) != p->port->num)
				continue;
			if ((*n_hosts)++ < CONG_MAX_HOSTS)
				json_array_append_new(arr, json_string(node_name(names, n)));
			break;
		}
	}
	return arr;
}

json_t *congestion_roots(const struct fab *fab, const struct rl_read *lfts,
			 const struct cong_port *hot, size_t n, const struct nodename_map *names)
{
	json_t *out = json_pack("{s:[], s:[], s:[], s:i, s:i}", "roots", "loops", "not_found",
				"followed", 0, "ignored", 0);
	struct hot *h = calloc(n ? n : 1, sizeof(*h));
	size_t nh = 0, ignored = 0, *queue = NULL;
	unsigned char *mark = NULL;

	if (!out || !h)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct fab_node *node = fab_find(fab, hot[i].guid);
		const struct fab_port *port = node ? fab_port(node, hot[i].port) : NULL;
		char buf[40];

		if (!port || !port->present) {
			snprintf(buf, sizeof(buf), "0x%016llx:%u", (unsigned long long)hot[i].guid,
				 hot[i].port);
			json_array_append_new(json_object_get(out, "not_found"), json_string(buf));
			continue;
		}
		if (nh == CONG_MAX_PORTS) {
			ignored++;
			continue;
		}
		h[nh].node = node;
		h[nh].port = port;
		h[nh].peer_port = fab_peer(fab, port, &h[nh].peer);
		if (!h[nh].peer_port)
			h[nh].peer = NULL;
		h[nh].root_of = -1;
		nh++;
	}
	qsort(h, nh, sizeof(*h), cmp_hot);
	for (size_t i = 0; i < nh; i++)
		if (find_down(fab, lfts, h, nh, i) < 0)
			goto oom;
	for (size_t i = 0; i < nh; i++)
		root_of(h, i);
	if (!(queue = malloc(nh * sizeof(*queue) + 1)) || !(mark = calloc(nh + 1, 1)))
		goto oom;
	for (size_t r = 0; r < nh; r++) {
		json_t *root, *victims = json_array(), *hosts;
		size_t n_hosts, head = 0, tail = 0;
		int routes = h[r].routes;
		char g[24];

		if (h[r].root_of != (int)r || !victims) {
			json_decref(victims);
			continue;
		}
		/* Who waits on it: back along the waits, nearest first. */
		memset(mark, 0, nh);
		mark[r] = 1;
		queue[tail++] = r;
		while (head < tail) {
			size_t at = queue[head++];

			for (size_t v = 0; v < nh; v++) {
				if (mark[v])
					continue;
				for (size_t k = 0; k < h[v].n_down; k++)
					if (h[v].down[k] == at) {
						mark[v] = 1;
						queue[tail++] = v;
						json_array_append_new(victims,
								      port_name(names, h[v].node, h[v].port->num));
						routes &= h[v].routes;
						break;
					}
			}
		}
		hosts = hosts_of(fab, lfts, &h[r], names, &n_hosts);
		snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)h[r].node->guid);
		root = json_pack("{s:s, s:s, s:i, s:o, s:b, s:o, s:o, s:I}", "node",
				 node_name(names, h[r].node),
				 "guid", g, "port", h[r].port->num, "peer",
				 h[r].peer ? port_name(names, h[r].peer, h[r].peer_port->num) : json_null(),
				 "routes", routes, "victims", victims, "hosts",
				 hosts ? hosts : json_array(), "n_hosts", (json_int_t)n_hosts);
		if (!root || json_array_append_new(json_object_get(out, "roots"), root) < 0)
			goto oom;
	}
	for (size_t i = 0; i < nh; i++)
		if (h[i].root_of == -2)
			json_array_append_new(json_object_get(out, "loops"),
					      port_name(names, h[i].node, h[i].port->num));
	json_object_set_new(out, "followed", json_integer((json_int_t)nh));
	json_object_set_new(out, "ignored", json_integer((json_int_t)ignored));
	for (size_t i = 0; i < nh; i++)
		free(h[i].down);
	free(h);
	free(queue);
	free(mark);
	return out;
oom:
	for (size_t i = 0; h && i < nh; i++)
		free(h[i].down);
	free(h);
	free(queue);
	free(mark);
	json_decref(out);
	return NULL;
}
