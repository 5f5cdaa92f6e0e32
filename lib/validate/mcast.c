/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/mcast.c: the multicast rules (mcast.h).
 *
 * Per group: gm[i], switch i's port mask for the group's MLID (NULL: the
 * switch does not forward it). A switch link i[p] - j[q] carries the group
 * from i to j when gm[i] has p. Every member hangs on a switch (a CA port
 * on the switch its cable goes to, a switch's port 0 on itself); the
 * members reach each other when their switches are in one strongly
 * connected part of that directed graph (a breadth-first pass forward and
 * one backward from a member's switch: the part with the most members is
 * the tree, the members off it are unreached) and each receiving member's
 * switch forwards to its port. Loops: union-find over the links both ends
 * of which forward. Up-down: a switch with a switch above it that sends it
 * the group and another above it that it sends the group to. */
#include "autoconf.h"
#include "lib/validate/mcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"
#include "lib/validate/fattree.h"

#define SCC_TRIES 4   /* members' switches tried as the tree's root */

void mc_data_clear(struct mc_data *d)
{
	for (size_t i = 0; i < d->n_groups; i++)
		free(d->g[i].m);
	for (size_t i = 0; i < d->n_tables; i++)
		free(d->t[i].e);
	free(d->g);
	free(d->t);
	memset(d, 0, sizeof(*d));
}

static int entry_cmp(const void *k, const void *e)
{
	uint16_t a = *(const uint16_t *)k, b = ((const struct mc_entry *)e)->mlid;

	return a < b ? -1 : a > b;
}

const struct mc_mask *mc_table_mask(const struct mc_table *t, uint16_t mlid)
{
	const struct mc_entry *e = t->n ? bsearch(&mlid, t->e, t->n, sizeof(*t->e), entry_cmp)
					: NULL;

	return e ? &e->mask : NULL;
}

const char *mc_mgid_str(const uint8_t mgid[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, mgid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/* A port GUID's place: node index and port. */
struct port_at {
	uint64_t guid;
	int32_t node;
	uint32_t port;
};

static int port_at_cmp(const void *x, const void *y)
{
	const struct port_at *a = x, *b = y;

	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

struct mc {
	const struct health_graph *g;
	const struct fab *fab;
	const struct mcast_opts *o;
	struct val_report *r;
	uint32_t *level;                /* fat tree levels, or NULL */
	struct port_at *ports;          /* CA ports and switch port 0s, by GUID */
	size_t n_ports;
	int32_t *tab_of;                /* per node: its table in d->t, or -1 */
	const struct mc_mask **gm;      /* per node: the group's mask, or NULL */
	uint8_t *fw, *bw;               /* per node: reached forward, backward */
	size_t *queue;
	int32_t *uf;                    /* union-find over nodes */
	uint8_t *recv;                  /* per port slot: a receiving member of the group */
	int32_t *msw;                   /* per member of the group: its switch, -1 none */
	uint32_t *mport;                /* and the switch's port it is on */
	int32_t *mslot;                 /* and its own port slot, -1 none */
	const struct mc_group *grp;
	char mgid[64];
	unsigned count[VAL_CODE_COUNT]; /* findings of the group per code */
};

#define NODE(c, i) ((c)->fab->nodes[i])
#define IS_SW(c, i) (NODE(c, i)->type == IBT_NODE_SWITCH)
#define NAME(c, i) nodename_of((c)->o->names, NODE(c, i)->guid, NODE(c, i)->desc)
#define PEER(c, i, p) ((c)->g->peer[(c)->g->off[i] + (p)])
#define PEER_PORT(c, i, p) ((c)->g->peer_port[(c)->g->off[i] + (p)])

/* A finding of the group, or (past MCAST_PER_GROUP of its code) only
 * counted: the count is said once the group is done. */
static int add(struct mc *c, enum val_code code, const char *want, const char *got, size_t i,
	       unsigned port)
{
	if (++c->count[code] > MCAST_PER_GROUP)
		return 0;
	return val_add(c->r, code, 0, want, got, "%s %s[%u]", c->mgid, NAME(c, i), port);
}

static int add_more(struct mc *c)
{
	for (unsigned k = 0; k < VAL_CODE_COUNT; k++) {
		char got[96];

		if (c->count[k] <= MCAST_PER_GROUP)
			continue;
		snprintf(got, sizeof(got), "%u more of this group not listed",
			 c->count[k] - MCAST_PER_GROUP);
		if (val_add(c->r, (enum val_code)k, 0, "", got, "%s", c->mgid) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int fwd(const struct mc *c, int32_t i, unsigned p)
{
	return i >= 0 && mc_mask_has(c->gm[i], p);
}

/* Breadth first from switch s over the links that carry the group,
 * forward (mark fw) or backward (bw). */
static void reach(struct mc *c, int32_t s, int forward)
{
	uint8_t *seen = forward ? c->fw : c->bw;
	size_t head = 0, tail = 0;

	seen[s] = 1;
	c->queue[tail++] = (size_t)s;
	while (head < tail) {
		size_t i = c->queue[head++];

		for (unsigned p = 1; p <= NODE(c, i)->nports; p++) {
			int32_t j = PEER(c, i, p);

			if (j < 0 || seen[j] || !IS_SW(c, j))
				continue;
			if (forward ? fwd(c, (int32_t)i, p) : fwd(c, j, PEER_PORT(c, i, p))) {
				seen[j] = 1;
				c->queue[tail++] = (size_t)j;
			}
		}
	}
}

/* Member k's switch (node index) and the port of it the member is on:
 * -1 when the member is not on a switch of the fabric. */
static int32_t member_switch(const struct mc *c, uint64_t guid, unsigned *port, int32_t *slot)
{
	struct port_at key = { .guid = guid }, *pa;
	int32_t j;

	*slot = -1;
	if (!(pa = bsearch(&key, c->ports, c->n_ports, sizeof(key), port_at_cmp)))
		return -1;
	*slot = (int32_t)(c->g->off[pa->node] + pa->port);
	if (IS_SW(c, pa->node)) {
		*port = 0;
		return pa->node;
	}
	if ((j = PEER(c, pa->node, pa->port)) < 0 || !IS_SW(c, j))
		return -1;
	*port = PEER_PORT(c, pa->node, pa->port);
	return j;
}

static int receives(const struct mc_member *m)
{
	return !m->join_state || (m->join_state & (MC_JOIN_FULL | MC_JOIN_NON));
}

/* The strongly connected part with the most members' switches: its
 * members stay marked in fw & bw. */
static void best_part(struct mc *c, const struct mc_group *gr)
{
	int32_t best = -1;
	size_t best_n = 0, tries = 0, n = c->g->n;

	memset(c->fw, 0, n);   /* the last group's */
	memset(c->bw, 0, n);
	for (size_t k = 0; k < gr->n && tries < SCC_TRIES; k++) {
		int32_t s = c->msw[k];
		size_t in = 0;

		if (s < 0 || (c->fw[s] && c->bw[s]))
			continue;   /* off the fabric, or in a part already tried */
		tries++;
		memset(c->fw, 0, n);
		memset(c->bw, 0, n);
		reach(c, s, 1);
		reach(c, s, 0);
		for (size_t m = 0; m < gr->n; m++) {
			int32_t t = c->msw[m];

			in += t >= 0 && c->fw[t] && c->bw[t];
		}
		if (in > best_n) {
			best_n = in;
			best = s;
		}
		if (2 * in > gr->n)
			break;
	}
	memset(c->fw, 0, n);
	memset(c->bw, 0, n);
	if (best >= 0) {
		reach(c, best, 1);
		reach(c, best, 0);
	}
}

static int check_members(struct mc *c, const struct mc_group *gr)
{
	if (gr->n < 2)
		return 0;   /* nobody to reach */
	best_part(c, gr);
	for (size_t k = 0; k < gr->n; k++) {
		unsigned q = c->mport[k];
		int32_t s = c->msw[k];
		char want[160];
		int rc = 0;

		if (s < 0)
			continue;   /* not in the fabric now: the sweep's findings say why */
		if (q)
			snprintf(want, sizeof(want), "%s in the group's tree",
				 NAME(c, PEER(c, s, q)));
		else
			snprintf(want, sizeof(want), "%s in the group's tree", NAME(c, s));
		if (!(c->fw[s] && c->bw[s]))
			rc = add(c, VAL_MCAST_UNREACHED, want, c->gm[s] ? "its switch is cut off from "
				 "the other members' tree" : "its switch does not forward the group",
				 (size_t)s, q);
		else if (receives(&gr->m[k]) && !fwd(c, s, q))
			rc = add(c, VAL_MCAST_UNREACHED, want,
				 "its switch does not forward the group to it", (size_t)s, q);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int32_t uf_find(int32_t *uf, int32_t i)
{
	while (uf[i] != i)
		i = uf[i] = uf[uf[i]];
	return i;
}

/* Loops, up-down and leaks: one pass over the forwarding switches. */
static int check_links(struct mc *c, const struct mc_table *tabs, size_t n_tabs)
{
	for (size_t t = 0; t < n_tabs; t++) {
		int32_t i = c->tab_of[t];

		if (i >= 0)
			c->uf[i] = i;
	}
	for (size_t t = 0; t < n_tabs; t++) {
		int32_t i = c->tab_of[t];
		unsigned up_in = 0, up_out = 0, in_port = 0, out_port = 0;

		if (i < 0 || !c->gm[i])
			continue;
		for (unsigned p = 1; p <= NODE(c, i)->nports; p++) {
			int32_t j = PEER(c, i, p);
			unsigned q = PEER_PORT(c, i, p);
			char got[320];
			int rc = 0;

			if (j < 0)
				continue;
			if (!IS_SW(c, j)) {
				if (fwd(c, i, p) && !c->recv[c->g->off[j] + q]) {
					snprintf(got, sizeof(got), "forwards the group to %s[%u], not a "
						 "member", NAME(c, j), q);
					rc = add(c, VAL_MCAST_LEAK, "only members' ports", got, (size_t)i, p);
				}
			} else if (fwd(c, i, p) && fwd(c, j, q) &&
				   (i < j || (i == j && p < q))) {
				int32_t a = uf_find(c->uf, i), b = uf_find(c->uf, j);

				if (a == b) {
					snprintf(got, sizeof(got), "%s[%u] - %s[%u] closes a cycle of "
						 "switches that forward the group", NAME(c, i), p,
						 NAME(c, j), q);
					rc = add(c, VAL_MCAST_LOOP, "a tree", got, (size_t)i, p);
				} else {
					c->uf[a] = b;
				}
			}
			if (rc < 0)
				return rc;
			if (c->level && IS_SW(c, j) && c->level[i] && c->level[j] > c->level[i]) {
				if (fwd(c, j, q) && !up_in++)
					in_port = p;
				if (fwd(c, i, p) && !up_out++)
					out_port = p;
				if (fwd(c, i, p) && p != in_port)
					out_port = p;
			}
		}
		/* a valley: down one link from above, up another */
		if (up_in && up_out && (up_in > 1 || up_out > 1 || in_port != out_port)) {
			const int32_t u = PEER(c, i, in_port);
			char got[320];

			snprintf(got, sizeof(got), "takes the group from %s above it and sends it "
				 "up again", NAME(c, u));
			if (add(c, VAL_MCAST_NOT_UPDOWN, "up, then down", got, (size_t)i, out_port) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int check_group(struct mc *c, const struct mc_data *d, const struct mc_group *gr)
{
	int rc;

	memset(c->count, 0, sizeof(c->count));
	mc_mgid_str(gr->mgid, c->mgid, sizeof(c->mgid));
	for (size_t t = 0; t < d->n_tables; t++)
		if (c->tab_of[t] >= 0)
			c->gm[c->tab_of[t]] = mc_table_mask(&d->t[t], gr->mlid);
	for (size_t k = 0; k < gr->n; k++) {
		unsigned q = 0;

		c->msw[k] = member_switch(c, gr->m[k].port_guid, &q, &c->mslot[k]);
		c->mport[k] = q;
		if (c->mslot[k] >= 0 && receives(&gr->m[k]))
			c->recv[c->mslot[k]] = 1;
	}
	if ((rc = check_members(c, gr)) == 0 && (rc = check_links(c, d->t, d->n_tables)) == 0)
		rc = add_more(c);
	for (size_t t = 0; t < d->n_tables; t++)
		if (c->tab_of[t] >= 0)
			c->gm[c->tab_of[t]] = NULL;
	for (size_t k = 0; k < gr->n; k++)
		if (c->mslot[k] >= 0)
			c->recv[c->mslot[k]] = 0;
	return rc;
}

/* Every CA port and switch port 0 by GUID. */
static int index_ports(struct mc *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->g->n; i++)
		n += IS_SW(c, i) ? 1 : NODE(c, i)->nports;
	if (!(c->ports = calloc(n + 1, sizeof(*c->ports))))
		return -ENOMEM;
	for (size_t i = 0; i < c->g->n; i++)
		for (unsigned p = IS_SW(c, i) ? 0 : 1; p <= (IS_SW(c, i) ? 0u : NODE(c, i)->nports);
		     p++) {
			const struct fab_port *pt = fab_port(NODE(c, i), p);

			if (pt && pt->guid)
				c->ports[c->n_ports++] = (struct port_at){ pt->guid, (int32_t)i, p };
		}
	qsort(c->ports, c->n_ports, sizeof(*c->ports), port_at_cmp);
	return 0;
}

int mcast_check(const struct fab *fab, const struct mc_data *d, const struct mcast_opts *o,
		struct val_report *r)
{
	struct health_graph g;
	struct mc c = { .g = &g, .fab = fab, .o = o, .r = r };
	size_t n, most = 0;
	int rc = -ENOMEM;

	if (!d->n_groups)
		return 0;
	if (health_graph_init(&g, fab) < 0)
		return -ENOMEM;
	g.names = o->names;
	n = g.n;
	for (size_t k = 0; k < d->n_groups; k++)
		most = d->g[k].n > most ? d->g[k].n : most;
	c.tab_of = calloc(d->n_tables + 1, sizeof(*c.tab_of));
	c.gm = calloc(n + 1, sizeof(*c.gm));
	c.fw = calloc(n + 1, 1);
	c.bw = calloc(n + 1, 1);
	c.queue = calloc(n + 1, sizeof(*c.queue));
	c.uf = calloc(n + 1, sizeof(*c.uf));
	c.recv = calloc(g.slots + 1, 1);
	c.msw = calloc(most + 1, sizeof(*c.msw));
	c.mport = calloc(most + 1, sizeof(*c.mport));
	c.mslot = calloc(most + 1, sizeof(*c.mslot));
	c.level = o->fat_tree ? calloc(n + 1, sizeof(*c.level)) : NULL;
	if (!c.tab_of || !c.gm || !c.fw || !c.bw || !c.queue || !c.uf || !c.recv ||
	    !c.msw || !c.mport || !c.mslot ||
	    (o->fat_tree && !c.level) || index_ports(&c) < 0)
		goto out;
	if (c.level && (rc = fattree_levels(&g, o->fat_tree, c.level)) <= 0) {
		if (rc < 0)
			goto out;
		free(c.level);
		c.level = NULL;
	}
	for (size_t t = 0; t < d->n_tables; t++) {
		int32_t i = health_graph_idx(&g, d->t[t].guid);

		c.tab_of[t] = i >= 0 && IS_SW(&c, i) ? i : -1;
	}
	rc = 0;
	for (size_t k = 0; k < d->n_groups && rc == 0; k++)
		rc = check_group(&c, d, &d->g[k]);
out:
	free(c.tab_of);
	free(c.gm);
	free(c.fw);
	free(c.bw);
	free(c.queue);
	free(c.uf);
	free(c.recv);
	free(c.msw);
	free(c.mport);
	free(c.mslot);
	free(c.level);
	free(c.ports);
	health_graph_free(&g);
	return rc;
}
