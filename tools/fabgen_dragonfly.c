/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen_dragonfly.c: dragonflies of G groups of A routers.
 *
 * Router "gG-router-R" has ports 1..P for its hosts, then A-1 local ports
 * (one cable to every other router of its group: all-to-all), then H global
 * ports. Group g thus owns A*H global ports; its k-th global cable leaves
 * from router k mod A, global port k div A, so the routers share the load.
 *
 * Global cables are laid round by round with the circle method (a
 * 1-factorization of the complete graph on the groups; with G odd a dummy
 * group sits out one group per round): every round pairs each group with
 * another one, and after each full cycle of rounds every pair of groups has
 * one more cable. Rounds go on while some pair still has a free global port
 * at both ends, so pairs differ by at most one cable. The caller ensures
 * A*H >= G-1, so the first cycle gives every pair of groups a direct cable. */
#include "autoconf.h"
#include "fabgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Pair k (0 <= k < ge/2) of round t of the circle method on ge teams. */
static void circle_pair(int ge, int t, int k, int *x, int *y)
{
	int m = ge - 1;
	if (k == 0) {
		*x = m;
		*y = t;
	} else {
		*x = (t + k) % m;
		*y = (t - k + m) % m;
	}
}

static int global_port(const struct fg_dragonfly_opts *o, int slot, int *router)
{
	*router = slot % o->routers;
	return o->hosts_per_router + (o->routers - 1) + 1 + slot / o->routers;
}

static int lay_global(struct fg_fabric *f, const struct fg_dragonfly_opts *o,
		      int r0, long *nglobal)
{
	int G = o->groups, cap = o->routers * o->global;
	int ge = G % 2 ? G + 1 : G;
	int *used = calloc((size_t)G, sizeof(*used));
	int added, r = 0;

	if (!used)
		return -ENOMEM;
	*nglobal = 0;
	do {
		added = 0;
		for (int t = 0; t < ge - 1 && r == 0; t++) {
			for (int k = 0; k < ge / 2; k++) {
				int x, y, rx, ry;
				circle_pair(ge, t, k, &x, &y);
				if (x >= G || y >= G)
					continue;	/* the dummy group */
				if (used[x] >= cap || used[y] >= cap)
					continue;
				int px = global_port(o, used[x]++, &rx);
				int py = global_port(o, used[y]++, &ry);
				r = fg_connect(f, r0 + x * o->routers + rx, px,
					       r0 + y * o->routers + ry, py);
				if (r < 0)
					break;
				added++;
				(*nglobal)++;
			}
		}
	} while (added && r == 0);
	free(used);
	return r;
}

int fg_build_dragonfly(struct fg_fabric *f, const struct fg_dragonfly_opts *o)
{
	int A = o->routers, P = o->hosts_per_router;
	int nrouters = o->groups * A;
	int nports = P + (A - 1) + o->global;
	int digits = fg_host_digits((long)nrouters * P);
	long nglobal = 0;
	int r;

	for (int h = 0; h < nrouters * P; h++)
		if ((r = fg_add_node(f, FG_HCA, 1, -1, "host-%0*d", digits, h)) < 0)
			return r;
	int r0 = f->nnodes;
	for (int g = 0; g < o->groups; g++)
		for (int i = 0; i < A; i++)
			if ((r = fg_add_node(f, FG_SWITCH, nports, 0, "g%d-router-%d",
					     g, i)) < 0)
				return r;
	for (int h = 0; h < nrouters * P; h++)
		if ((r = fg_connect(f, h, 1, r0 + h / P, h % P + 1)) < 0)
			return r;
	/* Local all-to-all: router i reaches router j on local port j-1 when
	 * j > i and on local port j otherwise (its own index is skipped). */
	for (int g = 0; g < o->groups; g++)
		for (int i = 0; i < A; i++)
			for (int j = i + 1; j < A; j++)
				if ((r = fg_connect(f, r0 + g * A + i, P + 1 + (j - 1),
						    r0 + g * A + j, P + 1 + i)) < 0)
					return r;
	if ((r = lay_global(f, o, r0, &nglobal)) < 0)
		return r;
	snprintf(f->kind, sizeof(f->kind),
		 "dragonfly: %d groups of %d routers, %d hosts/router, %ld global links",
		 o->groups, A, P, nglobal);
	return 0;
}
