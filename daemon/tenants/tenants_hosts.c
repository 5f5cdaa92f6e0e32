/* daemon/tenants/tenants_hosts.c: which ports a tenant's hosts have.
 *
 * A host's HCA ports are the CA ports of the stored IB fabric whose node
 * description matches tenants.host_pattern with the host's name in the
 * pattern's first group ("node001 mlx5_0", "node001 mlx5_1": both rails of
 * node001; the rule and the map file's reader are lib/fabric/hostmap.h's,
 * which Slurm's topology.conf uses too). Its switch ports are the ports of loom's Ethernet switches
 * whose LLDP neighbour is the host (its system name, up to the first dot).
 * A host named in tenants.host_map takes exactly the ports the map gives
 * it instead; the map is read at each change, so an edit needs no reload:
 *
 *     # HOST  PORT_GUID            (an HCA port)
 *     node001 0x0002c90300a1b2c3
 *     # HOST  SWITCH  PORT         (a port of a switch of loom.yaml)
 *     node001 leaf1   Ethernet0
 */
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
#include "daemon/tenants/store_tenants.h"
#include "daemon/roce/switch_open.h"

/* Append "name" to a ", "-separated list in buf (what fits). */
static void list_add(char *buf, size_t len, size_t *n, const char *name)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%s", (*n)++ ? ", " : "", name);
	else
		(*n)++;
}

static const struct loom_switch_conf *switch_conf(const struct loom_config *c,
						  const char *name)
{
	for (int i = 0; i < c->n_switches; i++)
		if (!strcmp(c->switches[i].name, name))
			return &c->switches[i];
	return NULL;
}

/* tenants.host_map as {"host": {"ib": [guid], "eth": [{"switch", "port"}]}}.
 * NULL with err naming the file and line. */
static json_t *map_load(const struct loom_config *c, char *err, size_t errlen)
{
	struct hostmap_line *l;
	json_t *map;
	size_t n;

	if (hostmap_read(c->tenant_host_map, &l, &n, err, errlen) < 0)
		return NULL;
	map = json_object();
	for (size_t i = 0; i < n; i++) {
		json_t *h;

		if (l[i].kind == HOSTMAP_ETH && !switch_conf(c, l[i].sw)) {
			snprintf(err, errlen, "%s:%lu: no switch of that name in loom.yaml's switches",
				 c->tenant_host_map, l[i].line);
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

/* The fabric's HCA ports by host (the pattern's first group):
 * {"host": ["0x...", ...]}. */
static int ib_hosts(struct tenants_mod *m, json_t **out, char *err, size_t errlen)
{
	json_t *list = NULL, *x;
	regex_t re;
	size_t i;

	/* Checked when the configuration was loaded. */
	if (regcomp(&re, m->conf->tenant_host_pattern, REG_EXTENDED)) {
		snprintf(err, errlen, "tenants.host_pattern: not a regular expression");
		return -EINVAL;
	}
	if (store_tenant_ca_ports(m->store, &list) < 0) {
		regfree(&re);
		snprintf(err, errlen, "cannot read the hosts from the database");
		return -EIO;
	}
	*out = json_object();
	json_array_foreach(list, i, x) {
		const char *desc = json_string_value(json_object_get(x, "desc"));
		char host[LOOM_NAME_LEN];
		json_t *a;

		if (!hostmap_desc_host(&re, desc, host, sizeof(host)))
			continue;
		if (!(a = json_object_get(*out, host)))
			json_object_set_new(*out, host, a = json_array());
		json_array_append(a, json_object_get(x, "guid"));
	}
	regfree(&re);
	json_decref(list);
	return 0;
}

int tenants_hosts_resolve(struct tenants_mod *m, const char *tenant, const char *list,
			  json_t **ib, json_t **eth, char *err, size_t errlen)
{
	struct hostlist hl;
	json_t *ibmap = NULL, *ethlist = NULL, *map = NULL, *busy = NULL, *x;
	char unknown[512] = "", taken[512] = "";
	size_t n_unknown = 0, n_taken = 0, i;
	int rc;

	*ib = *eth = NULL;
	if (hostlist_expand(list, &hl, err, errlen) < 0)
		return -EINVAL;
	if (m->conf->tenant_host_map[0] && !(map = map_load(m->conf, err, errlen))) {
		hostlist_clear(&hl);
		return -EINVAL;
	}
	if ((rc = ib_hosts(m, &ibmap, err, errlen)) < 0 ||
	    store_tenant_eth_host_ports(m->store, &ethlist) < 0) {
		if (!rc)
			snprintf(err, errlen, "cannot read the hosts' switch ports from the database");
		hostlist_clear(&hl);
		json_decref(map);
		json_decref(ibmap);
		return rc ? rc : -EIO;
	}
	*ib = json_array();
	*eth = json_array();
	for (size_t h = 0; h < hl.n; h++) {
		const char *host = hl.names[h];
		json_t *mapped = map ? json_object_get(map, host) : NULL, *g, *v;
		size_t before = json_array_size(*ib) + json_array_size(*eth);

		g = mapped ? json_object_get(mapped, "ib") : json_object_get(ibmap, host);
		json_array_foreach(g, i, v)
			json_array_append_new(*ib, json_pack("{s:s, s:O}", "host", host, "guid", v));
		if (mapped) {
			json_array_foreach(json_object_get(mapped, "eth"), i, v)
				json_array_append_new(*eth, json_pack("{s:s, s:O, s:O}", "host", host,
								      "switch",
								      json_object_get(v, "switch"),
								      "port",
								      json_object_get(v, "port")));
		} else {
			json_array_foreach(ethlist, i, v)
				if (!strcmp(json_string_value(json_object_get(v, "host")), host))
					json_array_append_new(*eth, json_pack(
						"{s:s, s:O, s:O}", "host", host, "switch",
						json_object_get(v, "switch"), "port",
						json_object_get(v, "port")));
		}
		if (json_array_size(*ib) + json_array_size(*eth) == before)
			list_add(unknown, sizeof(unknown), &n_unknown, host);
	}
	/* An access port has one VLAN: another tenant's port cannot join, nor
	 * one a change still under way may give back to its tenant. */
	busy = json_object();
	tenants_inflight(m, NULL, NULL, busy);
	json_array_foreach(*eth, i, x) {
		const char *sw = json_string_value(json_object_get(x, "switch"));
		const char *port = json_string_value(json_object_get(x, "port"));
		const char *owner;
		char key[2 * LP_NAME_LEN + 2];
		json_t *v;
		size_t k;

		snprintf(key, sizeof(key), "%s %s", sw, port);
		owner = json_string_value(json_object_get(busy, key));
		if (owner && strcmp(owner, tenant)) {
			char what[256];

			snprintf(what, sizeof(what), "%s %s (%s) is tenant %s's until its change "
				 "under way ends", sw, port,
				 json_string_value(json_object_get(x, "host")), owner);
			list_add(taken, sizeof(taken), &n_taken, what);
			continue;
		}

		json_array_foreach(ethlist, k, v) {
			const char *holder = json_string_value(json_object_get(v, "tenant"));
			char what[256];

			if (!holder || !strcmp(holder, tenant) ||
			    strcmp(json_string_value(json_object_get(v, "switch")), sw) ||
			    strcmp(json_string_value(json_object_get(v, "port")), port))
				continue;
			snprintf(what, sizeof(what), "%s %s (%s) is tenant %s's", sw, port,
				 json_string_value(json_object_get(x, "host")), holder);
			list_add(taken, sizeof(taken), &n_taken, what);
		}
	}
	hostlist_clear(&hl);
	json_decref(busy);
	json_decref(map);
	json_decref(ibmap);
	json_decref(ethlist);
	if (!n_unknown && !n_taken)
		return 0;
	if (n_unknown)
		snprintf(err, errlen, "%zu unknown host%s (no HCA port with that node description "
			 "in the swept fabric, no switch port with it as LLDP neighbour%s): %s",
			 n_unknown, n_unknown == 1 ? "" : "s",
			 map ? ", not in tenants.host_map" : "", unknown);
	else
		snprintf(err, errlen, "%zu switch port%s already in another tenant's VLAN: %s",
			 n_taken, n_taken == 1 ? "" : "s", taken);
	json_decref(*ib);
	json_decref(*eth);
	*ib = *eth = NULL;
	return -EINVAL;
}

/* ---- the switches of one change ------------------------------------------------ */

static struct top_switch *eth_switch(struct tenants_mod *m, struct top *t, const char *name,
				     char *err, size_t errlen)
{
	const struct loom_switch_conf *sc;
	struct top_switch *s, *v;

	for (size_t i = 0; i < t->n_eth; i++)
		if (!strcmp(t->eth[i].sw.name, name))
			return &t->eth[i];
	if (!(sc = switch_conf(m->conf, name))) {
		snprintf(err, errlen, "switch %s is no longer in loom.yaml's switches", name);
		return NULL;
	}
	if (!(v = realloc(t->eth, (t->n_eth + 1) * sizeof(*v)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->eth = v;
	s = &t->eth[t->n_eth++];
	memset(s, 0, sizeof(*s));
	s->sw = *sc;
	s->ops = plugin_cache_get(m->plugins, m->conf->plugin_dir, sc->plugin, s->plugin_err,
				  sizeof(s->plugin_err));
	return s;
}

static int eth_port(struct top_switch *s, const char *port, int member)
{
	size_t i;

	for (i = 0; i < s->n_ports && strcmp(s->ports[i], port); i++)
		;
	if (i == s->n_ports) {
		void *p = realloc(s->ports, (i + 1) * sizeof(*s->ports));
		void *b;

		if (!p)
			return -ENOMEM;
		s->ports = p;
		if (!(b = realloc(s->member, i + 1)))
			return -ENOMEM;
		s->member = b;
		snprintf(s->ports[i], sizeof(s->ports[i]), "%s", port);
		s->member[i] = 0;
		s->n_ports++;
	}
	s->member[i] |= (uint8_t)member;
	return 0;
}

int tenants_hosts_eth_prepare(struct tenants_mod *m, struct top *t, const json_t *cur,
			      char *err, size_t errlen)
{
	const json_t *sets[] = { cur ? json_object_get(cur, "eth_ports") : NULL,
				 t->prev ? json_object_get(t->prev, "eth_ports") : NULL };
	json_t *all = NULL, *x;
	size_t i;
	int rc = 0;

	for (int k = 0; k < 2; k++)
		json_array_foreach(sets[k], i, x) {
			const char *sw = json_string_value(json_object_get(x, "switch"));
			const char *port = json_string_value(json_object_get(x, "port"));
			struct top_switch *s;

			/* A port the tenant leaves, on a switch taken out of
			 * loom.yaml: loom cannot reach it any more, and must
			 * not keep the tenant from being changed or deleted. */
			if (k == 1 && !switch_conf(m->conf, sw)) {
				log_warn("tenant %s: switch %s is no longer in loom.yaml: %s keeps "
					 "VLAN %u", t->name, sw, port, t->vlan);
				continue;
			}
			if (!(s = eth_switch(m, t, sw, err, errlen)))
				return -ENOENT;
			if (eth_port(s, port, k == 0) < 0) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
		}
	if (!t->n_eth)
		return 0;
	/* Every other host-facing port of those switches must not hold the VLAN. */
	if (store_tenant_eth_host_ports(m->store, &all) < 0) {
		snprintf(err, errlen, "cannot read the switches' ports from the database");
		return -EIO;
	}
	json_array_foreach(all, i, x) {
		const char *sw = json_string_value(json_object_get(x, "switch"));

		for (size_t k = 0; k < t->n_eth && rc == 0; k++)
			if (!strcmp(t->eth[k].sw.name, sw))
				rc = eth_port(&t->eth[k],
					      json_string_value(json_object_get(x, "port")), 0);
	}
	json_decref(all);
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}
