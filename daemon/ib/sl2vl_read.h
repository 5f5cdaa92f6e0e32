/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sl2vl_read.h: the SL-to-VL tables of every switch port pair a
 * path can use, read in the `loomd --read-lfts` child after the forwarding
 * tables (lft_read.c), many SMPs in flight. */
#ifndef LOOMD_SL2VL_READ_H
#define LOOMD_SL2VL_READ_H

#include <stddef.h>

#include "daemon/ib/discovery_ib.h"
#include "daemon/ib/dr_route.h"
#include "lib/fabric/fabric.h"
#include "lib/route/route_live.h"

/* Every usable pair of every switch of d (in any port with a cable or
 * Active, out one cabled to a switch, in != out), into r (its SMPs counted
 * in r->smps); a pair that does not answer, or answers with an error
 * status, is left out. 0, or -errno with err when the port failed. */
int sl2vl_read(const struct disc_ib_params *p, const struct fab *fab, const struct dr_routes *d,
	       struct rl_read *r, char *err, size_t errlen);

#endif
