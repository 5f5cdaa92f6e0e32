/* daemon/ar/config_ar.c: loom.yaml's `ar:` section, how `loomctl ar program`
 * programs NVIDIA adaptive routing (issue 7), and its part of
 * config_print().
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
#include "daemon/ar/ar_apply.h"
#include "lib/ar/route_ar.h"

static void defaults_ar(struct loom_config *c)
{
	c->ar_program = 0;
	c->ar_mode = RT_AR_TREE;
	c->ar_sl_mask = AR_PLAN_ALL_SLS;
	c->ar_shield = 0;
	c->ar_after_reroute_s = 5;
}

static int parse_mode(struct parse *p, const yaml_node_t *v, const char *key)
{
	enum rt_ar_mode mode;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (rt_ar_mode_parse(cfg_scalar(v), &mode) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not tree or lag", cfg_scalar(v));
	p->c->ar_mode = (int)mode;
	return 0;
}

/* `all`, or a non-empty list of distinct SLs 0..15. */
static int parse_sls(struct parse *p, const yaml_node_t *v, const char *key)
{
	unsigned mask = 0;
	int rc;

	if (v->type == YAML_SCALAR_NODE && !strcmp(cfg_scalar(v), "all")) {
		p->c->ar_sl_mask = AR_PLAN_ALL_SLS;
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
	p->c->ar_sl_mask = mask;
	return 0;
}

static int parse_ar(struct parse *p, const yaml_node_t *v)
{
	int rc;

	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, "ar", YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *val = yaml_document_get_node(p->doc, pr->value);
		char key[64];
		const char *name = cfg_member_key(p, v, pr, "ar", key, sizeof(key));

		if (!name)
			return -EINVAL;
		if (!strcmp(name, "program"))
			rc = cfg_bool(p, val, key, &p->c->ar_program);
		else if (!strcmp(name, "mode"))
			rc = parse_mode(p, val, key);
		else if (!strcmp(name, "sls"))
			rc = parse_sls(p, val, key);
		else if (!strcmp(name, "shield"))
			rc = cfg_bool(p, val, key, &p->c->ar_shield);
		else if (!strcmp(name, "after_reroute_s")) {
			long long s;

			rc = cfg_int(p, val, key, 0, 3600, 1, &s);
			if (rc == 0)
				p->c->ar_after_reroute_s = (int)s;
		} else
			rc = cfg_fail(p, cfg_line(k), key, "unknown key (program, mode, sls, shield, "
				      "after_reroute_s)");
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void print_ar(FILE *out, const struct loom_config *c)
{
	fprintf(out, "ar:\n  program: %s\n  mode: %s\n  sls: ", c->ar_program ? "true" : "false",
		rt_ar_mode_name((enum rt_ar_mode)c->ar_mode));
	if (c->ar_sl_mask == AR_PLAN_ALL_SLS) {
		fputs("all", out);
	} else {
		const char *sep = "[";

		for (unsigned sl = 0; sl < 16; sl++)
			if (c->ar_sl_mask & 1u << sl) {
				fprintf(out, "%s%u", sep, sl);
				sep = ", ";
			}
		fputc(']', out);
	}
	fprintf(out, "\n  shield: %s\n  after_reroute_s: %d\n", c->ar_shield ? "true" : "false",
		c->ar_after_reroute_s);
}

const struct config_section ar_config = {
	.name = "ar", .parse = parse_ar, .print = print_ar, .defaults = defaults_ar,
};
