/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/slurm/slurm_topo.h: Slurm's topology.conf from a fabric (issue 24).
 *
 * Slurm's topology/tree plugin places a job under as few switches as it
 * can; it reads one line per switch: a leaf's Slurm nodes (`Nodes=`, in
 * Slurm's hostlist form) or a switch's child switches (`Switches=`), and a
 * LinkSpeed it keeps but does not use yet. topology/block (Slurm 23.11+)
 * reads blocks of nodes (`BlockName= Nodes=`) and `BlockSizes=`.
 *
 * From the fabric:
 *   - the levels are the routing graph's (lib/route/route_graph.h's
 *     rt_graph_tree_levels: hop distance from the switches with CAs); a
 *     fabric where a cable joins two switches of one level or skips one
 *     (a torus, a dragonfly, hosts on a spine) is no tree and is refused
 *     with the cable named: Slurm's plugins describe trees of switches
 *     (tree) or groups of nodes (block), never rings or all-to-all groups;
 *   - a leaf is a switch with CA ports that map to Slurm nodes (the host
 *     rule of lib/fabric/hostmap.h); CA ports that map to no node are left
 *     out and counted; a leaf without any node is left out, and so is an
 *     upper switch with no kept switch below it;
 *   - an upper switch lists its kept neighbours one level below (in a fat
 *     tree a leaf is a child of every spine it reaches: Slurm takes a child
 *     under several parents and finds the lowest switch above any set);
 *   - multi-rail hosts: one rail decides. A host is placed under the leaf of
 *     its first CA port in (node GUID, port) order, usually mlx5_0's; its
 *     other ports are counted (other_rail_ports). Slurm's tree plugin wants
 *     a node under one leaf (a node under two is an error in its log and
 *     makes the lowest common switch meaningless), and rail-optimised
 *     fabrics are planes of the same shape, so one rail's tree is every
 *     rail's; the other planes' switches stay out of the file;
 *   - switch names: the node description with every run of characters
 *     other than [A-Za-z0-9.-] made one '_' ("r0/leaf 1" -> "r0_leaf_1"), none at
 *     either end,
 *     at most 40 bytes; empty, the GUID ("ibsw-0002c90300a1b2c3"); two
 *     switches with one name both get "-" and their GUID's 16 hex digits
 *     after it (a name is Slurm's only key for a switch);
 *   - Slurm node names are taken as the host rule gives them; one with a
 *     character Slurm's parser or hostlist syntax takes as syntax
 *     (whitespace , [ ] = # " ') is left out, counted and named with its
 *     port (bad_names): a node description is set by root on its host, and
 *     one host must not keep the file from every other; a name over 63 bytes
 *     is one the host rule cannot hold: its port maps to no node, counted
 *     and named with the other unmapped ports;
 *   - LinkSpeed: the fastest active rate (lanes x lane rate in Gb/s,
 *     rounded) among the switch's cables to the nodes or switches it lists.
 * The same fabric and map give the same text (no clock, names sorted). */
#ifndef LOOM_SLURM_TOPO_H
#define LOOM_SLURM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/hostmap.h"
#include "lib/fabric/nodename.h"

#define SLURM_NAME_LEN 64
#define SLURM_UNMAPPED_SHOWN 8

enum slurm_topo_format { SLURM_TOPO_TREE, SLURM_TOPO_BLOCK };

struct slurm_switch {
	char name[SLURM_NAME_LEN];  /* Slurm's name for it */
	uint64_t guid;
	char desc[FAB_DESC_LEN + 1];
	unsigned level;             /* 0: a leaf */
	unsigned link_speed;        /* Gb/s, LinkSpeed= */
	size_t n_nodes;             /* a leaf's Slurm nodes, sorted */
	char **nodes;
	size_t n_children;          /* an upper switch's children (indices into sw) */
	size_t *children;
};

struct slurm_topo {
	size_t n_sw;
	struct slurm_switch *sw;    /* by level, then name */
	size_t n_leaves, levels;
	size_t n_nodes;             /* Slurm nodes placed */
	size_t unmapped_ports;      /* CA ports mapping to no Slurm node */
	/* the first of them, "desc[port]", in (node GUID, port) order */
	char unmapped[SLURM_UNMAPPED_SHOWN][FAB_DESC_LEN + 8];
	size_t other_rail_ports;    /* ports of placed nodes not on their deciding rail */
	size_t bad_name_ports;      /* CA ports whose host Slurm cannot take as a name */
	/* the first of them, "\"host\" (port GUID, \"desc\" port N)" */
	char bad_names[SLURM_UNMAPPED_SHOWN][HOSTMAP_NAME_LEN + FAB_DESC_LEN + 48];
};

/* The topology of fab under the host rule hm, switches named by names (the
 * site's node-name-map; NULL: by description), made Slurm names: 0, or
 * -EINVAL (not a tree, a name Slurm refuses, no Slurm node at all) /
 * -ENOMEM with err saying why. */
int slurm_topo_build(const struct fab *fab, const struct hostmap *hm,
		     const struct nodename_map *names, struct slurm_topo *t, char *err,
		     size_t errlen);
void slurm_topo_clear(struct slurm_topo *t);

/* The file's lines for `format` (what Slurm reads: compare these to see
 * whether Slurm would see a change), or NULL (out of memory). */
char *slurm_topo_text(const struct slurm_topo *t, int format);
/* The comment lines loom writes above them: what it was made from, the
 * counts, the first CA ports that map to no node. */
char *slurm_topo_header(const struct slurm_topo *t, int format, const char *subnet);
/* {"format", "switches": [{"name", "guid", "desc", "level", "link_speed",
 * "nodes"?, "switches"?}], "leaves", "levels", "nodes", "unmapped_ports",
 * "other_rail_ports", "unmapped", "bad_name_ports", "bad_names"} */
json_t *slurm_topo_json(const struct slurm_topo *t, int format);
/* What changed for Slurm from `old` to `cur`, one line ("leaf l3 gone (n[5-6]); host
 * h7 moved from l1 to l2; switch s4 added"), at most len bytes (the end cut
 * with "..."); "" when nothing did. Returns the number of changes. */
size_t slurm_topo_diff(const struct slurm_topo *old, const struct slurm_topo *cur, char *buf,
		       size_t len);
/* "tree" / "block" -> format: 0, or -EINVAL. */
int slurm_topo_format_parse(const char *s, int *format);
const char *slurm_topo_format_name(int format);

#endif
