/* daemon/http/metrics_http.h: /metrics on loomd's HTTP listener (issue
 * 19): the Prometheus text of the newest counters, rendered off the loop
 * once per read and shared by every scrape (metrics_http.c). loomd.c
 * makes it on the listener, as it makes the API. */
#ifndef LOOMD_METRICS_HTTP_H
#define LOOMD_METRICS_HTTP_H

#include <stddef.h>

struct event_base;
struct http_mod;
struct http_conf;
struct http_metrics;

/* Adds the /metrics route to m; each render opens db_path. NULL with err. */
struct http_metrics *http_metrics_new(struct http_mod *m, struct event_base *base,
				      const struct http_conf *conf, const char *db_path, char *err,
				      size_t errlen);
void http_metrics_reconfigure(struct http_metrics *x, const struct http_conf *conf);
/* Before http_free: waits for the render under way and answers its clients. */
void http_metrics_free(struct http_metrics *x);

#endif
