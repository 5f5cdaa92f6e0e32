/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants.h: tenant isolation (a job's hosts in their own IB
 * partition), as control commands:
 *   "tenant-create"       (write) {name, hosts (Slurm hostlist), pkey?, limited?}
 *   "tenant-add-hosts"    (write) {name, hosts}
 *   "tenant-remove-hosts" (write) {name, hosts}
 *   "tenant-delete"       (write) {name}
 *   "tenant-verify"       (read)  {name}: read the fabric back now
 *   "tenant-show"         (read)  {name}
 *   "tenant-list"         (read)
 * A change is answered once the PKey tables read back from the fabric show
 * it (or with the error, the change rolled back): see tenants.c. Changes are
 * made one at a time, in the order they came. */
#ifndef LOOMD_TENANTS_H
#define LOOMD_TENANTS_H

#include <stddef.h>

struct event_base;
struct ctl;
struct osm_report;
struct store;
struct tenants_mod;
struct tenants_conf;
struct switches_conf;
struct ibqos_policy;
struct swept_mad;

/* What loomd.c hands the module of loom.yaml: its own section and what it
 * reads of others' (kept as its own copy, swapped between changes). */
struct tenants_inputs {
	const struct tenants_conf *conf;       /* tenants: */
	const struct switches_conf *switches;  /* switches: (RoCE VLANs) */
	const struct ibqos_policy *ib_qos;     /* ib_qos: (a tenant's class) */
	const struct swept_mad *mad;           /* discovery's MAD limits */
	const char *plugin_dir;                /* plugins.dir */
};

struct tenants_mod *tenants_new(struct event_base *base, const struct tenants_inputs *in,
				struct store *store, char *err, size_t errlen);
/* Waits for the change under way; answers the waiting ones with an error.
 * Before ctl_free(). */
void tenants_free(struct tenants_mod *m);
int tenants_reconfigure(struct tenants_mod *m, const struct tenants_inputs *in);
/* HA (daemon/ha, ha_watch on "tenants/"): records, the replicated tenants
 * {name: the record tenants writes to etcd} (NULL: unread). leading=1: this
 * node has just become the leader: the tenants the database does not hold
 * as they are are written to it, then the check of tenants_resume
 * (partitions file from the database, every tenant read back and completed
 * or failed). leading=0: a follower's mirror. arg: the tenants_mod. Loop
 * thread. */
#include <jansson.h>
void tenants_watch(void *arg, const json_t *records, int leading);
/* HA (ha_watch on "intent-seeded", registered before "tenants/"): does etcd
 * hold the marker that a leader reconciled it with its database (then a
 * tenant etcd lacks is deleted)? */
void tenants_watch_seeded(void *arg, const json_t *records, int leading);
int tenants_register(struct tenants_mod *m, struct ctl *ctl);
/* HA: every change's intent (its key, VLAN, member ports; deleted with the
 * tenant) is put through w (daemon/core/intent.h, copied) on the worker
 * before it touches the fabric; a refused put fails the change; the fence
 * is checked before each step on the fabric. */
#include "daemon/core/intent.h"
void tenants_set_intent(struct tenants_mod *m, const struct intent_writer *w);
/* libloomosm.so's channel (daemon/routing/osm_report.h), which asks OpenSM
 * to re-read the partitions without a signal; it must outlive m. */
void tenants_set_opensm(struct tenants_mod *m, struct osm_report *osm);
/* A subnet's fabric, just swept (taken: freed here later): a change's PKey
 * read-back is handed the last one instead of walking the subnet again. */
struct fab;
void tenants_on_swept(struct tenants_mod *m, const char *subnet, struct fab *fab);
/* At start: rewrite the partitions file from the database when they differ
 * (and ask OpenSM to re-read it), and check on the fabric the tenants a stop caught
 * half applied ("active" when confirmed, else "failed"). */
int tenants_resume(struct tenants_mod *m);


#endif
