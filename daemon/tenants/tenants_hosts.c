/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_hosts.c: which ports a tenant's hosts have, and who
 * may say so (tenants.host_identity, the trust model of loom.yaml(5)).
 *
 * A node description and an LLDP system name are set by root on each host:
 * they are what a host says of itself, never its identity.
 *   - map (the default): a host's ports are exactly what tenants.host_map
 *     gives it, read at each change (an edit needs no reload):
 *         # HOST  PORT_GUID            (an HCA port)
 *         node001 0x0002c90300a1b2c3
 *         # HOST  SWITCH  PORT         (a port of a switch of loom.yaml)
 *         node001 leaf1   Ethernet0
 *     A host the map does not name is unknown.
 *   - description (permissive, warned at start): a host the map does not
 *     name has the CA ports whose node description matches
 *     tenants.host_pattern with its name in the first group ("node001
 *     mlx5_0", "node001 mlx5_1": both rails; lib/fabric/hostmap.h's rule,
 *     which Slurm's topology.conf uses too) and the switch ports whose LLDP
 *     neighbour is it (its system name up to the first dot). When CAs of
 *     two systems (two system image GUIDs: two chassis) claim one host,
 *     neither is taken: the change is refused naming both.
 * Either way a port whose description or LLDP name claims a host of the
 * change without the rule giving it to that host is not a member, and is
 * named in a host_claim event and the log: never a silent member, and no
 * refusal an impostor could use to keep a job from starting. */
#include "autoconf.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/hostmap.h"
#include "lib/fabric/ibtypes.h"
#include "lib/util/hostlist.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "daemon/core/ctl.h"
#include "daemon/tenants/store_tenants.h"

/* Append "name" to a ", "-separated list in buf (what fits). */
static void list_add(char *buf, size_t len, size_t *n, const char *name)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%s", (*n)++ ? ", " : "", name);
	else
		(*n)++;
}

/* tenants.host_map as {"host": {"ib": [guid], "eth": [{"switch", "port"}]}}.
 * NULL with err naming the file and line. */
static json_t *map_load(const struct tenants_settings *c, char *err, size_t errlen)
{
	struct hostmap_line *l;
	json_t *map;
	size_t n;

	if (hostmap_read(c->t.hosts.map, &l, &n, err, errlen) < 0)
		return NULL;
	map = json_object();
	for (size_t i = 0; i < n; i++) {
		json_t *h;

		if (l[i].kind == HOSTMAP_ETH && !tenants_eth_switch_conf(c, l[i].sw)) {
			err_at(err, errlen, 0, c->t.hosts.map, l[i].line,
			       "no switch of that name in loom.yaml's switches");
			json_decref(map);
			free(l);
			return NULL;
		}
		if (!(h = json_object_get(map, l[i].host))) {
			h = json_pack("{s:[], s:[]}", "ib", "eth");
			json_object_set_new(map, l[i].host, h);
		}
		if (l[i].kind == HOSTMAP_IB) {
			char g[20];

			json_array_append_new(json_object_get(h, "ib"),
					      json_string(ibt_guid_str(l[i].guid, g, sizeof(g))));
		} else {
			json_array_append_new(json_object_get(h, "eth"),
					      json_pack("{s:s, s:s}", "switch", l[i].sw, "port",
							l[i].port));
		}
	}
	free(l);
	return map;
}

/* What the fabric's CA ports give each host under tenants.host_identity
 * (lib/fabric/hostmap.h), and what their descriptions claim besides:
 *   ports:   {"host": ["0x...", ...]}, the rule's ports of each host;
 *   claims:  {"host": [{"guid", "desc", "node"}]}, ports whose description
 *            names the host but that the rule does not give it;
 *   systems: {"host": {"SYSIMG": {"guid", "desc"}}}, per host the systems
 *            (chassis) that its description-given ports come from: more than
 *            one is two CAs claiming one host. */
struct ib_view {
	json_t *ports, *claims, *systems;
};

static void ib_view_clear(struct ib_view *v)
{
	json_decref(v->ports);
	json_decref(v->claims);
	json_decref(v->systems);
	memset(v, 0, sizeof(*v));
}

static void json_push(json_t *obj, const char *key, json_t *item)
{
	json_t *a = json_object_get(obj, key);

	if (!a)
		json_object_set_new(obj, key, a = json_array());
	json_array_append_new(a, item);
}

/* One CA port x of the store into v. */
static void ib_view_add(struct ib_view *v, const struct hostmap *hm, int identity,
			const json_t *x)
{
	const char *desc = json_string_value(json_object_get(x, "desc"));
	const char *guid = json_string_value(json_object_get(x, "guid"));
	char host[LOOM_NAME_LEN], claim[LOOM_NAME_LEN];
	uint64_t g = 0;
	int how;

	if (!desc || !guid || ibt_guid_parse(guid, &g))
		return;
	how = hostmap_host_as(hm, identity, g, desc, host, sizeof(host), claim, sizeof(claim));
	if (how)
		json_push(v->ports, host, json_string(guid));
	if (how == 1) {
		const char *sys = json_string_value(json_object_get(x, "sysimg"));
		json_t *h = json_object_get(v->systems, host);

		if (!h)
			json_object_set_new(v->systems, host, h = json_object());
		if (sys && !json_object_get(h, sys))
			json_object_set_new(h, sys, json_pack("{s:s, s:s}", "guid", guid, "desc",
							      desc));
	}
	if (claim[0] && (!how || strcmp(claim, host)))
		json_push(v->claims, claim, json_pack("{s:s, s:s, s:O}", "guid", guid, "desc", desc,
						      "node", json_object_get(x, "node")));
}

static int ib_view_load(struct tenants_mod *m, struct ib_view *v, char *err, size_t errlen)
{
	struct hostmap hm;
	json_t *list = NULL, *x;
	size_t i;
	int rc;

	memset(v, 0, sizeof(*v));
	/* The pattern was checked when the configuration was loaded; the
	 * map's ports are map_load's (read again at each change). */
	if ((rc = hostmap_load(&hm, m->conf->t.hosts.pattern, m->conf->t.hosts.map,
			       err, errlen)) < 0)
		return rc;
	if (store_tenant_ca_ports(m->store, &list) < 0) {
		hostmap_clear(&hm);
		snprintf(err, errlen, "cannot read the hosts from the database");
		return -EIO;
	}
	v->ports = json_object();
	v->claims = json_object();
	v->systems = json_object();
	json_array_foreach(list, i, x)
		ib_view_add(v, &hm, m->conf->t.hosts.identity, x);
	hostmap_clear(&hm);
	json_decref(list);
	return 0;
}

/* Two systems' CAs both name `host` by their descriptions: which one is the
 * host cannot be told, so neither is ("" when one system or none). */
static void ib_conflict(const struct ib_view *v, const char *host, char *buf, size_t len)
{
	json_t *sys = json_object_get(v->systems, host), *a = NULL, *b = NULL, *x;
	const char *ka = NULL, *kb = NULL, *k;

	buf[0] = '\0';
	if (json_object_size(sys) < 2)
		return;
	json_object_foreach(sys, k, x) {
		if (!a) {
			a = x;
			ka = k;
		} else if (!b) {
			b = x;
			kb = k;
		}
	}
	snprintf(buf, len, "%s is claimed by the CAs of %zu systems: port %s \"%s\" (system %s) "
		 "and port %s \"%s\" (system %s)", host, json_object_size(sys),
		 json_string_value(json_object_get(a, "guid")),
		 json_string_value(json_object_get(a, "desc")), ka,
		 json_string_value(json_object_get(b, "guid")),
		 json_string_value(json_object_get(b, "desc")), kb);
}

/* The ports whose descriptions (or LLDP names) claim `host` but that the
 * rule did not give it, into buf ("" when none). */
static void ib_claims(const struct ib_view *v, const char *host, const json_t *eth_claims,
		      char *buf, size_t len, size_t *n)
{
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(v->claims, host), i, x) {
		char what[256];

		snprintf(what, sizeof(what), "port %s (\"%s\", node %s) names itself %s",
			 json_string_value(json_object_get(x, "guid")),
			 json_string_value(json_object_get(x, "desc")),
			 json_string_value(json_object_get(x, "node")), host);
		list_add(buf, len, n, what);
	}
	json_array_foreach(eth_claims, i, x) {
		char what[256];

		if (strcmp(json_string_value(json_object_get(x, "host")), host))
			continue;
		snprintf(what, sizeof(what), "%s %s's LLDP neighbour names itself %s",
			 json_string_value(json_object_get(x, "switch")),
			 json_string_value(json_object_get(x, "port")), host);
		list_add(buf, len, n, what);
	}
}

/* The LLDP neighbours of ethlist that name a host on a switch port the rule
 * does not give it: a host of `map` on a port the map does not list, or,
 * with only_map, any host the map does not name (an LLDP name never gives
 * a port then): [{"host", "switch", "port"}]. */
static json_t *eth_claims_of(const json_t *map, const json_t *ethlist, int only_map)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach(ethlist, i, v) {
		const char *host = json_string_value(json_object_get(v, "host"));
		json_t *mapped = map ? json_object_get(map, host) : NULL, *e;
		int given = 0;
		size_t k;

		if (!mapped) {
			if (only_map)
				json_array_append(out, v);
			continue;
		}
		json_array_foreach(json_object_get(mapped, "eth"), k, e)
			given |= json_equal(json_object_get(e, "switch"), json_object_get(v, "switch")) &&
				 json_equal(json_object_get(e, "port"), json_object_get(v, "port"));
		if (!given)
			json_array_append(out, v);
	}
	return out;
}

/* One host's ports into ib and eth under the identity rule: 0, or -EINVAL
 * with why in conflict (two systems claim it: neither is taken). */
static int host_ports(struct tenants_mod *m, const struct ib_view *v, const json_t *map,
		      const json_t *ethlist, const char *host, json_t *ib, json_t *eth,
		      char *conflict, size_t len)
{
	json_t *mapped = map ? json_object_get(map, host) : NULL, *g, *x;
	int by_desc = m->conf->t.hosts.identity == HOSTMAP_ID_DESCRIPTION;
	size_t i;

	if (!mapped && !by_desc)
		return 0;
	if (!mapped && (ib_conflict(v, host, conflict, len), conflict[0]))
		return -EINVAL;
	g = mapped ? json_object_get(mapped, "ib") : json_object_get(v->ports, host);
	json_array_foreach(g, i, x)
		json_array_append_new(ib, json_pack("{s:s, s:O}", "host", host, "guid", x));
	json_array_foreach(mapped ? json_object_get(mapped, "eth") : ethlist, i, x)
		if (mapped || !strcmp(json_string_value(json_object_get(x, "host")), host))
			json_array_append_new(eth, json_pack("{s:s, s:O, s:O}", "host", host,
							     "switch", json_object_get(x, "switch"),
							     "port", json_object_get(x, "port")));
	return 0;
}

/* The error for hosts the rule gives no port. */
static void unknown_err(const struct tenants_mod *m, int mapped, size_t n, const char *names,
			char *err, size_t errlen)
{
	const char *s = n == 1 ? "" : "s";

	if (m->conf->t.hosts.identity == HOSTMAP_ID_DESCRIPTION)
		snprintf(err, errlen, "%zu unknown host%s (no HCA port with that node description "
			 "in the swept fabric, no switch port with it as LLDP neighbour%s): %s",
			 n, s, mapped ? ", not in tenants.host_map" : "", names);
	else if (!m->conf->t.hosts.map[0])
		snprintf(err, errlen, "%zu unknown host%s: tenants.host_identity is map and "
			 "tenants.host_map is not set (`loomctl tenant hosts --map` prints the "
			 "fabric's hosts as their descriptions name them, to check and keep as "
			 "the map): %s", n, s, names);
	else
		snprintf(err, errlen, "%zu unknown host%s (not in tenants.host_map %s; "
			 "tenants.host_identity is map: descriptions and LLDP names do not name "
			 "hosts): %s", n, s, m->conf->t.hosts.map, names);
}
/* Ports that another tenant holds, or that a change under way may give
 * back to its tenant, among eth (an access port has one VLAN), into taken. */
static void eth_taken(struct tenants_mod *m, const char *tenant, const json_t *eth,
		      const json_t *ethlist, char *taken, size_t len, size_t *n)
{
	json_t *busy = json_object(), *x;
	size_t i;

	tenants_inflight(m, NULL, NULL, busy);
	json_array_foreach(eth, i, x) {
		const char *sw = json_string_value(json_object_get(x, "switch"));
		const char *port = json_string_value(json_object_get(x, "port"));
		const char *host = json_string_value(json_object_get(x, "host"));
		const char *owner;
		char key[2 * LP_NAME_LEN + 2], what[256];
		json_t *v;
		size_t k;

		snprintf(key, sizeof(key), "%s %s", sw, port);
		owner = json_string_value(json_object_get(busy, key));
		if (owner && strcmp(owner, tenant)) {
			snprintf(what, sizeof(what), "%s %s (%s) is tenant %s's until its change "
				 "under way ends", sw, port, host, owner);
			list_add(taken, len, n, what);
			continue;
		}
		json_array_foreach(ethlist, k, v) {
			const char *holder = json_string_value(json_object_get(v, "tenant"));

			if (!holder || !strcmp(holder, tenant) ||
			    strcmp(json_string_value(json_object_get(v, "switch")), sw) ||
			    strcmp(json_string_value(json_object_get(v, "port")), port))
				continue;
			snprintf(what, sizeof(what), "%s %s (%s) is tenant %s's", sw, port, host,
				 holder);
			list_add(taken, len, n, what);
		}
	}
	json_decref(busy);
}

struct resolve {
	struct hostlist hl;
	json_t *map, *ethlist, *eth_claims;
	struct ib_view v;
};

static void resolve_clear(struct resolve *r)
{
	hostlist_clear(&r->hl);
	json_decref(r->map);
	json_decref(r->ethlist);
	json_decref(r->eth_claims);
	ib_view_clear(&r->v);
}

static int resolve_load(struct tenants_mod *m, const char *list, struct resolve *r, char *err,
			size_t errlen)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (hostlist_expand(list, &r->hl, err, errlen) < 0)
		return -EINVAL;
	if (m->conf->t.hosts.map[0] && !(r->map = map_load(m->conf, err, errlen)))
		return -EINVAL;
	if ((rc = ib_view_load(m, &r->v, err, errlen)) < 0)
		return rc;
	if (store_tenant_eth_host_ports(m->store, &r->ethlist) < 0) {
		snprintf(err, errlen, "cannot read the hosts' switch ports from the database");
		return -EIO;
	}
	r->eth_claims = eth_claims_of(r->map, r->ethlist,
				      m->conf->t.hosts.identity == HOSTMAP_ID_MAP);
	return 0;
}

int tenants_hosts_resolve(struct tenants_mod *m, const char *tenant, const char *list,
			  json_t **ib, json_t **eth, char *err, size_t errlen)
{
	char unknown[512] = "", taken[512] = "", claims[1024] = "", conflict[512] = "";
	size_t n_unknown = 0, n_taken = 0, n_claims = 0;
	struct resolve r;
	int rc;

	*ib = *eth = NULL;
	if ((rc = resolve_load(m, list, &r, err, errlen)) < 0) {
		resolve_clear(&r);
		return rc;
	}
	*ib = json_array();
	*eth = json_array();
	for (size_t h = 0; h < r.hl.n && !conflict[0]; h++) {
		const char *host = r.hl.names[h];
		size_t before = json_array_size(*ib) + json_array_size(*eth);

		if (host_ports(m, &r.v, r.map, r.ethlist, host, *ib, *eth, conflict,
			       sizeof(conflict)) < 0)
			break;
		if (json_array_size(*ib) + json_array_size(*eth) == before)
			list_add(unknown, sizeof(unknown), &n_unknown, host);
		else
			ib_claims(&r.v, host, r.eth_claims, claims, sizeof(claims), &n_claims);
	}
	/* What a host says of itself is never a silent member (loom.yaml(5)). */
	if (n_claims) {
		char what[1200];

		snprintf(what, sizeof(what), "%zu port%s not %s member%s (tenants.host_identity %s): "
			 "%s", n_claims, n_claims == 1 ? "" : "s", n_claims == 1 ? "a" : "",
			 n_claims == 1 ? "" : "s",
			 hostmap_identity_name(m->conf->t.hosts.identity), claims);
		log_warn("tenant %s: %s", tenant, what);
		tenants_event(m, "warning", "host_claim", tenant, what);
	}
	if (conflict[0]) {
		log_warn("tenant %s: %s: refused", tenant, conflict);
		tenants_event(m, "warning", "host_claim", tenant, conflict);
	} else {
		eth_taken(m, tenant, *eth, r.ethlist, taken, sizeof(taken), &n_taken);
	}
	if (conflict[0])
		snprintf(err, errlen, "%s: neither is taken (tenants.host_identity is "
			 "description; give the host its ports in tenants.host_map)", conflict);
	else if (n_unknown)
		unknown_err(m, r.map != NULL, n_unknown, unknown, err, errlen);
	else if (n_taken)
		snprintf(err, errlen, "%zu switch port%s already in another tenant's VLAN: %s",
			 n_taken, n_taken == 1 ? "" : "s", taken);
	resolve_clear(&r);
	if (!conflict[0] && !n_unknown && !n_taken)
		return 0;
	json_decref(*ib);
	json_decref(*eth);
	*ib = *eth = NULL;
	return -EINVAL;
}

/* ---- tenant-hosts: what names each port, to check or bootstrap the map --------- */

/* {claim: {sysimg: true}}: the systems whose CAs' descriptions name each host. */
static json_t *claim_systems(const struct hostmap *hm, const json_t *list)
{
	json_t *out = json_object(), *x;
	size_t i;

	json_array_foreach(list, i, x) {
		const char *desc = json_string_value(json_object_get(x, "desc"));
		const char *sys = json_string_value(json_object_get(x, "sysimg"));
		char claim[LOOM_NAME_LEN];
		json_t *h;

		if (!desc || !sys || !hostmap_desc_host(&hm->re, desc, claim, sizeof(claim)))
			continue;
		if (!(h = json_object_get(out, claim)))
			json_object_set_new(out, claim, h = json_object());
		json_object_set_new(h, sys, json_true());
	}
	return out;
}

/* Each CA port: {"guid", "desc", "node", "sysimg", "host" (the rule's, or
 * null), "claim" (its description's, or null), "conflict" (the claim is
 * two systems')}. */
static json_t *hosts_ib(struct tenants_mod *m, const struct hostmap *hm, const json_t *list)
{
	json_t *sys = claim_systems(hm, list), *out = json_array(), *x;
	size_t i;

	json_array_foreach(list, i, x) {
		const char *desc = json_string_value(json_object_get(x, "desc"));
		char host[LOOM_NAME_LEN], claim[LOOM_NAME_LEN];
		uint64_t g = 0;
		json_t *r;

		if (!desc || ibt_guid_parse(json_string_value(json_object_get(x, "guid")), &g))
			continue;
		r = json_deep_copy(x);
		json_object_set_new(r, "host", hostmap_host_as(hm, m->conf->t.hosts.identity, g,
							       desc, host, sizeof(host), claim,
							       sizeof(claim)) ?
					       json_string(host) : json_null());
		json_object_set_new(r, "claim", claim[0] ? json_string(claim) : json_null());
		json_object_set_new(r, "conflict",
				    json_boolean(claim[0] &&
						 json_object_size(json_object_get(sys, claim)) > 1));
		json_array_append_new(out, r);
	}
	json_decref(sys);
	return out;
}

/* Each host-facing switch port: {"switch", "port", "lldp" (its neighbour's
 * name), "host" (the rule's, or null)}. */
static json_t *hosts_eth(struct tenants_mod *m, const json_t *map, const json_t *ethlist)
{
	int by_lldp = m->conf->t.hosts.identity == HOSTMAP_ID_DESCRIPTION;
	json_t *out = json_array(), *x;
	size_t i;

	json_array_foreach(ethlist, i, x) {
		const char *lldp = json_string_value(json_object_get(x, "host"));
		const char *host = NULL, *h;
		json_t *ports;

		json_object_foreach((json_t *)map, h, ports) {
			json_t *e;
			size_t k;

			json_array_foreach(json_object_get(ports, "eth"), k, e)
				if (json_equal(json_object_get(e, "switch"), json_object_get(x, "switch")) &&
				    json_equal(json_object_get(e, "port"), json_object_get(x, "port")))
					host = h;
		}
		if (!host && by_lldp && !(map && json_object_get(map, lldp)))
			host = lldp;
		json_array_append_new(out, json_pack("{s:O, s:O, s:s, s:o}", "switch",
						     json_object_get(x, "switch"), "port",
						     json_object_get(x, "port"), "lldp", lldp,
						     host ? json_string(host) : json_null()));
	}
	return out;
}

static void cmd_hosts(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	json_t *map = NULL, *list = NULL, *ethlist = NULL;
	struct hostmap hm;
	char err[512];

	(void)args;
	/* the pattern and the map's ports (hostmap_load takes "" for no map) */
	if (hostmap_load(&hm, m->conf->t.hosts.pattern, m->conf->t.hosts.map, err,
			 sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "%s", err);
		return;
	}
	if (m->conf->t.hosts.map[0] && !(map = map_load(m->conf, err, sizeof(err)))) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "%s", err);
	} else if (store_tenant_ca_ports(m->store, &list) < 0 ||
		   store_tenant_eth_host_ports(m->store, &ethlist) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "cannot read the hosts from the database");
	} else {
		ctl_reply_ok(req, json_pack("{s:s, s:s, s:s, s:o, s:o}", "identity",
					    hostmap_identity_name(m->conf->t.hosts.identity),
					    "host_map", m->conf->t.hosts.map, "host_pattern",
					    m->conf->t.hosts.pattern, "ib", hosts_ib(m, &hm, list),
					    "eth", hosts_eth(m, map, ethlist)));
	}
	hostmap_clear(&hm);
	json_decref(map);
	json_decref(list);
	json_decref(ethlist);
}

int tenants_hosts_register(struct tenants_mod *m, struct ctl *ctl)
{
	return ctl_handle(ctl, "tenant-hosts", cmd_hosts, m);
}
