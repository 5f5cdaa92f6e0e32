/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/store_sweep.h: the IB fabric as swept, in loom's database
 * (daemon/ib/store_sweep.c): sweeps and their change events, LFT reads, the
 * stored fabric. Every call takes the caller's own connection. */
#ifndef LOOMD_IB_STORE_SWEEP_H
#define LOOMD_IB_STORE_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"

struct store;
struct nodename_map;

struct store_sweep_info {
	const char *subnet;      /* loom's subnet name */
	const char *ca;          /* local HCA and port it was swept from */
	int port;
	double started, finished;/* unix seconds */
	const char *kind;        /* "full" (NULL too) or "incremental" */
	/* NULL, or the job index (lib/db/job_db.h): link_down and
	 * link_degraded events name the jobs whose paths crossed the link. */
	struct job_index *jobs;
	/* NULL, or the site's node names: the events' text names nodes by them */
	const struct nodename_map *names;
};

struct store_sweep_result {
	int64_t sweep_id;
	size_t n_events;
};

/* Record one complete sweep: diff `fab` against the stored fabric of this
 * subnet, replace the subnet's nodes/ports/links with `fab`, and write the
 * change events and the sweep row, all in one transaction. Either all of it
 * is recorded or nothing. 0 or -errno. */
int store_record_sweep(struct store *st, const struct store_sweep_info *info,
		       const struct fab *fab, struct store_sweep_result *res);
/* Record a sweep that failed: a sweep row with status "failed" and the error,
 * and a warning event; the stored fabric is left as it was. */
int store_record_failed_sweep(struct store *st, const struct store_sweep_info *info,
			      const char *error, struct store_sweep_result *res);

/* Record one read of a subnet's forwarding tables (lib/route/route_live.h),
 * taken with the sweep `sweep_id` (0: none), and drop the subnet's oldest
 * reads beyond the few kept. The subnet must have been swept. 0 or -errno. */
struct rl_read;
int store_record_lfts(struct store *st, const char *subnet, int64_t sweep_id,
		      const struct rl_read *r, int64_t *read_id);

/* The stored fabric of a subnet (empty fabric if none). NULL on error. */
struct fab *store_load_fabric(struct store *st, const char *subnet, char *err, size_t errlen);

/* The swept subnet holding the port `port_guid`, its name into name: 1,
 * 0 when no swept subnet has it, or -errno. */
int store_subnet_of_port(struct store *st, uint64_t port_guid, char *name, size_t len);

#endif
