/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mcast_read.h: the multicast groups and forwarding tables of a
 * live subnet (issue 43), read in a short-lived `loomd --read-mcast` child
 * (walker.h says why a process) that is handed the fabric the sweep just
 * made on its stdin (no walk of its own):
 *   - the SA's MCMemberRecords (SubnAdmGetTable, what `saquery -m` asks;
 *     OpenSM shows the members' PortGIDs only to a requester with its
 *     SM_Key): each group's MGID, MLID, member port GUIDs and JoinStates;
 *   - every switch's MulticastForwardingTable by directed route: SwitchInfo
 *     first, then the blocks of 32 MLIDs up to MulticastFDBTop when the
 *     switch reports one, else only the blocks that hold the groups' MLIDs,
 *     each for every 16-port position the switch has.
 * What lib/validate/mcast.h judges. */
#ifndef LOOMD_MCAST_READ_H
#define LOOMD_MCAST_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/validate/mcast.h"

#define MCAST_READ_MODE "--read-mcast"

/* Read the groups and tables of the subnet p reaches, whose fabric is fab
 * (handed to the child), asking the SA with sm_key. 0 with *d filled
 * (mc_data_clear it), or -errno with err. Blocking: call it from a worker
 * thread. */
int mcast_read_run(const struct disc_ib_params *p, const struct fab *fab, uint64_t sm_key,
		   struct mc_data *d, char *err, size_t errlen);

/* The parent's reading of the child's text answer (cut up in place): 0
 * with *d, or -EPROTO / -ENOMEM with err and *d empty. */
int mcast_read_parse(char *text, struct mc_data *d, char *err, size_t errlen);

/* The child: `loomd --read-mcast SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS -`,
 * the fabric and "smkey=0x..." on stdin. Exit status as walker_main's. */
int mcast_read_main(int argc, char **argv);

#endif
