/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/config_tenants.c: loom.yaml's `tenants:` section, how jobs
 * are isolated (daemon/tenants/tenants.c): the partitions file loom owns,
 * the PKey and VLAN pools, who may change tenants, how hosts are found.
 * The pools must not be empty and the host pattern must be an extended
 * regular expression with a group; both are checked once the file is read. */
#include "autoconf.h"
#include "daemon/tenants/config_tenants.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "daemon/core/config_parse.h"

#define CFG_SECTION_TYPE struct tenants_conf

/* tenants.host_identity: map (the default) or description. */
static int parse_identity(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct tenants_conf *c = sec;
	const char *s = cfg_scalar(v);

	if (!s || hostmap_identity_parse(s, &c->hosts.identity) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%s\": map or description", s ? s : "");
	return 0;
}

static void print_identity(FILE *out, const void *sec)
{
	const struct tenants_conf *c = sec;

	fprintf(out, " %s\n", hostmap_identity_name(c->hosts.identity));
}

static const struct cfg_key tenants_keys[] = {
	CFG_KEY_STR("partitions_file", CFG_PATH, tenant_partitions_file, LOOM_DEFAULT_PARTITIONS),
	CFG_KEY_STR("static_partitions", CFG_OPT_PATH, tenant_static_partitions, NULL),
	CFG_KEY_STR("opensm_pid_file", CFG_OPT_PATH, tenant_opensm_pid_file, NULL),
	CFG_KEY_INT("pkey_min", tenant_pkey_min, 1, 0x7ffe, 0, 0x1000),
	CFG_KEY_INT("pkey_max", tenant_pkey_max, 1, 0x7ffe, 0, 0x7ffe),
	CFG_KEY_INT("timeout_s", tenant_timeout_s, 1, 3600, 0, 60),
	CFG_KEY_INT("interval", tenant_interval, 5, 86400, 1, 0),
	CFG_KEY_INT("vlan_min", tenant_vlan_min, 2, 4094, 0, 2000),
	CFG_KEY_INT("vlan_max", tenant_vlan_max, 2, 4094, 0, 2999),
	CFG_KEY_STR("users", CFG_STRING, tenant_users, NULL),
	CFG_KEY_STR("groups", CFG_STRING, tenant_groups, NULL),
	CFG_KEY_STR("host_pattern", CFG_STRING, hosts.pattern, HOSTMAP_DEFAULT_PATTERN),
	CFG_KEY_STR("host_map", CFG_OPT_PATH, hosts.map, NULL),
	CFG_KEY_CUSTOM("host_identity", parse_identity, print_identity),
	CFG_KEY_BOOL("check_switch_ports", tenant_check_switch_ports, 1),
};

/* tenants.WHAT_min..WHAT_max must hold at least one value. */
static int check_pool(struct parse *p, const char *what, int min, int max)
{
	char key[32], lo[16], hi[16];
	unsigned long line;

	if (min <= max)
		return 0;
	snprintf(lo, sizeof(lo), "%s_min", what);
	snprintf(hi, sizeof(hi), "%s_max", what);
	snprintf(key, sizeof(key), "tenants.%s", lo);
	line = cfg_key_line(p, "tenants", hi);
	return cfg_fail(p, line ? line : cfg_key_line(p, "tenants", lo),
			key, "the %s pool %#x..%#x is empty (%s above %s)",
			strcmp(what, "pkey") ? "VLAN" : "PKey", min, max, lo, hi);
}

/* tenants.host_pattern: an extended regular expression with one group. */
static int check_host_pattern(struct parse *p, const char *pattern)
{
	regex_t re;
	char why[128];
	int rc = regcomp(&re, pattern, REG_EXTENDED);

	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return cfg_fail(p, cfg_key_line(p, "tenants", "host_pattern"),
				"tenants.host_pattern", "not an extended regular expression: %s",
				why);
	}
	rc = re.re_nsub < 1;
	regfree(&re);
	if (rc)
		return cfg_fail(p, cfg_key_line(p, "tenants", "host_pattern"),
				"tenants.host_pattern", "needs a group, ( ), around the host name");
	return 0;
}

static int check_tenants(struct parse *p, void *sec)
{
	const struct tenants_conf *c = sec;
	int rc;

	if ((rc = check_pool(p, "pkey", c->tenant_pkey_min, c->tenant_pkey_max)) ||
	    (rc = check_pool(p, "vlan", c->tenant_vlan_min, c->tenant_vlan_max)))
		return rc;
	return check_host_pattern(p, c->hosts.pattern);
}

const struct tenants_conf *tenants_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &tenants_config);
}

/* OpenSM's partitions file, rewritten whole on every tenant change. */
static void tenants_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	add(ctx, "tenants.partitions_file", ((const struct tenants_conf *)sec)->tenant_partitions_file,
	    CFG_WRITE_REPLACE);
}

const struct config_section tenants_config = {
	.name = "tenants", .size = sizeof(struct tenants_conf), .keys = tenants_keys,
	.n_keys = sizeof(tenants_keys) / sizeof(tenants_keys[0]),
	.check = check_tenants, .written = tenants_written,
};
