/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen_damage.c: seeded damage for generated fabrics: cut links
 * (removed without splitting any plane) and slow links (narrowed to 1x).
 *
 * The generator is splitmix64 so that a seed gives the same file on every
 * libc and machine: tests compare files byte for byte. */
#include "autoconf.h"
#include "fabgen.h"

#include <errno.h>
#include <stdlib.h>

void fg_rng_seed(struct fg_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t fg_rng_next(struct fg_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n): draws above the last whole multiple of n are redrawn,
 * so small n carry no modulo bias. */
uint64_t fg_rng_below(struct fg_rng *r, uint64_t n)
{
	if (n <= 1)
		return 0;
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = fg_rng_next(r);
	while (x >= limit);
	return x % n;
}

/* Indices of the switch-to-switch links not yet cut (and, for slow, not yet
 * slow), in a seeded random order. */
static int shuffled_candidates(const struct fg_fabric *f, int skip_slow,
			       struct fg_rng *r, int **out, int *count)
{
	int *c = malloc(((size_t)f->nlinks + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	int n = 0;
	for (int i = 0; i < f->nlinks; i++) {
		const struct fg_link *l = &f->links[i];
		if (l->cut || (skip_slow && l->slow) || !fg_is_switch_link(f, l))
			continue;
		c[n++] = i;
	}
	for (int i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		int j = (int)fg_rng_below(r, (uint64_t)i + 1);
		int t = c[i];
		c[i] = c[j];
		c[j] = t;
	}
	*out = c;
	*count = n;
	return 0;
}

/* Connected components of the switches over uncut switch-to-switch links.
 * Hosts are left out on purpose: subnet management packets do not cross an
 * HCA, so a plane that only hangs together through hosts is split. */
static int switch_components(const struct fg_fabric *f, int *seen, int *stack)
{
	int comps = 0;

	for (int i = 0; i < f->nnodes; i++)
		seen[i] = 0;
	for (int s = 0; s < f->nnodes; s++) {
		if (seen[s] || f->nodes[s].type != FG_SWITCH)
			continue;
		comps++;
		int top = 0;
		stack[top++] = s;
		seen[s] = 1;
		while (top > 0) {
			const struct fg_node *n = &f->nodes[stack[--top]];
			for (int p = 1; p <= n->nports; p++) {
				int li = n->ports[p].link;
				if (li < 0)
					continue;
				const struct fg_link *l = &f->links[li];
				if (l->cut || !fg_is_switch_link(f, l))
					continue;
				int peer = &f->nodes[l->a] == n ? l->b : l->a;
				if (!seen[peer]) {
					seen[peer] = 1;
					stack[top++] = peer;
				}
			}
		}
	}
	return comps;
}

int fg_cut_links(struct fg_fabric *f, int n, struct fg_rng *r)
{
	int *cand = NULL, ncand = 0;
	int *seen = malloc(((size_t)f->nnodes + 1) * sizeof(*seen));
	int *stack = malloc(((size_t)f->nnodes + 1) * sizeof(*stack));
	int ret = -ENOMEM;

	if (!seen || !stack)
		goto out;
	ret = shuffled_candidates(f, 0, r, &cand, &ncand);
	if (ret < 0)
		goto out;
	/* A cut that splits the switches apart is undone and the next
	 * candidate tried: the fabric must stay one subnet per plane. */
	int comps = switch_components(f, seen, stack);
	int done = 0;
	for (int i = 0; i < ncand && done < n; i++) {
		f->links[cand[i]].cut = 1;
		if (switch_components(f, seen, stack) > comps)
			f->links[cand[i]].cut = 0;
		else
			done++;
	}
	ret = done < n ? -ENOSPC : 0;
out:
	free(cand);
	free(seen);
	free(stack);
	return ret;
}

int fg_slow_links(struct fg_fabric *f, int n, struct fg_rng *r)
{
	int *cand = NULL, ncand = 0;
	int ret = shuffled_candidates(f, 1, r, &cand, &ncand);

	if (ret < 0)
		return ret;
	if (ncand < n) {
		free(cand);
		return -ENOSPC;
	}
	for (int i = 0; i < n; i++)
		f->links[cand[i]].slow = 1;
	free(cand);
	return 0;
}
