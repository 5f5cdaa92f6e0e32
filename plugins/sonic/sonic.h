/* plugins/sonic/sonic.h: what the files of the sonic plugin share (not
 * installed, not seen by loomd): the switch handle, and the "plan" that
 * sonic_qos.c makes of a struct lp_qos and sonic_apply.c makes CONFIG_DB
 * hold. */
#ifndef SONIC_H
#define SONIC_H

#include <stddef.h>

#include "loom/loom_plugin.h"
#include "sonic_redis.h"

/* The handle of one switch: all the plugin's state is here (ops on
 * different handles run at once; loomd never runs two on one). */
struct lp_switch {
	struct sn_conn conn;
	char name[LP_NAME_LEN];
	const struct lp_host *host;
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
int sn_plan_qos(const struct lp_qos *want, enum sn_refs refs, struct sn_plan *plan, char *err,
		size_t errlen);
int sn_qos_read(struct sn_conn *c, struct lp_qos *q, char *err, size_t errlen);

#endif
