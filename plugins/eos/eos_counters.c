/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos_counters.c: the counters_read op's decoding of eAPI's
 * answers (no I/O: eos.c runs the commands; the unit test and the fuzzer
 * give the results). Sources of every name: docs/eos-counters-notes.md.
 *
 *   show interfaces (json)            interfaces.<port>.interfaceCounters:
 *                                     inOctets, outOctets, totalInErrors,
 *                                     totalOutErrors, inDiscards, outDiscards
 *                                     (NAPALM's eos driver reads the same
 *                                     fields for get_interfaces_counters)
 *   show priority-flow-control counters detail (json)
 *                                     interfaces.<port>.priorities.<p>:
 *                                     rxFrames, txFrames
 *   show priority-flow-control counters watchdog (json)
 *                                     interfaces.<port>.txQueues.<q>:
 *                                     stuckCount, recoveryCount (EOS lists a
 *                                     port only once its watchdog has acted)
 *   show qos interfaces ecn counters queue (json)
 *                                     intfQueueCounters.<port>.queueCounters.<q>:
 *                                     the packets ECN-marked on tx-queue q
 * loom's names: in_octets, out_octets, in_errors, out_errors, in_discards,
 * out_discards; pfc_rx_pause, pfc_tx_pause per priority; pfcwd_storm_detected,
 * pfcwd_storm_restored, ecn_marked per queue. Not read (no JSON form of
 * them was found in any public capture): per-queue packets and drops ("show
 * interfaces counters queue" is parsed from text by the tools that read it),
 * pause durations, the watchdog's current state. Widths: 64 (EOS's counters
 * are 64-bit; for the PFC and watchdog counts nothing says: 64, so that a
 * wrap reads as a reset, never as an invented delta).
 *
 * Ports: the Ethernet interfaces of "show interfaces" (not subinterfaces,
 * "Ethernet1.100"), in natural order. The other answers may be missing
 * (the command refused on this platform: those counters are left out).
 * A port whose member has another JSON type than EOS gives it, a counter
 * that is not an integer >= 0, or a priority or queue that is not 0..7 is
 * a port_error naming the command, the port and the field; an answer whose
 * top is not what EOS gives fails the read (-EPROTO). */
#include "autoconf.h"
#include "eos.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_LEN 320
#define CMD_IFS "show interfaces"
#define CMD_PFC "show priority-flow-control counters detail"
#define CMD_WD "show priority-flow-control counters watchdog"
#define CMD_ECN "show qos interfaces ecn counters queue"

struct field_map {
	const char *field, *name;
};

static const struct field_map port_fields[] = {
	{ "inOctets", "in_octets" },
	{ "outOctets", "out_octets" },
	{ "totalInErrors", "in_errors" },
	{ "totalOutErrors", "out_errors" },
	{ "inDiscards", "in_discards" },
	{ "outDiscards", "out_discards" },
};

static const struct field_map pfc_fields[] = {
	{ "rxFrames", "pfc_rx_pause" },
	{ "txFrames", "pfc_tx_pause" },
};

static const struct field_map wd_fields[] = {
	{ "stuckCount", "pfcwd_storm_detected" },
	{ "recoveryCount", "pfcwd_storm_restored" },
};

struct eport {
	const char *name;
	struct lp_port_counters pc;
	char reason[REASON_LEN];
};

static int counter(json_t *v, const char *what, const char *field, uint64_t *out, char *reason,
		   size_t len)
{
	char *s;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(reason, len, "%s: %s %s is no counter (an integer >= 0)", what, field,
		 s ? s : "?");
	free(s);
	return -EPROTO;
}

static int index_of(const char *k)
{
	return k[0] >= '0' && k[0] <= '7' && !k[1] ? k[0] - '0' : -1;
}

/* The object at o[key] of a table every port is in: NULL if o is NULL (the
 * command was not answered); -EPROTO when the answer is not EOS's. */
static int top_object(json_t *o, const char *key, const char *cmd, json_t **out, char *err,
		      size_t errlen)
{
	json_t *v;

	*out = NULL;
	if (!o)
		return 0;
	v = json_is_object(o) ? json_object_get(o, key) : NULL;
	if (!json_is_object(v)) {
		snprintf(err, errlen, "%s: %s is %s", cmd, key,
			 v ? "not a JSON object" : "missing");
		return -EPROTO;
	}
	*out = v;
	return 0;
}

/* The counters of one port's row of a per-index table:
 * row[sub][<0..7>] = {field: n} (fields) or = n (one_name). */
static int indexed(struct eport *p, const char *cmd, json_t *row, const char *sub,
		   const struct field_map *f, size_t nf, const char *one_name,
		   enum lp_counter_scope scope)
{
	char what[160];
	json_t *t, *x;
	const char *k;
	uint64_t v;

	if (!row)
		return 0;
	snprintf(what, sizeof(what), "%s: %s", cmd, p->name);
	if (!json_is_object(row)) {
		snprintf(p->reason, sizeof(p->reason), "%s: not a JSON object", what);
		return -EPROTO;
	}
	t = json_object_get(row, sub);
	if (!t || json_is_null(t))
		return 0;
	if (!json_is_object(t)) {
		snprintf(p->reason, sizeof(p->reason), "%s: %s is not a JSON object", what, sub);
		return -EPROTO;
	}
	json_object_foreach(t, k, x) {
		int idx = index_of(k);

		snprintf(what, sizeof(what), "%s: %s %s %.8s", cmd, p->name, sub, k);
		if (idx < 0) {
			snprintf(p->reason, sizeof(p->reason), "%s: %s: %s key \"%.16s\" is not "
				 "0..7", cmd, p->name, sub, k);
			return -EPROTO;
		}
		if (one_name) {
			if (counter(x, what, "marked packets", &v, p->reason, sizeof(p->reason)))
				return -EPROTO;
			lp_counter_put(&p->pc, p->name, one_name, scope, (unsigned)idx, 64, 0, v);
			continue;
		}
		if (!json_is_object(x)) {
			snprintf(p->reason, sizeof(p->reason), "%s: not a JSON object", what);
			return -EPROTO;
		}
		for (size_t i = 0; i < nf; i++) {
			json_t *y = json_object_get(x, f[i].field);

			if (!y)
				continue;
			if (counter(y, what, f[i].field, &v, p->reason, sizeof(p->reason)))
				return -EPROTO;
			lp_counter_put(&p->pc, p->name, f[i].name, scope, (unsigned)idx, 64, 0, v);
		}
	}
	return 0;
}

static int port_counters(struct eport *p, json_t *x)
{
	char what[96];
	json_t *c;
	uint64_t v;

	snprintf(what, sizeof(what), CMD_IFS ": %s", p->name);
	if (!json_is_object(x)) {
		snprintf(p->reason, sizeof(p->reason), "%s: not a JSON object", what);
		return -EPROTO;
	}
	c = json_object_get(x, "interfaceCounters");
	if (!c || json_is_null(c))
		return 0;             /* no counters on this interface */
	if (!json_is_object(c)) {
		snprintf(p->reason, sizeof(p->reason), "%s: interfaceCounters is not a JSON "
			 "object", what);
		return -EPROTO;
	}
	snprintf(what, sizeof(what), CMD_IFS ": %s interfaceCounters", p->name);
	for (size_t i = 0; i < sizeof(port_fields) / sizeof(port_fields[0]); i++) {
		json_t *y = json_object_get(c, port_fields[i].field);

		if (!y)
			continue;
		if (counter(y, what, port_fields[i].field, &v, p->reason, sizeof(p->reason)))
			return -EPROTO;
		lp_counter_put(&p->pc, p->name, port_fields[i].name, LP_COUNTER_PORT, 0, 64, 0, v);
	}
	return 0;
}

static int eport_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct eport *)a)->name, ((const struct eport *)b)->name);
}

int eos_counters_decode(json_t *ifs, json_t *pfc, json_t *wd, json_t *ecn,
			const struct lp_counter_sink *out, char *err, size_t errlen)
{
	json_t *ti, *tp, *tw, *te, *x;
	struct eport *ports = NULL;
	size_t n = 0, cap = 0;
	const char *name;
	int rc;

	if (!ifs) {
		snprintf(err, errlen, CMD_IFS ": no answer");
		return -EPROTO;
	}
	if ((rc = top_object(ifs, "interfaces", CMD_IFS, &ti, err, errlen)) ||
	    (rc = top_object(pfc, "interfaces", CMD_PFC, &tp, err, errlen)) ||
	    (rc = top_object(wd, "interfaces", CMD_WD, &tw, err, errlen)) ||
	    (rc = top_object(ecn, "intfQueueCounters", CMD_ECN, &te, err, errlen)))
		return rc;
	json_object_foreach(ti, name, x) {
		if (strncmp(name, "Ethernet", 8) || strchr(name, '.') ||
		    strlen(name) >= LP_NAME_LEN)
			continue;
		if (lp_grow(&ports, &cap, n, sizeof(*ports), 16)) {
			snprintf(err, errlen, "out of memory");
			free(ports);
			return -ENOMEM;
		}
		ports[n].name = name;
		ports[n].pc.n = 0;
		ports[n].reason[0] = '\0';
		n++;
	}
	if (n)
		qsort(ports, n, sizeof(*ports), eport_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		struct eport *p = &ports[i];

		if (!port_counters(p, json_object_get(ti, p->name)) &&
		    !indexed(p, CMD_PFC, json_object_get(tp, p->name), "priorities", pfc_fields,
			     2, NULL, LP_COUNTER_PRIORITY) &&
		    !indexed(p, CMD_WD, json_object_get(tw, p->name), "txQueues", wd_fields, 2,
			     NULL, LP_COUNTER_QUEUE))
			indexed(p, CMD_ECN, json_object_get(te, p->name), "queueCounters", NULL, 0,
				"ecn_marked", LP_COUNTER_QUEUE);
		if ((rc = lp_counters_report(&p->pc, p->name, p->reason, out)))
			snprintf(err, errlen, "the caller stopped the counters read (%d)", rc);
	}
	free(ports);
	return rc;
}
