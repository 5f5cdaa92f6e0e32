/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/opensm_pid.h: the OpenSM loomd signals (SIGHUP) after it changed a
 * file OpenSM reads (partitions, QoS options), found by loom.yaml's
 * tenants.opensm_pid_file or, without one, as the OpenSM whose libloomosm.so
 * last reported a routing run. Only a live process named opensm counts, so
 * a stale pid that the system gave to another program is never signalled. */
#ifndef LOOMD_OPENSM_PID_H
#define LOOMD_OPENSM_PID_H

#include <stddef.h>

struct store;

/* The pid, or -ESRCH with err saying why there is none. */
int opensm_pid_find(const char *pid_file, struct store *st, char *err, size_t errlen);

#endif
