/* tests/unit/counter_sink.h: what a switch plugin's counters_read reported
 * (include/loom/loom_plugin.h's lp_counter_sink), kept for the test to look
 * up: test_nvue_counters.c and test_eos_counters.c. Static, one copy per
 * test file; a test sets n_got and n_errs to 0 before each read. */
#ifndef LOOM_TEST_COUNTER_SINK_H
#define LOOM_TEST_COUNTER_SINK_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loom/loom_plugin.h"

#define MAX_GOT 2048
#define MAX_ERRS 16

struct got {
	char port[LP_NAME_LEN], name[48];
	enum lp_counter_scope scope;
	unsigned index, bits, gauge;
	uint64_t value;
};

static struct got got[MAX_GOT];
static size_t n_got;
static char errs[MAX_ERRS][LP_NAME_LEN + 320];
static size_t n_errs;

static inline int on_counter(void *ctx, const struct lp_counter *c)
{
	struct got *g = &got[n_got];

	(void)ctx;
	ck_assert_uint_lt(n_got, MAX_GOT);
	snprintf(g->port, sizeof(g->port), "%s", c->port);
	snprintf(g->name, sizeof(g->name), "%s", c->name);
	g->scope = c->scope;
	g->index = c->index;
	g->bits = c->bits;
	g->gauge = c->gauge;
	g->value = c->value;
	n_got++;
	return 0;
}

static inline int on_port_error(void *ctx, const char *port, const char *reason)
{
	(void)ctx;
	ck_assert_uint_lt(n_errs, MAX_ERRS);
	snprintf(errs[n_errs++], sizeof(errs[0]), "%s: %s", port, reason);
	return 0;
}

static const struct lp_counter_sink got_sink = { NULL, on_counter, on_port_error };

/* The counter, or NULL. */
static inline const struct got *got_find(const char *port, const char *name,
					 enum lp_counter_scope scope, unsigned index)
{
	for (size_t i = 0; i < n_got; i++)
		if (!strcmp(got[i].port, port) && !strcmp(got[i].name, name) &&
		    got[i].scope == scope && got[i].index == index)
			return &got[i];
	return NULL;
}

/* Its value; the test fails when it was not reported. */
static inline uint64_t got_value(const char *port, const char *name, enum lp_counter_scope scope,
				 unsigned index)
{
	const struct got *g = got_find(port, name, scope, index);

	ck_assert_msg(g, "%s %s [%d %u] not reported", port, name, (int)scope, index);
	return g->value;
}

static inline size_t got_n_of_port(const char *port)
{
	size_t n = 0;

	for (size_t i = 0; i < n_got; i++)
		n += !strcmp(got[i].port, port);
	return n;
}

#endif
