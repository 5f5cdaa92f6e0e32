/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/ha.h: high availability on etcd (issue 21): two or three loomd
 * on different management nodes, one leader elected through etcd; only the
 * leader changes anything.
 *
 * Election: a lease of ha.ttl_s; the txn "create /loom/CLUSTER/leader =
 * {name, advertise} with the lease if its create_revision is 0". The leader
 * renews the lease every ttl_s / 3 on a work queue of its own (never behind
 * a sweep), and checks that the key still holds it. A follower reads the
 * key every ha.poll_ms and campaigns when it is gone.
 *
 * Fencing: the leader may change things only until its last renewal's
 * send time + the TTL - a margin (a fifth of the TTL, at most 1 s): past
 * that, its lease may have expired at etcd and another node may lead, so
 * it stops by itself, even while etcd does not answer.
 *
 * Roles: leader, follower, no-quorum (etcd unreachable, or no answer yet).
 * Through ctl_set_gate() (core/ctl.h), every CTL_WRITE and CTL_TENANT
 * command is refused on a follower ("not-leader", naming the leader and its
 * advertised URL) and without quorum ("no-quorum"); reads work everywhere.
 * `discover` and `route-check` are CTL_WRITE for their cost, not because
 * they change anything: they run on every node (each discovers for
 * itself). With no ha.endpoints, none of this exists: one node, as before. */
#ifndef LOOMD_HA_H
#define LOOMD_HA_H

#include <stddef.h>

#include <jansson.h>

struct config_section;
struct event_base;
struct ha_conf;
struct ctl;
struct ha;


/* The module; with no ha.endpoints it does nothing (ha_status says
 * "enabled": false). Starts the first election step at once. NULL + err. */
struct ha *ha_new(struct event_base *base, const struct ha_conf *conf, char *err,
		  size_t errlen);
/* Stop: wait for a step under way, and give the lease back when leader
 * (another node takes over at once). NULL is fine. */
/* Give the lease up at once (another node leads now, not a TTL later),
 * stop the election and refuse every intent from then on; the struct
 * stays valid for the modules' workers that still hold it, until
 * ha_free (which resigns first when not done yet). */
void ha_resign(struct ha *ha);
void ha_free(struct ha *ha);
/* Install the gate on the control server (nothing when disabled). */
int ha_register(struct ha *ha, struct ctl *ctl);
/* daemon/core/intent.h's writer: value put under /loom/CLUSTER/KEY in a
 * txn that holds only while the leader key holds this node's lease (and
 * refused at once past the fencing deadline). arg: the ha. Any thread. */
int ha_intent_put(void *arg, const char *key, const char *value, char *err, size_t errlen);
/* The same for n keys in one txn (intent_putv_fn). */
int ha_intent_putv(void *arg, size_t n, const char *const *keys, const char *const *values,
		   char *err, size_t errlen);
/* daemon/core/intent.h's fence: 1 this node holds the lease (atomics, no
 * etcd call); 0 another node leads; -1 no leader known. Any thread. */
int ha_intent_held(void *arg);
/* This node's name (ha.name, else the host name). */
const char *ha_name(const struct ha *ha);
/* Is HA on (ha.endpoints)? */
int ha_enabled(const struct ha *ha);
/* fn(arg, records, leading) on the loop for the replicated records under
 * /loom/CLUSTER/<prefix> (prefix e.g. "tenants/", "policy/"): records is a JSON
 * object {key after the prefix: the parsed JSON value} (borrowed; NULL when etcd
 * could not be read: do nothing destructive). leading=0: on a node that is not the
 * leader, once at start and each time the records changed (a follower keeps its
 * database and local files in step: "mirror"). leading=1: on the node that has
 * just become the leader, before any change is allowed through (takeover:
 * reconcile against the fabric). Several watches may be registered. */
void ha_watch(struct ha *ha, const char *prefix,
	      void (*fn)(void *arg, const json_t *records, int leading), void *arg);
/* fn(arg, leading) on the loop each time this node starts or stops leading
 * (leader: 1; follower or no quorum: 0), and once at once with the role
 * now when HA is on (a node starts not leading). One; nothing when off.
 * loomd.c sets the sweeper's rate with it (ha.follower_discovery_interval). */
void ha_on_role(struct ha *ha, void (*fn)(void *arg, int leading), void *arg);
/* ha.* cannot change live: a changed section is logged as taking effect
 * at restart. */
void ha_reconfigure(struct ha *ha, const struct ha_conf *conf);

/* For `status`: {"enabled", "role", "name", "advertise", "leader":
 * {"name","url"} or null, "lease_ttl_s", "lease_left_s", "etcd": {"ok",
 * "endpoint", "error", "last_ok_s_ago"}}. A new reference. */
json_t *ha_status(const struct ha *ha);

#endif
