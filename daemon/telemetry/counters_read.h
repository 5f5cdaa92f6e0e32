/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/counters_read.h: the port counters of every cabled port
 * of a live subnet, read from the ports' Performance Management Agents
 * (PMA, class 0x04) by LID in a short-lived `loomd --read-counters` child
 * (daemon/ib/walker.h says why a process). Issue 19's first reader: the
 * telemetry module that samples on its own interval, keeps rates and raises
 * events builds on it.
 *
 * Per PMA (a switch's port 0 LID, or a CA port's LID): ClassPortInfo, for
 * which optional counters it has; then per port PortCounters and, where
 * ClassPortInfo says so, PortCountersExtended (64-bit data and packets).
 * All of them many at a time through daemon/ib/mad_window.c, max_smps in
 * flight (telemetry.max_in_flight, else discovery.max_smps), the ports of
 * each phase round robin over the PMAs (a switch answers one MAD at a
 * time), a lost Get asked again after the round trips seen and only its
 * last try after the whole timeout (issue 44). Switch ports and CA ports that have a peer are read; a switch's
 * management port 0 and unplugged ports are not. When asked (issue 42,
 * telemetry.details_every), then per port one Get of each detail attribute
 * (lib/telemetry/pma_details.h: PortRcvErrorDetails, PortXmitDiscardDetails,
 * PortVLXmitWaitCounters, PortVLXmitFlowCtlUpdateErrors): up to four more
 * MADs a port, counted apart in the answer's done line. ClassPortInfo has
 * no bit for them; a PMA that answers one with a MAD status is not asked it
 * again while its capabilities are known (its pma line's NODETAILS). */
#ifndef LOOMD_COUNTERS_READ_H
#define LOOMD_COUNTERS_READ_H

#include <stdio.h>


#include "daemon/ib/discovery_ib.h"
#include "daemon/telemetry/counters_wire.h"
#include "lib/fabric/fabric.h"

/* The child's modes (loomd's first argument): read, or read and clear. */
#define COUNTERS_READ_MODE "--read-counters"
#define COUNTERS_READ_CLEAR_MODE "--read-clear-counters"

/* Read every cabled port's counters, in a child: of fab (the last sweep's,
 * handed to the child; its LIDs address the PMAs), or, fab NULL, of the
 * subnet as the child walks it first. clear: then clear, with one
 * PortCountersSet a port, the counters of 32 bits or less that reached
 * three quarters of their range (OpenSM PerfMgr's rule), so that they never
 * stop at all ones; a port's answer says which (cleared, or clear_failed
 * when the Set was not confirmed).
 * known (with fab only; NULL: nothing): what an earlier read found. Its
 * pmas, PMAs' capabilities: the child sends no ClassPortInfo to a PMA
 * among them that has the same node and LID. Its sums, switches'
 * PortCounters sums: a switch whose sum did not move since (same ports,
 * pma_sums_unchanged) gets no PortCounters per port, only
 * PortCountersExtended, and its ports answer "same" (counters_wire.h).
 * Its details: the detail attributes to read this time (none when 0).
 * 0 with *a, every port's counters as counters_wire.h reads them back
 * (free it with counters_answer_free); -errno with err. Blocking: call it
 * from a worker thread. */
int counters_read_run(const struct disc_ib_params *p, const struct fab *fab, int clear,
		      const struct counters_answer *known, struct counters_answer *a, char *err,
		      size_t errlen);

/* The child's answer on `out` for fab, just swept through p's local port:
 * counters_wire.h's lines. 0, or -errno with err. */
int counters_read_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			 char *err, size_t errlen);

/* The child: `loomd --read-counters SUBNET CA PORT TIMEOUT_MS RETRIES
 * MAX_SMPS` (argv[0] is the mode: --read-counters or
 * --read-clear-counters). Exit status as walker_main's. */
int counters_read_main(int argc, char **argv);

#endif
