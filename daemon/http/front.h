/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front.h: loomd's HTTP service, kept apart from the fabric
 * (issue 40, privilege separation; docs/privileges.md).
 *
 * The core binds http.listen's sockets and starts the HTTP front end, a
 * process of its own (this executable again, `loomd --http-front`,
 * front_child.c), handing it the listening sockets and one end of a
 * socketpair. The front end does everything that reads the network: TLS,
 * HTTP, the limits on clients, the tokens, the JSON bodies, the web
 * view's files. It then enters a sandbox (daemon/core/sandbox.h: another
 * user when loomd is root, no_new_privs, Landlock, seccomp): it holds no
 * MAD device, no database handle, and cannot open either. What it
 * answers comes from the core over the socketpair (front_proto.h):
 * commands run through ctl_call as the token's principal, the /metrics
 * text rendered by the core (metrics_http.h), /readyz.
 *
 * A reload starts a new front end with the new section (new listeners
 * bound first, the others handed on); once it says it serves, the old one
 * stops accepting and exits when its requests are answered. A new front
 * end that cannot start (a certificate that cannot be read, a token file
 * refused) is logged and the one in force stays. A front end that dies is
 * started again, after 1 s and then up to 30 s. */
#ifndef LOOMD_FRONT_H
#define LOOMD_FRONT_H

#include <stddef.h>
#include <sys/types.h>

struct event_base;
struct ctl;
struct http_conf;
struct http_metrics;
struct http_front;

/* Binds conf's addresses and starts the front end, waiting (at most
 * 15 s) until it serves: NULL with err when an address cannot be bound
 * or the front end cannot start (its reason). With no http.listen,
 * nothing is started. The front end runs as http.user when loomd is
 * root. db_path: the database, which the front end proves it cannot open. */
struct http_front *http_front_new(struct event_base *base, struct ctl *ctl,
				  struct http_metrics *metrics, const struct http_conf *conf,
				  const char *db_path, char *err, size_t errlen);
/* The new section (see above): 0, or -1 (logged) when the front end in
 * force stays. */
int http_front_reconfigure(struct http_front *f, const struct http_conf *conf);
/* Stops the front ends (SIGTERM, then waits a little), closes the
 * listeners. NULL is fine. */
void http_front_free(struct http_front *f);
/* The serving front end's pid, or -1. */
pid_t http_front_pid(const struct http_front *f);

#endif
