/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_part.c: see fabric_part.h. */
#include "autoconf.h"
#include "lib/fabric/fabric_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHYS_LINKUP 5       /* PortInfo:PortPhysicalState LinkUp */

/* The ports whose peer the walk read (every port of the node walked from,
 * and the ports of other nodes whose link it crossed): where two ends
 * disagree, these are right. */
struct fresh {
	size_t n, cap;
	struct { uint64_t guid; unsigned port; } *p;
};

static int fresh_add(struct fresh *f, uint64_t guid, unsigned port)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		void *p = realloc(f->p, cap * sizeof(*f->p));

		if (!p)
			return -ENOMEM;
		f->p = p;
		f->cap = cap;
	}
	f->p[f->n].guid = guid;
	f->p[f->n++].port = port;
	return 0;
}

static int is_fresh(const struct fresh *f, uint64_t guid, unsigned port)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->p[i].guid == guid && f->p[i].port == port)
			return 1;
	return 0;
}

static void stale_add(struct fab_part_stale *st, const struct fab *part, uint64_t guid)
{
	if (fab_find(part, guid))
		return;  /* the walk read it */
	for (size_t i = 0; i < st->n; i++)
		if (st->guid[i] == guid)
			return;
	if (st->n == FAB_PART_MAX_STALE) {
		st->overflow = 1;
		return;
	}
	st->guid[st->n++] = guid;
}

/* The port at the other end of fp's link, or NULL. */
static struct fab_port *peer_of(const struct fab *fab, const struct fab_port *fp)
{
	struct fab_node *n;

	if (!fp->has_peer || !(n = fab_find(fab, fp->peer_guid)) || fp->peer_port > n->nports)
		return NULL;
	return &n->ports[fp->peer_port];
}

static int points_at(const struct fab_port *fp, uint64_t guid, unsigned port)
{
	return fp->has_peer && fp->peer_guid == guid && fp->peer_port == port;
}

static void clear_peer(struct fab_port *fp)
{
	fp->has_peer = 0;
	fp->peer_guid = 0;
	fp->peer_port = 0;
}

/* A node the fabric does not have: a CA whose links the walk followed all
 * is simply added; anything else hides what only a full walk can find. */
static int add_new(struct fab *fab, const struct fab_node *pn, char *err, size_t errlen)
{
	if (pn->type == IBT_NODE_SWITCH) {
		snprintf(err, errlen, "a new switch 0x%016" PRIx64 " (\"%s\"): what is behind it "
			 "is unknown", pn->guid, pn->desc);
		return -EAGAIN;
	}
	for (unsigned q = 1; q <= pn->nports; q++)
		if (pn->ports[q].phys_state == PHYS_LINKUP && !pn->ports[q].has_peer) {
			snprintf(err, errlen, "a new device 0x%016" PRIx64 " (\"%s\") has a link "
				 "on port %u the walk did not follow", pn->guid, pn->desc, q);
			return -EAGAIN;
		}
	return fab_copy_node(fab, pn) ? 0 : -ENOMEM;
}

/* One node the walk read, over the fabric's copy of it. */
static int update_node(struct fab *fab, const struct fab *part, struct fab_node *fn,
		       const struct fab_node *pn, int is_from, struct fresh *fr,
		       struct fab_part_stale *st)
{
	fn->sysimg_guid = pn->sysimg_guid;
	fn->vendor_id = pn->vendor_id;
	fn->device_id = pn->device_id;
	fn->revision = pn->revision;
	memcpy(fn->desc, pn->desc, sizeof(fn->desc));
	for (unsigned q = 0; q <= pn->nports; q++) {
		const struct fab_port *pp = &pn->ports[q];
		struct fab_port *fp = &fn->ports[q], old = *fp;

		if (!pp->present && !is_from)
			continue;  /* not read: keep what was known */
		*fp = *pp;
		if (is_from || pp->has_peer) {
			if (fresh_add(fr, fn->guid, q) < 0)
				return -ENOMEM;
		} else if (pp->phys_state == PHYS_LINKUP) {
			/* Up, toward a node the walk did not cross to. */
			fp->has_peer = old.has_peer;
			fp->peer_guid = old.peer_guid;
			fp->peer_port = old.peer_port;
		}
		if (old.has_peer && !points_at(fp, old.peer_guid, old.peer_port))
			stale_add(st, part, old.peer_guid);
	}
	return 0;
}

/* Every link both ends must agree on: where they do not, the end the walk
 * read wins, and the loser's node is read again. */
static void settle(struct fab *fab, const struct fab *part, const struct fresh *fr,
		   struct fab_part_stale *st)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct fab_node *n = fab->nodes[i];

		for (unsigned q = 0; q <= n->nports; q++) {
			struct fab_port *fp = &n->ports[q], *bp;

			if (!fp->has_peer)
				continue;
			bp = peer_of(fab, fp);
			if (bp && points_at(bp, n->guid, q))
				continue;
			if (bp && is_fresh(fr, n->guid, q) && !is_fresh(fr, fp->peer_guid, fp->peer_port)) {
				/* This end was read: the other end's old partner
				 * lost its link. */
				struct fab_port *cp = peer_of(fab, bp);

				if (cp && points_at(cp, fp->peer_guid, fp->peer_port)) {
					stale_add(st, part, bp->peer_guid);
					clear_peer(cp);
				}
				bp->has_peer = 1;
				bp->peer_guid = n->guid;
				bp->peer_port = (uint8_t)q;
				continue;
			}
			stale_add(st, part, n->guid);
			clear_peer(fp);
		}
	}
}

int fab_part_merge(struct fab *fab, const struct fab *part, uint64_t from,
		   struct fab_part_stale *stale, char *err, size_t errlen)
{
	struct fresh fr = { 0 };
	int rc = 0;

	for (size_t i = 0; i < part->n_nodes && rc == 0; i++) {
		const struct fab_node *pn = part->nodes[i];
		struct fab_node *fn = fab_find(fab, pn->guid);

		if (!fn) {
			rc = add_new(fab, pn, err, errlen);
			if (rc == 0)
				rc = fresh_add(&fr, pn->guid, 0);  /* its peers came from the walk */
			for (unsigned q = 1; rc == 0 && q <= pn->nports; q++)
				if (pn->ports[q].has_peer)
					rc = fresh_add(&fr, pn->guid, q);
			continue;
		}
		if (fn->type != pn->type || fn->nports != pn->nports) {
			snprintf(err, errlen, "0x%016" PRIx64 " (\"%s\") is now a %s of %u ports",
				 pn->guid, pn->desc, ibt_node_type_name(pn->type), pn->nports);
			rc = -EAGAIN;
			break;
		}
		rc = update_node(fab, part, fn, pn, pn->guid == from, &fr, stale);
	}
	if (rc == 0)
		settle(fab, part, &fr, stale);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(fr.p);
	return rc;
}

struct fab *fab_part_reachable(const struct fab *fab, uint64_t local)
{
	size_t n = fab->n_nodes, head = 0, tail = 0;
	const struct fab_node **queue = calloc(n + 1, sizeof(*queue));
	struct fab *out = fab_new(fab->subnet), *keep = NULL;
	struct fab_node *start = fab_find(fab, local);

	if (!queue || !out || !start)
		goto done;
	/* out doubles as the visited set (fab_find), in the order met. */
	if (!fab_copy_node(out, start))
		goto done;
	queue[tail++] = start;
	while (head < tail) {
		const struct fab_node *u = queue[head++];

		for (unsigned q = 0; q <= u->nports; q++) {
			const struct fab_port *fp = &u->ports[q], *bp = peer_of(fab, fp);
			struct fab_node *v;

			if (!bp || !points_at(bp, u->guid, q) || fab_find(out, fp->peer_guid))
				continue;
			v = fab_find(fab, fp->peer_guid);
			if (!fab_copy_node(out, v))
				goto done;
			queue[tail++] = v;
		}
	}
	/* In fab's order, and no port pointing at a dropped node. */
	if (!(keep = fab_new(fab->subnet)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct fab_node *c;

		if (!fab_find(out, fab->nodes[i]->guid))
			continue;
		if (!(c = fab_copy_node(keep, fab->nodes[i]))) {
			fab_free(keep);
			keep = NULL;
			goto done;
		}
		for (unsigned q = 0; q <= c->nports; q++)
			if (c->ports[q].has_peer && !fab_find(out, c->ports[q].peer_guid))
				clear_peer(&c->ports[q]);
	}
	for (size_t i = 0; i < fab->n_dups; i++)
		if (fab_add_dup(keep, fab->dups[i].guid, fab->dups[i].is_port, fab->dups[i].first,
				fab->dups[i].second) < 0) {
			fab_free(keep);
			keep = NULL;
			goto done;
		}
done:
	free(queue);
	fab_free(out);
	return keep;
}

int fab_part_dangling(const struct fab *fab, char *err, size_t errlen)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		for (unsigned q = 1; q <= n->nports; q++) {
			const struct fab_port *fp = &n->ports[q];

			if (fp->present && !fp->has_peer && fp->phys_state == PHYS_LINKUP) {
				snprintf(err, errlen, "0x%016" PRIx64 " (\"%s\") port %u has a link "
					 "to a device no walk has read", n->guid, n->desc, q);
				return 1;
			}
		}
	}
	return 0;
}
