/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/config_http.h: loom.yaml's `http:` section, the listener,
 * its TLS, the REST API's tokens, /metrics and the web view (config_http.c). */
#ifndef LOOMD_CONFIG_HTTP_H
#define LOOMD_CONFIG_HTTP_H

#include <limits.h>

#include "daemon/core/config.h"

struct http_conf {
	int http_n_listen;              /* http.listen: 0 = no listener (the default) */
	char http_listen[LOOM_HTTP_MAX_LISTEN][LOOM_ADDRESS_LEN]; /* "ADDR:PORT" each */
	int http_allow_remote;          /* http.allow_remote: a non-loopback listen address */
	int http_max_connections;       /* http.max_connections: open at once */
	int http_timeout_s;             /* http.timeout_s: idle / read / write timeout */
	int http_max_header_bytes;      /* http.max_header_bytes: a request's headers */
	int http_max_body_bytes;        /* http.max_body_bytes: a request's body */
	int http_max_per_peer;          /* http.max_connections_per_peer: one address */
	int http_header_timeout_s;      /* http.header_timeout_s: a whole request's arrival */
	int http_listen_backlog;        /* http.listen_backlog: the kernel's accept queue */
	char http_tls_cert[PATH_MAX];   /* http.tls.cert: PEM chain; "" = plain HTTP */
	char http_tls_key[PATH_MAX];    /* http.tls.key: PEM private key */
	char http_tls_client_ca[PATH_MAX]; /* http.tls.client_ca: "" = no client certs */
	int http_tls_client_required;   /* http.tls.client_cert: 0 optional, 1 required */
	char http_tls_ciphers[512];     /* http.tls.ciphers: TLS 1.2 suites, OpenSSL's syntax */
	int http_metrics_ports;         /* http.metrics_ports: 0 all, 1 errors */
	int http_metrics_min_xmit_wait; /* http.metrics_min_xmit_wait_per_s (errors mode) */
	int http_metrics_auth;          /* http.metrics_auth: /metrics wants a token */
	char http_web_root[PATH_MAX];   /* http.web_root: the web view's files ("" none) */
	char http_tokens_file[PATH_MAX]; /* http.tokens_file: the API's tokens (api_tokens.h) */
	char http_user[64];             /* http.user: the front end's user when loomd is root */
	char http_prometheus_url[512];  /* http.prometheus_url: a port's history from there
	                                 * (daemon/telemetry/history.h); "" none */
};

extern const struct config_section http_config;
const struct http_conf *http_conf_get(const struct loom_config *c);

#endif
