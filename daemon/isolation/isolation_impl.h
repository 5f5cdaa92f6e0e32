/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_impl.h: what isolation.c (the loop, the
 * commands) and isolation_eval.c (the worker) share; the folder's inside. */
#ifndef LOOMD_ISOLATION_IMPL_H
#define LOOMD_ISOLATION_IMPL_H

#include <limits.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "daemon/core/config.h"
#include "daemon/core/intent.h"
#include "daemon/ib/swept_fabs.h"
#include "daemon/isolation/config_isolation.h"
#include "daemon/isolation/isolation_window.h"
#include "daemon/routing/opensm_sweep.h"
#include "daemon/telemetry/store_counters.h"
#include "lib/fabric/hostmap.h"
#include "lib/route/route_loss.h"

struct ctl;
struct ctl_req;
struct store;
struct work_queue;
struct job_index;
struct rt_graph;
struct rt_lfts;
struct nodename_map;

/* The moves of one read not yet handed to an evaluation. */
struct iso_pending {
	unsigned subnet;             /* index into the module's names */
	double at;
	struct counters_moved *v;
	size_t n;
};

/* The routes now of one subnet (loom's engine on its fabric without the
 * isolated cables), kept by the worker between evaluations while the
 * fabric and the set stay: the loss of a candidate then costs a reroute. */
struct iso_base {
	struct fab *fab;             /* the fabric it was made of (held: its address stays its own) */
	int64_t version;             /* the set's version then */
	struct rt_graph *g;
	struct rt_lfts *l;
	double ebb;
	size_t unreachable, shift, min_paths;
	int tree;
};

/* The last decision told of a candidate (so that a refusal is one event,
 * not one per evaluation). */
struct iso_told {
	unsigned subnet;
	struct iso_link link;
	int act;
	unsigned round;               /* the last evaluation that saw it a candidate */
	char why[96];
};

#define ISO_NAMES_MAX LOOM_MAX_SUBNETS

struct isolation_mod {
	struct event_base *base;
	struct store *store;          /* the loop's */
	struct ctl *ctl;
	struct work_queue *work;
	struct event *timer;
	struct isolation_conf conf;
	char db_path[PATH_MAX];
	struct swept_fabs fabs;
	char names[ISO_NAMES_MAX][LOOM_NAME_LEN];   /* subnet index of the windows */
	size_t n_names;
	struct iso_pending *pending;
	size_t n_pending;
	int running, again;
	uint64_t applied_version;     /* the set's version of OpenSM's last run (0: none seen) */
	unsigned applied_links;
	struct job_index *jobs;
	struct slurm_mod *slurm;      /* drains hosts (NULL: none) */
	struct nodename_map *site_names; /* the site's names (held; NULL: none), for findings */
	struct intent_writer intent;  /* under HA: etcd's fenced writer (put NULL: none) */
	int64_t etcd_version;         /* the set's version etcd holds, as last known (-1: unknown) */
	struct hostmap_rule hosts;    /* which Slurm node a CA port is */
	struct osm_report *osm;
	char osm_pid_file[PATH_MAX];
	/* The worker's alone (one evaluation at a time): */
	struct iso_windows *win;
	struct iso_base bases[ISO_NAMES_MAX];
	struct iso_told *told;
	size_t n_told;
	unsigned round;               /* evaluations run */
	int64_t file_version;         /* the version last written to the file (-1: none) */
};

enum iso_job_kind { ISO_JOB_EVAL, ISO_JOB_ISOLATE, ISO_JOB_RESTORE };

/* A host to drain or resume in Slurm once the job's transaction is in. */
struct iso_host_act {
	int resume;
	int64_t sid;
	char host[64];
	char why[256];
	char subject[320];
};
/* Add one to j (the job's worker; -ENOMEM). */
struct iso_job;
int iso_host_act_add(struct iso_job *j, int resume, int64_t sid, const char *host,
		     const char *why, const char *subject);

struct iso_job {
	struct isolation_mod *m;
	int kind;
	struct ctl_req *req;
	struct isolation_conf conf;
	char db_path[PATH_MAX];
	double now;
	int may_act;                  /* the gate let loom change the fabric by itself */
	struct iso_pending *pending;
	size_t n_pending;
	struct { char name[LOOM_NAME_LEN]; struct fab *fab; unsigned idx; } s[SWEPT_FABS_MAX];
	size_t n;
	struct opensm_sweep osm;
	struct job_index *jobs;
	/* link-isolate / link-restore */
	char port[128], reason[256], by[128], subnet[LOOM_NAME_LEN];
	int force;
	struct intent_writer intent;
	struct nodename_map *names;   /* held */
	int64_t etcd_version;         /* m's, when the job was made */
	int64_t put_version;          /* what the job put into etcd (-1: nothing) */
	struct hostmap_rule hosts;
	struct hostmap hm;            /* hosts loaded, on the worker, when first needed */
	int hm_loaded;
	/* out */
	struct iso_host_act *host_acts;   /* drains and resumes, done on the loop */
	size_t n_host_acts;
	json_t *result;
	char note[256];               /* the reroute's outcome, for the log */
};


/* ---- the worker's parts ---- */

/* The cables out of one subnet's routes in this job: the stored ones and
 * those taken since. */
struct iso_out {
	struct iso_link *v;
	size_t n, cap;
};
int iso_out_add(struct iso_out *o, const struct iso_link *l);

/* isolation_loss.c */
struct iso_loss {
	int refused;
	char why[256];        /* the floor it would cross */
	char text[256];       /* what the routes lose, for the events and the row */
	struct rt_graph *g;   /* the routes without it (taken when it is isolated) */
	struct rt_lfts *l;
	struct rt_judged jd;
};
/* The subnet's routes now in m->bases[idx] (made when the fabric or the
 * set moved since): 0 or -errno with err. */
int iso_base_ready(struct isolation_mod *m, unsigned idx, const struct fab *fab,
		   int64_t version, const struct iso_out *o, char *err, size_t errlen);
/* What the routes lose without cand, against the floors of j's conf. */
int iso_loss_of(const struct iso_job *j, const struct iso_base *b, const struct fab *fab,
		const struct iso_out *o, const struct iso_link *cand, struct iso_loss *x);
void iso_loss_clear(struct iso_loss *x);
/* The candidate's routes become the subnet's routes now. */
void iso_base_take(struct iso_base *b, struct iso_loss *x);

/* isolation_gather.c */
struct iso_cands {
	struct iso_candidate *v;
	uint64_t *errors, *symbol, *downs;   /* per candidate, both ends summed */
	uint64_t *evdowns;                   /* per candidate: downs the sweeps' events saw */
	size_t n, cap;
};
void iso_cands_free(struct iso_cands *c);
/* The link at (guid, port) in fab, a its lower end: 0, or -ENOENT. */
int iso_link_at(const struct fab *fab, uint64_t guid, unsigned port, struct iso_link *l);
/* The candidate of link l in c, added when missing: its index, -1 ENOMEM. */
long iso_cand_of(struct iso_cands *c, const struct iso_link *l);
/* 1 when an isolated cable's counters moved or a sweep saw it down since
 * its clean time, 0, or -errno. */
int iso_entry_moved(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
		    const struct iso_entry *e);
/* The subnet's links whose rules hold, worst first. */
int iso_gather(struct iso_job *j, sqlite3 *db, int64_t sid, unsigned idx,
	       const struct fab *fab, struct iso_cands *c);

/* The worker's side (isolation_eval.c). */
int iso_eval_run(void *job, char *err, size_t errlen);
void iso_bases_clear(struct isolation_mod *m);

/* isolation_ha.c: the record of the rows loaded before the job's changes
 * (NULL without HA); put the record of db now when it differs from that or
 * from what etcd holds (0, or -EPERM: not the leader, -errno). */
struct iso_rows;
json_t *iso_ha_before(const struct iso_job *j, const struct iso_rows *rows, int64_t version);
int iso_ha_put(struct iso_job *j, sqlite3 *db, const json_t *before, char *err, size_t errlen);

/* etcd's record into the loop's database, in one transaction (rows of
 * subnets this node has not swept left out, logged): 0 or -errno. */
int iso_ha_mirror(struct store *st, const json_t *rec);

/* The subnet index of name in m->names, added when new (-1: no room). */
int iso_subnet_index(struct isolation_mod *m, const char *name);

#endif
