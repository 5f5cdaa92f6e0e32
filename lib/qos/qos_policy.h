/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/qos_policy.h: the fabric's lossless RoCE policy (loom.yaml `roce:`),
 * its checks, and what it resolves to on one switch (struct lp_qos of
 * include/loom/loom_plugin.h, which every switch plugin translates into its
 * platform's own model). Pure: no I/O. */
#ifndef LOOM_QOS_POLICY_H
#define LOOM_QOS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "loom/loom_plugin.h"

/* Which members of a policy were given: an override (one switch's) sets
 * some and takes the rest from the fabric's policy. */
enum qos_field {
	QOS_LOSSLESS = 1u << 0,
	QOS_DSCP_MAP = 1u << 1,        /* per entry: the entries not QOS_DSCP_UNSET */
	QOS_DEFAULT_TC = 1u << 2,
	QOS_CNP_DSCP = 1u << 3,
	QOS_CNP_PRIORITY = 1u << 4,
	QOS_ECN_MIN = 1u << 5,
	QOS_ECN_MAX = 1u << 6,
	QOS_ECN_PERCENT = 1u << 7,
	QOS_ETS_WEIGHTS = 1u << 8,
	QOS_ETS_STRICT = 1u << 9,
	QOS_PFCWD_ENABLED = 1u << 10,
	QOS_PFCWD_ACTION = 1u << 11,
	QOS_PFCWD_DETECTION = 1u << 12,
	QOS_PFCWD_RESTORATION = 1u << 13,
	QOS_MTU = 1u << 14,
	QOS_CABLE = 1u << 15,
	QOS_PAUSE_THRESHOLD = 1u << 16,
	QOS_ALL = (1u << 17) - 1,
};

#define QOS_DSCP_UNSET 0xFF

struct qos_policy {
	uint32_t set;                  /* enum qos_field bits given */
	uint8_t lossless_mask;         /* bit p: priority (= traffic class) p is lossless */
	uint8_t dscp_to_tc[64];        /* QOS_DSCP_UNSET: not listed, takes default_tc */
	uint8_t default_tc;
	uint8_t cnp_dscp, cnp_priority;
	uint32_t ecn_min_bytes, ecn_max_bytes;
	uint8_t ecn_mark_percent;      /* 1..100 */
	uint8_t ets_weight[LP_TCS];    /* DWRR weights of the non-strict classes, sum 100 */
	uint8_t strict_mask;           /* bit t: class t is strict priority */
	uint8_t pfcwd_enabled;
	enum lp_pfcwd_action pfcwd_action;
	uint32_t pfcwd_detection_ms, pfcwd_restoration_ms;
	uint32_t mtu;                  /* largest frame, for the headroom */
	uint32_t cable_m;              /* cable length, for the headroom */
	uint32_t pause_threshold_bytes;/* where the switch sends PAUSE, if known (0: not) */
};

/* The defaults: lossless priority 3 fed by DSCP 26, CNPs on DSCP 48 /
 * priority 6 (strict), everything else class 0; ETS 50/50 between classes 0
 * and 3; ECN 150 kB..1.5 MB at 10 %; PFC watchdog on (200 ms / 400 ms,
 * drop); MTU 9216, 5 m cables. set = every field. */
void qos_policy_defaults(struct qos_policy *p);

/* p with the fields `o` sets taken from o (DSCP entries one by one). */
void qos_policy_merge(struct qos_policy *p, const struct qos_policy *o);

/* The class of a DSCP under p. */
static inline uint8_t qos_policy_tc(const struct qos_policy *p, unsigned dscp)
{
	return p->dscp_to_tc[dscp] == QOS_DSCP_UNSET ? p->default_tc : p->dscp_to_tc[dscp];
}

/* Refuse contradictions: 0, or -EINVAL with one line in err that names the
 * key (prefixed with `where`, e.g. "roce" or "switches[leaf1].roce"):
 * PFC on a priority that no DSCP maps to, CNPs on a class that is not
 * strict or whose DSCP maps elsewhere, ECN min >= max, ECN max at or above
 * the pause threshold (when given), a class that traffic maps to with no
 * ETS weight and not strict, weights not summing to 100. *field (if not
 * NULL) is then the enum qos_field bit of the key the message names. */
int qos_policy_check(const struct qos_policy *p, const char *where, uint32_t *field, char *err,
		     size_t errlen);

/* Lossless headroom of one port: bytes in flight after this port sends
 * PAUSE (the cable's round trip at the port's speed, 5 ns/m each way, plus
 * the peer's response time of 3840 bit times (IEEE 802.1Qbb's bound for
 * 100G and beyond) and two maximum frames: the one the peer is sending
 * when PAUSE lands and the one that delays PAUSE here), rounded up to
 * 1 KiB; xon = two maximum frames; size = xoff + xon. */
void qos_headroom(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu,
		  struct lp_port_buffer *out);

/* What p means on one switch whose ports are ports[0..n) (name, speed):
 * maps, PFC, ETS, ECN on the lossless queues, watchdog, and every port
 * with its headroom. Queues and priority groups are the classes
 * themselves. -E2BIG if n > LP_MAX_PORTS. */
int qos_policy_resolve(const struct qos_policy *p, const struct lp_port *ports, size_t n,
		       struct lp_qos *out);

#endif
