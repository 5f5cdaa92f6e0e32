/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_live_int.h: between route check (route_live.c) and its
 * judgement per VL (route_live_vl.c); nothing outside lib/route uses it. */
#ifndef LOOM_ROUTE_LIVE_INT_H
#define LOOM_ROUTE_LIVE_INT_H

#include <jansson.h>

#include "lib/route/route_live.h"
#include "lib/route/route_sl2vl.h"

/* The VL inputs of a check on g: *t the switches' SL-to-VL tables (NULL
 * when vl has none), l->sl from the SL file (left NULL, SL 0, when there is
 * none or it cannot be used), and *vls the "vls" object saying which. 0 or
 * -ENOMEM. */
int rl_vl_prepare(const struct rt_graph *g, struct rt_lfts *l, const struct rl_vl_input *vl,
		  struct rt_sl2vl **t, json_t **vls);

/* vls completed with the judgement m: the crossings, the cycle named by
 * switch ("name[out port] -> ..."). 0 or -ENOMEM. */
int rl_vl_judged(const struct rt_graph *g, const struct nodename_map *names,
		 const struct rt_metrics *m, json_t *vls);

#endif
