/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/health.c: the rules of a healthy fabric (health.h), all but the
 * fat tree's structure (fattree.c). One pass builds flat arrays indexed by
 * node index and by port slot (off[node] + port): every peer resolved once,
 * so that no rule looks a GUID up in its inner loop. */
#include "autoconf.h"
#include "lib/validate/health.h"
#include "lib/validate/fattree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

/* PortInfo:PortState (ibt_port_state_name) */
#define PS_INIT 2
#define PS_ARMED 3
#define PS_ACTIVE 4

/* ---- the graph as arrays ---------------------------------------------------------------- */

static int u64_pair_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Index of the node of GUID guid in the sorted pairs, or -1. */
int32_t health_graph_idx(const struct health_graph *g, uint64_t guid)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->by_guid[mid][0] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->by_guid[lo][0] == guid ? (int32_t)g->by_guid[lo][1] : -1;
}

int health_graph_init(struct health_graph *g, const struct fab *fab)
{
	size_t n = fab->n_nodes, i, slots = 0;
	uint64_t (*by_guid)[2];

	memset(g, 0, sizeof(*g));
	g->fab = fab;
	g->n = n;
	g->off = calloc(n + 1, sizeof(*g->off));
	by_guid = calloc(n + 1, sizeof(*by_guid));
	g->by_guid = by_guid;
	if (!g->off || !by_guid)
		goto nomem;
	for (i = 0; i < n; i++) {
		g->off[i] = slots;
		slots += (size_t)fab->nodes[i]->nports + 1;
		by_guid[i][0] = fab->nodes[i]->guid;
		by_guid[i][1] = i;
	}
	g->off[n] = slots;
	g->slots = slots;
	qsort(by_guid, n, sizeof(*by_guid), u64_pair_cmp);
	g->peer = malloc((slots + 1) * sizeof(*g->peer));
	g->peer_port = calloc(slots + 1, 1);
	if (!g->peer || !g->peer_port)
		goto nomem;
	for (i = 0; i < n; i++) {
		const struct fab_node *nd = fab->nodes[i];

		for (unsigned p = 0; p <= nd->nports; p++) {
			const struct fab_port *pt = &nd->ports[p];
			size_t s = g->off[i] + p;
			int32_t j = -1;

			if (pt->present && pt->has_peer &&
			    (j = health_graph_idx(g, pt->peer_guid)) >= 0 &&
			    (pt->peer_port > fab->nodes[j]->nports ||
			     !fab->nodes[j]->ports[pt->peer_port].present))
				j = -1;
			g->peer[s] = j;
			g->peer_port[s] = j >= 0 ? pt->peer_port : 0;
		}
	}
	return 0;
nomem:
	health_graph_free(g);
	return -ENOMEM;
}

void health_graph_free(struct health_graph *g)
{
	free(g->off);
	free(g->by_guid);
	free(g->peer);
	free(g->peer_port);
	memset(g, 0, sizeof(*g));
}

/* node i's port p is the link's A end: the smaller (node GUID, port), as fab_link. */
static int a_end(const struct health_graph *g, size_t i, unsigned p)
{
	size_t s = g->off[i] + p;
	uint64_t gi = g->fab->nodes[i]->guid, gj = g->fab->nodes[g->peer[s]]->guid;

	return gi < gj || (gi == gj && p < g->peer_port[s]);
}

/* ---- the rules -------------------------------------------------------------------------- */

struct ctx {
	const struct fab *fab;
	const struct health_opts *o;
	struct val_report *r;
	struct health_graph g;
	double *ber;                /* per port slot, -1 unknown (NULL: no BER check) */
	int32_t *src;               /* per port slot: its row of opts->errs, -1 */
};

#define NODE(c, i) ((c)->fab->nodes[i])
#define DESC(c, i) ((c)->fab->nodes[i]->desc)
/* How findings name node i: the site's name, else its description. */
#define NAME(c, i) nodename_of((c)->o->names, NODE(c, i)->guid, DESC(c, i))

static int add_link(struct ctx *c, enum val_code code, size_t i, unsigned p, const char *want,
		    const char *got)
{
	size_t s = c->g.off[i] + p;
	size_t j = (size_t)c->g.peer[s];
	unsigned q = c->g.peer_port[s];

	return val_add(c->r, code, 0, want, got, "%s[%u] - %s[%u]", NAME(c, i), p, NAME(c, j), q);
}

static void rate_str(char *buf, size_t len, unsigned width, unsigned speed)
{
	snprintf(buf, len, "%s %s", width ? ibt_width_name(width) : "?",
		 speed ? ibt_speed_name(speed) : "?");
}

/* What a node enables on its linked ports, together: on real hardware the
 * enabled masks are the supported ones; ibsim reports every port as 12x
 * QDR-capable and enables 4x SDR (iblinkinfo says "Could be" on every
 * link), so the supported masks alone would call every simulated link
 * degraded. A link that trains below what both ends support and their
 * nodes run elsewhere is the fault a technician reseats. */
static void node_enabled(const struct ctx *c, size_t i, unsigned *w, unsigned *sp)
{
	const struct fab_node *nd = NODE(c, i);

	*w = *sp = 0;
	for (unsigned p = 1; p <= nd->nports; p++)
		if (c->g.peer[c->g.off[i] + p] >= 0) {
			*w |= nd->ports[p].width_enabled;
			*sp |= nd->ports[p].speed_enabled;
		}
}

static int link_rules(struct ctx *c, size_t i, unsigned *en_w, unsigned *en_s)
{
	const struct fab_node *nd = NODE(c, i);
	char want[320], got[320];
	int rc = 0;

	for (unsigned p = 1; p <= nd->nports && rc == 0; p++) {
		size_t s = c->g.off[i] + p, j;
		const struct fab_port *a = &nd->ports[p], *b;
		struct fab_port ta, tb;

		if (c->g.peer[s] < 0 || !a_end(&c->g, i, p))
			continue;
		j = (size_t)c->g.peer[s];
		b = &NODE(c, j)->ports[c->g.peer_port[s]];
		ta = *a;
		tb = *b;
		ta.width_supported &= en_w[i] & en_w[j];
		tb.width_supported &= en_w[i] & en_w[j];
		ta.speed_supported &= en_s[i] & en_s[j];
		tb.speed_supported &= en_s[i] & en_s[j];
		if (fab_link_degraded(&ta, &tb)) {
			rate_str(want, sizeof(want), ibt_width_best(ta.width_supported & tb.width_supported),
				 ibt_speed_best(ta.speed_supported & tb.speed_supported));
			rate_str(got, sizeof(got), a->width_active, a->speed_active);
			rc = add_link(c, VAL_DEGRADED, i, p, want, got);
		}
		if (rc == 0 && a->mtu && b->mtu && a->mtu != b->mtu) {
			snprintf(want, sizeof(want), "one MTU");
			snprintf(got, sizeof(got), "%d and %d bytes", ibt_mtu_bytes(a->mtu),
				 ibt_mtu_bytes(b->mtu));
			rc = add_link(c, VAL_MTU_MISMATCH, i, p, want, got);
		}
		/* VLs between switches only: HCAs commonly support fewer data VLs
		 * (4) than switches (8), and the link runs the smaller: normal */
		if (rc == 0 && a->vls && b->vls && a->vls != b->vls && nd->type == IBT_NODE_SWITCH &&
		    NODE(c, j)->type == IBT_NODE_SWITCH) {
			snprintf(want, sizeof(want), "one VL capability");
			snprintf(got, sizeof(got), "%u and %u data VLs", a->vls, b->vls);
			rc = add_link(c, VAL_VL_MISMATCH, i, p, want, got);
		}
		if (rc == 0 && c->ber) {
			double x = c->ber[s], y = c->ber[c->g.off[j] + c->g.peer_port[s]];
			size_t w = x >= y ? s : c->g.off[j] + c->g.peer_port[s];

			if (c->ber[w] > c->o->ber_threshold) {
				const struct health_port_errors *e = &c->o->errs[c->src[w]];

				snprintf(want, sizeof(want), "BER <= %.1e", c->o->ber_threshold);
				snprintf(got, sizeof(got), "%.2e (%s[%u]: %" PRIu64 " symbol errors in %.0f s)",
					 c->ber[w], w == s ? NAME(c, i) : NAME(c, j), e->port,
					 e->symbol_errors, e->seconds);
				rc = add_link(c, VAL_BER, i, p, want, got);
			}
		}
	}
	return rc;
}

/* One finding per link, whichever end (or both) the SM left behind: a
 * stuck link is one fault; got says each end's state. */
static int port_stuck(struct ctx *c, size_t i)
{
	const struct fab_node *nd = NODE(c, i);

	for (unsigned p = 1; p <= nd->nports; p++) {
		size_t s = c->g.off[i] + p, j;
		const struct fab_port *a = &nd->ports[p], *b;
		char got[320];

		if (c->g.peer[s] < 0 || !a_end(&c->g, i, p))
			continue;
		j = (size_t)c->g.peer[s];
		b = &NODE(c, j)->ports[c->g.peer_port[s]];
		if (a->state != PS_INIT && a->state != PS_ARMED && b->state != PS_INIT &&
		    b->state != PS_ARMED)
			continue;
		snprintf(got, sizeof(got), "%s[%u] %s, %s[%u] %s", NAME(c, i), p,
			 ibt_port_state_name(a->state), NAME(c, j), c->g.peer_port[s],
			 ibt_port_state_name(b->state));
		if (add_link(c, VAL_PORT_STUCK, i, p, "active", got) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The symbol errors of opts->errs as a BER per port slot. */
static int ber_fill(struct ctx *c)
{
	const struct health_opts *o = c->o;

	if (!(o->ber_threshold > 0) || !o->errs || !o->n_errs)
		return 0;
	c->ber = malloc(c->g.slots * sizeof(*c->ber));
	c->src = malloc(c->g.slots * sizeof(*c->src));
	if (!c->ber || !c->src)
		return -ENOMEM;
	for (size_t s = 0; s < c->g.slots; s++) {
		c->ber[s] = -1;
		c->src[s] = -1;
	}
	for (size_t k = 0; k < o->n_errs; k++) {
		const struct health_port_errors *e = &o->errs[k];
		int32_t i = health_graph_idx(&c->g, e->node_guid);
		const struct fab_port *pt;
		double bps;
		size_t s;

		if (i < 0 || !(pt = fab_port(NODE(c, i), e->port)) || !pt->has_peer ||
		    !(e->seconds > 0))
			continue;
		bps = ibt_width_lanes(pt->width_active) * ibt_lane_gbps(pt->speed_active) * 1e9;
		if (!(bps > 0))
			continue;
		s = c->g.off[i] + e->port;
		c->ber[s] = (double)e->symbol_errors / (bps * e->seconds);
		c->src[s] = (int32_t)k;
	}
	return 0;
}

/* ---- GUIDs and descriptions ------------------------------------------------------------- */

static int dups_from_discovery(struct ctx *c)
{
	char g[24];

	for (size_t k = 0; k < c->fab->n_dups; k++) {
		const struct fab_dup *d = &c->fab->dups[k];

		if (val_add(c->r, d->is_port ? VAL_DUP_PORT_GUID : VAL_DUP_NODE_GUID, 0, "", "",
			    "GUID %s on %s and %s", ibt_guid_str(d->guid, g, sizeof(g)), d->first,
			    d->second) < 0)
			return -ENOMEM;
	}
	return 0;
}

struct pguid {
	uint64_t guid;
	uint32_t node;
	uint32_t port;
};

static int pguid_cmp(const void *x, const void *y)
{
	const struct pguid *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->node != b->node ? (a->node < b->node ? -1 : 1) : (a->port > b->port) - (a->port < b->port);
}

/* One port GUID on two ports of the graph (a switch's ports share port 0's:
 * counted once), unless discovery said so already. */
static int dup_port_guids(struct ctx *c)
{
	struct pguid *v = calloc(c->g.slots + 1, sizeof(*v));
	size_t n = 0, i;
	int rc = 0;
	char g[24];

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->g.n; i++) {
		const struct fab_node *nd = NODE(c, i);

		for (unsigned p = nd->type == IBT_NODE_SWITCH ? 0 : 1; p <= nd->nports; p++) {
			if (!nd->ports[p].present || !nd->ports[p].guid)
				continue;
			v[n++] = (struct pguid){ nd->ports[p].guid, (uint32_t)i, p };
			if (nd->type == IBT_NODE_SWITCH)
				break;
		}
	}
	qsort(v, n, sizeof(*v), pguid_cmp);
	for (i = 1; i < n && rc == 0; i++) {
		int known = 0;

		if (v[i].guid != v[i - 1].guid || (i >= 2 && v[i - 2].guid == v[i].guid))
			continue;
		for (size_t k = 0; k < c->fab->n_dups; k++)
			known |= c->fab->dups[k].is_port && c->fab->dups[k].guid == v[i].guid;
		if (!known)
			rc = val_add(c->r, VAL_DUP_PORT_GUID, 0, "", "", "GUID %s on %s[%u] and %s[%u]",
				 ibt_guid_str(v[i].guid, g, sizeof(g)), NAME(c, v[i - 1].node),
				 v[i - 1].port, NAME(c, v[i].node), v[i].port);
	}
	free(v);
	return rc;
}

struct by_desc {
	const char *desc;
	size_t idx;
};

static int desc_cmp(const void *x, const void *y)
{
	const struct by_desc *a = x, *b = y;
	int r = strcmp(a->desc, b->desc);

	return r ? r : (a->idx > b->idx) - (a->idx < b->idx);
}

static int descriptions(struct ctx *c)
{
	struct by_desc *v = calloc(c->g.n + 1, sizeof(*v));
	size_t i, n = c->g.n;
	int rc = 0;
	char g[24];

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = (struct by_desc){ DESC(c, i), i };
	qsort(v, n, sizeof(*v), desc_cmp);
	for (i = 0; i < n && rc == 0;) {
		size_t k = i + 1;

		while (k < n && !strcmp(v[k].desc, v[i].desc))
			k++;
		if (!v[i].desc[0]) {
			for (size_t e = i; e < k && rc == 0; e++)
				rc = val_add(c->r, VAL_EMPTY_DESC, 0, "", "",
					 "%s %s", ibt_node_type_name(NODE(c, v[e].idx)->type),
					 ibt_guid_str(NODE(c, v[e].idx)->guid, g, sizeof(g)));
		} else if (k - i > 1) {
			char got[320];
			size_t off = (size_t)snprintf(got, sizeof(got), "%zu nodes:", k - i);

			for (size_t e = i; e < k && off + 24 < sizeof(got); e++)
				off += (size_t)snprintf(got + off, sizeof(got) - off, " %s",
							ibt_guid_str(NODE(c, v[e].idx)->guid, g, sizeof(g)));
			rc = val_add(c->r, VAL_DUP_DESC, 0, "one node", got, "%s", v[i].desc);
		}
		i = k;
	}
	free(v);
	return rc;
}

/* ---- LIDs ------------------------------------------------------------------------------- */

struct lidr {
	uint32_t lo, hi;   /* lid .. lid + 2^lmc - 1 */
	uint32_t node, port;
};

static int lidr_cmp(const void *x, const void *y)
{
	const struct lidr *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->node != b->node ? (a->node < b->node ? -1 : 1) : (a->port > b->port) - (a->port < b->port);
}

/* The ports that own a LID: a CA's or router's ports, a switch's port 0
 * (its other ports report port 0's); only ACTIVE ones: before the SM
 * brings a port up its LID means nothing. */
static int lids(struct ctx *c)
{
	struct lidr *v = calloc(c->g.slots + 1, sizeof(*v));
	size_t n = 0, i, top = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->g.n && rc == 0; i++) {
		const struct fab_node *nd = NODE(c, i);
		unsigned last = nd->type == IBT_NODE_SWITCH ? 0 : nd->nports;

		for (unsigned p = nd->type == IBT_NODE_SWITCH ? 0 : 1; p <= last && rc == 0; p++) {
			const struct fab_port *pt = &nd->ports[p];

			if (!pt->present || pt->state != PS_ACTIVE)
				continue;
			if (!pt->lid) {
				rc = val_add(c->r, VAL_LID_UNASSIGNED, 0, "a LID", "LID 0", "%s[%u]",
					 NAME(c, i), p);
				continue;
			}
			v[n++] = (struct lidr){ pt->lid, pt->lid + (1u << (pt->lmc & 7)) - 1,
						(uint32_t)i, p };
		}
	}
	qsort(v, n, sizeof(*v), lidr_cmp);
	/* each range against the earlier one that reaches furthest */
	for (i = 1; i < n && rc == 0; i++) {
		if (v[i].lo <= v[top].hi) {
			char want[64], got[96];

			snprintf(want, sizeof(want), "LIDs of their own");
			snprintf(got, sizeof(got), "LID %u lmc-range %u-%u and %u-%u", v[i].lo, v[top].lo,
				 v[top].hi, v[i].lo, v[i].hi);
			rc = val_add(c->r, VAL_LID_CONFLICT, 0, want, got, "LID %u: %s[%u] and %s[%u]",
				 v[i].lo, NAME(c, v[top].node), v[top].port, NAME(c, v[i].node),
				 v[i].port);
		}
		if (v[i].hi > v[top].hi)
			top = i;
	}
	free(v);
	return rc;
}

/* ---- the entry point -------------------------------------------------------------------- */

static int check_rules(struct ctx *c)
{
	unsigned *en_w = calloc(c->g.n + 1, sizeof(*en_w)), *en_s = calloc(c->g.n + 1, sizeof(*en_s));
	int rc = -ENOMEM;

	if (!en_w || !en_s)
		goto out;
	for (size_t i = 0; i < c->g.n; i++)
		node_enabled(c, i, &en_w[i], &en_s[i]);
	if ((rc = ber_fill(c)) < 0)
		goto out;
	for (size_t i = 0; i < c->g.n && rc == 0; i++)
		rc = link_rules(c, i, en_w, en_s);
	if (rc == 0 && c->o->sm_active)
		for (size_t i = 0; i < c->g.n && rc == 0; i++)
			rc = port_stuck(c, i);
	if (rc == 0)
		rc = dups_from_discovery(c);
	if (rc == 0)
		rc = dup_port_guids(c);
	if (rc == 0)
		rc = descriptions(c);
	if (rc == 0)
		rc = lids(c);
	if (rc == 0)
		rc = fattree_check(&c->g, c->o->fat_tree, c->r);
out:
	free(en_w);
	free(en_s);
	return rc;
}

int health_check(const struct fab *fab, const struct health_opts *opts, struct val_report *r,
		 char *err, size_t errlen)
{
	static const struct health_opts defaults = { .fat_tree = -1 };
	struct ctx c = { .fab = fab, .o = opts ? opts : &defaults, .r = r };
	size_t n0 = r->n;
	int rc;

	if (errlen)
		err[0] = '\0';
	r->nodes = fab->n_nodes;
	r->links = fab_count_links(fab);
	if ((rc = health_graph_init(&c.g, fab)) == 0) {
		c.g.names = c.o->names;
		rc = check_rules(&c);
	}
	free(c.ber);
	free(c.src);
	health_graph_free(&c.g);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		r->n = n0;
	}
	return rc;
}
