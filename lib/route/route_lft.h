/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_lft.h: linear forwarding tables, what a routing engine produces:
 * for every switch of a routing graph, the output port of each LID. */
#ifndef LOOM_ROUTE_LFT_H
#define LOOM_ROUTE_LFT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/route/route_graph.h"

#define RT_NO_PORT 0xFF   /* LFT entry: destination unreachable (as in IB) */

struct rt_lfts {
	size_t n_sw;
	uint16_t max_lid;
	uint8_t *port;         /* n_sw rows of max_lid + 1 entries; 0 = the switch */
	/* What the engine that filled them found (engines set these): */
	size_t n_routed;       /* (switch, LID held by someone) entries with a port */
	size_t n_unreachable;  /* such entries left RT_NO_PORT: no path exists */
	/* Service levels, for engines that break deadlocks with virtual lanes:
	 * sl NULL means every path uses SL 0. Otherwise it has the shape of
	 * port: sl[sw][lid] is the SL of every path that enters the fabric at
	 * switch sw (its source CA hangs there) toward lid. SL s is meant to
	 * run on VL s (identity SL2VL); n_vls is how many are used (1 = none
	 * needed beyond VL 0). */
	uint8_t *sl;
	uint8_t n_vls;
	/* One line from the engine for the operator (why this engine, what it
	 * found: "fat tree of 3 levels, ..."); "" if nothing to say. */
	char note[256];
};

/* Tables for every switch of g, LIDs 0..g->max_lid, all RT_NO_PORT.
 * NULL (errno ENOMEM) on failure. */
struct rt_lfts *rt_lfts_new(const struct rt_graph *g);
void rt_lfts_free(struct rt_lfts *l);

/* Give l its SL table, all 0 (n_vls stays as it is). 0 or -ENOMEM. */
int rt_lfts_sl_alloc(struct rt_lfts *l);

/* The SL of paths entering at switch sw toward lid (0 without a table). */
static inline uint8_t rt_lfts_sl(const struct rt_lfts *l, size_t sw, unsigned lid)
{
	return l->sl ? l->sl[sw * ((size_t)l->max_lid + 1) + lid] : 0;
}

static inline uint8_t rt_lfts_get(const struct rt_lfts *l, size_t sw, unsigned lid)
{
	return l->port[sw * ((size_t)l->max_lid + 1) + lid];
}

static inline void rt_lfts_set(struct rt_lfts *l, size_t sw, unsigned lid, uint8_t port)
{
	l->port[sw * ((size_t)l->max_lid + 1) + lid] = port;
}

/* The row of one switch (max_lid + 1 entries), for engines that fill fast. */
static inline uint8_t *rt_lfts_row(struct rt_lfts *l, size_t sw)
{
	return l->port + sw * ((size_t)l->max_lid + 1);
}

/* Write the tables as `dump_fts` prints them when it reaches switches by
 * LID, which OpenSM's `file` routing engine also reads:
 *   Unicast lids [0x0-0x4] of switch Lid 2 guid 0x0000000000200000 (Switch-1):
 *     Lid  Out   Destination
 *          Port     Info 
 *   0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca-A')
 *   0x0002 000 : (Switch portguid 0x0000000000200000: 'Switch-1')
 *   2 valid lids dumped 
 * (OpenSM's own opensm-lfts.dump differs only in decoration: "[0-4]",
 * "('desc')", "# ..." instead of ": (...)", "N lids dumped".) Entries that are
 * RT_NO_PORT are left out, like dump_fts does. l must have been made for g.
 * 0 or -EIO. */
int rt_lfts_write_dump(const struct rt_graph *g, const struct rt_lfts *l, FILE *out);

/* Read tables for g from a dump: what dump_fts or ibroute print (switches
 * reached by LID or by directed route) or OpenSM's opensm-lfts.dump. A
 * table is matched to its switch by GUID; a switch the dump lacks keeps
 * RT_NO_PORT everywhere (*n_missing counts them), LIDs above g->max_lid
 * are held by nobody and skipped; n_routed / n_unreachable count the
 * entries of LIDs held by someone that have a port / have none. NULL with "NAME:LINE: reason" in err on
 * an unknown switch GUID, a port the switch lacks or a malformed line. */
struct rt_lfts *rt_lfts_read_dump(const struct rt_graph *g, FILE *in, const char *name,
				  size_t *n_missing, char *err, size_t errlen);

#endif
