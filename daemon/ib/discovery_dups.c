/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_dups.c: see discovery_dups.h.
 *
 * What libibnetdisc does with a duplicate node GUID (checked against ibsim,
 * docs/validate-notes.md): the second device that answers NodeInfo with a
 * GUID already seen is not created; the walk links the port it was reached
 * through to the FIRST node's port of the same number, which breaks the
 * first node's own link. The first node keeps the description and the
 * directed route it was first read at; the switch port that leads to it is
 * left physically up with no peer, exactly what a neighbour that never
 * answered looks like. Two devices linked to each other with one GUID (a
 * switch and its twin) come out as a link of the switch to itself.
 *
 * Those ports are few, so each is probed again by directed route (NodeInfo,
 * NodeDescription), and the answers say which case it is: a link the merge
 * took away (the device behind it is in the graph with that port free: link
 * it again), or a second device with a GUID in the graph (a duplicate: the
 * graph keeps the device found first, where it was found, and the port
 * leading to the second is noted, so that the sweep is not refused as
 * incomplete). A switch twin hides what is behind it: nodes only reachable
 * through it are not in the graph (nor in ibnetdiscover's output). */
#include "autoconf.h"
#include "daemon/ib/discovery_dups.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "lib/util/log.h"

#define PHYS_LINKUP 5

struct cand {
	ibnd_node_t *node;
	int port;
};

struct answer {
	uint64_t guid;
	int type;
	unsigned lport;
	char desc[FAB_DESC_LEN + 1];
};

static void clean_desc(char *dst, const char *src)
{
	size_t i;

	for (i = 0; i < FAB_DESC_LEN && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

static int port_up(const ibnd_port_t *p)
{
	return mad_get_field((void *)p->info, 0, IB_PORT_PHYS_STATE_F) == PHYS_LINKUP;
}

/* The directed route out of port `port` of node n. */
static int path_out(const ibnd_node_t *n, int port, ib_portid_t *out)
{
	*out = n->path_portid;
	/* The walk starts at the local port: its routes are purely directed
	 * (no LID-routed part, which would need the local LID as DrSLID). */
	if (out->lid || out->drpath.cnt < 0 || out->drpath.cnt > IB_SUBNET_PATH_HOPS_MAX - 2)
		return -1;
	out->drpath.p[++out->drpath.cnt] = (uint8_t)port;
	return 0;
}

static int same_path(const ib_portid_t *a, const ib_portid_t *b)
{
	return a->lid == b->lid && a->drpath.cnt == b->drpath.cnt &&
	       memcmp(a->drpath.p + 1, b->drpath.p + 1, (size_t)a->drpath.cnt) == 0;
}

static int probe(struct ibmad_port *mp, ib_portid_t *path, int timeout, struct answer *a)
{
	uint8_t buf[IB_SMP_DATA_SIZE + 1];

	memset(buf, 0, sizeof(buf));
	if (!smp_query_via(buf, path, IB_ATTR_NODE_INFO, 0, (unsigned)timeout, mp))
		return -1;
	a->guid = mad_get_field64(buf, 0, IB_NODE_GUID_F);
	a->type = (int)mad_get_field(buf, 0, IB_NODE_TYPE_F);
	a->lport = mad_get_field(buf, 0, IB_NODE_LOCAL_PORT_F);
	memset(buf, 0, sizeof(buf));
	if (!smp_query_via(buf, path, IB_ATTR_NODE_DESC, 0, (unsigned)timeout, mp))
		return -1;
	clean_desc(a->desc, (const char *)buf);
	return 0;
}

static void unlink_port(ibnd_port_t *p)
{
	if (p->remoteport && p->remoteport->remoteport == p)
		p->remoteport->remoteport = NULL;
	p->remoteport = NULL;
}

static void link_two(ibnd_port_t *a, ibnd_port_t *b)
{
	unlink_port(a);
	unlink_port(b);
	a->remoteport = b;
	b->remoteport = a;
}

/* "desc" of a node, with where it hangs when it is not a switch. */
static void sighting(char *out, size_t len, const char *desc, const ibnd_port_t *on)
{
	char on_desc[FAB_DESC_LEN + 1];

	if (!on || on->node->type != IB_NODE_SWITCH) {
		snprintf(out, len, "%s", desc);
		return;
	}
	clean_desc(on_desc, on->node->nodedesc);
	snprintf(out, len, "%.64s (on %.64s[%d])", desc, on_desc, on->portnum);
}

static int add_end(struct disc_ib_dup_end **ends, size_t *n, uint64_t guid, int port)
{
	struct disc_ib_dup_end *e = realloc(*ends, (*n + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	*ends = e;
	e[*n].guid = guid;
	e[*n].port = (unsigned)port;
	(*n)++;
	return 0;
}

/* Read PortInfo of port lport of the node at path again (the merge let the
 * second device's answer overwrite the first's). */
static void reread_portinfo(struct ibmad_port *mp, ib_portid_t *path, int timeout,
			    ibnd_port_t *xp)
{
	uint8_t buf[IB_SMP_DATA_SIZE + 1];

	memset(buf, 0, sizeof(buf));
	if (!smp_query_via(buf, path, IB_ATTR_PORT_INFO, (unsigned)xp->portnum,
			   (unsigned)timeout, mp))
		return;
	memcpy(xp->info, buf, sizeof(xp->info));
	xp->base_lid = (uint16_t)mad_get_field(xp->info, 0, IB_PORT_LID_F);
	xp->lmc = (uint8_t)mad_get_field(xp->info, 0, IB_PORT_LMC_F);
}

/* What one resolve keeps across probes. */
struct dups_ctx {
	ibnd_fabric_t *ib;
	struct ibmad_port *mp;
	int timeout;
	struct fab *fab;
	struct disc_ib_dup_end *ends;
	size_t n_ends;
	struct seen { uint64_t guid; char desc[FAB_DESC_LEN + 1]; } *seen;
	size_t n_seen;
};

/* Note the duplicate once per GUID and second device (several ports lead
 * to a switch twin: one fault, one entry). */
static int note_dup(struct dups_ctx *x, uint64_t guid, const char *second_desc,
		    const char *first, const char *second)
{
	struct seen *s;

	for (size_t i = 0; i < x->n_seen; i++)
		if (x->seen[i].guid == guid && !strcmp(x->seen[i].desc, second_desc))
			return 0;
	if (!(s = realloc(x->seen, (x->n_seen + 1) * sizeof(*s))))
		return -ENOMEM;
	x->seen = s;
	s += x->n_seen++;
	s->guid = guid;
	snprintf(s->desc, sizeof(s->desc), "%s", second_desc);
	log_debug("duplicate node GUID 0x%016llx: \"%s\" and \"%s\"",
		 (unsigned long long)guid, first, second);
	return fab_add_dup(x->fab, guid, 0, first, second);
}

/* One port without a peer (or linked to its own node): what is behind it? */
static int resolve_one(struct dups_ctx *x, ibnd_node_t *node, int portnum)
{
	ibnd_port_t *port = node->ports[portnum];
	ibnd_port_t *other = NULL;
	ib_portid_t path, other_path;
	struct answer a, b;
	ibnd_node_t *n1;
	ibnd_port_t *xp;
	int here_first;
	char n1_desc[FAB_DESC_LEN + 1];
	char first[FAB_DUP_LEN], second[FAB_DUP_LEN];

	if (port->remoteport && port->remoteport->node != node)
		return 0;  /* linked again by an earlier probe */
	if (path_out(node, portnum, &path) < 0 || probe(x->mp, &path, x->timeout, &a) < 0)
		return 0;
	if (!(n1 = ibnd_find_node_guid(x->ib, a.guid)))
		return 0;  /* not a GUID the walk knows: stays incomplete */
	xp = a.lport <= (unsigned)n1->numports && n1->ports ? n1->ports[a.lport] : NULL;
	if (xp && xp->remoteport == port)
		return 0;  /* a real loopback cable */
	clean_desc(n1_desc, n1->nodedesc);
	if (xp && !xp->remoteport && n1 != node && a.type == n1->type &&
	    strcmp(a.desc, n1_desc) == 0) {
		log_debug("port %s[%d]: the link to %s[%u] lost to a duplicate GUID, restored",
			  node->nodedesc, portnum, n1_desc, a.lport);
		link_two(port, xp);
		return 0;
	}
	/* Two devices answer with this GUID. Which one is the graph's node
	 * (the one whose description the walk read)? The one with its
	 * description; if both have it, the one at the route it was read at. */
	snprintf(b.desc, sizeof(b.desc), "?");
	if (xp && (other = xp->remoteport) && other != port &&
	    other->node->type == IB_NODE_SWITCH &&
	    path_out(other->node, other->portnum, &other_path) == 0)
		(void)probe(x->mp, &other_path, x->timeout, &b);
	if (!xp || a.type != n1->type || strcmp(a.desc, n1_desc) != 0)
		here_first = 0;
	else if (other && strcmp(b.desc, n1_desc) != 0)
		here_first = 1;
	else
		here_first = same_path(&n1->path_portid, &path);
	if (here_first) {
		/* The graph's node hangs here; its link was taken by the second
		 * device, which hangs where that link leads. */
		sighting(first, sizeof(first), n1_desc, port);
		sighting(second, sizeof(second), b.desc, other);
		link_two(xp, port);
		if (n1->type != IB_NODE_SWITCH)
			reread_portinfo(x->mp, &path, x->timeout, xp);
		if (other && add_end(&x->ends, &x->n_ends, other->node->guid, other->portnum) < 0)
			return -ENOMEM;
		return note_dup(x, a.guid, b.desc, first, second);
	}
	/* This port leads to the second device. */
	sighting(first, sizeof(first), n1_desc, xp ? xp->remoteport : NULL);
	sighting(second, sizeof(second), a.desc, port);
	unlink_port(port);
	if (add_end(&x->ends, &x->n_ends, node->guid, portnum) < 0)
		return -ENOMEM;
	return note_dup(x, a.guid, a.desc, first, second);
}

int disc_ib_dups_resolve(ibnd_fabric_t *ib, const char *ca, int port, int timeout_ms,
			 uint64_t m_key, struct fab *fab, struct disc_ib_dup_end **ends, size_t *n_ends)
{
	struct cand *cands = NULL;
	size_t n = 0, cap = 0;
	int classes[2] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct dups_ctx x = { .ib = ib, .timeout = timeout_ms, .fab = fab };
	int rc = 0;

	*ends = NULL;
	*n_ends = 0;
	for (ibnd_node_t *nd = ib->nodes; nd; nd = nd->next) {
		for (int p = 1; nd->ports && p <= nd->numports; p++) {
			ibnd_port_t *pp = nd->ports[p];

			if (!pp || !port_up(pp))
				continue;
			if (nd->type != IB_NODE_SWITCH &&
			    !(nd == ib->from_node && p == ib->from_portnum))
				continue;  /* no directed route goes on through a CA */
			if (pp->remoteport && pp->remoteport->node != nd)
				continue;
			if (n == cap) {
				struct cand *nc = realloc(cands, (cap ? cap * 2 : 8) * sizeof(*nc));

				if (!nc) {
					free(cands);
					return -ENOMEM;
				}
				cands = nc;
				cap = cap ? cap * 2 : 8;
			}
			cands[n].node = nd;
			cands[n++].port = p;
		}
	}
	if (!n)
		return 0;
	x.mp = mad_rpc_open_port((char *)(ca && *ca ? ca : NULL), port, classes, 2);
	if (!x.mp) {
		log_warn("cannot open the MAD port again to look at %zu port(s) without a peer",
			 n);
		free(cands);
		return 0;
	}
	smp_mkey_set(x.mp, m_key);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = resolve_one(&x, cands[i].node, cands[i].port);
	mad_rpc_close_port(x.mp);
	free(cands);
	free(x.seen);
	*ends = x.ends;
	*n_ends = x.n_ends;
	return rc;
}
