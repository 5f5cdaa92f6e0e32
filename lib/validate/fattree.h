/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/fattree.h: inside lib/validate/, what health.c shares with
 * fattree.c: the fabric as flat arrays (every peer resolved once) and the fat
 * tree's structural rules (health.h: port-count, leaf-uplinks, leaf-link,
 * unreachable). */
#ifndef LOOM_VALIDATE_FATTREE_H
#define LOOM_VALIDATE_FATTREE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

struct health_graph {
	const struct fab *fab;
	const struct nodename_map *names;  /* findings name nodes by it (NULL: none) */
	size_t n;                  /* fab->n_nodes */
	size_t slots;              /* port slots: node i's port p is off[i] + p */
	size_t *off;               /* n + 1 entries */
	int32_t *peer;             /* per slot: the peer's node index, -1 none */
	uint8_t *peer_port;        /* per slot: the peer's port */
	uint64_t (*by_guid)[2];    /* (node GUID, index) sorted */
};

/* 0 or -ENOMEM (g is then empty). */
int health_graph_init(struct health_graph *g, const struct fab *fab);
void health_graph_free(struct health_graph *g);
/* The index of the node of that GUID, or -1. */
int32_t health_graph_idx(const struct health_graph *g, uint64_t guid);

/* The fat tree's rules when mode is 1, or -1 and the fabric is one (every CA
 * port on a switch, switches in levels by hop distance from the CAs, every
 * switch link between adjacent levels or between two leaves, at least two
 * levels, every leaf with an up link). 0 or -ENOMEM. */
int fattree_check(const struct health_graph *g, int mode, struct val_report *r);
/* Each node's level into level[g->n] (switches 1.., leaves 1; 0: not a
 * switch of the tree): 1 when the fat tree's rules apply (mode 1, or -1 and
 * the fabric is one), 0 when not (level zeroed when mode is 0), -ENOMEM. */
int fattree_levels(const struct health_graph *g, int mode, uint32_t *level);

#endif
