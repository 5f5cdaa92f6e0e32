/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/eth_alarms.h: when an Ethernet (RoCE) switch port's
 * counters raise an alarm (issue 19). Pure. The port is one read as the
 * store recorded it (daemon/telemetry/store_switch_counters.c):
 *   {"answered", "reason", "interval_s", "deltas": {NAME: {"state",
 *    "delta"}}, "rates": {NAME: per second}, "gauges": {NAME: level}}
 * with the plugin ABI's counter names, ".pN" for a priority and ".qN" for a
 * queue ("pfc_rx_pause.p3", "ecn_marked.q3", "pfcwd_storm_detected.q3").
 *   pfc_storm            the switch's PFC watchdog detected a storm (its
 *                        detections moved by pfc_watchdog, or a queue is
 *                        held stormed now), a NIC reported pause storm
 *                        events, or one priority received pfc_pause_per_s
 *                        pause frames a second or more: the port is being
 *                        paused, and pauses spread upstream
 *   ecn_marking          one queue marked ecn_marked_per_s packets a second
 *                        (CE) or more: the congestion DCQCN reacts to
 *   link_errors          in and out errors moved by `errors` or more
 *   counters_unreadable  the port could not be read
 * Judged and stepped as port_alarms.h's (same struct, same hysteresis). */
#ifndef LOOM_ETH_ALARMS_H
#define LOOM_ETH_ALARMS_H

#include <jansson.h>

#include "lib/telemetry/port_alarms.h"

/* The alarms an Ethernet switch port's counters can raise. */
#define PORT_ALARMS_ETH ((1u << PORT_ALARM_LINK_ERRORS) | (1u << PORT_ALARM_UNREADABLE) | \
			 (1u << PORT_ALARM_PFC_STORM) | (1u << PORT_ALARM_ECN_MARKING))

void eth_alarms_judge(const struct port_thresholds *t, const json_t *port,
		      struct port_judgement *j);

#endif
