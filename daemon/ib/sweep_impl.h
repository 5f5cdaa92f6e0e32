/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sweep_impl.h: the sweep scheduler's state, for its files only
 * (sweep.c: runs, the periodic timer, discover; sweep_follow.c: the runs
 * that follow OpenSM's reports of changes). */
#ifndef LOOMD_IB_SWEEP_IMPL_H
#define LOOMD_IB_SWEEP_IMPL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "daemon/core/config.h"
#include "daemon/ib/discovery_ib.h"
#include "daemon/ib/store_sweep.h"
#include "daemon/ib/sweep.h"
#include "lib/fabric/fabric.h"

/* Switches a followed run walks at most: more changes at once are a full
 * sweep's job. */
#define SWEEP_FOLLOW_MAX 64

/* Runs at once: every subnet, plus subnets dropped by a reload while their
 * run goes on (retired). A run is never refused below this. */
#define SWEEP_MAX_RUNNING (LOOM_MAX_SUBNETS * 5)

struct job {
	struct sweeper *sw;
	struct nodename_map *run_names; /* held for the run: its events' names */
	char name[LOOM_NAME_LEN];
	char ca[LOOM_NAME_LEN];
	int port;
	int autodetected;     /* found by autodetect_jobs(), not configured */
	int retired;          /* no longer configured: free when the run ends */
	int running;
	int rerun;            /* a trigger came while running: sweep again after */
	unsigned gen_started; /* runs started so far */
	unsigned gen_done;    /* runs finished so far */
	json_t *last;         /* result of the last finished run, or NULL */

	/* Settings of the run under way (copied when it starts). */
	struct disc_ib_params params;
	char db_path[PATH_MAX];
	/* Written by the worker, read by the loop once it has returned. */
	int run_rc;
	char run_error[512];
	double run_started, run_finished; /* the SMP walk */
	double run_recorded;              /* the store transaction committed */
	long run_walk_rss_kb;             /* the walker process's peak memory */
	size_t run_nodes, run_links;
	struct fab_smps run_smps;         /* the walk's SMPs (FAB_COUNT_UNKNOWN: not counted) */
	struct store_sweep_result run_res;
	struct fab *run_fab;              /* recorded, for sweeper_on_swept's listener */
	int want_fab;                     /* there is one: keep the fabric */
	/* A followed run (sweep_follow.c) walks the switches of these LIDs
	 * from base; it walks the whole subnet when it cannot (run_fell_back). */
	int run_part;
	uint16_t run_lid[SWEEP_FOLLOW_MAX];
	size_t run_n_lid;
	int run_fell_back;
	char run_part_why[256];           /* why it fell back */
	struct fab *base;                 /* the last fabric recorded: the runs' (one at a
					   * time), read by the loop only between runs */

	/* Changes reported and not yet walked (sweep_follow.c, the loop's). */
	uint16_t pend_lid[SWEEP_FOLLOW_MAX];
	size_t n_pend;
	int pend_full;                    /* a change somewhere, or too many: everything */
	struct {                          /* ports the counters saw flap, for their switch */
		uint64_t guid;
		unsigned port;
	} pend_flap[SWEEP_FOLLOW_MAX];
	size_t n_pend_flap;
	unsigned osm_nodes;               /* OpenSM's count at its last heavy sweep, to
					   * compare with ours (0: none waiting) */
	uint16_t recent_lid[SWEEP_FOLLOW_MAX];  /* the last followed run's switches */
	size_t n_recent;
	double recent_at;                 /* when it started (monotonic s) */
	struct event *follow_ev;          /* gathers a burst of reports into one run */
};

struct waiter {
	struct waiter *next;
	struct ctl_req *req;
	int n;
	struct job *jobs[LOOM_MAX_SUBNETS];
	unsigned target[LOOM_MAX_SUBNETS];
};

struct sweeper {
	struct event_base *base;
	char db_path[PATH_MAX];
	int interval;         /* in effect: conf_interval unless overridden */
	int conf_interval;    /* loom.yaml's discovery.interval */
	int override;         /* sweeper_set_interval's (-1: none) */
	int timeout_ms, retries, max_smps;
	int walker;                  /* discovery.walker: DISC_IB_WALKER_* */
	uint64_t m_key;       /* discovery.m_key_file's key (0: none) */
	int autodetect;       /* no subnets configured: sweep every local port */
	int n_jobs;
	struct job *jobs[LOOM_MAX_SUBNETS];
	int n_retired;
	struct job *retired[SWEEP_MAX_RUNNING];
	struct event *timer;
	double next_due;      /* monotonic seconds; 0 = none */
	struct work_queue *work;  /* every job's runs, in parallel */
	int closing;              /* freeing: a finished run starts nothing */
	struct waiter *waiters;
	int warned_no_ports;
	sweeper_swept_fn on_swept;    /* sweeper_on_swept's */
	void *on_swept_arg;
	int follow;                   /* discovery.follow */
	struct job_index *job_index;  /* sweeper_set_job_index's, or NULL */
	struct nodename_map *names;   /* sweeper_set_names's (held), or NULL */
};

/* Start a run of job now: followed (part, the LIDs in run_lid) or full.
 * A full one asked for while a run goes on is a rerun after it. */
int sweep_job_start(struct sweeper *sw, struct job *job, int part);
/* After a run of job was published: start what the reports asked for
 * meanwhile (sweep_follow.c). */
void sweep_follow_after_run(struct sweeper *sw, struct job *job);
/* Free job's follow state (its event). */
void sweep_follow_job_free(struct job *job);

#endif
