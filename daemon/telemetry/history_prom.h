/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/history_prom.h: one port's reads from Prometheus' HTTP
 * API (GET URL/api/v1/query_range), the samples of the in-memory history's
 * shape (lib/telemetry/port_history.h) computed from the loom_port_*
 * counters' consecutive points: rx and tx bytes a second, PortXmitWait
 * ticks a second, each error counter's delta (a counter that went down was
 * reset: its new value counts). Blocking (libcurl, timeout_ms): on a
 * worker. */
#ifndef LOOMD_HISTORY_PROM_H
#define LOOMD_HISTORY_PROM_H

#include <stddef.h>

#include <jansson.h>

#define HISTORY_PROM_POINTS 120   /* the step makes about this many */

/* The series of port `port` of node guid ("0x" + 16 digits) on subnet from
 * since to until. 0 with *out (an array), or -EIO (not reached, an HTTP
 * status, a timeout), -EPROTO (not Prometheus' answer), -ENOMEM; err says
 * which, naming the URL. */
int history_prom_query(const char *url, long timeout_ms, const char *subnet,
		       const char *guid, unsigned port, double since, double until,
		       json_t **out, char *err, size_t errlen);

#endif
