/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/store_switches.h: the Ethernet switches' last reads in the store
 * (schema 004: eth_switches, eth_ports; 005: the Ethernet fabric's views),
 * and their changes as events. */
#ifndef LOOMD_STORE_SWITCHES_H
#define LOOMD_STORE_SWITCHES_H

#include <jansson.h>

struct store;

/* A switch of loom.yaml, before any read: its row (if it has none), so
 * that the first reads of its neighbours know it as a managed switch and
 * not as an LLDP-only node. 0 or -errno. */
int store_declare_switch(struct store *st, double now, const char *name, const char *plugin,
			 const char *address);

/* Record one read of a switch: `sw` is the result qos.c builds for it
 * (name, plugin, address, state, error; when reached: hostname, model,
 * os_version, mac, port_list [{name, alias, speed_mbps, mtu, admin_up,
 * oper_up}], neighbors [{local_port, sys_name, port_id, chassis_id}]).
 * In one transaction: the switch's row, its ports, the QoS state, and the
 * changes the read makes to the Ethernet fabric (schema 005's views) as
 * events of the IB kinds: node_appeared (the switch's first reach, a host
 * LLDP first shows), node_disappeared, link_up, link_down, port_state.
 * Subjects: "leaf1", "leaf1[Ethernet0]", "leaf1[Ethernet0] <-> spine1[Ethernet4]".
 * A switch not reached keeps its ports and links as last seen. 0 or -errno. */
int store_record_switch(struct store *st, double now, const json_t *sw);

#endif
