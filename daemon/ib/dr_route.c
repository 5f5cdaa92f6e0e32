/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/dr_route.c: see dr_route.h. */
#include "autoconf.h"
#include "daemon/ib/dr_route.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "daemon/ib/mad_build.h"
#include "daemon/ib/mad_window.h"

/* Index of a node in fab (sorted by GUID), or -1. */
static long node_index(const struct fab *fab, const struct fab_node *n)
{
	size_t lo = 0, hi = fab->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fab->nodes[mid]->guid == n->guid)
			return (long)mid;
		if (fab->nodes[mid]->guid < n->guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The node and port of the local HCA port in the swept fabric. */
static int find_local(const struct disc_ib_params *p, const struct fab *fab,
		      const struct fab_node **node, unsigned *port, char *err, size_t errlen)
{
	const char *ca = p->ca && *p->ca ? p->ca : NULL;
	umad_port_t up;
	uint64_t guid;

	if (umad_get_port(ca, p->port, &up) < 0) {
		snprintf(err, errlen, "local port %s/%d: no such HCA or port",
			 ca ? ca : "(first HCA)", p->port);
		return -ENODEV;
	}
	guid = be64toh(up.port_guid);
	*port = (unsigned)up.portnum;
	umad_release_port(&up);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];
		const struct fab_port *fp = fab_port(n, n->type == IBT_NODE_SWITCH ? 0 : *port);

		if (fp && fp->guid == guid) {
			*node = n;
			if (n->type == IBT_NODE_SWITCH)
				*port = 0;
			return 0;
		}
	}
	snprintf(err, errlen, "the local port (GUID 0x%016llx) is not in the swept fabric",
		 (unsigned long long)guid);
	return -ENOENT;
}

int dr_routes_build(const struct disc_ib_params *p, const struct fab *fab,
		    struct dr_routes *out, char *err, size_t errlen)
{
	struct dr_route *queue;
	uint8_t *seen;
	size_t head = 0, tail = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = find_local(p, fab, &out->local, &out->local_port, err, errlen)) < 0)
		return rc;
	queue = calloc(fab->n_nodes + 1, sizeof(*queue));
	seen = calloc(fab->n_nodes + 1, 1);
	if (!queue || !seen) {
		free(queue);
		free(seen);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (out->local->type == IBT_NODE_SWITCH) {
		queue[tail++] = (struct dr_route){ .n = out->local };
	} else {
		const struct fab_node *first = NULL;

		if (fab_peer(fab, fab_port(out->local, out->local_port), &first) &&
		    first->type == IBT_NODE_SWITCH) {
			queue[tail] = (struct dr_route){ .n = first };
			queue[tail].path.cnt = 1;
			queue[tail++].path.p[1] = (uint8_t)out->local_port;
		}
	}
	if (tail)
		seen[node_index(fab, queue[0].n)] = 1;
	while (head < tail) {
		const struct dr_route *d = &queue[head++];

		for (unsigned port = 1; port <= d->n->nports; port++) {
			const struct fab_node *peer;
			struct dr_route *q;
			long idx;

			if (!fab_peer(fab, fab_port(d->n, port), &peer) ||
			    peer->type != IBT_NODE_SWITCH || (idx = node_index(fab, peer)) < 0 ||
			    seen[idx] || d->path.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX)
				continue;
			seen[idx] = 1;
			q = &queue[tail++];
			*q = (struct dr_route){ .n = peer, .path = d->path };
			q->path.p[++q->path.cnt] = (uint8_t)port;
		}
	}
	free(seen);
	out->r = queue;
	out->n = tail;
	if (tail != fab_count_type(fab, IBT_NODE_SWITCH)) {
		snprintf(err, errlen, "only %zu of the %zu switches are reachable by directed "
			 "route from the local port", tail, fab_count_type(fab, IBT_NODE_SWITCH));
		dr_routes_clear(out);
		return -EIO;
	}
	return 0;
}

void dr_routes_clear(struct dr_routes *d)
{
	free(d->r);
	memset(d, 0, sizeof(*d));
}

struct ibmad_port *dr_open_port(const struct disc_ib_params *p, char *err, size_t errlen)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct ibmad_port *mp;

	mp = mad_rpc_open_port((char *)(p->ca && *p->ca ? p->ca : NULL), p->port, classes, 2);
	if (!mp) {
		snprintf(err, errlen, "cannot open local port %s/%d for SMPs",
			 p->ca && *p->ca ? p->ca : "(first HCA)", p->port);
		return NULL;
	}
	if (p->timeout_ms > 0)
		mad_rpc_set_timeout(mp, p->timeout_ms);
	if (p->retries > 0)
		mad_rpc_set_retries(mp, p->retries);
	smp_mkey_set(mp, p->m_key);  /* every SMP of the port carries it */
	return mp;
}

int dr_smp_build(uint8_t *buf, size_t blen, int method, uint16_t attr, uint32_t am,
		 const ib_dr_path_t *path, uint32_t tid, const uint8_t *data)
{
	const struct madb_req r = { .mgmt_class = IB_SMI_DIRECT_CLASS, .method = method,
				    .attr = attr, .am = am, .tid = tid, .path = path,
				    .data = data };

	return madb_build(buf, blen, &r);
}

int dr_umad_open(const struct disc_ib_params *p, int *fd, int *agent, char *err,
		 size_t errlen)
{
	const char *ca = p->ca && *p->ca ? p->ca : NULL;

	*fd = *agent = -1;
	if (umad_init() < 0 || (*fd = umad_open_port(ca, p->port)) < 0) {
		*fd = -1;
		snprintf(err, errlen, "cannot open local port %s/%d for SMPs",
			 ca ? ca : "(first HCA)", p->port);
		return -ENODEV;
	}
	if ((*agent = umad_register(*fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL)) < 0) {
		*agent = -1;
		snprintf(err, errlen, "cannot register for directed-route SMPs on the local port");
		return -EIO;
	}
	return 0;
}

void dr_window_params(const struct disc_ib_params *p, struct mad_window_params *wp)
{
	wp->timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : 200;
	wp->retries = p->retries > 0 ? (unsigned)p->retries : 0;
	wp->max_flight = p->max_smps > 0 ? (size_t)p->max_smps : 1;
	wp->mkey = p->m_key;
}

void dr_umad_close(int fd, int agent)
{
	mad_window_drain(fd);
	if (agent >= 0)
		umad_unregister(fd, agent);
	if (fd >= 0)
		umad_close_port(fd);
}

int dr_ca_ports(const struct fab *fab, const struct dr_routes *d, size_t i, dr_ca_port_fn fn,
		void *ctx)
{
	const struct dr_route *r = &d->r[i];
	int rc = 0;

	for (unsigned port = 1; rc == 0 && port <= r->n->nports; port++) {
		const struct fab_port *far;
		const struct fab_node *ca;

		if (!(far = fab_peer(fab, fab_port(r->n, port), &ca)) || ca->type != IBT_NODE_CA ||
		    (ca == d->local && far->num == d->local_port) ||
		    r->path.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX)
			continue;
		rc = fn(ctx, r, port, ca, far);
	}
	return rc;
}
