/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_db.h: which jobs a bad or congested link is hurting (issue 24,
 * job impact), from loom's database: the stored fabric, the newest stored
 * forwarding tables, the tenants (a Slurm job is the tenant its prolog
 * made, named by the job id), the port counters and alarms. Shared by
 * loomd ("job", and the jobs in "health") and `loomctl --db`.
 *
 * The links of a job are those its pairs cross (lib/route/route_paths.h:
 * every ordered pair up to 2^20 pairs, above that a seeded sample of
 * sources, stated in "paths"). The index keeps them per subnet and tenant:
 * the fabric and tables are reloaded only when a newer sweep or read is
 * stored, a tenant's links recomputed only then or when its ports change,
 * and the index link -> tenants rebuilt from them; a health query or an
 * alarm looks a link up in it, it never walks the tables for them. */
#ifndef LOOM_JOB_DB_H
#define LOOM_JOB_DB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

struct job_index;

struct job_index *job_index_new(void);
void job_index_free(struct job_index *ix);

struct job_query {
	const char *job;           /* a tenant's name (the Slurm job id), or NULL */
	const char *hosts;         /* else a hostlist: "gpu[001-004]" */
	const char *host_pattern;  /* hosts in node descriptions: an extended regex
				    * with one group (tenants.host_pattern);
				    * NULL: the first word */
	const char *host_map;      /* and a host map file (tenants.host_map); NULL
				    * or "": none (lib/fabric/hostmap.h) */
	const char *subnet;        /* NULL: the only subnet swept */
	unsigned top;              /* worst links listed; 0: 10 */
	uint64_t seed;             /* of a sample of sources (hosts only: a
				    * tenant's links are the index's, seed 0) */
};

/* The job's impact:
 *   {"job": "NAME"|null, "subnet", "tables": read JSON (route_live.h),
 *    "hosts": [{"host", "port_guid", "node", "port", "switch", "switch_port"}],
 *    "unknown_hosts": [...], "switches": [{"switch", "hosts"}],
 *    "paths": {"pairs_total", "pairs", "sampled", "sources", "seed",
 *              "delivered", "dropped", "loops", "links",
 *              "broken": [{"src", "dst", "why": "loop"|"dropped"}]},
 *    "worst": [{"from": "NODE:PORT", "to": "NODE:PORT", "pairs",
 *               "errors", "moved": {counter: delta}, "xmit_wait_per_s",
 *               "alarms": [kind], "state": "active"|"down"|..., "degraded":
 *               bool (below the fabric's usual width or speed), "why":
 *               ["..."], "jobs": ["other job", ...], "congestion": null |
 *               {"root": "NODE:PORT", "is_root": bool} (link_congested
 *               followed along the tables, lib/telemetry/congestion.h)}],
 *    "bad_links": N (links of its paths with anything wrong),
 *    "other_jobs": [{"job", "shared_links"}]}   most shared first
 * -ENOENT (no such tenant, no tables, no fabric), -EINVAL (bad hosts or
 * pattern, hosts of which none is in the fabric), -EIO, -ENOMEM; with
 * err. ix may be NULL (a one-off index). */
int job_db_impact(sqlite3 *db, struct job_index *ix, const struct job_query *q,
		  json_t **out, char *err, size_t errlen);

/* Add "jobs": [names] to each row of health_db_read's "alarms", "errors"
 * and "congestion" (the jobs whose paths cross that port's link: for
 * congestion and link_congested the direction the port sends in, else
 * either), and "jobs_index": {"subnet": {"tables", "tenants"}}. A subnet
 * without stored tables gets no names ("jobs_index" says why). 0 or
 * -errno with err (-ENOMEM, -EIO). */
int job_db_health_jobs(sqlite3 *db, struct job_index *ix, json_t *health, char *err,
		       size_t errlen);

/* Bring the index up to date for every swept subnet (what loomd does after
 * each counters read, so that the alarm events name the jobs without a
 * query of their own). 0 or -errno with err. */
int job_index_refresh(sqlite3 *db, struct job_index *ix, char *err, size_t errlen);

/* The jobs whose paths cross port `port` of node `guid` on `subnet` as the
 * index last saw them (no database read; for the alarm events): a ", "
 * list of whole names in buf ("A, B and 3 more" when they do not all fit,
 * "5 jobs" when not one does), "" when none or not known. Returns buf. */
char *job_index_names_at(struct job_index *ix, const char *subnet, uint64_t guid,
			 unsigned port, int sending_only, char *buf, size_t len);

#endif
