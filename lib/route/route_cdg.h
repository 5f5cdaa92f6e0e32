/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_cdg.h: channel dependency graphs, one per VL, as the judges of
 * deadlock freedom build them (route_metrics.c from the paths the tables
 * give, route_ar_metrics.c from every path the AR groups allow). A channel
 * is a directed link out of a switch, named by its global port index
 * (route_graph.h); a packet that takes channel c and then port q of the
 * switch c leads to makes c depend on that port's channel, on the VL it
 * travels. Only channels to switches have dependencies: nothing follows a
 * channel to a CA. */
#ifndef LOOM_ROUTE_CDG_H
#define LOOM_ROUTE_CDG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route_graph.h"

#define RT_CDG_VLS 256         /* every value of an SL byte: VL = SL */

/* The dependencies of VL v: bit base[c] + q of vl[v] says that channel c
 * depends on port q (0..nports) of the switch c leads to. base[c] is
 * meaningless for channels to a CA. A channel's bits may be addressed with
 * any port number 0..255, a word-wide OR of a whole 256-bit port set
 * included, without leaving the bitmap. */
struct rt_cdg {
	const struct rt_graph *g;
	size_t *base;          /* per channel: its first bit */
	size_t n_words;        /* of each VL's bitmap */
	uint64_t *vl[RT_CDG_VLS];  /* NULL until rt_cdg_use: the VL carries nothing */
	/* private: the depth-first search's path (channels, and the next port
	 * to try of the switch each leads to) and colours */
	uint32_t *path, *next;
	uint8_t *color;
};

/* Empty graphs over g's channels. 0 or -ENOMEM (then rt_cdg_free still
 * frees what was had). Memory: 17 bytes per port, plus (switch ports times
 * radix) bits per VL used. */
int rt_cdg_init(struct rt_cdg *c, const struct rt_graph *g);
void rt_cdg_free(struct rt_cdg *c);

/* Some path runs on VL v, dependencies or not: its bitmap is made (empty)
 * unless it was. 0 or -ENOMEM. */
int rt_cdg_use(struct rt_cdg *c, uint8_t v);

/* Channel chan depends on port q of the switch it leads to, on VL v
 * (after rt_cdg_use). */
static inline void rt_cdg_set(struct rt_cdg *c, uint8_t v, size_t chan, unsigned q)
{
	size_t bit = c->base[chan] + q;

	c->vl[v][bit / 64] |= 1ULL << (bit % 64);
}

/* The distinct dependencies of VL v (0 when unused). */
size_t rt_cdg_edges(const struct rt_cdg *c, uint8_t v);

/* Has VL v's graph a cycle? Depth first from every channel to a switch in
 * channel order, lowest port first, so the same graph always yields the
 * same cycle. 1 with the first cycle met in chans[0..*n - 1] (each channel
 * depends on the next, the last on chans[0]; valid until the next search;
 * chans and n may be NULL), 0 when there is none or the VL is unused.
 * O(bits of the VL). */
int rt_cdg_cycle(struct rt_cdg *c, uint8_t v, const uint32_t **chans, size_t *n);

#endif
