/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/job_history.h: the control command "job-history"
 * (`loomctl job JOB --from T1 --to T2`, issue 42's post-mortem): the
 * answer of lib/db/job_history_db.h, plus the counter changes of the
 * job's links' ports in the window, from Prometheus (query_range,
 * history_prom.c) when http.prometheus_url is set, else from loomd's
 * in-memory reads (lib/telemetry/port_history.h) where they cover the
 * window. Blocking (database, HTTP): called on history.c's worker. */
#ifndef LOOMD_JOB_HISTORY_H
#define LOOMD_JOB_HISTORY_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

struct port_history;

#define JOB_HISTORY_COUNTER_PORTS 128   /* ports whose counters are asked for */
#define JOB_HISTORY_PROM_BUDGET_MS 20000  /* all the Prometheus queries of one answer */

/* args: job, subnet, from, to (unix seconds, typed by the declaration).
 * prom: "" none. 0 with *out, or -errno with err. */
int job_history_answer(sqlite3 *db, const json_t *args, const char *prom,
		       struct port_history *ph, json_t **out, char *err, size_t errlen);

#endif
