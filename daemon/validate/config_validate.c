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
 *     sm_allowed: [sm-1, 0x0002c90300001234]  # the subnet managers that may
 *                          # run (node names or GUIDs); none: not checked
 *     keys: report         # the M_Key rules: off, report (warnings),
 *                          # required (errors)
 *
 * A plan that does not parse is refused with the configuration (its file
 * and line), so a reload with a broken plan keeps the running one. The BER
 * threshold is telemetry.thresholds.ber_exp: a link's `ber` finding is
 * telemetry's symbol-error alarm, one judgement for both. */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "daemon/core/config_parse.h"
#include "daemon/validate/config_validate.h"
#include "lib/validate/keys.h"
#include "lib/validate/plan.h"

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
	c->validation_keys = KEYS_OFF;   /* a site opts in (docs/validate.md) */
}

/* The plan is read now: a broken one refuses the whole file. */
static int check_validate(struct parse *p, void *sec)
{
	struct validate_conf *c = sec;
	struct plan *plan;
	char why[512];

	if (!c->validation_expected[0])
		return 0;
	if (!(plan = plan_read(c->validation_expected, why, sizeof(why))))
		return cfg_fail(p, cfg_key_line(p, "validation", "expected"), "validation.expected",
				"%s", why);
	plan_free(plan);
	return 0;
}

static const struct cfg_key validate_keys[] = {
	CFG_KEY_BOOL("enabled", validation_enabled, 1),
	CFG_KEY_STR("expected", CFG_OPT_PATH, validation_expected, NULL),
	CFG_KEY_CUSTOM("fat_tree", parse_fat_tree, print_fat_tree),
	CFG_KEY_CUSTOM("sm_allowed", parse_sm_allowed, print_sm_allowed),
	CFG_KEY_CUSTOM("keys", parse_keys, print_keys),
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
