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

static void validate_defaults(void *sec)
{
	struct validate_conf *c = sec;

	c->validation_fat_tree = -1;
	c->validation_mc_sm_key = 1;   /* OpenSM's default sm_key */
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
