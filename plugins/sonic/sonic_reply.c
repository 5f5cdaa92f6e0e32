/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_reply.c: the Redis replies of inventory and LLDP
 * decoded into loom's structures (no I/O; sonic.c reads the keys, in the
 * order and databases listed there, and calls these). The QoS read-back is
 * sonic_qos.c's sn_qos_decode. Hashes reach these through sn_hgetall,
 * which refuses a reply that is not one (sn_hash_reply). */
#include "sonic.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nonempty(const redisReply *r)
{
	return r && r->type == REDIS_REPLY_ARRAY && r->elements > 0;
}

int sn_inventory_parse(const redisReply *md, struct lp_inventory *inv, char *err,
		       size_t errlen)
{
	memset(inv, 0, sizeof(*inv));
	if (!nonempty(md)) {
		snprintf(err, errlen, "CONFIG_DB (db %d) has no DEVICE_METADATA|localhost: not a "
			 "SONiC switch's Redis?", SN_CONFIG_DB);
		return -ENOENT;
	}
	lp_copy_str(inv->hostname, sizeof(inv->hostname), sn_hget(md, "hostname"));
	lp_copy_str(inv->model, sizeof(inv->model), sn_hget(md, "hwsku"));
	lp_copy_str(inv->mac, sizeof(inv->mac), sn_hget(md, "mac"));
	return 0;
}

int sn_os_version_parse(const redisReply *r, int kube, char *out, size_t outlen, char *err,
			size_t errlen)
{
	static const char tag[] = "SONiC Software Version: ";
	const char *s;

	out[0] = '\0';
	if (r->type == REDIS_REPLY_NIL)
		return 0;
	if (r->type != REDIS_REPLY_STRING) {
		snprintf(err, errlen, "HGET %s: not a string", kube ? "KUBE_LABELS|SET sonic_version"
			 : "LLDP_LOC_CHASSIS lldp_loc_sys_desc");
		return -EPROTO;
	}
	if (kube) {
		if (r->len)
			snprintf(out, outlen, "%s%s", strncmp(r->str, "SONiC.", 6) ? "SONiC." : "",
				 r->str);
	} else if ((s = strstr(r->str, tag))) {
		const char *end = strstr(s, " - ");

		s += sizeof(tag) - 1;
		snprintf(out, outlen, "%.*s", (int)(end ? (size_t)(end - s) : strlen(s)), s);
	}
	return 0;
}

uint32_t sn_parse_u32(const char *s)
{
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || v > UINT32_MAX || *s == '-' ? 0 : (uint32_t)v;
}

int sn_port_parse(const char *name, const redisReply *cfg, const redisReply *oper,
		  struct lp_port *p)
{
	const char *role = sn_hget(cfg, "role"), *s;

	memset(p, 0, sizeof(*p));
	if (!nonempty(cfg) || (role && strcmp(role, "Ext")))
		return 0;       /* gone since the SCAN, or internal */
	lp_copy_str(p->name, sizeof(p->name), name);
	lp_copy_str(p->alias, sizeof(p->alias), sn_hget(cfg, "alias"));
	p->speed_mbps = sn_parse_u32(sn_hget(cfg, "speed"));
	p->mtu = sn_parse_u32(sn_hget(cfg, "mtu"));
	p->admin_up = (s = sn_hget(cfg, "admin_status")) && !strcmp(s, "up");
	p->oper_up = (s = sn_hget(oper, "oper_status")) && !strcmp(s, "up");
	return 1;
}

int sn_neighbor_parse(const char *port, const redisReply *r, struct lp_neighbor *n)
{
	memset(n, 0, sizeof(*n));
	if (!nonempty(r))
		return 0;
	lp_copy_str(n->local_port, sizeof(n->local_port), port);
	lp_copy_str(n->chassis_id, sizeof(n->chassis_id), sn_hget(r, "lldp_rem_chassis_id"));
	lp_copy_str(n->sys_name, sizeof(n->sys_name), sn_hget(r, "lldp_rem_sys_name"));
	lp_copy_str(n->port_id, sizeof(n->port_id), sn_hget(r, "lldp_rem_port_id"));
	lp_copy_str(n->port_desc, sizeof(n->port_desc), sn_hget(r, "lldp_rem_port_desc"));
	return 1;
}
