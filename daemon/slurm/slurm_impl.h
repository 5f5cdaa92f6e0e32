/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm_impl.h: the slurm module's state, for the files of
 * daemon/slurm/ only (slurm.c: topology.conf; slurm_drain.c: drains and
 * resumes, which read slurm.scontrol here and own m->drains). */
#ifndef LOOMD_SLURM_IMPL_H
#define LOOMD_SLURM_IMPL_H

#include <limits.h>

#include "daemon/core/config.h"
#include "daemon/ib/swept_fabs.h"
#include "lib/fabric/hostmap.h"
#include "lib/slurm/slurm_topo.h"

struct event_base;
struct ctl;
struct work_queue;
struct nodename_map;
struct slurm_drains;

/* What the module keeps of loom.yaml: slurm:'s keys, the tenants' host
 * rule (Slurm's nodes are the tenants' hosts) and the database a job
 * records its events in. */
struct slurm_settings {
	char file[PATH_MAX];           /* slurm.topology_file */
	int format;                    /* slurm.topology_format */
	int reconfigure;               /* slurm.reconfigure */
	char subnet[LOOM_NAME_LEN];    /* slurm.subnet */
	char scontrol[PATH_MAX];       /* slurm.scontrol */
	char host_pattern[HOSTMAP_PATTERN_LEN];
	char host_map[PATH_MAX];       /* tenants.host_pattern, host_map */
	char db_path[PATH_MAX];
};

struct slurm_mod {
	struct event_base *base;
	struct ctl *ctl;               /* its gate: under ha, only the leader reconfigures */
	struct slurm_settings set;     /* its keys of loom.yaml (no whole copy) */
	struct work_queue *work;
	struct swept_fabs fabs;        /* each subnet's last fabric */
	int keeping, again;            /* the file's job is queued or running; a newer sweep */
	int reset;                     /* a reload changed the file's keys meanwhile */
	struct slurm_topo prev;        /* what the file says (valid when prev_body) */
	char *prev_body;               /* the lines Slurm reads in the file; NULL: not known */
	char *refused_body;            /* what scontrol refused last */
	char last_error[1024];         /* the last error said (said once) */
	char last_bad[1024];           /* the hosts left out as names, last said (once) */
	struct nodename_map *names;    /* the site's switch names (held), or NULL */
	struct slurm_drains *drains;   /* drains and resumes (slurm_drain.c) */
};

/* slurm_drain.c's part of the module: its queue made (0, or -errno with
 * err) and freed (waiting requests done with -ECANCELED; a running one's
 * scontrol killed). Loop thread. */
int slurm_drains_start(struct slurm_mod *m, char *err, size_t errlen);
void slurm_drains_stop(struct slurm_mod *m);

#endif
