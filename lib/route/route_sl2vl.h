/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_sl2vl.h: which virtual lane a path takes on each link, for
 * the judges of credit loops per VL (route_metrics.c): the switches'
 * SL-to-VL mapping tables and the SLs the routing gives its paths.
 *
 * IBA semantics (SLtoVLMappingTable, SMP attribute 0x17): the VL a packet
 * uses on a link is chosen by the sending port, from the packet's SL; a
 * switch's table is indexed by the (input port, output port) pair, so the
 * VL on the link out of switch sw's port `out` is table(sw, in, out)[SL],
 * `in` the port the packet entered sw by. A CA port's own table picks the
 * VL of the injection link, on which nothing depends: no cycle can pass
 * through it, so the judges do not need it.
 *
 * Pairs nobody set map SL s to VL s (the identity loom's engines assume).
 *
 * The SL file: loom's OpenSM plugin writes the SL its engine gave every
 * path (the SL path_sl answers PathRecords with, class 0), so that loomd's
 * `route check` judges the tables read back with the SLs the SA hands out
 * (a PathRecord per pair would be O(n^2) queries). Text:
 *   # any comment
 *   sls MAX_LID VLS
 *   0xSWITCHGUID HEX...   one hex digit (the SL) per LID 0..MAX_LID, for
 *                         the paths entering the fabric at that switch */
#ifndef LOOM_ROUTE_SL2VL_H
#define LOOM_ROUTE_SL2VL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"

#define RT_SLS 16
#define RT_VL_DROP 15          /* an SL mapped to VL 15 is dropped on that link */

struct rt_sl2vl {
	const struct rt_graph *g;
	size_t *base;          /* per switch: its first (in, out) pair */
	uint64_t *map;         /* per pair: VL of SL s in bits 4s..4s+3 */
	size_t n_set;          /* pairs given by rt_sl2vl_set */
};

/* Tables for every switch port pair of g, all identity. NULL (errno ENOMEM). */
struct rt_sl2vl *rt_sl2vl_new(const struct rt_graph *g);
void rt_sl2vl_free(struct rt_sl2vl *t);

/* Switch sw's table for (in, out): vl[s] for s = 0..15. -EINVAL for a port
 * the switch lacks. */
int rt_sl2vl_set(struct rt_sl2vl *t, size_t sw, unsigned in, unsigned out,
		 const uint8_t vl[RT_SLS]);

static inline uint8_t rt_sl2vl_vl(const struct rt_sl2vl *t, size_t sw, unsigned in,
				  unsigned out, uint8_t sl)
{
	size_t n = (size_t)t->g->sw[sw].nports + 1;

	return (uint8_t)(t->map[t->base[sw] + in * n + out] >> (4 * (sl & 15)) & 15);
}

/* Write the SLs of l (all 0 without l->sl) for every switch of g that
 * holds CA ports, in the SL file format; sl_of maps an engine's layer to
 * the SL the paths carry (NULL: SL = layer). 0 or -EIO. */
int rt_sls_write(const struct rt_graph *g, const struct rt_lfts *l,
		 uint8_t (*sl_of)(void *ctx, uint8_t layer), void *ctx, FILE *out);

/* Read an SL file into l->sl (allocated), matched to g's switches by GUID;
 * switches the file does not name keep SL 0, LIDs beyond either's range are
 * skipped. *n_switches: the switches it gave. 0, or -EINVAL with "NAME:LINE:
 * reason" in err (a malformed line, an unknown switch), -ENOMEM. */
int rt_sls_read(const struct rt_graph *g, struct rt_lfts *l, FILE *in, const char *name,
		size_t *n_switches, char *err, size_t errlen);

#endif
