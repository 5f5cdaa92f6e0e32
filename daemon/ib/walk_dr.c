/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walk_dr.c: see walk_dr.h.
 *
 * What is asked, and what it is kept as, is libibnetdisc's (rdma-core 44,
 * libibnetdisc/ibnetdisc.c), so that disc_ib_map maps the same fabric:
 * - NodeInfo through every port a walk goes on: the local port first (an
 *   empty path), then, of a switch, every port physically LinkUp but the one
 *   the switch was reached by, and of the local CA its own port; the path
 *   grows one port a hop, up to libibnetdisc's 63. A node's GUID names it:
 *   a known node reached again only gets the link (and, a CA, the PortInfo
 *   of the port reached).
 * - a new node's NodeDescription; a switch's PortInfo of port 0 (its LID and
 *   LMC, which all its ports carry, and its CapabilityMask), then of ports
 *   1..N; a CA's PortInfo of each port reached. SwitchInfo is not asked:
 *   nothing loom maps comes from it.
 * - Mellanox's extended PortInfo (FDR10) exactly where libibnetdisc asks it
 *   (a device of its list, port LinkUp at a classic 10 Gb/s active speed and
 *   no extended speed active), with one saving: a device whose SMA refuses
 *   the attribute (a bad MAD status, or the local port's timeout report that
 *   a simulator gives for an attribute it does not handle) is not asked it
 *   again on its other ports. The answer is the same: libibnetdisc keeps
 *   zeros for a refused port, and an SMA implements an attribute for all of
 *   its ports or for none. Until the first answer comes, the node's other
 *   ports wait for it.
 * Unlike libibnetdisc, a port's neighbour is probed at once, not after the
 * extended PortInfo (the probe does not depend on it), and every SMP goes
 * through walk_queue.h: many nodes at once, few SMPs per node.
 *
 * Duplicate GUIDs: libibnetdisc merges a second device with the first and
 * discovery_dups.c undoes that with probes of its own. This walk does not
 * try: a GUID found where it cannot be the device already known (another
 * type or port count, a port linked twice, a link to itself, a link on a
 * port that says it is down) ends it with -EEXIST, and the caller walks the
 * subnet with libibnetdisc instead. */
#include "autoconf.h"
#include "daemon/ib/walk_dr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/dr_route.h"
#include "lib/util/clock.h"
#include "lib/util/hash.h"

/* SMPs out at once to one node: its SMA answers one at a time, and a
 * second one waiting behind it keeps it busy while the first answer travels
 * back (docs/testbed-latency.md); more would only queue there while other
 * nodes idle. */
#define WALK_PER_TARGET 2
#define PHYS_LINKUP 5
#define SPEED_ACTIVE_10 4      /* PortInfo:LinkSpeedActive 2.5 x 4 = QDR */
#define CAP_HAS_EXT_SPEEDS 0x00004000u
#define PATH_MAX_CNT 63        /* libibnetdisc's add_port_to_dpath */

enum kind { K_NODEINFO, K_NODEDESC, K_PORTINFO, K_EXTINFO };
enum ext { EXT_UNKNOWN, EXT_ASKING, EXT_YES, EXT_NO };

#define NO_NODE ((1ull << 48) - 1)
#define COOKIE(k, node, port) ((uint64_t)(k) << 56 | (uint64_t)(node) << 8 | (port))
#define C_KIND(c) ((enum kind)((c) >> 56))
#define C_NODE(c) ((size_t)(((c) >> 8) & NO_NODE))
#define C_PORT(c) ((unsigned)((c) & 0xff))

struct wnode {
	ibnd_node_t *n;
	ib_dr_path_t path;      /* how it was first reached */
	size_t target;
	uint8_t ext;            /* enum ext */
	uint8_t *pi_seen;       /* ports whose PortInfo came (numports + 1) */
	uint8_t *ext_wait;      /* ports waiting for the ext verdict */
};

struct walk {
	const struct disc_ib_params *p;
	struct walkq *q;
	ibnd_fabric_t *f;
	struct wnode *w;
	size_t n_w, cap_w;
	size_t *ht;             /* GUID -> index + 1, open addressing */
	size_t ht_cap;
};

static size_t hash_guid(uint64_t g, size_t cap)
{
	return (size_t)hash_mix64(g) & (cap - 1);
}

static long find_node(const struct walk *k, uint64_t guid)
{
	if (!k->ht_cap)
		return -1;
	for (size_t h = hash_guid(guid, k->ht_cap);; h = (h + 1) & (k->ht_cap - 1)) {
		if (!k->ht[h])
			return -1;
		if (k->w[k->ht[h] - 1].n->guid == guid)
			return (long)(k->ht[h] - 1);
	}
}

static int ht_put(struct walk *k, size_t idx)
{
	if ((k->n_w + 1) * 2 > k->ht_cap) {
		size_t cap = k->ht_cap ? k->ht_cap * 2 : 1024, *ht = calloc(cap, sizeof(*ht));

		if (!ht)
			return -ENOMEM;
		for (size_t i = 0; i < k->n_w; i++) {
			size_t h = hash_guid(k->w[i].n->guid, cap);

			while (ht[h])
				h = (h + 1) & (cap - 1);
			ht[h] = i + 1;
		}
		free(k->ht);
		k->ht = ht;
		k->ht_cap = cap;
	}
	for (size_t h = hash_guid(k->w[idx].n->guid, k->ht_cap);; h = (h + 1) & (k->ht_cap - 1))
		if (!k->ht[h]) {
			k->ht[h] = idx + 1;
			return 0;
		}
}

static int ask(struct walk *k, size_t node, enum kind kind, uint16_t attr, unsigned port,
	       unsigned flags)
{
	return walkq_add(k->q, k->w[node].target, attr, port, &k->w[node].path, flags,
			 COOKIE(kind, node, port));
}

/* libibnetdisc's is_mlnx_ext_port_info_supported (rdma-core 44). */
static int mlnx_epi_device(const ibnd_node_t *n)
{
	unsigned devid = mad_get_field((void *)n->info, 0, IB_NODE_DEVID_F) & 0xffff;
	unsigned vendor = mad_get_field((void *)n->info, 0, IB_NODE_VENDORID_F);

	if ((devid >= 0xc738 && devid <= 0xc73b) || devid == 0xc839 || devid == 0xcb20 ||
	    devid == 0xcf08 || devid == 0xcf09 || devid == 0xd2f0 ||
	    (vendor == 0x119f && (devid == 0x1b02 || devid == 0x1b50 || devid == 0x1ba0 ||
				  (devid >= 0x1bd0 && devid <= 0x1bd5) || devid == 0x1bf0)))
		return 1;
	return (devid >= 0x1003 && devid <= 0x101b) || devid == 0xa2d2 ||
	       (vendor == 0x119f &&
		(devid == 0x1b33 || devid == 0x1b73 || devid == 0x1b40 || devid == 0x1b41 ||
		 devid == 0x1b60 || devid == 0x1b61 || devid == 0x1b83 || devid == 0x1b93 ||
		 devid == 0x1b94 || devid == 0x1bb4 || devid == 0x1bb5 ||
		 (devid >= 0x1bc4 && devid <= 0x1bc6)));
}

/* libibnetdisc's condition for the extended PortInfo of port pt. */
static int wants_ext(const ibnd_node_t *n, const ibnd_port_t *pt)
{
	const uint8_t *capinfo = n->type == IB_NODE_SWITCH ? n->ports[0]->info : pt->info;
	unsigned espeed = 0;

	if (!mlnx_epi_device(n))
		return 0;
	if (mad_get_field((void *)capinfo, 0, IB_PORT_CAPMASK_F) & CAP_HAS_EXT_SPEEDS)
		espeed = mad_get_field((void *)pt->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	return mad_get_field((void *)pt->info, 0, IB_PORT_PHYS_STATE_F) == PHYS_LINKUP &&
	       mad_get_field((void *)pt->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F) ==
		       SPEED_ACTIVE_10 &&
	       espeed == 0;
}

static int ask_ext(struct walk *k, size_t node, unsigned port)
{
	struct wnode *w = &k->w[node];

	switch (w->ext) {
	case EXT_UNKNOWN:
		w->ext = EXT_ASKING;
		/* fallthrough */
	case EXT_YES:
		return ask(k, node, K_EXTINFO, IB_ATTR_MLNX_EXT_PORT_INFO, port,
			   WALKQ_STATUS_FINAL);
	case EXT_ASKING:
		w->ext_wait[port] = 1;
		return 0;
	default:
		return 0;  /* refused: zeros, as libibnetdisc keeps */
	}
}

static ibnd_port_t *port_shell(ibnd_node_t *n, unsigned num)
{
	if (!n->ports[num]) {
		if (!(n->ports[num] = calloc(1, sizeof(*n->ports[num]))))
			return NULL;
		n->ports[num]->node = n;
		n->ports[num]->portnum = (int)num;
	}
	return n->ports[num];
}

static int new_node(struct walk *k, const uint8_t *info, const ib_dr_path_t *path, size_t *idx)
{
	struct wnode *w;
	ibnd_node_t *n;
	size_t target;

	if (k->n_w == k->cap_w) {
		size_t cap = k->cap_w ? k->cap_w * 2 : 256;
		struct wnode *b = realloc(k->w, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		k->w = b;
		k->cap_w = cap;
	}
	if ((target = walkq_target(k->q)) == SIZE_MAX || !(n = calloc(1, sizeof(*n))))
		return -ENOMEM;
	memcpy(n->info, info, sizeof(n->info));
	n->guid = mad_get_field64(n->info, 0, IB_NODE_GUID_F);
	n->type = (int)mad_get_field(n->info, 0, IB_NODE_TYPE_F);
	n->numports = (int)mad_get_field(n->info, 0, IB_NODE_NPORTS_F);
	n->path_portid.drpath = *path;
	w = &k->w[k->n_w];
	*w = (struct wnode){ .n = n, .path = *path, .target = target };
	n->ports = calloc((size_t)n->numports + 1, sizeof(*n->ports));
	w->pi_seen = calloc((size_t)n->numports + 1, 1);
	w->ext_wait = calloc((size_t)n->numports + 1, 1);
	k->n_w++;  /* walk_dr_free frees it from here on */
	n->next = k->f->nodes;  /* libibnetdisc's order: the newest first */
	k->f->nodes = n;
	if (!n->ports || !w->pi_seen || !w->ext_wait)
		return -ENOMEM;
	*idx = k->n_w - 1;
	return ht_put(k, *idx);
}

/* A request that could not be queued: no memory, or more than a walk may
 * ask (walkq_add's -E2BIG). */
static int no_room(char *err, size_t errlen, int rc)
{
	snprintf(err, errlen, "%s", rc == -E2BIG ? "more SMPs than one walk can name (2^27)"
						  : "out of memory");
	return rc;
}

static int conflict(char *err, size_t errlen, uint64_t guid, const char *why)
{
	snprintf(err, errlen, "node GUID 0x%016llx found twice (%s)", (unsigned long long)guid,
		 why);
	return -EEXIST;
}

/* NodeInfo through port `from_port` of node `from` (NO_NODE: the local
 * port), along path. */
static int got_nodeinfo(struct walk *k, size_t from, unsigned from_port,
			const ib_dr_path_t *path, const uint8_t *info, char *err, size_t errlen)
{
	uint64_t guid = mad_get_field64((void *)info, 0, IB_NODE_GUID_F);
	unsigned lp = mad_get_field((void *)info, 0, IB_NODE_LOCAL_PORT_F);
	int type = (int)mad_get_field((void *)info, 0, IB_NODE_TYPE_F);
	int nports = (int)mad_get_field((void *)info, 0, IB_NODE_NPORTS_F);
	long found = find_node(k, guid);
	size_t idx;
	ibnd_node_t *n;
	ibnd_port_t *pt, *rp;
	int rc;

	if (found >= 0) {
		idx = (size_t)found;
		n = k->w[idx].n;
		if (n->type != type || n->numports != nports)
			return conflict(err, errlen, guid, "another type or port count");
		if ((size_t)found == from)
			return conflict(err, errlen, guid, "a link to itself");
	} else {
		if (nports < 0 || nports > 254 || (int)lp > nports) {
			snprintf(err, errlen, "node 0x%016llx reports %d ports (and port %u)",
				 (unsigned long long)guid, nports, lp);
			return -EPROTO;
		}
		if ((rc = new_node(k, info, path, &idx)) < 0) {
			snprintf(err, errlen, "out of memory");
			return rc;
		}
		n = k->w[idx].n;
	}
	if ((int)lp > n->numports) {
		snprintf(err, errlen, "node 0x%016llx answers through port %u of %d",
			 (unsigned long long)guid, lp, n->numports);
		return -EPROTO;
	}
	if (!(pt = port_shell(n, lp))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pt->guid = mad_get_field64((void *)info, 0, IB_NODE_PORT_GUID_F);
	if (from == NO_NODE) {
		k->f->from_node = n;
		k->f->from_portnum = (int)lp;
	} else {
		rp = k->w[from].n->ports[from_port];
		if ((pt->remoteport && pt->remoteport != rp) || (rp->remoteport && rp->remoteport != pt))
			return conflict(err, errlen, guid, "a port linked twice");
		if (k->w[idx].pi_seen[lp] &&
		    mad_get_field(pt->info, 0, IB_PORT_PHYS_STATE_F) != PHYS_LINKUP)
			return conflict(err, errlen, guid, "a link on a port that is down");
		pt->remoteport = rp;
		rp->remoteport = pt;
	}
	if (found < 0) {
		if ((rc = ask(k, idx, K_NODEDESC, IB_ATTR_NODE_DESC, 0, 0)) < 0 ||
		    (n->type == IB_NODE_SWITCH &&
		     (rc = ask(k, idx, K_PORTINFO, IB_ATTR_PORT_INFO, 0, 0)) < 0))
			goto oom;
	}
	if (n->type != IB_NODE_SWITCH) {
		/* a CA's port: along the path it was reached by this time */
		if ((rc = walkq_add(k->q, found < 0 ? k->w[idx].target : walkq_target(k->q),
				    IB_ATTR_PORT_INFO, lp, path, 0,
				    COOKIE(K_PORTINFO, idx, lp))) < 0)
			goto oom;
	}
	return 0;
oom:
	return no_room(err, errlen, rc);
}

/* The neighbour of a node's port, if libibnetdisc would go there. */
static int maybe_probe(struct walk *k, size_t idx, unsigned pn, const ib_dr_path_t *path)
{
	ibnd_node_t *n = k->w[idx].n;
	ibnd_port_t *pt = n->ports[pn];
	unsigned local = mad_get_field(pt->info, 0, IB_PORT_LOCAL_PORT_F);
	ib_dr_path_t next = *path;
	size_t t;

	if (!pn || mad_get_field(pt->info, 0, IB_PORT_PHYS_STATE_F) != PHYS_LINKUP ||
	    !((n->type == IB_NODE_SWITCH && pn != local) ||
	      (n == k->f->from_node && (int)pn == k->f->from_portnum)))
		return 0;
	if (next.cnt > PATH_MAX_CNT - 1)
		return 0;  /* libibnetdisc's hop limit */
	next.p[++next.cnt] = (uint8_t)pn;
	if ((t = walkq_target(k->q)) == SIZE_MAX)
		return -ENOMEM;
	return walkq_add(k->q, t, IB_ATTR_NODE_INFO, 0, &next, WALKQ_FIRST,
			 COOKIE(K_NODEINFO, idx, pn));
}

static int got_portinfo(struct walk *k, size_t idx, unsigned pn, const ib_dr_path_t *path,
			const uint8_t *data, char *err, size_t errlen)
{
	struct wnode *w = &k->w[idx];
	ibnd_node_t *n = w->n;
	ibnd_port_t *pt = n->ports[pn];
	int rc = 0;

	if (!pt) {
		if (!(pt = port_shell(n, pn)))
			goto oom;
		pt->guid = mad_get_field64(n->info, 0, IB_NODE_PORT_GUID_F);
	}
	memcpy(pt->info, data, sizeof(pt->info));
	w->pi_seen[pn] = 1;
	pt->base_lid = (uint16_t)mad_get_field(pt->info, 0, IB_PORT_LID_F);
	pt->lmc = (uint8_t)mad_get_field(pt->info, 0, IB_PORT_LMC_F);
	if (pt->remoteport && mad_get_field(pt->info, 0, IB_PORT_PHYS_STATE_F) != PHYS_LINKUP)
		return conflict(err, errlen, n->guid, "a link on a port that is down");
	if (pn == 0) {
		n->smalid = pt->base_lid;
		n->smalmc = pt->lmc;
		for (unsigned i = 1; i <= (unsigned)n->numports; i++)
			if ((rc = ask(k, idx, K_PORTINFO, IB_ATTR_PORT_INFO, i, 0)) < 0)
				goto oom;
	} else if (n->type == IB_NODE_SWITCH) {
		pt->base_lid = n->smalid;
		pt->lmc = n->smalmc;
	}
	if ((wants_ext(n, pt) && (rc = ask_ext(k, idx, pn)) < 0) ||
	    (rc = maybe_probe(k, idx, pn, path)) < 0)
		goto oom;
	return 0;
oom:
	return no_room(err, errlen, rc ? rc : -ENOMEM);
}

static int got_ext(struct walk *k, size_t idx, unsigned pn, enum walkq_end end,
		   const uint8_t *data, char *err, size_t errlen)
{
	struct wnode *w = &k->w[idx];
	int rc;

	if (end == WALKQ_ANSWERED)
		memcpy(w->n->ports[pn]->ext_info, data, sizeof(w->n->ports[pn]->ext_info));
	if (w->ext != EXT_ASKING)
		return 0;
	w->ext = end == WALKQ_ANSWERED ? EXT_YES : EXT_NO;
	for (unsigned i = 0; i <= (unsigned)w->n->numports; i++) {
		if (!w->ext_wait[i])
			continue;
		w->ext_wait[i] = 0;
		if (w->ext == EXT_YES && (rc = ask_ext(k, idx, i)) < 0)
			return no_room(err, errlen, rc);
	}
	return 0;
}

/* The path a probe went along: its node's and one more port (the local
 * port's: empty). */
static void probe_path(const struct walk *k, size_t from, unsigned port, ib_dr_path_t *path)
{
	memset(path, 0, sizeof(*path));
	if (from == NO_NODE)
		return;
	*path = k->w[from].path;
	path->p[++path->cnt] = (uint8_t)port;
}

static int done(void *ctx, uint64_t cookie, enum walkq_end end, uint8_t *mad, char *err,
		size_t errlen)
{
	struct walk *k = ctx;
	size_t node = C_NODE(cookie);
	unsigned port = C_PORT(cookie);
	uint8_t *data = mad ? mad + IB_SMP_DATA_OFFS : NULL;
	ib_dr_path_t path;

	if (C_KIND(cookie) == K_EXTINFO)
		return got_ext(k, node, port, end, data, err, errlen);
	if (end != WALKQ_ANSWERED)
		return 0;  /* as libibnetdisc: nothing kept; a hole fails the sweep */
	switch (C_KIND(cookie)) {
	case K_NODEINFO:
		probe_path(k, node, port, &path);
		return got_nodeinfo(k, node, port, &path, data, err, errlen);
	case K_NODEDESC:
		memcpy(k->w[node].n->nodedesc, data, IB_SMP_DATA_SIZE);
		return 0;
	case K_PORTINFO:
		return got_portinfo(k, node, port, &k->w[node].path, data, err, errlen);
	default:
		return 0;
	}
}

void walk_dr_free(ibnd_fabric_t *f)
{
	ibnd_node_t *n, *next;

	if (!f)
		return;
	for (n = f->nodes; n; n = next) {
		next = n->next;
		for (int i = 0; n->ports && i <= n->numports; i++)
			free(n->ports[i]);
		free(n->ports);
		free(n);
	}
	free(f);
}

int walk_dr_fabric(const struct disc_ib_params *p, ibnd_fabric_t **out,
		   struct walk_dr_stats *st, char *err, size_t errlen)
{
	return walk_dr_fabric_io(p, NULL, out, st, err, errlen);
}

int walk_dr_fabric_io(const struct disc_ib_params *p, const struct mad_window_io *io,
		      ibnd_fabric_t **out, struct walk_dr_stats *st, char *err, size_t errlen)
{
	struct walkq_params qp = {
		.timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : 200,
		.retries = p->retries > 0 ? (unsigned)p->retries : 0,
		.max_flight = p->max_smps > 0 ? (size_t)p->max_smps : 2,
		.per_target = WALK_PER_TARGET, .io = io, .mkey = p->m_key,
		.fd = -1, .agent = -1,
	};
	struct walk k = { .p = p };
	ib_dr_path_t local = { 0 };
	size_t t;
	int rc;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if (qp.retries > 20)
		qp.retries = 20;
	if (!io && (rc = dr_umad_open(p, &qp.fd, &qp.agent, err, errlen)) < 0)
		goto out;
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
	if (!(k.f = calloc(1, sizeof(*k.f))) || !(k.q = walkq_new(&qp, done, &k)) ||
	    (t = walkq_target(k.q)) == SIZE_MAX ||
	    walkq_add(k.q, t, IB_ATTR_NODE_INFO, 0, &local, WALKQ_FIRST,
		      COOKIE(K_NODEINFO, NO_NODE, 0)) < 0)
		goto out;
	err[0] = '\0';
	st->seconds = clock_mono();
	rc = walkq_run(k.q, err, errlen);
	st->seconds = clock_mono() - st->seconds;
	walkq_get_stats(k.q, &st->q);
	st->nodes = k.n_w;
	if (rc == 0 && !k.f->from_node) {
		snprintf(err, errlen, "the local port's node did not answer");
		rc = -EIO;
	}
out:
	walkq_free(k.q);
	dr_umad_close(qp.fd, qp.agent);
	for (size_t i = 0; i < k.n_w; i++) {
		free(k.w[i].pi_seen);
		free(k.w[i].ext_wait);
	}
	free(k.w);
	free(k.ht);
	if (rc < 0) {
		walk_dr_free(k.f);
		return rc;
	}
	*out = k.f;
	return 0;
}
