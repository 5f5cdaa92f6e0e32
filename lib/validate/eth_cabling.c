/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/eth_cabling.c: the plan's Ethernet rows against LLDP
 * (eth_cabling.h): the reads made a graph of numbered ports, the rows
 * numbered cables on it, cabling.c's judging, ports named back. */
#include "autoconf.h"
#include "lib/validate/eth_cabling.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/validate/cabling.h"

struct key {                /* a node's name (or a managed switch's hostname) */
	const char *name;
	size_t node;
};

struct pkey {               /* a node's port by name; num once numbered */
	size_t node;
	const char *name;
	unsigned num;
};

struct graph {
	const struct eth_seen *s;
	struct key *keys;
	size_t n_keys, n_nodes;
	const char **node_name;     /* per node */
	uint8_t *seen;              /* per node: managed, or named by LLDP */
	struct pkey *al;            /* managed ports by alias (num: index of the name in pk) */
	size_t n_al;
	const char **al_name;       /* per alias: the port's name */
	struct pkey *pk;            /* every port, sorted by node and name */
	size_t n_pk;
	size_t *first;              /* per node: its first port in pk (n_nodes + 1) */
};

static int key_cmp(const void *x, const void *y)
{
	return strcmp(((const struct key *)x)->name, ((const struct key *)y)->name);
}

static int pkey_cmp(const void *x, const void *y)
{
	const struct pkey *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static size_t node_of(const struct graph *g, const char *name)
{
	struct key k = { name, 0 }, *hit = bsearch(&k, g->keys, g->n_keys, sizeof(k), key_cmp);

	return hit ? hit->node : (size_t)-1;
}

static const char *peer_of(const struct eth_port_seen *p)
{
	return p->peer_name[0] ? p->peer_name : p->peer_chassis;
}

static const char *port_id(const char *s)
{
	return s && s[0] ? s : "?";
}

/* A managed switch's port named by its alias: its name. */
static const char *canon(const struct graph *g, size_t node, const char *text)
{
	struct pkey k = { node, text, 0 }, *hit;

	if (node >= g->s->n_sw || !g->n_al)
		return text;
	hit = bsearch(&k, g->al, g->n_al, sizeof(k), pkey_cmp);
	return hit ? g->al_name[hit - g->al] : text;
}

static unsigned port_num(const struct graph *g, size_t node, const char *name)
{
	struct pkey k = { node, canon(g, node, name), 0 },
		    *hit = bsearch(&k, g->pk, g->n_pk, sizeof(k), pkey_cmp);

	return hit ? hit->num : 0;
}

/* The nodes: managed switches first (by name and hostname), then every
 * other name LLDP or the plan has. */
static int make_nodes(struct graph *g, const struct plan *p)
{
	const struct eth_seen *s = g->s;
	size_t n_other = 0, cap = 2 * s->n_sw + s->n_ports + 2 * p->n + 1;
	const char **other = calloc(s->n_ports + 2 * p->n + 1, sizeof(*other));

	g->keys = calloc(cap, sizeof(*g->keys));
	if (!other || !g->keys) {
		free(other);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_sw; i++) {
		g->keys[g->n_keys++] = (struct key){ s->sw[i].name, i };
		if (s->sw[i].hostname[0] && strcmp(s->sw[i].hostname, s->sw[i].name))
			g->keys[g->n_keys++] = (struct key){ s->sw[i].hostname, i };
	}
	qsort(g->keys, g->n_keys, sizeof(*g->keys), key_cmp);
	for (size_t i = 0; i < s->n_ports; i++)
		if (peer_of(&s->ports[i])[0] && node_of(g, peer_of(&s->ports[i])) == (size_t)-1)
			other[n_other++] = peer_of(&s->ports[i]);
	for (size_t i = 0; i < p->n; i++) {
		if (!p->cables[i].eth)
			continue;
		if (node_of(g, p->cables[i].a) == (size_t)-1)
			other[n_other++] = p->cables[i].a;
		if (node_of(g, p->cables[i].b) == (size_t)-1)
			other[n_other++] = p->cables[i].b;
	}
	qsort(other, n_other, sizeof(*other), str_cmp);
	g->n_nodes = s->n_sw;
	for (size_t i = 0; i < n_other; i++)
		if (!i || strcmp(other[i], other[i - 1]))
			g->keys[g->n_keys++] = (struct key){ other[i], g->n_nodes++ };
	qsort(g->keys, g->n_keys, sizeof(*g->keys), key_cmp);
	free(other);
	g->node_name = calloc(g->n_nodes + 1, sizeof(*g->node_name));
	g->seen = calloc(g->n_nodes + 1, 1);
	if (!g->node_name || !g->seen)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_keys; i++)
		if (g->keys[i].node >= s->n_sw)
			g->node_name[g->keys[i].node] = g->keys[i].name;
	for (size_t i = 0; i < s->n_sw; i++) {
		g->node_name[i] = s->sw[i].name;
		g->seen[i] = 1;
	}
	for (size_t i = 0; i < s->n_ports; i++)
		if (peer_of(&s->ports[i])[0])
			g->seen[node_of(g, peer_of(&s->ports[i]))] = 1;
	return 0;
}

/* The ports: a managed switch's own, the far ends LLDP names, the plan's;
 * numbered 1.. per node in name order. */
static int make_ports(struct graph *g, const struct plan *p, char *err, size_t errlen)
{
	const struct eth_seen *s = g->s;
	size_t cap = 2 * s->n_ports + 2 * p->n + 1;

	g->al = calloc(s->n_ports + 1, sizeof(*g->al));
	g->al_name = calloc(s->n_ports + 1, sizeof(*g->al_name));
	g->pk = calloc(cap, sizeof(*g->pk));
	g->first = calloc(g->n_nodes + 1, sizeof(*g->first));
	if (!g->al || !g->al_name || !g->pk || !g->first)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct eth_port_seen *pt = &s->ports[i];
		size_t n = node_of(g, pt->sw);

		if (n >= s->n_sw)
			continue;   /* a port of no managed switch */
		if (pt->alias[0] && strcmp(pt->alias, pt->port))
			g->al[g->n_al++] = (struct pkey){ n, pt->alias, (unsigned)i };
	}
	qsort(g->al, g->n_al, sizeof(*g->al), pkey_cmp);
	for (size_t i = 0; i < g->n_al; i++)
		g->al_name[i] = s->ports[g->al[i].num].port;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct eth_port_seen *pt = &s->ports[i];
		size_t n = node_of(g, pt->sw), far;

		if (n >= s->n_sw)
			continue;
		g->pk[g->n_pk++] = (struct pkey){ n, pt->port, 0 };
		if (pt->up && peer_of(pt)[0]) {
			far = node_of(g, peer_of(pt));
			g->pk[g->n_pk++] = (struct pkey){ far, canon(g, far, port_id(pt->peer_port)), 0 };
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *c = &p->cables[i];
		size_t a, b;

		if (!c->eth)
			continue;
		a = node_of(g, c->a);
		b = node_of(g, c->b);
		g->pk[g->n_pk++] = (struct pkey){ a, canon(g, a, c->a_pname), 0 };
		g->pk[g->n_pk++] = (struct pkey){ b, canon(g, b, c->b_pname), 0 };
	}
	qsort(g->pk, g->n_pk, sizeof(*g->pk), pkey_cmp);
	{
		size_t o = 0;
		unsigned num = 0;

		for (size_t i = 0; i < g->n_pk; i++) {
			if (o && !pkey_cmp(&g->pk[i], &g->pk[o - 1]))
				continue;
			num = o && g->pk[o - 1].node == g->pk[i].node ? num + 1 : 1;
			if (num > 254) {
				snprintf(err, errlen, "%s has more than 254 ports: the Ethernet plan check "
					 "numbers them as InfiniBand ports", g->node_name[g->pk[i].node]);
				return -E2BIG;
			}
			g->pk[o] = g->pk[i];
			g->pk[o++].num = num;
		}
		g->n_pk = o;
	}
	for (size_t n = 0, i = 0; n <= g->n_nodes; n++) {
		while (i < g->n_pk && g->pk[i].node < n)
			i++;
		g->first[n] = i;
	}
	return 0;
}

static void set_peer(struct fab *f, size_t a, unsigned ap, size_t b, unsigned bp)
{
	struct fab_port *pt = &f->nodes[a]->ports[ap];

	pt->has_peer = 1;
	pt->peer_guid = b + 1;
	pt->peer_port = (uint8_t)bp;
	pt->state = 4;   /* PortState Active */
}

/* The graph as a fabric: node i has GUID i + 1; each managed port's LLDP
 * neighbour its peer, and the far end's peer that port when the far end
 * says nothing of its own. */
static struct fab *make_fab(const struct graph *g)
{
	const struct eth_seen *s = g->s;
	struct fab *f = fab_new("ethernet");

	for (size_t i = 0; f && i < g->n_nodes; i++) {
		size_t np = g->first[i + 1] - g->first[i];
		struct fab_node *n = fab_add_node(f, i < s->n_sw ? IBT_NODE_SWITCH : IBT_NODE_CA, i + 1,
						  (uint8_t)np);

		if (!n) {
			fab_free(f);
			return NULL;
		}
		snprintf(n->desc, sizeof(n->desc), "%s", g->node_name[i]);
		for (unsigned q = 1; q <= np; q++)
			n->ports[q].present = 1;
	}
	for (int pass = 0; f && pass < 2; pass++)
		for (size_t i = 0; i < s->n_ports; i++) {
			const struct eth_port_seen *pt = &s->ports[i];
			size_t a = node_of(g, pt->sw), b;
			unsigned ap, bp;

			if (a >= s->n_sw || !pt->up || !peer_of(pt)[0])
				continue;
			b = node_of(g, peer_of(pt));
			ap = port_num(g, a, pt->port);
			bp = port_num(g, b, port_id(pt->peer_port));
			if (pass == 0)
				set_peer(f, a, ap, b, bp);
			else if (!f->nodes[b]->ports[bp].has_peer)
				set_peer(f, b, bp, a, ap);
		}
	return f;
}

static const char *name_port(const void *arg, const struct fab_node *node, unsigned port)
{
	const struct graph *g = arg;
	size_t i = (size_t)node->guid - 1;

	if (i >= g->n_nodes || !port || g->first[i] + port > g->first[i + 1])
		return NULL;
	return g->pk[g->first[i] + port - 1].name;
}

/* A row is judged when LLDP can say something of it (eth_cabling.h). */
static int judged(const struct graph *g, const struct fab *f, size_t a, unsigned ap, size_t b,
		  unsigned bp)
{
	size_t n_sw = g->s->n_sw;

	if (a >= n_sw && b >= n_sw)
		return 0;
	if (a < n_sw && b < n_sw)
		return 1;
	if (a >= n_sw) {   /* the managed end as a */
		size_t t = a;
		unsigned tp = ap;

		a = b, ap = bp, b = t, bp = tp;
	}
	return f->nodes[a]->ports[ap].has_peer || g->seen[b];
}

static void graph_free(struct graph *g)
{
	free(g->keys);
	free(g->node_name);
	free(g->seen);
	free(g->al);
	free(g->al_name);
	free(g->pk);
	free(g->first);
}

int eth_cabling_check(const struct plan *p, const struct eth_seen *s, struct val_report *r,
		      size_t *not_seen, char *err, size_t errlen)
{
	struct graph g = { .s = s };
	struct plan q = { .n = 0 };
	struct fab *f = NULL;
	int rc;

	*not_seen = 0;
	if ((rc = make_nodes(&g, p)) < 0 || (rc = make_ports(&g, p, err, errlen)) < 0)
		goto out;
	rc = -ENOMEM;
	if (!(f = make_fab(&g)) || !(q.cables = calloc(p->n_eth + 1, sizeof(*q.cables))))
		goto out;
	snprintf(q.source, sizeof(q.source), "%s", p->source);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *c = &p->cables[i];
		struct plan_cable *n = &q.cables[q.n];
		size_t a, b;

		if (!c->eth)
			continue;
		a = node_of(&g, c->a);
		b = node_of(&g, c->b);
		*n = (struct plan_cable){ .a_port = port_num(&g, a, c->a_pname),
					  .b_port = port_num(&g, b, c->b_pname), .line = c->line };
		if (!judged(&g, f, a, n->a_port, b, n->b_port)) {
			++*not_seen;
			continue;
		}
		snprintf(n->a, sizeof(n->a), "%s", g.node_name[a]);
		snprintf(n->b, sizeof(n->b), "%s", g.node_name[b]);
		q.n++;
	}
	{
		struct cabling_ports names = { name_port, &g };

		rc = cabling_check_ports(&q, f, NULL, &names, r, err, errlen);
	}
	r->nodes = f->n_nodes;
	r->links = fab_count_links(f);
out:
	if (rc == -ENOMEM && errlen)
		snprintf(err, errlen, "out of memory");
	free(q.cables);
	fab_free(f);
	graph_free(&g);
	return rc;
}
