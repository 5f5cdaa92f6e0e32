/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue_counters.c: the counters_read op of the nvue plugin,
 * decoded from NVUE's operational tree (no I/O: the GETs go through a
 * struct nv_source, nv_request in nvue.c, a table in the unit test and
 * the fuzzer). Sources of every name: docs/nvue-counters-notes.md.
 *
 * What is read, per front-panel port (nv_is_port of GET interface):
 *   GET interface                      <port>.link.stats: in-bytes, out-bytes,
 *                                      in-errors, out-errors, in-drops,
 *                                      out-drops (the Linux netdev's 64-bit
 *                                      counters, as the NVUE API guide shows
 *                                      the tree)
 *   GET interface/<port>/counters/qos  ("nv show interface <port> counters
 *                                      qos", Cumulus Linux 5.5 and later; on
 *                                      404 interface/<port>/qos/counters, its
 *                                      name up to 5.4):
 *       pfc-stats.<switch-priority>    rx-pause-frames, tx-pause-frames
 *       egress-queue-stats.<tc>        tx-frames, tx-uc-buffer-discards,
 *                                      ecn-marked-frames (where the release
 *                                      has it)
 *   GET interface/<port>/qos/pfc-watchdog (5.6 and later: "nv show interface
 *                                      <port> qos pfc-watchdog"):
 *       status.<tc>                    deadlock-count, status OK | DEADLOCK
 * loom's names: in_octets, out_octets, in_errors, out_errors, in_discards,
 * out_discards; pfc_rx_pause, pfc_tx_pause per priority (NVUE's switch
 * priority is loom's priority: nvue_qos.c); queue_packets, queue_drops, ecn_marked,
 * pfcwd_storm_detected and the gauge pfcwd_stormed per queue (NVUE's
 * traffic class is loom's queue). NVUE has no count of the watchdog's
 * restorations: pfcwd_storm_restored is never reported. rx-pause-duration
 * and tx-pause-duration are left out: NVUE states no unit for them (the
 * sonic plugin leaves out the durations whose unit SAI does not state, for
 * the same reason). wred-discards
 * (WRED drops of non-ECT packets) has no loom name and is left out, as are
 * tx-bytes and the port-stats. Widths: 64 (netdev stats64, the ASIC's
 * 64-bit PPCNT counters; deadlock-count's width is not documented: 64, so
 * that a wrap would read as a reset, never as an invented delta).
 *
 * Where GET interface already holds a port's QoS counters (its member
 * counters.qos, or qos.counters) or its watchdog's status (qos.pfc-watchdog
 * with a status), they are taken from there and that GET is not made:
 * whether NVUE's collection GET gives them is not documented; when it does,
 * a read is one request instead of 1 + 2 per port.
 *
 * Faults, never a wrong number: a counter that is not a JSON integer >= 0,
 * a member of another type than NVUE gives it, a priority or class key that
 * is not 0..7, a watchdog status other than OK/DEADLOCK, a QoS GET that
 * fails with an HTTP error make that port a port_error naming the GET and
 * the member; a 404 (the release or the port has no such object) leaves
 * those counters out. GET interface failing, or the switch stopping to
 * answer (connection refused, timeout, credentials refused) fails the
 * whole read. */
#include "autoconf.h"
#include "nvue.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_LEN 320

static const char *const qos_paths[2] = { "counters/qos", "qos/counters" };

struct field_map {
	const char *field, *name;
};

static const struct field_map link_fields[] = {
	{ "in-bytes", "in_octets" },
	{ "out-bytes", "out_octets" },
	{ "in-errors", "in_errors" },
	{ "out-errors", "out_errors" },
	{ "in-drops", "in_discards" },
	{ "out-drops", "out_discards" },
};

static const struct field_map pfc_fields[] = {
	{ "rx-pause-frames", "pfc_rx_pause" },
	{ "tx-pause-frames", "pfc_tx_pause" },
};

static const struct field_map queue_fields[] = {
	{ "tx-frames", "queue_packets" },
	{ "tx-uc-buffer-discards", "queue_drops" },
	{ "ecn-marked-frames", "ecn_marked" },
};

/* One port's counters and what was wrong with them. */
struct nport {
	const char *name;
	struct lp_port_counters pc;
	char reason[REASON_LEN];
};

/* v as a counter: 0, or -EPROTO with the reason naming what and field. */
static int counter(json_t *v, const char *what, const char *field, uint64_t *out, char *reason,
		   size_t len)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	{
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		snprintf(reason, len, "%s %s: %.40s is no counter (an integer >= 0)", what, field,
			 s ? s : "?");
		free(s);
	}
	return -EPROTO;
}

/* "0".."7" -> 0..7, else -1. */
static int index_of(const char *k)
{
	return k[0] >= '0' && k[0] <= '7' && !k[1] ? k[0] - '0' : -1;
}

/* o[field]: NULL when absent or null; -EPROTO (reason) when present and no
 * object. */
static int member_obj(json_t *o, const char *field, json_t **out, const char *what, char *reason,
		      size_t len)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v)) {
		snprintf(reason, len, "%s: %s is not a JSON object", what, field);
		return -EPROTO;
	}
	*out = v;
	return 0;
}

int nv_link_counters_parse(const char *port, json_t *ifc, struct lp_port_counters *pc,
			   char *reason, size_t len)
{
	char what[LP_NAME_LEN + 48];
	json_t *link, *stats;
	uint64_t v;

	snprintf(what, sizeof(what), "GET interface: %s", port);
	if (!json_is_object(ifc)) {
		snprintf(reason, len, "%s: not a JSON object", what);
		return -EPROTO;
	}
	if (member_obj(ifc, "link", &link, what, reason, len))
		return -EPROTO;
	snprintf(what, sizeof(what), "GET interface: %s link", port);
	if (member_obj(link, "stats", &stats, what, reason, len))
		return -EPROTO;
	snprintf(what, sizeof(what), "GET interface: %s link stats", port);
	for (size_t i = 0; stats && i < sizeof(link_fields) / sizeof(link_fields[0]); i++) {
		json_t *x = json_object_get(stats, link_fields[i].field);

		if (!x)
			continue;     /* not on this release: left out */
		if (counter(x, what, link_fields[i].field, &v, reason, len))
			return -EPROTO;
		lp_counter_put(pc, port, link_fields[i].name, LP_COUNTER_PORT, 0, 64, 0, v);
	}
	return 0;
}

/* An object keyed "0".."7" whose members are objects of counters. */
static int per_index(const char *port, const char *get, json_t *table, const char *tname,
		     const struct field_map *f, size_t nfields, enum lp_counter_scope scope,
		     struct lp_port_counters *pc, char *reason, size_t len)
{
	char what[NV_PATH_LEN + 64];
	const char *k;
	json_t *row;
	uint64_t v;

	json_object_foreach(table, k, row) {
		int idx = index_of(k);

		snprintf(what, sizeof(what), "GET %s: %s %.8s", get, tname, k);
		if (idx < 0) {
			snprintf(reason, len, "GET %s: %s key \"%.16s\" is not 0..7", get, tname, k);
			return -EPROTO;
		}
		if (!json_is_object(row)) {
			snprintf(reason, len, "%s: not a JSON object", what);
			return -EPROTO;
		}
		for (size_t i = 0; i < nfields; i++) {
			json_t *x = json_object_get(row, f[i].field);

			if (!x)
				continue;
			if (counter(x, what, f[i].field, &v, reason, len))
				return -EPROTO;
			lp_counter_put(pc, port, f[i].name, scope, (unsigned)idx, 64, 0, v);
		}
	}
	return 0;
}

int nv_qos_counters_parse(const char *port, const char *get, json_t *qc,
			  struct lp_port_counters *pc, char *reason, size_t len)
{
	char what[NV_PATH_LEN + 16];
	json_t *pfc, *eq;

	snprintf(what, sizeof(what), "GET %s", get);
	if (!json_is_object(qc)) {
		snprintf(reason, len, "%s: the answer is no JSON object", what);
		return -EPROTO;
	}
	if (member_obj(qc, "pfc-stats", &pfc, what, reason, len) ||
	    member_obj(qc, "egress-queue-stats", &eq, what, reason, len))
		return -EPROTO;
	if (pfc && per_index(port, get, pfc, "pfc-stats", pfc_fields,
			     sizeof(pfc_fields) / sizeof(pfc_fields[0]), LP_COUNTER_PRIORITY, pc,
			     reason, len))
		return -EPROTO;
	if (eq && per_index(port, get, eq, "egress-queue-stats", queue_fields,
			    sizeof(queue_fields) / sizeof(queue_fields[0]), LP_COUNTER_QUEUE, pc,
			    reason, len))
		return -EPROTO;
	return 0;
}

int nv_pfcwd_counters_parse(const char *port, const char *get, json_t *wd,
			    struct lp_port_counters *pc, char *reason, size_t len)
{
	char what[NV_PATH_LEN + 32];
	json_t *status, *row;
	const char *k;
	uint64_t v;

	snprintf(what, sizeof(what), "GET %s", get);
	if (!json_is_object(wd)) {
		snprintf(reason, len, "%s: the answer is no JSON object", what);
		return -EPROTO;
	}
	if (member_obj(wd, "status", &status, what, reason, len))
		return -EPROTO;
	json_object_foreach(status, k, row) {
		int idx = index_of(k);
		json_t *x;

		snprintf(what, sizeof(what), "GET %s: status %.8s", get, k);
		if (idx < 0) {
			snprintf(reason, len, "GET %s: status key \"%.16s\" is not 0..7", get, k);
			return -EPROTO;
		}
		if (!json_is_object(row)) {
			snprintf(reason, len, "%s: not a JSON object", what);
			return -EPROTO;
		}
		if ((x = json_object_get(row, "deadlock-count"))) {
			if (counter(x, what, "deadlock-count", &v, reason, len))
				return -EPROTO;
			lp_counter_put(pc, port, "pfcwd_storm_detected", LP_COUNTER_QUEUE,
				       (unsigned)idx, 64, 0, v);
		}
		if ((x = json_object_get(row, "status"))) {
			const char *s = json_is_string(x) ? json_string_value(x) : NULL;

			if (!s || (strcmp(s, "OK") && strcmp(s, "DEADLOCK"))) {
				char *d = json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT);

				snprintf(reason, len, "%s status: %.40s is neither OK nor DEADLOCK",
					 what, d ? d : "?");
				free(d);
				return -EPROTO;
			}
			lp_counter_put(pc, port, "pfcwd_stormed", LP_COUNTER_QUEUE, (unsigned)idx,
				       1, 1, !strcmp(s, "DEADLOCK"));
		}
	}
	return 0;
}

static int port_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct nport *)a)->name, ((const struct nport *)b)->name);
}

/* The switch stopped answering (not one port's fault). */
static int transport_error(int rc)
{
	return rc == -ECONNREFUSED || rc == -ETIMEDOUT || rc == -EHOSTUNREACH || rc == -EACCES ||
	       rc == -ENOMEM;
}

/* ifc[a][b] when it is an object, else NULL. */
static json_t *embedded(json_t *ifc, const char *a, const char *b)
{
	json_t *x = json_object_get(json_object_get(ifc, a), b);

	return json_is_object(x) ? x : NULL;
}

/* One port's QoS counters and watchdog: from GET interface's member ifc
 * when the switch put them there, else by their own GETs. *qos_at: which
 * qos path this switch answered (0 or 1), tried first. 0, a transport
 * error (err), or 0 with p->reason set. */
static int read_port(struct nv_source *src, struct nport *p, json_t *ifc, int *qos_at,
		     char *err, size_t errlen)
{
	char path[NV_PATH_LEN], e[256];
	const char *where = "counters qos";
	json_t *x = NULL, *emb;
	int rc = -ENOENT;

	if (!(emb = embedded(ifc, "counters", "qos")) && (emb = embedded(ifc, "qos", "counters")))
		where = "qos counters";
	if (emb) {
		snprintf(path, sizeof(path), "interface: %s %s", p->name, where);
		if (nv_qos_counters_parse(p->name, path, emb, &p->pc, p->reason,
					  sizeof(p->reason)))
			return 0;
		rc = 1;               /* read: no GET */
	}
	for (int t = 0; t < 2 && rc == -ENOENT; t++) {
		int at = t ? !*qos_at : *qos_at;

		snprintf(path, sizeof(path), "interface/%s/%s", p->name, qos_paths[at]);
		e[0] = '\0';
		rc = src->get(src->ctx, path, &x, e, sizeof(e));
		if (!rc)
			*qos_at = at;
	}
	if (rc < 0 && transport_error(rc)) {
		snprintf(err, errlen, "%s", e);
		return rc;
	}
	if (rc < 0 && rc != -ENOENT) {
		snprintf(p->reason, sizeof(p->reason), "GET %s: %s", path, e);
		return 0;
	}
	if (!rc) {
		nv_qos_counters_parse(p->name, path, x, &p->pc, p->reason, sizeof(p->reason));
		json_decref(x);
		x = NULL;
		if (p->reason[0])
			return 0;
	}
	/* the watchdog's status, when GET interface gave it */
	if ((emb = embedded(ifc, "qos", "pfc-watchdog")) && json_object_get(emb, "status")) {
		snprintf(path, sizeof(path), "interface: %s qos pfc-watchdog", p->name);
		nv_pfcwd_counters_parse(p->name, path, emb, &p->pc, p->reason, sizeof(p->reason));
		return 0;
	}
	snprintf(path, sizeof(path), "interface/%s/qos/pfc-watchdog", p->name);
	e[0] = '\0';
	rc = src->get(src->ctx, path, &x, e, sizeof(e));
	if (rc == -ENOENT)
		return 0;             /* no watchdog on this port or release */
	if (rc && transport_error(rc)) {
		snprintf(err, errlen, "%s", e);
		return rc;
	}
	if (rc)
		snprintf(p->reason, sizeof(p->reason), "GET %s: %s", path, e);
	else
		nv_pfcwd_counters_parse(p->name, path, x, &p->pc, p->reason, sizeof(p->reason));
	json_decref(x);
	return 0;
}

int nv_counters_read(struct nv_source *src, const struct lp_counter_sink *out, char *err,
		     size_t errlen)
{
	struct nport *ports = NULL;
	size_t n = 0, cap = 0;
	json_t *ifs = NULL, *ifc;
	const char *name;
	int qos_at = src->qos_at != 0, rc;

	if ((rc = src->get(src->ctx, "interface", &ifs, err, errlen)))
		return rc;
	if (!json_is_object(ifs)) {
		snprintf(err, errlen, "GET interface: the answer is no JSON object");
		json_decref(ifs);
		return -EPROTO;
	}
	json_object_foreach(ifs, name, ifc) {
		if (!nv_is_port(name, ifc) || strchr(name, '/') || strchr(name, '?'))
			continue;
		if (lp_grow(&ports, &cap, n, sizeof(*ports), 16)) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		ports[n].name = name;
		ports[n].pc.n = 0;
		ports[n].reason[0] = '\0';
		n++;
	}
	if (n)
		qsort(ports, n, sizeof(*ports), port_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		struct nport *p = &ports[i];

		nv_link_counters_parse(p->name, json_object_get(ifs, p->name), &p->pc, p->reason,
				       sizeof(p->reason));
		if (!p->reason[0] &&
		    (rc = read_port(src, p, json_object_get(ifs, p->name), &qos_at, err, errlen)))
			break;
		if ((rc = lp_counters_report(&p->pc, p->name, p->reason, out)))
			snprintf(err, errlen, "the caller stopped the counters read (%d)", rc);
	}
out:
	src->qos_at = qos_at;
	free(ports);
	json_decref(ifs);
	return rc;
}
