/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http_impl.h: the inside of the HTTP module, shared by the
 * files of daemon/http/ only. */
#ifndef LOOMD_HTTP_IMPL_H
#define LOOMD_HTTP_IMPL_H

#include <stddef.h>

struct bufferevent;
struct event_base;
struct evhttp_connection;
struct evhttp_request;
struct ssl_ctx_st;
struct http_conf;
struct http_mod;

/* An http.listen address, read the same way by the config's check and by
 * the listener. */
struct http_addr {
	char host[64];    /* numeric: "127.0.0.1", "::1" (localhost: 127.0.0.1) */
	unsigned port;    /* 1..65535 */
	int loopback;     /* 127.0.0.0/8 or ::1 */
};

/* "127.0.0.1:9477", "[::1]:9477", "localhost:9477", "0.0.0.0:9477".
 * 0, or -EINVAL with why in err. */
int http_addr_parse(const char *s, struct http_addr *a, char *err, size_t errlen);

/* A listening socket (non-blocking, close-on-exec) bound to a, with
 * backlog: the descriptor, or -errno (http_listen.c). */
int http_listen_fd(const struct http_addr *a, int backlog);

/* TLS (tls.c). http.tls.ciphers' default: TLS 1.2 suites with forward
 * secrecy and an AEAD cipher only. */
#define LOOM_HTTP_TLS_CIPHERS \
	"ECDHE+AESGCM:ECDHE+CHACHA20:DHE+AESGCM:DHE+CHACHA20:!aNULL:!PSK"
/* 0 when OpenSSL knows a suite of list (OpenSSL's cipher-list syntax);
 * -EINVAL with why in err otherwise. */
int http_tls_ciphers_check(const char *list, char *err, size_t errlen);
/* 0 while a TLS connection has not sent a whole ClientHello (nothing, or
 * a part of it: the stalled handshakes a full table closes first); 1
 * once it has, and for plain HTTP. */
int http_tls_hello_seen(struct bufferevent *bev);
/* 1 when the request came over TLS (its answer gets HSTS), else 0. */
int http_tls_request_is_tls(struct evhttp_request *req);
/* The context of http.tls (cert, key, client_ca): NULL with
 * err naming the file that cannot be read or used, or the key that does
 * not match the certificate. */
struct ssl_ctx_st *http_tls_ctx_new(const struct http_conf *c, char *err, size_t errlen);
void http_tls_ctx_free(struct ssl_ctx_st *ctx);
/* Makes the context and drops it: the config check. 0 or -EINVAL. */
int http_tls_check(const struct http_conf *c, char *err, size_t errlen);
/* A connection's bufferevent, accepting TLS once evhttp gives it its
 * socket. NULL: out of memory. */
struct bufferevent *http_tls_bev_new(struct event_base *base, struct ssl_ctx_st *ctx);
/* The TLS error that ended the connection, as OpenSSL's text: 1, or 0
 * when there was none (or it is plain HTTP). For the debug log. */
int http_tls_error(struct evhttp_connection *evcon, char *out, size_t len);
/* The subject CN of the request's verified client certificate into out:
 * 0; -ENOENT when there is none (plain HTTP, no certificate, no single
 * CN), -EINVAL for a CN that is not text (a NUL inside), -ENAMETOOLONG
 * when it does not fit in len. For the API's authentication: it maps the
 * name to a role. */
int http_tls_peer_name(struct evhttp_request *req, char *out, size_t len);

#endif
