/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ib_read.h: the QoS tables of every CA port and every cabled
 * switch port of a live subnet, read with SMPs by directed route in a
 * short-lived `loomd --read-qos` child (walker.h says why a process), and
 * compared with the ib_qos policy: SL2VLMappingTable (attribute 0x17; for a
 * switch, one row per input port toward the output port) and
 * VLArbitrationTable (0x18; high and low priority, as many entries as
 * PortInfo's VLArbHighCap / VLArbLowCap). Switch port 0 is not read: a
 * base switch port 0 has no VL arbitration and OpenSM leaves its map. */
#ifndef LOOMD_QOS_IB_READ_H
#define LOOMD_QOS_IB_READ_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/qos/ib_qos.h"

/* Walk the subnet, read the tables, compare them with policy p. 0 with a
 * new array in *ports: one object per port
 *   {"node": "desc", "guid": "0x...", "type": "CA"|"switch", "port": N,
 *    "in_policy": true|false, "first_diff": "SL2VL in 1 SL 4: VL 0, policy 1"}
 * ("first_diff" only when it differs), or -errno with err. Blocking: call it
 * from a worker thread. */
int qos_ib_read_run(const struct disc_ib_params *params, const struct ibqos_policy *p,
		    json_t **ports, char *err, size_t errlen);

/* The child's answer on `out` for fab, just swept through params's local
 * port: a text stream, "LOOMQOSIB1", per port a "P" line (GUID, type,
 * port, VLArb caps, description), its "M" SL2VL rows and "L"/"H" VLArb
 * tables, then "END". 0, or -errno with err. */
int qos_ib_read_tables(const struct disc_ib_params *params, const struct fab *fab, FILE *out,
		       char *err, size_t errlen);
/* The parent's reading of that stream (a string, which it cuts up) against
 * policy p: 0 with *ports as qos_ib_read_run gives it, or -EPROTO /
 * -ENOMEM with err and *ports NULL. */
int qos_ib_read_parse(char *text, const struct ibqos_policy *p, json_t **ports, char *err,
		      size_t errlen);
/* The child: `loomd --read-qos SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS`
 * (argv[0] is "--read-qos"). Exit status as walker_main's. */
int qos_ib_read_main(int argc, char **argv);

#endif
