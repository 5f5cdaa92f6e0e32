/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/config_http.c: loom.yaml's `http:` section (daemon/http/).
 *
 *   http:
 *     listen: 127.0.0.1:9477   # or a list; none (the default): no listener
 *     allow_remote: false      # true: an address other than loopback is allowed
 *     max_connections: 1024    # open at once; when full, the oldest that sent no
 *                              # request yet is closed for a new one
 *     timeout_s: 10            # a connection idle, reading or writing this long is closed
 *     max_header_bytes: 8192   # a request's headers; more: refused
 *     max_body_bytes: 4096     # a request's body; more: refused (at most 524288)
 *     metrics_ports: all       # all | errors: ports with errors or congestion only
 *     metrics_auth: false      # true: /metrics wants a token of tokens_file
 *     metrics_min_xmit_wait_per_s: 0  # errors: also ports waiting this much (0: no)
 *     web_root: /usr/share/loom/web   # the web view's files; "": no web view
 *     max_connections_per_peer: 32  # open at once from one client address
 *     header_timeout_s: 5      # a request (line, headers, body) must arrive in this,
 *                              # from the accept (TLS handshake included)
 *     listen_backlog: 1024     # the kernel's queue of connections not yet accepted
 *     tls:                     # every listener speaks TLS when cert is set
 *       cert: /etc/loom/tls/loomd.crt     # PEM: the certificate, then its chain
 *       key: /etc/loom/tls/loomd.key      # PEM private key
 *       client_ca: /etc/loom/tls/ca.crt   # verify client certificates (optional)
 *       client_cert: optional  # optional | required (with client_ca)
 *       ciphers: ECDHE+AESGCM:...   # TLS 1.2 suites (OpenSSL's syntax); forward
 *                              # secrecy only by default (TLS 1.3's all have it)
 *     tokens_file: /etc/loom/tokens   # the REST API's tokens (daemon/http/api_tokens.h)
 *
 * Issue 19 wants the listener "off by default on anything but localhost":
 * no listen address is the default. Issue 20: an address that is not
 * loopback needs TLS (http.tls.cert), refused otherwise, naming it; plain
 * HTTP is for loopback only. allow_remote (issue 19's opt-in for plain
 * HTTP off loopback) is still read but changes nothing. The certificate,
 * key and client CA are loaded here, at the check, so that `loomd -n`
 * and a reload refuse an unreadable or mismatched file by its name (a
 * refused reload keeps the running configuration, TLS context included). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config_parse.h"
#include "daemon/http/config_http.h"
#include "daemon/http/http.h"
#include "daemon/http/http_impl.h"

#define CFG_SECTION_TYPE struct http_conf

int http_addr_parse(const char *s, struct http_addr *a, char *err, size_t errlen)
{
	const char *colon, *host = s, *end;
	size_t hlen;
	unsigned char buf[16];
	char *pe;
	long port;

	memset(a, 0, sizeof(*a));
	if (s[0] == '[') {
		if (!(end = strchr(s, ']')) || end[1] != ':') {
			snprintf(err, errlen, "\"%s\": an IPv6 address is written [ADDR]:PORT", s);
			return -EINVAL;
		}
		host = s + 1;
		hlen = (size_t)(end - host);
		colon = end + 1;
	} else {
		if (!(colon = strrchr(s, ':')) || memchr(s, ':', (size_t)(colon - s))) {
			snprintf(err, errlen, "\"%s\" is not ADDR:PORT", s);
			return -EINVAL;
		}
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 || hlen >= sizeof(a->host)) {
		snprintf(err, errlen, "\"%s\": no address before the port", s);
		return -EINVAL;
	}
	memcpy(a->host, host, hlen);
	a->host[hlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &pe, 10);
	if (!colon[1] || *pe || errno || port < 1 || port > 65535) {
		snprintf(err, errlen, "\"%s\": the port must be 1..65535", s);
		return -EINVAL;
	}
	a->port = (unsigned)port;
	if (!strcmp(a->host, "localhost"))
		snprintf(a->host, sizeof(a->host), "127.0.0.1");
	if (inet_pton(AF_INET, a->host, buf) == 1) {
		a->loopback = buf[0] == 127;
	} else if (inet_pton(AF_INET6, a->host, buf) == 1) {
		static const unsigned char one[16] = { [15] = 1 };

		a->loopback = !memcmp(buf, one, sizeof(one));
	} else {
		snprintf(err, errlen, "\"%s\": the address must be numeric (IPv4, [IPv6]) or "
			 "localhost", s);
		return -EINVAL;
	}
	return 0;
}

static int parse_one(struct parse *p, struct http_conf *c, const yaml_node_t *v,
		     const char *key, int idx)
{
	const char *s = cfg_scalar(v);
	struct http_addr a;
	char why[160];

	if (!s)
		return cfg_fail(p, cfg_line(v), key, "expected \"ADDR:PORT\", found a %s",
				cfg_node_kind(v));
	if (strlen(s) >= LOOM_ADDRESS_LEN)
		return cfg_fail(p, cfg_line(v), key, "longer than %d bytes", LOOM_ADDRESS_LEN - 1);
	if (http_addr_parse(s, &a, why, sizeof(why)) < 0)
		return cfg_fail(p, cfg_line(v), key, "%s", why);
	for (int j = 0; j < idx; j++)
		if (!strcmp(c->http_listen[j], s))
			return cfg_fail(p, cfg_line(v), key, "\"%s\" is listed twice", s);
	snprintf(c->http_listen[idx], sizeof(c->http_listen[idx]), "%s", s);
	return 0;
}

static int parse_listen(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct http_conf *c = sec;
	int n = 0, rc;

	c->http_n_listen = 0;
	memset(c->http_listen, 0, sizeof(c->http_listen));
	if (cfg_is_null(v))
		return 0;
	if (v->type == YAML_SCALAR_NODE) {
		if (!cfg_scalar(v)[0])
			return 0;
		if ((rc = parse_one(p, c, v, key, 0)) < 0)
			return rc;
		c->http_n_listen = 1;
		return 0;
	}
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		char where[64];

		snprintf(where, sizeof(where), "%s[%d]", key, n);
		if (n == LOOM_HTTP_MAX_LISTEN)
			return cfg_fail(p, cfg_line(item), where, "too many addresses (at most %d)",
					LOOM_HTTP_MAX_LISTEN);
		if ((rc = parse_one(p, c, item, where, n)) < 0)
			return rc;
		n++;
	}
	c->http_n_listen = n;
	return 0;
}

static void print_listen(FILE *out, const void *sec)
{
	const struct http_conf *c = sec;

	fputs(" [", out);
	for (int i = 0; i < c->http_n_listen && i < LOOM_HTTP_MAX_LISTEN; i++) {
		if (i)
			fputs(", ", out);
		cfg_print_string(out, c->http_listen[i]);
	}
	fputs("]\n", out);
}

static const char *const ports_modes[] = { "all", "errors" };

static int parse_ports(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct http_conf *c = sec;
	const char *s = cfg_scalar(v);

	for (size_t i = 0; s && i < sizeof(ports_modes) / sizeof(ports_modes[0]); i++)
		if (!strcmp(s, ports_modes[i])) {
			c->http_metrics_ports = (int)i;
			return 0;
		}
	return cfg_fail(p, cfg_line(v), key, "expected all or errors");
}

static void print_ports(FILE *out, const void *sec)
{
	const struct http_conf *c = sec;

	fprintf(out, " %s\n", ports_modes[c->http_metrics_ports == 1]);
}

static const char *const client_cert_modes[] = { "optional", "required" };

static int parse_client_cert(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct http_conf *c = sec;
	const char *s = cfg_scalar(v);

	for (size_t i = 0; s && i < sizeof(client_cert_modes) / sizeof(client_cert_modes[0]); i++)
		if (!strcmp(s, client_cert_modes[i])) {
			c->http_tls_client_required = (int)i;
			return 0;
		}
	return cfg_fail(p, cfg_line(v), key, "expected optional or required");
}

static void print_client_cert(FILE *out, const void *sec)
{
	const struct http_conf *c = sec;

	fputs(client_cert_modes[c->http_tls_client_required == 1], out);
}

/* http.tls.ciphers: OpenSSL must know at least one suite of the list (a
 * typo would otherwise only show at the first handshake). */
static int parse_ciphers(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct http_conf *c = sec;
	const char *s = cfg_scalar(v);
	char why[256];

	if (!s || !s[0])
		return cfg_fail(p, cfg_line(v), key, "expected a cipher list (OpenSSL's syntax), "
				"e.g. \"%s\"", LOOM_HTTP_TLS_CIPHERS);
	if (strlen(s) >= sizeof(c->http_tls_ciphers))
		return cfg_fail(p, cfg_line(v), key, "longer than %zu bytes",
				sizeof(c->http_tls_ciphers) - 1);
	if (http_tls_ciphers_check(s, why, sizeof(why)) < 0)
		return cfg_fail(p, cfg_line(v), key, "%s", why);
	snprintf(c->http_tls_ciphers, sizeof(c->http_tls_ciphers), "%s", s);
	return 0;
}

static void print_ciphers(FILE *out, const void *sec)
{
	const struct http_conf *c = sec;

	cfg_print_string(out, c->http_tls_ciphers);
}

/* http.tls: a mapping of its own, into struct http_conf. */
static const struct cfg_key tls_keys[] = {
	CFG_KEY_STR("cert", CFG_OPT_PATH, http_tls_cert, NULL),
	CFG_KEY_STR("key", CFG_OPT_PATH, http_tls_key, NULL),
	CFG_KEY_STR("client_ca", CFG_OPT_PATH, http_tls_client_ca, NULL),
	CFG_KEY_CUSTOM("client_cert", parse_client_cert, print_client_cert),
	CFG_KEY_CUSTOM("ciphers", parse_ciphers, print_ciphers),
};
#define N_TLS_KEYS (sizeof(tls_keys) / sizeof(tls_keys[0]))

static void tls_defaults(void *sec)
{
	struct http_conf *c = sec;

	c->http_tls_cert[0] = c->http_tls_key[0] = c->http_tls_client_ca[0] = '\0';
	c->http_tls_client_required = 0;
	snprintf(c->http_tls_ciphers, sizeof(c->http_tls_ciphers), "%s", LOOM_HTTP_TLS_CIPHERS);
}

static int parse_tls(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct http_conf *c = sec;

	tls_defaults(c);
	return cfg_parse_subtable(p, v, key, tls_keys, N_TLS_KEYS, c);
}

static void print_tls(FILE *out, const void *sec)
{
	const struct http_conf *c = sec;

	cfg_print_subtable(out, tls_keys, N_TLS_KEYS, c);
}

static const struct cfg_key http_keys[] = {
	CFG_KEY_CUSTOM("listen", parse_listen, print_listen),
	CFG_KEY_BOOL("allow_remote", http_allow_remote, 0),
	CFG_KEY_INT("max_connections", http_max_connections, 1, 65536, 0, 1024),
	CFG_KEY_INT("timeout_s", http_timeout_s, 1, 3600, 0, 10),
	CFG_KEY_INT("max_header_bytes", http_max_header_bytes, 1024, 1048576, 0, 8192),
	/* At most 512 KiB: jansson parses and frees the worst such body in
	 * about 22 ms on the loop (issue 37, docs/api.md "Bounds"). */
	CFG_KEY_INT("max_body_bytes", http_max_body_bytes, 0, 524288, 1, 4096),
	CFG_KEY_CUSTOM("metrics_ports", parse_ports, print_ports),
	CFG_KEY_BOOL("metrics_auth", http_metrics_auth, 0),
	CFG_KEY_INT("metrics_min_xmit_wait_per_s", http_metrics_min_xmit_wait, 0, 2000000000, 1,
		    0),
	CFG_KEY_STR("web_root", CFG_OPT_PATH, http_web_root, LOOM_DEFAULT_WEB_DIR),
	CFG_KEY_INT("max_connections_per_peer", http_max_per_peer, 1, 65536, 0, 32),
	CFG_KEY_INT("header_timeout_s", http_header_timeout_s, 1, 3600, 0, 5),
	CFG_KEY_INT("listen_backlog", http_listen_backlog, 1, 65535, 0, 1024),
	CFG_KEY_CUSTOM("tls", parse_tls, print_tls),
	CFG_KEY_STR("tokens_file", CFG_PATH, http_tokens_file, LOOM_DEFAULT_TOKENS),
	CFG_KEY_STR("user", CFG_STRING, http_user, "nobody"),
	CFG_KEY_STR("prometheus_url", CFG_STRING, http_prometheus_url, ""),
};

static void http_defaults(void *sec)
{
	struct http_conf *c = sec;

	c->http_n_listen = 0;
	memset(c->http_listen, 0, sizeof(c->http_listen));
	c->http_metrics_ports = 0;
	tls_defaults(c);
}

/* Plain HTTP on loopback only: /metrics shows the fabric's layout, and the
 * API (issue 20) takes tokens, neither for the network in clear text. */
static int check_http(struct parse *p, void *sec)
{
	struct http_conf *c = sec;
	unsigned long tls_line = cfg_key_line(p, "http", "tls");
	struct http_addr a;
	char why[PATH_MAX + 160];

	for (int i = 0; i < c->http_n_listen; i++) {
		if (http_addr_parse(c->http_listen[i], &a, why, sizeof(why)) < 0 || a.loopback ||
		    c->http_tls_cert[0])
			continue;
		return cfg_fail(p, cfg_key_line(p, "http", "listen"), "http.listen",
				"\"%s\" is not a loopback address: plain HTTP is for loopback "
				"only; set http.tls.cert and http.tls.key to listen there",
				c->http_listen[i]);
	}
	if (!c->http_tls_cert[0] != !c->http_tls_key[0])
		return cfg_fail(p, tls_line, c->http_tls_cert[0] ? "http.tls.key" : "http.tls.cert",
				"missing: TLS needs both a certificate and its key");
	if (c->http_tls_client_ca[0] && !c->http_tls_cert[0])
		return cfg_fail(p, tls_line, "http.tls.client_ca", "needs http.tls.cert and key");
	if (c->http_tls_client_required && !c->http_tls_client_ca[0])
		return cfg_fail(p, tls_line, "http.tls.client_cert",
				"required needs http.tls.client_ca to verify them against");
	if (c->http_tls_cert[0] && http_tls_check(c, why, sizeof(why)) < 0)
		return cfg_fail(p, tls_line, NULL, "%s", why);
	if (c->http_prometheus_url[0] && strncmp(c->http_prometheus_url, "http://", 7) &&
	    strncmp(c->http_prometheus_url, "https://", 8))
		return cfg_fail(p, cfg_key_line(p, "http", "prometheus_url"), "http.prometheus_url",
				"\"%s\" is not an http:// or https:// URL",
				c->http_prometheus_url);
	return 0;
}

const struct http_conf *http_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &http_config);
}

const struct config_section http_config = {
	.name = "http", .size = sizeof(struct http_conf), .keys = http_keys, .n_keys = sizeof(http_keys) / sizeof(http_keys[0]),
	.defaults = http_defaults, .check = check_http,
};
