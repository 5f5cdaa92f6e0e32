/* daemon/store_switches.h: the Ethernet switches' last reads in the store
 * (schema 004: eth_switches, eth_ports), and their changes as events. */
#ifndef LOOMD_STORE_SWITCHES_H
#define LOOMD_STORE_SWITCHES_H

#include <jansson.h>

struct store;

/* Record one read of a switch: `sw` is the result qos.c builds for it
 * (name, plugin, address, state, error; when reached: hostname, model,
 * os_version, mac, port_list [{name, alias, speed_mbps, mtu, admin_up,
 * oper_up}], neighbors [{local_port, sys_name, port_id, chassis_id}]).
 * In one transaction: the switch's row (new: an eth_switch_added event),
 * its ports (a port going down or up: eth_port_down / eth_port_up; a
 * neighbour appearing, changing or gone: eth_neighbor), the QoS state. A
 * switch not reached keeps its ports as last seen. 0 or -errno. */
int store_record_switch(struct store *st, double now, const json_t *sw);

#endif
