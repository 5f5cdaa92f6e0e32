/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_fence.c: what every part of a change shares under
 * HA (issue 21, docs/ha.md), below them all: the fence a worker checks
 * before each step that touches the fabric (tenants_ib.c, tenants_eth.c,
 * tenants.c), and the record a tenant gives etcd (/loom/CLUSTER/tenants/NAME):
 * {"name", "by" (who asked), "pkey", "vlan", "limited", "class",
 * "ports": [{host, guid}], "eth_ports": [{host, switch, port}], "state":
 * "applying" | "active" | "failed", "leader": the node that wrote it}. */
#include "autoconf.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

json_t *tenants_record(const json_t *tn, const char *node, enum tenant_state state)
{
	const char *membership = json_string_value(json_object_get(tn, "membership"));
	const char *cls = json_string_value(json_object_get(tn, "class"));
	const char *by = json_string_value(json_object_get(tn, "creator"));
	json_t *ports = json_object_get(tn, "ports"), *eth = json_object_get(tn, "eth_ports");

	if (state == TENANT_DELETED)
		state = TENANT_ACTIVE;  /* none said: settled */
	ports = ports ? json_incref(ports) : json_array();
	eth = eth ? json_incref(eth) : json_array();
	/* "o" steals both, also when the pack fails */
	return json_pack("{s:s?, s:s, s:i, s:i, s:b, s:s, s:o, s:o, s:s, s:s}",
			 "name", json_string_value(json_object_get(tn, "name")),
			 "by", by ? by : "", "pkey",
			 (int)json_integer_value(json_object_get(tn, "pkey")), "vlan",
			 (int)json_integer_value(json_object_get(tn, "vlan")), "limited",
			 membership && !strcmp(membership, "limited"), "class", cls ? cls : "",
			 "ports", ports, "eth_ports", eth, "state", tenants_state_name(state),
			 "leader", node ? node : "");
}

int tenants_fence_lost(struct top *t)
{
	const struct intent_writer *w = &t->m->iw;
	int held;

	if (!w->held || (held = w->held(w->arg)) > 0)
		return 0;
	t->lost = held == 0 ? 1 : 2;
	t->rc = -EPERM;
	snprintf(t->err, sizeof(t->err), "this node (%s) lost the leadership during the change "
		 "(%s): it stopped and touched nothing more; the new leader completes it from "
		 "etcd, ask there", w->node ? w->node : "?",
		 held == 0 ? "another node leads" : "no etcd quorum");
	return 1;
}
