/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/routes.h: the control commands on the routes programmed in the
 * fabric: "route-check" (the metrics of the forwarding tables as the
 * switches hold them) and "route-trace" (one path, hop by hop). Each request
 * runs on a worker thread: unless it asks for the cached tables, it walks
 * the subnet and reads every switch's table in a `loomd --read-lfts` child
 * (daemon/ib/lft_read.h), records the walk as a sweep and the tables in the
 * store, then answers from the database (lib/route/route_live.h), as loomctl --db
 * does. The event loop only starts threads and sends answers. With
 * opensm.read_tables, an OpenSM reroute starts the same read, unasked. */
#ifndef LOOMD_ROUTES_H
#define LOOMD_ROUTES_H

#include <stddef.h>

struct event_base;
struct ctl;
struct opensm_conf;
struct swept_mad;
struct routes;

/* conf: opensm: (threads, read_tables); mad: discovery's MAD limits;
 * db_path: what a request's job opens. */
struct routes *routes_new(struct event_base *base, const struct opensm_conf *conf,
			  const struct swept_mad *mad, const char *db_path, char *err,
			  size_t errlen);
/* Waits for requests under way and answers them. Call before ctl_free(). */
void routes_free(struct routes *rt);
/* Settings and MAD limits for the reads that start from now on. */
void routes_reconfigure(struct routes *rt, const struct opensm_conf *conf,
			const struct swept_mad *mad);
/* OpenSM reported new forwarding tables (daemon/routing/osm_report.h's LFT
 * change): with opensm.read_tables, the tables are read and stored again
 * once the reports stop for READ_TABLES_GATHER_S, one read at a time (a
 * change during a read: one more read after it). Called on the loop. */
void routes_tables_changed(struct routes *rt);
/* Register "route-check" and "route-trace" (CTL_READ). */
int routes_register(struct routes *rt, struct ctl *ctl);

#endif
