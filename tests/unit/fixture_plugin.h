/* tests/unit/fixture_plugin.h: what the switch plugins' unit tests share:
 * sinks that collect a plugin's ports and LLDP neighbours into arrays
 * (reset the counts before each call). */
#ifndef LOOM_TEST_FIXTURE_PLUGIN_H
#define LOOM_TEST_FIXTURE_PLUGIN_H

#include <stddef.h>

#include "loom/loom_plugin.h"

#define FP_MAX_PORTS 16
#define FP_MAX_NEIGHBORS 8

extern struct lp_port fp_ports[FP_MAX_PORTS];
extern size_t fp_n_ports;
extern struct lp_neighbor fp_neigh[FP_MAX_NEIGHBORS];
extern size_t fp_n_neigh;

/* lp_port_sink / lp_neighbor_sink callbacks (ctx unused): append, failing
 * the test past the array's size. */
int fp_port_sink(void *ctx, const struct lp_port *p);
int fp_neighbor_sink(void *ctx, const struct lp_neighbor *n);

/* loom's default policy (checked) on the ports the switch's inventory
 * reports, left in fp_ports; a new lp_qos for the caller to free. */
struct lp_qos *fp_default_want(const struct loom_plugin_v1 *ops, struct lp_switch *sw);

#endif
