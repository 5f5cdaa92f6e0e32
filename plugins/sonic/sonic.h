/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic.h: what the files of the sonic plugin share (not
 * installed, not seen by loomd): the switch handle, and the "plan" that
 * sonic_qos.c makes of a struct lp_qos and sonic_apply.c makes CONFIG_DB
 * hold. */
#ifndef SONIC_H
#define SONIC_H

#include <stddef.h>
#include <stdint.h>

#include "loom/loom_plugin.h"
#include "sonic_redis.h"

/* The handle of one switch: all the plugin's state is here (ops on
 * different handles run at once; loomd never runs two on one). */
/* (speed, cable) pairs that have a headroom row: a pg_profile_lookup.ini's
 * (line: where) or those the switch's lossless profiles prove (line 0). */
struct sn_lengths {
	char speed[16];           /* PORT speed as buffermgrd names it: "100000" */
	unsigned cable_m;
	unsigned line;
};

/* The plugin option pg_profile_lookup=PATH: a copy of the SKU's
 * pg_profile_lookup.ini (n == 0: none given). */
struct sn_lookup {
	char path[256];
	struct sn_lengths *row;
	size_t n;
};

struct lp_switch {
	struct sn_conn conn;
	char name[LP_NAME_LEN];
	const struct lp_host *host;
	struct sn_lookup lookup;
};

#define SN_KEY_LEN 160            /* "QUEUE|" + port + "|7" and the like */
#define SN_STR_LEN 72             /* field names and values: port names, numbers */

/* One field of a hash loom manages and the value it wants; "" = the field
 * must not exist. if_absent: a switch-wide setting other ports share
 * (PFC_WD|GLOBAL POLL_INTERVAL): written only when the switch has none, an
 * existing value is never changed. */
struct sn_fv {
	char field[SN_STR_LEN];
	char value[SN_STR_LEN];
	int if_absent;
};

/* One CONFIG_DB hash: its key and its managed fields fv[first..first+n);
 * or, with del, a key that must not exist at all (every field it has goes,
 * loom's or not: PFC_WD|<port> with the watchdog off, as `pfcwd stop` does,
 * since an entry without detection_time is invalid). */
struct sn_obj {
	char key[SN_KEY_LEN];
	size_t first, n;
	int del;
};

/* The hashes to write, in the order they are written (referenced objects
 * before the objects that refer to them). Fields of these keys not listed
 * are not loom's and are left alone. */
struct sn_plan {
	struct sn_obj *obj;
	size_t n_obj, cap_obj;
	struct sn_fv *fv;
	size_t n_fv, cap_fv;
	int failed;                /* -ENOMEM or -ENAMETOOLONG while building */
};

/* sonic_apply.c: building a plan, and making CONFIG_DB hold it. */
void sn_plan_init(struct sn_plan *p);
void sn_plan_free(struct sn_plan *p);
/* Start the hash with key fmt...; sn_plan_set adds a field to it. */
void sn_plan_key(struct sn_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sn_plan_set(struct sn_plan *p, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The key fmt... must not exist (sn_obj.del). */
void sn_plan_del(struct sn_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a field that is only written when the switch has none. */
void sn_plan_set_if_absent(struct sn_plan *p, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Read every hash of plan (HGETALL, pipelined), report each field that
 * differs through sink and, unless dry_run, write each hash's differing
 * fields in one step (HSET, HDEL, in MULTI/EXEC when both) before
 * reporting its fields done. On a write error: -errno with Redis's text in
 * err, and every change not written reported with done = 0. */
int sn_apply_plan(struct sn_conn *c, const struct sn_plan *plan, int dry_run,
		  const struct lp_change_sink *sink, char *err, size_t errlen);

/* sonic_qos.c: loom's lossless QoS in SONiC's terms, and back. */
/* How the switch's CONFIG_DB writes a reference to an object: its plain
 * name (SONiC 202111 and later) or "[TABLE|name]" (before). */
enum sn_refs { SN_REFS_PLAIN, SN_REFS_BRACKET };
/* The form the switch's CONFIG_DB schema takes, from VERSIONS|DATABASE:
 * brackets up to version_3_0_2 (db_migrator's version_3_0_2 step converts
 * them), plain after it and in the version_YYYYMM_NN names; no VERSIONS
 * key (not a SONiC that ran db_migrator) is taken for plain. -EPROTO with
 * the reason for a VERSION it cannot place. */
int sn_refs_of(struct sn_conn *c, enum sn_refs *refs, char *err, size_t errlen);
struct sn_buffers;
/* The plan of want; buffers (NULL: none read) adds the deletion of stale
 * lossless priority groups (sn_buffers_plan_stale) before pfc_enable. */
int sn_plan_qos(const struct lp_qos *want, enum sn_refs refs, const struct sn_buffers *buffers,
		struct sn_plan *plan, char *err, size_t errlen);

/* sn_refs_of's decision from the HGETALL reply of VERSIONS|DATABASE. */
int sn_refs_parse(const redisReply *versions, enum sn_refs *refs, char *err, size_t errlen);

/* Where the QoS read-back gets CONFIG_DB's hashes: hgetall(ctx, keys, stride,
 * n, out, ...) fills out[0..n) with the HGETALL replies of the n keys
 * (NUL-terminated, `stride` bytes apart), as sn_hgetall does (each checked
 * with sn_hash_reply), or returns -errno with err. */
struct sn_source {
	int (*hgetall)(void *ctx, const char *keys, size_t stride, size_t n, redisReply **out,
		       char *err, size_t errlen);
	void *ctx;
};

/* The QoS state for the ports named in q->ports (names kept, the rest
 * filled) from the hashes src gives, asked in this order: PORT_QOS_MAP of
 * each port; the three maps the first port with one names; the first such
 * port's QUEUE|p|0..7 and PFC_WD|p; the SCHEDULER and WRED_PROFILE objects
 * its queues name; CABLE_LENGTH|AZURE; PORT of each port; and with PFC,
 * BUFFER_PG and then BUFFER_PROFILE of each. -ENOENT: no lossless config. */
int sn_qos_decode(const struct sn_source *src, struct lp_qos *q, char *err, size_t errlen);
/* sn_qos_decode from CONFIG_DB on c. */
int sn_qos_read(struct sn_conn *c, struct lp_qos *q, char *err, size_t errlen);

/* sonic_reply.c: inventory and LLDP answers decoded (no I/O). */
/* DEVICE_METADATA|localhost (HGETALL) into inv's hostname, model, mac:
 * -ENOENT when empty (not a SONiC CONFIG_DB). */
int sn_inventory_parse(const redisReply *md, struct lp_inventory *inv, char *err,
		       size_t errlen);
/* The OS version from HGET LLDP_LOC_CHASSIS lldp_loc_sys_desc (kube 0) or
 * HGET KUBE_LABELS|SET sonic_version (kube 1) into out ("" when the reply
 * has none); -EPROTO for a reply that is no string or nil. */
int sn_os_version_parse(const redisReply *r, int kube, char *out, size_t outlen, char *err,
			size_t errlen);
/* PORT|name (cfg) and PORT_TABLE:name (oper) into p: 1 a front-panel port
 * to report, 0 not (gone since the SCAN, or an internal one). */
int sn_port_parse(const char *name, const redisReply *cfg, const redisReply *oper,
		  struct lp_port *p);
/* LLDP_ENTRY_TABLE:port into n: 1 a neighbour, 0 none. */
int sn_neighbor_parse(const char *port, const redisReply *entry, struct lp_neighbor *n);

/* sonic_counters.c: the counters_read op (COUNTERS_DB, database 2). */
/* Every port's counters from the hashes src gives, asked in this order:
 * COUNTERS_PORT_NAME_MAP, COUNTERS_QUEUE_NAME_MAP, COUNTERS_QUEUE_TYPE_MAP
 * (one call), then COUNTERS:<oid> of each port (sorted naturally) and of
 * each of their unicast queues 0..7 (one call). -ENOENT naming a missing
 * map; a port that cannot be read goes to out->port_error naming the key
 * and field. */
int sn_counters_decode(const struct sn_source *src, const struct lp_counter_sink *out,
		       char *err, size_t errlen);
/* sn_counters_decode from COUNTERS_DB on c. */
int sn_counters_read(struct sn_conn *c, const struct lp_counter_sink *out, char *err,
		     size_t errlen);
/* A decimal string of a 64-bit counter (digits only): 0 and *v, or -EINVAL. */
int sn_parse_u64(const char *s, uint64_t *v);

/* sonic_objects.c: each object plan would touch, for the qos_objects op:
 * create, change or delete, and the unmanaged ports (or "switch-wide")
 * that use it too. Changes nothing. */
int sn_qos_objects(struct sn_conn *c, const struct sn_plan *plan, const struct lp_qos *want,
		   const struct lp_object_sink *out, char *err, size_t errlen);

/* sonic_buffers.c: what buffermgrd will make of loom's cable lengths and
 * lossless priorities (traditional buffer model), checked before writing. */
int sn_lookup_load(const char *path, struct sn_lookup *lk, char *err, size_t errlen);
void sn_lookup_free(struct sn_lookup *lk);

/* A managed port's BUFFER_PG entry: key first (read with sn_hgetall). */
struct sn_pg {
	char key[SN_KEY_LEN];
	char range[8];            /* "3-4", "3" */
	char profile[SN_STR_LEN]; /* its profile's name, "" none */
};

struct sn_buffers {
	int dynamic;              /* buffer_model dynamic: nothing to check */
	char (*speed)[16];        /* PORT speed of want->ports[i], "" unknown */
	struct sn_lengths *have;  /* pairs of BUFFER_PROFILE|pg_lossless_* */
	size_t n_have, cap_have;
	struct sn_pg *pg;         /* the managed ports' BUFFER_PG entries */
	size_t n_pg;
};

int sn_buffers_read(struct sn_conn *c, const struct lp_qos *want, struct sn_buffers *b,
		    char *err, size_t errlen);
void sn_buffers_free(struct sn_buffers *b);
/* -EINVAL, with the port, speed, length and the lengths that have a row,
 * when a managed lossless port's (speed, cable) has none (lk: the lookup
 * option, or NULL/empty: the switch's own profiles). */
int sn_buffers_check(const struct sn_buffers *b, const struct sn_lookup *lk,
		     const struct lp_qos *want, const struct lp_host *host, const char *sw_name,
		     char *err, size_t errlen);
/* Delete buffermgrd's lossless BUFFER_PG entries that are no run of want's
 * lossless priorities. */
void sn_buffers_plan_stale(const struct sn_buffers *b, const struct lp_qos *want,
			   struct sn_plan *p);
/* The BUFFER_PG ranges of mask as buffermgrd writes them: one per run of
 * consecutive priorities ("3-4"; "3" and "6"). How many (at most max). */
size_t sn_pg_runs(uint8_t mask, char (*out)[8], size_t max);

#endif
