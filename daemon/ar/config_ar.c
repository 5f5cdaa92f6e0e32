/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/config_ar.c: loom.yaml's `ar:` section, how `loomctl ar program`
 * programs NVIDIA adaptive routing (issue 7): a table of keys, mode and
 * sls of their own shape.
 *
 *   ar:
 *     program: false     # true lets loomd send AR SubnSets at all
 *     mode: tree         # tree | lag: the groups (lib/ar/route_ar.h)
 *     sls: all           # or a list of SLs, [0, 1]
 *     shield: false      # fast link fault recovery where switches have it
 *     after_reroute_s: 5 # program again once OpenSM's LFT changes settle
 *
 * program defaults to false because the attribute modifiers of the AR
 * tables are not confirmed from any public source (docs/ar-mad-notes.md):
 * a Set with a wrong one would write the wrong block. Even with true, each
 * switch must first pass the modifier self-check (lib/ar/ar_program.h). */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/ar/ar_plan.h"
#include "daemon/core/config_parse.h"
#include "daemon/ar/config_ar.h"
#include "lib/ar/route_ar.h"

#define CFG_SECTION_TYPE struct ar_conf

static void defaults_ar(void *sec)
{
	struct ar_conf *c = sec;

	c->ar_mode = RT_AR_TREE;
	c->ar_sl_mask = AR_PLAN_ALL_SLS;
}

static int parse_mode(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct ar_conf *c = sec;
	enum rt_ar_mode mode;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (rt_ar_mode_parse(cfg_scalar(v), &mode) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not tree or lag", cfg_scalar(v));
	c->ar_mode = (int)mode;
	return 0;
}

/* `all`, or a non-empty list of distinct SLs 0..15. */
static int parse_sls(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct ar_conf *c = sec;
	unsigned mask = 0;
	int rc;

	if (v->type == YAML_SCALAR_NODE && !strcmp(cfg_scalar(v), "all")) {
		c->ar_sl_mask = AR_PLAN_ALL_SLS;
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(p, cfg_line(v), key, "expected all or a list of SLs 0..15, got %s",
				cfg_node_kind(v));
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		long long sl;

		if ((rc = cfg_int(p, e, key, 0, 15, 1, &sl)) < 0)
			return rc;
		if (mask & 1u << sl)
			return cfg_fail(p, cfg_line(e), key, "SL %lld is listed twice", sl);
		mask |= 1u << sl;
	}
	if (!mask)
		return cfg_fail(p, cfg_line(v), key, "an empty list leaves AR on no SL; leave the "
				"key out (or write all) for every SL");
	c->ar_sl_mask = mask;
	return 0;
}

static void print_mode(FILE *out, const void *sec)
{
	const struct ar_conf *c = sec;

	fprintf(out, " %s\n", rt_ar_mode_name((enum rt_ar_mode)c->ar_mode));
}

static void print_sls(FILE *out, const void *sec)
{
	const struct ar_conf *c = sec;
	const char *sep = " [";

	if (c->ar_sl_mask == AR_PLAN_ALL_SLS) {
		fputs(" all\n", out);
		return;
	}
	for (unsigned sl = 0; sl < 16; sl++)
		if (c->ar_sl_mask & 1u << sl) {
			fprintf(out, "%s%u", sep, sl);
			sep = ", ";
		}
	fputs("]\n", out);
}

static const struct cfg_key ar_keys[] = {
	CFG_KEY_BOOL("program", ar_program, 0),
	CFG_KEY_CUSTOM("mode", parse_mode, print_mode),
	CFG_KEY_CUSTOM("sls", parse_sls, print_sls),
	CFG_KEY_BOOL("shield", ar_shield, 0),
	CFG_KEY_INT("after_reroute_s", ar_after_reroute_s, 1, 3600, 1, 5),
};

const struct ar_conf *ar_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &ar_config);
}

const struct config_section ar_config = {
	.name = "ar", .size = sizeof(struct ar_conf), .keys = ar_keys,
	.n_keys = sizeof(ar_keys) / sizeof(ar_keys[0]), .defaults = defaults_ar,
};
