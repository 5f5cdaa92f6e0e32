/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_counters.c: the counters_read op's decoding of
 * COUNTERS_DB (no I/O: the hashes come through a struct sn_source, from the
 * switch's Redis in sn_counters_read or from a fuzz input). Every name
 * below was checked against sonic-swss and sonic-utilities:
 * docs/sonic-counters-notes.md.
 *
 * COUNTERS_DB (database 2, separator ':') as orchagent's flex counters
 * leave it:
 *   COUNTERS_PORT_NAME_MAP   port name -> "oid:0x..." of the port
 *   COUNTERS_QUEUE_NAME_MAP  "Ethernet0:3" -> "oid:0x..." of the queue
 *   COUNTERS_QUEUE_TYPE_MAP  queue oid -> SAI_QUEUE_TYPE_UNICAST, ..._MULTICAST, ...
 *   COUNTERS:<oid>           the SAI stats of that object, decimal strings
 * The queues read are the unicast ones (type SAI_QUEUE_TYPE_UNICAST or
 * SAI_QUEUE_TYPE_ALL) numbered 0..7 in the name map: the queues PFC,
 * ECN and the watchdog act on; multicast queues are left out.
 *
 * Nothing is made up: a map that is missing fails the read (-ENOENT,
 * naming it); a port whose own hash is missing, or whose queue has no
 * type, or any mapped field that is not a decimal number, makes that port
 * a port_error naming the key and field, with none of its counters; a
 * field the switch does not have (a counter group not polled) is simply
 * not reported. */
#include "sonic.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAP_PORTS "COUNTERS_PORT_NAME_MAP"
#define MAP_QUEUES "COUNTERS_QUEUE_NAME_MAP"
#define MAP_TYPES "COUNTERS_QUEUE_TYPE_MAP"
#define OID_LEN 64
#define PORT_MAX_COUNTERS 160

struct cport {
	char name[LP_NAME_LEN];
	char oid[OID_LEN];
	char reason[320];          /* "" or why the port cannot be read */
	size_t hash;               /* its hash among the keys asked */
};

struct cqueue {
	size_t port;               /* index in the ports */
	unsigned index;            /* 0..7 */
	size_t hash;
	char oid[OID_LEN];
};

struct cread {
	struct cport *port;
	size_t n_port, cap_port;
	struct cqueue *queue;
	size_t n_queue, cap_queue;
	char (*key)[SN_KEY_LEN];
	size_t n_key;
};

static const struct {
	const char *field, *name;
} port_fields[] = {
	{ "SAI_PORT_STAT_IF_IN_OCTETS", "in_octets" },
	{ "SAI_PORT_STAT_IF_OUT_OCTETS", "out_octets" },
	{ "SAI_PORT_STAT_IF_IN_ERRORS", "in_errors" },
	{ "SAI_PORT_STAT_IF_OUT_ERRORS", "out_errors" },
	{ "SAI_PORT_STAT_IF_IN_DISCARDS", "in_discards" },
	{ "SAI_PORT_STAT_IF_OUT_DISCARDS", "out_discards" },
};

/* SAI_PORT_STAT_PFC_<p><suffix> */
static const struct {
	const char *suffix, *name;
} prio_fields[] = {
	{ "_RX_PKTS", "pfc_rx_pause" },
	{ "_TX_PKTS", "pfc_tx_pause" },
	{ "_RX_PAUSE_DURATION_US", "pfc_rx_pause_duration_us" },
};

static const struct {
	const char *field, *name;
} queue_fields[] = {
	{ "SAI_QUEUE_STAT_PACKETS", "queue_packets" },
	{ "SAI_QUEUE_STAT_DROPPED_PACKETS", "queue_drops" },
	{ "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "ecn_marked" },
	{ "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "pfcwd_storm_detected" },
	{ "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", "pfcwd_storm_restored" },
};

int sn_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* "oid:0x" and 1..16 hex digits, as sai_serialize_object_id writes them. */
static int oid_ok(const char *s)
{
	size_t n;

	if (strncmp(s, "oid:0x", 6))
		return 0;
	n = strspn(s + 6, "0123456789abcdefABCDEF");
	return n >= 1 && n <= 16 && !s[6 + n];
}

static int port_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct cport *)a)->name, ((const struct cport *)b)->name);
}

static long find_port(const struct cread *r, const char *name, size_t len)
{
	for (size_t i = 0; i < r->n_port; i++)
		if (strlen(r->port[i].name) == len && !memcmp(r->port[i].name, name, len))
			return (long)i;
	return -1;
}

static int add_key(struct cread *r, size_t *cap, const char *oid, size_t *at)
{
	if (lp_grow(&r->key, cap, r->n_key, sizeof(*r->key), 64))
		return -ENOMEM;
	snprintf(r->key[r->n_key], SN_KEY_LEN, "COUNTERS:%s", oid);
	*at = r->n_key++;
	return 0;
}

/* The ports of the port map, sorted; their queues from the queue maps;
 * the hashes to ask for. */
static int plan_read(struct cread *r, const redisReply *ports, const redisReply *queues,
		     const redisReply *types, char *err, size_t errlen)
{
	size_t cap_key = 0;

	for (size_t i = 0; i + 1 < ports->elements; i += 2) {
		const char *name = ports->element[i]->str, *oid = ports->element[i + 1]->str;
		struct cport *p;

		if (strlen(name) == 0 || strlen(name) >= LP_NAME_LEN)
			continue;       /* not a name loom can carry */
		if (lp_grow(&r->port, &r->cap_port, r->n_port, sizeof(*r->port), 64))
			goto oom;
		p = &r->port[r->n_port++];
		memset(p, 0, sizeof(*p));
		memcpy(p->name, name, strlen(name) + 1);
		if (!oid_ok(oid))
			snprintf(p->reason, sizeof(p->reason), "%s field %s: \"%.64s\" is no SAI "
				 "object id", MAP_PORTS, name, oid);
		else
			memcpy(p->oid, oid, strlen(oid) + 1);
	}
	qsort(r->port, r->n_port, sizeof(*r->port), port_cmp);
	for (size_t i = 1; i < r->n_port; i++)
		if (!strcmp(r->port[i].name, r->port[i - 1].name)) {
			snprintf(err, errlen, "%s names %s twice", MAP_PORTS, r->port[i].name);
			return -EPROTO;
		}
	for (size_t i = 0; i < r->n_port; i++)
		if (!r->port[i].reason[0] && add_key(r, &cap_key, r->port[i].oid, &r->port[i].hash))
			goto oom;

	for (size_t i = 0; i + 1 < queues->elements; i += 2) {
		const char *name = queues->element[i]->str, *oid = queues->element[i + 1]->str;
		const char *colon = strrchr(name, ':'), *type;
		struct cport *p;
		struct cqueue *q;
		uint64_t idx;
		long pi;

		if (!colon || (pi = find_port(r, name, (size_t)(colon - name))) < 0)
			continue;       /* a queue of no port read (the CPU's) */
		p = &r->port[pi];
		if (sn_parse_u64(colon + 1, &idx) || idx > 7)
			continue;       /* 8 and up: multicast queues on most ASICs */
		if (p->reason[0])
			continue;
		if (!oid_ok(oid)) {
			snprintf(p->reason, sizeof(p->reason), "%s field %s: \"%.64s\" is no SAI "
				 "object id", MAP_QUEUES, name, oid);
			continue;
		}
		if (!(type = sn_hget(types, oid))) {
			snprintf(p->reason, sizeof(p->reason), "%s has no field %s (queue %s)",
				 MAP_TYPES, oid, name);
			continue;
		}
		if (strcmp(type, "SAI_QUEUE_TYPE_UNICAST") && strcmp(type, "SAI_QUEUE_TYPE_ALL"))
			continue;
		if (lp_grow(&r->queue, &r->cap_queue, r->n_queue, sizeof(*r->queue), 64))
			goto oom;
		q = &r->queue[r->n_queue++];
		q->port = (size_t)pi;
		q->index = (unsigned)idx;
		memcpy(q->oid, oid, strlen(oid) + 1);
		if (add_key(r, &cap_key, oid, &q->hash))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

struct port_counters {
	struct lp_counter c[PORT_MAX_COUNTERS];
	size_t n;
};

static void put_counter(struct port_counters *pc, const struct cport *p, const char *name,
			enum lp_counter_scope scope, unsigned index, uint64_t v, int gauge)
{
	struct lp_counter *c;

	for (size_t i = 0; i < pc->n; i++)
		if (pc->c[i].name == name && pc->c[i].scope == scope && pc->c[i].index == index)
			return;         /* a hash gives a field once; a queue twice: first kept */
	if (pc->n == PORT_MAX_COUNTERS)
		return;
	c = &pc->c[pc->n++];
	c->port = p->name;
	c->name = name;
	c->scope = scope;
	c->index = (uint8_t)index;
	c->bits = gauge ? 1 : 64;
	c->gauge = (uint8_t)gauge;
	c->value = v;
}

static int number(const char *key, const char *field, const char *s, uint64_t *v,
		  char *reason, size_t len)
{
	if (sn_parse_u64(s, v) == 0)
		return 0;
	snprintf(reason, len, "%s field %s: \"%.40s\" is no number", key, field, s);
	return -EPROTO;
}

/* A port's own hash into pc; -EPROTO with reason. */
static int port_hash(const struct cport *p, const char *key, const redisReply *h,
		     struct port_counters *pc, char *reason, size_t len)
{
	static const char pfc[] = "SAI_PORT_STAT_PFC_";

	if (!h || h->elements == 0) {
		snprintf(reason, len, "%s (%s in %s) does not exist", key, p->name, MAP_PORTS);
		return -ENOENT;
	}
	for (size_t i = 0; i + 1 < h->elements; i += 2) {
		const char *f = h->element[i]->str, *s = h->element[i + 1]->str;
		uint64_t v;

		for (size_t k = 0; k < sizeof(port_fields) / sizeof(port_fields[0]); k++)
			if (!strcmp(f, port_fields[k].field)) {
				if (number(key, f, s, &v, reason, len))
					return -EPROTO;
				put_counter(pc, p, port_fields[k].name, LP_COUNTER_PORT, 0, v, 0);
			}
		if (strncmp(f, pfc, sizeof(pfc) - 1) || f[sizeof(pfc) - 1] < '0' ||
		    f[sizeof(pfc) - 1] > '7')
			continue;
		for (size_t k = 0; k < sizeof(prio_fields) / sizeof(prio_fields[0]); k++)
			if (!strcmp(f + sizeof(pfc), prio_fields[k].suffix)) {
				if (number(key, f, s, &v, reason, len))
					return -EPROTO;
				put_counter(pc, p, prio_fields[k].name, LP_COUNTER_PRIORITY,
					    (unsigned)(f[sizeof(pfc) - 1] - '0'), v, 0);
			}
	}
	return 0;
}

static int queue_hash(const struct cport *p, const struct cqueue *q, const char *key,
		      const redisReply *h, struct port_counters *pc, char *reason, size_t len)
{
	if (!h || h->elements == 0) {
		snprintf(reason, len, "%s (queue %s:%u in %s) does not exist", key, p->name,
			 q->index, MAP_QUEUES);
		return -ENOENT;
	}
	for (size_t i = 0; i + 1 < h->elements; i += 2) {
		const char *f = h->element[i]->str, *s = h->element[i + 1]->str;
		uint64_t v;

		for (size_t k = 0; k < sizeof(queue_fields) / sizeof(queue_fields[0]); k++)
			if (!strcmp(f, queue_fields[k].field)) {
				if (number(key, f, s, &v, reason, len))
					return -EPROTO;
				put_counter(pc, p, queue_fields[k].name, LP_COUNTER_QUEUE, q->index, v, 0);
			}
		if (!strcmp(f, "PFC_WD_STATUS")) {
			/* pfcactionhandler.cpp: "operational" or "stormed" */
			if (strcmp(s, "operational") && strcmp(s, "stormed")) {
				snprintf(reason, len, "%s field PFC_WD_STATUS: \"%.40s\" is neither "
					 "operational nor stormed", key, s);
				return -EPROTO;
			}
			put_counter(pc, p, "pfcwd_stormed", LP_COUNTER_QUEUE, q->index,
				    !strcmp(s, "stormed"), 1);
		}
	}
	return 0;
}

static int report(const struct cread *r, redisReply **h, const struct lp_counter_sink *out)
{
	struct port_counters *pc = malloc(sizeof(*pc));
	char reason[320];
	int rc = 0;

	if (!pc)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_port && !rc; i++) {
		const struct cport *p = &r->port[i];
		int bad = 0;

		pc->n = 0;
		snprintf(reason, sizeof(reason), "%s", p->reason);
		if (reason[0])
			bad = 1;
		else
			bad = port_hash(p, r->key[p->hash], h[p->hash], pc, reason,
					sizeof(reason)) != 0;
		for (size_t k = 0; k < r->n_queue && !bad; k++)
			if (r->queue[k].port == i)
				bad = queue_hash(p, &r->queue[k], r->key[r->queue[k].hash],
						 h[r->queue[k].hash], pc, reason,
						 sizeof(reason)) != 0;
		if (bad) {
			if (out->port_error)
				rc = out->port_error(out->ctx, p->name, reason);
			continue;
		}
		for (size_t k = 0; k < pc->n && !rc; k++)
			rc = out->counter(out->ctx, &pc->c[k]);
	}
	free(pc);
	return rc;
}

static const char *const map_hint[3] = {
	"orchagent has made no port counters (counterpoll port enable)",
	"orchagent has made no queue counters (counterpoll queue enable)",
	"orchagent has made no queue counters (counterpoll queue enable)",
};

int sn_counters_decode(const struct sn_source *src, const struct lp_counter_sink *out,
		       char *err, size_t errlen)
{
	static const char maps[3][SN_KEY_LEN] = { MAP_PORTS, MAP_QUEUES, MAP_TYPES };
	redisReply *m[3] = { NULL, NULL, NULL }, **h = NULL;
	struct cread r;
	int rc;

	memset(&r, 0, sizeof(r));
	if ((rc = src->hgetall(src->ctx, maps[0], SN_KEY_LEN, 3, m, err, errlen)))
		goto out;       /* the maps it gave before failing are freed there */
	for (int i = 0; i < 3; i++)
		if (m[i]->elements == 0) {
			snprintf(err, errlen, "COUNTERS_DB (db %d) has no %s: %s", SN_COUNTERS_DB,
				 maps[i], map_hint[i]);
			rc = -ENOENT;
			goto out;
		}
	if ((rc = plan_read(&r, m[0], m[1], m[2], err, errlen)))
		goto out;
	if (!(h = calloc(r.n_key + 1, sizeof(*h)))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (r.n_key && (rc = src->hgetall(src->ctx, (const char *)r.key, SN_KEY_LEN, r.n_key, h,
					  err, errlen)))
		goto out;
	if ((rc = report(&r, h, out)) == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc)
		snprintf(err, errlen, "the caller stopped the counters read (%d)", rc);
out:
	if (h)
		sn_replies_clear(h, r.n_key);
	free(h);
	sn_replies_clear(m, 3);
	free(r.port);
	free(r.queue);
	free(r.key);
	return rc;
}

static int conn_hgetall(void *ctx, const char *keys, size_t stride, size_t n, redisReply **out,
			char *err, size_t errlen)
{
	return sn_hgetall(ctx, NULL, 0, keys, stride, n, out, err, errlen);
}

int sn_counters_read(struct sn_conn *c, const struct lp_counter_sink *out, char *err,
		     size_t errlen)
{
	const struct sn_source src = { conn_hgetall, c };
	int rc;

	if ((rc = sn_select(c, SN_COUNTERS_DB, err, errlen)))
		return rc;
	return sn_counters_decode(&src, out, err, errlen);
}
