/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugin_fake.c: a switch plugin that talks to no switch, built
 * several times with different defines to test the loader:
 *   FAKE_ABI      the ABI version it claims (default LOOM_PLUGIN_ABI)
 *   FAKE_NAME     the name it gives itself (default "fake")
 *   FAKE_NO_SYMBOL  export no loom_plugin_v1 at all
 *   FAKE_NO_HEALTH  leave the health op out
 *   FAKE_ABI1     be a plugin built against ABI 1's header: its table
 *                 ends before counters_read (the size it gives), and the
 *                 bytes after it in the library are a pointer to a
 *                 counters op that fails the test if loomd ever takes it */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "loom/loom_plugin.h"

#ifndef FAKE_ABI
#define FAKE_ABI LOOM_PLUGIN_ABI
#endif
#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif

struct lp_switch {
	int unused;
};

static int fake_open(const struct lp_endpoint *ep, const struct lp_host *host,
		     struct lp_switch **out, char *err, size_t errlen)
{
	(void)ep;
	(void)host;
	if (!(*out = calloc(1, sizeof(**out)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void fake_close(struct lp_switch *sw)
{
	free(sw);
}

static int fake_inventory(struct lp_switch *sw, struct lp_inventory *inv,
			  const struct lp_port_sink *ports, char *err, size_t errlen)
{
	(void)sw, (void)inv, (void)ports, (void)err, (void)errlen;
	return 0;
}

static int fake_lldp(struct lp_switch *sw, const struct lp_neighbor_sink *out, char *err,
		     size_t errlen)
{
	(void)sw, (void)out, (void)err, (void)errlen;
	return 0;
}

static int fake_qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	(void)sw, (void)q;
	snprintf(err, errlen, "no lossless configuration");
	return -ENOENT;
}

static int fake_qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			  const struct lp_change_sink *changes, char *err, size_t errlen)
{
	(void)sw, (void)want, (void)dry_run, (void)changes, (void)err, (void)errlen;
	return 0;
}

static int fake_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
			 size_t errlen)
{
	(void)sw, (void)port, (void)vid, (void)err, (void)errlen;
	return 0;
}

static int fake_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	(void)sw, (void)port, (void)err, (void)errlen;
	return 0;
}

static int fake_health(struct lp_switch *sw, char *err, size_t errlen)
{
	(void)sw, (void)err, (void)errlen;
	return 0;
}

static int fake_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
			 size_t errlen)
{
	(void)sw, (void)port, (void)err, (void)errlen;
	*vid = 0;
	return 0;
}

/* Two ports of counters (ABI 2). */
static int fake_counters(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
			 size_t errlen)
{
	struct lp_counter c = { .port = "Ethernet0", .name = "in_octets", .bits = 64,
				.value = 1000 };
	int rc;

	(void)sw, (void)err, (void)errlen;
	if ((rc = out->counter(out->ctx, &c)))
		return rc;
	c.name = "pfc_rx_pause";
	c.scope = LP_COUNTER_PRIORITY;
	c.index = 3;
	c.value = 7;
	if ((rc = out->counter(out->ctx, &c)))
		return rc;
	return out->port_error ? out->port_error(out->ctx, "Ethernet4", "fake: no counters") : 0;
}

#if defined(FAKE_ABI1)
/* ABI 1's table (loom_plugin.h before counters_read), then what happens to
 * follow it in memory. */
static int trap_counters(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
			 size_t errlen)
{
	(void)sw, (void)out, (void)errlen;
	snprintf(err, errlen, "loomd called past an ABI-1 table");
	abort();
}

const struct {
	struct loom_plugin_v1_prefix {
		uint32_t abi, size;
		const char *name, *version;
		void *ops[11];
	} t;
	void *after;
} loom_plugin_v1 = {
	{ 1, sizeof(struct loom_plugin_v1_prefix), FAKE_NAME, "0",
	  { (void *)fake_open, (void *)fake_close, (void *)fake_inventory, (void *)fake_lldp,
	    (void *)fake_qos_read, (void *)fake_qos_apply, (void *)fake_vlan_set,
	    (void *)fake_vlan_clear, (void *)fake_health, (void *)fake_vlan_get, NULL } },
	(void *)trap_counters,
};
#elif !defined(FAKE_NO_SYMBOL)
const struct loom_plugin_v1 loom_plugin_v1 = {
	.abi = FAKE_ABI,
	.size = sizeof(struct loom_plugin_v1),
	.name = FAKE_NAME,
	.version = "0",
	.open = fake_open,
	.close = fake_close,
	.inventory = fake_inventory,
	.lldp_neighbors = fake_lldp,
	.qos_read = fake_qos_read,
	.qos_apply = fake_qos_apply,
	.vlan_set = fake_vlan_set,
	.vlan_clear = fake_vlan_clear,
#ifndef FAKE_NO_HEALTH
	.health = fake_health,
#endif
	.vlan_get = fake_vlan_get,
	.counters_read = fake_counters,
};
#endif
