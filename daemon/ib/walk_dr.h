/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walk_dr.h: loom's own walk of a whole subnet with directed-route
 * SMPs (discovery.walker: loom), breadth first from the local port through
 * walk_queue.h's queue, which keeps many nodes busy at once. It asks what
 * libibnetdisc's ibnd_discover_fabric asks that loom's mapping uses, and
 * leaves its answers in libibnetdisc's public node and port structs, so that
 * disc_ib_map makes the same fabric of them (discovery_ib.c). */
#ifndef LOOMD_WALK_DR_H
#define LOOMD_WALK_DR_H

#include <stddef.h>

#include <infiniband/ibnetdisc.h>

#include "daemon/ib/discovery_ib.h"
#include "daemon/ib/walk_queue.h"

struct walk_dr_stats {
	struct walkq_stats q;   /* the SMPs: sent, retries, lost, ... */
	size_t nodes;
	double seconds;         /* the walk's own time, the port opened to the last answer */
};

/* Walk the subnet of p's local port. 0 with *out (free it with
 * walk_dr_free, never ibnd_destroy_fabric: only the public fields are
 * filled); -EEXIST when a node GUID was found at two places that cannot be
 * one device (a duplicate GUID: libibnetdisc's walk and discovery_dups.c
 * handle those, the caller falls back to them); else -errno with err. */
int walk_dr_fabric(const struct disc_ib_params *p, ibnd_fabric_t **out,
		   struct walk_dr_stats *st, char *err, size_t errlen);
/* The same walk with its SMPs through io instead of p's local port (tests:
 * a simulated subnet answers them). */
int walk_dr_fabric_io(const struct disc_ib_params *p, const struct mad_window_io *io,
		      ibnd_fabric_t **out, struct walk_dr_stats *st, char *err, size_t errlen);
void walk_dr_free(ibnd_fabric_t *f);

#endif
