/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_switch_counters.h: recording a read of the
 * Ethernet switches' counters (schema 012: switch_counter_reads,
 * switch_port_counters) with what each counter did since the last sample
 * (lib/telemetry/counter_delta.h: never a negative or made-up rate, a
 * clear marked "reset").
 *
 * `reads` is the JSON a read builds (daemon/telemetry/switch_counters.c):
 *   [{"switch", "plugin", "started", "finished" (Unix seconds),
 *     "answered": bool, "reason": "" or why no counters at all,
 *     "ports": {PORT: {"counters": {NAME: n}, "bits": {NAME: w},
 *                      "gauges": {NAME: n}}
 *               or    {"error": why this port could not be read}}}]
 * Counter NAMEs are loom's (loom_plugin.h) with ".pN" for a priority and
 * ".qN" for a queue: "in_octets", "pfc_rx_pause.p3", "queue_drops.q3".
 *
 * A switch that did not answer keeps its ports' last counters, marked
 * stale with the reason; so does a port in error. Ports a switch no longer
 * reports, and switches no longer in `reads`, are forgotten. */
#ifndef LOOMD_STORE_SWITCH_COUNTERS_H
#define LOOMD_STORE_SWITCH_COUNTERS_H

#include <stddef.h>

#include <jansson.h>

#include "lib/telemetry/port_alarms.h"

struct store;

/* Record reads (finished at `now`, Unix seconds) in one transaction. With
 * observed (may be NULL): one new member per port recorded, appended:
 *   {"switch", "port", "answered", "reason", "interval_s" (null: no
 *    earlier sample), "deltas": {NAME: {"state", "delta"}},
 *    "rates": {NAME: per second}, "gauges": {NAME: level}}
 * (a stale port: answered false, the reason, empty deltas). With t (may
 * be NULL): then each port's alarms against t (eth_alarms.h, schema 011's
 * switch_port_alarms, events once raised and once cleared), in the same
 * transaction. 0 or -errno (logged). */
int store_record_switch_counters(struct store *st, const struct port_thresholds *t,
				 const json_t *reads, double now, json_t *observed);

#endif
