/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_counters.h: the checks every fuzzer of a counters_read
 * decoder makes of what it reports (loom_plugin.h's struct lp_counter):
 * each counter one of loom's names in its scope, its index 0..7 (0 for a
 * port counter), 64 bits (a gauge: 1 bit, value 0 or 1), reported once
 * (within its port's run: plugins report port by port), never after its
 * port's error; a port_error once per port, with a reason
 * that names `must_name` (the GET or command), never after its counters.
 * Header only: included by the fuzzers that need it. */
#ifndef LOOM_FUZZ_COUNTERS_H
#define LOOM_FUZZ_COUNTERS_H

#include <stdio.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "loom/loom_plugin.h"

#define FC_PORTS 64
#define FC_SEEN 160               /* one port's counters (LP_PORT_COUNTERS) and some */

struct fc_seen {
	const char *must_name;
	char port[FC_PORTS][LP_NAME_LEN];
	int bad[FC_PORTS], had[FC_PORTS];
	size_t n;
	char key[FC_SEEN][48];      /* the current port's "name scope index" */
	size_t n_key, key_port;
};

/* Ready for a decoder's run. */
static void fc_reset(struct fc_seen *s, const char *must_name)
{
	s->must_name = must_name;
	s->n = 0;
	s->n_key = 0;
	s->key_port = FC_PORTS;
	memset(s->bad, 0, sizeof(s->bad));
	memset(s->had, 0, sizeof(s->had));
}

static size_t fc_port(struct fc_seen *s, const char *port)
{
	size_t i;

	fuzz_check_terminated(port, LP_NAME_LEN, "counter port");
	if (!*port)
		fuzz_bug("a counter or error of a port without a name");
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->port[i], port))
			return i;
	if (s->n == FC_PORTS)
		return FC_PORTS - 1;
	snprintf(s->port[s->n], LP_NAME_LEN, "%s", port);
	return s->n++;
}

static int fc_counter(void *ctx, const struct lp_counter *c)
{
	static const struct {
		const char *name;
		enum lp_counter_scope scope;
	} known[] = {
		{ "in_octets", LP_COUNTER_PORT }, { "out_octets", LP_COUNTER_PORT },
		{ "in_errors", LP_COUNTER_PORT }, { "out_errors", LP_COUNTER_PORT },
		{ "in_discards", LP_COUNTER_PORT }, { "out_discards", LP_COUNTER_PORT },
		{ "pfc_rx_pause", LP_COUNTER_PRIORITY }, { "pfc_tx_pause", LP_COUNTER_PRIORITY },
		{ "pfc_rx_pause_duration_us", LP_COUNTER_PRIORITY },
		{ "pfc_tx_pause_duration_us", LP_COUNTER_PRIORITY },
		{ "queue_packets", LP_COUNTER_QUEUE }, { "queue_drops", LP_COUNTER_QUEUE },
		{ "ecn_marked", LP_COUNTER_QUEUE }, { "pfcwd_storm_detected", LP_COUNTER_QUEUE },
		{ "pfcwd_storm_restored", LP_COUNTER_QUEUE }, { "pfcwd_stormed", LP_COUNTER_QUEUE },
	};
	struct fc_seen *s = ctx;
	size_t k, p = fc_port(s, c->port);
	char key[48];

	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(c->name, known[k].name))
			break;
	if (k == sizeof(known) / sizeof(known[0]) || c->scope != known[k].scope)
		fuzz_bug("counter %s of scope %d is none of loom's", c->name, (int)c->scope);
	if (c->index > 7 || (c->scope == LP_COUNTER_PORT && c->index))
		fuzz_bug("counter %s index %u", c->name, c->index);
	if (c->gauge ? c->bits != 1 || c->value > 1 : c->bits != 64)
		fuzz_bug("counter %s: %u bits, gauge %u, value %llu", c->name, c->bits, c->gauge,
			 (unsigned long long)c->value);
	if (c->gauge != !strcmp(c->name, "pfcwd_stormed"))
		fuzz_bug("counter %s: gauge %u", c->name, c->gauge);
	if (s->bad[p])
		fuzz_bug("port %s reported after its error", c->port);
	if (p != s->key_port) {
		s->key_port = p;
		s->n_key = 0;
	}
	snprintf(key, sizeof(key), "%s %d %u", c->name, (int)c->scope, c->index);
	for (size_t i = 0; i < s->n_key; i++)
		if (!strcmp(s->key[i], key))
			fuzz_bug("counter %s of %s reported twice", key, c->port);
	if (s->n_key < FC_SEEN)
		memcpy(s->key[s->n_key++], key, sizeof(key));
	s->had[p] = 1;
	return 0;
}

static int fc_port_error(void *ctx, const char *port, const char *reason)
{
	struct fc_seen *s = ctx;
	size_t p = fc_port(s, port);

	if (!reason || !strstr(reason, s->must_name))
		fuzz_bug("port error \"%s\" names no %s", reason ? reason : "(null)", s->must_name);
	if (s->had[p] || s->bad[p])
		fuzz_bug("port %s: an error after its counters, or a second one", port);
	s->bad[p] = 1;
	return 0;
}

#endif
