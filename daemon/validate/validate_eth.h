/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_eth.h: the Ethernet fabric's validation (issue
 * 43), run by the validation worker's jobs beside the swept subnets': the
 * cabling plan's Ethernet rows against the managed switches' LLDP
 * neighbours as their last reads left them in the store (schema 004:
 * eth_switches reached at least once, eth_ports), judged by
 * lib/validate/eth_cabling.h. Its findings belong to the Ethernet fabric,
 * the subnet named "ethernet" (schema 005): recorded as its open issues,
 * or answered as its report beside the IB subnets' in `fabric validate`. */
#ifndef LOOMD_VALIDATE_ETH_H
#define LOOMD_VALIDATE_ETH_H

#include <jansson.h>

struct store;
struct plan;

/* The Ethernet fabric's subnet name (schema 005). */
#define VALIDATE_ETH_SUBNET "ethernet"

/* Check p's Ethernet rows against the LLDP st holds. out NULL: record the
 * findings as subnet "ethernet"'s issues (opened, cleared: events), and
 * log a line; else *out is its report (report_json.h's, with "subnet",
 * "plan", "not_seen": the rows LLDP cannot see, "elapsed_ms"; a plan the
 * check cannot number, "plan_error"). 0 or -errno with err. Blocking: a
 * worker job's. */
int validate_eth(struct store *st, const struct plan *p, json_t **out, char *err, size_t errlen);

#endif
