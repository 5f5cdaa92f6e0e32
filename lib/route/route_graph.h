/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_graph.h: the routing graph, what every routing engine and metric
 * reads: switches and CA ports in dense, index-addressed arrays built once
 * from a fabric graph (lib/fabric/fabric.h). Engines are pure functions of it, so
 * the same code runs in the OpenSM plugin, in loomd and offline.
 *
 * Scope of this first slice: base LIDs only (LMC > 0 paths come later). */
#ifndef LOOM_ROUTE_GRAPH_H
#define LOOM_ROUTE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"

struct par_pool;

enum rt_peer_kind {
	RT_PEER_NONE = 0,      /* not cabled (or the peer is not routable) */
	RT_PEER_SWITCH,
	RT_PEER_CA,
};

/* One switch port: what is at the other end of its cable. */
struct rt_port {
	uint8_t kind;          /* enum rt_peer_kind */
	uint8_t peer_port;     /* port number at the other end */
	int32_t peer;          /* switch index or CA index, -1 if none */
};

struct rt_switch {
	uint64_t guid;         /* node GUID */
	uint16_t lid;          /* port 0's LID */
	uint8_t nports;
	uint32_t first_port;   /* its ports are g->ports[first_port + 0..nports] */
	uint32_t first_link;   /* its switch-to-switch links: g->links[first_link..] */
	uint32_t n_links;
	char desc[FAB_DESC_LEN + 1];
};

/* A CA (or router) port cabled to something: a routing endpoint. */
struct rt_ca {
	uint64_t guid;         /* port GUID */
	uint64_t node_guid;
	uint16_t lid;
	uint8_t lmc;
	uint8_t port;          /* its port number on the CA */
	uint8_t sw_port;       /* the switch port it is cabled to */
	int32_t sw;            /* that switch's index, or -1 (cabled straight to a CA:
				* no route through switches reaches it) */
	char desc[FAB_DESC_LEN + 1];
};

/* A directed switch-to-switch cable, from switch `sw` port `port` to switch
 * `peer` port `peer_port`. Each cable appears twice, once from each end. */
struct rt_link {
	int32_t sw, peer;
	uint8_t port, peer_port;
};

struct rt_graph {
	size_t n_sw, n_ca;
	struct rt_switch *sw;  /* in node GUID order */
	struct rt_ca *ca;      /* in (node GUID, port) order: "GUID order" below */
	size_t n_ports;        /* all switch ports, port 0 included */
	struct rt_port *ports; /* see rt_switch.first_port */
	size_t n_links;        /* directed switch-to-switch links */
	struct rt_link *links; /* grouped by source switch, ascending port */
	uint16_t max_lid;
	int lids_assigned;     /* the fabric lacked LIDs; rt_graph_new gave them */
	/* The threads that the engines, the refinement and the metrics reading
	 * this graph may split their work over (lib/util/par.h): set by the
	 * caller, not owned by the graph; NULL (rt_graph_new's) = the calling
	 * thread alone. Results never depend on it. */
	struct par_pool *pool;
	/* private: LID -> switch index / CA index, or -1; use the helpers */
	int32_t *lid_sw, *lid_ca;
};

/* Build the routing graph of `fab`. LIDs are the fabric's, unless any switch
 * or cabled CA port has LID 0 (topology files carry none): then all of them
 * are assigned here, deterministically, so offline runs are reproducible:
 * switches 1..n_sw in node GUID order, then CA ports n_sw+1.. in (node GUID,
 * port) order, LMC 0. Only ports with a peer count as CA ports; nodes of
 * unknown type are ignored. NULL + err on failure (duplicate LIDs, LID space
 * exhausted, out of memory). */
struct rt_graph *rt_graph_new(const struct fab *fab, char *err, size_t errlen);
void rt_graph_free(struct rt_graph *g);
/* The index in g->sw of the switch with node GUID guid (a binary search:
 * g->sw is in GUID order), or -1. */
int32_t rt_graph_switch(const struct rt_graph *g, uint64_t guid);

/* A switch port: one end of a switch-to-switch cable. */
struct rt_cut {
	int32_t sw;            /* switch index */
	uint8_t port;
};

/* A copy of g without the switch-to-switch cables that have an end in cuts
 * (both of its ends leave the graph): the same graph as rt_graph_new gives
 * of g's fabric with those cables unlinked, LIDs included, at the cost of a
 * few array copies (issue 42 judges one such graph per candidate cable).
 * pool is not copied (NULL). NULL + err when a cut is no switch-to-switch
 * cable of g, or out of memory. */
struct rt_graph *rt_graph_without(const struct rt_graph *g, const struct rt_cut *cuts,
				  size_t n, char *err, size_t errlen);

static inline const struct rt_port *rt_graph_port(const struct rt_graph *g, size_t sw,
						  unsigned port)
{
	return &g->ports[g->sw[sw].first_port + port];
}

/* Global index of a switch port (0..n_ports-1), for per-port arrays. */
static inline size_t rt_graph_port_index(const struct rt_graph *g, size_t sw, unsigned port)
{
	return g->sw[sw].first_port + port;
}

/* Hop distance of every switch from the nearest switch marked in leaf
 * (leaf[s] != 0), by one breadth-first search over switch-to-switch links;
 * RT_NO_LEVEL where no marked switch is reached. order gets the switches
 * reached, in ascending level (n_sw entries at most); returns their number.
 * Fat-tree levels: the engine (route_ftree.c) and its refinement
 * (route_refine.c) both orient their links up and down by these. */
#define RT_NO_LEVEL 0xFFFF
size_t rt_graph_levels(const struct rt_graph *g, const uint8_t *leaf, uint16_t *level,
		       int32_t *order);
/* Hop distance of every switch from switch d over every cable (one
 * breadth-first search), RT_NO_LEVEL where d is not reached; queue holds
 * n_sw entries. The engines' shortest-path fallback for switches that have
 * no up*-down* way (the fat-tree engine, the incremental reroute). */
void rt_graph_hops(const struct rt_graph *g, size_t d, uint16_t *hops, int32_t *queue);

/* rt_graph_levels from the switches with CA ports, and whether those
 * levels make a tree: 0; -EINVAL when a cable joins two switches of one
 * level or skips one (no up*-down* orientation of every cable); -ENOMEM.
 * The refinement and the incremental reroute work on such trees. */
int rt_graph_tree_levels(const struct rt_graph *g, uint16_t *level, int32_t *order);

/* The switch / CA holding `lid`, or -1 (also for lid > max_lid). */
static inline int32_t rt_graph_lid_switch(const struct rt_graph *g, unsigned lid)
{
	return lid <= g->max_lid ? g->lid_sw[lid] : -1;
}

static inline int32_t rt_graph_lid_ca(const struct rt_graph *g, unsigned lid)
{
	return lid <= g->max_lid ? g->lid_ca[lid] : -1;
}

#endif
