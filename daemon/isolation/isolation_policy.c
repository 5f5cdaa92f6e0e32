/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_policy.c: see isolation_policy.h. */
#include "autoconf.h"
#include "daemon/isolation/isolation_policy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rule_names[ISO_RULE_N] = {
	[ISO_RULE_ERRORS] = "errors", [ISO_RULE_BER] = "ber", [ISO_RULE_FLAPS] = "flaps",
	[ISO_RULE_DEGRADED] = "degraded", [ISO_RULE_FINDING] = "finding",
	[ISO_RULE_OPERATOR] = "operator",
};

const char *iso_rule_name(enum iso_rule r)
{
	return (unsigned)r < ISO_RULE_N ? rule_names[r] : "?";
}

static const char *const mode_names[] = { "off", "dry-run", "on" };

const char *iso_mode_name(int mode)
{
	return mode >= 0 && mode <= ISO_MODE_ON ? mode_names[mode] : "?";
}

int iso_mode_parse(const char *s, int *mode)
{
	for (int m = 0; m <= ISO_MODE_ON; m++)
		if (s && !strcmp(s, mode_names[m])) {
			*mode = m;
			return 0;
		}
	return -1;
}

const char *iso_state_name(int state)
{
	switch (state) {
	case ISO_ISOLATED: return "isolated";
	case ISO_HELD: return "held";
	case ISO_DRAINED: return "drained";
	}
	return "?";
}

const char *iso_action_name(int act)
{
	static const char *const n[] = { "isolate", "would-isolate", "drain", "would-drain",
					 "refuse", "dirty", "restore", "hold" };

	return act >= 0 && act <= ISO_ACT_HOLD ? n[act] : "?";
}

static int end_lt(const struct iso_end *x, const struct iso_end *y)
{
	return x->guid < y->guid || (x->guid == y->guid && x->port < y->port);
}

void iso_link_canon(struct iso_link *l)
{
	if (end_lt(&l->b, &l->a)) {
		struct iso_end t = l->a;

		l->a = l->b;
		l->b = t;
	}
}

int iso_link_is_host(const struct iso_link *l)
{
	return l->a.is_ca || l->b.is_ca;
}

int iso_link_eq(const struct iso_link *x, const struct iso_link *y)
{
	return x->a.guid == y->a.guid && x->a.port == y->a.port && x->b.guid == y->b.guid &&
	       x->b.port == y->b.port;
}

int iso_link_has(const struct iso_link *l, uint64_t guid, unsigned port)
{
	return (l->a.guid == guid && l->a.port == port) || (l->b.guid == guid && l->b.port == port);
}

double iso_probation(const struct iso_bounds *b, unsigned returns)
{
	double p = b->clean_for_s;

	for (unsigned i = 0; i < returns && p < 1e9; i++)
		p *= b->backoff > 1 ? b->backoff : 1;
	return p;
}

int iso_excluded(const struct iso_bounds *b, const struct iso_end *e, double now)
{
	for (size_t i = 0; i < b->n_exclude; i++) {
		const struct iso_exclude *x = &b->exclude[i];

		if (x->guid == e->guid && (x->port == 0 || x->port == e->port) &&
		    (x->until <= 0 || now < x->until))
			return 1;
	}
	return 0;
}

size_t iso_count_switch(const struct iso_entry *entries, size_t n, uint64_t sw)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (entries[i].state != ISO_DRAINED &&
		    ((!entries[i].link.a.is_ca && entries[i].link.a.guid == sw) ||
		     (!entries[i].link.b.is_ca && entries[i].link.b.guid == sw)))
			c++;
	return c;
}

static const struct iso_candidate *find_cand(const struct iso_candidate *c, size_t n,
					     const struct iso_link *l)
{
	for (size_t i = 0; i < n; i++)
		if (iso_link_eq(&c[i].link, l))
			return &c[i];
	return NULL;
}

static int in_entries(const struct iso_entry *e, size_t n, const struct iso_link *l)
{
	for (size_t i = 0; i < n; i++)
		if (iso_link_eq(&e[i].link, l))
			return 1;
	return 0;
}

/* Switch cables taken this round, for the bounds of the next candidates. */
struct taken {
	const struct iso_link **v;
	size_t n;
};

static size_t taken_switch(const struct taken *t, uint64_t sw)
{
	size_t c = 0;

	for (size_t i = 0; i < t->n; i++)
		c += t->v[i]->a.guid == sw || t->v[i]->b.guid == sw;
	return c;
}

static int refused_by_bounds(const struct iso_bounds *b, const struct iso_entry *entries,
			     size_t n_e, const struct taken *t, const struct iso_link *l,
			     char *why, size_t len)
{
	size_t links = 0;
	const struct iso_end *ends[2] = { &l->a, &l->b };

	for (size_t i = 0; i < n_e; i++)
		links += entries[i].state != ISO_DRAINED;
	if (b->max_isolated >= 0 && links + t->n >= (size_t)b->max_isolated) {
		snprintf(why, len, "isolation.max_isolated (%d) links are out of the routes",
			 b->max_isolated);
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		size_t c = iso_count_switch(entries, n_e, ends[k]->guid) +
			   taken_switch(t, ends[k]->guid);

		if (b->max_per_switch >= 0 && c >= (size_t)b->max_per_switch) {
			snprintf(why, len, "isolation.max_per_switch (%d) links of switch 0x%016"
				 PRIx64 " are out of the routes", b->max_per_switch, ends[k]->guid);
			return 1;
		}
	}
	return 0;
}

size_t iso_policy_decide(const struct iso_bounds *b, const struct iso_entry *entries, size_t n_e,
			 const struct iso_candidate *cand, size_t n_c, double now,
			 struct iso_decision *out)
{
	struct taken t = { calloc(n_c ? n_c : 1, sizeof(*t.v)), 0 };
	size_t n = 0;

	for (size_t i = 0; i < n_e; i++) {
		const struct iso_entry *e = &entries[i];
		struct iso_decision *d = &out[n];

		memset(d, 0, sizeof(*d));
		d->index = i;
		if (find_cand(cand, n_c, &e->link)) {
			d->act = ISO_ACT_DIRTY;
			snprintf(d->why, sizeof(d->why), "its rules hold again: clean time starts over");
			n++;
			continue;
		}
		if (e->by_operator || e->state == ISO_HELD || now - e->clean_since < e->probation_s)
			continue;
		if (e->state != ISO_DRAINED && b->max_returns > 0 &&
		    e->returns >= (unsigned)b->max_returns) {
			d->act = ISO_ACT_HOLD;
			snprintf(d->why, sizeof(d->why), "clean for %.0f s, but it came back %u times "
				 "(isolation.max_returns): it stays out until an operator restores it",
				 now - e->clean_since, e->returns);
		} else {
			d->act = ISO_ACT_RESTORE;
			snprintf(d->why, sizeof(d->why), "clean for %.0f s (probation %.0f s)",
				 now - e->clean_since, e->probation_s);
		}
		n++;
	}
	for (size_t i = 0; i < n_c; i++) {
		const struct iso_candidate *c = &cand[i];
		struct iso_decision *d = &out[n];
		const struct iso_end *ex = NULL;

		if (in_entries(entries, n_e, &c->link))
			continue;
		memset(d, 0, sizeof(*d));
		d->index = i;
		n++;
		if (iso_excluded(b, &c->link.a, now))
			ex = &c->link.a;
		else if (iso_excluded(b, &c->link.b, now))
			ex = &c->link.b;
		if (ex) {
			d->act = ISO_ACT_REFUSE;
			snprintf(d->why, sizeof(d->why), "0x%016" PRIx64 "[%u] is in isolation.exclude",
				 ex->guid, ex->port);
		} else if (iso_link_is_host(&c->link)) {
			if (!b->drain_hosts) {
				d->act = ISO_ACT_REFUSE;
				snprintf(d->why, sizeof(d->why), "a host's cable is never taken out of "
					 "the routes, and isolation.drain_hosts is off");
			} else {
				d->act = b->mode == ISO_MODE_ON ? ISO_ACT_DRAIN : ISO_ACT_WOULD_DRAIN;
				snprintf(d->why, sizeof(d->why), "a host's cable: the host is drained");
			}
		} else if (!t.v) {
			d->act = ISO_ACT_REFUSE;
			snprintf(d->why, sizeof(d->why), "out of memory");
		} else if (refused_by_bounds(b, entries, n_e, &t, &c->link, d->why,
					     sizeof(d->why))) {
			d->act = ISO_ACT_REFUSE;
		} else {
			d->act = b->mode == ISO_MODE_ON ? ISO_ACT_ISOLATE : ISO_ACT_WOULD_ISOLATE;
			t.v[t.n++] = &c->link;
		}
	}
	free(t.v);
	return n;
}
