/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sm_read.h: the subnet managers of a freshly swept subnet, read in
 * the walker's child (issue 43): an SMInfo SubnGet by directed route to every
 * port whose PortInfo:CapabilityMask advertises IsSM, then the SA's
 * SMInfoRecord table (OpenSM's own list) merged in. */
#ifndef LOOMD_SM_READ_H
#define LOOMD_SM_READ_H

#include <stddef.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/fabric/fabric.h"

/* fab->sms filled (an SM that does not answer is noted with answered 0),
 * sorted by node GUID and port, and fab->sm_read set to FAB_SM_READ: 0, or
 * -errno with err when the SMs could not be asked at all (no directed
 * routes, no port for SMPs; fab->sm_read stays FAB_SM_NOT_READ). Blocking:
 * each SM that does not answer costs p's timeout and retries. */
int sm_read_fabric(const struct disc_ib_params *p, struct fab *fab, char *err, size_t errlen);

#endif
