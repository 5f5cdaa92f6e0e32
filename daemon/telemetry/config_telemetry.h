/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/config_telemetry.h: loom.yaml's `telemetry:` section, the
 * port counters' reads and alarms (config_telemetry.c). */
#ifndef LOOMD_CONFIG_TELEMETRY_H
#define LOOMD_CONFIG_TELEMETRY_H

#include <limits.h>

#include "daemon/core/config.h"
#include "lib/telemetry/port_alarms.h"

struct telemetry_conf {
	int telemetry_interval_s;       /* telemetry.interval_s: read every cabled port's
					 * counters this often; 0: only on request */
	struct port_thresholds telemetry_thresholds; /* telemetry.thresholds: alarms */
	int telemetry_clear_counters;   /* telemetry.clear_counters: PortCountersSet at 3/4 */
	int telemetry_max_answer_ports; /* telemetry.max_answer_ports: the most ports one
	                                 * whole-fabric `counters` answer gives */
	int telemetry_window_s;         /* telemetry.window_s: `health` lists the ports
	                                 * whose errors moved within it */
	int telemetry_history_reads;    /* telemetry.history_reads: reads kept per port in
	                                 * memory (port-history); 0: none */
	int telemetry_history_mib;      /* telemetry.history_mib: their bound in all */
	int telemetry_details_every;    /* telemetry.details_every: read the PMA detail
	                                 * attributes every this many reads; 0: never */
	int telemetry_max_in_flight;    /* telemetry.max_in_flight: PMA Gets out at once,
	                                 * round robin over the switches; 0: discovery.max_smps */
};

extern const struct config_section telemetry_config;
const struct telemetry_conf *telemetry_conf_get(const struct loom_config *c);

#endif
