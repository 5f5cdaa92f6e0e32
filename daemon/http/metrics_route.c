/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_route.c: GET /metrics and /readyz in the HTTP front
 * end (metrics_route.h). The text is the core's (metrics_http.c, asked
 * over the channel: front_link.h); here are the scrape's token, its
 * headers and its encoding.
 *
 * With http.metrics_auth (issue 37: the fabric's layout is for the
 * scraper, not for whoever reaches the listener) a scrape needs a bearer
 * token of http.tokens_file: of any role, or of role metrics, which opens
 * /metrics and nothing of the API. Wrong tokens count against the same
 * per-address budget as the API's (api_auth.h).
 *
 * A scrape that accepts gzip (Prometheus always does) gets the core's
 * compressed text; one that does not gets it plain.
 *
 * /readyz (beside http.c's /healthz, "ok" while the front end runs)
 * answers 200 once the core says it is ready (the first sweep done; with
 * ha, etcd answering), else 503 with the reason. It is open: it says
 * nothing of the fabric. */
#include "autoconf.h"
#include "daemon/http/metrics_route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "daemon/core/authz.h"
#include "daemon/http/api_auth.h"
#include "daemon/http/api_tokens.h"
#include "daemon/http/config_http.h"
#include "daemon/http/front_link.h"
#include "daemon/http/http.h"
#include "daemon/http/http_impl.h"

struct metrics_route {
	struct front_link *link;
	int auth;                     /* http.metrics_auth */
	struct api_tokens *tokens;    /* ... its tokens (NULL without it) */
};

/* Whether the request's Accept-Encoding takes gzip (a "gzip;q=0" refuses). */
static int accepts_gzip(struct evhttp_request *req)
{
	const char *a = evhttp_find_header(evhttp_request_get_input_headers(req),
					   "Accept-Encoding");

	for (const char *p = a; p && (p = strcasestr(p, "gzip")); p += 4) {
		const char *q = p + 4;

		if ((p != a && !strchr(" ,", p[-1])) || (*q && !strchr(" ,;", *q)))
			continue;
		while (*q == ' ')
			q++;
		if (*q != ';')
			return 1;
		q = strchr(q, '=');
		return !(q && strtod(q + 1, NULL) == 0.0);
	}
	return 0;
}

/* With http.metrics_auth: 1 when req carries a token (or, without one, a
 * verified client certificate) that opens /metrics; 0 after answering
 * 401 (or 429: the address's budget). */
static int scrape_allowed(struct metrics_route *x, struct evhttp_request *req)
{
	const char *auth = evhttp_find_header(evhttp_request_get_input_headers(req),
					      "Authorization");
	const char *secret = auth && !strncasecmp(auth, "Bearer ", 7) ? auth + 7 : NULL;
	char cn[AUTHZ_NAME_LEN];

	if (!x->auth)
		return 1;
	if (api_auth_throttled(req))
		return 0;
	while (secret && *secret == ' ')
		secret++;
	if (secret && api_tokens_for_metrics(x->tokens, secret, strlen(secret)))
		return 1;
	if (!auth && http_tls_peer_name(req, cn, sizeof(cn)) == 0 &&
	    api_tokens_cert_for_metrics(x->tokens, cn))
		return 1;
	if (auth)
		api_auth_failed(req, "a wrong /metrics token");
	evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
			  "Bearer realm=\"loom\"");
	http_reply_text(req, 401, "Unauthorized", "/metrics needs a token (http.metrics_auth): "
			"Authorization: Bearer TOKEN");
	return 0;
}

/* A scrape waiting for the core's text. */
struct scrape {
	struct evhttp_request *req;
	int auth;
};

static void on_text(void *arg, const char *body, size_t len, int gzipped, const char *why)
{
	struct scrape *s = arg;
	struct evkeyvalq *h = evhttp_request_get_output_headers(s->req);
	struct evbuffer *out;

	if (!body) {
		http_reply_text(s->req, HTTP_SERVUNAVAIL, "Service Unavailable",
				"metrics not available: %s", why ? why : "no text");
	} else if (!(out = evbuffer_new()) || evbuffer_add(out, body, len) < 0) {
		if (out)
			evbuffer_free(out);
		http_reply_text(s->req, HTTP_SERVUNAVAIL, "Service Unavailable", "out of memory");
	} else {
		evhttp_add_header(h, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
		evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
		evhttp_add_header(h, "Vary", "Accept-Encoding");
		if (gzipped)
			evhttp_add_header(h, "Content-Encoding", "gzip");
		if (s->auth)
			evhttp_add_header(h, "Cache-Control", "private, no-store");
		http_send(s->req, HTTP_OK, "OK", out);
		evbuffer_free(out);
	}
	free(s);
}

static void on_metrics(struct evhttp_request *req, void *arg)
{
	struct metrics_route *x = arg;
	struct scrape *s;

	if (!scrape_allowed(x, req))
		return;
	if (!(s = calloc(1, sizeof(*s)))) {
		http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable", "out of memory");
		return;
	}
	s->req = req;
	s->auth = x->auth;
	front_link_metrics(x->link, accepts_gzip(req), api_auth_failures(), on_text, s);
}

static void on_ready(void *arg, int ready, const char *why)
{
	struct evhttp_request *req = arg;

	if (ready)
		http_reply_text(req, HTTP_OK, "OK", "ready");
	else
		http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable", "not ready: %s", why);
}

static void on_readyz(struct evhttp_request *req, void *arg)
{
	struct metrics_route *x = arg;

	front_link_ready(x->link, on_ready, req);
}

struct metrics_route *metrics_route_new(struct http_mod *m, struct front_link *link,
					const struct http_conf *conf, char *err, size_t errlen)
{
	struct metrics_route *x = calloc(1, sizeof(*x));

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->link = link;
	x->auth = conf->http_metrics_auth;
	if (x->auth && api_tokens_load(conf->http_tokens_file, &x->tokens, err, errlen) < 0) {
		free(x);
		return NULL;
	}
	if (http_route(m, "/metrics", HTTP_M_GET | HTTP_M_HEAD, on_metrics, x) < 0 ||
	    http_route(m, "/readyz", HTTP_M_GET | HTTP_M_HEAD, on_readyz, x) < 0) {
		snprintf(err, errlen, "cannot add the /metrics and /readyz routes");
		metrics_route_free(x);
		return NULL;
	}
	return x;
}

void metrics_route_free(struct metrics_route *x)
{
	if (!x)
		return;
	api_tokens_free(x->tokens);
	free(x);
}
