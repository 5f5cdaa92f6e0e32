/* lib/route.h: loom's routing engines. Each is a pure function: a routing
 * graph in (route_graph.h), one forwarding table per switch out
 * (route_lft.h); the metrics (route_metrics.h) judge the result. The same
 * code runs inside OpenSM (the plugin), inside loomd and offline.
 *
 * Every engine: `out` was made by rt_lfts_new(g) (all RT_NO_PORT); the engine
 * fills every LID held by a switch or CA port, and counts in
 * out->n_routed / out->n_unreachable the (switch, LID) entries it could and
 * could not route (a disconnected part is not an error). Returns 0, or
 * -errno with a reason in err. */
#ifndef LOOM_ROUTE_H
#define LOOM_ROUTE_H

#include <stddef.h>

#include "route_graph.h"
#include "route_lft.h"

/* Balanced shortest paths (the min-hop family, like OpenSM's default
 * engine): every switch forwards each LID on one of its minimum-hop ports,
 * the one that carries the fewest CA LIDs so far (ties: the lowest port
 * number), LIDs taken in ascending order. Deterministic. */
int rt_route_minhop(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen);

#endif
