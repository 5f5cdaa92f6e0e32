/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_auth.c: see api_auth.h. */
#include "autoconf.h"
#include "daemon/http/api_auth.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <time.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "daemon/http/api_impl.h"
#include "daemon/http/api_rate.h"
#include "daemon/http/api_tokens.h"
#include "daemon/http/http_impl.h"
#include "lib/util/log.h"

/* The client's address as the wrong-token budget keys it (api_rate.h). */
static void peer_of(struct evhttp_request *req, char *out, size_t len)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	char *addr = NULL;
	ev_uint16_t port = 0;

	if (evcon)
		evhttp_connection_get_peer(evcon, &addr, &port);
	api_fails_key(addr ? addr : "?", out, len);
}

int api_auth_throttled(struct evhttp_request *req)
{
	char peer[64], after[16];
	int wait;

	peer_of(req, peer, sizeof(peer));
	if ((wait = api_fails_wait(api_fails_shared(), peer, time(NULL))) <= 0)
		return 0;
	snprintf(after, sizeof(after), "%d", wait);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", after);
	api_send_error(req, "rate-limited", "%d wrong tokens from %s within %d s: try again in "
		       "%d s", API_FAILS_MAX, peer, API_FAILS_WINDOW_S, wait);
	return 1;
}

void api_auth_failed(struct evhttp_request *req, const char *what)
{
	unsigned long since = 0;
	char peer[64];

	peer_of(req, peer, sizeof(peer));
	if (api_fails_note(api_fails_shared(), peer, time(NULL), &since))
		log_warn("http: %s from %s (%lu wrong credentials from all clients since the last "
			 "such line, %llu since the start; %d from one address within %d s are "
			 "refused)", what, peer, since, api_fails_shared()->total, API_FAILS_MAX,
			 API_FAILS_WINDOW_S);
}

unsigned long long api_auth_failures(void)
{
	return api_fails_shared()->total;
}

int api_authenticate(const struct api_tokens *tokens, struct evhttp_request *req,
		     struct authz_principal *who)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *auth = evhttp_find_header(in, "Authorization");
	/* TLS client certificates: the verified subject CN of the peer's
	 * certificate (tls.c; none on plain HTTP), and a "NAME ROLE cert"
	 * line of the tokens file gives it its role. A bearer token, when
	 * sent, is checked first. */
	char cn[AUTHZ_NAME_LEN];
	const char *cert_cn = http_tls_peer_name(req, cn, sizeof(cn)) == 0 ? cn : NULL;

	if (api_auth_throttled(req))
		return 0;
	if (auth && !strncasecmp(auth, "Bearer ", 7)) {
		const char *secret = auth + 7;

		while (*secret == ' ')
			secret++;
		if (api_tokens_by_secret(tokens, secret, strlen(secret), who))
			return 1;
		api_auth_failed(req, "an unknown API token");
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
				  "Bearer realm=\"loom\", error=\"invalid_token\"");
		api_send_error(req, "unauthorized", "unknown or revoked token");
		return 0;
	}
	if (!auth && cert_cn && api_tokens_by_cert(tokens, cert_cn, who))
		return 1;
	if (auth || cert_cn)
		api_auth_failed(req, auth ? "an Authorization header that is not Bearer" :
				"an unlisted client certificate");
	evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
			  "Bearer realm=\"loom\"");
	api_send_error(req, "unauthorized", auth ? "the Authorization header must be \"Bearer "
		   "TOKEN\"" : "a token is required (Authorization: Bearer TOKEN)");
	return 0;
}
