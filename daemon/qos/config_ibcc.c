/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/config_ibcc.c: loom.yaml's `ib_cc:` section, InfiniBand congestion
 * control through OpenSM's congestion-control manager (lib/qos/ib_cc.h has
 * every field, its width and the OpenSM option it becomes), its checks and its
 * part of config_print().
 *
 *   ib_cc:
 *     enable: true                       # congestion_control TRUE
 *     cc_key: 0x0000000000000000
 *     max_outstanding_mads: 500
 *     switch:
 *       control_map: 0x1F
 *       victim_mask: 0x1E                # ports 1..4 (1..64 hex digits)
 *       credit_mask: 0x0
 *       threshold: 15
 *       packet_size: 8
 *       credit_starvation_threshold: 0
 *       credit_starvation_return_delay: "0:0"
 *       marking_rate: 10
 *     ca:
 *       port_control: 0
 *       control_map: 0x0003
 *       sls:
 *         - {sl: 0, ccti_timer: 150, ccti_increase: 1, trigger_threshold: 0, ccti_min: 0}
 *     cct: ["0:0", "1:10", "2:20"]
 *     opensm_config: /etc/opensm/opensm.conf
 *
 * Absent: loom leaves congestion control alone. Present (even empty): keys
 * not given take OpenSM's defaults (off). Integers are decimal or 0x hex.
 * Every check's error names the key and its line. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/qos/config_ib.h"
#include "daemon/qos/config_qos_ib.h"

#define CFG_SECTION_TYPE struct ib_cc_conf

/* Lines of the keys seen, so that ibcc_check's "KEY: what" points at KEY. */
#define MAX_LINES 32
struct lines {
	unsigned n;
	struct {
		char key[96];
		unsigned long line;
	} k[MAX_LINES];
};

static void note_line(struct lines *l, const char *key, unsigned long line)
{
	if (l->n < MAX_LINES) {
		snprintf(l->k[l->n].key, sizeof(l->k[l->n].key), "%s", key);
		l->k[l->n++].line = line;
	}
}

static unsigned long line_of(const struct lines *l, const char *key, unsigned long dflt)
{
	/* The longest recorded key that key starts with. */
	unsigned long best = dflt;
	size_t blen = 0;

	for (unsigned i = 0; i < l->n; i++) {
		size_t n = strlen(l->k[i].key);

		if (n > blen && !strncmp(key, l->k[i].key, n) && (!key[n] || key[n] == '.')) {
			best = l->k[i].line;
			blen = n;
		}
	}
	return best;
}

/* A plain unsigned integer, decimal or 0x hex, 0..max. */
static int uint_in(struct parse *p, const yaml_node_t *v, const char *key, uint64_t max,
		   uint64_t *dst)
{
	const char *s;
	char *end;
	unsigned long long x;
	int base = 10;

	if (v->type != YAML_SCALAR_NODE || cfg_is_null(v) ||
	    v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cfg_fail(p, cfg_line(v), key, "expected an integer (decimal or 0x hex)");
	s = cfg_scalar(v);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (!*s || *s == '-' || *s == '+' || *s == ' ' || strlen(s) > 20)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an integer", cfg_scalar(v));
	errno = 0;
	x = strtoull(s, &end, base);
	if (*end || errno)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an integer", cfg_scalar(v));
	if (x > max)
		return cfg_fail(p, cfg_line(v), key, "%llu is past %" PRIu64, x, max);
	*dst = x;
	return 0;
}

#define UINT_INTO(p, v, key, max, field) \
	do { \
		uint64_t x_; \
		if ((rc = uint_in(p, v, key, max, &x_)) == 0) \
			field = (__typeof__(field))x_; \
	} while (0)

static int scalar_text(struct parse *p, const yaml_node_t *v, const char *key, const char **s)
{
	if (v->type != YAML_SCALAR_NODE || cfg_is_null(v))
		return cfg_fail(p, cfg_line(v), key, "expected a value");
	*s = cfg_scalar(v);
	if (strlen(*s) != v->data.scalar.length)
		return cfg_fail(p, cfg_line(v), key, "not a usable value");
	return 0;
}

static int parse_mask(struct parse *p, const yaml_node_t *v, const char *key, uint8_t *mask)
{
	const char *s;
	int rc;

	if ((rc = scalar_text(p, v, key, &s)) < 0)
		return rc;
	if (ibcc_mask_parse(s, mask) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.70s\" is not a port mask (1..64 hex "
				"digits, bit p = port p)", s);
	return 0;
}

static int parse_delay(struct parse *p, const yaml_node_t *v, const char *key,
		       struct ibcc_delay *d)
{
	const char *s;
	int rc;

	if ((rc = scalar_text(p, v, key, &s)) < 0)
		return rc;
	if (ibcc_delay_parse(s, d) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not SHIFT:MULTIPLIER (shift "
				"0..3, multiplier 0..16383)", s);
	return 0;
}

/* One key of ib_cc.switch:. */
static int switch_member(struct parse *p, const char *name, const char *key,
			 const yaml_node_t *k, const yaml_node_t *val, void *lines)
{
	struct ibcc_config *c = &((struct ib_cc_conf *)cfg_section(p, &qos_ibcc_config))->ib_cc;
	int rc = 0;

	note_line(lines, key, cfg_line(k));
	if (!strcmp(name, "control_map"))
		UINT_INTO(p, val, key, UINT32_MAX, c->sw.control_map);
	else if (!strcmp(name, "victim_mask"))
		rc = parse_mask(p, val, key, c->sw.victim_mask);
	else if (!strcmp(name, "credit_mask"))
		rc = parse_mask(p, val, key, c->sw.credit_mask);
	else if (!strcmp(name, "threshold"))
		UINT_INTO(p, val, key, 15, c->sw.threshold);
	else if (!strcmp(name, "packet_size"))
		UINT_INTO(p, val, key, 255, c->sw.packet_size);
	else if (!strcmp(name, "credit_starvation_threshold"))
		UINT_INTO(p, val, key, 15, c->sw.cs_threshold);
	else if (!strcmp(name, "credit_starvation_return_delay"))
		rc = parse_delay(p, val, key, &c->sw.cs_return_delay);
	else if (!strcmp(name, "marking_rate"))
		UINT_INTO(p, val, key, UINT16_MAX, c->sw.marking_rate);
	else
		rc = cfg_fail(p, cfg_line(k), key, "unknown key (control_map, victim_mask, "
			      "credit_mask, threshold, packet_size, "
			      "credit_starvation_threshold, credit_starvation_return_delay, "
			      "marking_rate)");
	return rc;
}

/* One entry of ib_cc.ca.sls, as it is read. */
struct sl_entry {
	struct ibcc_ca_sl ent;
	uint64_t sl;
};

static int sl_member(struct parse *p, const char *name, const char *ekey, const yaml_node_t *k,
		     const yaml_node_t *v, void *entry)
{
	struct sl_entry *x = entry;
	int rc = 0;

	if (!strcmp(name, "sl"))
		rc = uint_in(p, v, ekey, IBCC_SLS - 1, &x->sl);
	else if (!strcmp(name, "ccti_timer"))
		UINT_INTO(p, v, ekey, UINT16_MAX, x->ent.ccti_timer);
	else if (!strcmp(name, "ccti_increase"))
		UINT_INTO(p, v, ekey, 255, x->ent.ccti_increase);
	else if (!strcmp(name, "trigger_threshold"))
		UINT_INTO(p, v, ekey, 255, x->ent.trigger_threshold);
	else if (!strcmp(name, "ccti_min"))
		UINT_INTO(p, v, ekey, 255, x->ent.ccti_min);
	else
		rc = cfg_fail(p, cfg_line(k), ekey, "unknown key (sl, ccti_timer, "
			      "ccti_increase, trigger_threshold, ccti_min)");
	return rc;
}

/* One entry of ib_cc.ca.sls (seen: the SLs given before it). */
static int sl_item(struct parse *p, const yaml_node_t *e, const char *key, unsigned i,
		   void *seen_sls)
{
	uint32_t *seen = seen_sls;
	struct sl_entry x = { .sl = IBCC_SLS };
	int rc;

	(void)i;
	if ((rc = cfg_expect(p, e, key, YAML_MAPPING_NODE)) < 0 ||
	    (rc = qos_cfg_map(p, e, key, sl_member, &x)) < 0)
		return rc;
	if (x.sl >= IBCC_SLS)
		return cfg_fail(p, cfg_line(e), key, "needs sl: 0..15");
	if (*seen >> x.sl & 1)
		return cfg_fail(p, cfg_line(e), key, "SL %u is given twice", (unsigned)x.sl);
	*seen |= 1u << x.sl;
	((struct ib_cc_conf *)cfg_section(p, &qos_ibcc_config))->ib_cc.ca.sl[x.sl] = x.ent;
	return 0;
}

/* One key of ib_cc.ca:. */
static int ca_member(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		     const yaml_node_t *val, void *lines)
{
	struct ibcc_config *c = &((struct ib_cc_conf *)cfg_section(p, &qos_ibcc_config))->ib_cc;
	uint32_t seen = 0;
	int rc = 0;

	note_line(lines, key, cfg_line(k));
	if (!strcmp(name, "port_control")) {
		UINT_INTO(p, val, key, UINT16_MAX, c->ca.port_control);
	} else if (!strcmp(name, "control_map")) {
		UINT_INTO(p, val, key, UINT16_MAX, c->ca.control_map);
	} else if (!strcmp(name, "sls")) {
		memset(c->ca.sl, 0, sizeof(c->ca.sl));
		rc = qos_cfg_seq(p, val, key, 1, sl_item, &seen);
	} else {
		rc = cfg_fail(p, cfg_line(k), key, "unknown key (port_control, control_map, "
			      "sls)");
	}
	return rc < 0 ? rc : 0;
}

static int cct_item(struct parse *p, const yaml_node_t *e, const char *ekey, unsigned i,
		    void *conf)
{
	struct ibcc_config *c = conf;

	if (i == IBCC_CCT_MAX)
		return cfg_fail(p, cfg_line(e), "ib_cc.cct", "more than %d entries (OpenSM keeps "
				"%d)", IBCC_CCT_MAX, IBCC_CCT_MAX);
	return parse_delay(p, e, ekey, &c->cct[i]);
}

static int parse_cct(struct parse *p, const yaml_node_t *v, const char *key,
		     struct ibcc_config *c)
{
	int rc = qos_cfg_seq(p, v, key, 1, cct_item, c);

	c->n_cct = rc > 0 ? (unsigned)rc : 0;
	return rc < 0 ? rc : 0;
}

/* One key of ib_cc:, its line noted for ibcc_check's messages. */
static int ibcc_member(struct parse *p, const char *name, const char *key,
		       const yaml_node_t *k, const yaml_node_t *val, void *lines)
{
	struct ib_cc_conf *cc = cfg_section(p, &qos_ibcc_config);
	struct ibcc_config *c = &cc->ib_cc;
	int rc = 0;

	note_line(lines, key, cfg_line(k));
	if (!strcmp(name, "enable"))
		rc = cfg_bool(p, val, key, &c->enable);
	else if (!strcmp(name, "cc_key"))
		UINT_INTO(p, val, key, UINT64_MAX, c->cc_key);
	else if (!strcmp(name, "max_outstanding_mads"))
		UINT_INTO(p, val, key, 1000000, c->max_outstanding_mads);
	else if (!strcmp(name, "switch"))
		rc = qos_cfg_map(p, val, "ib_cc.switch", switch_member, lines);
	else if (!strcmp(name, "ca"))
		rc = qos_cfg_map(p, val, "ib_cc.ca", ca_member, lines);
	else if (!strcmp(name, "cct"))
		rc = parse_cct(p, val, key, c);
	else if (!strcmp(name, "opensm_config"))
		rc = cfg_opt_path(p, val, key, cc->ib_cc_opensm_config,
				  sizeof(cc->ib_cc_opensm_config));
	else
		rc = cfg_fail(p, cfg_line(k), key, "unknown key (enable, cc_key, "
			      "max_outstanding_mads, switch, ca, cct, opensm_config)");
	return rc;
}

static int parse_ibcc(struct parse *p, const yaml_node_t *v, void *sec)
{
	struct ib_cc_conf *cc = sec;
	struct ibcc_config *c = &cc->ib_cc;
	struct lines *lines = cfg_scratch(p, "ib_cc", sizeof(*lines));
	char msg[400], key[96];
	const char *what;
	int rc;

	if (!lines)
		return cfg_fail(p, cfg_line(v), "ib_cc", "out of memory");
	ibcc_defaults(c);
	c->set = 1;
	cc->ib_cc_opensm_config[0] = '\0';
	if (cfg_is_null(v))
		return 0;
	if ((rc = qos_cfg_map(p, v, "ib_cc", ibcc_member, lines)) < 0)
		return rc;
	if (ibcc_check(c, msg, sizeof(msg)) < 0) {
		what = qos_cfg_check_key(msg, "ib_cc", key, sizeof(key));
		return cfg_fail(p, line_of(lines, key, cfg_line(v)), key, "%s", what);
	}
	return 0;
}

static void print_ibcc(FILE *out, const void *sec)
{
	const struct ib_cc_conf *conf = sec;
	const struct ibcc_config *c = &conf->ib_cc;
	char m[67];
	unsigned n = 0;

	if (!c->set)
		return;  /* absent: loom does not touch congestion control */
	fprintf(out, "ib_cc:\n  enable: %s\n  cc_key: 0x%016" PRIx64 "\n"
		"  max_outstanding_mads: %" PRIu32 "\n  switch:\n    control_map: 0x%" PRIX32 "\n",
		c->enable ? "true" : "false", c->cc_key, c->max_outstanding_mads,
		c->sw.control_map);
	ibcc_mask_format(c->sw.victim_mask, m);
	fprintf(out, "    victim_mask: %s\n", m);
	ibcc_mask_format(c->sw.credit_mask, m);
	fprintf(out, "    credit_mask: %s\n", m);
	fprintf(out, "    threshold: %u\n    packet_size: %u\n    credit_starvation_threshold: %u\n"
		"    credit_starvation_return_delay: \"%u:%u\"\n    marking_rate: %u\n",
		c->sw.threshold, c->sw.packet_size, c->sw.cs_threshold,
		c->sw.cs_return_delay.shift, c->sw.cs_return_delay.multiplier, c->sw.marking_rate);
	fprintf(out, "  ca:\n    port_control: 0x%04X\n    control_map: 0x%04X\n    sls:",
		c->ca.port_control, c->ca.control_map);
	for (unsigned sl = 0; sl < IBCC_SLS; sl++) {
		const struct ibcc_ca_sl *e = &c->ca.sl[sl];

		if (!(c->ca.control_map >> sl & 1) && !e->ccti_timer && !e->ccti_increase &&
		    !e->trigger_threshold && !e->ccti_min)
			continue;
		fprintf(out, "\n      - {sl: %u, ccti_timer: %u, ccti_increase: %u, "
			"trigger_threshold: %u, ccti_min: %u}", sl, e->ccti_timer, e->ccti_increase,
			e->trigger_threshold, e->ccti_min);
		n++;
	}
	fputs(n ? "\n" : " []\n", out);
	fputs("  cct: [", out);
	for (unsigned i = 0; i < c->n_cct; i++)
		fprintf(out, "%s\"%u:%u\"", i ? ", " : "", c->cct[i].shift, c->cct[i].multiplier);
	fputs("]\n  opensm_config: ", out);
	cfg_print_string(out, conf->ib_cc_opensm_config);
	fputc('\n', out);
}

/* Absent (.set = 0): loom does not manage congestion control. */
const struct ib_cc_conf *ib_cc_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &qos_ibcc_config);
}

/* A shape of its own (switch: and ca: maps, ca.sl a list of entries, cct a
 * list of delays, checked together by ibcc_check): no table of scalar keys
 * holds it. */
/* loom's block in OpenSM's options file, once the section is there. */
static void ibcc_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	const struct ib_cc_conf *c = sec;

	if (c->ib_cc.set && c->ib_cc_opensm_config[0])
		add(ctx, "ib_cc.opensm_config", c->ib_cc_opensm_config, CFG_WRITE_REPLACE);
}

const struct config_section qos_ibcc_config = {
	.name = "ib_cc", .size = sizeof(struct ib_cc_conf), .parse = parse_ibcc, .print = print_ibcc,
	.written = ibcc_written,
};
