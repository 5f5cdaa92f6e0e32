/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_part.h: the walk of a few switches of a subnet whose
 * last complete fabric loomd has, instead of the whole subnet (issue 23:
 * discovery that follows the fabric). A child process like the full walk
 * (daemon/ib/walker.h): `loomd --walk-part SUBNET CA PORT TIMEOUT_MS
 * RETRIES MAX_SMPS -` is handed the last fabric on stdin, then the switches'
 * node GUIDs (hex, one per line); it walks each from its directed route,
 * one hop (libibnetdisc), merges what it found (lib/fabric/fabric_part.h),
 * walks again the nodes whose link moved, drops what is no longer
 * reachable and answers the whole fabric as the full walk does. When only
 * a full walk can tell (a new switch, a link up toward a device no walk has
 * read, changes that keep coming) it fails with a line that starts with
 * DISC_PART_NEED_FULL. */
#ifndef LOOMD_DISCOVERY_PART_H
#define LOOMD_DISCOVERY_PART_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/fabric/fabric.h"

#define DISC_PART_MODE "--walk-part"
#define DISC_PART_NEED_FULL "needs a full sweep"

/* In loomd: the child above, from a worker thread (blocking). The new
 * fabric; NULL with err, and *need_full set when the reason is one only
 * a full walk can settle. */
struct fab *disc_part_sweep(const struct disc_ib_params *p, const struct fab *base,
			    const uint64_t *guids, size_t n, int *need_full, char *err,
			    size_t errlen);

/* The child's main (argv[0] is DISC_PART_MODE). */
int disc_part_main(int argc, char **argv);

#endif
