/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_http.h: the /metrics text, rendered in the core
 * (issue 19; metrics_http.c) off the loop once per read and shared by
 * every scrape that comes meanwhile; the HTTP front end asks for it over
 * its channel (front_serve.c) and serves it (metrics_route.c). */
#ifndef LOOMD_METRICS_HTTP_H
#define LOOMD_METRICS_HTTP_H

#include <stddef.h>

struct event_base;
struct http_conf;
struct http_metrics;

/* Each render opens db_path (read-only). NULL with err. */
struct http_metrics *http_metrics_new(struct event_base *base, const struct http_conf *conf,
				      const char *db_path, char *err, size_t errlen);
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

/* The text: fn(arg, body, len, gzipped, NULL) with the render's text
 * (gzip-compressed when want_gzip and the render made it; body valid
 * during the call only), or fn(arg, NULL, 0, 0, why). Now or later, on
 * the loop. auth_failures: the front end's wrong credentials, a family of
 * the text. */
typedef void (*http_metrics_fn)(void *arg, const char *body, size_t len, int gzipped,
				const char *why);
void http_metrics_render(struct http_metrics *x, int want_gzip, unsigned long long auth_failures,
			 http_metrics_fn fn, void *arg);
/* 1 when loomd is ready, else 0 with why. */
int http_metrics_ready(struct http_metrics *x, char *why, size_t len);
/* Waits for the render under way and answers its waiters. NULL is fine. */
void http_metrics_free(struct http_metrics *x);

#endif
