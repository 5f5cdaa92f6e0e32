/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_lp.h: checks of what a switch plugin's decoders hand to
 * loomd through the plugin ABI (include/loom/loom_plugin.h), shared by the
 * plugin targets (fuzz_eos_rpc, fuzz_nvue_json, ...). After fuzz.h. */
#ifndef LOOM_FUZZ_LP_H
#define LOOM_FUZZ_LP_H

#include "loom/loom_plugin.h"

/* Every string of an LLDP neighbour ends within its array. */
static inline void fuzz_check_lp_neighbor(const struct lp_neighbor *n)
{
	fuzz_check_terminated(n->local_port, sizeof(n->local_port), "local_port");
	fuzz_check_terminated(n->chassis_id, sizeof(n->chassis_id), "chassis_id");
	fuzz_check_terminated(n->sys_name, sizeof(n->sys_name), "sys_name");
	fuzz_check_terminated(n->port_id, sizeof(n->port_id), "port_id");
	fuzz_check_terminated(n->port_desc, sizeof(n->port_desc), "port_desc");
}

/* A QoS state read back: every map points at a traffic class that exists,
 * percentages are percentages. */
static inline void fuzz_check_lp_qos(const struct lp_qos *q)
{
	for (unsigned d = 0; d < 64; d++)
		if (q->dscp_to_tc[d] >= LP_TCS)
			fuzz_bug("qos: dscp %u -> tc %u", d, q->dscp_to_tc[d]);
	for (unsigned t = 0; t < LP_TCS; t++)
		if (q->tc_to_queue[t] >= LP_TCS || q->tc_to_pg[t] >= LP_TCS ||
		    q->ets_weight[t] > 100 || q->ecn[t].mark_percent > 100)
			fuzz_bug("qos: tc %u -> queue %u pg %u weight %u ecn %u", t,
				 q->tc_to_queue[t], q->tc_to_pg[t], q->ets_weight[t],
				 q->ecn[t].mark_percent);
}

#endif
