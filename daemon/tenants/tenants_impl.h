/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_impl.h: what the files of the tenant module share, and
 * nothing outside it includes. The files, each calling only those below it:
 *   tenants_cmd.c    the control commands (tenant-create ... tenant-list)
 *   tenants_hosts.c  hosts -> their HCA ports and switch ports
 *   tenants.c        the module: queue of changes, worker thread, answers,
 *                    rollback, resume at start, the periodic check
 *   tenants_ha.c     HA: the record follows the outcome, mirror, takeover
 *   tenants_top.c    a change (struct top), who asked, what the queue holds
 *   tenants_ib.c     InfiniBand: the partitions file, OpenSM, PKey read-back
 *   tenants_eth.c    RoCE: access VLANs on switch ports through the plugins
 *   tenants_fence.c  HA: the fence inside a change, a tenant's etcd record
 *   tenants_state.c  a tenant's states and their steps (tenants_state.h)
 *   store_tenants.c  the database
 * One change at a time: the loop prepares a `struct top` from the store,
 * a worker thread applies and confirms it (IB first, then Ethernet), and
 * the loop answers (or rolls back). */
#ifndef LOOMD_TENANTS_IMPL_H
#define LOOMD_TENANTS_IMPL_H

#include "daemon/core/intent.h"
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "daemon/core/config.h"
#include "daemon/roce/config_roce.h"
#include "daemon/tenants/config_tenants.h"
#include "daemon/tenants/tenants.h"
#include "lib/qos/ib_qos.h"
#include "daemon/ib/pkey_read.h"
#include "daemon/ib/swept_fabs.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/routing/opensm_sweep.h"
#include "daemon/tenants/tenants_state.h"
#include "loom/loom_plugin.h"

struct ctl;
struct ctl_req;
struct event;
struct event_base;
struct plugin_cache;
struct store;

enum top_kind { TOP_CREATE, TOP_ADD, TOP_REMOVE, TOP_DELETE, TOP_VERIFY, TOP_RESUME };
extern const char *const tenants_top_names[];

/* The Ethernet side of one change on one switch. */
struct top_switch {
	struct loom_switch_conf sw;
	const struct loom_plugin_v1 *ops;  /* NULL: plugin_err says why */
	char plugin_err[256];
	/* Every port of the switch facing a host, and whether the tenant
	 * wants it (members hold the VLAN; the others must not). */
	char (*ports)[LP_NAME_LEN];
	uint8_t *member;
	size_t n_ports;
	/* the worker's */
	struct lp_switch *h;
	uint16_t *before;                  /* each port's VLAN before the change */
	uint8_t *changed;
};

/* One change, from request to answer. */
struct top {
	struct top *next;
	struct tenants_mod *m;
	struct ctl_req *req;               /* NULL: loomd's own (resume at start) */
	enum top_kind kind;
	char name[LOOM_NAME_LEN];
	int uid;
	char who[96];          /* tenants_req_who() */
	json_t *prev;          /* the tenant before (NULL: none): rollback, delete */
	char *intent;          /* HA: the tenant as the database holds it now, JSON
				* text for etcd, state "applying" (NULL: from the
				* fields below) */
	char *prev_intent;     /* HA: the record before (NULL: none), put back
				* when the change fails */
	int intent_put;        /* HA: the worker wrote the intent */
	int lost;              /* HA: the fence stopped the change (the lease was
				* lost): nothing undone, the new leader owns it */
	json_t *rec;           /* HA, a TOP_RESUME's check: the tenant's record;
				* the worker puts it with the outcome's state */
	int has_undo;          /* HA takeover: a change the old leader left
				* "applying", with the record before it: */
	json_t *undo;          /* that record (NULL: none, it was a create) */
	int undone;            /* the worker put it back in etcd */
	char **seed_k, **seed_v; /* HA takeover: etcd seeded from the
					      * database first (tenants_ha.c) */
	size_t n_seed;
	int seed_rc;
	/* InfiniBand, for the worker (pkey 0: the tenant has no key: skipped) */
	char *file_text;       /* the partitions file to write (NULL: verify only) */
	unsigned pkey;
	json_t *members;       /* {"0x<guid>": true}: must hold the key; others must not */
	int limited;
	struct swept_subnets *sub;   /* the subnets to read (NULL: no key) */
	struct fab *fabs[LOOM_MAX_SUBNETS]; /* each one's last swept fabric, held
				      * (NULL: none; the read walks it first) */
	int once;              /* verify: one read, no waiting, nothing set */
	int readonly;          /* `tenant verify`: `once`, whatever the state */
	int no_wait;           /* TOP_RESUME's checks: one PKey read is the answer */
	enum tenant_state was; /* the state the change found stored (prepare) */
	size_t n_repaired;     /* switch ports the Ethernet part had to change */
	char repaired[160];    /* the first of them */
	struct opensm_sweep osm; /* how OpenSM is asked to re-read the partitions */
	/* TOP_RESUME: every tenant, each a TOP_VERIFY of its own, checked
	 * with one read of the fabric a pass (this top holds the subnets). */
	struct top **batch;
	size_t n_batch;
	/* Ethernet (vlan 0: the tenant has none: skipped) */
	unsigned vlan;
	struct top_switch *eth;
	size_t n_eth;
	/* the worker's result */
	int rc;
	char err[1024];
	double took;
};

/* What the module keeps of loom.yaml (tenants_inputs, copied). */
struct tenants_settings {
	struct tenants_conf t;
	struct switches_conf sw;
	struct ibqos_policy ib_qos;
	struct swept_mad mad;
	char plugin_dir[PATH_MAX];
};

struct tenants_mod {
	struct event_base *base;
	struct ctl *ctl;        /* its gate (HA: only the leader changes things) */
	struct intent_writer iw; /* HA: the intent replicated first (put NULL: none) */
	int seeded;             /* HA: etcd holds /loom/CLUSTER/intent-seeded: 1 yes,
				 * 0 no, -1 unknown */
	json_t *mirror_pending; /* HA: a follower's records that came while a change
				 * ran (applied when it ends) */
	json_t *takeover_undo;  /* HA: {name: the record before} of the records a
				 * takeover found "applying" (NULL: none) */
	struct store *store;
	struct osm_report *osm; /* libloomosm.so's channel (NULL: signals only) */
	struct tenants_settings *conf;    /* the running change's; swapped between changes */
	struct tenants_settings *pending; /* a reload's, while a change runs */
	struct plugin_cache *plugins;
	struct top *queue;      /* waiting; the head runs when `running` */
	int running;
	struct work_queue *work; /* the head's worker (daemon/core/work.h) */
	int closing;            /* freeing: a change that ends is not finished */
	struct event *interval_ev;    /* tenants.interval: check every tenant */
	struct swept_fabs fabs;  /* each subnet's last swept fabric (tenants_on_swept):
				  * the PKey read-back is handed it, no walk */
};

/* tenants_top.c: a change, and the queue as the parts above the engine see it. */
void tenants_top_free(struct top *t);
/* Who asked, for the audit events: "uid N" for a socket peer, "token NAME"
 * or "cert CN" for the HTTP API (authz.h); "uid 0" without a request. */
void tenants_req_who(const struct ctl_req *req, char *buf, size_t len);
/* A change for `req` (answered with an error when out of memory: NULL). */
struct top *tenants_top_new(struct tenants_mod *m, struct ctl_req *req, enum top_kind kind,
			    const char *name);
/* What the changes in the queue would give back if they failed (their
 * tenants as they were): PKeys (a 0x8000-bit map), VLANs (a 4096-bit map)
 * and switch ports ({"SWITCH PORT": "tenant"}) marked or added, for the
 * pools and the port check not to hand them out before those changes end.
 * Any argument may be NULL. */
void tenants_inflight(const struct tenants_mod *m, uint8_t *pkeys, uint8_t *vlans,
		      json_t *ports);
/* Is a `tenant verify` of `name` queued already? */
int tenants_verify_queued(const struct tenants_mod *m, const char *name);
/* An event about tenant `name` into the store (logged when it cannot be). */
void tenants_event(struct tenants_mod *m, const char *severity, const char *kind,
		   const char *name, const char *what);

/* tenants.c: queue a change; it starts when the ones before it are done. */
void tenants_enqueue(struct tenants_mod *m, struct top *t);

/* tenants_fence.c: under HA, below every part of a change. */
/* The record a change puts in etcd for a tenant as store_tenant_get gives it:
 * {name, by, pkey, vlan, limited, class, ports, eth_ports, state, leader}
 * (state TENANT_DELETED: "active"). A new reference (NULL: out of memory). */
json_t *tenants_record(const json_t *tenant, const char *node, enum tenant_state state);
/* Worker: has this node lost the lease (HA)? 1: t->lost, t->rc and t->err
 * set, the change must touch nothing more; 0 go on (also without HA). */
int tenants_fence_lost(struct top *t);

/* tenants_ha.c: the HA side of the module (issue 21, docs/ha.md). */
/* Worker, after the fabric part: the record follows the outcome (state
 * "active", or put back as it was / deleted when the change failed), and
 * a TOP_RESUME's checks record their outcome. No-op without HA. */
void tenants_ha_after(struct top *t);
/* Loop: a follower's mirror, and a new leader's takeover (records into the
 * database; tenants_watch checks every tenant after it). */
void tenants_ha_mirror(struct tenants_mod *m, const json_t *records);
void tenants_ha_takeover(struct tenants_mod *m, const json_t *records);
/* Loop: TOP_RESUME's seed / records prepared (takeover and checks). */
int tenants_ha_prepare_resume(struct tenants_mod *m, struct top *t);
void tenants_ha_finish_resume(struct tenants_mod *m, struct top *t);
/* Worker: a TOP_RESUME's seed into etcd (none: 0). */
int tenants_ha_seed(struct top *t);

/* tenants_hosts.c: the ports of `list`'s hosts (a Slurm hostlist): their
 * HCA ports [{"host", "guid"}] into *ib and the switch ports facing them
 * [{"host", "switch", "port"}] into *eth. Every host must have one or the
 * other, and no switch port may be another tenant's than `tenant`'s: else
 * -EINVAL with err naming the hosts or ports, nothing returned. */
int tenants_hosts_resolve(struct tenants_mod *m, const char *tenant, const char *list,
			  json_t **ib, json_t **eth, char *err, size_t errlen);
/* Register tenant-hosts (read): every CA port and host-facing switch port,
 * the host the identity rule gives it and the one it claims. */
int tenants_hosts_register(struct tenants_mod *m, struct ctl *ctl);

/* tenants_ib.c */
char *tenants_ib_file_text(struct tenants_mod *m, char *err, size_t errlen);
/* Rewrite the partitions file from the store and signal OpenSM; logs. */
void tenants_ib_rewrite(struct tenants_mod *m, const char *why);
/* The IB subnets to read (every swept one). -ENOENT: none was swept. */
int tenants_ib_fill_subnets(struct tenants_mod *m, struct top *t);
/* Worker: write t's file, signal OpenSM, read the PKey tables of t's
 * subnets back until every one of tops[0..n) holds (or the deadline);
 * each gets its rc and err. 0 when all hold, else tops[0]'s -errno. */
int tenants_ib_apply(struct top *t, struct top **tops, size_t n, double deadline);

/* tenants_eth.c */
/* The switch of loom.yaml named so (NULL: none). */
const struct loom_switch_conf *tenants_eth_switch_conf(const struct tenants_settings *c,
						       const char *name);
/* Loop: fill t->eth from the store: every switch of the tenant's switch
 * ports now (cur) and before (t->prev), with all of each one's host-facing
 * ports. 0, or -errno with err. */
int tenants_eth_prepare(struct tenants_mod *m, struct top *t, const json_t *cur, char *err,
			size_t errlen);
/* Worker: make every member switch port hold t->vlan and
 * no other host-facing port hold it (t->once: only read), then read them
 * all back. On failure every port it changed is put back. 0 or -errno
 * with t->err. */
int tenants_eth_apply(struct top *t);
void tenants_eth_free(struct top *t);

#endif
