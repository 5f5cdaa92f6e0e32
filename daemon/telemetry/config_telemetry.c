/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/config_telemetry.c: loom.yaml's `telemetry:` section.
 *
 *   telemetry:
 *     interval_s: 10     # read every cabled port's counters this often;
 *                        # 0: only when `loomctl counters --now` asks
 *     window_s: 3600     # `loomctl health` lists the ports whose error
 *                        # counters moved within it, not only in the last read
 *     details_every: 1   # read the PMA detail attributes (PortRcvErrorDetails,
 *                        # PortXmitDiscardDetails, per-VL XmitWait and flow
 *                        # control update errors: up to 4 more Gets a port)
 *                        # every this many reads; 0: never
 *     max_in_flight: 0   # PMA Gets out at once, round robin over the
 *                        # switches; 0: discovery.max_smps
 *     clear_counters: false  # true: clear (PortCountersSet) counters of 32
 *                        # bits or less at 3/4 of their range, as OpenSM's
 *                        # PerfMgr does; false: never write to a PMA
 *     thresholds:        # when a port's counters raise an alarm (0: never)
 *       errors: 1              # error-counter increments in one read
 *       ber_exp: 12            # symbol errors per bit received above 1e-12
 *       xmit_wait_per_s: 1000000  # PortXmitWait ticks a second
 *       link_downed: 1         # LinkDownedCounter increments in one read
 *       clear_after: 3         # reads without the condition that clear it
 *       pfc_pause_per_s: 10000 # Ethernet: PFC pauses received a second, one priority
 *       pfc_watchdog: 1        # Ethernet: PFC watchdog storm detections in one read
 *       ecn_marked_per_s: 10000  # Ethernet: CE marks a second, one queue
 *
 * The reads use discovery's MAD limits (timeout_ms, retries, and max_smps
 * unless max_in_flight says otherwise) and
 * the last sweep's fabric (no walk: only PMA Gets). The alarms are
 * lib/telemetry/port_alarms.h's. */
#include "autoconf.h"

#include <stddef.h>
#include <stdio.h>

#include "daemon/core/config_parse.h"
#include "daemon/telemetry/config_telemetry.h"

#define CFG_SECTION_TYPE struct telemetry_conf

#define THRESHOLD(key, field, lo, hi, dflt) \
	{ key, CFG_INT, offsetof(struct port_thresholds, field), sizeof(int), lo, hi, 1, dflt, \
	  NULL, NULL, NULL }

/* PortXmitWait ticks are the port's own (IBA: implementation specific);
 * one million a second is a port that waits a good share of the time on
 * today's HCAs and switches: set it from a baseline of your hardware. */
static const struct cfg_key threshold_keys[] = {
	THRESHOLD("errors", errors, 1, 1000000000, 1),
	THRESHOLD("ber_exp", ber_exp, 1, 30, 12),
	THRESHOLD("xmit_wait_per_s", xmit_wait_per_s, 1, 2000000000, 1000000),
	THRESHOLD("link_downed", link_downed, 1, 255, 1),
	{ "clear_after", CFG_INT, offsetof(struct port_thresholds, clear_after), sizeof(int), 1,
	  1000, 0, 3, NULL, NULL, NULL },
	THRESHOLD("pfc_pause_per_s", pfc_pause_per_s, 1, 2000000000, 10000),
	THRESHOLD("pfc_watchdog", pfc_watchdog, 1, 1000000, 1),
	THRESHOLD("ecn_marked_per_s", ecn_marked_per_s, 1, 2000000000, 10000),
};
#define N_THRESHOLD_KEYS (sizeof(threshold_keys) / sizeof(threshold_keys[0]))

static void thresholds_default(void *sec)
{
	struct telemetry_conf *c = sec;

	for (size_t k = 0; k < N_THRESHOLD_KEYS; k++)
		cfg_default_value(&threshold_keys[k], &c->telemetry_thresholds);
}

static int parse_thresholds(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct telemetry_conf *c = sec;
	const yaml_node_t *seen[N_THRESHOLD_KEYS] = { NULL };
	int rc;

	thresholds_default(c);
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_MAPPING_NODE)) < 0)
		return rc;
	return cfg_parse_table(p, v, key, threshold_keys, N_THRESHOLD_KEYS,
			       &c->telemetry_thresholds, seen);
}

static void print_thresholds(FILE *out, const void *sec)
{
	const struct telemetry_conf *c = sec;

	fputc('\n', out);
	for (size_t k = 0; k < N_THRESHOLD_KEYS; k++) {
		fprintf(out, "    %s: ", threshold_keys[k].name);
		cfg_print_value(out, &threshold_keys[k], &c->telemetry_thresholds);
		fputc('\n', out);
	}
}

static const struct cfg_key telemetry_keys[] = {
	CFG_KEY_INT("interval_s", telemetry_interval_s, 1, 86400, 1, 10),
	CFG_KEY_BOOL("clear_counters", telemetry_clear_counters, 0),
	CFG_KEY_INT("max_answer_ports", telemetry_max_answer_ports, 1, 100000000, 0, 20000),
	CFG_KEY_INT("window_s", telemetry_window_s, 1, 31 * 86400, 0, 3600),
	CFG_KEY_INT("history_reads", telemetry_history_reads, 0, 255, 1, 60),
	CFG_KEY_INT("history_mib", telemetry_history_mib, 1, 65536, 0, 128),
	CFG_KEY_INT("details_every", telemetry_details_every, 1, 1000000, 1, 1),
	CFG_KEY_INT("max_in_flight", telemetry_max_in_flight, 1, 1024, 1, 0),
	CFG_KEY_CUSTOM("thresholds", parse_thresholds, print_thresholds),
};

const struct telemetry_conf *telemetry_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &telemetry_config);
}

const struct config_section telemetry_config = {
	.name = "telemetry", .size = sizeof(struct telemetry_conf), .keys = telemetry_keys,
	.n_keys = sizeof(telemetry_keys) / sizeof(telemetry_keys[0]),
	.defaults = thresholds_default,
};
