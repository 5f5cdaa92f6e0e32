/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http_guard.h: what loomd's HTTP listener refuses before any
 * route sees a request (issue 37), whatever the page: the answers of
 * /healthz, /metrics, the web view and the API alike.
 *
 *  - A NUL byte from a client (request line, headers or body: no route
 *    takes binary data, and evhttp would cut a header at it, so that
 *    "Bearer TOKEN\0junk" would be TOKEN): the connection is closed at once.
 *  - Two Content-Length headers, or Content-Length with Transfer-Encoding
 *    (request smuggling behind a proxy that reads the other one), or two
 *    Host headers: 400, and the connection is closed.
 *  - On a loopback listener, a Host that is not localhost, 127.x.y.z,
 *    [::1] or the listener's own address (DNS rebinding: a page of
 *    evil.example that resolves to 127.0.0.1 must not read loomd through
 *    the browser): 421. A request without Host (HTTP/1.0) passes.
 *
 * http.c calls http_guard_watch() on each connection's bufferevent and
 * http_guard_request() on each request before its route, and answers a
 * refusal itself (this file knows nothing of http.c). */
#ifndef LOOMD_HTTP_GUARD_H
#define LOOMD_HTTP_GUARD_H

struct bufferevent;
struct evhttp_request;

/* Watch what the client sends on bev for a NUL byte (closes it). */
void http_guard_watch(struct bufferevent *bev);
/* 0: the request may go to its route; else the HTTP status to refuse it
 * with (the connection then closed), its reason phrase and why. */
int http_guard_request(struct evhttp_request *req, const char **reason, const char **why);
/* Is `host` (a Host header: name or address, an optional :port) a name
 * of the loopback listener whose own address is `self` ("127.0.0.1",
 * "::1", or NULL)? 1 or 0. Pure, for the unit test. */
int http_guard_host_ok(const char *host, const char *self);

#endif
