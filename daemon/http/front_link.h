/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_link.h: the HTTP front end's end of its channel to the
 * core (issue 40, privilege separation; the core's end is front_serve.c,
 * the messages are front_proto.h's).
 *
 * The front end (front_child.c) holds no right to the fabric or the
 * database: everything it answers that is not a file of the web view
 * comes from the core through these calls, each answered exactly once,
 * later, on the loop (never before the call returns). When the channel
 * closes, every call still waiting is answered with an error ("busy") and
 * the front end exits (front_link_new's closed()). */
#ifndef LOOMD_FRONT_LINK_H
#define LOOMD_FRONT_LINK_H

#include <stddef.h>

#include <jansson.h>

struct event_base;
struct authz_principal;
struct front_link;

/* The link over the connected stream socket fd (owned from now on).
 * closed(arg) runs once when the core goes away. NULL with errno. */
struct front_link *front_link_new(struct event_base *base, int fd, void (*closed)(void *arg),
				  void *arg);
void front_link_free(struct front_link *l);
/* Calls waiting for the core (for the drain at exit). */
size_t front_link_pending(const struct front_link *l);

/* Run command cmd with args (borrowed; NULL none) as who, as ctl_call()
 * does in the core: fn(answer, arg) gets the protocol's answer
 * ({"ok":...}; a new reference, NULL when out of memory). With started
 * non-NULL the core says when the command has begun: started(arg) then
 * comes first, unless the command was answered at once (refused for its
 * role, or by the HA gate), in which case fn is the only call. */
typedef void (*front_answer_fn)(json_t *answer, void *arg);
void front_link_call(struct front_link *l, const char *cmd, json_t *args,
		     const struct authz_principal *who, front_answer_fn fn,
		     void (*started)(void *arg), void *arg);

/* ctl_version() in the core: fn(arg, 1, version) when the answer of cmd
 * for who may be kept at that data version, fn(arg, 0, 0) otherwise. */
void front_link_version(struct front_link *l, const char *cmd, const struct authz_principal *who,
			void (*fn)(void *arg, int keep, unsigned version), void *arg);

/* The core's /metrics text (gzip-compressed when gzip and it could be):
 * fn(arg, body, len, gzipped, NULL), or fn(arg, NULL, 0, 0, why). The
 * body is the callee's only for the call. auth_failures: the front end's
 * count of wrong credentials, a family of the text. */
void front_link_metrics(struct front_link *l, int gzip, unsigned long long auth_failures,
			void (*fn)(void *arg, const char *body, size_t len, int gzipped,
				   const char *why), void *arg);

/* /readyz: fn(arg, 1, "") or fn(arg, 0, why). */
void front_link_ready(struct front_link *l, void (*fn)(void *arg, int ready, const char *why),
		      void *arg);

/* One message that needs no answer (front_proto.h's "hello", "failed"). */
int front_link_say(struct front_link *l, json_t *msg);

#endif
