/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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

/* What loomd.c adds of the modules this folder does not know (it uses
 * core only): families appends to each render's text (on the loop, when
 * the render is submitted); ready answers /readyz: 1 when ready, else 0
 * with why. Either may be NULL (no families; always ready). */
struct mt_buf;
struct http_metrics_hooks {
	void (*families)(void *arg, struct mt_buf *out);
	int (*ready)(void *arg, char *why, size_t len);
	void *arg;
};
void http_metrics_set_hooks(struct http_metrics *x, const struct http_metrics_hooks *h);
/* Before http_free: waits for the render under way and answers its clients. */
void http_metrics_free(struct http_metrics *x);

#endif
