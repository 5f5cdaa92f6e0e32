/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos_qos.c: loom's lossless RoCE QoS (struct lp_qos) in EOS
 * configuration lines, and read back from the running-config.
 *
 * Source of state: the text of "show running-config" (eAPI format "text",
 * result {"output": "..."}). EOS has json show commands for QoS ("show qos
 * maps", "show qos interfaces", "show priority-flow-control") but their
 * JSON field names could not be confirmed from any source at hand, while
 * the configuration lines are what apply writes anyway: reading them back
 * makes the diff exact and the apply idempotent.
 *
 * Lines loom manages (sources: aristanetworks/avd's eos_cli_config_gen
 * templates and schema, python-avd/pyavd/_eos_cli_config_gen/j2templates/
 * eos/ethernet-interfaces.j2, ethernet-interface-tx-queues.j2, ...-uc-tx-
 * queues.j2, schema_fragments/ethernet_interfaces.schema.yml; a DISA STIG
 * for EOS (V-256014); docs/eos-qos-notes.md has the details):
 *   global:      qos map dscp <d...> to traffic-class <t>
 *                qos map traffic-class <t...> to tx-queue <q>
 *   interface:   qos trust dscp
 *                priority-flow-control on
 *                priority-flow-control priority <p> no-drop
 *   queue q:     priority strict / no priority (round-robin)
 *                bandwidth percent <w>
 *                random-detect ecn minimum-threshold <n> bytes
 *                    maximum-threshold <m> bytes max-mark-probability <pct>
 *
 * The queue keyword is the platform's: "uc-tx-queue q" on the VOQ families
 * (Jericho / DNX: 7280R, 7500R, 7800R), "tx-queue q" on the others
 * (Trident / Tomahawk: 7050X, 7060X, 7260X, ...); EOS has only one of the
 * two on a platform. eos_platform_voq decides from show version's
 * modelName; both forms are read.
 *
 * QoS trust: the DSCP -> traffic-class map classifies a port's packets only
 * when the port trusts DSCP. Without a "qos trust" line a routed port
 * trusts DSCP and a switchport CoS (EOS's defaults as loom issue 17 and the
 * EOS manual give them; not confirmed from a retrieved page), so loom pins
 * "qos trust dscp" on every port it manages, the routed ones too (a later
 * "switchport" would turn their default to CoS), and reads it back: a port
 * that does not trust DSCP is drift, and qos_read reports for such a port
 * the classification it really gets (every DSCP to the class of the
 * default CoS 0, traffic class 1).
 *
 * ECN thresholds are written in bytes, always: EOS's units are segments,
 * bytes, kbytes, mbytes (and milliseconds), but no source found says
 * whether its kbyte is 10^3 or 2^10 bytes. Bytes are exact whatever the
 * answer, so what loom writes reads back exactly. A line in kbytes or
 * mbytes (an operator's) is read as 10^3 / 10^6 bytes (EOS_KBYTE, an
 * assumption) for qos_read only; apply compares the line's text, so such a
 * line always differs from loom's and is rewritten in bytes. EOS takes
 * thresholds 1..256000000 (EOS_ECN_MAX), minimum <= maximum (equal taken),
 * max-mark-probability 1..100; loom refuses anything else before sending.
 *
 * Defaults where the running-config has no line (assumed, unconfirmed):
 * DSCP d -> traffic class d/8, except 0-7 -> 1 and 8-15 -> 0 (the default
 * cos-to-tc map 0->1, 1->0 applied to d/8); traffic class t -> tx-queue t;
 * every tx-queue strict priority.
 *
 * DSCPs that go to one class are sent up to 8 in one "qos map dscp" line
 * (EOS takes more: the STIG's line has 55; 8 keeps lines short); each is
 * still reported as a change of its own.
 *
 * What a queue is: a queue strict in loom's want is left alone when EOS
 * already schedules it strict (explicitly or by default); a weighted one
 * gets "no priority" and "bandwidth percent <w>"; a queue with neither is
 * not loom's and never touched. ECN is set where loom wants it and removed
 * ("no random-detect ecn") where it does not.
 *
 * Not managed: tc_to_pg (EOS derives priority groups itself; qos_read
 * reports pg = class for PFC classes, as loom resolves it), per-port
 * headroom (EOS computes it), the PFC watchdog, mc-tx-queues. */
#include "autoconf.h"
#include "eos.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a "kbytes" in a line loom did not write: an assumption (see
 * the top of this file); loom itself writes bytes. */
#define EOS_KBYTE 1000u

/* Model name prefixes (after "DCS-" / "CCS-") of the VOQ families. */
static const char *const voq_families[] = { "7280", "75", "78" };

int eos_platform_voq(const char *model)
{
	if (!model)
		return 0;
	if (!strncmp(model, "DCS-", 4) || !strncmp(model, "CCS-", 4))
		model += 4;
	for (size_t i = 0; i < sizeof(voq_families) / sizeof(voq_families[0]); i++)
		if (!strncmp(model, voq_families[i], strlen(voq_families[i])))
			return 1;
	return 0;
}

const char *eos_queue_word(const struct eos_state *st)
{
	return st->voq ? "uc-tx-queue" : "tx-queue";
}

int eos_effective_trust(const struct eos_intf *x)
{
	if (x->trust != EOS_TRUST_DEFAULT)
		return x->trust;
	return x->routed ? EOS_TRUST_DSCP : EOS_TRUST_COS;
}

int eos_default_dscp_tc(unsigned dscp)
{
	if (dscp < 8)
		return 1;
	if (dscp < 16)
		return 0;
	return (int)(dscp >> 3);
}

void eos_state_free(struct eos_state *st)
{
	free(st->intf);
	st->intf = NULL;
	st->n = 0;
}

static void txq_init(struct eos_txq *q)
{
	memset(q, 0, sizeof(*q));
	q->priority = -1;
	q->bandwidth = -1;
}

/* "150 kbytes" etc.: bytes, or 0 when not understood (segments: the
 * chip's cell size, unknown here). */
static uint32_t parse_bytes(const char *num, const char *unit)
{
	unsigned long long v = strtoull(num, NULL, 10);

	if (!strcmp(unit, "kbytes"))
		v *= EOS_KBYTE;
	else if (!strcmp(unit, "mbytes"))
		v *= (unsigned long long)EOS_KBYTE * EOS_KBYTE;
	else if (strcmp(unit, "bytes"))
		return 0;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* s: what follows "random-detect ecn " in a queue section. */
static void parse_ecn(struct eos_txq *q, const char *s)
{
	char n1[16], u1[16], n2[16], u2[16];
	unsigned p;
	int used = 0;

	if (sscanf(s, "minimum-threshold %15s %15s maximum-threshold %15s %15s%n", n1, u1, n2, u2,
		   &used) != 4)
		return;                  /* "random-detect ecn count" and the like */
	q->ecn = 1;
	q->ecn_min = parse_bytes(n1, u1);
	q->ecn_max = parse_bytes(n2, u2);
	q->ecn_prob = 100;               /* EOS marks all at the maximum without it */
	if (sscanf(s + used, " max-mark-probability %u", &p) == 1)
		q->ecn_prob = (uint8_t)(p > 100 ? 100 : p);
	snprintf(q->ecn_text, sizeof(q->ecn_text), "%s", s);
}

/* A list of numbers "3 4 5" or "3-5" or "3,4" before " to ": bit set. */
static uint64_t parse_list(const char *s, const char *end, unsigned max)
{
	uint64_t set = 0;

	while (s < end) {
		char *e;
		unsigned long a, b;

		while (s < end && (*s == ' ' || *s == ','))
			s++;
		if (s >= end || !isdigit((unsigned char)*s))
			break;
		a = b = strtoul(s, &e, 10);
		if (*e == '-')
			b = strtoul(e + 1, &e, 10);
		for (unsigned long v = a; v <= b && v < max; v++)
			set |= 1ull << v;
		s = e;
	}
	return set;
}

int eos_state_parse(const char *config, const char *const *names, size_t n,
		    struct eos_state *st, char *err, size_t errlen)
{
	struct eos_intf *cur = NULL;
	struct eos_txq *q = NULL;
	const char *line = config;

	memset(st, 0, sizeof(*st));
	for (unsigned d = 0; d < 64; d++)
		st->dscp_tc[d] = -1;
	for (unsigned t = 0; t < LP_TCS; t++)
		st->tc_txq[t] = -1;
	if (!(st->intf = calloc(n + 1, sizeof(*st->intf)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	st->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(st->intf[i].name, LP_NAME_LEN, "%s", names[i]);
		st->intf[i].trust = EOS_TRUST_DEFAULT;
		for (unsigned t = 0; t < LP_TCS; t++)
			txq_init(&st->intf[i].txq[t]);
	}
	while (line && *line) {
		size_t len = strcspn(line, "\r\n"), indent = strspn(line, " ");
		char l[512];
		const char *to;
		unsigned a;
		char n1[16];

		snprintf(l, sizeof(l), "%.*s", (int)(len < sizeof(l) ? len : sizeof(l) - 1), line);
		line += len;
		line += strspn(line, "\r\n");
		while (strlen(l) && l[strlen(l) - 1] == ' ')
			l[strlen(l) - 1] = '\0';
		if (!l[indent] || l[indent] == '!')
			continue;
		if (indent == 0) {
			cur = NULL;
			q = NULL;
			if (!strncmp(l, "interface ", 10)) {
				for (size_t i = 0; i < n; i++)
					if (!strcmp(st->intf[i].name, l + 10)) {
						cur = &st->intf[i];
						cur->found = 1;
					}
			} else if (!strncmp(l, "qos map dscp ", 13) &&
				   (to = strstr(l, " to traffic-class ")) &&
				   sscanf(to, " to traffic-class %u", &a) == 1 && a < LP_TCS) {
				uint64_t set = parse_list(l + 13, to, 64);

				for (unsigned d = 0; d < 64; d++)
					if (set >> d & 1)
						st->dscp_tc[d] = (int)a;
			} else if (!strncmp(l, "qos map traffic-class ", 22) &&
				   (to = strstr(l, " to tx-queue ")) &&
				   sscanf(to, " to tx-queue %u", &a) == 1 && a < LP_TCS) {
				uint64_t set = parse_list(l + 22, to, LP_TCS);

				for (unsigned t = 0; t < LP_TCS; t++)
					if (set >> t & 1)
						st->tc_txq[t] = (int)a;
			}
			continue;
		}
		if (!cur)
			continue;
		if (indent <= 3) {
			const char *s = l + indent;

			q = NULL;
			if (!strcmp(s, "priority-flow-control on") ||
			    !strcmp(s, "priority-flow-control mode on"))
				cur->pfc_on = 1;
			else if (!strcmp(s, "no switchport"))
				cur->routed = 1;
			else if (!strcmp(s, "qos trust dscp"))
				cur->trust = EOS_TRUST_DSCP;
			else if (!strcmp(s, "qos trust cos"))
				cur->trust = EOS_TRUST_COS;
			else if (!strcmp(s, "no qos trust"))
				cur->trust = EOS_TRUST_NONE;
			else if (sscanf(s, "priority-flow-control priority %u %15s", &a, n1) == 2 &&
				 !strcmp(n1, "no-drop") && a < LP_TCS)
				cur->nodrop |= (uint8_t)(1u << a);
			else if ((sscanf(s, "tx-queue %u", &a) == 1 ||
				  sscanf(s, "uc-tx-queue %u", &a) == 1) && a < LP_TCS)
				q = &cur->txq[a];
			continue;
		}
		if (!q)
			continue;
		{
			const char *s = l + indent;

			if (!strcmp(s, "priority strict"))
				q->priority = 1;
			else if (!strcmp(s, "no priority"))
				q->priority = 0;
			else if (!strncmp(s, "bandwidth percent", 17)) {
				int end = 0;

				/* EOS takes 1..100; anything else is no line EOS shows */
				if (sscanf(s, "bandwidth percent %u%n", &a, &end) != 1 || s[end] ||
				    s[17] != ' ' || a < 1 || a > 100) {
					snprintf(err, errlen, "show running-config: interface %s "
						 "tx-queue %u: \"%.40s\" is no bandwidth percent "
						 "1..100", cur->name, (unsigned)(q - cur->txq), s);
					eos_state_free(st);
					return -EPROTO;
				}
				q->bandwidth = (int)a;
			}
			else if (!strncmp(s, "random-detect ecn ", 18))
				parse_ecn(q, s + 18);
		}
	}
	return 0;
}

static int eff_dscp(const struct eos_state *st, unsigned d)
{
	return st->dscp_tc[d] >= 0 ? st->dscp_tc[d] : eos_default_dscp_tc(d);
}

static int eff_txq(const struct eos_state *st, unsigned t)
{
	return st->tc_txq[t] >= 0 ? st->tc_txq[t] : (int)t;
}

int eos_state_to_qos(const struct eos_state *st, struct lp_qos *q, char *err, size_t errlen)
{
	const struct eos_intf *ref = NULL;
	uint8_t used = 0;
	int mapped = 0, dscp_trusted = 1;

	memset(q->dscp_to_tc, 0, sizeof(q->dscp_to_tc));
	memset(q->tc_to_queue, 0, sizeof(q->tc_to_queue));
	memset(q->tc_to_pg, 0, sizeof(q->tc_to_pg));
	memset(q->ets_weight, 0, sizeof(q->ets_weight));
	memset(q->ecn, 0, sizeof(q->ecn));
	memset(&q->pfcwd, 0, sizeof(q->pfcwd));
	q->pfc_mask = q->strict_mask = 0;
	/* the DSCP map classifies only where the port trusts DSCP; elsewhere an
	 * untagged packet gets the class of the default CoS 0, whatever its
	 * DSCP (eos_default_dscp_tc(0): the default cos 0 -> tc 1) */
	for (size_t i = 0; i < st->n; i++)
		if (st->intf[i].found && eos_effective_trust(&st->intf[i]) != EOS_TRUST_DSCP)
			dscp_trusted = 0;
	for (unsigned d = 0; d < 64; d++) {
		q->dscp_to_tc[d] = (uint8_t)(dscp_trusted ? eff_dscp(st, d) : eos_default_dscp_tc(0));
		mapped |= st->dscp_tc[d] >= 0;
	}
	for (unsigned t = 0; t < LP_TCS; t++)
		q->tc_to_queue[t] = (uint8_t)eff_txq(st, t);
	for (unsigned d = 0; d < 64; d++)
		used |= (uint8_t)(1u << q->tc_to_queue[q->dscp_to_tc[d]]);
	for (size_t i = 0; i < st->n; i++)
		if (st->intf[i].found && st->intf[i].pfc_on && st->intf[i].nodrop) {
			ref = &st->intf[i];
			break;
		}
	if (!ref && !mapped) {
		snprintf(err, errlen, "no lossless QoS configuration: no \"qos map dscp\" line and "
			 "no interface with \"priority-flow-control priority <p> no-drop\"");
		return -ENOENT;
	}
	if (!ref)
		for (size_t i = 0; i < st->n && !ref; i++)
			if (st->intf[i].found)
				ref = &st->intf[i];
	if (ref) {
		q->pfc_mask = ref->pfc_on ? ref->nodrop : 0;
		for (unsigned t = 0; t < LP_TCS; t++) {
			const struct eos_txq *x = &ref->txq[t];

			if (x->priority != 0 && (used >> t & 1))
				q->strict_mask |= (uint8_t)(1u << t);
			if (x->priority == 0 && x->bandwidth > 0)
				q->ets_weight[t] = (uint8_t)x->bandwidth;
			if (x->ecn)
				q->ecn[t] = (struct lp_ecn){ 1, x->ecn_min, x->ecn_max, x->ecn_prob };
		}
	}
	for (unsigned t = 0; t < LP_TCS; t++)
		q->tc_to_pg[t] = (q->pfc_mask >> t & 1) ? (uint8_t)t : 0;
	return 0;
}

/* ---- the plan --------------------------------------------------------------- */

void eos_plan_free(struct eos_plan *p)
{
	free(p->e);
	memset(p, 0, sizeof(*p));
}

static int edit(struct eos_plan *p, int intf, int txq, const char *key, const char *field,
		const char *before, const char *after, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
static int edit(struct eos_plan *p, int intf, int txq, const char *key, const char *field,
		const char *before, const char *after, const char *fmt, ...)
{
	struct eos_edit *e;
	va_list ap;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 128;
		void *v = realloc(p->e, cap * sizeof(*p->e));

		if (!v)
			return -ENOMEM;
		p->e = v;
		p->cap = cap;
	}
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->intf = intf;
	e->txq = txq;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->field, sizeof(e->field), "%s", field);
	snprintf(e->before, sizeof(e->before), "%s", before);
	snprintf(e->after, sizeof(e->after), "%s", after);
	va_start(ap, fmt);
	vsnprintf(e->line, sizeof(e->line), fmt, ap);
	va_end(ap);
	return 0;
}

/* What loom writes after "random-detect ecn ": bytes, exact. */
static void fmt_ecn(char *out, size_t len, uint32_t min, uint32_t max, unsigned prob)
{
	snprintf(out, len, "minimum-threshold %u bytes maximum-threshold %u bytes "
		 "max-mark-probability %u", min, max, prob);
}

/* want's ECN settings inside what EOS takes (see the top of this file). */
static int ecn_check(const struct lp_qos *want, char *err, size_t errlen)
{
	for (unsigned t = 0; t < LP_TCS; t++) {
		const struct lp_ecn *e = &want->ecn[t];

		if (!e->enabled)
			continue;
		if (e->min_bytes < 1 || e->min_bytes > EOS_ECN_MAX) {
			snprintf(err, errlen, "tx-queue %u ECN: minimum-threshold %u bytes; EOS takes "
				 "1..%u", t, e->min_bytes, EOS_ECN_MAX);
			return -EINVAL;
		}
		if (e->max_bytes < 1 || e->max_bytes > EOS_ECN_MAX) {
			snprintf(err, errlen, "tx-queue %u ECN: maximum-threshold %u bytes; EOS takes "
				 "1..%u", t, e->max_bytes, EOS_ECN_MAX);
			return -EINVAL;
		}
		if (e->min_bytes > e->max_bytes) {
			snprintf(err, errlen, "tx-queue %u ECN: minimum-threshold %u bytes above "
				 "maximum-threshold %u bytes; EOS refuses it", t, e->min_bytes,
				 e->max_bytes);
			return -EINVAL;
		}
		if (e->mark_percent > 100) {
			snprintf(err, errlen, "tx-queue %u ECN: max-mark-probability %u; EOS takes "
				 "1..100", t, e->mark_percent);
			return -EINVAL;
		}
	}
	return 0;
}

static const char *trust_name(const struct eos_intf *x)
{
	static const char *const names[] = { "untrusted", "cos", "dscp" };
	int t = eos_effective_trust(x);

	if (x->trust == EOS_TRUST_DEFAULT)
		return t == EOS_TRUST_DSCP ? "dscp (default)" : "cos (default)";
	return names[t];
}

static int name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("/._:-", *s))
			return 0;
	return 1;
}

int eos_plan_qos(const struct lp_qos *want, const struct eos_state *st, struct eos_plan *p,
		 char *err, size_t errlen)
{
	char key[96], field[64], b[160], a[160];
	const char *qw = eos_queue_word(st);
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if ((rc = ecn_check(want, err, errlen)))
		return rc;
	for (unsigned d = 0; d < 64 && !rc; d++) {
		if (want->dscp_to_tc[d] >= LP_TCS) {
			snprintf(err, errlen, "DSCP %u maps to traffic class %u; EOS has 0..7", d,
				 want->dscp_to_tc[d]);
			return -EINVAL;
		}
		if (eff_dscp(st, d) == want->dscp_to_tc[d])
			continue;
		snprintf(field, sizeof(field), "%u", d);
		snprintf(b, sizeof(b), "%d", eff_dscp(st, d));
		snprintf(a, sizeof(a), "%u", want->dscp_to_tc[d]);
		rc = edit(p, -1, -1, "qos map dscp", field, b, a, "qos map dscp %u to traffic-class %u",
			  d, want->dscp_to_tc[d]);
	}
	for (unsigned t = 0; t < LP_TCS && !rc; t++) {
		if (want->tc_to_queue[t] >= LP_TCS) {
			snprintf(err, errlen, "traffic class %u goes to queue %u; EOS has 0..7", t,
				 want->tc_to_queue[t]);
			return -EINVAL;
		}
		if (eff_txq(st, t) == want->tc_to_queue[t])
			continue;
		snprintf(field, sizeof(field), "%u", t);
		snprintf(b, sizeof(b), "%d", eff_txq(st, t));
		snprintf(a, sizeof(a), "%u", want->tc_to_queue[t]);
		rc = edit(p, -1, -1, "qos map traffic-class", field, b, a,
			  "qos map traffic-class %u to tx-queue %u", t, want->tc_to_queue[t]);
	}
	for (size_t i = 0; i < st->n && !rc; i++) {
		const struct eos_intf *x = &st->intf[i];
		int on = want->pfc_mask != 0;

		if (!name_ok(x->name)) {
			snprintf(err, errlen, "\"%s\" is no EOS interface name", x->name);
			eos_plan_free(p);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "interface %s", x->name);
		if (x->trust != EOS_TRUST_DSCP)
			rc = edit(p, (int)i, -1, key, "qos trust", trust_name(x), "dscp",
				  "qos trust dscp");
		if (!rc && x->pfc_on != on)
			rc = edit(p, (int)i, -1, key, "priority-flow-control", x->pfc_on ? "on" : "off",
				  on ? "on" : "off", "%spriority-flow-control%s", on ? "" : "no ",
				  on ? " on" : "");
		for (unsigned t = 0; t < LP_TCS && !rc; t++) {
			int have = x->nodrop >> t & 1, w = want->pfc_mask >> t & 1;

			if (have == w)
				continue;
			snprintf(field, sizeof(field), "priority-flow-control priority %u", t);
			rc = edit(p, (int)i, -1, key, field, have ? "no-drop" : "", w ? "no-drop" : "",
				  "%spriority-flow-control priority %u no-drop", w ? "" : "no ", t);
		}
		for (unsigned t = 0; t < LP_TCS && !rc; t++) {
			const struct eos_txq *q = &x->txq[t];
			int strict = want->strict_mask >> t & 1, weight = want->ets_weight[t];
			const struct lp_ecn *e = &want->ecn[t];

			snprintf(key, sizeof(key), "interface %s/%s %u", x->name, qw, t);
			if (strict && q->priority == 0)
				rc = edit(p, (int)i, (int)t, key, "priority", "round-robin", "strict",
					  "priority strict");
			if (!rc && strict && q->bandwidth >= 0) {
				snprintf(b, sizeof(b), "%d", q->bandwidth);
				rc = edit(p, (int)i, (int)t, key, "bandwidth percent", b, "",
					  "no bandwidth percent");
			}
			if (!rc && !strict && weight && q->priority != 0)
				rc = edit(p, (int)i, (int)t, key, "priority", "strict", "round-robin",
					  "no priority");
			if (!rc && !strict && weight && q->bandwidth != weight) {
				snprintf(b, sizeof(b), "%d", q->bandwidth);
				snprintf(a, sizeof(a), "%d", weight);
				rc = edit(p, (int)i, (int)t, key, "bandwidth percent",
					  q->bandwidth >= 0 ? b : "", a, "bandwidth percent %d", weight);
			}
			if (rc)
				break;
			/* the line as the switch shows it: one in other units than
			 * bytes never equals loom's, and is rewritten in bytes */
			b[0] = a[0] = '\0';
			if (q->ecn)
				snprintf(b, sizeof(b), "%s", q->ecn_text);
			if (e->enabled)
				fmt_ecn(a, sizeof(a), e->min_bytes, e->max_bytes,
					e->mark_percent ? e->mark_percent : 100);
			if (strcmp(a, b))
				rc = e->enabled ? edit(p, (int)i, (int)t, key, "random-detect ecn", b, a,
						       "random-detect ecn %s", a)
						: edit(p, (int)i, (int)t, key, "random-detect ecn", b, "",
						       "no random-detect ecn");
		}
	}
	if (rc) {
		snprintf(err, errlen, "out of memory");
		eos_plan_free(p);
	}
	return rc;
}

void eos_cmds_free(char **cmds, size_t n)
{
	if (!cmds)
		return;
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cmds);
}

int eos_plan_cmds(const struct eos_plan *p, const struct eos_state *st, const char *session,
		  char ***cmds, size_t *n)
{
	size_t cap = 5 * p->n + 8, k = 0;
	char **v = calloc(cap, sizeof(*v));
	char *sent = calloc(p->n + 1, 1);
	int in_intf = -1, in_txq = -1;

#define PUSH(...)                                                                  \
	do {                                                                       \
		if (asprintf(&v[k], __VA_ARGS__) < 0) {                             \
			v[k] = NULL;                                               \
			goto oom;                                                  \
		}                                                                  \
		k++;                                                               \
	} while (0)
	if (!v || !sent) {
		free(v);
		free(sent);
		return -ENOMEM;
	}
	PUSH("enable");
	PUSH("configure session %s", session);
	for (size_t i = 0; i < p->n; i++) {
		const struct eos_edit *e = &p->e[i];

		if (in_txq >= 0 && (e->intf != in_intf || e->txq != in_txq)) {
			PUSH("exit");
			in_txq = -1;
		}
		if (in_intf >= 0 && e->intf != in_intf) {
			PUSH("exit");
			in_intf = -1;
		}
		if (e->intf >= 0 && in_intf < 0) {
			PUSH("interface %s", st->intf[e->intf].name);
			in_intf = e->intf;
		}
		if (e->txq >= 0 && in_txq < 0) {
			PUSH("%s %d", eos_queue_word(st), e->txq);
			in_txq = e->txq;
		}
		if (sent[i])
			continue;
		if (!strcmp(e->key, "qos map dscp")) {
			/* DSCPs going to one class: up to 8 in one line */
			char line[160];
			size_t o = (size_t)snprintf(line, sizeof(line), "qos map dscp"), m = 0;

			for (size_t j = i; j < p->n && m < 8; j++)
				if (!sent[j] && !strcmp(p->e[j].key, e->key) &&
				    !strcmp(p->e[j].after, e->after)) {
					o += (size_t)snprintf(line + o, sizeof(line) - o, " %s",
							      p->e[j].field);
					sent[j] = 1;
					m++;
				}
			PUSH("%s to traffic-class %s", line, e->after);
			continue;
		}
		PUSH("%s", e->line);
	}
	if (in_txq >= 0)
		PUSH("exit");
	if (in_intf >= 0)
		PUSH("exit");
	PUSH("commit");
#undef PUSH
	free(sent);
	*cmds = v;
	*n = k;
	return 0;
oom:
	free(sent);
	eos_cmds_free(v, k);
	return -ENOMEM;
}
