/* daemon/store_tenants.h: tenants in the store (schema 006) and what the
 * tenant module needs of the rest of it: the hosts' HCA ports and OpenSM's
 * pid. JSON shapes:
 * tenant: {"name", "pkey": N, "membership": "full"|"limited", "state",
 *          "error", "created", "updated" (ISO 8601), "created_by": uid,
 *          "hosts": ["node001", ...], "ports": [{"host", "guid"}, ...]} */
#ifndef LOOMD_STORE_TENANTS_H
#define LOOMD_STORE_TENANTS_H

#include <stdint.h>
#include <jansson.h>

struct store;

/* Every host of the stored IB fabric (all subnets) -> its HCA port GUIDs:
 * {"node001": ["0x...", ...]}. A host is the first word of a CA's node
 * description ("node001 mlx5_0" and "node001 mlx5_1" are both node001's). */
int store_tenant_host_ports(struct store *st, json_t **map);

/* One tenant (-ENOENT: none), or all of them ("hosts" and "ports" left out
 * of the list: "n_hosts", "n_ports" instead). */
int store_tenant_get(struct store *st, const char *name, json_t **tenant);
int store_tenant_list(struct store *st, json_t **list);

/* Create or replace tenant `name` with `ports` ([{"host", "guid"}]), state
 * "applying", and an audit event of `kind` (tenant_created, tenant_changed)
 * saying who (uid) did what (`what`). One transaction. */
int store_tenant_put(struct store *st, double now, const char *name, unsigned pkey,
		     int limited, const json_t *ports, int uid, const char *kind,
		     const char *what);
int store_tenant_delete(struct store *st, double now, const char *name, int uid);
int store_tenant_set_state(struct store *st, double now, const char *name, const char *state,
			   const char *error);

/* The PKeys tenants hold, as a bitmap of 0x8000 bits (uint8_t[4096]). */
int store_tenant_pkeys(struct store *st, uint8_t *used);

/* The pid of the OpenSM that last reported a routing run (libloomosm.so),
 * or 0 when none did. */
int store_last_sm_pid(struct store *st, int *pid);

#endif
