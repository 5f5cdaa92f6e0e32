/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/qos_policy.c: the lossless RoCE policy: defaults, overrides, checks
 * and what it means on one switch (see qos_policy.h). */
#include "autoconf.h"
#include "lib/qos/qos_policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void qos_policy_defaults(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->set = QOS_ALL;
	p->lossless_mask = 1u << 3;
	memset(p->dscp_to_tc, QOS_DSCP_UNSET, sizeof(p->dscp_to_tc));
	p->dscp_to_tc[26] = 3;
	p->dscp_to_tc[48] = 6;
	p->default_tc = 0;
	p->cnp_dscp = 48;
	p->cnp_priority = 6;
	p->ecn_min_bytes = 150000;
	p->ecn_max_bytes = 1500000;
	p->ecn_mark_percent = 10;
	p->ets_weight[0] = 50;
	p->ets_weight[3] = 50;
	p->strict_mask = 1u << 6;
	p->pfcwd_enabled = 1;
	p->pfcwd_action = LP_PFCWD_DROP;
	p->pfcwd_detection_ms = 200;
	p->pfcwd_restoration_ms = 400;
	p->mtu = 9216;
	p->cable_m = 5;
	p->pause_threshold_bytes = 0;
}

void qos_policy_merge(struct qos_policy *p, const struct qos_policy *o)
{
#define TAKE(bit, field) do { if (o->set & (bit)) p->field = o->field; } while (0)
	TAKE(QOS_LOSSLESS, lossless_mask);
	if (o->set & QOS_DSCP_MAP)
		for (unsigned d = 0; d < 64; d++)
			if (o->dscp_to_tc[d] != QOS_DSCP_UNSET)
				p->dscp_to_tc[d] = o->dscp_to_tc[d];
	TAKE(QOS_DEFAULT_TC, default_tc);
	TAKE(QOS_CNP_DSCP, cnp_dscp);
	TAKE(QOS_CNP_PRIORITY, cnp_priority);
	TAKE(QOS_ECN_MIN, ecn_min_bytes);
	TAKE(QOS_ECN_MAX, ecn_max_bytes);
	TAKE(QOS_ECN_PERCENT, ecn_mark_percent);
	if (o->set & QOS_ETS_WEIGHTS)
		memcpy(p->ets_weight, o->ets_weight, sizeof(p->ets_weight));
	TAKE(QOS_ETS_STRICT, strict_mask);
	TAKE(QOS_PFCWD_ENABLED, pfcwd_enabled);
	TAKE(QOS_PFCWD_ACTION, pfcwd_action);
	TAKE(QOS_PFCWD_DETECTION, pfcwd_detection_ms);
	TAKE(QOS_PFCWD_RESTORATION, pfcwd_restoration_ms);
	TAKE(QOS_MTU, mtu);
	TAKE(QOS_CABLE, cable_m);
	TAKE(QOS_PAUSE_THRESHOLD, pause_threshold_bytes);
#undef TAKE
	p->set |= o->set;
}

/* The classes that some DSCP maps to. */
static uint8_t used_classes(const struct qos_policy *p)
{
	uint8_t used = 0;

	for (unsigned d = 0; d < 64; d++)
		used |= (uint8_t)(1u << qos_policy_tc(p, d));
	return used;
}

#define REFUSE(bit, ...) do {						\
		if (field)							\
			*field = (bit);						\
		snprintf(err, errlen, __VA_ARGS__);				\
		return -EINVAL;							\
	} while (0)

int qos_policy_check(const struct qos_policy *p, const char *where, uint32_t *field, char *err,
		     size_t errlen)
{
	uint8_t used = used_classes(p);
	unsigned sum = 0;

	if (!p->lossless_mask) {
		REFUSE(QOS_LOSSLESS, "%s.lossless_priorities: no lossless priority; RoCE needs one",
			 where);
	}
	for (unsigned t = 0; t < LP_TCS; t++)
		if ((p->lossless_mask >> t & 1) && !(used >> t & 1))
			REFUSE(QOS_LOSSLESS, "%s.lossless_priorities: priority %u has PFC but no DSCP "
				 "maps to traffic class %u (%s.dscp_to_tc)", where, t, t, where);
	if (qos_policy_tc(p, p->cnp_dscp) != p->cnp_priority)
		REFUSE(QOS_CNP_DSCP, "%s.cnp.dscp: CNPs use DSCP %u, which maps to traffic class %u, "
			 "not to the CNP priority %u (%s.dscp_to_tc)", where, p->cnp_dscp,
			 qos_policy_tc(p, p->cnp_dscp), p->cnp_priority, where);
	if (!(p->strict_mask >> p->cnp_priority & 1))
		REFUSE(QOS_CNP_PRIORITY, "%s.cnp.priority: class %u carries CNPs and must be strict "
			 "priority (list it in %s.ets.strict)", where, p->cnp_priority, where);
	if (p->lossless_mask >> p->cnp_priority & 1) {
		REFUSE(QOS_CNP_PRIORITY, "%s.cnp.priority: class %u carries CNPs and is lossless too; "
			 "CNPs need a class of their own", where, p->cnp_priority);
	}
	if (p->ecn_min_bytes >= p->ecn_max_bytes)
		REFUSE(QOS_ECN_MIN, "%s.ecn: min_bytes %u must be below max_bytes %u", where,
			 p->ecn_min_bytes, p->ecn_max_bytes);
	if (p->pause_threshold_bytes && p->ecn_max_bytes >= p->pause_threshold_bytes)
		REFUSE(QOS_ECN_MAX, "%s.ecn.max_bytes: %u is at or above the pause threshold %u "
			 "(%s.headroom.pause_threshold_bytes): PFC would pause before ECN "
			 "marks fully", where, p->ecn_max_bytes, p->pause_threshold_bytes, where);
	for (unsigned t = 0; t < LP_TCS; t++) {
		if ((p->strict_mask >> t & 1) && p->ets_weight[t]) {
			REFUSE(QOS_ETS_STRICT, "%s.ets: class %u is strict and has a weight (%u); "
				 "give it one or the other", where, t, p->ets_weight[t]);
		}
		if ((used >> t & 1) && !(p->strict_mask >> t & 1) && !p->ets_weight[t])
			REFUSE(QOS_ETS_WEIGHTS, "%s.ets.weights: traffic class %u carries traffic "
				 "(%s.dscp_to_tc) but has no weight and is not strict", where, t,
				 where);
		sum += p->ets_weight[t];
	}
	if (sum != 100)
		REFUSE(QOS_ETS_WEIGHTS, "%s.ets.weights: the weights sum to %u, not 100", where, sum);
	if (p->pfcwd_enabled && (p->pfcwd_detection_ms < 100 || p->pfcwd_detection_ms > 5000))
		REFUSE(QOS_PFCWD_DETECTION, "%s.pfc_watchdog.detection_ms: %u is outside 100..5000", where,
			 p->pfcwd_detection_ms);
	if (p->pfcwd_enabled &&
	    (p->pfcwd_restoration_ms < 100 || p->pfcwd_restoration_ms > 60000))
		REFUSE(QOS_PFCWD_RESTORATION, "%s.pfc_watchdog.restoration_ms: %u is outside 100..60000",
			 where, p->pfcwd_restoration_ms);
	return 0;
}

void qos_headroom(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu,
		  struct lp_port_buffer *out)
{
	/* bits on the wire during the round trip: 2 * cable_m * 5 ns at
	 * speed_mbps * 1e6 bit/s = cable_m * speed_mbps / 100 bits. */
	uint64_t wire_bits = (uint64_t)cable_m * speed_mbps / 100;
	uint64_t bytes = (wire_bits + 3840 + 7) / 8 + 2ull * mtu;

	out->speed_mbps = speed_mbps;
	out->cable_m = cable_m;
	out->xoff_bytes = (uint32_t)((bytes + 1023) / 1024 * 1024);
	out->xon_bytes = 2 * mtu;
	out->size_bytes = out->xoff_bytes + out->xon_bytes;
}

int qos_policy_resolve(const struct qos_policy *p, const struct lp_port *ports, size_t n,
		       struct lp_qos *out)
{
	if (n > LP_MAX_PORTS)
		return -E2BIG;
	memset(out, 0, sizeof(*out));
	for (unsigned d = 0; d < 64; d++)
		out->dscp_to_tc[d] = qos_policy_tc(p, d);
	for (unsigned t = 0; t < LP_TCS; t++) {
		out->tc_to_queue[t] = (uint8_t)t;
		out->tc_to_pg[t] = (p->lossless_mask >> t & 1) ? (uint8_t)t : 0;
		out->ets_weight[t] = p->ets_weight[t];
		if (p->lossless_mask >> t & 1)
			out->ecn[t] = (struct lp_ecn){ 1, p->ecn_min_bytes, p->ecn_max_bytes,
						       p->ecn_mark_percent };
	}
	out->pfc_mask = p->lossless_mask;
	out->strict_mask = p->strict_mask;
	out->pfcwd.enabled = p->pfcwd_enabled;
	out->pfcwd.action = p->pfcwd_action;
	out->pfcwd.detection_ms = p->pfcwd_detection_ms;
	out->pfcwd.restoration_ms = p->pfcwd_restoration_ms;
	out->cnp_set = 1;
	out->cnp_dscp = p->cnp_dscp;
	out->cnp_priority = p->cnp_priority;
	out->n_ports = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(out->ports[i].port, sizeof(out->ports[i].port), "%s", ports[i].name);
		qos_headroom(ports[i].speed_mbps, p->cable_m, p->mtu, &out->ports[i]);
	}
	return 0;
}
