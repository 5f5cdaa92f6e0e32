/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_cdg.c: see route_cdg.h.
 *
 * Dependencies are counted by popcount rather than during the search: the
 * search may stop at the first cycle, and a word at a time is cheaper than
 * a bit at a time. */
#include "autoconf.h"
#include "lib/route/route_cdg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rt_cdg_init(struct rt_cdg *c, const struct rt_graph *g)
{
	size_t bits = 0;

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->base = malloc((g->n_ports + 1) * sizeof(*c->base));
	c->path = malloc((g->n_ports + 1) * sizeof(*c->path));
	c->next = malloc((g->n_ports + 1) * sizeof(*c->next));
	c->color = malloc(g->n_ports + 1);
	if (!c->base || !c->path || !c->next || !c->color)
		return -ENOMEM;
	for (size_t p = 0; p < g->n_ports; p++) {
		c->base[p] = bits;
		if (g->ports[p].kind == RT_PEER_SWITCH)
			bits += (size_t)g->sw[g->ports[p].peer].nports + 1;
	}
	/* Port 255 of the last channel, and a 256-bit mask ORed at its base
	 * shifted across five words, still land inside. */
	c->n_words = bits / 64 + 6;
	return 0;
}

void rt_cdg_free(struct rt_cdg *c)
{
	free(c->base);
	for (size_t v = 0; v < RT_CDG_VLS; v++)
		free(c->vl[v]);
	free(c->path);
	free(c->next);
	free(c->color);
}

int rt_cdg_use(struct rt_cdg *c, uint8_t v)
{
	if (!c->vl[v] && !(c->vl[v] = calloc(c->n_words, sizeof(uint64_t))))
		return -ENOMEM;
	return 0;
}

size_t rt_cdg_edges(const struct rt_cdg *c, uint8_t v)
{
	size_t total = 0;

	if (!c->vl[v])
		return 0;
	for (size_t i = 0; i < c->n_words; i++)
		total += (size_t)__builtin_popcountll(c->vl[v][i]);
	return total;
}

static inline int has(const struct rt_cdg *c, uint8_t v, size_t chan, unsigned q)
{
	size_t bit = c->base[chan] + q;

	return c->vl[v][bit / 64] >> (bit % 64) & 1;
}

/* Iterative, as paths of dependencies can be as long as there are
 * channels: recursion would overflow the stack on large fabrics. */
int rt_cdg_cycle(struct rt_cdg *c, uint8_t v, const uint32_t **chans, size_t *n)
{
	enum { WHITE, GRAY, BLACK };
	const struct rt_graph *g = c->g;

	if (!c->vl[v])
		return 0;
	memset(c->color, WHITE, g->n_ports);
	for (size_t root = 0; root < g->n_ports; root++) {
		size_t sp = 0;

		if (g->ports[root].kind != RT_PEER_SWITCH || c->color[root] != WHITE)
			continue;
		c->path[sp] = (uint32_t)root;
		c->next[sp++] = 0;
		c->color[root] = GRAY;
		while (sp > 0) {
			uint32_t chan = c->path[sp - 1], q = c->next[sp - 1]++, to;
			const struct rt_switch *s = &g->sw[g->ports[chan].peer];

			if (q > s->nports) {
				c->color[chan] = BLACK;
				sp--;
				continue;
			}
			if (!has(c, v, chan, q))
				continue;
			to = s->first_port + q;
			if (g->ports[to].kind != RT_PEER_SWITCH || c->color[to] == BLACK)
				continue;  /* toward a CA, or searched already */
			if (c->color[to] == GRAY) {
				size_t from = sp - 1;

				while (c->path[from] != to)
					from--;
				if (chans)
					*chans = &c->path[from];
				if (n)
					*n = sp - from;
				return 1;
			}
			c->path[sp] = to;
			c->next[sp++] = 0;
			c->color[to] = GRAY;
		}
	}
	return 0;
}
