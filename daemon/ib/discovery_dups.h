/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_dups.h: what duplicate node GUIDs do to a libibnetdisc
 * walk, found and undone before the walk becomes loom's graph. */
#ifndef LOOMD_DISCOVERY_DUPS_H
#define LOOMD_DISCOVERY_DUPS_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/ibnetdisc.h>

#include "lib/fabric/fabric.h"

/* A port left without a peer because what is behind it is a duplicate: the
 * completeness check must not take it for a neighbour that did not answer. */
struct disc_ib_dup_end {
	uint64_t guid;
	unsigned port;
};

/* libibnetdisc keys nodes by GUID: a second device answering with a GUID
 * already seen is merged into the first, which takes over the link to the
 * second and leaves the port that led to the first without a peer. This
 * probes each such port (and each link of a switch to itself) with
 * directed-route SMPs from the local port ca/port, puts the first device
 * back where it hangs, notes the duplicate in fab->dups and the port that
 * leads to the second in *ends (malloc'd, *n_ends entries). The SMPs carry
 * m_key (0: none). Sends nothing
 * on a fabric without such ports. 0 or -ENOMEM (an unanswered probe is no
 * error: that port stays without a peer). */
int disc_ib_dups_resolve(ibnd_fabric_t *ib, const char *ca, int port, int timeout_ms,
			 uint64_t m_key, struct fab *fab, struct disc_ib_dup_end **ends, size_t *n_ends);

#endif
