/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/web_http.h: the web view's static files on loomd's HTTP
 * listener (issue 20): "/" and "/web/NAME" from http.web_root
 * (web_http.c; the pages: web/, docs/web.md). loomd.c makes it on the
 * listener, as it makes the API. */
#ifndef LOOMD_WEB_HTTP_H
#define LOOMD_WEB_HTTP_H

#include <stddef.h>

struct http_mod;
struct http_conf;
struct http_web;

/* Adds the "/" and "/web/" routes to m. NULL with err. */
struct http_web *http_web_new(struct http_mod *m, const struct http_conf *conf, char *err,
			      size_t errlen);
void http_web_reconfigure(struct http_web *w, const struct http_conf *conf);
/* Before http_free. */
void http_web_free(struct http_web *w);

#endif
