/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/events_impl.h: the inside of the events module, shared by
 * events.c (the module, the log, the queues), events_send.c (one event to a
 * sink: RFC 5424 over a socket, JSON over libcurl) and events_prune.c. */
#ifndef LOOMD_EVENTS_IMPL_H
#define LOOMD_EVENTS_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "daemon/events/config_events.h"

/* An event as queued for a sink: its strings in one allocation. */
struct fwd_event {
	double time;
	int64_t subnet_id;
	int sev;                  /* 0 info .. 3 error */
	const char *severity, *kind, *subject, *old_value, *new_value;
	char buf[];
};

/* What the sending thread keeps between events of one sink. */
struct sink_conn {
	int fd;                   /* syslog: the socket, -1 none */
	void *curl;               /* webhook: the easy handle, kept for reuse */
	void *headers;            /* webhook: its header list */
};

/* One try: 0 sent, -EAGAIN worth another try, other -errno given up. err
 * says why. Sending thread. */
int events_send(const struct events_sink_conf *c, const char *token, const char *host,
		struct sink_conn *conn, const struct fwd_event *ev, char *err, size_t errlen);
void events_send_close(struct sink_conn *conn);
/* The RFC 5424 message of ev (no framing): its length, or -1. */
int events_rfc5424(const struct fwd_event *ev, const char *host, int pid, char *buf,
		   size_t len);
/* The webhook's JSON body of ev (malloc'd), or NULL. */
char *events_json(const struct fwd_event *ev, const char *host);

/* The pruner (events_prune.c): a timer on the loop, a job on a queue of
 * its own. */
struct events_prune;
struct event_base;
struct events_prune *events_prune_new(struct event_base *base, const char *db_path,
				      char *err, size_t errlen);
void events_prune_set(struct events_prune *p, int keep_days, int max_rows);
void events_prune_free(struct events_prune *p);

#endif
