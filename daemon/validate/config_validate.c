/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/config_validate.c: loom.yaml's `validation:` section.
 *
 *   validation:
 *     enabled: true        # check every swept fabric (false: only on
 *                          # `loomctl fabric validate`)
 *     expected: /etc/loom/cabling.csv  # the cabling plan: a CSV
 *                          # (node,port,peer,peer_port[,width[,speed]]), an
 *                          # ibnetdiscover output or an ibsim net file of the
 *                          # fabric as built; none: the fabric's rules only
 *     fat_tree: auto       # the fat-tree rules: auto (when the fabric is
 *                          # one), yes, no
 *     rails: off           # every leaf carries one rail (rail-optimized
 *                          # clusters): an HCA's rail from its description's
 *                          # device index (device), its port number (port),
 *                          # or rail_pattern's capture (pattern); off
 *     rail_pattern: ''     # rails: pattern's POSIX extended regex, one
 *                          # capture group: the rail
 *
 *     partitions: true     # read the PKey tables after each sweep and check
 *                          # them (lib/validate/partitions.h)
 *     default_partition: off   # hosts' membership of 0x7fff: limited (NVIDIA's
 *                          # guidance), full, off
 *     default_full: [mgmt-01, 0x0002c903000a0b0c]  # may be full under limited
 *     partition_enforcement: true  # a host's switch port holds its keys
 *     sm_allowed: [sm-1, 0x0002c90300001234]  # the subnet managers that may
 *                          # run (node names or GUIDs); none: not checked
 *     keys: report         # the M_Key rules: off, report (warnings),
 *                          # required (errors)
 *     multicast: true      # read every switch's multicast table and the SA's
 *                          # groups after each sweep and check the trees
 *     multicast_sm_key: 0x1  # the SM_Key the SA is asked with (OpenSM shows
 *                          # a group's members only to its SM_Key holder)
 *
 * A plan that does not parse is refused with the configuration (its file
 * and line), so a reload with a broken plan keeps the running one. The BER
 * threshold is telemetry.thresholds.ber_exp: a link's `ber` finding is
 * telemetry's symbol-error alarm, one judgement for both. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config_parse.h"
#include "daemon/validate/config_validate.h"
#include "lib/validate/partitions.h"
#include "lib/validate/keys.h"
#include "lib/validate/plan.h"
#include "lib/validate/rails.h"

#define CFG_SECTION_TYPE struct validate_conf

static int parse_fat_tree(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct validate_conf *c = sec;
	const char *s = cfg_scalar(v);

	if (!s)
		return cfg_fail(p, cfg_line(v), key, "a scalar is expected: auto, yes or no");
	if (!strcmp(s, "auto"))
		c->validation_fat_tree = -1;
	else if (!strcmp(s, "yes") || !strcmp(s, "true"))
		c->validation_fat_tree = 1;
	else if (!strcmp(s, "no") || !strcmp(s, "false"))
		c->validation_fat_tree = 0;
	else
		return cfg_fail(p, cfg_line(v), key, "\"%s\": auto, yes or no", s);
	return 0;
}

static void print_fat_tree(FILE *out, const void *sec)
{
	const struct validate_conf *c = sec;

	fprintf(out, " %s\n", c->validation_fat_tree < 0 ? "auto" : c->validation_fat_tree ? "yes" : "no");
}

/* issue 43, rails */
static int parse_rails(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct validate_conf *c = sec;
	const char *s = cfg_scalar(v);
	int f = s ? rails_from_parse(s) : -1;

	if (f < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%s\": off, device, port or pattern",
				s ? s : "");
	c->validation_rails = f;
	return 0;
}

static void print_rails(FILE *out, const void *sec)
{
	fprintf(out, " %s\n", rails_from_name(((const struct validate_conf *)sec)->validation_rails));
}

/* rails: pattern wants a rail_pattern with one capture. */
static int check_rails(struct parse *p, const struct validate_conf *c)
{
	char why[512];

	if (c->validation_rails != RAILS_PATTERN)
		return 0;
	if (!c->validation_rail_pattern[0])
		return cfg_fail(p, cfg_key_line(p, "validation", "rails"), "validation.rails",
				"pattern: validation.rail_pattern is not set");
	if (rails_pattern_check(c->validation_rail_pattern, why, sizeof(why)) < 0)
		return cfg_fail(p, cfg_key_line(p, "validation", "rail_pattern"),
				"validation.rail_pattern", "%s", why);
	return 0;
}

/* issue 43: sm_allowed, a list of node names or GUIDs */
static int parse_sm_allowed(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct validate_conf *c = sec;
	int n = 0, rc;

	c->validation_n_sm_allowed = 0;
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		const char *s = cfg_scalar(item);

		if (!s || !*s)
			return cfg_fail(p, cfg_line(item), key, "a node name or GUID, one per item");
		if (strlen(s) >= VALIDATE_SM_NAME_LEN)
			return cfg_fail(p, cfg_line(item), key, "\"%s\": longer than a node name", s);
		if (n == VALIDATE_SM_ALLOWED_MAX)
			return cfg_fail(p, cfg_line(item), key, "at most %d subnet managers",
					VALIDATE_SM_ALLOWED_MAX);
		snprintf(c->validation_sm_allowed[n++], VALIDATE_SM_NAME_LEN, "%s", s);
	}
	c->validation_n_sm_allowed = n;
	return 0;
}

static void print_sm_allowed(FILE *out, const void *sec)
{
	const struct validate_conf *c = sec;

	fputs(" [", out);
	for (int i = 0; i < c->validation_n_sm_allowed; i++) {
		fputs(i ? ", " : "", out);
		cfg_print_string(out, c->validation_sm_allowed[i]);
	}
	fputs("]\n", out);
}

static int parse_keys(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct validate_conf *c = sec;
	const char *s = cfg_scalar(v);
	int m = s ? keys_mode_of(s) : -1;

	if (m < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%s\": off, report or required", s ? s : "");
	c->validation_keys = m;
	return 0;
}

static void print_keys(FILE *out, const void *sec)
{
	const struct validate_conf *c = sec;

	fprintf(out, " %s\n", keys_mode_name((enum keys_mode)c->validation_keys));
}

static void validate_defaults(void *sec)
{
	struct validate_conf *c = sec;

	c->validation_fat_tree = -1;
	c->validation_default_partition = PARTITIONS_DEFAULT_OFF;
	c->validation_keys = KEYS_OFF;   /* a site opts in (docs/validate.md) */
	c->validation_mc_sm_key = 1;   /* OpenSM's default sm_key */
}

/* ---- issue 43, partitions ---- */

static const char *const default_policies[] = {
	[PARTITIONS_DEFAULT_LIMITED] = "limited", [PARTITIONS_DEFAULT_FULL] = "full",
	[PARTITIONS_DEFAULT_OFF] = "off",
};

static int parse_default_partition(struct parse *p, const yaml_node_t *v, const char *key,
				   void *sec)
{
	struct validate_conf *c = sec;
	const char *s = v->type == YAML_SCALAR_NODE ? cfg_scalar(v) : NULL;

	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, default_policies[i])) {
			c->validation_default_partition = i;
			return 0;
		}
	return cfg_fail(p, cfg_line(v), key, "\"%s\": limited, full or off", s ? s : "");
}

static void print_default_partition(FILE *out, const void *sec)
{
	const struct validate_conf *c = sec;

	fprintf(out, " %s\n", default_policies[c->validation_default_partition]);
}

/* A sequence of GUIDs or node names (a scalar: one). */
static int parse_default_full(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct validate_conf *c = sec;
	size_t off = 0, n = 0;
	const yaml_node_item_t *it, *end;
	const yaml_node_t *one = v;
	int rc;

	c->validation_default_full[0] = '\0';
	if (v->type == YAML_SCALAR_NODE) {
		it = end = NULL;
	} else if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0) {
		return rc;
	} else {
		it = v->data.sequence.items.start;
		end = v->data.sequence.items.top;
		one = it < end ? yaml_document_get_node(p->doc, *it) : NULL;
	}
	while (one) {
		const char *s = one->type == YAML_SCALAR_NODE ? cfg_scalar(one) : NULL;
		char where[64];

		snprintf(where, sizeof(where), "%s[%zu]", key, n);
		if (!s || !*s || strchr(s, '\n'))
			return cfg_fail(p, cfg_line(one), where, "a port or node GUID, or a node name");
		if (++n > VALIDATE_DEFAULT_FULL_MAX ||
		    off + strlen(s) + 2 > sizeof(c->validation_default_full))
			return cfg_fail(p, cfg_line(one), where, "more than %d entries or %zu bytes",
					VALIDATE_DEFAULT_FULL_MAX, sizeof(c->validation_default_full) - 1);
		off += (size_t)snprintf(c->validation_default_full + off,
					sizeof(c->validation_default_full) - off, "%s\n", s);
		one = it && ++it < end ? yaml_document_get_node(p->doc, *it) : NULL;
	}
	return 0;
}

static void print_default_full(FILE *out, const void *sec)
{
	const struct validate_conf *c = sec;
	const char *s = c->validation_default_full;

	fputs(" [", out);
	for (int first = 1; *s; first = 0) {
		size_t n = strcspn(s, "\n");
		char one[VALIDATE_DEFAULT_FULL_LEN];

		snprintf(one, sizeof(one), "%.*s", (int)n, s);
		fputs(first ? "" : ", ", out);
		cfg_print_string(out, one);
		s += n + (s[n] != 0);
	}
	fputs("]\n", out);
}

/* The plan is read now: a broken one refuses the whole file. */
static int check_validate(struct parse *p, void *sec)
{
	struct validate_conf *c = sec;
	struct plan *plan;
	char why[512];
	int rc = check_rails(p, c);

	if (rc < 0)
		return rc;
	if (!c->validation_expected[0])
		return 0;
	if (!(plan = plan_read(c->validation_expected, why, sizeof(why))))
		return cfg_fail(p, cfg_key_line(p, "validation", "expected"), "validation.expected",
				"%s", why);
	plan_free(plan);
	return 0;
}

/* issue 43, multicast: a 64-bit key, hexadecimal or decimal */
static int parse_sm_key(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct validate_conf *c = sec;
	const char *s = cfg_scalar(v);
	char *end = NULL;

	errno = 0;
	if (!s || !*s || (c->validation_mc_sm_key = strtoull(s, &end, 0), errno) || *end)
		return cfg_fail(p, cfg_line(v), key, "a 64-bit SM_Key is expected (0x...)");
	return 0;
}

static void print_sm_key(FILE *out, const void *sec)
{
	fprintf(out, " 0x%" PRIx64 "\n", ((const struct validate_conf *)sec)->validation_mc_sm_key);
}

static const struct cfg_key validate_keys[] = {
	CFG_KEY_BOOL("enabled", validation_enabled, 1),
	CFG_KEY_STR("expected", CFG_OPT_PATH, validation_expected, NULL),
	CFG_KEY_CUSTOM("fat_tree", parse_fat_tree, print_fat_tree),
	/* issue 43, partitions */
	CFG_KEY_BOOL("partitions", validation_partitions, 1),
	CFG_KEY_CUSTOM("default_partition", parse_default_partition, print_default_partition),
	CFG_KEY_CUSTOM("default_full", parse_default_full, print_default_full),
	CFG_KEY_BOOL("partition_enforcement", validation_partition_enforcement, 1),
	CFG_KEY_CUSTOM("rails", parse_rails, print_rails),
	CFG_KEY_STR("rail_pattern", CFG_STRING, validation_rail_pattern, NULL),
	CFG_KEY_CUSTOM("sm_allowed", parse_sm_allowed, print_sm_allowed),
	CFG_KEY_CUSTOM("keys", parse_keys, print_keys),
	CFG_KEY_BOOL("multicast", validation_multicast, 1),
	CFG_KEY_CUSTOM("multicast_sm_key", parse_sm_key, print_sm_key),
};

const struct validate_conf *validate_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &validate_config);
}

const struct config_section validate_config = {
	.name = "validation", .size = sizeof(struct validate_conf), .keys = validate_keys,
	.n_keys = sizeof(validate_keys) / sizeof(validate_keys[0]),
	.defaults = validate_defaults, .check = check_validate,
};
