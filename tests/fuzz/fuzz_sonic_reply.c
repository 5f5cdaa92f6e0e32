/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_sonic_reply.c: arbitrary bytes as what SONiC's Redis
 * answers the sonic plugin (plugins/sonic/). The first byte picks the op
 * (its value mod 5); the rest is a stream of RESP replies, cut into
 * redisReply trees by hiredis's own reader (redisReaderFeed /
 * redisReaderGetReply, as the plugin's connection does) and handed to the
 * plugin's decoders in the order its reads take them; each HGETALL reply
 * first goes through sn_hash_reply, as sn_hgetall checks it:
 *   0 inventory: DEVICE_METADATA|localhost (sn_inventory_parse), HGET
 *     lldp_loc_sys_desc and HGET sonic_version (sn_os_version_parse), then
 *     pairs PORT|Ethernet0, PORT_TABLE:Ethernet0 (sn_port_parse)
 *   1 lldp: each reply an LLDP_ENTRY_TABLE:Ethernet0 (sn_neighbor_parse)
 *   2 the CONFIG_DB schema: VERSIONS|DATABASE (sn_refs_parse)
 *   3 qos_read for Ethernet0 and Ethernet4: sn_qos_decode takes the
 *     replies as the hashes it asks for, in its order (sonic.h); the
 *     stream running out is a lost connection
 *   4 counters_read: sn_counters_decode takes the replies as the three
 *     COUNTERS_DB maps, then the COUNTERS:oid hashes it asks for
 *     (sonic.h); what it reports is checked as fuzz_counters.h checks
 *     every counters decoder (loom's names and scopes, widths, no counter
 *     twice, no port both reported and in error), every port error naming
 *     a COUNTERS key or map
 * What qos_apply does with a read-back is checked too: sn_plan_qos of it
 * (when it is a policy loom would write), in both reference forms, served
 * as CONFIG_DB (each key's planned fields, formatted as RESP and read back
 * by hiredis) to sn_qos_decode again, gives the same policy: apply, then
 * read back, is what was applied.
 * sonic_reply.c, sonic_qos.c, sonic_counters.c and what they call (sonic_redis.c,
 * sonic_apply.c, sonic_buffers.c, lp_util.c) are compiled in; nothing
 * connects anywhere.
 *
 * hiredis 0.14's reader allocates an array's pointers as soon as it reads
 * its count: "*4294967295\r\n" makes it ask for 32 GiB (a Redis server
 * never answers so; a compromised one could). Not loom's decoder: inputs
 * with an array count above FUZZ_MAX_ELEMENTS are skipped.
 *
 * Invariants: 0 or a negative errno with a message (an HGETALL reply that
 * is no hash is -EPROTO naming the key); strings NUL-terminated within
 * their arrays; the read-back's classes, queues and groups 0..7, the
 * caller's ports kept; the round trip above.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include -I plugins/sonic tests/fuzz/fuzz_sonic_reply.c \
 *       plugins/sonic/sonic_reply.c plugins/sonic/sonic_qos.c plugins/sonic/sonic_redis.c \
 *       plugins/sonic/sonic_apply.c plugins/sonic/sonic_buffers.c plugins/lp_util.c \
 *       -lhiredis -lpthread -o fuzz_sonic_reply
 *   cp -r tests/fuzz/corpus/sonic_reply work && ./fuzz_sonic_reply work */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_counters.h"
#include "sonic.h"

const char fuzz_name[] = "fuzz_sonic_reply";

#define FUZZ_MAX_REPLIES 256
#define FUZZ_MAX_ELEMENTS 4096

/* Replies cut from a RESP stream, taken in order. */
struct stream {
	redisReply *r[FUZZ_MAX_REPLIES];
	size_t n, next;
};

/* 0, or -1 for an input with an array count past FUZZ_MAX_ELEMENTS. */
static int counts_ok(const uint8_t *d, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned long long v = 0;

		if (d[i] != '*')
			continue;
		for (size_t j = i + 1; j < len && d[j] >= '0' && d[j] <= '9'; j++)
			if ((v = v * 10 + (unsigned)(d[j] - '0')) > FUZZ_MAX_ELEMENTS)
				return -1;
	}
	return 0;
}

static void stream_cut(struct stream *s, const uint8_t *d, size_t len)
{
	redisReader *rd = redisReaderCreate();
	void *r;

	memset(s, 0, sizeof(*s));
	if (!rd)
		fuzz_bug("out of memory");
	if (len && redisReaderFeed(rd, (const char *)d, len) != REDIS_OK)
		fuzz_bug("redisReaderFeed failed");
	while (s->n < FUZZ_MAX_REPLIES && redisReaderGetReply(rd, &r) == REDIS_OK && r)
		s->r[s->n++] = r;
	redisReaderFree(rd);
}

static void stream_free(struct stream *s)
{
	for (size_t i = s->next; i < s->n; i++)
		freeReplyObject(s->r[i]);
	s->next = s->n;
}

/* The next reply (NULL: the stream ran out), checked as a hash if asked. */
static redisReply *take(struct stream *s)
{
	return s->next < s->n ? s->r[s->next++] : NULL;
}

static int stream_hgetall(void *ctx, const char *keys, size_t stride, size_t n,
			  redisReply **out, char *err, size_t errlen)
{
	struct stream *s = ctx;

	for (size_t i = 0; i < n; i++) {
		const char *key = keys + i * stride;
		char what[SN_KEY_LEN + 16];
		int rc;

		snprintf(what, sizeof(what), "HGETALL %s", key);
		if (!(out[i] = take(s))) {
			snprintf(err, errlen, "%s: connection closed", what);
			return -ECONNRESET;
		}
		if ((rc = sn_hash_reply(out[i], what, err, errlen))) {
			if (rc != -EPROTO && out[i]->type != REDIS_REPLY_ERROR)
				fuzz_bug("sn_hash_reply returned %d for a reply of type %d", rc,
					 out[i]->type);
			freeReplyObject(out[i]);
			out[i] = NULL;
			return rc;
		}
	}
	return 0;
}

/* The next reply as a hash, or NULL (none, or refused: then freed). */
static redisReply *take_hash(struct stream *s, const char *what)
{
	redisReply *r = take(s);
	char err[256] = "";
	int rc;

	if (!r)
		return NULL;
	if ((rc = sn_hash_reply(r, what, err, sizeof(err)))) {
		fuzz_check_rc(rc, err, "sn_hash_reply");
		if (!strstr(err, what))
			fuzz_bug("sn_hash_reply's message \"%s\" does not name %s", err, what);
		freeReplyObject(r);
		return NULL;
	}
	return r;
}

static void inventory(struct stream *s)
{
	struct lp_inventory inv;
	redisReply *r, *cfg, *oper;
	char err[256] = "", ver[LP_NAME_LEN];
	struct lp_port p;
	int rc;

	if (!(r = take_hash(s, "DEVICE_METADATA|localhost")))
		return;
	rc = sn_inventory_parse(r, &inv, err, sizeof(err));
	fuzz_check_rc(rc, err, "sn_inventory_parse");
	fuzz_check_terminated(inv.hostname, sizeof(inv.hostname), "hostname");
	fuzz_check_terminated(inv.model, sizeof(inv.model), "model");
	fuzz_check_terminated(inv.mac, sizeof(inv.mac), "mac");
	freeReplyObject(r);
	for (int kube = 0; kube < 2; kube++) {
		if (!(r = take(s)))
			return;
		err[0] = '\0';
		rc = sn_os_version_parse(r, kube, ver, sizeof(ver), err, sizeof(err));
		fuzz_check_rc(rc, err, "sn_os_version_parse");
		fuzz_check_terminated(ver, sizeof(ver), "os_version");
		freeReplyObject(r);
	}
	while ((cfg = take_hash(s, "PORT|Ethernet0"))) {
		oper = take_hash(s, "PORT_TABLE:Ethernet0");
		if (sn_port_parse("Ethernet0", cfg, oper, &p)) {
			fuzz_check_terminated(p.alias, sizeof(p.alias), "alias");
			if (strcmp(p.name, "Ethernet0") || p.admin_up > 1 || p.oper_up > 1)
				fuzz_bug("port %s admin %u oper %u", p.name, p.admin_up, p.oper_up);
		}
		freeReplyObject(cfg);
		if (oper)
			freeReplyObject(oper);
	}
}

static void lldp(struct stream *s)
{
	struct lp_neighbor n;
	redisReply *r;

	while ((r = take_hash(s, "LLDP_ENTRY_TABLE:Ethernet0"))) {
		if (sn_neighbor_parse("Ethernet0", r, &n)) {
			fuzz_check_terminated(n.chassis_id, sizeof(n.chassis_id), "chassis_id");
			fuzz_check_terminated(n.sys_name, sizeof(n.sys_name), "sys_name");
			fuzz_check_terminated(n.port_id, sizeof(n.port_id), "port_id");
			fuzz_check_terminated(n.port_desc, sizeof(n.port_desc), "port_desc");
			if (strcmp(n.local_port, "Ethernet0"))
				fuzz_bug("neighbour on %s", n.local_port);
		}
		freeReplyObject(r);
	}
}

static void refs(struct stream *s)
{
	enum sn_refs refs;
	char err[256] = "";
	redisReply *r;
	int rc;

	if (!(r = take_hash(s, "VERSIONS|DATABASE")))
		return;
	rc = sn_refs_parse(r, &refs, err, sizeof(err));
	fuzz_check_rc(rc, err, "sn_refs_parse");
	if (rc && rc != -EPROTO)
		fuzz_bug("sn_refs_parse returned %d", rc);
	if (refs != SN_REFS_PLAIN && refs != SN_REFS_BRACKET)
		fuzz_bug("refs %d", (int)refs);
	freeReplyObject(r);
}

static void init_ports(struct lp_qos *q)
{
	memset(q, 0, sizeof(*q));
	q->n_ports = 2;
	memcpy(q->ports[0].port, "Ethernet0", 10);
	memcpy(q->ports[1].port, "Ethernet4", 10);
}

static void check_qos(const struct lp_qos *q)
{
	for (unsigned d = 0; d < 64; d++)
		if (q->dscp_to_tc[d] >= LP_TCS)
			fuzz_bug("qos: dscp %u -> tc %u", d, q->dscp_to_tc[d]);
	for (unsigned t = 0; t < LP_TCS; t++)
		if (q->tc_to_queue[t] >= LP_TCS || q->tc_to_pg[t] >= LP_TCS)
			fuzz_bug("qos: tc %u -> queue %u pg %u", t, q->tc_to_queue[t],
				 q->tc_to_pg[t]);
	if (q->pfcwd.action > LP_PFCWD_ALERT)
		fuzz_bug("qos: pfcwd action %d", (int)q->pfcwd.action);
	if (q->n_ports != 2 || strcmp(q->ports[0].port, "Ethernet0") ||
	    strcmp(q->ports[1].port, "Ethernet4"))
		fuzz_bug("qos: the caller's ports were not kept");
}

/* CONFIG_DB as a plan leaves it: each key asked gets the fields the plan
 * sets on it (the last object of that key; a deleted key: none). */
static int plan_hgetall(void *ctx, const char *keys, size_t stride, size_t n, redisReply **out,
			char *err, size_t errlen)
{
	const struct sn_plan *p = ctx;
	static char buf[1 << 16];

	for (size_t i = 0; i < n; i++) {
		const char *key = keys + i * stride;
		const struct sn_obj *o = NULL;
		size_t len = 0, fields = 0;
		redisReader *rd;
		void *r = NULL;
		char what[SN_KEY_LEN + 16];
		int rc;

		for (size_t k = 0; k < p->n_obj; k++)
			if (!strcmp(p->obj[k].key, key))
				o = &p->obj[k];
		for (size_t f = 0; o && !o->del && f < o->n; f++)
			fields += p->fv[o->first + f].value[0] != '\0';
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "*%zu\r\n", 2 * fields);
		for (size_t f = 0; o && !o->del && f < o->n; f++) {
			const struct sn_fv *fv = &p->fv[o->first + f];

			if (fv->value[0])
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
							"$%zu\r\n%s\r\n$%zu\r\n%s\r\n",
							strlen(fv->field), fv->field,
							strlen(fv->value), fv->value);
		}
		if (len >= sizeof(buf) || !(rd = redisReaderCreate()))
			fuzz_bug("serving the plan: out of room");
		if (redisReaderFeed(rd, buf, len) != REDIS_OK ||
		    redisReaderGetReply(rd, &r) != REDIS_OK || !r)
			fuzz_bug("hiredis does not read back %s", key);
		redisReaderFree(rd);
		out[i] = r;
		snprintf(what, sizeof(what), "HGETALL %s", key);
		if ((rc = sn_hash_reply(out[i], what, err, errlen)))
			fuzz_bug("a planned hash is refused: %s", err);
	}
	return 0;
}

static void same_policy(const struct lp_qos *a, const struct lp_qos *b, enum sn_refs refs)
{
	const char *what = NULL;

	if (memcmp(a->dscp_to_tc, b->dscp_to_tc, sizeof(a->dscp_to_tc)))
		what = "dscp_to_tc";
	else if (memcmp(a->tc_to_queue, b->tc_to_queue, sizeof(a->tc_to_queue)))
		what = "tc_to_queue";
	else if (memcmp(a->tc_to_pg, b->tc_to_pg, sizeof(a->tc_to_pg)))
		what = "tc_to_pg";
	else if (a->pfc_mask != b->pfc_mask)
		what = "pfc_mask";
	else if (a->strict_mask != b->strict_mask)
		what = "strict_mask";
	else if (memcmp(a->ets_weight, b->ets_weight, sizeof(a->ets_weight)))
		what = "ets_weight";
	else if (a->pfcwd.enabled != b->pfcwd.enabled ||
		 (a->pfcwd.enabled && (a->pfcwd.action != b->pfcwd.action ||
				       a->pfcwd.detection_ms != b->pfcwd.detection_ms ||
				       a->pfcwd.restoration_ms != b->pfcwd.restoration_ms)))
		what = "pfcwd";
	for (unsigned t = 0; !what && t < LP_TCS; t++)
		if (a->ecn[t].enabled != b->ecn[t].enabled ||
		    (a->ecn[t].enabled && (a->ecn[t].min_bytes != b->ecn[t].min_bytes ||
					   a->ecn[t].max_bytes != b->ecn[t].max_bytes ||
					   a->ecn[t].mark_percent != b->ecn[t].mark_percent)))
			what = "ecn";
	for (size_t i = 0; !what && i < a->n_ports; i++)
		if (a->ports[i].cable_m != b->ports[i].cable_m)
			what = "cable_m";
	if (what)
		fuzz_bug("%s differs after plan and read back (%s references)", what,
			 refs == SN_REFS_BRACKET ? "[TABLE|name]" : "plain");
}

static void round_trip(const struct lp_qos *q)
{
	static struct lp_qos back;

	for (int f = 0; f < 2; f++) {
		enum sn_refs refs = f ? SN_REFS_BRACKET : SN_REFS_PLAIN;
		struct sn_plan plan;
		struct sn_source src;
		char err[256] = "";
		int rc;

		sn_plan_init(&plan);
		rc = sn_plan_qos(q, refs, NULL, &plan, err, sizeof(err));
		fuzz_check_rc(rc, err, "sn_plan_qos");
		if (rc == 0) {
			src.hgetall = plan_hgetall;
			src.ctx = &plan;
			init_ports(&back);
			if ((rc = sn_qos_decode(&src, &back, err, sizeof(err))))
				fuzz_bug("a plan does not read back: %s", err);
			same_policy(q, &back, refs);
		}
		sn_plan_free(&plan);
	}
}

static void qos(struct stream *s)
{
	static struct lp_qos q;
	struct sn_source src = { stream_hgetall, s };
	char err[256] = "";
	int rc;

	init_ports(&q);
	rc = sn_qos_decode(&src, &q, err, sizeof(err));
	fuzz_check_rc(rc, err, "sn_qos_decode");
	if (rc)
		return;
	check_qos(&q);
	round_trip(&q);
}

static void counters(struct stream *s)
{
	static struct fc_seen seen;
	struct sn_source src = { stream_hgetall, s };
	struct lp_counter_sink sink = { &seen, fc_counter, fc_port_error };
	char err[256] = "";
	int rc;

	fc_reset(&seen, "COUNTERS");
	rc = sn_counters_decode(&src, &sink, err, sizeof(err));
	fuzz_check_rc(rc, err, "sn_counters_decode");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stream s;

	if (!size || counts_ok(data + 1, size - 1))
		return 0;
	stream_cut(&s, data + 1, size - 1);
	switch (data[0] % 5) {
	case 0:
		inventory(&s);
		break;
	case 1:
		lldp(&s);
		break;
	case 2:
		refs(&s);
		break;
	case 3:
		qos(&s);
		break;
	default:
		counters(&s);
		break;
	}
	stream_free(&s);
	return 0;
}
