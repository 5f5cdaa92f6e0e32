/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_route.h: GET /metrics and /readyz in the HTTP
 * front end (metrics_route.c): the scrape's token and encoding here, the
 * text and the readiness from the core over the channel. */
#ifndef LOOMD_METRICS_ROUTE_H
#define LOOMD_METRICS_ROUTE_H

#include <stddef.h>

struct http_mod;
struct http_conf;
struct front_link;
struct metrics_route;

/* Adds the routes to m; reads http.tokens_file with http.metrics_auth.
 * NULL with err (naming the file) when it is refused. */
struct metrics_route *metrics_route_new(struct http_mod *m, struct front_link *link,
					const struct http_conf *conf, char *err, size_t errlen);
void metrics_route_free(struct metrics_route *x);

#endif
