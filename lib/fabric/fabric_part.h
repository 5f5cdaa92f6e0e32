/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_part.h: a fabric kept up to date by partial walks (issue 23,
 * discovery that follows the fabric). When a switch reports a change, only
 * that switch is walked again, with its neighbours (libibnetdisc from the
 * switch, one hop): what the walk found is merged into the last complete
 * fabric, the devices no longer reachable are dropped, and the result must
 * be what a full walk would find. Where the walk cannot tell (a new switch
 * behind the changed one: its whole subtree is unknown), the merge says so
 * and the caller walks the whole subnet instead.
 *
 * What a partial walk from switch F knows:
 *   - F: every port, and every peer (a port whose link is up leads to a
 *     node the walk reached);
 *   - the nodes one hop from F and those on the directed route to F: every
 *     port's state, width, speed..., but only the peers the walk crossed.
 * So a port of a neighbour keeps the peer the fabric had unless the walk
 * saw another, or saw the link down. A link two ends disagree on is
 * settled by the end the walk read with its peer. */
#ifndef LOOM_FABRIC_PART_H
#define LOOM_FABRIC_PART_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"

/* Nodes whose ports may be stale after a merge: they were cabled to a port
 * whose link the walk saw go or move, and the walk did not read them. The
 * caller walks them too (or walks the whole subnet). */
#define FAB_PART_MAX_STALE 256
struct fab_part_stale {
	size_t n;
	uint64_t guid[FAB_PART_MAX_STALE];
	int overflow;          /* more than FAB_PART_MAX_STALE: walk everything */
};

/* Merge `part`, a walk from the node `from`, into fab (updated in place,
 * nodes in fab's order, new ones appended: fab_sort it after). Adds to
 * stale the nodes to read again. 0; -EAGAIN with the reason in err when
 * only a full walk can tell (a new switch, a new device with links the
 * walk did not follow, a known GUID with another type or port count);
 * -ENOMEM. */
int fab_part_merge(struct fab *fab, const struct fab *part, uint64_t from,
		   struct fab_part_stale *stale, char *err, size_t errlen);

/* The nodes reachable from node `local` over links both ends agree on, in
 * fab's order; ports that pointed at a dropped node lose their peer. A
 * new fabric, or NULL (out of memory, or no node `local`). */
struct fab *fab_part_reachable(const struct fab *fab, uint64_t local);

/* A port whose link is physically up but that leads nowhere known (not a
 * switch's port 0): the fabric has a neighbour no walk has read, and only a
 * full walk finds what is behind it. 1 with the first such port in err, else
 * 0. */
int fab_part_dangling(const struct fab *fab, char *err, size_t errlen);

#endif
