/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_db_impl.h: the inside of the job index, shared by
 * lib/db/job_index.c (kept up to date from the database) and
 * lib/db/job_db.c (the queries over it). Nothing else includes it. */
#ifndef LOOM_JOB_DB_IMPL_H
#define LOOM_JOB_DB_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "lib/db/job_db.h"
#include "lib/fabric/fabric.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_paths.h"

/* One tenant (a job) on one subnet: its ports and the links of its pairs. */
/* PortInfo:PortState Active. */
#define JX_PORT_ACTIVE 4

struct jx_tenant {
	char *name;
	char *digest;          /* its port GUIDs, in order: changed ports, new paths */
	json_t *ports;         /* [{"host", "guid"}] as stored */
	size_t *ca, n_ca;      /* its CA ports on this subnet (graph indexes) */
	size_t n_elsewhere;    /* its port GUIDs not in this subnet's fabric */
	struct rt_paths p;
	int seen;              /* refresh mark */
};

struct jx_port {
	uint64_t guid;         /* a CA's port GUID */
	uint32_t ca;           /* its graph index */
};

/* One entry of the index link -> tenants. */
struct jx_use {
	uint32_t link;         /* route_paths.h's */
	uint32_t tenant;       /* index in jx_subnet.t (by name) */
};

/* One subnet: its stored fabric and newest stored tables, and the paths
 * of every tenant under them. */
struct jx_subnet {
	char name[FAB_NAME_LEN];
	int64_t sweep_id, read_id;    /* what fab and l were loaded from */
	struct fab *fab;
	struct rt_graph *g;
	struct rt_lfts *l;            /* NULL: no tables (why says) */
	json_t *read_info;            /* the read's JSON (route_live.h), or NULL */
	char why[256];
	uint32_t *port_sw;            /* global switch port index -> switch index */
	struct jx_port *by_guid;      /* CA ports by port GUID */
	size_t n_by_guid;
	unsigned norm_width, norm_speed;  /* the most common active link's */
	struct jx_tenant *t;          /* by name */
	size_t n_t;
	struct jx_use *use;           /* every tenant's links, by link then tenant:
				       * who crosses a link, without a walk */
	size_t n_use;
	uint64_t reloads, recomputed; /* for the answers' "index" */
};

struct job_index {
	pthread_mutex_t mu;
	struct jx_subnet *s;
	size_t n_s;
};

/* Bring subnet `name`'s entry up to date (fabric and tables reloaded when
 * a newer sweep or read is stored; a tenant's paths recomputed only when
 * they were reloaded or its ports changed). Called with ix->mu held.
 * NULL with err (-errno in *rc). */
struct jx_subnet *jx_refresh(sqlite3 *db, struct job_index *ix, const char *name, int *rc,
			     char *err, size_t errlen);
const struct jx_tenant *jx_tenant_find(const struct jx_subnet *s, const char *name);
/* The graph index of CA port (node guid, port) or of port GUID: -1 when none. */
int32_t jx_ca_of(const struct jx_subnet *s, uint64_t node_guid, unsigned port);
int32_t jx_ca_by_guid(const struct jx_subnet *s, uint64_t port_guid);
int32_t jx_switch_of(const struct jx_subnet *s, uint64_t node_guid);
/* The tenants crossing `link` (*n of them, in name order), or NULL. */
const struct jx_use *jx_uses_of(const struct jx_subnet *s, uint32_t link, size_t *n);

#endif
