/* daemon/ar_probe.h: ask one switch, by directed route, for its NVIDIA
 * AdaptiveRoutingInfo (vendor SMP attribute 0xFF20, lib/ar_mad.h): whether
 * it can do adaptive routing at all, and how. Not wired into loomd yet
 * (issue 7): the AR manager that will call it runs in a child like
 * lft_read.c's, on a port from dr_open_port(). */
#ifndef LOOMD_AR_PROBE_H
#define LOOMD_AR_PROBE_H

#include <stddef.h>

#include <infiniband/mad.h>

#include "ar_mad.h"

/* SubnGet(AdaptiveRoutingInfo) to the switch at the end of path (path->p[1]
 * the local port, as in dr_route.h). get_cap asks for the capabilities
 * rather than the state (its modifier bit is provisional: ar_mad.h).
 * 0 with *out; -EOPNOTSUPP when the switch answers "unsupported class
 * version / method / method+attribute" (a switch without NVIDIA AR);
 * -EPROTO for any other error status; -EIO when nothing answers within
 * mp's timeout and retries: ibsim 0.10 never answers a vendor attribute
 * (it logs "no one to handle pkt: class 0x81, attr 0xff20"), so against
 * ibsim this is -EIO, not -EOPNOTSUPP. *status (may be NULL) gets the
 * answer's MAD status: 0 also when nothing answered. */
int ar_probe_info(struct ibmad_port *mp, const ib_dr_path_t *path, int get_cap,
		  struct ar_mad_info *out, int *status, char *err, size_t errlen);

#endif
