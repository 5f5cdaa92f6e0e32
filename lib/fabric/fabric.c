/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric.c: the fabric graph. */
#include "autoconf.h"
#include "lib/fabric/fabric.h"
#include "lib/util/hash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fab *fab_new(const char *subnet)
{
	struct fab *fab = calloc(1, sizeof(*fab));

	if (!fab)
		return NULL;
	snprintf(fab->subnet, sizeof(fab->subnet), "%s", subnet ? subnet : "");
	fab->smps.sent = fab->smps.retries = fab->smps.lost = FAB_COUNT_UNKNOWN;
	fab->refs = 1;
	return fab;
}

struct fab *fab_hold(struct fab *fab)
{
	__atomic_add_fetch(&fab->refs, 1, __ATOMIC_RELAXED);
	return fab;
}

void fab_free(struct fab *fab)
{
	if (!fab || __atomic_sub_fetch(&fab->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		free(fab->nodes[i]->ports);
		free(fab->nodes[i]);
	}
	free(fab->nodes);
	free(fab->hash);
	free(fab->dups);
	free(fab->sms);
	free(fab);
}

int fab_add_sm(struct fab *fab, const struct fab_sm *sm)
{
	struct fab_sm *s;

	if (fab->n_sms >= FAB_SM_MAX)
		return -ENOSPC;
	if (!(s = realloc(fab->sms, (fab->n_sms + 1) * sizeof(*s))))
		return -ENOMEM;
	fab->sms = s;
	s[fab->n_sms++] = *sm;
	return 0;
}

const char *fab_sm_state_name(unsigned state)
{
	static const char *const names[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };

	return state < 4 ? names[state] : "?";
}

int fab_add_dup(struct fab *fab, uint64_t guid, int is_port, const char *first,
		const char *second)
{
	struct fab_dup *d = realloc(fab->dups, (fab->n_dups + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	fab->dups = d;
	d += fab->n_dups++;
	memset(d, 0, sizeof(*d));
	d->guid = guid;
	d->is_port = !!is_port;
	snprintf(d->first, sizeof(d->first), "%.*s", (int)sizeof(d->first) - 1, first);
	snprintf(d->second, sizeof(d->second), "%.*s", (int)sizeof(d->second) - 1, second);
	return 0;
}

struct port_ref {
	uint64_t guid;
	size_t node;   /* index in fab->nodes */
	unsigned port;
};

static int cmp_port_ref(const void *a, const void *b)
{
	const struct port_ref *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

int fab_find_port_dups(struct fab *fab)
{
	struct port_ref *refs;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		cap += (size_t)fab->nodes[i]->nports + 1;
	if (!(refs = malloc((cap ? cap : 1) * sizeof(*refs))))
		return -ENOMEM;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *nd = fab->nodes[i];

		for (unsigned p = 0; p <= nd->nports; p++) {
			const struct fab_port *fp = &nd->ports[p];

			if (!fp->present || !fp->guid)
				continue;
			if (nd->type == IBT_NODE_SWITCH && p != 0)
				continue;  /* one GUID for all of a switch's ports */
			refs[n].guid = fp->guid;
			refs[n].node = i;
			refs[n++].port = p;
		}
	}
	qsort(refs, n, sizeof(*refs), cmp_port_ref);
	for (size_t i = 1; i < n && rc == 0; i++) {
		const struct port_ref *a = &refs[i - 1], *b = &refs[i];
		char first[FAB_DESC_LEN + 8], second[FAB_DESC_LEN + 8];

		if (a->guid != b->guid)
			continue;
		/* Report each further sighting against the first one. */
		for (size_t j = i - 1; j > 0 && refs[j - 1].guid == b->guid; j--)
			a = &refs[j - 1];
		snprintf(first, sizeof(first), "%.64s[%u]", fab->nodes[a->node]->desc, a->port);
		snprintf(second, sizeof(second), "%.64s[%u]", fab->nodes[b->node]->desc, b->port);
		rc = fab_add_dup(fab, b->guid, 1, first, second);
	}
	free(refs);
	return rc;
}

static size_t guid_slot(uint64_t guid, size_t size)
{
	return (size_t)hash_mix64(guid) & (size - 1);
}

static void hash_insert(struct fab_node **hash, size_t size, struct fab_node *node)
{
	size_t i = guid_slot(node->guid, size);

	while (hash[i])
		i = (i + 1) & (size - 1);
	hash[i] = node;
}

static int hash_grow(struct fab *fab)
{
	size_t size = fab->hash_size ? fab->hash_size * 2 : 64;
	struct fab_node **hash = calloc(size, sizeof(*hash));

	if (!hash)
		return -ENOMEM;
	for (size_t i = 0; i < fab->n_nodes; i++)
		hash_insert(hash, size, fab->nodes[i]);
	free(fab->hash);
	fab->hash = hash;
	fab->hash_size = size;
	return 0;
}

struct fab_node *fab_find(const struct fab *fab, uint64_t guid)
{
	if (!fab->hash_size)
		return NULL;
	for (size_t i = guid_slot(guid, fab->hash_size); fab->hash[i];
	     i = (i + 1) & (fab->hash_size - 1))
		if (fab->hash[i]->guid == guid)
			return fab->hash[i];
	return NULL;
}

struct fab_node *fab_add_node(struct fab *fab, int type, uint64_t guid, uint8_t nports)
{
	struct fab_node *node;

	if (fab_find(fab, guid)) {
		errno = EEXIST;
		return NULL;
	}
	if ((fab->n_nodes + 1) * 2 > fab->hash_size && hash_grow(fab) < 0)
		goto nomem;
	if (fab->n_nodes == fab->cap) {
		size_t cap = fab->cap ? fab->cap * 2 : 64;
		struct fab_node **nodes = realloc(fab->nodes, cap * sizeof(*nodes));

		if (!nodes)
			goto nomem;
		fab->nodes = nodes;
		fab->cap = cap;
	}
	node = calloc(1, sizeof(*node));
	if (!node)
		goto nomem;
	node->ports = calloc((size_t)nports + 1, sizeof(*node->ports));
	if (!node->ports) {
		free(node);
		goto nomem;
	}
	for (unsigned i = 0; i <= nports; i++)
		node->ports[i].num = (uint8_t)i;
	node->type = type;
	node->guid = guid;
	node->nports = nports;
	fab->nodes[fab->n_nodes++] = node;
	hash_insert(fab->hash, fab->hash_size, node);
	return node;
nomem:
	errno = ENOMEM;
	return NULL;
}

struct fab_node *fab_copy_node(struct fab *fab, const struct fab_node *n)
{
	struct fab_node *c = fab_add_node(fab, n->type, n->guid, n->nports);

	if (!c)
		return NULL;
	c->sysimg_guid = n->sysimg_guid;
	c->vendor_id = n->vendor_id;
	c->device_id = n->device_id;
	c->revision = n->revision;
	memcpy(c->desc, n->desc, sizeof(c->desc));
	memcpy(c->ports, n->ports, ((size_t)n->nports + 1) * sizeof(*c->ports));
	return c;
}

struct fab *fab_dup(const struct fab *fab)
{
	struct fab *c = fab_new(fab->subnet);

	if (!c)
		return NULL;
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (!fab_copy_node(c, fab->nodes[i]))
			goto fail;
	for (size_t i = 0; i < fab->n_dups; i++)
		if (fab_add_dup(c, fab->dups[i].guid, fab->dups[i].is_port, fab->dups[i].first,
				fab->dups[i].second) < 0)
			goto fail;
	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab_add_sm(c, &fab->sms[i]) < 0)
			goto fail;
	/* the ports' keys came along; the SMs' answers are not this sweep's */
	c->sm_read = fab->sm_read == FAB_SM_NOT_READ ? FAB_SM_NOT_READ : FAB_SM_COPIED;
	return c;
fail:
	fab_free(c);
	return NULL;
}

static void port_down(struct fab_port *p)
{
	p->state = 1;       /* PortState Down */
	p->phys_state = 2;  /* Polling */
	p->width_active = 0;
	p->speed_active = 0;
	p->has_peer = 0;
	p->peer_guid = 0;
	p->peer_port = 0;
}

int fab_unlink(struct fab *fab, uint64_t guid, unsigned port)
{
	struct fab_node *n = fab_find(fab, guid), *peer;

	if (!n || port > n->nports)
		return -ENOENT;
	if (n->ports[port].has_peer && (peer = fab_find(fab, n->ports[port].peer_guid)) &&
	    n->ports[port].peer_port <= peer->nports)
		port_down(&peer->ports[n->ports[port].peer_port]);
	port_down(&n->ports[port]);
	return 0;
}

struct fab_port *fab_port(const struct fab_node *node, unsigned num)
{
	if (!node || num > node->nports || !node->ports[num].present)
		return NULL;
	return &node->ports[num];
}

const struct fab_port *fab_peer(const struct fab *fab, const struct fab_port *port,
				const struct fab_node **peer_node)
{
	struct fab_node *n;

	if (!port->has_peer || !(n = fab_find(fab, port->peer_guid)))
		return NULL;
	if (peer_node)
		*peer_node = n;
	return fab_port(n, port->peer_port);
}

static int cmp_node(const void *a, const void *b)
{
	uint64_t ga = (*(struct fab_node *const *)a)->guid;
	uint64_t gb = (*(struct fab_node *const *)b)->guid;

	return ga < gb ? -1 : ga > gb;
}

void fab_sort(struct fab *fab)
{
	if (fab->n_nodes > 1)
		qsort(fab->nodes, fab->n_nodes, sizeof(*fab->nodes), cmp_node);
}

int fab_foreach_link(const struct fab *fab,
		     int (*fn)(const struct fab_link *link, void *arg), void *arg)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			const struct fab_port *port = &n->ports[p];
			const struct fab_node *peer_node;
			const struct fab_port *peer;
			struct fab_link link;
			int rc;

			if (!port->present || !(peer = fab_peer(fab, port, &peer_node)))
				continue;
			if (peer_node->guid < n->guid ||
			    (peer_node->guid == n->guid && peer->num < port->num))
				continue; /* reported from the other end */
			link.a_node = n;
			link.a = port;
			link.b_node = peer_node;
			link.b = peer;
			if ((rc = fn(&link, arg)) != 0)
				return rc;
		}
	}
	return 0;
}

size_t fab_count_ports(const struct fab *fab)
{
	size_t count = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		for (unsigned p = 0; p <= fab->nodes[i]->nports; p++)
			count += fab->nodes[i]->ports[p].present;
	return count;
}

static int count_one(const struct fab_link *link, void *arg)
{
	(*(size_t *)arg)++;
	return 0;
}

size_t fab_count_links(const struct fab *fab)
{
	size_t count = 0;

	fab_foreach_link(fab, count_one, &count);
	return count;
}

size_t fab_count_type(const struct fab *fab, int type)
{
	size_t count = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		count += fab->nodes[i]->type == type;
	return count;
}

int fab_link_degraded(const struct fab_port *a, const struct fab_port *b)
{
	unsigned width = ibt_width_best(a->width_supported & b->width_supported);
	unsigned speed = ibt_speed_best(a->speed_supported & b->speed_supported);

	if (width && ibt_width_lanes(a->width_active) < ibt_width_lanes(width))
		return 1;
	if (speed && a->speed_active < speed)
		return 1;
	return 0;
}

int fab_check(const struct fab *fab, char *err, size_t errlen)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			const struct fab_port *port = &n->ports[p];
			const struct fab_node *pn;
			const struct fab_port *peer;

			if (!port->present || !port->has_peer)
				continue;
			peer = fab_peer(fab, port, &pn);
			if (!peer || !peer->has_peer || peer->peer_guid != n->guid ||
			    peer->peer_port != p) {
				snprintf(err, errlen,
					 "port 0x%016" PRIx64 "[%u] names peer 0x%016" PRIx64
					 "[%u], which does not point back",
					 n->guid, p, port->peer_guid, port->peer_port);
				return -EINVAL;
			}
		}
	}
	return 0;
}
