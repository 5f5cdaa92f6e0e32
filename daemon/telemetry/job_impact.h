/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/job_impact.h: which jobs a bad or congested link hurts
 * (issue 24), in loomd. One index of every job's links (lib/db/job_db.h),
 * kept by this module for the telemetry module that owns it:
 *   "job" (CTL_READ): a job's (tenant's) or hosts' links joined with their
 *          state, counters and alarms, and the other jobs on them
 *   "health": the telemetry module's health answer with the jobs on each
 *          row (job_impact_health)
 * Both run on a work queue of one ("job impact") with a read-only
 * connection of its own, never on the loop (an in-memory database, in
 * tests, is read on the loop). After each counters read the index is
 * brought up to date on the same queue (job_impact_refresh), so that the
 * alarm events (store_alarms.c) name the jobs from it without a query. */
#ifndef LOOMD_JOB_IMPACT_H
#define LOOMD_JOB_IMPACT_H

#include <stddef.h>

struct ctl;
struct ctl_req;
struct event_base;
struct job_index;
struct hostmap_rule;
struct store;
struct job_impact;

/* hosts: the tenants' host rule, how a job's hosts are found. */
struct job_impact *job_impact_new(struct event_base *base, const struct hostmap_rule *hosts,
				  struct store *store, char *err, size_t errlen);
void job_impact_free(struct job_impact *ji);
void job_impact_reconfigure(struct job_impact *ji, const struct hostmap_rule *hosts);
int job_impact_register(struct job_impact *ji, struct ctl *ctl);
/* The index, for the alarm events of a counters read (its own mutex). */
struct job_index *job_impact_index(struct job_impact *ji);
/* Answer req with health_db_read(subnet, top) and the jobs on its rows. */
void job_impact_health(struct job_impact *ji, struct ctl_req *req, const char *subnet,
		       unsigned top, unsigned window_s);
/* Bring the index up to date off the loop (a refresh already waiting is
 * enough). */
void job_impact_refresh(struct job_impact *ji);

#endif
