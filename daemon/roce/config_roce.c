/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/config_roce.c: loom.yaml's `roce:` section (the lossless RoCE
 * policy of every switch, lib/qos/qos_policy.h) and its `switches:` list (each
 * switch's plugin, address and overrides of the policy), their checks, and
 * their part of config_print(). The overrides take the same keys as
 * `roce:` (not interval and reapply), each replacing only what it names;
 * dscp_to_tc entries are added one by one to the fabric's map. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/roce/config_roce.h"
#include "daemon/core/config_parse.h"

#define MAX_BYTES (1LL << 30)

static const char *const action_names[] = { "drop", "forward", "alert" };

static int parse_bool(struct parse *p, const yaml_node_t *v, const char *key, uint8_t *dst)
{
	int b, rc = cfg_bool(p, v, key, &b);

	if (rc == 0)
		*dst = (uint8_t)b;
	return rc;
}

static int parse_u32(struct parse *p, const yaml_node_t *v, const char *key, long long min,
		     long long max, int zero_ok, uint32_t *dst)
{
	long long x;
	int rc = cfg_int(p, v, key, min, max, zero_ok, &x);

	if (rc == 0)
		*dst = (uint32_t)x;
	return rc;
}

static int parse_u8(struct parse *p, const yaml_node_t *v, const char *key, long long min,
		    long long max, uint8_t *dst)
{
	long long x;
	int rc = cfg_int(p, v, key, min, max, 0, &x);

	if (rc == 0)
		*dst = (uint8_t)x;
	return rc;
}

/* A sequence of classes 0..7 as a bit mask; duplicates refused. */
static int parse_classes(struct parse *p, const yaml_node_t *v, const char *key, uint8_t *mask)
{
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	*mask = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		uint8_t t = 0;

		if ((rc = parse_u8(p, e, key, 0, LP_TCS - 1, &t)) < 0)
			return rc;
		if (*mask >> t & 1)
			return cfg_fail(p, cfg_line(e), key, "%u is listed twice", t);
		*mask |= (uint8_t)(1u << t);
	}
	return 0;
}

/* Walk a mapping: for each pair, fn(p, key text, full key name, value). */
typedef int (*pair_fn)(struct parse *p, const char *name, const char *key,
		       const yaml_node_t *k, const yaml_node_t *v, void *ctx);

static int each_pair(struct parse *p, const yaml_node_t *m, const char *where, pair_fn fn,
		     void *ctx)
{
	char key[160];
	int rc;

	if (cfg_is_null(m))
		return 0;
	if ((rc = cfg_expect(p, m, where, YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *name;

		if (!(name = cfg_key_text(p, k, where)))
			return -EINVAL;
		for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < pr; q++) {
			const yaml_node_t *k2 = yaml_document_get_node(p->doc, q->key);

			if (k2->type == YAML_SCALAR_NODE && !strcmp(cfg_scalar(k2), name))
				return cfg_fail(p, cfg_line(k), where, "duplicate key %s "
						"(first on line %lu)", name, cfg_line(k2));
		}
		snprintf(key, sizeof(key), "%s.%s", where, name);
		if ((rc = fn(p, name, key, k, v, ctx)) < 0)
			return rc;
	}
	return 0;
}

/* Where the roce: section, each of its fields and each switch begin, for
 * the checks of the policy that run once the whole file is read. */
struct roce_lines {
	unsigned long roce;
	unsigned long field[32];   /* per enum qos_field bit */
	unsigned long sw[LOOM_MAX_SWITCHES];
};

static struct roce_lines *lines_of(struct parse *p)
{
	return cfg_scratch(p, "roce.lines", sizeof(struct roce_lines));
}

/* Note where the fabric's policy sets `bits` (for the checks' messages). */
static void mark(struct parse *p, const struct qos_policy *q, uint32_t bits,
		 const yaml_node_t *k)
{
	struct roce_lines *l = lines_of(p);

	const struct roce_conf *rc = cfg_section(p, &roce_config);

	if (!rc || q != &rc->roce || !l)
		return;
	for (unsigned b = 0; b < 32; b++)
		if (bits >> b & 1)
			l->field[b] = cfg_line(k);
}

/* What a policy mapping is parsed into, and whether it is the fabric's. */
struct policy_ctx {
	struct qos_policy *q;
	struct roce_conf *top;   /* roce:'s own (interval, reapply), NULL for a switch's */
};

static int dscp_pair(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		     const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;
	uint8_t dscp = 0, tc = 0;
	int rc;

	(void)name;
	if ((rc = parse_u8(p, k, key, 0, 63, &dscp)) < 0 || (rc = parse_u8(p, v, key, 0, 7, &tc)) < 0)
		return rc;
	q->dscp_to_tc[dscp] = tc;
	return 0;
}

static int weight_pair(struct parse *p, const char *name, const char *key,
		       const yaml_node_t *k, const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;
	uint8_t tc = 0;
	int rc;

	(void)name;
	if ((rc = parse_u8(p, k, key, 0, LP_TCS - 1, &tc)) < 0)
		return rc;
	return parse_u8(p, v, key, 1, 100, &q->ets_weight[tc]);
}

static int cnp_pair(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		    const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;

	if (!strcmp(name, "dscp")) {
		q->set |= QOS_CNP_DSCP;
		mark(p, q, QOS_CNP_DSCP, k);
		return parse_u8(p, v, key, 0, 63, &q->cnp_dscp);
	}
	if (!strcmp(name, "priority")) {
		q->set |= QOS_CNP_PRIORITY;
		mark(p, q, QOS_CNP_PRIORITY, k);
		return parse_u8(p, v, key, 0, 7, &q->cnp_priority);
	}
	return cfg_fail(p, cfg_line(k), key, "unknown key (dscp, priority)");
}

static int ecn_pair(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		    const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;

	if (!strcmp(name, "min_bytes")) {
		q->set |= QOS_ECN_MIN;
		mark(p, q, QOS_ECN_MIN, k);
		return parse_u32(p, v, key, 1, MAX_BYTES, 0, &q->ecn_min_bytes);
	}
	if (!strcmp(name, "max_bytes")) {
		q->set |= QOS_ECN_MAX;
		mark(p, q, QOS_ECN_MAX, k);
		return parse_u32(p, v, key, 1, MAX_BYTES, 0, &q->ecn_max_bytes);
	}
	if (!strcmp(name, "mark_percent")) {
		q->set |= QOS_ECN_PERCENT;
		mark(p, q, QOS_ECN_PERCENT, k);
		return parse_u8(p, v, key, 1, 100, &q->ecn_mark_percent);
	}
	return cfg_fail(p, cfg_line(k), key, "unknown key (min_bytes, max_bytes, mark_percent)");
}

static int ets_pair(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		    const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;

	if (!strcmp(name, "weights")) {
		q->set |= QOS_ETS_WEIGHTS;
		mark(p, q, QOS_ETS_WEIGHTS, k);
		memset(q->ets_weight, 0, sizeof(q->ets_weight));
		return each_pair(p, v, key, weight_pair, q);
	}
	if (!strcmp(name, "strict")) {
		q->set |= QOS_ETS_STRICT;
		mark(p, q, QOS_ETS_STRICT, k);
		return parse_classes(p, v, key, &q->strict_mask);
	}
	return cfg_fail(p, cfg_line(k), key, "unknown key (weights, strict)");
}

static int pfcwd_pair(struct parse *p, const char *name, const char *key, const yaml_node_t *k,
		      const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;
	int rc;

	if (!strcmp(name, "enabled")) {
		q->set |= QOS_PFCWD_ENABLED;
		mark(p, q, QOS_PFCWD_ENABLED, k);
		return parse_bool(p, v, key, &q->pfcwd_enabled);
	}
	if (!strcmp(name, "detection_ms")) {
		q->set |= QOS_PFCWD_DETECTION;
		mark(p, q, QOS_PFCWD_DETECTION, k);
		return parse_u32(p, v, key, 100, 5000, 0, &q->pfcwd_detection_ms);
	}
	if (!strcmp(name, "restoration_ms")) {
		q->set |= QOS_PFCWD_RESTORATION;
		mark(p, q, QOS_PFCWD_RESTORATION, k);
		return parse_u32(p, v, key, 100, 60000, 0, &q->pfcwd_restoration_ms);
	}
	if (!strcmp(name, "action")) {
		if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
			return rc;
		for (size_t i = 0; i < sizeof(action_names) / sizeof(action_names[0]); i++)
			if (!strcmp(cfg_scalar(v), action_names[i])) {
				q->set |= QOS_PFCWD_ACTION;
				mark(p, q, QOS_PFCWD_ACTION, k);
		mark(p, q, QOS_PFCWD_ACTION, k);
				q->pfcwd_action = (enum lp_pfcwd_action)i;
				return 0;
			}
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not one of drop, forward, alert",
				cfg_scalar(v));
	}
	return cfg_fail(p, cfg_line(k), key,
			"unknown key (enabled, detection_ms, restoration_ms, action)");
}

static int headroom_pair(struct parse *p, const char *name, const char *key,
			 const yaml_node_t *k, const yaml_node_t *v, void *ctx)
{
	struct qos_policy *q = ctx;

	if (!strcmp(name, "mtu")) {
		q->set |= QOS_MTU;
		mark(p, q, QOS_MTU, k);
		return parse_u32(p, v, key, 1500, 9216, 0, &q->mtu);
	}
	if (!strcmp(name, "cable_m")) {
		q->set |= QOS_CABLE;
		mark(p, q, QOS_CABLE, k);
		return parse_u32(p, v, key, 1, 40000, 0, &q->cable_m);
	}
	if (!strcmp(name, "pause_threshold_bytes")) {
		q->set |= QOS_PAUSE_THRESHOLD;
		mark(p, q, QOS_PAUSE_THRESHOLD, k);
		return parse_u32(p, v, key, 1, MAX_BYTES, 1, &q->pause_threshold_bytes);
	}
	return cfg_fail(p, cfg_line(k), key,
			"unknown key (mtu, cable_m, pause_threshold_bytes)");
}

static int policy_pair(struct parse *p, const char *name, const char *key,
		       const yaml_node_t *k, const yaml_node_t *v, void *ctx)
{
	struct policy_ctx *pc = ctx;
	struct qos_policy *q = pc->q;
	long long x;
	int rc;

	if (!strcmp(name, "lossless_priorities")) {
		q->set |= QOS_LOSSLESS;
		mark(p, q, QOS_LOSSLESS, k);
		return parse_classes(p, v, key, &q->lossless_mask);
	}
	if (!strcmp(name, "dscp_to_tc")) {
		q->set |= QOS_DSCP_MAP;
		mark(p, q, QOS_DSCP_MAP, k);
		if (pc->top)  /* the fabric's map replaces the default one */
			memset(q->dscp_to_tc, QOS_DSCP_UNSET, sizeof(q->dscp_to_tc));
		return each_pair(p, v, key, dscp_pair, q);
	}
	if (!strcmp(name, "default_tc")) {
		q->set |= QOS_DEFAULT_TC;
		mark(p, q, QOS_DEFAULT_TC, k);
		return parse_u8(p, v, key, 0, 7, &q->default_tc);
	}
	if (!strcmp(name, "cnp"))
		return each_pair(p, v, key, cnp_pair, q);
	if (!strcmp(name, "ecn"))
		return each_pair(p, v, key, ecn_pair, q);
	if (!strcmp(name, "ets"))
		return each_pair(p, v, key, ets_pair, q);
	if (!strcmp(name, "pfc_watchdog"))
		return each_pair(p, v, key, pfcwd_pair, q);
	if (!strcmp(name, "headroom"))
		return each_pair(p, v, key, headroom_pair, q);
	if (pc->top && !strcmp(name, "interval")) {
		if ((rc = cfg_int(p, v, key, 10, 86400, 1, &x)) == 0)
			pc->top->roce_interval = (int)x;
		return rc;
	}
	if (pc->top && !strcmp(name, "reapply")) {
		uint8_t b;

		if ((rc = parse_bool(p, v, key, &b)) == 0)
			pc->top->roce_reapply = b;
		return rc;
	}
	return cfg_fail(p, cfg_line(k), key, "unknown key");
}

static int parse_roce(struct parse *p, const yaml_node_t *v, void *sec)
{
	struct roce_conf *c = sec;
	struct policy_ctx pc = { &c->roce, c };
	struct roce_lines *l = lines_of(p);

	if (!l)
		return cfg_fail(p, cfg_line(v), "roce", "out of memory");
	l->roce = cfg_line(v);
	return each_pair(p, v, "roce", policy_pair, &pc);
}

/* A string of at most size - 1 bytes, no control characters. */
static int parse_text(struct parse *p, const yaml_node_t *v, const char *key, char *dst,
		      size_t size)
{
	size_t len;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	len = cfg_is_null(v) ? 0 : v->data.scalar.length;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)cfg_scalar(v)[i] < 0x20 || cfg_scalar(v)[i] == 0x7f)
			return cfg_fail(p, cfg_line(v), key, "contains a control character");
	if (len >= size)
		return cfg_fail(p, cfg_line(v), key, "longer than %zu bytes", size - 1);
	memcpy(dst, len ? cfg_scalar(v) : "", len);
	dst[len] = '\0';
	return 0;
}

static int switch_pair(struct parse *p, const char *name, const char *key,
		       const yaml_node_t *k, const yaml_node_t *v, void *ctx)
{
	struct loom_switch_conf *s = ctx;
	struct policy_ctx pc = { &s->roce, NULL };

	if (!strcmp(name, "name"))
		return parse_text(p, v, key, s->name, sizeof(s->name));
	if (!strcmp(name, "plugin"))
		return parse_text(p, v, key, s->plugin, sizeof(s->plugin));
	if (!strcmp(name, "address"))
		return parse_text(p, v, key, s->address, sizeof(s->address));
	if (!strcmp(name, "credentials")) {
		int rc = parse_text(p, v, key, s->credentials, sizeof(s->credentials));

		if (rc == 0 && s->credentials[0] && s->credentials[0] != '/')
			return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an absolute path",
					s->credentials);
		return rc;
	}
	if (!strcmp(name, "options"))
		return parse_text(p, v, key, s->options, sizeof(s->options));
	if (!strcmp(name, "roce"))
		return each_pair(p, v, key, policy_pair, &pc);
	return cfg_fail(p, cfg_line(k), key,
			"unknown key (name, plugin, address, credentials, options, roce)");
}

static int plugin_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static int parse_switches(struct parse *p, const yaml_node_t *v, void *sec)
{
	struct switches_conf *c = sec;
	struct roce_lines *l = lines_of(p);
	int n = 0, rc;

	if (!l)
		return cfg_fail(p, cfg_line(v), "switches", "out of memory");
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, "switches", YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++, n++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		struct loom_switch_conf *s;
		char where[48];

		snprintf(where, sizeof(where), "switches[%d]", n);
		if (n >= LOOM_MAX_SWITCHES)
			return cfg_fail(p, cfg_line(item), where, "more than %d switches",
					LOOM_MAX_SWITCHES);
		s = &c->switches[n];
		l->sw[n] = cfg_line(item);
		memset(s, 0, sizeof(*s));
		memset(s->roce.dscp_to_tc, QOS_DSCP_UNSET, sizeof(s->roce.dscp_to_tc));
		if ((rc = cfg_expect(p, item, where, YAML_MAPPING_NODE)) < 0 ||
		    (rc = each_pair(p, item, where, switch_pair, s)) < 0)
			return rc;
		if (!s->name[0])
			return cfg_fail(p, cfg_line(item), where, "name: required");
		if (!plugin_name_ok(s->plugin))
			return cfg_fail(p, cfg_line(item), where, "plugin: required, 1..63 of a-z, "
					"0-9, '_', '-' (the file PLUGIN.so in plugins.dir)");
		if (!s->address[0])
			return cfg_fail(p, cfg_line(item), where, "address: required");
		for (int j = 0; j < n; j++)
			if (!strcmp(c->switches[j].name, s->name))
				return cfg_fail(p, cfg_line(item), where, "name \"%s\" is used twice",
						s->name);
	}
	c->n_switches = n;
	return 0;
}

static int check_roce(struct parse *p, void *sec)
{
	static const struct roce_lines none;
	const struct roce_lines *l = lines_of(p);
	const struct roce_conf *c = sec;
	const struct switches_conf *sw = cfg_section(p, &roce_switches_config);
	char msg[400];
	uint32_t field = 0;
	int rc;

	if (!l)
		l = &none;  /* no memory for lines: the messages say line 0 */
	if ((rc = qos_policy_check(&c->roce, "roce", &field, msg, sizeof(msg))) < 0) {
		unsigned long line = l->roce;

		for (unsigned b = 0; b < 32; b++)
			if (field >> b & 1 && l->field[b])
				line = l->field[b];
		return cfg_fail(p, line, NULL, "%s", msg);
	}
	for (int i = 0; sw && i < sw->n_switches; i++) {
		struct qos_policy q = c->roce;
		char where[96];

		qos_policy_merge(&q, &sw->switches[i].roce);
		snprintf(where, sizeof(where), "switches[%s].roce", sw->switches[i].name);
		if ((rc = qos_policy_check(&q, where, NULL, msg, sizeof(msg))) < 0)
			return cfg_fail(p, l->sw[i], NULL, "%s", msg);
	}
	return 0;
}

/* ---- printing ---------------------------------------------------------- */

static void print_classes(FILE *out, uint8_t mask)
{
	const char *sep = "";

	fputc('[', out);
	for (unsigned t = 0; t < LP_TCS; t++)
		if (mask >> t & 1) {
			fprintf(out, "%s%u", sep, t);
			sep = ", ";
		}
	fputc(']', out);
}

/* The policy keys that q sets, indented by `in` spaces. The fabric's
 * policy sets them all. */
static void print_policy(FILE *out, const struct qos_policy *q, int in)
{
	if (q->set & QOS_LOSSLESS) {
		fprintf(out, "%*slossless_priorities: ", in, "");
		print_classes(out, q->lossless_mask);
		fputc('\n', out);
	}
	if (q->set & QOS_DSCP_MAP) {
		int any = 0;

		for (unsigned d = 0; d < 64; d++)
			any |= q->dscp_to_tc[d] != QOS_DSCP_UNSET;
		fprintf(out, "%*sdscp_to_tc:%s\n", in, "", any ? "" : " {}");
		for (unsigned d = 0; d < 64; d++)
			if (q->dscp_to_tc[d] != QOS_DSCP_UNSET)
				fprintf(out, "%*s%u: %u\n", in + 2, "", d, q->dscp_to_tc[d]);
	}
	if (q->set & QOS_DEFAULT_TC)
		fprintf(out, "%*sdefault_tc: %u\n", in, "", q->default_tc);
	if (q->set & (QOS_CNP_DSCP | QOS_CNP_PRIORITY)) {
		fprintf(out, "%*scnp:\n", in, "");
		if (q->set & QOS_CNP_DSCP)
			fprintf(out, "%*sdscp: %u\n", in + 2, "", q->cnp_dscp);
		if (q->set & QOS_CNP_PRIORITY)
			fprintf(out, "%*spriority: %u\n", in + 2, "", q->cnp_priority);
	}
	if (q->set & (QOS_ECN_MIN | QOS_ECN_MAX | QOS_ECN_PERCENT)) {
		fprintf(out, "%*secn:\n", in, "");
		if (q->set & QOS_ECN_MIN)
			fprintf(out, "%*smin_bytes: %u\n", in + 2, "", q->ecn_min_bytes);
		if (q->set & QOS_ECN_MAX)
			fprintf(out, "%*smax_bytes: %u\n", in + 2, "", q->ecn_max_bytes);
		if (q->set & QOS_ECN_PERCENT)
			fprintf(out, "%*smark_percent: %u\n", in + 2, "", q->ecn_mark_percent);
	}
	if (q->set & (QOS_ETS_WEIGHTS | QOS_ETS_STRICT)) {
		fprintf(out, "%*sets:\n", in, "");
		if (q->set & QOS_ETS_WEIGHTS) {
			int any = 0;

			for (unsigned t = 0; t < LP_TCS; t++)
				any |= q->ets_weight[t] != 0;
			fprintf(out, "%*sweights:%s\n", in + 2, "", any ? "" : " {}");
			for (unsigned t = 0; t < LP_TCS; t++)
				if (q->ets_weight[t])
					fprintf(out, "%*s%u: %u\n", in + 4, "", t, q->ets_weight[t]);
		}
		if (q->set & QOS_ETS_STRICT) {
			fprintf(out, "%*sstrict: ", in + 2, "");
			print_classes(out, q->strict_mask);
			fputc('\n', out);
		}
	}
	if (q->set & (QOS_PFCWD_ENABLED | QOS_PFCWD_ACTION | QOS_PFCWD_DETECTION |
		      QOS_PFCWD_RESTORATION)) {
		fprintf(out, "%*spfc_watchdog:\n", in, "");
		if (q->set & QOS_PFCWD_ENABLED)
			fprintf(out, "%*senabled: %s\n", in + 2, "",
				q->pfcwd_enabled ? "true" : "false");
		if (q->set & QOS_PFCWD_DETECTION)
			fprintf(out, "%*sdetection_ms: %u\n", in + 2, "", q->pfcwd_detection_ms);
		if (q->set & QOS_PFCWD_RESTORATION)
			fprintf(out, "%*srestoration_ms: %u\n", in + 2, "", q->pfcwd_restoration_ms);
		if (q->set & QOS_PFCWD_ACTION)
			fprintf(out, "%*saction: %s\n", in + 2, "",
				action_names[q->pfcwd_action % 3]);
	}
	if (q->set & (QOS_MTU | QOS_CABLE | QOS_PAUSE_THRESHOLD)) {
		fprintf(out, "%*sheadroom:\n", in, "");
		if (q->set & QOS_MTU)
			fprintf(out, "%*smtu: %u\n", in + 2, "", q->mtu);
		if (q->set & QOS_CABLE)
			fprintf(out, "%*scable_m: %u\n", in + 2, "", q->cable_m);
		if (q->set & QOS_PAUSE_THRESHOLD)
			fprintf(out, "%*spause_threshold_bytes: %u\n", in + 2, "",
				q->pause_threshold_bytes);
	}
}

static void print_roce(FILE *out, const void *sec)
{
	const struct roce_conf *c = sec;

	fputs("roce:\n", out);
	print_policy(out, &c->roce, 2);
	fprintf(out, "  interval: %d\n  reapply: %s\n", c->roce_interval,
		c->roce_reapply ? "true" : "false");
}

static void print_switches(FILE *out, const void *sec)
{
	const struct switches_conf *c = sec;

	fputs(c->n_switches ? "switches:\n" : "switches: []\n", out);
	for (int i = 0; i < c->n_switches; i++) {
		const struct loom_switch_conf *s = &c->switches[i];

		fputs("  - name: ", out);
		cfg_print_string(out, s->name);
		fputs("\n    plugin: ", out);
		cfg_print_string(out, s->plugin);
		fputs("\n    address: ", out);
		cfg_print_string(out, s->address);
		fputs("\n    credentials: ", out);
		cfg_print_string(out, s->credentials);
		fputs("\n    options: ", out);
		cfg_print_string(out, s->options);
		fputc('\n', out);
		if (s->roce.set) {
			fputs("    roce:\n", out);
			print_policy(out, &s->roce, 6);
		}
	}
}

static void defaults_roce(void *sec)
{
	struct roce_conf *c = sec;

	qos_policy_defaults(&c->roce);
	c->roce_interval = 300;
	c->roce_reapply = 0;
}

/* The checks of the policy as every switch will hold it run with roce:'s,
 * after switches: (registered after it) is read too. */
const struct roce_conf *roce_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &roce_config);
}

const struct switches_conf *switches_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &roce_switches_config);
}

/* Switches are driven through plugins.dir/PLUGIN.so (loomd -n). */
static int check_host_switches(const struct loom_config *conf, const void *sec, char *err,
			       size_t errlen)
{
	const struct switches_conf *c = sec;
	char why[PATH_MAX + 128];
	struct stat st;

	if (c->n_switches > 0 && (stat(conf->plugin_dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		snprintf(why, sizeof(why), "directory %s does not exist (the %d configured "
			 "switches need their plugins there)", conf->plugin_dir, c->n_switches);
		return cfg_host_fail(conf, "plugins", "dir", conf->plugin_dir, -ENOENT, why, err,
				     errlen);
	}
	return 0;
}

/* Each a shape of its own (a policy of nested maps and lists, a list of
 * switches each with a policy): no table of scalar keys holds them. */
const struct config_section roce_config = {
	.name = "roce", .size = sizeof(struct roce_conf), .parse = parse_roce, .print = print_roce, .defaults = defaults_roce,
	.check = check_roce,
};

const struct config_section roce_switches_config = {
	.name = "switches", .size = sizeof(struct switches_conf), .parse = parse_switches,
	.print = print_switches, .check_host = check_host_switches,
};
