/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic.c: the `sonic` switch plugin (sonic.so): SONiC
 * switches (202111 and later) through their Redis databases, with hiredis.
 * The ops table of include/loom/loom_plugin.h; this file holds the handle,
 * inventory, LLDP, VLANs and health. The QoS translation is sonic_qos.c,
 * the diff-and-write of CONFIG_DB sonic_apply.c, Redis access
 * sonic_redis.c (address forms, AUTH, timeouts, errors).
 *
 * loom.yaml:  switches: - { name: leaf1, plugin: sonic,
 *                           address: "unix:/var/run/redis/redis.sock" }
 * or "10.0.0.1:6379" / "leaf1" (port 6379) when loomd reaches the switch's
 * Redis over the network; the credentials file's first line is the Redis
 * password. One plugin option (any other is refused, so a typo shows):
 * pg_profile_lookup=PATH, a copy of the switch SKU's pg_profile_lookup.ini
 * on the loomd host, read at open: the (speed, cable) pairs buffermgrd has
 * headroom for (sonic_buffers.c), e.g.
 *   options: "pg_profile_lookup=/etc/loom/sonic/ACS-MSN2700.ini" 
 *
 * Databases (SONiC's database_config.json): APPL_DB 0 (separator ':'),
 * COUNTERS_DB 2 (':'), CONFIG_DB 4 ('|'), STATE_DB 6 ('|'). loom writes CONFIG_DB only: that is
 * what orchagent, buffermgrd and pfcwd read; APPL_DB and STATE_DB are read.
 *
 * inventory: CONFIG_DB DEVICE_METADATA|localhost (hostname; hwsku as the
 *   model; mac). The OS version is in no database on a standard image
 *   (it is the file /etc/sonic/sonic_version.yml); it is taken from lldpd's
 *   local system description (APPL_DB LLDP_LOC_CHASSIS lldp_loc_sys_desc,
 *   "SONiC Software Version: SONiC.<build> - HwSku: ...") or, where the
 *   kubernetes feature runs, STATE_DB KUBE_LABELS|SET sonic_version, as
 *   "SONiC.<build>" like `show version`; "" if neither is there. Ports:
 *   CONFIG_DB PORT|* (SCAN, never KEYS), in natural order, without the
 *   internal ports of multi-ASIC systems (role other than Ext); alias,
 *   speed (Mb/s), mtu, admin_status; oper_status from APPL_DB
 *   PORT_TABLE:<port>.
 * lldp_neighbors: APPL_DB LLDP_ENTRY_TABLE:<port> (lldp_syncd), every
 *   entry (eth0's too: loomd matches neighbours to ports itself).
 * vlan_set / vlan_clear: the access VLAN of a port is its one untagged
 *   VLAN_MEMBER (SONiC allows one). set: VLAN|Vlan<vid> {vlanid} (other
 *   fields kept), the port's other untagged VLAN_MEMBER keys deleted, then
 *   VLAN_MEMBER|Vlan<vid>|<port> {tagging_mode untagged}. clear: the port's
 *   untagged VLAN_MEMBER deleted. Tagged memberships are never loom's and
 *   never touched; VLAN objects stay (other ports may be in them).
 * vlan_get: the port's untagged VLAN_MEMBER in CONFIG_DB (what vlanmgrd
 *   programs from; loom does not read STATE_DB's VLAN_MEMBER_TABLE, which
 *   only a running vlanmgrd fills).
 * health: PING (after connecting again if the connection broke).
 * counters_read: COUNTERS_DB (db 2, separator ':'): the port and queue
 *   name maps and each port's and unicast queue's COUNTERS:<oid> hash
 *   (sonic_counters.c; docs/sonic-counters-notes.md).
 *
 * Every op reconnects when the last connection broke (a restarted
 * redis-server), and blocks SIGPIPE in its thread while it runs. */
#include "autoconf.h"
#include "sonic.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names from SCAN ------------------------------------------------------ */

struct names {
	char (*v)[SN_KEY_LEN];
	size_t n, cap;
	size_t prefix;            /* length of "PORT|" etc. to cut off */
	int oom;
};

static int names_add(void *ctx, const char *key)
{
	struct names *ns = ctx;
	const char *name = key + ns->prefix;

	if (strlen(key) <= ns->prefix ||
	    (ns->prefix ? strlen(name) >= LP_NAME_LEN || strchr(name, '|')
			: strlen(key) >= SN_KEY_LEN))
		return 0;               /* not one of ours, or too long for loom */
	if (lp_grow(&ns->v, &ns->cap, ns->n, sizeof(*ns->v), 64)) {
		ns->oom = 1;
		return -ENOMEM;
	}
	memcpy(ns->v[ns->n++], name, strlen(name) + 1);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(a, b);
}

/* The names of the keys matching `match` ("PORT|*"), after `prefix`
 * characters (0: whole keys), sorted naturally (Ethernet4 before
 * Ethernet12), once each. Names longer than loom's (LP_NAME_LEN) are left
 * out. */
static int scan_names(struct sn_conn *c, const char *match, size_t prefix, struct names *ns,
		      char *err, size_t errlen)
{
	size_t o = 0;
	int rc;

	memset(ns, 0, sizeof(*ns));
	ns->prefix = prefix;
	if ((rc = sn_scan(c, match, names_add, ns, err, errlen))) {
		if (ns->oom)
			snprintf(err, errlen, "out of memory");
		return rc;
	}
	if (!ns->n)
		return 0;
	qsort(ns->v, ns->n, sizeof(*ns->v), name_cmp);
	for (size_t i = 0; i < ns->n; i++)
		if (!o || strcmp(ns->v[i], ns->v[o - 1]))
			memmove(ns->v[o++], ns->v[i], SN_KEY_LEN);
	ns->n = o;
	return 0;
}

/* The replies r[0..n) and the array itself. */
static void free_replies(redisReply **r, size_t n)
{
	sn_replies_clear(r, n);
	free(r);
}

/* ---- open, close, health ------------------------------------------------ */

/* "pg_profile_lookup=PATH" (the one option), or nothing. */
static int parse_options(struct lp_switch *sw, const char *opts, char *err, size_t errlen)
{
	static const char key[] = "pg_profile_lookup=";
	int rc;

	if (!opts || !*opts)
		return 0;
	if (strncmp(opts, key, sizeof(key) - 1) || !opts[sizeof(key) - 1] ||
	    strchr(opts, ',')) {
		snprintf(err, errlen, "options \"%.200s\": the sonic plugin takes only "
			 "pg_profile_lookup=PATH", opts);
		return -EINVAL;
	}
	if ((rc = sn_lookup_load(opts + sizeof(key) - 1, &sw->lookup, err, errlen)))
		return rc;
	sw_log(sw, LP_LOG_INFO, "%zu headroom rows (speed, cable) from %s", sw->lookup.n,
	       sw->lookup.path);
	return 0;
}

static int sonic_open(const struct lp_endpoint *ep, const struct lp_host *host,
		      struct lp_switch **out, char *err, size_t errlen)
{
	struct lp_switch *sw;
	struct sn_sigpipe sp;
	int rc;

	*out = NULL;
	if (!(sw = calloc(1, sizeof(*sw)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lp_copy_str(sw->name, sizeof(sw->name), ep->name);
	sw->host = host;
	if ((rc = parse_options(sw, ep->options, err, errlen))) {
		free(sw);
		return rc;
	}
	if ((rc = sn_conn_init(&sw->conn, ep, err, errlen))) {
		sn_lookup_free(&sw->lookup);
		free(sw);
		return rc;
	}
	sn_sigpipe_block(&sp);
	rc = sn_connect(&sw->conn, err, errlen);
	sn_sigpipe_restore(&sp);
	if (rc) {
		sn_conn_fini(&sw->conn);
		sn_lookup_free(&sw->lookup);
		free(sw);
		return rc;
	}
	sw_log(sw, LP_LOG_INFO, "connected to SONiC's Redis at %s", sw->conn.address);
	*out = sw;
	return 0;
}

static void sonic_close(struct lp_switch *sw)
{
	if (!sw)
		return;
	sn_conn_fini(&sw->conn);
	sn_lookup_free(&sw->lookup);
	free(sw);
}

static int sonic_health(struct lp_switch *sw, char *err, size_t errlen)
{
	struct sn_sigpipe sp;
	int rc;

	sn_sigpipe_block(&sp);
	rc = sn_connect(&sw->conn, err, errlen);
	sn_sigpipe_restore(&sp);
	return rc;
}

/* ---- inventory ---------------------------------------------------------- */

/* "SONiC.<build>" from lldpd's system description or the kube labels. */
static int os_version(struct sn_conn *c, char *out, size_t outlen, char *err, size_t errlen)
{
	redisReply *r;
	int rc;

	out[0] = '\0';
	if ((rc = sn_select(c, SN_APPL_DB, err, errlen)) ||
	    (rc = sn_cmd(c, &r, err, errlen, "HGET", "LLDP_LOC_CHASSIS", "lldp_loc_sys_desc",
			 NULL)))
		return rc;
	rc = sn_os_version_parse(r, 0, out, outlen, err, errlen);
	freeReplyObject(r);
	if (rc || out[0])
		return rc;
	if ((rc = sn_select(c, SN_STATE_DB, err, errlen)) ||
	    (rc = sn_cmd(c, &r, err, errlen, "HGET", "KUBE_LABELS|SET", "sonic_version", NULL)))
		return rc;
	rc = sn_os_version_parse(r, 1, out, outlen, err, errlen);
	freeReplyObject(r);
	return rc;
}

static int inventory(struct lp_switch *sw, struct lp_inventory *inv,
		     const struct lp_port_sink *sink, char *err, size_t errlen)
{
	struct sn_conn *c = &sw->conn;
	redisReply *md, **cfg = NULL, **oper = NULL;
	struct names ports = { 0 };
	int rc;

	memset(inv, 0, sizeof(*inv));
	if ((rc = sn_connect(c, err, errlen)) || (rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = sn_hgetall(c, NULL, 0, "DEVICE_METADATA|localhost", 0, 1, &md, err, errlen)))
		return rc;
	rc = sn_inventory_parse(md, inv, err, errlen);
	freeReplyObject(md);
	if (rc || (rc = os_version(c, inv->os_version, sizeof(inv->os_version), err, errlen)))
		return rc;

	if ((rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = scan_names(c, "PORT|*", 5, &ports, err, errlen)))
		goto out;
	cfg = calloc(ports.n + 1, sizeof(*cfg));
	oper = calloc(ports.n + 1, sizeof(*oper));
	if (!cfg || !oper) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = sn_hgetall(c, "PORT", '|', (const char *)ports.v, SN_KEY_LEN, ports.n, cfg, err,
			     errlen)) ||
	    (rc = sn_select(c, SN_APPL_DB, err, errlen)) ||
	    (rc = sn_hgetall(c, "PORT_TABLE", ':', (const char *)ports.v, SN_KEY_LEN, ports.n, oper,
			     err, errlen)))
		goto out;
	for (size_t i = 0; i < ports.n; i++) {
		struct lp_port p;

		if (!sn_port_parse(ports.v[i], cfg[i], oper[i], &p))
			continue;
		if (sink && sink->port && (rc = sink->port(sink->ctx, &p)))
			goto out;
	}
out:
	free_replies(cfg, ports.n);
	free_replies(oper, ports.n);
	free(ports.v);
	return rc;
}

static int lldp(struct lp_switch *sw, const struct lp_neighbor_sink *sink, char *err,
		size_t errlen)
{
	static const char table[] = "LLDP_ENTRY_TABLE";
	struct sn_conn *c = &sw->conn;
	struct names ifs = { 0 };
	redisReply **r = NULL;
	int rc;

	if ((rc = sn_connect(c, err, errlen)) || (rc = sn_select(c, SN_APPL_DB, err, errlen)) ||
	    (rc = scan_names(c, "LLDP_ENTRY_TABLE:*", sizeof(table), &ifs, err, errlen)))
		goto out;
	if (!(r = calloc(ifs.n + 1, sizeof(*r)))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = sn_hgetall(c, table, ':', (const char *)ifs.v, SN_KEY_LEN, ifs.n, r, err,
			     errlen)))
		goto out;
	for (size_t i = 0; i < ifs.n; i++) {
		struct lp_neighbor n;

		if (!sn_neighbor_parse(ifs.v[i], r[i], &n))
			continue;
		if (sink && sink->neighbor && (rc = sink->neighbor(sink->ctx, &n)))
			goto out;
	}
out:
	free_replies(r, ifs.n);
	free(ifs.v);
	return rc;
}

/* ---- QoS ------------------------------------------------------------------ */

static int qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	int rc;

	if ((rc = sn_connect(&sw->conn, err, errlen)))
		return rc;
	return sn_qos_read(&sw->conn, q, err, errlen);
}

/* The plan of want for this switch: the reference form of its schema, and
 * what buffermgrd will make of it checked (sonic_buffers.c). */
static int plan_for(struct lp_switch *sw, const struct lp_qos *want, struct sn_plan *plan,
		    char *err, size_t errlen)
{
	struct sn_buffers buffers = { 0 };
	enum sn_refs refs;
	int rc;

	if (!(rc = sn_connect(&sw->conn, err, errlen)) &&
	    !(rc = sn_refs_of(&sw->conn, &refs, err, errlen)) &&
	    !(rc = sn_buffers_read(&sw->conn, want, &buffers, err, errlen)) &&
	    !(rc = sn_buffers_check(&buffers, &sw->lookup, want, sw->host, sw->name, err,
				    errlen)))
		rc = sn_plan_qos(want, refs, &buffers, plan, err, errlen);
	sn_buffers_free(&buffers);
	return rc;
}

static int qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
		     const struct lp_change_sink *changes, char *err, size_t errlen)
{
	struct sn_plan plan;
	int rc;

	sn_plan_init(&plan);
	if (!(rc = plan_for(sw, want, &plan, err, errlen)))
		rc = sn_apply_plan(&sw->conn, &plan, dry_run, changes, err, errlen);
	if (rc < 0 && !dry_run)
		sw_log(sw, LP_LOG_ERR, "QoS apply stopped: %s", err);
	sn_plan_free(&plan);
	return rc;
}

static int qos_objects(struct lp_switch *sw, const struct lp_qos *want,
		       const struct lp_object_sink *out, char *err, size_t errlen)
{
	struct sn_plan plan;
	int rc;

	sn_plan_init(&plan);
	if (!(rc = plan_for(sw, want, &plan, err, errlen)))
		rc = sn_qos_objects(&sw->conn, &plan, want, out, err, errlen);
	sn_plan_free(&plan);
	return rc;
}

/* ---- VLANs ---------------------------------------------------------------- */

/* DEL the port's untagged VLAN_MEMBER keys, except `keep` (may be NULL). */
/* The port's untagged VLAN_MEMBER keys ("VLAN_MEMBER|Vlan<vid>|<port>"), into
 * *out (free out->v). Tagged memberships are not loom's and are left out. */
static int untagged_members(struct sn_conn *c, const char *port, struct names *out, char *err,
			    size_t errlen)
{
	char match[SN_KEY_LEN], esc[2 * LP_NAME_LEN + 1];
	size_t kept = 0;
	int rc;

	sn_glob_escape(port, esc, sizeof(esc));
	snprintf(match, sizeof(match), "VLAN_MEMBER|*|%s", esc);
	if ((rc = scan_names(c, match, 0, out, err, errlen)))
		return rc;
	for (size_t i = 0; i < out->n; i++) {
		redisReply *r;
		int untagged;

		if ((rc = sn_cmd(c, &r, err, errlen, "HGET", out->v[i], "tagging_mode", NULL)))
			return rc;
		untagged = r->type == REDIS_REPLY_STRING && !strcmp(r->str, "untagged");
		freeReplyObject(r);
		if (untagged)
			memmove(out->v[kept++], out->v[i], sizeof(out->v[i]));
	}
	out->n = kept;
	return 0;
}

static int drop_untagged(struct lp_switch *sw, const char *port, const char *keep, char *err,
			 size_t errlen)
{
	struct sn_conn *c = &sw->conn;
	struct names keys;
	int rc;

	if ((rc = untagged_members(c, port, &keys, err, errlen)))
		goto out;
	for (size_t i = 0; i < keys.n; i++) {
		if (keep && !strcmp(keys.v[i], keep))
			continue;
		if ((rc = sn_cmd(c, NULL, err, errlen, "DEL", keys.v[i], NULL)))
			goto out;
		sw_log(sw, LP_LOG_INFO, "removed %s", keys.v[i]);
	}
out:
	free(keys.v);
	return rc;
}

static int port_exists(struct sn_conn *c, const char *port, char *err, size_t errlen)
{
	char key[SN_KEY_LEN];
	redisReply *r;
	int rc, n;

	snprintf(key, sizeof(key), "PORT|%s", port);
	if ((rc = sn_cmd(c, &r, err, errlen, "EXISTS", key, NULL)))
		return rc;
	n = r->type == REDIS_REPLY_INTEGER ? (int)r->integer : 0;
	freeReplyObject(r);
	if (!n) {
		snprintf(err, errlen, "no port %s (no %s in CONFIG_DB)", port, key);
		return -ENOENT;
	}
	return 0;
}

static int vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
		    size_t errlen)
{
	struct sn_conn *c = &sw->conn;
	char vlan[SN_KEY_LEN], member[SN_KEY_LEN], id[8];
	int rc;

	if (vid < 1 || vid > 4094) {
		snprintf(err, errlen, "VLAN %u: SONiC takes 1..4094", vid);
		return -EINVAL;
	}
	if (!port || !*port || strlen(port) >= LP_NAME_LEN || strchr(port, '|')) {
		snprintf(err, errlen, "\"%s\" is no SONiC port name", port ? port : "");
		return -EINVAL;
	}
	snprintf(id, sizeof(id), "%u", vid);
	snprintf(vlan, sizeof(vlan), "VLAN|Vlan%u", vid);
	snprintf(member, sizeof(member), "VLAN_MEMBER|Vlan%u|%s", vid, port);
	if ((rc = sn_connect(c, err, errlen)) || (rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = port_exists(c, port, err, errlen)) ||
	    (rc = drop_untagged(sw, port, member, err, errlen)) ||
	    (rc = sn_cmd(c, NULL, err, errlen, "HSET", vlan, "vlanid", id, NULL)) ||
	    (rc = sn_cmd(c, NULL, err, errlen, "HSET", member, "tagging_mode", "untagged", NULL)))
		return rc;
	sw_log(sw, LP_LOG_INFO, "%s: access VLAN %u", port, vid);
	return 0;
}

static int vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	struct sn_conn *c = &sw->conn;
	int rc;

	if (!port || !*port || strlen(port) >= LP_NAME_LEN) {
		snprintf(err, errlen, "\"%s\" is no SONiC port name", port ? port : "");
		return -EINVAL;
	}
	if ((rc = sn_connect(c, err, errlen)) || (rc = sn_select(c, SN_CONFIG_DB, err, errlen)))
		return rc;
	return drop_untagged(sw, port, NULL, err, errlen);
}

/* The untagged VLAN_MEMBER of the port, as CONFIG_DB holds it. */
static int vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
		    size_t errlen)
{
	struct sn_conn *c = &sw->conn;
	struct names keys = { 0 };
	unsigned v;
	int rc;

	*vid = 0;
	if (!port || !*port || strlen(port) >= LP_NAME_LEN || strchr(port, '|')) {
		snprintf(err, errlen, "\"%s\" is no SONiC port name", port ? port : "");
		return -EINVAL;
	}
	if ((rc = sn_connect(c, err, errlen)) || (rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = port_exists(c, port, err, errlen)) ||
	    (rc = untagged_members(c, port, &keys, err, errlen)))
		goto out;
	if (keys.n && sscanf(keys.v[0], "VLAN_MEMBER|Vlan%u|", &v) == 1 && v >= 1 && v <= 4094)
		*vid = (uint16_t)v;
	else if (keys.n) {
		snprintf(err, errlen, "%s: not a VLAN member key SONiC writes", keys.v[0]);
		rc = -EPROTO;
	}
out:
	free(keys.v);
	return rc;
}

/* ---- counters --------------------------------------------------------------- */

static int counters_read(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
			 size_t errlen)
{
	int rc;

	if ((rc = sn_connect(&sw->conn, err, errlen)))
		return rc;
	return sn_counters_read(&sw->conn, out, err, errlen);
}

/* ---- the table: every op with SIGPIPE blocked ---------------------------- */

#define GUARDED(call)                                                                         \
	do {                                                                                  \
		struct sn_sigpipe sp_;                                                        \
		int rc_;                                                                      \
		sn_sigpipe_block(&sp_);                                                       \
		rc_ = (call);                                                                 \
		sn_sigpipe_restore(&sp_);                                                     \
		return rc_;                                                                   \
	} while (0)

static int sonic_inventory(struct lp_switch *sw, struct lp_inventory *inv,
			   const struct lp_port_sink *ports, char *err, size_t errlen)
{
	GUARDED(inventory(sw, inv, ports, err, errlen));
}

static int sonic_lldp(struct lp_switch *sw, const struct lp_neighbor_sink *out, char *err,
		      size_t errlen)
{
	GUARDED(lldp(sw, out, err, errlen));
}

static int sonic_qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	GUARDED(qos_read(sw, q, err, errlen));
}

static int sonic_qos_objects(struct lp_switch *sw, const struct lp_qos *want,
			     const struct lp_object_sink *out, char *err, size_t errlen)
{
	GUARDED(qos_objects(sw, want, out, err, errlen));
}

static int sonic_qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			   const struct lp_change_sink *changes, char *err, size_t errlen)
{
	GUARDED(qos_apply(sw, want, dry_run, changes, err, errlen));
}

static int sonic_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
			  size_t errlen)
{
	GUARDED(vlan_set(sw, port, vid, err, errlen));
}

static int sonic_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	GUARDED(vlan_clear(sw, port, err, errlen));
}

static int sonic_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
			  size_t errlen)
{
	GUARDED(vlan_get(sw, port, vid, err, errlen));
}

static int sonic_counters_read(struct lp_switch *sw, const struct lp_counter_sink *out,
			       char *err, size_t errlen)
{
	GUARDED(counters_read(sw, out, err, errlen));
}

extern const struct loom_plugin_v1 loom_plugin_v1;
const struct loom_plugin_v1 loom_plugin_v1 = {
	.abi = LOOM_PLUGIN_ABI,
	.size = sizeof(struct loom_plugin_v1),
	.name = "sonic",
	.version = PACKAGE_VERSION,
	.open = sonic_open,
	.close = sonic_close,
	.inventory = sonic_inventory,
	.lldp_neighbors = sonic_lldp,
	.qos_read = sonic_qos_read,
	.qos_apply = sonic_qos_apply,
	.vlan_set = sonic_vlan_set,
	.vlan_clear = sonic_vlan_clear,
	.health = sonic_health,
	.vlan_get = sonic_vlan_get,
	.qos_objects = sonic_qos_objects,
	.counters_read = sonic_counters_read,
};
