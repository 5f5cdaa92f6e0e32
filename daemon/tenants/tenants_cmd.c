/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_cmd.c: the tenant control commands (daemon/tenants/tenants.h),
 * the top of the module: tenants_register registers them and tenants_hosts.c's
 * tenant-hosts. A change checks its request, resolves the hosts, picks the
 * tenant's PKey (when it has HCA ports) and VLAN (when it has switch ports)
 * from their pools, writes the tenant to the store as "applying" (the step
 * "changed" of tenants_state.h) with an audit event, and queues the change
 * (tenants_enqueue); the answer comes once the fabric shows it.
 * Every command's arguments are declared (tenants_register: the keys
 * and their types, checked by ctl before a handler runs, so a "limited"
 * of "true", a "pkey" of "0x1234", 4660.0 or 70000, or an unknown key is
 * refused naming it); the handlers read them with the same checks. */
#include "autoconf.h"
#include "daemon/tenants/tenants.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/clock.h"
#include "daemon/core/ctl.h"
#include "daemon/core/file_atomic.h"
#include "lib/util/log.h"
#include "lib/fabric/partitions.h"
#include "lib/util/proto.h"
#include "lib/qos/ib_qos.h"
#include "daemon/tenants/store_tenants.h"

static int valid_name(const char *name)
{
	if (!name[0] || strlen(name) >= LOOM_NAME_LEN)
		return 0;
	for (const char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && !strchr("_.-", *c))
			return 0;
	return 1;
}

/* The lowest free key of the pool, or the asked one (1..0x7ffe) if free; 0
 * with err. */
static unsigned choose_pkey(struct tenants_mod *m, unsigned asked, char *err, size_t errlen)
{
	uint8_t used[4096], fixed[4096];
	char *text = NULL;

	if (store_tenant_pkeys(m->store, used) < 0) {
		snprintf(err, errlen, "cannot read the tenants' keys from the database");
		return 0;
	}
	tenants_inflight(m, used, NULL, NULL);
	memset(fixed, 0, sizeof(fixed));
	if (m->conf->t.tenant_static_partitions[0]) {
		if (!(text = file_read_text(m->conf->t.tenant_static_partitions, err, errlen)))
			return 0;
		part_static_pkeys(text, fixed);
		free(text);
	}
	for (size_t i = 0; i < sizeof(used); i++)
		used[i] |= fixed[i];
	used[0x7fff / 8] |= 0x80; /* the default partition */
	if (asked) {
		unsigned k = asked;

		if (k == 0 || k >= 0x7fff || (used[k / 8] >> (k % 8) & 1)) {
			snprintf(err, errlen, "PKey 0x%04x is %s", k, k == 0 || k == 0x7fff ?
				 "reserved" : "in use (another tenant or the operator's partitions)");
			return 0;
		}
		return k;
	}
	for (int k = m->conf->t.tenant_pkey_min; k <= m->conf->t.tenant_pkey_max; k++)
		if (!(used[k / 8] >> (k % 8) & 1))
			return (unsigned)k;
	snprintf(err, errlen, "the PKey pool 0x%04x..0x%04x is exhausted", m->conf->t.tenant_pkey_min,
		 m->conf->t.tenant_pkey_max);
	return 0;
}

/* An optional string argument (absent or null: NULL): 0, or -EINVAL when
 * the request was answered. */
static int arg_str(struct ctl_req *req, json_t *args, const char *key, const char **out)
{
	json_t *v = json_object_get(args, key);

	*out = json_string_value(v);
	if (v && !json_is_null(v) && !*out) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" must be a string", key);
		return -EINVAL;
	}
	return 0;
}

/* The "name" argument, checked; NULL when the request was answered. */
static const char *arg_name(struct ctl_req *req, json_t *args)
{
	const char *name;

	if (arg_str(req, args, "name", &name) < 0)
		return NULL;
	if (!name || !valid_name(name)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant name \"%s\": 1 to %d characters of "
			      "A-Z a-z 0-9 _ . -", name ? name : "", LOOM_NAME_LEN - 1);
		return NULL;
	}
	return name;
}

/* A port's key: an HCA port's GUID, or "SWITCH PORT". */
static const char *port_key(const json_t *p, char *buf, size_t len)
{
	const char *guid = json_string_value(json_object_get(p, "guid"));

	if (guid)
		return guid;
	snprintf(buf, len, "%s %s", json_string_value(json_object_get(p, "switch")),
		 json_string_value(json_object_get(p, "port")));
	return buf;
}

/* The keys of a tenant's ports, IB and Ethernet, as one object. */
static json_t *port_set(const json_t *ib, const json_t *eth)
{
	const json_t *lists[] = { ib, eth };
	json_t *set = json_object(), *p;
	char key[2 * LP_NAME_LEN + 2];
	size_t i;

	for (int k = 0; k < 2; k++)
		json_array_foreach(lists[k], i, p)
			json_object_set_new(set, port_key(p, key, sizeof(key)), json_true());
	return set;
}

static int same_ports(const json_t *ib, const json_t *eth, const json_t *tenant)
{
	json_t *a = port_set(ib, eth);
	json_t *b = port_set(json_object_get(tenant, "ports"), json_object_get(tenant, "eth_ports"));
	int same = json_equal(a, b);

	json_decref(a);
	json_decref(b);
	return same;
}

/* The lowest free VLAN of the pool; 0 with err. */
static unsigned choose_vlan(struct tenants_mod *m, char *err, size_t errlen)
{
	uint8_t used[4096 / 8];

	if (store_tenant_vlans(m->store, used) < 0) {
		snprintf(err, errlen, "cannot read the tenants' VLANs from the database");
		return 0;
	}
	tenants_inflight(m, NULL, used, NULL);
	for (int v = m->conf->t.tenant_vlan_min; v <= m->conf->t.tenant_vlan_max; v++)
		if (!(used[v / 8] >> (v % 8) & 1))
			return (unsigned)v;
	snprintf(err, errlen, "the VLAN pool %d..%d is exhausted", m->conf->t.tenant_vlan_min,
		 m->conf->t.tenant_vlan_max);
	return 0;
}

/* A tenant's PKey and VLAN: the ones it has, else new ones for the kinds
 * of port it now has. 0, or -EINVAL with err (pool exhausted, key in use). */
static int choose_ids(struct tenants_mod *m, const json_t *prev, unsigned asked, const json_t *ib,
		      const json_t *eth, struct store_tenant *out, char *err, size_t errlen)
{
	out->pkey = (unsigned)json_integer_value(json_object_get(prev, "pkey"));
	out->vlan = (unsigned)json_integer_value(json_object_get(prev, "vlan"));
	if (!out->pkey && json_array_size(ib) && !(out->pkey = choose_pkey(m, asked, err, errlen)))
		return -EINVAL;
	if (!out->vlan && json_array_size(eth) && !(out->vlan = choose_vlan(m, err, errlen)))
		return -EINVAL;
	return 0;
}

/* "PKey 0x1002 full, VLAN 2000" for logs and audit events. */
/* HA: the tenant as store_tenant_put writes it, JSON text for etcd (the
 * worker puts it there before touching the fabric); NULL without HA. */
static char *intent_text(const struct tenants_mod *m, const struct store_tenant *st,
			 const char *who, const json_t *prev)
{
	json_t *v, *before;
	char *s;

	if (!m->iw.put)
		return NULL;
	/* the record before the change (null: a create), for a new leader
	 * that must roll back a change the old one left "applying" */
	before = prev ? tenants_record(prev, m->iw.node,
				       tenants_state_parse(json_string_value(json_object_get(prev,
											      "state"))))
		      : json_null();
	v = json_pack("{s:s, s:s, s:i, s:i, s:b, s:s, s:O, s:O, s:s, s:s}", "name", st->name,
		      "by", who, "pkey", (int)st->pkey, "vlan", (int)st->vlan, "limited",
		      st->limited, "class", st->class_name ? st->class_name : "", "ports",
		      st->ports, "eth_ports", st->eth_ports, "state", st->state, "leader",
		      m->iw.node ? m->iw.node : "");
	if (v && before)
		json_object_set_new(v, "prev", before);
	else
		json_decref(before);
	s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(v);
	return s;
}

static void ids_text(const struct store_tenant *t, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (t->pkey)
		n = (size_t)snprintf(buf, len, "PKey 0x%04x %s", t->pkey,
				     t->limited ? "limited" : "full");
	if (t->vlan)
		snprintf(buf + n, len - n, "%sVLAN %u", n ? ", " : "", t->vlan);
}

static void cmd_create(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args), *hosts, *cls;
	json_int_t pkey = 0;
	unsigned asked;
	int limited;
	json_t *ib = NULL, *eth = NULL, *prev = NULL;
	char err[1024] = "", what[512], ids[64], who[96];
	struct store_tenant st;
	struct top *t;

	/* pkey: 0 (none asked, what loomctl sends without --pkey) or a key */
	if (!name || arg_str(req, args, "hosts", &hosts) < 0 ||
	    ctl_arg_count(req, args, "pkey", 0x7ffe, &pkey) < 0 ||
	    ctl_arg_bool(req, args, "limited", &limited) < 0 || arg_str(req, args, "class", &cls) < 0)
		return;
	asked = (unsigned)pkey;
	if (!hosts) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant create: hosts missing");
		return;
	}
	if (!cls)
		cls = "";
	if (*cls && ibqos_class_sl(&m->conf->ib_qos, cls) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: class \"%s\" is not in loom.yaml's "
			      "ib_qos.classes; nothing changed", name, cls);
		return;
	}
	if (tenants_hosts_resolve(m, name, hosts, &ib, &eth, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name, err);
		return;
	}
	if (store_tenant_get(m->store, name, &prev) == 0) {
		const char *mem = json_string_value(json_object_get(prev, "membership"));
		unsigned had = (unsigned)json_integer_value(json_object_get(prev, "pkey"));

		const char *had_cls = json_string_value(json_object_get(prev, "class"));

		if (!same_ports(ib, eth, prev) || (asked && asked != had) ||
		    strcmp(mem, limited ? "limited" : "full") || strcmp(cls, had_cls ? had_cls : "")) {
			ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s exists with other hosts, "
				      "key, membership or class; use tenant add-hosts / remove-hosts, "
				      "or delete it first", name);
		} else if ((t = tenants_top_new(m, req, TOP_VERIFY, name))) {
			/* Asked again as it is (a retried prolog): confirm it on the fabric. */
			tenants_enqueue(m, t);
		}
		goto out;
	}
	st = (struct store_tenant){ .name = name, .limited = limited, .class_name = cls,
				    .ports = ib, .eth_ports = eth,
				    .state = tenants_state_name(TENANT_APPLYING) };
	if (choose_ids(m, NULL, asked, ib, eth, &st, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name, err);
		goto out;
	}
	ids_text(&st, ids, sizeof(ids));
	snprintf(what, sizeof(what), "created: %s%s%s, hosts %s, %zu HCA ports, %zu switch ports",
		 ids, *cls ? ", class " : "", cls, hosts, json_array_size(ib), json_array_size(eth));
	tenants_req_who(req, who, sizeof(who));
	if (store_tenant_put(m->store, clock_wall(), &st, ctl_req_uid(req), who, "tenant_created",
			     what) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot write it to the database",
			      name);
		goto out;
	}
	log_notice("tenant %s: %s (%s)", name, what, who);
	if ((t = tenants_top_new(m, req, TOP_CREATE, name))) {
		t->intent = intent_text(m, &st, who, NULL);
		tenants_enqueue(m, t);
	}
out:
	json_decref(ib);
	json_decref(eth);
	json_decref(prev);
}

/* The ports of `a` that are not in drop_ib or drop_eth. */
static json_t *without(const json_t *a, const json_t *drop_ib, const json_t *drop_eth)
{
	json_t *drop = port_set(drop_ib, drop_eth), *out = json_array(), *p;
	char key[2 * LP_NAME_LEN + 2];
	size_t i;

	json_array_foreach(a, i, p)
		if (!json_object_get(drop, port_key(p, key, sizeof(key))))
			json_array_append(out, p);
	json_decref(drop);
	return out;
}

/* add-hosts and remove-hosts: the new member sets, then as create. */
static void change_hosts(struct ctl_req *req, json_t *args, struct tenants_mod *m, int add)
{
	const char *name = arg_name(req, args), *hosts;
	json_t *ib = NULL, *eth = NULL, *prev = NULL, *next_ib = NULL, *next_eth = NULL;
	char err[1024] = "", what[512], ids[64], who[96];
	struct store_tenant st;
	struct top *t;

	if (!name || arg_str(req, args, "hosts", &hosts) < 0)
		return;
	if (!hosts || tenants_hosts_resolve(m, name, hosts, &ib, &eth, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name,
			      hosts ? err : "hosts missing");
		return;
	}
	if (store_tenant_get(m->store, name, &prev) < 0) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no tenant %s", name);
		goto out;
	}
	next_ib = without(json_object_get(prev, "ports"), ib, eth);
	next_eth = without(json_object_get(prev, "eth_ports"), ib, eth);
	if (add) {
		json_array_extend(next_ib, ib);
		json_array_extend(next_eth, eth);
	}
	if (!json_array_size(next_ib) && !json_array_size(next_eth)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: that would leave it no hosts; "
			      "delete it instead", name);
		goto out;
	}
	if (same_ports(next_ib, next_eth, prev)) {
		if ((t = tenants_top_new(m, req, TOP_VERIFY, name)))
			tenants_enqueue(m, t);
		goto out;
	}
	st = (struct store_tenant){
		.name = name, .ports = next_ib, .eth_ports = next_eth,
		.limited = !strcmp(json_string_value(json_object_get(prev, "membership")), "limited"),
		.class_name = json_string_value(json_object_get(prev, "class")),
		.state = tenants_state_name(TENANT_APPLYING),
	};
	if (choose_ids(m, prev, 0, next_ib, next_eth, &st, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name, err);
		goto out;
	}
	ids_text(&st, ids, sizeof(ids));
	snprintf(what, sizeof(what), "%s hosts %s: %s, %zu HCA ports, %zu switch ports now",
		 add ? "added" : "removed", hosts, ids, json_array_size(next_ib),
		 json_array_size(next_eth));
	tenants_req_who(req, who, sizeof(who));
	if (store_tenant_put(m->store, clock_wall(), &st, ctl_req_uid(req), who, "tenant_changed",
			     what) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot write it to the database",
			      name);
		goto out;
	}
	log_notice("tenant %s: %s (%s)", name, what, who);
	if ((t = tenants_top_new(m, req, add ? TOP_ADD : TOP_REMOVE, name))) {
		t->intent = intent_text(m, &st, who, prev);
		t->prev = prev;
		prev = NULL;
		tenants_enqueue(m, t);
	}
out:
	json_decref(ib);
	json_decref(eth);
	json_decref(next_ib);
	json_decref(next_eth);
	json_decref(prev);
}

static void cmd_add(struct ctl_req *req, json_t *args, void *arg)
{
	change_hosts(req, args, arg, 1);
}

static void cmd_remove(struct ctl_req *req, json_t *args, void *arg)
{
	change_hosts(req, args, arg, 0);
}

static void cmd_delete(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *prev = NULL;
	struct top *t;
	char who[96];

	if (!name)
		return;
	if (store_tenant_get(m->store, name, &prev) == -ENOENT) {
		/* An epilog for a job that has no tenant (or a retried one). */
		ctl_reply_ok(req, json_pack("{s:s, s:s, s:s}", "name", name, "state",
					    tenants_state_name(TENANT_DELETED),
					    "note", "no such tenant: nothing to do"));
		return;
	}
	tenants_req_who(req, who, sizeof(who));
	if (store_tenant_delete(m->store, clock_wall(), name, who) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot delete it from the database",
			      name);
		json_decref(prev);
		return;
	}
	log_notice("tenant %s: deleted (%s)", name, who);
	/* The worker takes its key and VLAN off the ports it had. */
	if ((t = tenants_top_new(m, req, TOP_DELETE, name))) {
		t->prev = prev;
		tenants_enqueue(m, t);
	} else {
		json_decref(prev);
	}
}

static void cmd_verify(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *cur = NULL;
	struct top *t;

	if (!name)
		return;
	if (store_tenant_get(m->store, name, &cur) < 0) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no tenant %s", name);
		return;
	}
	json_decref(cur);
	/* Anyone may verify: a read, never a change, and one at a time. */
	if (tenants_verify_queued(m, name)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "tenant %s: a verify is queued already; try "
			      "again when it has answered", name);
		return;
	}
	if ((t = tenants_top_new(m, req, TOP_VERIFY, name))) {
		t->readonly = 1;
		tenants_enqueue(m, t);
	}
}

static void cmd_show(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *cur = NULL;
	int rc;

	if (!name)
		return;
	if ((rc = store_tenant_get(m->store, name, &cur)) < 0)
		ctl_reply_err(req, rc == -ENOENT ? PROTO_ERR_NOTFOUND : PROTO_ERR_FAILED,
			      rc == -ENOENT ? "no tenant %s" : "tenant %s: cannot read it", name);
	else
		ctl_reply_ok(req, cur);
}

static void cmd_list(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	json_t *list = NULL;

	(void)args;
	if (store_tenant_list(m->store, &list) < 0)
		ctl_reply_err(req, PROTO_ERR_FAILED, "cannot read the tenants");
	else
		ctl_reply_ok(req, list);
}

int tenants_register(struct tenants_mod *m, struct ctl *ctl)
{
	static const struct {
		const char *cmd;
		ctl_handler_fn fn;
	} cmds[] = {
		{ "tenant-create", cmd_create }, { "tenant-add-hosts", cmd_add },
		{ "tenant-remove-hosts", cmd_remove }, { "tenant-delete", cmd_delete },
		{ "tenant-verify", cmd_verify }, { "tenant-show", cmd_show }, { "tenant-list", cmd_list },
	};
	int rc;

	m->ctl = ctl;
	if ((rc = tenants_hosts_register(m, ctl)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if ((rc = ctl_handle(ctl, cmds[i].cmd, cmds[i].fn, m)) < 0)
			return rc;
	return 0;
}
