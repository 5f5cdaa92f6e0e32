/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_auth.h: who sends an HTTP request (issue 20) and how many
 * wrong credentials an address may send (issue 37), for the REST API
 * (api.c) and /metrics' token (metrics_http.c) alike.
 *
 * A request's principal comes from its bearer token, else from its TLS
 * client certificate's CN with a "NAME ROLE cert" line of the tokens file
 * (api_tokens.h). Wrong credentials are counted per client address in the
 * listener's one table (api_rate.h): an address over its budget is 429
 * (Retry-After) before its credential is looked at, and a wrong one is
 * logged, at most a line a minute. */
#ifndef LOOMD_API_AUTH_H
#define LOOMD_API_AUTH_H

struct api_tokens;
struct authz_principal;
struct evhttp_request;

/* The principal of req into *who: 1, or 0 after answering 401 (429 for
 * an address over its wrong-token budget). */
int api_authenticate(const struct api_tokens *tokens, struct evhttp_request *req,
		     struct authz_principal *who);
/* 1 after answering 429 to an address over its budget, else 0 (then
 * check the credential). */
int api_auth_throttled(struct evhttp_request *req);
/* Count a wrong credential (`what`, for the log line). */
void api_auth_failed(struct evhttp_request *req, const char *what);
/* How many since the start (/metrics' loom_http_auth_failures_total). */
unsigned long long api_auth_failures(void);

#endif
