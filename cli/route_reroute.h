/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/route_reroute.h: route compute's --reroute-cut (cli/route_reroute.c). */
#ifndef LOOMCTL_ROUTE_REROUTE_H
#define LOOMCTL_ROUTE_REROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/fabric/fabric.h"
#include "lib/route/route.h"

struct loomctl;

struct route_reroute_report {
	size_t cut;                    /* cables cut */
	int incremental;               /* rt_reroute did it (else a full run: why) */
	struct rt_reroute_stats st;
	double reroute_s, full_s;      /* rt_reroute's time, a full run's on the cut fabric */
	char why[256];
};

/* Cut `cuts` switch cables of fab (drawn from seed), reroute *l (made by
 * engine for *g) incrementally, time a full run too; *g and *l become the
 * cut fabric's graph and the tables judged (the incremental ones, or the
 * full run's when rt_reroute said no). 0, or -errno (said on stderr). */
int route_reroute_after_cuts(struct loomctl *lc, const char *topo, const struct fab *fab,
			     const struct rt_engine *engine, struct rt_graph **g,
			     struct rt_lfts **l, size_t cuts, uint64_t seed,
			     struct route_reroute_report *rep);
void route_reroute_print(FILE *out, const struct route_reroute_report *rep);
json_t *route_reroute_json(const struct route_reroute_report *rep);

#endif
