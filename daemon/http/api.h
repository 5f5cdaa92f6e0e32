/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api.h: the REST API under /api/v1 (issue 20; docs/api.md).
 *
 * Every request is authenticated (api_tokens.h: a bearer token, or a TLS
 * client certificate's CN) to a principal with a role, and runs the
 * control protocol's commands through the core's ctl_call() as that
 * principal (over the HTTP front end's channel, front_link.h), so
 * that the HTTP API and the unix socket answer with the same JSON (one
 * encoder) and decide with the same table (daemon/core/authz.h):
 *
 *   POST /api/v1/call          {"cmd","args"}: any command, answered with
 *                              the protocol's response ({"ok":...}); what
 *                              `loomctl --server` sends
 *   GET  /api/v1/<resource>    a read command's result, as `loomctl --json`
 *                              prints it (the table in api.c: api_routes)
 *   POST/PUT/DELETE ...        the mutations; discover answers 202 and a
 *                              job to poll at /api/v1/jobs/{id}
 *
 * No credential or an unknown one: 401 with WWW-Authenticate: Bearer; a
 * role too low for the command: 403. Errors are {"error":{"code",
 * "message"}} with the status of api_status(). */
#ifndef LOOMD_API_H
#define LOOMD_API_H

#include <stddef.h>

struct event_base;
struct http_mod;
struct front_link;
struct http_conf;
struct api;

/* Adds the /api/v1/ route to m and reads conf's http.tokens_file. NULL
 * with err (naming the file, or file:line) when the file is refused. */
struct api *api_new(struct event_base *base, struct http_mod *m, struct front_link *link,
		    const struct http_conf *conf, char *err, size_t errlen);
/* Reread the tokens (at reload): a removed token is revoked now. A file
 * refused keeps the tokens in force (logged, naming it): -1; 0. */
int api_reconfigure(struct api *a, const struct http_conf *conf);
/* Before http_free: calls still running are answered to nobody. */
void api_free(struct api *a);

/* The HTTP status of a protocol error code (docs/api.md). */
int api_status(const char *code);

#endif
