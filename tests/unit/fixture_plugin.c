/* tests/unit/fixture_plugin.c: see fixture_plugin.h. */
#include "autoconf.h"
#include "fixture_plugin.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/qos/qos_policy.h"

struct lp_port fp_ports[FP_MAX_PORTS];
size_t fp_n_ports;
struct lp_neighbor fp_neigh[FP_MAX_NEIGHBORS];
size_t fp_n_neigh;

int fp_port_sink(void *ctx, const struct lp_port *p)
{
	(void)ctx;
	ck_assert_uint_lt(fp_n_ports, FP_MAX_PORTS);
	fp_ports[fp_n_ports++] = *p;
	return 0;
}

int fp_neighbor_sink(void *ctx, const struct lp_neighbor *n)
{
	(void)ctx;
	ck_assert_uint_lt(fp_n_neigh, FP_MAX_NEIGHBORS);
	fp_neigh[fp_n_neigh++] = *n;
	return 0;
}

struct lp_qos *fp_default_want(const struct loom_plugin_v1 *ops, struct lp_switch *sw)
{
	struct lp_qos *q = calloc(1, sizeof(*q));
	struct lp_port_sink sink = { NULL, fp_port_sink };
	struct lp_inventory inv;
	struct qos_policy p;
	char err[512];

	ck_assert_ptr_nonnull(q);
	fp_n_ports = 0;
	ck_assert_msg(ops->inventory(sw, &inv, &sink, err, sizeof(err)) == 0, "%s", err);
	qos_policy_defaults(&p);
	ck_assert_int_eq(qos_policy_check(&p, "roce", NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(qos_policy_resolve(&p, fp_ports, fp_n_ports, q), 0);
	return q;
}

static int object_sink(void *ctx, const struct lp_object *o)
{
	static const char *const acts[] = { "create", "change", "delete" };
	struct fp_objects *os = ctx;

	ck_assert_uint_lt(os->n, FP_MAX_OBJECTS);
	ck_assert_uint_le((unsigned)o->action, LP_OBJECT_DELETE);
	snprintf(os->v[os->n].key, sizeof(os->v[0].key), "%s", o->key);
	snprintf(os->v[os->n].action, sizeof(os->v[0].action), "%s", acts[o->action]);
	snprintf(os->v[os->n++].shared, sizeof(os->v[0].shared), "%s", o->shared_with);
	return 0;
}

void fp_plan_objects(const struct loom_plugin_v1 *ops, struct lp_switch *sw,
		     const struct lp_qos *want, struct fp_objects *os, char *err, size_t errlen)
{
	struct lp_object_sink sink = { os, object_sink };

	os->n = 0;
	ck_assert_ptr_nonnull(ops->qos_objects);
	ck_assert_msg(ops->qos_objects(sw, want, &sink, err, errlen) == 0, "qos_objects: %s", err);
}

const struct fp_object *fp_object_of(const struct fp_objects *os, const char *key)
{
	for (size_t i = 0; i < os->n; i++)
		if (!strcmp(os->v[i].key, key))
			return &os->v[i];
	return NULL;
}
