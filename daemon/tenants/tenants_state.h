/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_state.h: a tenant's state and the steps that change
 * it, in one table (tenants_state.c). The database keeps the names
 * ("applying", "active", "failed": schemas 006 and 007's CHECK); a tenant
 * without a row is "deleted" (answers only). The diagram, one arrow a step:
 *
 *   CHANGED        any ------------------------> applying  (create, add/remove
 *                                                           hosts: store_tenant_put)
 *   CONFIRMED      applying, active, failed ---> active    (the fabric shows it)
 *   NOT_CONFIRMED  applying, active, failed ---> failed    (timeout, verify, check)
 *   ROLLED_BACK    applying, deleted ----------> the state before (a change, or a
 *                                                           delete, not confirmed)
 *   REMOVED        applying, active, failed ---> deleted   (tenant-delete; etcd no
 *                                                           longer holds it)
 *   MIRRORED       any ------------------------> applying, active or failed
 *                                                          (HA: the leader's record)
 */
#ifndef LOOMD_TENANTS_STATE_H
#define LOOMD_TENANTS_STATE_H

struct store;

enum tenant_state { TENANT_DELETED, TENANT_APPLYING, TENANT_ACTIVE, TENANT_FAILED };

enum tenant_step {
	TENANT_CHANGED,        /* a change written, not yet on the fabric */
	TENANT_CONFIRMED,      /* read back from the fabric as stored */
	TENANT_NOT_CONFIRMED,  /* the fabric does not show it */
	TENANT_ROLLED_BACK,    /* a change undone: the state it had before */
	TENANT_REMOVED,        /* tenant-delete, or etcd no longer holds it */
	TENANT_MIRRORED,       /* HA: the state of the leader's record */
};

/* "applying", "active", "failed", "deleted". */
const char *tenants_state_name(enum tenant_state s);
/* The state a name gives (NULL or unknown: TENANT_DELETED). */
enum tenant_state tenants_state_parse(const char *name);
/* The state `step` leads to from `from`: its one target, or `to` for the
 * steps whose target the caller names (rolled back, mirrored). -EINVAL:
 * the diagram has no such arrow. */
int tenants_state_next(enum tenant_state from, enum tenant_step step, enum tenant_state to);
/* The one writer of a stored tenant's state (and its error, "" none) after
 * a step that leaves its row (confirmed, not confirmed, mirrored); said
 * in the log when the diagram has no such arrow. 0 or -errno. */
int tenants_state_set(struct store *st, const char *name, enum tenant_state from,
		      enum tenant_step step, enum tenant_state to, const char *error);

#endif
