/* tests/unit/fixture_plugin.h: what the switch plugins' unit tests share:
 * sinks that collect a plugin's ports and LLDP neighbours into arrays
 * (reset the counts before each call), loom's default policy, and the
 * objects of a plan (qos_objects). */
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

/* One object of qos_objects, as text: action "create", "change" or
 * "delete"; shared "" or who else uses it. */
struct fp_object {
	char key[200], action[8], shared[200];
};

#define FP_MAX_OBJECTS 256
struct fp_objects {
	struct fp_object v[FP_MAX_OBJECTS];
	size_t n;
};

/* ops->qos_objects(sw, want) into *os (asserting the op exists and
 * succeeds, err for its message). */
void fp_plan_objects(const struct loom_plugin_v1 *ops, struct lp_switch *sw,
		     const struct lp_qos *want, struct fp_objects *os, char *err, size_t errlen);
/* The object `key` of os, or NULL. */
const struct fp_object *fp_object_of(const struct fp_objects *os, const char *key);

#endif
