/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/switch_counters.h: the Ethernet switches' counters
 * (issue 19, RoCE). On the telemetry interval (telemetry.c calls
 * switch_counters_tick) every switch of loom.yaml's `switches:` is opened
 * through its plugin (daemon/roce/switch_open.h, as qos and tenants do)
 * and read with the plugin's counters_read op (ABI 2): per port, per
 * priority and per queue, PFC pause frames, the PFC watchdog's storms,
 * ECN marks, queue drops, octets, errors and discards. The read runs on a
 * work queue of its own (daemon/core/work.h), one switch per thread (up to
 * SWITCH_COUNTERS_PARALLEL at once), never on the loop; a switch that
 * hangs is bounded by the plugin's per-operation timeout
 * (SWITCH_TIMEOUT_MS), and a read still under way when the next interval
 * comes makes that interval skipped, not queued. Each read is recorded
 * (daemon/telemetry/store_switch_counters.h, schema 012): a switch that
 * does not answer, an ABI-1 plugin (no counters op), or a port the plugin
 * cannot read keeps its last counters marked stale with the reason, never
 * zeros.
 *
 * Control socket: "switch_counters" (CTL_READ), args "switch", "port"
 * (filters), "now" (read first; refused as busy while a read runs): the
 * stored counters (lib/db/switch_counters_db.h). */
#ifndef LOOMD_SWITCH_COUNTERS_H
#define LOOMD_SWITCH_COUNTERS_H

#include <stddef.h>

#include <jansson.h>

struct event_base;
struct ctl;
struct port_thresholds;
struct switches_conf;
struct store;
struct switch_counters;

#define SWITCH_COUNTERS_PARALLEL 16

/* switches: loom.yaml's, driven through plugin_dir's plugins; th: the
 * alarms; store: the loop's connection (the stored counters, for
 * "switch_counters" without "now"); reads record through their own. NULL
 * with err. */
struct switch_counters *switch_counters_new(struct event_base *base,
					    const struct switches_conf *switches,
					    const char *plugin_dir, const struct port_thresholds *th,
					    struct store *store, char *err, size_t errlen);
void switch_counters_free(struct switch_counters *sc);
/* The switches, plugins and alarms from now on. */
void switch_counters_reconfigure(struct switch_counters *sc, const struct switches_conf *switches,
				 const char *plugin_dir, const struct port_thresholds *th);
/* Start a read of every configured switch unless one is under way or none
 * is configured. Loop thread. */
void switch_counters_tick(struct switch_counters *sc);
int switch_counters_register(struct switch_counters *sc, struct ctl *ctl);

/* For thresholds (pfc_storm, ecn_marking, counters_unreadable): fn is
 * called on the loop after each read is recorded, once per port recorded,
 * with the member store_record_switch_counters adds to `observed`:
 *   {"switch", "port", "answered", "reason", "interval_s" (null: first
 *    sample), "deltas": {NAME: {"state": "ok"|"first"|"reset"|..., "delta"}},
 *    "rates": {NAME: per second, exact deltas only},
 *    "gauges": {NAME: level}}
 * NAMEs: "pfc_rx_pause.p3", "pfc_tx_pause.p3", "ecn_marked.q3",
 * "pfcwd_storm_detected.q3", "queue_drops.q3", "in_errors", ... (see
 * loom_plugin.h); a stale port has answered false and empty deltas. The
 * JSON is borrowed for the call. One observer; NULL removes it. */
typedef void (*switch_counters_fn)(void *ctx, const json_t *port);
void switch_counters_observe(struct switch_counters *sc, switch_counters_fn fn, void *ctx);

#endif
