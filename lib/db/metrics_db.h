/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/metrics_db.h: the port counters as loom's database holds them
 * (schema 010) rendered in Prometheus' text format (lib/telemetry/
 * metrics_text.h). loomd's /metrics (daemon/http/) runs it on a worker
 * thread with a connection of its own. */
#ifndef LOOM_METRICS_DB_H
#define LOOM_METRICS_DB_H

#include <stddef.h>

#include <sqlite3.h>

#include "lib/telemetry/metrics_text.h"

/* Append the exposition of every subnet's last counters read to out. A
 * database without counters (none read yet, or older than schema 10)
 * gives the families with no series. 0, or -errno with err. */
int metrics_db_render(sqlite3 *db, const struct mt_options *o, struct mt_buf *out,
		      char *err, size_t errlen);

/* Append the Ethernet switches' counters (schema 012; metrics_switch_db.c):
 * loom_switch_port_* and loom_switch_queue_* per port, priority and queue,
 * loom_switch_port_counters_up. Part of metrics_db_render. 0 or -errno. */
int metrics_db_render_switches(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen);

/* Append the swept fabric (metrics_fabric_db.c): every cabled port's link
 * state, width, speed and rate with both ends as labels (a cut cable's
 * port keeps its peer and turns Down), and per subnet nodes, links, the
 * last sweep, open validation issues, the last routing run and its
 * quality; tenants by state; the isolated cables (one series each, with
 * their probation left) and the isolated set's version (schema 020). Part
 * of metrics_db_render. 0 or -errno. */
int metrics_db_render_fabric(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen);

#endif
