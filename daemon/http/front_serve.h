/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_serve.h: the core's end of one HTTP front end's
 * channel (front_proto.h's messages): it runs the front end's calls
 * through ctl_call as the principal the front end names, answers its
 * version questions, hands it the /metrics text the core renders and
 * says whether loomd is ready. Used by front.c only. */
#ifndef LOOMD_FRONT_SERVE_H
#define LOOMD_FRONT_SERVE_H

#include <sys/types.h>

struct event_base;
struct ctl;
struct http_metrics;
struct front_peer;

struct front_peer_hooks {
	/* It is gone (closed, failed, broke the protocol): why says how, in
	 * the front end's words when it said "failed". The peer is freed
	 * after this returns (its calls under way answer nobody). */
	void (*gone)(void *arg, struct front_peer *p, const char *why);
	void *arg;
};

/* The channel fd (owned from now on) to the front end of pid. NULL with
 * errno. */
struct front_peer *front_peer_new(struct event_base *base, int fd, pid_t pid, struct ctl *ctl,
				  struct http_metrics *metrics, const struct front_peer_hooks *h);
/* The start of a front end, on its channel fd (blocking, before
 * front_peer_new): its configuration (front_proto.h's "config"; probe:
 * the paths it must fail to open, stolen), then its first word, waited
 * for at most FRONT_START_WAIT_S. 0 when it says hello (it serves);
 * -errno with err: why it cannot (its own words when it says failed). */
struct http_conf;
#include <jansson.h>
int front_handshake(int fd, const struct http_conf *conf, int n_listeners, int log_level,
		    int log_target, const char *user, json_t *probe, char *err, size_t errlen);
pid_t front_peer_pid(const struct front_peer *p);
/* Closes the channel; calls under way answer nobody. NULL is fine. */
void front_peer_free(struct front_peer *p);

#endif
