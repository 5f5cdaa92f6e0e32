/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/history.h: the control command "port-history" (issue
 * 41: a port panel's chart): the last reads of one port, from Prometheus'
 * HTTP API when http.prometheus_url is set (query_range over the
 * loom_port_* series of docs/metrics.md: daemon/telemetry/history_prom.c),
 * else from loom's own in-memory history (lib/telemetry/port_history.h:
 * telemetry.history_reads per port, telemetry.history_mib in all), which
 * the counters reads fill. Answered on a work queue of its own: the node
 * is looked up in the database, Prometheus is asked with a timeout.
 * The same queue answers "job-history" (job_history.h: a job's links,
 * events and counters over a window of time). */
#ifndef LOOMD_HISTORY_H
#define LOOMD_HISTORY_H

#include <stddef.h>

struct ctl;
struct event_base;
struct history;
struct port_history;
struct store;

/* reads, mib: the in-memory bounds; prometheus_url: "" none. NULL with err. */
struct history *history_new(struct event_base *base, struct store *store, unsigned reads,
			    unsigned mib, const char *prometheus_url, char *err, size_t errlen);
void history_free(struct history *h);
/* New bounds (what was kept is dropped when they change) and URL. */
void history_reconfigure(struct history *h, unsigned reads, unsigned mib,
			 const char *prometheus_url);
int history_register(struct history *h, struct ctl *ctl);
/* What the counters reads fill (store_record_counters_jobs). */
struct port_history *history_store(struct history *h);

#endif
