/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue_qos.c: loom's lossless QoS (struct lp_qos) in NVUE's
 * object model, and back. Pure: no I/O; nvue.c reads and PATCHes.
 *
 * loom writes NVUE's global profiles ("default-global"), which apply to
 * every port that names no other profile, so one set of leaves serves the
 * whole switch:
 *
 *   qos/roce                                         mode lossless, enable on
 *   qos/mapping/default-global                       trust l3
 *   qos/mapping/default-global/dscp/<d>              switch-priority <tc>  (d 0..63)
 *   qos/egress-queue-mapping/default-global/switch-priority/<p>
 *                                                    traffic-class <queue>
 *   qos/pfc/default-global                           cable-length <m>, tx/rx enable
 *   qos/pfc/default-global/switch-priority           <p>: {} for each PFC priority
 *   qos/congestion-control/default-global/traffic-class/<q>
 *                                                    ecn enable | disable, and when
 *                                                    enabled min-threshold,
 *                                                    max-threshold (bytes),
 *                                                    probability (%)
 *   qos/egress-scheduler/default-global/traffic-class/<q>
 *                                                    mode strict | dwrr, bw-percent
 *   qos/pfc-watchdog                                 polling-interval (ms), robustness
 *   interface/<port>/qos/pfc-watchdog                state enable
 *
 * loom's terms -> NVUE's: loom's traffic class t is NVUE's switch priority
 * t (DSCP -> switch-priority is NVUE's ingress map), and loom's queue is
 * NVUE's traffic class (switch-priority -> traffic-class is the egress
 * queue map). Priority groups are not in NVUE's model: the switch makes
 * them from the PFC priorities, so tc_to_pg is read back as loom's own
 * rule (the PFC class itself, else 0). Headroom is not written: NVUE
 * derives xoff/xon/port buffer from cable-length (one for the switch, the
 * first port's), and qos_read reports them when the profile holds them.
 * The PFC watchdog of NVUE takes a polling interval and a robustness, the
 * number of polling intervals a queue must stay stalled before the
 * watchdog acts, and drops on a storm: its detection time is interval x
 * robustness. loom splits detection_ms so (the finest interval, from
 * NVUE's 100 ms up, that divides it: 200 ms is 100 x 2) and reads the
 * product back. NVUE has no restoration time to set: restoration_ms is not
 * written and reads back as 0. The action is always drop.
 *
 * A leaf whose wanted value is "" must not exist: a PATCH sets it to null
 * (NVUE's PATCH merges like RFC 7386 JSON merge patch, where null unsets).
 *
 * Unset is not "off" in NVUE: a field left unset takes the switch's default
 * (docs/nvue-qos-notes.md has the sources). So loom writes, never unsets:
 *  - every traffic class of the egress scheduler. default-global gives each
 *    class DWRR 12 % (0,2,4,6) or 13 % (1,3,5,7) unless set, and NVUE refuses
 *    a profile whose DWRR bw-percent sum past 100: loom's 50 + 50 with the
 *    other six unset is 163 %. A queue loom gives neither weight nor strict
 *    carries no traffic (the policy's rule; checked here) and is written
 *    "strict" (NVUE's bw-percent takes 1..100, no 0), which takes nothing
 *    from the others; read back, a strict queue no traffic reaches is such a
 *    queue (neither strict nor weighted). The weights must sum to <= 100.
 *  - "ecn disable" on a queue without ECN: default-global marks ECN on
 *    queue 0 unless told not to.
 *  - trust l3 (the default is l2, 802.1p, under which the DSCP map is not
 *    used): read back, trust l2 or port makes every DSCP land on the port's
 *    default priority (port-default-sp, 0), as the switch classifies IP
 *    then, so drift shows in dscp_to_tc; an unset dscp/<d> reads back as
 *    NVUE's default d / 8, an unset watchdog polling-interval as 100 ms and
 *    robustness as 3.
 * Refused before anything is sent (-EINVAL, naming the switch and field),
 * as NVUE refuses them: the PFC watchdog on a switch without PFC ("only on
 * a port with PFC"), ECN min above max, a mark probability outside 1..100,
 * DWRR weights above 100 in all.
 */
#include "autoconf.h"
#include "nvue.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nv_leaves_free(struct nv_leaves *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void nv_leaf_add(struct nv_leaves *l, enum nv_kind kind, const char *field, const char *value,
		 const char *pathfmt, ...)
{
	struct nv_leaf *lf;
	va_list ap;
	int n;

	if (l->failed)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 128;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v) {
			l->failed = -ENOMEM;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	lf = &l->v[l->n];
	va_start(ap, pathfmt);
	n = vsnprintf(lf->path, sizeof(lf->path), pathfmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(lf->path) || strlen(field) >= sizeof(lf->field) ||
	    strlen(value) >= sizeof(lf->value)) {
		l->failed = -ENAMETOOLONG;
		return;
	}
	strcpy(lf->field, field);
	strcpy(lf->value, value);
	lf->kind = kind;
	l->n++;
}

/* NVUE's pfc-watchdog: polling-interval 100..5000 ms, robustness 1..1000
 * intervals before it acts. */
#define NV_POLL_MIN 100
#define NV_POLL_MAX 5000
#define NV_ROBUST_MAX 1000

/* detection_ms as polling-interval x robustness: the smallest interval
 * from NV_POLL_MIN that divides it exactly, else the nearest product. */
static void pfcwd_split(uint32_t det, uint32_t *poll, uint32_t *rob)
{
	uint32_t p;

	if (det < NV_POLL_MIN)
		det = NV_POLL_MIN;
	for (p = NV_POLL_MIN; p <= NV_POLL_MAX && p <= det; p++)
		if (det % p == 0 && det / p <= NV_ROBUST_MAX) {
			*poll = p;
			*rob = det / p;
			return;
		}
	*poll = det < NV_POLL_MAX ? det : NV_POLL_MAX;
	*rob = (det + *poll / 2) / *poll;
	if (*rob > NV_ROBUST_MAX)
		*rob = NV_ROBUST_MAX;
}

static void add_int(struct nv_leaves *l, const char *field, unsigned long v, const char *pathfmt,
		    ...) __attribute__((format(printf, 4, 5)));
static void add_int(struct nv_leaves *l, const char *field, unsigned long v, const char *pathfmt,
		    ...)
{
	char path[NV_PATH_LEN], val[24];
	va_list ap;

	va_start(ap, pathfmt);
	vsnprintf(path, sizeof(path), pathfmt, ap);
	va_end(ap);
	snprintf(val, sizeof(val), "%lu", v);
	nv_leaf_add(l, NV_INT, field, val, "%s", path);
}

/* The queues traffic reaches: each DSCP's (trust l3), and switch priority
 * 0's, which non-IP frames take (the port default priority). */
static uint8_t used_queues(const struct lp_qos *q)
{
	uint8_t used = (uint8_t)(1u << (q->tc_to_queue[0] & 7));

	for (unsigned d = 0; d < 64; d++)
		used |= (uint8_t)(1u << (q->tc_to_queue[q->dscp_to_tc[d] & 7] & 7));
	return used;
}

/* What NVUE would refuse in `w` (0, or -EINVAL with err naming the field). */
static int check_want(const char *sw, const struct lp_qos *w, char *err, size_t errlen)
{
	unsigned sum = 0;
	uint8_t used = used_queues(w);

	for (size_t i = 0; i < w->n_ports; i++)
		if (!w->ports[i].port[0] || strchr(w->ports[i].port, '/')) {
			snprintf(err, errlen, "%s: \"%s\" is no Cumulus Linux port name", sw,
				 w->ports[i].port);
			return -EINVAL;
		}
	if (w->pfcwd.enabled && !w->pfc_mask) {
		snprintf(err, errlen, "%s: interface <port> qos pfc-watchdog: no PFC priority: "
			 "NVUE takes the PFC watchdog only on a port with PFC", sw);
		return -EINVAL;
	}
	for (unsigned q = 0; q < LP_TCS; q++) {
		const struct lp_ecn *e = &w->ecn[q];

		if (e->enabled && e->min_bytes > e->max_bytes) {
			snprintf(err, errlen, "%s: qos congestion-control %s traffic-class %u: "
				 "min-threshold %u is above max-threshold %u", sw, NV_PROFILE, q,
				 e->min_bytes, e->max_bytes);
			return -EINVAL;
		}
		if (e->enabled && (e->mark_percent < 1 || e->mark_percent > 100)) {
			snprintf(err, errlen, "%s: qos congestion-control %s traffic-class %u "
				 "probability %u: NVUE takes 1..100", sw, NV_PROFILE, q,
				 e->mark_percent);
			return -EINVAL;
		}
		if (w->strict_mask >> q & 1)
			continue;
		sum += w->ets_weight[q];
		if (!w->ets_weight[q] && (used >> q & 1)) {
			snprintf(err, errlen, "%s: qos egress-scheduler %s traffic-class %u carries "
				 "traffic but has no bw-percent and is not strict", sw, NV_PROFILE, q);
			return -EINVAL;
		}
	}
	if (sum > 100) {
		snprintf(err, errlen, "%s: qos egress-scheduler %s: the dwrr bw-percent sum to %u; "
			 "NVUE takes at most 100", sw, NV_PROFILE, sum);
		return -EINVAL;
	}
	return 0;
}

int nv_qos_leaves(const char *sw, const struct lp_qos *w, struct nv_leaves *l, char *err,
		  size_t errlen)
{
	static const char *const P = NV_PROFILE;
	int rc;

	memset(l, 0, sizeof(*l));
	if ((rc = check_want(sw, w, err, errlen)))
		return rc;
	nv_leaf_add(l, NV_STR, "enable", "on", "qos/roce");
	nv_leaf_add(l, NV_STR, "mode", w->pfc_mask ? "lossless" : "lossy", "qos/roce");
	nv_leaf_add(l, NV_STR, "trust", "l3", "qos/mapping/%s", P);
	for (unsigned d = 0; d < 64; d++)
		add_int(l, "switch-priority", w->dscp_to_tc[d] & 7, "qos/mapping/%s/dscp/%u", P, d);
	for (unsigned p = 0; p < LP_TCS; p++)
		add_int(l, "traffic-class", w->tc_to_queue[p] & 7,
			"qos/egress-queue-mapping/%s/switch-priority/%u", P, p);
	if (w->pfc_mask) {
		if (w->n_ports)
			add_int(l, "cable-length", w->ports[0].cable_m, "qos/pfc/%s", P);
		nv_leaf_add(l, NV_STR, "tx", "enable", "qos/pfc/%s", P);
		nv_leaf_add(l, NV_STR, "rx", "enable", "qos/pfc/%s", P);
	}
	for (unsigned p = 0; p < LP_TCS; p++) {
		char id[4];

		snprintf(id, sizeof(id), "%u", p);
		nv_leaf_add(l, NV_PRESENT, id, (w->pfc_mask >> p & 1) ? "on" : "",
			    "qos/pfc/%s/switch-priority", P);
	}
	for (unsigned q = 0; q < LP_TCS; q++) {
		const struct lp_ecn *e = &w->ecn[q];
		char min[16] = "", max[16] = "", pct[8] = "";

		if (e->enabled) {
			snprintf(min, sizeof(min), "%u", e->min_bytes);
			snprintf(max, sizeof(max), "%u", e->max_bytes);
			snprintf(pct, sizeof(pct), "%u", e->mark_percent);
		}
		nv_leaf_add(l, NV_STR, "ecn", e->enabled ? "enable" : "disable",
			    "qos/congestion-control/%s/traffic-class/%u", P, q);
		nv_leaf_add(l, NV_INT, "min-threshold", min,
			    "qos/congestion-control/%s/traffic-class/%u", P, q);
		nv_leaf_add(l, NV_INT, "max-threshold", max,
			    "qos/congestion-control/%s/traffic-class/%u", P, q);
		nv_leaf_add(l, NV_INT, "probability", pct,
			    "qos/congestion-control/%s/traffic-class/%u", P, q);
	}
	for (unsigned q = 0; q < LP_TCS; q++) {
		int strict = w->strict_mask >> q & 1;
		char bw[8] = "";

		if (!strict && w->ets_weight[q])
			snprintf(bw, sizeof(bw), "%u", w->ets_weight[q]);
		/* never unset: an unset class takes its default 12/13 % (see above) */
		nv_leaf_add(l, NV_STR, "mode", bw[0] ? "dwrr" : "strict",
			    "qos/egress-scheduler/%s/traffic-class/%u", P, q);
		nv_leaf_add(l, NV_INT, "bw-percent", bw, "qos/egress-scheduler/%s/traffic-class/%u",
			    P, q);
	}
	if (w->pfcwd.enabled) {
		uint32_t poll, rob;

		pfcwd_split(w->pfcwd.detection_ms, &poll, &rob);
		add_int(l, "polling-interval", poll, "qos/pfc-watchdog");
		add_int(l, "robustness", rob, "qos/pfc-watchdog");
	}
	for (size_t i = 0; i < w->n_ports; i++)
		nv_leaf_add(l, NV_STR, "state", w->pfcwd.enabled ? "enable" : "",
			    "interface/%s/qos/pfc-watchdog", w->ports[i].port);
	if (l->failed) {
		snprintf(err, errlen, "%s: %s", sw,
			 l->failed == -ENOMEM ? "out of memory" : "NVUE path too long");
		return l->failed;
	}
	return 0;
}

/* The object at '/'-separated `path` under root, or NULL. */
static json_t *walk(json_t *root, const char *path)
{
	char buf[NV_PATH_LEN], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *c = strtok_r(buf, "/", &save); c && root; c = strtok_r(NULL, "/", &save))
		root = json_is_object(root) ? json_object_get(root, c) : NULL;
	return root;
}

static void json_str(json_t *v, char *buf, size_t len)
{
	if (!v || json_is_null(v))
		buf[0] = '\0';
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
	else
		snprintf(buf, len, "on");        /* an object or array that exists */
}

void nv_leaf_value(json_t *root, const struct nv_leaf *leaf, char *buf, size_t len)
{
	json_t *o = walk(root, leaf->path), *v = json_is_object(o) ? json_object_get(o, leaf->field)
								    : NULL;

	if (leaf->kind == NV_PRESENT)
		snprintf(buf, len, "%s", v && !json_is_null(v) ? "on" : "");
	else
		json_str(v, buf, len);
}

int nv_patch_set(json_t *patch, const struct nv_leaf *leaf)
{
	char buf[NV_PATH_LEN], *save = NULL;
	json_t *o = patch, *v;

	snprintf(buf, sizeof(buf), "%s", leaf->path);
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		json_t *next = json_object_get(o, c);

		if (!json_is_object(next)) {
			if (!(next = json_object()) || json_object_set_new(o, c, next))
				return -ENOMEM;
		}
		o = next;
	}
	if (!leaf->value[0])
		v = json_null();
	else if (leaf->kind == NV_PRESENT)
		v = json_object();
	else if (leaf->kind == NV_INT)
		v = json_integer(strtoll(leaf->value, NULL, 10));
	else
		v = json_string(leaf->value);
	return !v || json_object_set_new(o, leaf->field, v) ? -ENOMEM : 0;
}

/* ---- reading back ---------------------------------------------------------- */

/* o[field] as an integer min..max (a JSON integer, or a string of one):
 * 0 and *out (dflt when o is no object or field is absent or null), or
 * -EPROTO naming `qos <path> <field>`. */
static int get_int(json_t *o, const char *path, const char *field, long dflt, long min, long max,
		   long *out, char *err, size_t errlen)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;
	long long x;

	*out = dflt;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		x = json_integer_value(v);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *e;

		errno = 0;
		x = strtoll(s, &e, 10);
		if (!*s || *e || errno)
			goto bad;
	} else {
		goto bad;
	}
	if (x < min || x > max)
		goto bad;
	*out = (long)x;
	return 0;
bad:
	{
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		snprintf(err, errlen, "qos %s %s: %.40s is not an integer %ld..%ld (rev=applied)",
			 path, field, s ? s : "?", min, max);
		free(s);
	}
	return -EPROTO;
}

static const char *get_str(json_t *o, const char *field)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;

	return json_is_string(v) ? json_string_value(v) : "";
}

uint32_t nv_speed_mbps(const char *s)
{
	char *e;
	double v;

	if (!s || !*s)
		return 0;
	v = strtod(s, &e);
	if (e == s || !(v > 0))         /* NaN too */
		return 0;
	if (*e == 'G' || *e == 'g')
		v *= 1000;
	else if (*e == 'T' || *e == 't')
		v *= 1000000;
	/* a speed past UINT32_MAX Mb/s (or inf) does not fit: unknown, as
	 * converting it would be undefined */
	return v + 0.5 < 4294967296.0 ? (uint32_t)(v + 0.5) : 0;
}

int nv_qos_parse(json_t *qos, json_t *ifaces, struct lp_qos *q, char *err, size_t errlen)
{
	char path[NV_PATH_LEN];
	json_t *pfc, *o;
	size_t n_ports = q->n_ports;
	const char *k;
	json_t *v;
	long x, y;
	int rc;

	snprintf(path, sizeof(path), "pfc/%s", NV_PROFILE);
	pfc = walk(qos, path);
	o = json_is_object(pfc) ? json_object_get(pfc, "switch-priority") : NULL;
	if (!json_is_object(o) || !json_object_size(o)) {
		snprintf(err, errlen, "no PFC priority in qos pfc %s (rev=applied): no lossless "
			 "configuration", NV_PROFILE);
		return -ENOENT;
	}
	/* keep the caller's port names, fill the rest */
	{
		struct lp_port_buffer *names;

		if (n_ports > LP_MAX_PORTS)
			n_ports = LP_MAX_PORTS;
		if (!(names = malloc((n_ports + 1) * sizeof(*names)))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(names, q->ports, n_ports * sizeof(names[0]));
		memset(q, 0, sizeof(*q));
		q->n_ports = n_ports;
		for (size_t i = 0; i < n_ports; i++)
			memcpy(q->ports[i].port, names[i].port, sizeof(names[i].port));
		free(names);
	}
	json_object_foreach(o, k, v) {
		char *e;
		unsigned long p = strtoul(k, &e, 10);

		if (!*e && p < LP_TCS)
			q->pfc_mask |= (uint8_t)(1u << p);
	}
	{
		/* trust: unset is l2 (with qos roce: both, pcp and dscp); only l3 and
		 * both classify IP by DSCP, else IP takes port-default-sp */
		json_t *mp, *roce = walk(qos, "roce");
		const char *trust;
		long dflt;

		snprintf(path, sizeof(path), "mapping/%s", NV_PROFILE);
		mp = walk(qos, path);
		trust = get_str(mp, "trust");
		if (!*trust)
			trust = json_is_object(roce) && strcmp(get_str(roce, "enable"), "off") ?
				"both" : "l2";
		if ((rc = get_int(mp, path, "port-default-sp", 0, 0, 7, &dflt, err, errlen)))
			return rc;
		for (unsigned d = 0; d < 64; d++) {
			snprintf(path, sizeof(path), "mapping/%s/dscp/%u", NV_PROFILE, d);
			if ((rc = get_int(walk(qos, path), path, "switch-priority", d >> 3, 0, 7, &x,
					  err, errlen)))
				return rc;
			q->dscp_to_tc[d] = (uint8_t)(strcmp(trust, "l3") && strcmp(trust, "both") ?
				dflt : x);
		}
	}
	for (unsigned t = 0; t < LP_TCS; t++) {
		json_t *cc, *es;

		snprintf(path, sizeof(path), "egress-queue-mapping/%s/switch-priority/%u",
			 NV_PROFILE, t);
		if ((rc = get_int(walk(qos, path), path, "traffic-class", t, 0, 7, &x, err, errlen)))
			return rc;
		q->tc_to_queue[t] = (uint8_t)x;
		q->tc_to_pg[t] = (q->pfc_mask >> t & 1) ? (uint8_t)t : 0;
		snprintf(path, sizeof(path), "congestion-control/%s/traffic-class/%u", NV_PROFILE, t);
		cc = walk(qos, path);
		if (!strcmp(get_str(cc, "ecn"), "enable")) {
			q->ecn[t].enabled = 1;
			if ((rc = get_int(cc, path, "min-threshold", 0, 0, UINT32_MAX, &x, err,
					  errlen)))
				return rc;
			q->ecn[t].min_bytes = (uint32_t)x;
			if ((rc = get_int(cc, path, "max-threshold", 0, 0, UINT32_MAX, &x, err,
					  errlen)))
				return rc;
			q->ecn[t].max_bytes = (uint32_t)x;
			if ((rc = get_int(cc, path, "probability", 0, 0, 100, &x, err, errlen)))
				return rc;
			q->ecn[t].mark_percent = (uint8_t)x;
		}
		snprintf(path, sizeof(path), "egress-scheduler/%s/traffic-class/%u", NV_PROFILE, t);
		es = walk(qos, path);
		if (!strcmp(get_str(es, "mode"), "strict")) {
			q->strict_mask |= (uint8_t)(1u << t);
		} else if (!strcmp(get_str(es, "mode"), "dwrr")) {
			if ((rc = get_int(es, path, "bw-percent", 0, 0, 100, &x, err, errlen)))
				return rc;
			q->ets_weight[t] = (uint8_t)x;
		}
	}
	/* a strict queue no traffic reaches is loom's "neither" (see above) */
	q->strict_mask &= used_queues(q);
	o = walk(qos, "pfc-watchdog");
	q->pfcwd.action = LP_PFCWD_DROP;
	if ((rc = get_int(o, "pfc-watchdog", "polling-interval", 100, 0, NV_POLL_MAX, &x, err,
			  errlen)) ||
	    (rc = get_int(o, "pfc-watchdog", "robustness", 3, 0, NV_ROBUST_MAX, &y, err, errlen)))
		return rc;
	q->pfcwd.detection_ms = (uint32_t)x * (uint32_t)y;  /* NVUE's defaults 100, 3 */
	q->pfcwd.restoration_ms = 0;  /* NVUE has none to set */
	snprintf(path, sizeof(path), "pfc/%s", NV_PROFILE);
	for (size_t i = 0; i < n_ports; i++) {
		struct lp_port_buffer *b = &q->ports[i];
		json_t *ifc = ifaces ? json_object_get(ifaces, b->port) : NULL;

		if (!strcmp(get_str(walk(ifc, "qos/pfc-watchdog"), "state"), "enable"))
			q->pfcwd.enabled = 1;
		b->speed_mbps = nv_speed_mbps(get_str(walk(ifc, "link"), "speed"));
		if ((rc = get_int(pfc, path, "cable-length", 0, 0, UINT32_MAX, &x, err, errlen)))
			return rc;
		b->cable_m = (uint32_t)x;
		if ((rc = get_int(pfc, path, "xoff-threshold", 0, 0, UINT32_MAX, &x, err, errlen)))
			return rc;
		b->xoff_bytes = (uint32_t)x;
		if ((rc = get_int(pfc, path, "xon-threshold", 0, 0, UINT32_MAX, &x, err, errlen)))
			return rc;
		b->xon_bytes = (uint32_t)x;
		if ((rc = get_int(pfc, path, "port-buffer", 0, 0, UINT32_MAX, &x, err, errlen)))
			return rc;
		b->size_bytes = (uint32_t)x;
	}
	if (!n_ports && json_is_object(o) && json_object_size(o))
		q->pfcwd.enabled = 1;
	return 0;
}
