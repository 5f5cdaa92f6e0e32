/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/fattree.c: a fat tree's structure (fattree.h). Levels are hop
 * distances from the CAs (leaves are level 1); up-down reachability is two
 * passes of leaf bitsets over the switch links: down[s], the leaves s reaches
 * going down only (bottom-up), then reach[s] = down[s] | reach[every parent]
 * (top-down): a leaf reaches up-down exactly reach[leaf]. O(switch links x
 * leaves / 64) words. */
#include "autoconf.h"
#include "lib/validate/fattree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

struct ft {
	const struct health_graph *g;
	const struct fab *fab;
	struct val_report *r;
	uint32_t *level;            /* per node: switches 1.. (leaf 1), 0 none or not a switch */
	uint32_t max_level;
	uint32_t *up;               /* per node: up links (to level + 1) */
	size_t n_leaves;
	size_t *leaf_idx;           /* per leaf number: node index */
	size_t leaf_leaf;           /* leaf-to-leaf links */
	size_t leaf_up;             /* up links of all leaves */
	int flat_link;              /* a link inside one level above the leaves */
	int ca_off_switch;          /* a CA port cabled to a CA or router */
};

#define NODE(f, i) ((f)->fab->nodes[i])
#define IS_SW(f, i) (NODE(f, i)->type == IBT_NODE_SWITCH)
/* How findings name node i: the site's name, else its description. */
#define NAME(f, i) nodename_of((f)->g->names, NODE(f, i)->guid, NODE(f, i)->desc)

/* Levels: breadth first from the leaves, over switch links only. */
static int levels(struct ft *f)
{
	const struct health_graph *g = f->g;
	size_t n = g->n, head = 0, tail = 0;
	size_t *queue = calloc(n + 1, sizeof(*queue));

	if (!queue)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct fab_node *nd = NODE(f, i);

		if (nd->type == IBT_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= nd->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j < 0)
				continue;
			if (!IS_SW(f, j)) {
				f->ca_off_switch = 1;
				continue;
			}
			if (!f->level[j]) {
				f->level[j] = 1;
				queue[tail++] = (size_t)j;
			}
		}
	}
	while (head < tail) {
		size_t i = queue[head++];

		if (f->level[i] > f->max_level)
			f->max_level = f->level[i];
		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j >= 0 && IS_SW(f, j) && !f->level[j]) {
				f->level[j] = f->level[i] + 1;
				queue[tail++] = (size_t)j;
			}
		}
	}
	free(queue);
	return 0;
}

/* Up links, leaf-to-leaf links, links inside a higher level. */
static void links(struct ft *f)
{
	const struct health_graph *g = f->g;

	for (size_t i = 0; i < g->n; i++) {
		if (!f->level[i])
			continue;
		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j < 0 || !IS_SW(f, j))
				continue;
			if (f->level[j] == f->level[i] + 1)
				f->up[i]++;
			else if (f->level[j] == f->level[i] && f->level[i] > 1)
				f->flat_link = 1;
			else if (f->level[j] == 1 && f->level[i] == 1 && (size_t)j >= i)
				f->leaf_leaf++;   /* counted from one end (both, cabled to itself) */
		}
		if (f->level[i] == 1)
			f->leaf_up += f->up[i];
	}
}

/* Most leaves have up links (a leaf that lost all of its own is the worst
 * fault of a fat tree, not a sign that it is none: a torus's or a
 * dragonfly's switches all carry hosts and none has an up link). */
static int is_fat_tree(const struct ft *f)
{
	size_t with_up = 0;

	if (f->ca_off_switch || f->flat_link || f->max_level < 2 || !f->n_leaves)
		return 0;
	for (size_t i = 0; i < f->g->n; i++) {
		if (IS_SW(f, i) && !f->level[i])
			return 0;
		with_up += f->level[i] == 1 && f->up[i];
	}
	return 2 * with_up > f->n_leaves && f->leaf_leaf < f->leaf_up;
}

/* The most common value of v over the nodes where pick says so (ties: the
 * larger); *count how many have it. */
static uint32_t mode_of(const struct ft *f, const uint32_t *v, uint32_t level, size_t *count,
			size_t *total)
{
	size_t hist[256] = { 0 };
	uint32_t best = 0;

	*total = 0;
	for (size_t i = 0; i < f->g->n; i++)
		if (f->level[i] == level) {
			hist[v[i] & 255]++;
			(*total)++;
		}
	for (uint32_t k = 0; k < 256; k++)
		if (hist[k] && hist[k] >= hist[best])
			best = k;
	*count = hist[best];
	return best;
}

static int leaf_links(struct ft *f)
{
	const struct health_graph *g = f->g;

	for (size_t i = 0; i < g->n; i++) {
		if (f->level[i] != 1)
			continue;
		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			size_t s = g->off[i] + p;
			int32_t j = g->peer[s];
			uint64_t gi = NODE(f, i)->guid, gj;

			if (j < 0 || f->level[j] != 1 || !IS_SW(f, j))
				continue;
			gj = NODE(f, j)->guid;
			if (gi > gj || (gi == gj && p > g->peer_port[s]))
				continue;   /* the link's smaller end reports it */
			if (val_add(f->r, VAL_LEAF_LINK, 0, "leaves cabled up only", "", "%s[%u] - %s[%u]",
				    NAME(f, i), p, NAME(f, j), g->peer_port[s]) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int counts(struct ft *f)
{
	uint32_t *nports = calloc(f->g->n + 1, sizeof(*nports));
	char want[96], got[64];
	size_t have, total;
	uint32_t m;
	int rc = 0;

	if (!nports)
		return -ENOMEM;
	m = mode_of(f, f->up, 1, &have, &total);
	for (size_t i = 0; i < f->g->n && rc == 0; i++) {
		nports[i] = NODE(f, i)->nports;
		if (f->level[i] != 1 || f->up[i] == m)
			continue;
		snprintf(want, sizeof(want), "%u up links (as %zu of %zu leaves)", m, have, total);
		snprintf(got, sizeof(got), "%u up links", f->up[i]);
		rc = val_add(f->r, VAL_LEAF_UPLINKS, 0, want, got, "%s", NAME(f, i));
	}
	for (uint32_t l = 1; l <= f->max_level && rc == 0; l++) {
		m = mode_of(f, nports, l, &have, &total);
		for (size_t i = 0; i < f->g->n && rc == 0; i++) {
			if (f->level[i] != l || nports[i] == m)
				continue;
			snprintf(want, sizeof(want), "%u ports (as %zu of %zu switches of level %u)", m,
				 have, total, l);
			snprintf(got, sizeof(got), "%u ports", nports[i]);
			rc = val_add(f->r, VAL_PORT_COUNT, 0, want, got, "%s", NAME(f, i));
		}
	}
	free(nports);
	return rc;
}

/* ---- up-down reachability ---------------------------------------------------------------- */

static size_t find(size_t *parent, size_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

static size_t popcount_and_not(const uint64_t *a, const uint64_t *b, size_t w)
{
	size_t n = 0;

	for (size_t k = 0; k < w; k++)
		n += (size_t)__builtin_popcountll(a[k] & ~b[k]);
	return n;
}

static void or_into(uint64_t *dst, const uint64_t *src, size_t w)
{
	for (size_t k = 0; k < w; k++)
		dst[k] |= src[k];
}

#define BIT(v, b) (((v)[(b) / 64] >> ((b) % 64)) & 1)

static int report_unreachable(struct ft *f, uint64_t *miss, size_t w)
{
	size_t L = f->n_leaves;
	uint64_t *rest = malloc(L * w * sizeof(*rest) + 1);
	size_t *cnt = calloc(L + 1, sizeof(*cnt));
	int rc = 0;

	if (!rest || !cnt) {
		free(rest);
		free(cnt);
		return -ENOMEM;
	}
	memcpy(rest, miss, L * w * sizeof(*rest));
	for (size_t l = 0; l < L; l++)
		for (size_t k = 0; k < w; k++)
			cnt[l] += (size_t)__builtin_popcountll(rest[l * w + k]);
	/* Greedy: the leaf that misses the most, first; its pairs are then
	 * explained (a leaf cut off is one finding, not one per other leaf). */
	for (;;) {
		size_t best = L, all = 0;
		char got[320], want[64];
		size_t off;

		for (size_t l = 0; l < L; l++)
			if (cnt[l] && (best == L || cnt[l] > cnt[best]))
				best = l;
		if (best == L)
			break;
		for (size_t k = 0; k < w; k++)
			all += (size_t)__builtin_popcountll(miss[best * w + k]);
		off = (size_t)snprintf(got, sizeof(got), "%zu leaves not up-down:", all);
		for (size_t b = 0; b < L; b++) {
			size_t len;

			if (!BIT(miss + best * w, b))
				continue;
			len = strlen(NAME(f, f->leaf_idx[b]));
			/* room for the longest description (as many leaves as
			 * ever without a map), or for this name */
			if (off + (len > FAB_DESC_LEN ? len : FAB_DESC_LEN) + 8 >= sizeof(got)) {
				snprintf(got + off, sizeof(got) - off, " ...");
				break;
			}
			off += (size_t)snprintf(got + off, sizeof(got) - off, " %s",
						NAME(f, f->leaf_idx[b]));
		}
		for (size_t b = 0; b < L; b++)
			if (BIT(rest + best * w, b)) {
				rest[b * w + best / 64] &= ~(1ULL << (best % 64));
				cnt[b]--;
			}
		memset(rest + best * w, 0, w * sizeof(*rest));
		cnt[best] = 0;
		snprintf(want, sizeof(want), "every leaf of its fabric up-down");
		if ((rc = val_add(f->r, VAL_UNREACHABLE, 0, want, got, "%s",
				  NAME(f, f->leaf_idx[best]))) < 0)
			break;
	}
	free(rest);
	free(cnt);
	return rc;
}

static int reachability(struct ft *f)
{
	const struct health_graph *g = f->g;
	size_t n = g->n, L = f->n_leaves, w = (L + 63) / 64, k, m = 0;
	size_t *order = calloc(n + 1, sizeof(*order)), *parent = calloc(n + 1, sizeof(*parent));
	size_t *pos = calloc(n + 1, sizeof(*pos)), *start = calloc(f->max_level + 2, sizeof(*start));
	uint64_t *down = NULL, *reach = NULL, *comp = NULL, *miss = NULL;
	int rc = -ENOMEM, any = 0;

	if (!order || !parent || !pos || !start)
		goto out;
	/* switches by level (counting sort: start[l], where level l begins);
	 * the bitsets are indexed by that position (pos), switches only */
	for (size_t i = 0; i < n; i++) {
		parent[i] = i;
		if (f->level[i])
			start[f->level[i]]++;
	}
	for (uint32_t l = 1; l <= f->max_level; l++) {
		size_t c = start[l];

		start[l] = m;
		m += c;
	}
	for (size_t i = 0; i < n; i++)
		if (f->level[i]) {
			pos[i] = start[f->level[i]]++;
			order[pos[i]] = i;
		}
	down = calloc(m * w + 1, sizeof(*down));
	reach = calloc(m * w + 1, sizeof(*reach));
	comp = calloc(m * w + 1, sizeof(*comp));   /* per component's root: its leaves */
	miss = calloc(L * w + 1, sizeof(*miss));
	if (!down || !reach || !comp || !miss)
		goto out;
	/* the components of the switch links (a rail each) */
	for (size_t i = 0; i < n; i++) {
		if (!f->level[i])
			continue;
		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j >= 0 && f->level[j])
				parent[find(parent, i)] = find(parent, (size_t)j);
		}
	}
	for (size_t b = 0; b < L; b++) {
		size_t i = f->leaf_idx[b];

		down[pos[i] * w + b / 64] |= 1ULL << (b % 64);
		comp[pos[find(parent, i)] * w + b / 64] |= 1ULL << (b % 64);
	}
	/* bottom-up: what each switch reaches going down */
	for (k = 0; k < m; k++) {
		size_t i = order[k];

		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j >= 0 && f->level[j] && f->level[j] + 1 == f->level[i])
				or_into(down + k * w, down + pos[j] * w, w);
		}
	}
	/* top-down: what each switch reaches going up then down */
	for (k = m; k-- > 0;) {
		size_t i = order[k];

		or_into(reach + k * w, down + k * w, w);
		for (unsigned p = 1; p <= NODE(f, i)->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j >= 0 && f->level[j] && f->level[j] == f->level[i] + 1)
				or_into(reach + k * w, reach + pos[j] * w, w);
		}
	}
	for (size_t b = 0; b < L; b++) {
		size_t i = f->leaf_idx[b];
		const uint64_t *c = comp + pos[find(parent, i)] * w, *rr = reach + pos[i] * w;

		for (size_t q = 0; q < w; q++)
			miss[b * w + q] = c[q] & ~rr[q];
		any |= popcount_and_not(c, rr, w) != 0;
	}
	rc = any ? report_unreachable(f, miss, w) : 0;
out:
	free(down);
	free(reach);
	free(comp);
	free(miss);
	free(order);
	free(parent);
	free(pos);
	free(start);
	return rc;
}

int fattree_check(const struct health_graph *g, int mode, struct val_report *r)
{
	struct ft f = { .g = g, .fab = g->fab, .r = r };
	size_t n = g->n;
	int rc = -ENOMEM;

	if (mode == 0 || !n)
		return 0;
	f.level = calloc(n + 1, sizeof(*f.level));
	f.up = calloc(n + 1, sizeof(*f.up));
	f.leaf_idx = calloc(n + 1, sizeof(*f.leaf_idx));
	if (!f.level || !f.up || !f.leaf_idx || levels(&f) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (f.level[i] == 1) {
			f.leaf_idx[f.n_leaves++] = i;
		}
	}
	links(&f);
	rc = 0;
	if (mode < 0 && !is_fat_tree(&f))
		goto out;
	if ((rc = leaf_links(&f)) == 0 && (rc = counts(&f)) == 0 && f.n_leaves > 1)
		rc = reachability(&f);
out:
	free(f.level);
	free(f.up);
	free(f.leaf_idx);
	return rc;
}

/* multicast (issue 43): the levels alone, for mcast.c's up-down rule */
int fattree_levels(const struct health_graph *g, int mode, uint32_t *level)
{
	struct ft f = { .g = g, .fab = g->fab, .level = level };
	int rc = -ENOMEM;

	memset(level, 0, g->n * sizeof(*level));
	if (mode == 0 || !g->n)
		return 0;
	if (!(f.up = calloc(g->n + 1, sizeof(*f.up))) || levels(&f) < 0)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		f.n_leaves += level[i] == 1;
	links(&f);
	rc = mode > 0 || is_fat_tree(&f);
out:
	free(f.up);
	return rc;
}
