/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/store_tenants.h: tenants in the store (schemas 006, 007, 009,
 * 014) and what the tenant module needs of the rest of it: the hosts' HCA and
 * switch ports and OpenSM's pid. JSON shapes:
 * tenant: {"name", "pkey": N (IB ports only), "vlan": N (Ethernet ports only),
 *          "class": ib_qos traffic class (only when it has one),
 *          "membership": "full"|"limited", "state", "error", "created",
 *          "updated" (ISO 8601), "created_by": uid (-1: not a unix peer),
 *          "creator": who created it as the audit log names it ("uid 0",
 *          "token slurm"; absent for tenants older than schema 014 not
 *          created by a uid), "hosts": ["node001", ...],
 *          "ports": [{"host", "guid"}, ...] (HCA ports),
 *          "eth_ports": [{"host", "switch", "port"}, ...] (switch ports)} */
#ifndef LOOMD_STORE_TENANTS_H
#define LOOMD_STORE_TENANTS_H

#include <stdint.h>
#include <jansson.h>

struct store;

/* Every CA port of the stored IB fabric (all subnets) with its node's
 * description, GUID and system image GUID (one per chassis, from its
 * NodeInfo): [{"desc": "node001 mlx5_0", "guid": "0x...", "node": "0x...",
 * "sysimg": "0x..."}]. */
int store_tenant_ca_ports(struct store *st, json_t **list);
/* Every port of a managed Ethernet switch whose LLDP neighbour is a host
 * (not one of loom's switches), as the switches' last reads found them:
 * [{"host" (the neighbour's system name up to its first dot), "switch",
 *   "port", "tenant" (only when a tenant holds the port)}]. */
int store_tenant_eth_host_ports(struct store *st, json_t **list);

/* One tenant (-ENOENT: none), or all of them ("hosts" and "ports" left out
 * of the list: "n_hosts", "n_ports" instead). */
int store_tenant_get(struct store *st, const char *name, json_t **tenant);
int store_tenant_list(struct store *st, json_t **list);

/* What a change writes of a tenant. */
struct store_tenant {
	const char *name;
	unsigned pkey;            /* 0: none (no HCA ports) */
	unsigned vlan;            /* 0: none (no switch ports) */
	int limited;
	const char *class_name;   /* ib_qos class, NULL or "" none */
	const json_t *ports;      /* [{"host", "guid"}] */
	const json_t *eth_ports;  /* [{"host", "switch", "port"}] */
	const char *state;        /* its state (tenants_state.h), NULL "applying" */
};

/* Create or replace the tenant with its ports, its state, and an
 * audit event of `kind` (tenant_created, tenant_changed) saying who (`who`:
 * "uid 0", "token slurm", tenants_req_who()) did what (`what`); uid is
 * created_by (-1: not a unix peer) and `who` its creator, both kept from the
 * tenant's creation when it is replaced. One transaction. */
int store_tenant_put(struct store *st, double now, const struct store_tenant *t, int uid,
		     const char *who, const char *kind, const char *what);
int store_tenant_delete(struct store *st, double now, const char *name, const char *who);
int store_tenant_set_state(struct store *st, double now, const char *name, const char *state,
			   const char *error);

/* The PKeys tenants hold, as a bitmap of 0x8000 bits (uint8_t[4096]). */
int store_tenant_pkeys(struct store *st, uint8_t *used);
/* The VLANs tenants hold, as a bitmap of 4096 bits (uint8_t[512]). */
int store_tenant_vlans(struct store *st, uint8_t *used);


#endif
