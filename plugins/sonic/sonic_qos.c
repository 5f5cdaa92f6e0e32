/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_qos.c: loom's lossless RoCE QoS (struct lp_qos) in
 * SONiC's CONFIG_DB terms, and read back. Schema facts, with their sources
 * in SONiC's code: docs/sonic-qos-notes.md. References to objects are plain
 * names ("LOOM", "LOOM_DWRR_50") on SONiC 202111 and later and
 * "[TABLE|name]" before, which orchagent requires there and rejects after
 * (section 2 of the notes): the form follows the switch's CONFIG_DB schema
 * version (sn_refs_of).
 *
 * Loom touches only what it owns. The maps, WRED profiles and schedulers
 * that SONiC's qos_config.j2 creates (AZURE, AZURE_LOSSLESS, scheduler.0,
 * scheduler.1) serve every port of the switch: changing one in place
 * changes ports loom does not manage (scheduler.1 turned STRICT made every
 * other port's lossless queues strict priority). So loom creates its
 * own objects, named LOOM..., points only the ports it manages at them, and
 * never writes an object it did not create. The per-port entries (QUEUE,
 * PORT_QOS_MAP, PFC_WD of a managed port, its field of CABLE_LENGTH) are the
 * managed port's own. The one switch-wide setting it needs, PFC_WD|GLOBAL
 * POLL_INTERVAL, is written only when the switch has none.
 *
 * What apply writes (CONFIG_DB, db 4), in this order, so that every object
 * exists before a key that refers to it (orchagent's QosOrch drains the map
 * tables before PORT_QOS_MAP and QUEUE too):
 *
 *   DSCP_TO_TC_MAP|LOOM               "0".."63" -> dscp_to_tc
 *   TC_TO_QUEUE_MAP|LOOM              "0".."7"  -> tc_to_queue
 *   TC_TO_PRIORITY_GROUP_MAP|LOOM     "0".."7"  -> tc_to_pg
 *   MAP_PFC_PRIORITY_TO_QUEUE|LOOM    "0".."7"  -> tc_to_queue (a priority is
 *                                      its traffic class in loom's model)
 *   WRED_PROFILE|LOOM_LOSSLESS        ECN marking of the ECN queues: ecn
 *                                      "ecn_all", wred_{green,yellow,red}_enable
 *                                      "true", <colour>_min_threshold /
 *                                      _max_threshold (bytes) and
 *                                      _drop_probability (mark_percent), the
 *                                      same for all three colours as SONiC's
 *                                      sample. Queues whose ECN settings differ
 *                                      from the lowest ECN queue's get
 *                                      WRED_PROFILE|LOOM_LOSSLESS_Q<q>, <q> the
 *                                      lowest queue with those settings.
 *   SCHEDULER|LOOM_DWRR_<w>           see "Scheduler names" below
 *   CABLE_LENGTH|AZURE                field <port> -> "<cable_m>m" (the one
 *                                      table buffermgrd reads; a field per
 *                                      port, only the managed ports')
 *   QUEUE|<port>|<q>                  scheduler, wred_profile (q = 0..7; one key
 *                                      per port and queue, no ranges)
 *   PORT_QOS_MAP|<port>               dscp_to_tc_map, tc_to_queue_map,
 *                                      tc_to_pg_map, pfc_to_queue_map "LOOM";
 *                                      pfc_enable "3,4" (pfc_mask);
 *                                      pfcwd_sw_enable = pfc_enable when the
 *                                      watchdog is on
 *   PFC_WD|GLOBAL                     POLL_INTERVAL (watchdog on; only when the
 *                                      switch has none: all ports share it)
 *   PFC_WD|<port>                     action, detection_time, restoration_time;
 *                                      with the watchdog off the whole key is
 *                                      deleted, as `pfcwd stop` does
 *
 * A managed field loom wants absent is removed (HDEL): wred_profile of a
 * queue without ECN, scheduler of a queue with neither weight nor strict
 * priority (traffic never maps to it), weight of a STRICT scheduler,
 * pfcwd_sw_enable when the watchdog is off. Other fields of these keys (a
 * port shaper `scheduler` in PORT_QOS_MAP, pfc_stat_history, ...) are not
 * loom's and are never touched, except that the watchdog off deletes a
 * managed port's PFC_WD entry whole.
 *
 * Scheduler names say what the scheduler is: LOOM_DWRR_<w> {type DWRR,
 * weight w} for each distinct weight of the queues that are not strict and
 * have one, and LOOM_STRICT {type STRICT} for all strict queues (SAI orders
 * strict queues by their index). A name never changes its type or weight
 * (orchagent would change a scheduler in place, under every queue that
 * uses it): a new weight is a new scheduler and the queues are pointed at
 * it. SONiC's sample intent (queues
 * 0,1,2,5,6 weight 14, queues 3,4 weight 15) gives LOOM_DWRR_14 and
 * LOOM_DWRR_15; loom's defaults (weights 50/50 on queues 0 and 3, queue 6
 * strict) give LOOM_DWRR_50 and LOOM_STRICT. Loom's objects no queue uses
 * any more are left in place.
 *
 * PFC watchdog poll interval: SONiC's own `pfcwd start_default` rule,
 * 200 ms per started group of 32 ports, at most 1000, and at most the
 * detection and restoration times (the YANG model needs both >= it), at
 * least 100.
 *
 * Buffers: SONiC's traditional buffer model. buffermgrd derives each lossless
 * priority group's headroom profile (BUFFER_PROFILE|pg_lossless_<speed>_
 * <cable>_profile, BUFFER_PG|<port>|3-4) from the port's speed, its
 * CABLE_LENGTH and PORT_QOS_MAP.pfc_enable, with the SKU's vendor-tuned
 * pg_profile_lookup.ini. So loom writes CABLE_LENGTH and pfc_enable and does
 * NOT write BUFFER_PG or BUFFER_PROFILE: its own headroom figures
 * (lp_port_buffer size/xon/xoff) are not sent to the switch. qos_read
 * reports what buffermgrd made (0 when it made nothing yet).
 *
 * Not written: PORT_QOS_MAP|global (202205+ only; 202111's orchagent would
 * take "global" for a port), PFC_PRIORITY_TO_PRIORITY_GROUP_MAP and
 * pfc_to_pg_map (Mellanox/Barefoot SKUs only), DOT1P maps. */
#include "sonic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAP_NAME "LOOM"
#define WRED_NAME "LOOM_LOSSLESS"
#define SCHED_DWRR "LOOM_DWRR_"
#define SCHED_STRICT "LOOM_STRICT"
/* CABLE_LENGTH's one key, as qos reload made it: a field per port. */
#define CABLE_NAME "AZURE"

static const char *const pfcwd_actions[] = {
	[LP_PFCWD_DROP] = "drop",
	[LP_PFCWD_FORWARD] = "forward",
	[LP_PFCWD_ALERT] = "alert",
};

/* "3,4" for the bits of mask. */
static void mask_list(uint8_t mask, char *out, size_t outlen)
{
	size_t o = 0;

	out[0] = '\0';
	for (unsigned b = 0; b < 8 && o + 3 < outlen; b++)
		if (mask >> b & 1)
			o += (size_t)snprintf(out + o, outlen - o, "%s%u", o ? "," : "", b);
}

static int check_want(const struct lp_qos *w, char *err, size_t errlen)
{
	if (w->n_ports > LP_MAX_PORTS) {
		snprintf(err, errlen, "%zu ports, at most %d", w->n_ports, LP_MAX_PORTS);
		return -EINVAL;
	}
	for (unsigned d = 0; d < 64; d++)
		if (w->dscp_to_tc[d] >= LP_TCS) {
			snprintf(err, errlen, "dscp_to_tc[%u] = %u: classes are 0..7", d,
				 w->dscp_to_tc[d]);
			return -EINVAL;
		}
	for (unsigned t = 0; t < LP_TCS; t++) {
		const struct lp_ecn *e = &w->ecn[t];

		if (w->tc_to_queue[t] >= LP_TCS || w->tc_to_pg[t] >= LP_TCS) {
			snprintf(err, errlen, "traffic class %u maps to queue %u, priority group "
				 "%u: both are 0..7", t, w->tc_to_queue[t], w->tc_to_pg[t]);
			return -EINVAL;
		}
		if (w->ets_weight[t] > 100) {
			snprintf(err, errlen, "ets_weight[%u] = %u: SONiC takes 1..100", t,
				 w->ets_weight[t]);
			return -EINVAL;
		}
		if (e->enabled && (e->min_bytes >= e->max_bytes || !e->mark_percent ||
				   e->mark_percent > 100)) {
			snprintf(err, errlen, "ecn[%u]: want min_bytes < max_bytes and mark_percent "
				 "1..100, not %u, %u, %u", t, e->min_bytes, e->max_bytes,
				 e->mark_percent);
			return -EINVAL;
		}
	}
	if (w->pfcwd.enabled && (unsigned)w->pfcwd.action > LP_PFCWD_ALERT) {
		snprintf(err, errlen, "pfcwd.action %d: not drop, forward or alert",
			 (int)w->pfcwd.action);
		return -EINVAL;
	}
	for (size_t i = 0; i < w->n_ports; i++) {
		const char *p = w->ports[i].port;

		if (!memchr(p, '\0', LP_NAME_LEN) || !*p || strpbrk(p, "|,")) {
			snprintf(err, errlen, "ports[%zu]: \"%.*s\" is no SONiC port name", i,
				 LP_NAME_LEN - 1, p);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p, w->ports[j].port)) {
				snprintf(err, errlen, "ports[%zu]: %s is listed twice", i, p);
				return -EINVAL;
			}
	}
	return 0;
}

/* Scheduler names per queue ("" none) and the SCHEDULER objects. */
static void plan_schedulers(const struct lp_qos *w, struct sn_plan *p, char name[LP_TCS][32])
{
	uint8_t planned[256 / 8] = { 0 };  /* DWRR weights already in the plan */

	for (unsigned q = 0; q < LP_TCS; q++) {
		unsigned wt = w->ets_weight[q];

		name[q][0] = '\0';
		if (w->strict_mask >> q & 1) {
			snprintf(name[q], 32, SCHED_STRICT);
		} else if (wt) {
			snprintf(name[q], 32, SCHED_DWRR "%u", wt);
			if (planned[wt / 8] >> wt % 8 & 1)
				continue;
			planned[wt / 8] |= (uint8_t)(1u << wt % 8);
			sn_plan_key(p, "SCHEDULER|%s", name[q]);
			sn_plan_set(p, "type", "DWRR");
			sn_plan_set(p, "weight", "%u", wt);
		}
	}
	if (w->strict_mask) {
		sn_plan_key(p, "SCHEDULER|" SCHED_STRICT);
		sn_plan_set(p, "type", "STRICT");
		sn_plan_set(p, "weight", "%s", "");
	}
}

/* WRED profile names per queue ("" none) and the WRED_PROFILE objects. */
static void plan_wred(const struct lp_qos *w, struct sn_plan *p, char name[LP_TCS][32])
{
	static const char *const colours[] = { "green", "yellow", "red" };
	int first = -1;

	for (unsigned q = 0; q < LP_TCS; q++) {
		const struct lp_ecn *e = &w->ecn[q];
		unsigned same = q;

		name[q][0] = '\0';
		if (!e->enabled)
			continue;
		for (unsigned r = 0; r < q && same == q; r++)
			if (w->ecn[r].enabled && w->ecn[r].min_bytes == e->min_bytes &&
			    w->ecn[r].max_bytes == e->max_bytes &&
			    w->ecn[r].mark_percent == e->mark_percent)
				same = r;
		if (same != q) {
			memcpy(name[q], name[same], sizeof(name[q]));
			continue;
		}
		if (first < 0) {
			first = (int)q;
			snprintf(name[q], 32, WRED_NAME);
		} else {
			snprintf(name[q], 32, WRED_NAME "_Q%u", q);
		}
		sn_plan_key(p, "WRED_PROFILE|%s", name[q]);
		for (unsigned c = 0; c < 3; c++) {
			char f[32];

			snprintf(f, sizeof(f), "wred_%s_enable", colours[c]);
			sn_plan_set(p, f, "true");
		}
		sn_plan_set(p, "ecn", "ecn_all");
		for (unsigned c = 0; c < 3; c++) {
			char f[32];

			snprintf(f, sizeof(f), "%s_min_threshold", colours[c]);
			sn_plan_set(p, f, "%u", e->min_bytes);
			snprintf(f, sizeof(f), "%s_max_threshold", colours[c]);
			sn_plan_set(p, f, "%u", e->max_bytes);
			snprintf(f, sizeof(f), "%s_drop_probability", colours[c]);
			sn_plan_set(p, f, "%u", e->mark_percent);
		}
	}
}

static unsigned poll_interval(const struct lp_qos *w)
{
	unsigned poll = 200 * (unsigned)((w->n_ports + 31) / 32);

	if (poll > 1000)
		poll = 1000;
	if (poll > w->pfcwd.detection_ms)
		poll = w->pfcwd.detection_ms;
	if (w->pfcwd.restoration_ms && poll > w->pfcwd.restoration_ms)
		poll = w->pfcwd.restoration_ms;
	return poll < 100 ? 100 : poll;
}

/* A reference to TABLE|name in the switch's form ("" stays ""). */
static void ref(enum sn_refs refs, const char *table, const char *name, char *out, size_t len)
{
	if (refs == SN_REFS_BRACKET && name[0])
		snprintf(out, len, "[%.32s|%.31s]", table, name);
	else
		snprintf(out, len, "%.31s", name);
}

int sn_refs_parse(const redisReply *r, enum sn_refs *refs, char *err, size_t errlen)
{
	const char *v = sn_hget(r, "VERSION");
	unsigned a, b, d;
	int n;

	*refs = SN_REFS_PLAIN;
	if (!v || (sscanf(v, "version_%u_%u_%u%n", &a, &b, &d, &n) == 3 && !v[n])) {
		if (v && (a < 3 || (a == 3 && b == 0 && d <= 2)))
			*refs = SN_REFS_BRACKET;
		return 0;
	}
	if (sscanf(v, "version_%u_%u%n", &a, &b, &n) == 2 && !v[n] && a >= 202111)
		return 0;
	snprintf(err, errlen, "VERSIONS|DATABASE VERSION \"%.40s\" is no CONFIG_DB schema "
		 "version loom knows, so it cannot tell whether references take "
		 "[TABLE|name] (before 202111) or plain names: nothing written", v);
	return -EPROTO;
}

int sn_refs_of(struct sn_conn *c, enum sn_refs *refs, char *err, size_t errlen)
{
	char key[SN_KEY_LEN] = "VERSIONS|DATABASE";
	redisReply *r = NULL;
	int rc;

	*refs = SN_REFS_PLAIN;
	if ((rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = sn_hgetall(c, NULL, 0, key, sizeof(key), 1, &r, err, errlen)))
		return rc;
	rc = sn_refs_parse(r, refs, err, errlen);
	freeReplyObject(r);
	return rc;
}

int sn_plan_qos(const struct lp_qos *w, enum sn_refs refs, const struct sn_buffers *buffers,
		struct sn_plan *p, char *err, size_t errlen)
{
	char sched[LP_TCS][32], wred[LP_TCS][32], pfc[32], r[SN_STR_LEN];
	int rc;

	if ((rc = check_want(w, err, errlen)))
		return rc;
	sn_plan_key(p, "DSCP_TO_TC_MAP|" MAP_NAME);
	for (unsigned d = 0; d < 64; d++) {
		char f[4];

		snprintf(f, sizeof(f), "%u", d);
		sn_plan_set(p, f, "%u", w->dscp_to_tc[d]);
	}
	static const char *const tc_maps[] = { "TC_TO_QUEUE_MAP|" MAP_NAME,
		"TC_TO_PRIORITY_GROUP_MAP|" MAP_NAME, "MAP_PFC_PRIORITY_TO_QUEUE|" MAP_NAME };
	for (unsigned m = 0; m < 3; m++) {
		sn_plan_key(p, "%s", tc_maps[m]);
		for (unsigned t = 0; t < LP_TCS; t++) {
			char f[4];

			snprintf(f, sizeof(f), "%u", t);
			sn_plan_set(p, f, "%u", m == 1 ? w->tc_to_pg[t] : w->tc_to_queue[t]);
		}
	}
	plan_wred(w, p, wred);
	plan_schedulers(w, p, sched);
	if (w->n_ports) {
		sn_plan_key(p, "CABLE_LENGTH|" CABLE_NAME);
		for (size_t i = 0; i < w->n_ports; i++)
			sn_plan_set(p, w->ports[i].port, "%um", w->ports[i].cable_m);
	}
	for (size_t i = 0; i < w->n_ports; i++)
		for (unsigned q = 0; q < LP_TCS; q++) {
			sn_plan_key(p, "QUEUE|%s|%u", w->ports[i].port, q);
			ref(refs, "SCHEDULER", sched[q], r, sizeof(r));
			sn_plan_set(p, "scheduler", "%s", r);
			ref(refs, "WRED_PROFILE", wred[q], r, sizeof(r));
			sn_plan_set(p, "wred_profile", "%s", r);
		}
	mask_list(w->pfc_mask, pfc, sizeof(pfc));
	sn_buffers_plan_stale(buffers, w, p);
	for (size_t i = 0; i < w->n_ports; i++) {
		sn_plan_key(p, "PORT_QOS_MAP|%s", w->ports[i].port);
		ref(refs, "DSCP_TO_TC_MAP", MAP_NAME, r, sizeof(r));
		sn_plan_set(p, "dscp_to_tc_map", "%s", r);
		ref(refs, "TC_TO_QUEUE_MAP", MAP_NAME, r, sizeof(r));
		sn_plan_set(p, "tc_to_queue_map", "%s", r);
		ref(refs, "TC_TO_PRIORITY_GROUP_MAP", MAP_NAME, r, sizeof(r));
		sn_plan_set(p, "tc_to_pg_map", "%s", r);
		ref(refs, "MAP_PFC_PRIORITY_TO_QUEUE", MAP_NAME, r, sizeof(r));
		sn_plan_set(p, "pfc_to_queue_map", "%s", r);
		sn_plan_set(p, "pfc_enable", "%s", pfc);
		sn_plan_set(p, "pfcwd_sw_enable", "%s", w->pfcwd.enabled ? pfc : "");
	}
	if (w->pfcwd.enabled && w->n_ports) {
		sn_plan_key(p, "PFC_WD|GLOBAL");
		sn_plan_set_if_absent(p, "POLL_INTERVAL", "%u", poll_interval(w));
	}
	for (size_t i = 0; i < w->n_ports; i++) {
		if (!w->pfcwd.enabled) {
			/* `pfcwd stop`: the whole entry goes (one left with only
			 * pfc_stat_history would lack its required detection_time) */
			sn_plan_del(p, "PFC_WD|%s", w->ports[i].port);
			continue;
		}
		sn_plan_key(p, "PFC_WD|%s", w->ports[i].port);
		sn_plan_set(p, "action", "%s", pfcwd_actions[w->pfcwd.action]);
		sn_plan_set(p, "detection_time", "%u", w->pfcwd.detection_ms);
		if (w->pfcwd.restoration_ms)
			sn_plan_set(p, "restoration_time", "%u", w->pfcwd.restoration_ms);
		else
			sn_plan_set(p, "restoration_time", "%s", "");
	}
	if (p->failed) {
		snprintf(err, errlen, "%s", p->failed == -ENOMEM ? "out of memory"
			 : "a key or value is too long");
		return p->failed;
	}
	return 0;
}

/* ---- qos_read ----------------------------------------------------------- */


/* A class, queue or priority group: 0..7, else `dflt`. */
static uint8_t parse_tc(const char *s, uint8_t dflt)
{
	return s && s[0] >= '0' && s[0] <= '7' && !s[1] ? (uint8_t)(s[0] - '0') : dflt;
}

static uint8_t parse_mask(const char *s)
{
	uint8_t m = 0;

	for (; s && *s; s++)
		if (*s >= '0' && *s <= '7')
			m |= (uint8_t)(1u << (*s - '0'));
	return m;
}

static int nonempty(const redisReply *r)
{
	return r && r->type == REDIS_REPLY_ARRAY && r->elements > 0;
}

/* Per-port facts: speed, cable, headroom as buffermgrd made it. */
static int read_ports(const struct sn_source *src, struct lp_qos *q, char (*keys)[SN_KEY_LEN],
		      redisReply **r, char *err, size_t errlen)
{
	size_t n = q->n_ports;
	redisReply *cable = NULL;
	char range[8][8];
	int rc;

	snprintf(keys[0], SN_KEY_LEN, "CABLE_LENGTH|" CABLE_NAME);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, 1, &cable, err, errlen)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		q->ports[i].cable_m = sn_parse_u32(sn_hget(cable, q->ports[i].port));
		snprintf(keys[i], SN_KEY_LEN, "PORT|%s", q->ports[i].port);
	}
	freeReplyObject(cable);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, n, r, err, errlen)))
		return rc;
	for (size_t i = 0; i < n; i++)
		q->ports[i].speed_mbps = sn_parse_u32(sn_hget(r[i], "speed"));
	sn_replies_clear(r, n);
	if (!q->pfc_mask)
		return 0;
	/* All of a port's lossless groups get the same headroom profile (its
	 * speed and cable), so the first run's tells it. */
	sn_pg_runs(q->pfc_mask, range, 8);
	for (size_t i = 0; i < n; i++)
		snprintf(keys[i], SN_KEY_LEN, "BUFFER_PG|%s|%s", q->ports[i].port, range[0]);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, n, r, err, errlen)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		char name[SN_STR_LEN];

		sn_ref_name(sn_hget(r[i], "profile"), "NULL", name, sizeof(name));
		snprintf(keys[i], SN_KEY_LEN, "BUFFER_PROFILE|%s", name);
	}
	sn_replies_clear(r, n);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, n, r, err, errlen)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		q->ports[i].size_bytes = sn_parse_u32(sn_hget(r[i], "size"));
		q->ports[i].xon_bytes = sn_parse_u32(sn_hget(r[i], "xon"));
		q->ports[i].xoff_bytes = sn_parse_u32(sn_hget(r[i], "xoff"));
	}
	sn_replies_clear(r, n);
	return 0;
}

/* Queues, schedulers, WRED profiles and the watchdog of port `port` (the
 * switch-wide struct lp_qos is read from the first port that has QoS). */
static int read_queues(const struct sn_source *src, struct lp_qos *q, const char *port,
		       char (*keys)[SN_KEY_LEN], redisReply **r, char *err, size_t errlen)
{
	char sched[LP_TCS][SN_STR_LEN], wred[LP_TCS][SN_STR_LEN];
	int rc;

	for (unsigned t = 0; t < LP_TCS; t++)
		snprintf(keys[t], SN_KEY_LEN, "QUEUE|%s|%u", port, t);
	snprintf(keys[LP_TCS], SN_KEY_LEN, "PFC_WD|%s", port);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, LP_TCS + 1, r, err, errlen)))
		return rc;
	for (unsigned t = 0; t < LP_TCS; t++) {
		sn_ref_name(sn_hget(r[t], "scheduler"), "", sched[t], sizeof(sched[t]));
		sn_ref_name(sn_hget(r[t], "wred_profile"), "", wred[t], sizeof(wred[t]));
	}
	if (sn_hget(r[LP_TCS], "detection_time")) {
		const char *a = sn_hget(r[LP_TCS], "action");

		q->pfcwd.enabled = 1;
		q->pfcwd.action = a && !strcmp(a, "forward") ? LP_PFCWD_FORWARD
				: a && !strcmp(a, "alert") ? LP_PFCWD_ALERT : LP_PFCWD_DROP;
		q->pfcwd.detection_ms = sn_parse_u32(sn_hget(r[LP_TCS], "detection_time"));
		q->pfcwd.restoration_ms = sn_parse_u32(sn_hget(r[LP_TCS], "restoration_time"));
	}
	sn_replies_clear(r, LP_TCS + 1);
	for (unsigned t = 0; t < LP_TCS; t++) {
		snprintf(keys[t], SN_KEY_LEN, "SCHEDULER|%s", sched[t]);
		snprintf(keys[LP_TCS + t], SN_KEY_LEN, "WRED_PROFILE|%s", wred[t]);
	}
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, 2 * LP_TCS, r, err, errlen)))
		return rc;
	for (unsigned t = 0; t < LP_TCS; t++) {
		const char *type = sn_hget(r[t], "type");
		const char *ecn = sn_hget(r[LP_TCS + t], "ecn");

		if (sched[t][0] && type && !strcmp(type, "STRICT"))
			q->strict_mask |= (uint8_t)(1u << t);
		else if (sched[t][0]) {
			uint32_t wt = sn_parse_u32(sn_hget(r[t], "weight"));

			q->ets_weight[t] = (uint8_t)(wt > 255 ? 255 : wt);
		}
		if (wred[t][0] && ecn && strcmp(ecn, "ecn_none")) {
			q->ecn[t].enabled = 1;
			q->ecn[t].min_bytes = sn_parse_u32(sn_hget(r[LP_TCS + t], "green_min_threshold"));
			q->ecn[t].max_bytes = sn_parse_u32(sn_hget(r[LP_TCS + t], "green_max_threshold"));
			q->ecn[t].mark_percent =
				(uint8_t)sn_parse_u32(sn_hget(r[LP_TCS + t], "green_drop_probability"));
		}
	}
	sn_replies_clear(r, 2 * LP_TCS);
	return 0;
}

int sn_qos_decode(const struct sn_source *src, struct lp_qos *q, char *err, size_t errlen)
{
	size_t n = q->n_ports, nk = (n > 2 * LP_TCS ? n : 2 * LP_TCS) + 1;
	char (*names)[LP_NAME_LEN] = NULL, (*keys)[SN_KEY_LEN] = NULL;
	char dscp[SN_STR_LEN], tcq[SN_STR_LEN], tcpg[SN_STR_LEN];
	redisReply **r = NULL, *maps[3] = { 0 };
	const redisReply *pqm = NULL;
	size_t ref = 0;
	int rc;

	if (n > LP_MAX_PORTS) {
		snprintf(err, errlen, "%zu ports, at most %d", n, LP_MAX_PORTS);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!memchr(q->ports[i].port, '\0', LP_NAME_LEN) || !q->ports[i].port[0]) {
			snprintf(err, errlen, "ports[%zu]: no port name", i);
			return -EINVAL;
		}
	names = malloc((n ? n : 1) * sizeof(*names));
	keys = calloc(nk, sizeof(*keys));
	r = calloc(nk, sizeof(*r));
	if (!names || !keys || !r) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(names[i], q->ports[i].port, LP_NAME_LEN);
	memset(q, 0, sizeof(*q));
	q->n_ports = n;
	for (size_t i = 0; i < n; i++)
		memcpy(q->ports[i].port, names[i], LP_NAME_LEN);

	for (size_t i = 0; i < n; i++)
		snprintf(keys[i], SN_KEY_LEN, "PORT_QOS_MAP|%s", names[i]);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, n, r, err, errlen)))
		goto out;
	for (ref = 0; ref < n && !nonempty(r[ref]); ref++)
		;
	pqm = ref < n ? r[ref] : NULL;
	sn_ref_name(sn_hget(pqm, "dscp_to_tc_map"), MAP_NAME, dscp, sizeof(dscp));
	sn_ref_name(sn_hget(pqm, "tc_to_queue_map"), MAP_NAME, tcq, sizeof(tcq));
	sn_ref_name(sn_hget(pqm, "tc_to_pg_map"), MAP_NAME, tcpg, sizeof(tcpg));
	q->pfc_mask = parse_mask(sn_hget(pqm, "pfc_enable"));
	sn_replies_clear(r, n);
	pqm = NULL;

	snprintf(keys[0], SN_KEY_LEN, "DSCP_TO_TC_MAP|%s", dscp);
	snprintf(keys[1], SN_KEY_LEN, "TC_TO_QUEUE_MAP|%s", tcq);
	snprintf(keys[2], SN_KEY_LEN, "TC_TO_PRIORITY_GROUP_MAP|%s", tcpg);
	if ((rc = src->hgetall(src->ctx, keys[0], SN_KEY_LEN, 3, maps, err, errlen)))
		goto out;
	if (ref == n && !nonempty(maps[0])) {
		snprintf(err, errlen, "no lossless configuration: no DSCP_TO_TC_MAP|%s and no "
			 "PORT_QOS_MAP for %s%s in CONFIG_DB", dscp, n ? names[0] : "any port",
			 n > 1 ? " or the other ports asked" : "");
		rc = -ENOENT;
		goto out;
	}
	for (unsigned d = 0; d < 64; d++) {
		char f[4];

		snprintf(f, sizeof(f), "%u", d);
		q->dscp_to_tc[d] = parse_tc(sn_hget(maps[0], f), 0);
	}
	for (unsigned t = 0; t < LP_TCS; t++) {
		char f[4];

		snprintf(f, sizeof(f), "%u", t);
		q->tc_to_queue[t] = parse_tc(sn_hget(maps[1], f), (uint8_t)t);
		q->tc_to_pg[t] = parse_tc(sn_hget(maps[2], f), 0);
	}
	if (ref < n && (rc = read_queues(src, q, names[ref], keys, r, err, errlen)))
		goto out;
	rc = read_ports(src, q, keys, r, err, errlen);
out:
	sn_replies_clear(maps, 3);
	sn_replies_clear(r, nk);
	free(names);
	free(keys);
	free(r);
	return rc;
}

/* A source of CONFIG_DB hashes: sn_hgetall on the switch's connection. */
static int conn_hgetall(void *ctx, const char *keys, size_t stride, size_t n, redisReply **out,
			char *err, size_t errlen)
{
	return sn_hgetall(ctx, NULL, 0, keys, stride, n, out, err, errlen);
}

int sn_qos_read(struct sn_conn *c, struct lp_qos *q, char *err, size_t errlen)
{
	const struct sn_source src = { conn_hgetall, c };
	int rc;

	if ((rc = sn_select(c, SN_CONFIG_DB, err, errlen)))
		return rc;
	return sn_qos_decode(&src, q, err, errlen);
}
