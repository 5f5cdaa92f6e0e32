/* tests/unit/fixture_route.h: fabrics from loom-fabgen's builders, and
 * routing a fixture fabric with an engine and judging the tables, for the
 * routing unit tests. */
#ifndef LOOM_TEST_FIXTURE_ROUTE_H
#define LOOM_TEST_FIXTURE_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"

struct fg_fabric;

/* fg, made by loom-fabgen's builders (tools/fabgen.h), with `cut` switch
 * links cut (seed 1, as `loom-fabgen --cut`), written as a net file and
 * read back as loomctl reads it: the fabric the tools see. fg is freed. */
struct fab *fixture_fabgen(struct fg_fabric *fg, int cut);
/* The same with the cuts drawn from `seed` (as `loom-fabgen --seed`). */
struct fab *fixture_fabgen_seed(struct fg_fabric *fg, int cut, uint64_t seed);

struct routed {
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rt_metrics m;   /* computed when the engine succeeded */
	int rc;                /* the engine's return */
	char err[256];         /* its reason */
};

/* Graph of f (freed here), tables by `engine`, metrics with opts. Fails the
 * test if the graph cannot be built; an engine failure is left in rc/err. */
struct routed fixture_route(struct fab *f, rt_route_fn engine,
			    const struct rt_metrics_opts *opts);
void fixture_routed_free(struct routed *r);
/* Every ordered CA pair of n_ca delivered, none lost or looping. */
void fixture_assert_all_delivered(const struct rt_metrics *m, size_t n_ca);
/* CLOCK_MONOTONIC in seconds, for printing how long something took. */
double fixture_now(void);

#endif
