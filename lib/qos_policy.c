/* lib/qos_policy.c: the lossless RoCE policy: defaults, overrides, checks
 * and what it means on one switch (see qos_policy.h). */
#include "autoconf.h"
#include "qos_policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void qos_policy_defaults(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->set = QOS_LOSSLESS | QOS_DSCP_MAP | QOS_DEFAULT_TC | QOS_CNP | QOS_ECN | QOS_ETS |
		 QOS_PFCWD | QOS_HEADROOM;
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
	if (o->set & QOS_LOSSLESS)
		p->lossless_mask = o->lossless_mask;
	if (o->set & QOS_DSCP_MAP)
		memcpy(p->dscp_to_tc, o->dscp_to_tc, sizeof(p->dscp_to_tc));
	if (o->set & QOS_DEFAULT_TC)
		p->default_tc = o->default_tc;
	if (o->set & QOS_CNP) {
		p->cnp_dscp = o->cnp_dscp;
		p->cnp_priority = o->cnp_priority;
	}
	if (o->set & QOS_ECN) {
		p->ecn_min_bytes = o->ecn_min_bytes;
		p->ecn_max_bytes = o->ecn_max_bytes;
		p->ecn_mark_percent = o->ecn_mark_percent;
	}
	if (o->set & QOS_ETS) {
		memcpy(p->ets_weight, o->ets_weight, sizeof(p->ets_weight));
		p->strict_mask = o->strict_mask;
	}
	if (o->set & QOS_PFCWD) {
		p->pfcwd_enabled = o->pfcwd_enabled;
		p->pfcwd_action = o->pfcwd_action;
		p->pfcwd_detection_ms = o->pfcwd_detection_ms;
		p->pfcwd_restoration_ms = o->pfcwd_restoration_ms;
	}
	if (o->set & QOS_HEADROOM) {
		p->mtu = o->mtu;
		p->cable_m = o->cable_m;
		p->pause_threshold_bytes = o->pause_threshold_bytes;
	}
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

int qos_policy_check(const struct qos_policy *p, const char *where, char *err, size_t errlen)
{
	uint8_t used = used_classes(p);
	unsigned sum = 0;

	if (!p->lossless_mask) {
		snprintf(err, errlen, "%s.lossless_priorities: no lossless priority; RoCE needs one",
			 where);
		return -EINVAL;
	}
	for (unsigned t = 0; t < LP_TCS; t++)
		if ((p->lossless_mask >> t & 1) && !(used >> t & 1)) {
			snprintf(err, errlen, "%s.lossless_priorities: priority %u has PFC but no DSCP "
				 "maps to traffic class %u (%s.dscp_to_tc)", where, t, t, where);
			return -EINVAL;
		}
	if (qos_policy_tc(p, p->cnp_dscp) != p->cnp_priority) {
		snprintf(err, errlen, "%s.cnp.dscp: CNPs use DSCP %u, which maps to traffic class %u, "
			 "not to the CNP priority %u (%s.dscp_to_tc)", where, p->cnp_dscp,
			 qos_policy_tc(p, p->cnp_dscp), p->cnp_priority, where);
		return -EINVAL;
	}
	if (!(p->strict_mask >> p->cnp_priority & 1)) {
		snprintf(err, errlen, "%s.cnp.priority: class %u carries CNPs and must be strict "
			 "priority (list it in %s.ets.strict)", where, p->cnp_priority, where);
		return -EINVAL;
	}
	if (p->lossless_mask >> p->cnp_priority & 1) {
		snprintf(err, errlen, "%s.cnp.priority: class %u carries CNPs and is lossless too; "
			 "CNPs need a class of their own", where, p->cnp_priority);
		return -EINVAL;
	}
	if (p->ecn_min_bytes >= p->ecn_max_bytes) {
		snprintf(err, errlen, "%s.ecn: min_bytes %u must be below max_bytes %u", where,
			 p->ecn_min_bytes, p->ecn_max_bytes);
		return -EINVAL;
	}
	if (p->pause_threshold_bytes && p->ecn_max_bytes >= p->pause_threshold_bytes) {
		snprintf(err, errlen, "%s.ecn.max_bytes: %u is at or above the pause threshold %u "
			 "(%s.headroom.pause_threshold_bytes): PFC would pause before ECN "
			 "marks fully", where, p->ecn_max_bytes, p->pause_threshold_bytes, where);
		return -EINVAL;
	}
	for (unsigned t = 0; t < LP_TCS; t++) {
		if ((p->strict_mask >> t & 1) && p->ets_weight[t]) {
			snprintf(err, errlen, "%s.ets: class %u is strict and has a weight (%u); "
				 "give it one or the other", where, t, p->ets_weight[t]);
			return -EINVAL;
		}
		if ((used >> t & 1) && !(p->strict_mask >> t & 1) && !p->ets_weight[t]) {
			snprintf(err, errlen, "%s.ets.weights: traffic class %u carries traffic "
				 "(%s.dscp_to_tc) but has no weight and is not strict", where, t,
				 where);
			return -EINVAL;
		}
		sum += p->ets_weight[t];
	}
	if (sum != 100) {
		snprintf(err, errlen, "%s.ets.weights: the weights sum to %u, not 100", where, sum);
		return -EINVAL;
	}
	if (p->pfcwd_enabled && (p->pfcwd_detection_ms < 100 || p->pfcwd_detection_ms > 5000)) {
		snprintf(err, errlen, "%s.pfc_watchdog.detection_ms: %u is outside 100..5000", where,
			 p->pfcwd_detection_ms);
		return -EINVAL;
	}
	if (p->pfcwd_enabled &&
	    (p->pfcwd_restoration_ms < 100 || p->pfcwd_restoration_ms > 60000)) {
		snprintf(err, errlen, "%s.pfc_watchdog.restoration_ms: %u is outside 100..60000",
			 where, p->pfcwd_restoration_ms);
		return -EINVAL;
	}
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
	out->n_ports = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(out->ports[i].port, sizeof(out->ports[i].port), "%s", ports[i].name);
		qos_headroom(ports[i].speed_mbps, p->cable_m, p->mtu, &out->ports[i]);
	}
	return 0;
}
