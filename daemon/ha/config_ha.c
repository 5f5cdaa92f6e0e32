/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/config_ha.c: loom.yaml's `ha:` section (issue 21): two or three
 * loomd, one leader elected through etcd (daemon/ha/ha.h).
 *
 *   ha:
 *     endpoints: [http://10.0.0.1:2379, http://10.0.0.2:2379, http://10.0.0.3:2379]
 *     name: mgmt1                # this node ("": the host name)
 *     advertise: https://mgmt1:9477  # where the others' clients reach this REST API
 *     cluster: loom              # the keys live under /loom/CLUSTER/
 *     ttl_s: 5                   # the leader's lease; kept alive every ttl_s/3
 *     timeout_ms: 1000           # one etcd request to one endpoint
 *     poll_ms: 500               # a follower reads the leader key this often
 *     follower_discovery_interval: 0  # s between a non-leader's sweeps (0: four
 *                                # times discovery.interval; off when that is)
 *     tls:                       # https:// endpoints
 *       ca: /etc/loom/etcd-ca.pem
 *       cert: /etc/loom/etcd-client.pem
 *       key: /etc/loom/etcd-client.key
 *     user: loom                 # etcd authentication (none by default)
 *     password_file: /etc/loom/etcd-password   # its first line; owner-only
 *
 * No endpoints (the default) is loomd on one node, exactly as before. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/core/config_parse.h"
#include "daemon/ha/config_ha.h"
#include "lib/etcd/etcd.h"

#define CFG_SECTION_TYPE struct ha_conf

static int parse_endpoints(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct ha_conf *c = sec;
	char *dst = c->ha_endpoints;
	size_t off = 0;
	int rc, n = 0;

	dst[0] = '\0';
	if (cfg_is_null(v))
		return 0;
	if (v->type == YAML_SCALAR_NODE) {  /* "URL" or "URL,URL" */
		if (strlen(cfg_scalar(v)) >= LOOM_HA_ENDPOINTS_LEN)
			return cfg_fail(p, cfg_line(v), key, "longer than %d bytes",
					LOOM_HA_ENDPOINTS_LEN - 1);
		snprintf(dst, LOOM_HA_ENDPOINTS_LEN, "%s", cfg_scalar(v));
		return 0;
	}
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, n++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		const char *s = cfg_scalar(item);
		char where[64];

		snprintf(where, sizeof(where), "%s[%d]", key, n);
		if (!s || !*s || strchr(s, ','))
			return cfg_fail(p, cfg_line(item), where, "expected one URL, http://HOST:PORT "
					"or https://HOST:PORT");
		if (off + strlen(s) + 2 > LOOM_HA_ENDPOINTS_LEN)
			return cfg_fail(p, cfg_line(item), where, "the list is longer than %d bytes",
					LOOM_HA_ENDPOINTS_LEN - 1);
		off += (size_t)snprintf(dst + off, LOOM_HA_ENDPOINTS_LEN - off, "%s%s",
					off ? "," : "", s);
	}
	return 0;
}

static void print_endpoints(FILE *out, const void *sec)
{
	const struct ha_conf *c = sec;
	const char *s = c->ha_endpoints;

	fputs(" [", out);
	for (int first = 1; *s; first = 0) {
		size_t n;
		char one[LOOM_HA_ENDPOINTS_LEN];

		s += strspn(s, ", ");
		if (!(n = strcspn(s, ", ")))
			break;
		snprintf(one, sizeof(one), "%.*s", (int)n, s);
		if (!first)
			fputs(", ", out);
		cfg_print_string(out, one);
		s += n;
	}
	fputs("]\n", out);
}

static const struct cfg_key tls_keys[] = {
	CFG_KEY_STR("ca", CFG_OPT_PATH, ha_tls_ca, NULL),
	CFG_KEY_STR("cert", CFG_OPT_PATH, ha_tls_cert, NULL),
	CFG_KEY_STR("key", CFG_OPT_PATH, ha_tls_key, NULL),
};
#define N_TLS_KEYS (sizeof(tls_keys) / sizeof(tls_keys[0]))

static int parse_tls(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct ha_conf *c = sec;

	c->ha_tls_ca[0] = c->ha_tls_cert[0] = c->ha_tls_key[0] = '\0';
	return cfg_parse_subtable(p, v, key, tls_keys, N_TLS_KEYS, c);
}

static void print_tls(FILE *out, const void *sec)
{
	const struct ha_conf *c = sec;

	cfg_print_subtable(out, tls_keys, N_TLS_KEYS, c);
}

static const struct cfg_key ha_keys[] = {
	CFG_KEY_CUSTOM("endpoints", parse_endpoints, print_endpoints),
	CFG_KEY_STR("name", CFG_STRING, ha_name, NULL),
	CFG_KEY_STR("advertise", CFG_STRING, ha_advertise, NULL),
	CFG_KEY_STR("cluster", CFG_STRING, ha_cluster, "loom"),
	CFG_KEY_INT("ttl_s", ha_ttl_s, 2, 600, 0, 5),
	CFG_KEY_INT("timeout_ms", ha_timeout_ms, 50, 60000, 0, 1000),
	CFG_KEY_INT("poll_ms", ha_poll_ms, 50, 60000, 0, 500),
	CFG_KEY_INT("follower_discovery_interval", ha_follower_discovery_interval, 5, 86400, 1, 0),
	CFG_KEY_CUSTOM("tls", parse_tls, print_tls),
	CFG_KEY_STR("user", CFG_STRING, ha_user, NULL),
	CFG_KEY_STR("password_file", CFG_OPT_PATH, ha_password_file, NULL),
};

static void ha_defaults(void *sec)
{
	struct ha_conf *c = sec;

	c->ha_endpoints[0] = '\0';
	c->ha_tls_ca[0] = c->ha_tls_cert[0] = c->ha_tls_key[0] = '\0';
}

static int name_ok(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	       strlen(s);
}

/* The endpoints as lib/etcd takes them; names and the lease against the
 * timeout: a leader must be able to renew its lease (ttl_s / 3 apart) on
 * the first endpoint within the lease. */
static int check_ha(struct parse *p, void *sec)
{
	struct ha_conf *c = sec;
	unsigned long line = cfg_key_line(p, "ha", "endpoints");
	struct etcd_conf ec = { .endpoints = c->ha_endpoints, .cert = c->ha_tls_cert,
				.key = c->ha_tls_key, .timeout_ms = c->ha_timeout_ms };
	struct etcd *e;
	char why[512];

	if (!name_ok(c->ha_cluster) || !c->ha_cluster[0])
		return cfg_fail(p, cfg_key_line(p, "ha", "cluster"), "ha.cluster",
				"\"%s\": letters, digits, '.', '_' and '-' only", c->ha_cluster);
	if (!name_ok(c->ha_name))
		return cfg_fail(p, cfg_key_line(p, "ha", "name"), "ha.name",
				"\"%s\": letters, digits, '.', '_' and '-' only", c->ha_name);
	if (!c->ha_endpoints[0])
		return 0;
	if (!(e = etcd_new(&ec, why, sizeof(why))))
		return cfg_fail(p, line, "ha.endpoints", "%s", why);
	etcd_free(e);
	if (c->ha_timeout_ms * 3 > c->ha_ttl_s * 1000)
		return cfg_fail(p, cfg_key_line(p, "ha", "timeout_ms"), "ha.timeout_ms",
				"%d ms is over a third of ha.ttl_s (%d s): a leader could lose its "
				"lease waiting for one endpoint", c->ha_timeout_ms, c->ha_ttl_s);
	if (c->ha_user[0] && !c->ha_password_file[0])
		return cfg_fail(p, cfg_key_line(p, "ha", "user"), "ha.password_file",
				"missing: ha.user needs its password");
	return 0;
}

const struct ha_conf *ha_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &ha_config);
}

const struct config_section ha_config = {
	.name = "ha", .size = sizeof(struct ha_conf), .keys = ha_keys, .n_keys = sizeof(ha_keys) / sizeof(ha_keys[0]),
	.defaults = ha_defaults, .check = check_ha,
};
