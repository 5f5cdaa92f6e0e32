/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_policy.h: what loom does about bad links
 * (issue 42), as pure functions of what it knows: the links isolated now,
 * the links whose rules hold now (the candidates), loom.yaml's bounds and
 * the time. No I/O: isolation_eval.c gathers the inputs, computes the loss
 * of the isolations this allows (lib/route/route_loss.h, which may still
 * refuse one) and carries the decisions out.
 *
 * The rules per decision:
 *  - an isolated link whose rules hold again is not clean: its clean time
 *    starts over (the link stays up, so its counters keep being read);
 *  - an isolated link clean for its probation comes back (restore), unless
 *    it came back max_returns times already: then it stays (hold) until an
 *    operator restores it; the probation is clean_for * backoff^returns;
 *  - an operator's isolation never comes back by itself;
 *  - a candidate that is not isolated: refused when excluded, when
 *    max_isolated links are isolated or when one of its switches has
 *    max_per_switch; a host's cable (one end a CA) is never taken out of
 *    the routes: the host is drained when drain_hosts is on, else refused;
 *    otherwise isolated (would-isolate in dry-run), worst first: the
 *    caller orders the candidates. */
#ifndef LOOMD_ISOLATION_POLICY_H
#define LOOMD_ISOLATION_POLICY_H

#include <stddef.h>
#include <stdint.h>

enum iso_rule {
	ISO_RULE_ERRORS,    /* error counters moved by isolation.errors in the window */
	ISO_RULE_BER,       /* symbol errors over the bits of the window above 10^-ber_exp */
	ISO_RULE_FLAPS,     /* went down isolation.flaps times in the window */
	ISO_RULE_DEGRADED,  /* runs narrower or slower than both ends enable */
	ISO_RULE_FINDING,   /* an open validation finding of a code in isolation.findings */
	ISO_RULE_OPERATOR,  /* `loomctl link isolate` */
	ISO_RULE_N
};
const char *iso_rule_name(enum iso_rule r);

enum iso_mode { ISO_MODE_OFF, ISO_MODE_DRY_RUN, ISO_MODE_ON };
const char *iso_mode_name(int mode);
int iso_mode_parse(const char *s, int *mode);

struct iso_end {
	uint64_t guid;
	uint8_t port;
	uint8_t is_ca;      /* the node is a CA (or router): not a switch */
};

/* A cable, a its lower end by (GUID, port). */
struct iso_link {
	struct iso_end a, b;
};
/* The same cable whichever end is named first. */
void iso_link_canon(struct iso_link *l);
int iso_link_is_host(const struct iso_link *l);
int iso_link_eq(const struct iso_link *x, const struct iso_link *y);
/* Does the link have (guid, port) as an end? */
int iso_link_has(const struct iso_link *l, uint64_t guid, unsigned port);

struct iso_candidate {
	struct iso_link link;
	unsigned rules;          /* 1 << enum iso_rule, those that hold now */
	double severity;         /* for the order: higher first (the caller sorts) */
	char evidence[384];      /* what the reads saw, for the events */
};

enum iso_state { ISO_ISOLATED, ISO_HELD, ISO_DRAINED };
const char *iso_state_name(int state);

struct iso_entry {
	struct iso_link link;
	int state;               /* enum iso_state */
	int by_operator;
	double since, clean_since, probation_s;
	unsigned returns;        /* times it came back before this isolation */
};

struct iso_exclude {
	uint64_t guid;
	int port;                /* 0: the whole node */
	double until;            /* 0: for good */
};

struct iso_bounds {
	int mode;                /* enum iso_mode */
	int max_isolated;        /* switch cables out of the routes at once */
	int max_per_switch;      /* ... touching one switch */
	int clean_for_s;         /* first probation */
	int backoff;             /* the probation's factor per return */
	int max_returns;         /* returns before a link stays out */
	int drain_hosts;
	const struct iso_exclude *exclude;
	size_t n_exclude;
};

enum iso_action {
	ISO_ACT_ISOLATE,         /* candidate: take it out of the routes (loss check next) */
	ISO_ACT_WOULD_ISOLATE,   /* dry-run */
	ISO_ACT_DRAIN,           /* candidate: a host's cable, drain the host */
	ISO_ACT_WOULD_DRAIN,
	ISO_ACT_REFUSE,          /* candidate: why says */
	ISO_ACT_DIRTY,           /* entry: its rules hold again, clean time starts over */
	ISO_ACT_RESTORE,         /* entry: clean for its probation */
	ISO_ACT_HOLD,            /* entry: clean, but back too often: stays until an operator */
};
const char *iso_action_name(int act);

struct iso_decision {
	int act;                 /* enum iso_action */
	size_t index;            /* into the candidates or the entries */
	char why[256];
};

/* The probation of a link that came back `returns` times. */
double iso_probation(const struct iso_bounds *b, unsigned returns);
/* Is the end excluded at now? */
int iso_excluded(const struct iso_bounds *b, const struct iso_end *e, double now);

/* The decisions for entries[0..n_e) and candidates[0..n_c) (already in the
 * order of their severity) at now: at most n_e + n_c into out. Returns how
 * many. A candidate already isolated (its link among the entries) only
 * makes its entry dirty. */
size_t iso_policy_decide(const struct iso_bounds *b, const struct iso_entry *entries, size_t n_e,
			 const struct iso_candidate *cand, size_t n_c, double now,
			 struct iso_decision *out);

/* How many switch cables touch the switch with node GUID sw in
 * entries[0..n) (held and isolated; not drained hosts). */
size_t iso_count_switch(const struct iso_entry *entries, size_t n, uint64_t sw);

#endif
