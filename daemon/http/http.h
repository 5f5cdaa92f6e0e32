/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http.h: loomd's HTTP listener (issue 19; the REST API of
 * issue 20 grows from it). libevent's evhttp on the loop, on the addresses
 * of http.listen (none by default; plain HTTP on loopback only, TLS with
 * http.tls on any address: daemon/http/tls.c), with bounds no client can
 * push: connections open at once (http.max_connections; at the limit a
 * new one closes one of the oldest that have not sent a whole request, or
 * else an idle keep-alive one, never one whose request is under way: an
 * unauthenticated client cannot hold a slot another needs; when every
 * connection has a request under way, new ones wait in the kernel's
 * queue, http.listen_backlog) and from one address
 * (http.max_connections_per_peer; more are closed), a timeout on every
 * connection (idle, reading, writing), the time a whole request has to
 * arrive from the accept, TLS handshake included (http.header_timeout_s),
 * the size of a request's headers and body. Answers over TLS carry
 * Strict-Transport-Security.
 *
 * Requests go through a route table: a path (exact, or a prefix ending in
 * '/'), the methods it takes, its handler. A path no route has is 404, a
 * method the route does not take is 405 with Allow; both plain text. A
 * handler runs on the loop and must not block: one that needs the
 * database renders on a daemon/core/work.h queue and replies from done(),
 * as /metrics (daemon/http/metrics_http.c) does.
 *
 * Routes of its own: /metrics (Prometheus' text format, docs/metrics.md),
 * /healthz ("ok" while the loop runs), / and /web/ (the web view's static
 * files, web_http.c). */
#ifndef LOOMD_HTTP_H
#define LOOMD_HTTP_H

#include <stddef.h>

struct event_base;
struct evhttp_request;
struct http_conf;
struct config_section;
struct http_mod;

/* The methods a route takes (evhttp's own bits). */
#define HTTP_M_GET  (1u << 0)
#define HTTP_M_HEAD (1u << 2)

typedef void (*http_handler_fn)(struct evhttp_request *req, void *arg);

/* Binds http.listen; NULL with err when the module cannot be made or an
 * address cannot be bound. */
struct http_mod *http_new(struct event_base *base, const struct http_conf *conf,
			  char *err, size_t errlen);
/* The same on listening sockets made by another process (the core hands
 * them to the HTTP front end: front.h): fds[i] serves conf's i-th
 * address; they are the module's from now on. */
struct http_mod *http_new_inherited(struct event_base *base, const struct http_conf *conf,
				    const int *fds, int n_fds, char *err, size_t errlen);
/* Accept no more connections (a front end being replaced); those open
 * are served. */
void http_quiesce(struct http_mod *m);
/* Connections open. */
unsigned http_open(const struct http_mod *m);
/* Waits for a render under way (its clients get their answer), closes
 * every connection. NULL is fine. */
void http_free(struct http_mod *m);
/* New bounds take effect at once for new connections; a changed
 * http.listen is bound before the old addresses are let go, and when an
 * address cannot be bound the old listeners all stay (logged, naming the
 * address): -1. http.tls is read again (a rotated certificate) for the
 * connections accepted from now on; when it cannot be, the context in
 * force stays (logged, naming the file): -1. 0 otherwise. */
int http_reconfigure(struct http_mod *m, const struct http_conf *conf);

/* Add a route (before or after the listeners are up). path: "/metrics", or
 * "/api/v1/" for everything under it. 0, -EEXIST, -ENOMEM. */
int http_route(struct http_mod *m, const char *path, unsigned methods, http_handler_fn fn,
	       void *arg);
/* Send an answer with `body` (NULL: none; emptied, still the caller's to
 * free). To a HEAD request it sends the headers GET would get, with the
 * body's Content-Length, and no body: evhttp 2.1 would send the body after
 * them. Every handler answers through it. */
struct evbuffer;
void http_send(struct evhttp_request *req, int code, const char *reason, struct evbuffer *body);
/* A plain text answer ("TEXT\n"), for handlers. */
void http_reply_text(struct evhttp_request *req, int code, const char *reason,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));


#endif
