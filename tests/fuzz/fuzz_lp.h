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

#endif
