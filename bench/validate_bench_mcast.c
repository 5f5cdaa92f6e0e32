/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/validate_bench_mcast.c: validate_bench's multicast entry (issue 43):
 * 64 groups, every host a full member of each (the worst case: IPoIB on 64
 * partitions), each group's tree as OpenSM builds one on a fat tree and
 * the reader hands it (lib/validate/mcast.h): from a top switch (group k's
 * is the k-th, round robin) down to every leaf, one link per switch
 * reached, both ends forwarding, every leaf forwarding to its hosts. Times
 * mcast_check over all of them. */
#include "autoconf.h"
#include "bench/validate_bench_mcast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_rounds.h"
#include "lib/fabric/ibtypes.h"
#include "lib/validate/fattree.h"
#include "lib/validate/mcast.h"

#define GROUPS 64

/* Switch i's mask entry for group k (tables by node index). */
static struct mc_mask *mask_of(struct mc_data *d, const int32_t *tab, size_t i, size_t k)
{
	return &d->t[tab[i]].e[k].mask;
}

/* Group k's tree: breadth first down from root. */
static void tree(struct mc_data *d, const struct health_graph *g, const uint32_t *level,
		 const int32_t *tab, size_t root, size_t k, size_t *queue, uint8_t *seen)
{
	size_t head = 0, tail = 0;

	memset(seen, 0, g->n);
	seen[root] = 1;
	queue[tail++] = root;
	while (head < tail) {
		size_t i = queue[head++];
		const struct fab_node *n = g->fab->nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			int32_t j = g->peer[g->off[i] + p];

			if (j < 0)
				continue;
			if (g->fab->nodes[j]->type != IBT_NODE_SWITCH) {
				mc_mask_set(mask_of(d, tab, i, k), p);   /* a member host */
			} else if (level[j] < level[i] && !seen[j]) {
				seen[j] = 1;
				queue[tail++] = (size_t)j;
				mc_mask_set(mask_of(d, tab, i, k), p);
				mc_mask_set(mask_of(d, tab, (size_t)j, k), g->peer_port[g->off[i] + p]);
			}
		}
	}
}

static int synthesise(const struct fab *f, struct mc_data *d)
{
	struct health_graph g;
	uint32_t *level = NULL, top = 0;
	int32_t *tab = NULL;
	size_t *queue = NULL, *tops = NULL, n_tops = 0, hosts = 0;
	uint8_t *seen = NULL;
	int rc = -1;

	if (health_graph_init(&g, f) < 0)
		return -1;
	level = calloc(g.n + 1, sizeof(*level));
	tab = calloc(g.n + 1, sizeof(*tab));
	queue = calloc(g.n + 1, sizeof(*queue));
	tops = calloc(g.n + 1, sizeof(*tops));
	seen = calloc(g.n + 1, 1);
	d->g = calloc(GROUPS, sizeof(*d->g));
	d->t = calloc(g.n + 1, sizeof(*d->t));
	if (!level || !tab || !queue || !tops || !seen || !d->g || !d->t ||
	    fattree_levels(&g, 1, level) <= 0)
		goto out;
	for (size_t i = 0; i < g.n; i++)
		top = level[i] > top ? level[i] : top;
	for (size_t i = 0; i < g.n; i++) {
		const struct fab_node *n = f->nodes[i];

		if (n->type != IBT_NODE_SWITCH) {
			hosts++;
			continue;
		}
		if (level[i] == top)
			tops[n_tops++] = i;
		tab[i] = (int32_t)d->n_tables;
		d->t[d->n_tables].guid = n->guid;
		d->t[d->n_tables].n = GROUPS;
		if (!(d->t[d->n_tables++].e = calloc(GROUPS, sizeof(struct mc_entry))))
			goto out;
		for (size_t k = 0; k < GROUPS; k++)
			d->t[d->n_tables - 1].e[k].mlid = (uint16_t)(MCAST_MLID_FIRST + k);
	}
	for (size_t k = 0; k < GROUPS; k++) {
		struct mc_group *gr = &d->g[d->n_groups++];

		gr->mgid[0] = 0xff;
		gr->mgid[1] = 0x12;
		gr->mgid[15] = (uint8_t)k;
		gr->mlid = (uint16_t)(MCAST_MLID_FIRST + k);
		if (!(gr->m = calloc(hosts + 1, sizeof(*gr->m))))
			goto out;
		for (size_t i = 0; i < g.n; i++)
			if (f->nodes[i]->type != IBT_NODE_SWITCH && f->nodes[i]->ports[1].has_peer)
				gr->m[gr->n++] = (struct mc_member){ f->nodes[i]->ports[1].guid,
								     MC_JOIN_FULL };
		tree(d, &g, level, tab, tops[k % n_tops], k, queue, seen);
	}
	rc = 0;
out:
	free(level);
	free(tab);
	free(queue);
	free(tops);
	free(seen);
	health_graph_free(&g);
	return rc;
}

int bench_mcast(const struct fab *f, int rounds, double *median, double *worst,
		size_t *findings, size_t *members)
{
	struct mc_data d = { 0 };
	struct mcast_opts o = { .fat_tree = -1 };
	double t[BENCH_MCAST_MAX_ROUNDS];

	*worst = 0;
	*members = 0;
	if (rounds > BENCH_MCAST_MAX_ROUNDS || synthesise(f, &d) < 0) {
		mc_data_clear(&d);
		return -1;
	}
	for (size_t k = 0; k < d.n_groups; k++)
		*members += d.g[k].n;
	for (int k = 0; k < rounds; k++) {
		struct val_report r = { 0 };
		double a = clock_mono();

		if (mcast_check(f, &d, &o, &r) < 0) {
			mc_data_clear(&d);
			return -1;
		}
		t[k] = clock_mono() - a;
		*worst = t[k] > *worst ? t[k] : *worst;
		*findings = r.n;
		for (size_t i = 0; i < r.n && i < 10 && k == 0; i++)
			fprintf(stderr, "finding: %s %s (want %s, got %s)\n", val_code_name(r.f[i].code),
				r.f[i].subject, r.f[i].want, r.f[i].got);
		val_report_clear(&r);
	}
	*median = bench_median(t, rounds);
	mc_data_clear(&d);
	return 0;
}
