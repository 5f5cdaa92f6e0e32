/* tests/unit/fixture_plugin.c: see fixture_plugin.h. */
#include "autoconf.h"
#include "fixture_plugin.h"

#include <check.h>

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
