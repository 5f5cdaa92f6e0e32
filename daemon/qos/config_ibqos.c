/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/config_ibqos.c: loom.yaml's `ib_qos:` section, the InfiniBand QoS
 * policy (lib/qos/ib_qos.h), its checks and its part of config_print().
 *
 *   ib_qos:
 *     classes: { compute: 0, storage: 1, management: 2 }   # class -> SL
 *     sl2vl: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15]
 *     vlarb_high: [{vl: 2, weight: 32}]
 *     vlarb_low: [{vl: 0, weight: 64}, {vl: 1, weight: 128}]
 *     high_limit: 10
 *     max_vls: 4
 *     opensm_config: /etc/opensm/opensm.conf
 *
 * Absent: loom leaves QoS alone. Present (even empty): keys not given take
 * OpenSM's own defaults. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/qos/config_ib.h"
#include "daemon/qos/config_qos_ib.h"

#define CFG_SECTION_TYPE struct ib_qos_conf

static const char *const field_keys[] = {
	[IBQOS_F_NONE] = "ib_qos", [IBQOS_F_CLASSES] = "ib_qos.classes",
	[IBQOS_F_SL2VL] = "ib_qos.sl2vl", [IBQOS_F_HIGH] = "ib_qos.vlarb_high",
	[IBQOS_F_LOW] = "ib_qos.vlarb_low", [IBQOS_F_MAX_VLS] = "ib_qos.max_vls",
};

static int u8_in(struct parse *p, const yaml_node_t *v, const char *key, long long lo,
		 long long hi, uint8_t *dst)
{
	long long x;
	int rc = cfg_int(p, v, key, lo, hi, lo == 0, &x);

	if (rc == 0)
		*dst = (uint8_t)x;
	return rc;
}

static int class_name_ok(const char *s)
{
	if (!*s || strlen(s) >= IBQOS_CLASS_LEN)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static int parse_classes(struct parse *p, const yaml_node_t *v, struct ibqos_policy *q)
{
	const char *key = "ib_qos.classes";
	int rc;

	q->n_classes = 0;
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *val = yaml_document_get_node(p->doc, pr->value);
		struct ibqos_class *c;
		const char *name;
		char ckey[96];

		if (!(name = cfg_key_text(p, k, key)))
			return -EINVAL;
		snprintf(ckey, sizeof(ckey), "%s.%.40s", key, name);
		if (!class_name_ok(name))
			return cfg_fail(p, cfg_line(k), ckey, "a class name is 1..%d of A-Z, a-z, "
					"0-9, '_', '-'", IBQOS_CLASS_LEN - 1);
		if (ibqos_class_sl(q, name) >= 0)
			return cfg_fail(p, cfg_line(k), ckey, "duplicate class");
		if (q->n_classes == IBQOS_MAX_CLASSES)
			return cfg_fail(p, cfg_line(k), ckey, "more than %d classes",
					IBQOS_MAX_CLASSES);
		c = &q->classes[q->n_classes];
		snprintf(c->name, sizeof(c->name), "%s", name);
		if ((rc = u8_in(p, val, ckey, 0, 15, &c->sl)) < 0)
			return rc;
		q->n_classes++;
	}
	return 0;
}

static int sl2vl_item(struct parse *p, const yaml_node_t *e, const char *ikey, unsigned sl,
		      void *q)
{
	(void)ikey;
	if (sl == IBQOS_SLS)
		return cfg_fail(p, cfg_line(e), "ib_qos.sl2vl", "more than 16 entries (one per SL)");
	return u8_in(p, e, "ib_qos.sl2vl", 0, 15, &((struct ibqos_policy *)q)->sl2vl[sl]);
}

static int parse_sl2vl(struct parse *p, const yaml_node_t *v, struct ibqos_policy *q)
{
	int n = qos_cfg_seq(p, v, "ib_qos.sl2vl", 0, sl2vl_item, q);

	if (n >= 0 && n != IBQOS_SLS)
		return cfg_fail(p, cfg_line(v), "ib_qos.sl2vl", "%d entries; one VL per SL, 16 in "
				"all (15 = drop)", n);
	return n < 0 ? n : 0;
}

static int parse_entry(struct parse *p, const yaml_node_t *e, const char *key,
		       struct ibqos_entry *out)
{
	int have_vl = 0, have_w = 0, rc;

	if ((rc = cfg_expect(p, e, key, YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = e->data.mapping.pairs.start; pr < e->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *name;
		char ekey[96];

		if (!(name = cfg_key_text(p, k, key)))
			return -EINVAL;
		snprintf(ekey, sizeof(ekey), "%s.%.20s", key, name);
		if (!strcmp(name, "vl") && !have_vl++)
			rc = u8_in(p, v, ekey, 0, 14, &out->vl);
		else if (!strcmp(name, "weight") && !have_w++)
			rc = u8_in(p, v, ekey, 0, 255, &out->weight);
		else
			return cfg_fail(p, cfg_line(k), ekey, "unknown or repeated key (vl, weight)");
		if (rc < 0)
			return rc;
	}
	if (!have_vl || !have_w)
		return cfg_fail(p, cfg_line(e), key, "needs both vl and weight");
	return 0;
}

static int vlarb_item(struct parse *p, const yaml_node_t *e, const char *ikey, unsigned i,
		      void *t)
{
	if (i == IBQOS_VLARB_MAX)
		return cfg_fail(p, cfg_line(e), ikey, "more than %d entries (IBA 7.6.9)",
				IBQOS_VLARB_MAX);
	return parse_entry(p, e, ikey, (struct ibqos_entry *)t + i);
}

static int parse_vlarb(struct parse *p, const yaml_node_t *v, const char *key,
		       struct ibqos_entry *t, unsigned *n)
{
	int rc = qos_cfg_seq(p, v, key, 1, vlarb_item, t);

	*n = rc > 0 ? (unsigned)rc : 0;
	return rc < 0 ? rc : 0;
}

/* One key of ib_qos:, the line of each field's key into line[field]. */
static int ibqos_member(struct parse *p, const char *name, const char *key,
			const yaml_node_t *k, const yaml_node_t *val, void *lines)
{
	struct ib_qos_conf *c = cfg_section(p, &qos_ib_config);
	struct ibqos_policy *q = &c->ib_qos;
	unsigned long *line = lines;
	int rc;

	if (!strcmp(name, "classes")) {
		line[IBQOS_F_CLASSES] = cfg_line(k);
		rc = parse_classes(p, val, q);
	} else if (!strcmp(name, "sl2vl")) {
		line[IBQOS_F_SL2VL] = cfg_line(k);
		rc = parse_sl2vl(p, val, q);
	} else if (!strcmp(name, "vlarb_high")) {
		line[IBQOS_F_HIGH] = cfg_line(k);
		rc = parse_vlarb(p, val, key, q->high, &q->n_high);
	} else if (!strcmp(name, "vlarb_low")) {
		line[IBQOS_F_LOW] = cfg_line(k);
		rc = parse_vlarb(p, val, key, q->low, &q->n_low);
	} else if (!strcmp(name, "high_limit")) {
		rc = u8_in(p, val, key, 0, 255, &q->high_limit);
	} else if (!strcmp(name, "max_vls")) {
		line[IBQOS_F_MAX_VLS] = cfg_line(k);
		if ((rc = u8_in(p, val, key, 1, 15, &q->max_vls)) == 0 && q->max_vls != 1 &&
		    q->max_vls != 2 && q->max_vls != 4 && q->max_vls != 8 && q->max_vls != 15)
			rc = cfg_fail(p, cfg_line(val), key, "%u: ports offer 1, 2, 4, 8 or "
				      "15 data VLs", q->max_vls);
	} else if (!strcmp(name, "opensm_config")) {
		rc = cfg_opt_path(p, val, key, c->ib_qos_opensm_config,
				  sizeof(c->ib_qos_opensm_config));
	} else {
		rc = cfg_fail(p, cfg_line(k), key, "unknown key (classes, sl2vl, vlarb_high, "
			      "vlarb_low, high_limit, max_vls, opensm_config)");
	}
	return rc;
}

static int parse_ibqos(struct parse *p, const yaml_node_t *v, void *sec)
{
	struct ib_qos_conf *c = sec;
	struct ibqos_policy *q = &c->ib_qos;
	unsigned long line[sizeof(field_keys) / sizeof(field_keys[0])] = { 0 };
	enum ibqos_field field;
	char msg[300];
	int rc;

	ibqos_defaults(q);
	q->set = 1;
	line[IBQOS_F_NONE] = cfg_line(v);
	if (cfg_is_null(v))
		return 0;
	if ((rc = qos_cfg_map(p, v, "ib_qos", ibqos_member, line)) < 0)
		return rc;
	if (ibqos_check(q, &field, msg, sizeof(msg)) < 0) {
		unsigned long l = line[field] ? line[field] : line[IBQOS_F_NONE];
		char key[96];
		/* msg is "KEY: what": the key goes where cfg_fail puts keys. */
		const char *what = qos_cfg_check_key(msg, field_keys[field], key, sizeof(key));

		return cfg_fail(p, l, key, "%s", what);
	}
	return 0;
}

static void print_table(FILE *out, const char *name, const struct ibqos_entry *t, unsigned n)
{
	fprintf(out, "  %s: [", name);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s{vl: %u, weight: %u}", i ? ", " : "", t[i].vl, t[i].weight);
	fputs("]\n", out);
}

static void print_ibqos(FILE *out, const void *sec)
{
	const struct ib_qos_conf *c = sec;
	const struct ibqos_policy *q = &c->ib_qos;

	if (!q->set)
		return;  /* absent: loom does not touch QoS */
	fputs("ib_qos:\n  classes:", out);
	if (!q->n_classes)
		fputs(" {}", out);
	fputc('\n', out);
	for (unsigned i = 0; i < q->n_classes; i++)
		fprintf(out, "    %s: %u\n", q->classes[i].name, q->classes[i].sl);
	fputs("  sl2vl: [", out);
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		fprintf(out, "%s%u", sl ? ", " : "", q->sl2vl[sl]);
	fputs("]\n", out);
	print_table(out, "vlarb_high", q->high, q->n_high);
	print_table(out, "vlarb_low", q->low, q->n_low);
	fprintf(out, "  high_limit: %u\n  max_vls: %u\n  opensm_config: ", q->high_limit,
		q->max_vls);
	cfg_print_string(out, c->ib_qos_opensm_config);
	fputc('\n', out);
}

/* Absent (.set = 0): loom does not manage InfiniBand QoS. */
const struct ib_qos_conf *ib_qos_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &qos_ib_config);
}

/* A shape of its own (classes a map, sl2vl and the VL arbitration tables
 * lists of entries, checked together by ibqos_check): no table of scalar
 * keys holds it. */
/* loom's block in OpenSM's options file, once the section is there. */
static void ibqos_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	const struct ib_qos_conf *c = sec;

	if (c->ib_qos.set && c->ib_qos_opensm_config[0])
		add(ctx, "ib_qos.opensm_config", c->ib_qos_opensm_config, CFG_WRITE_REPLACE);
}

const struct config_section qos_ib_config = {
	.name = "ib_qos", .size = sizeof(struct ib_qos_conf), .parse = parse_ibqos, .print = print_ibqos,
	.written = ibqos_written,
};
