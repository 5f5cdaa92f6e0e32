/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/events.h: what happens to an event once it is written
 * (issue 39). loomd.c makes the module and sets events_on_event as core's
 * event listener (core/store.h): every event of warning or error severity
 * is logged once, at its severity, and every event goes to the
 * `events.forward` sinks that want it (syslog, RFC 5424; webhook, JSON over
 * HTTP(S)). A sink's sending runs off the loop, one job at a time on a
 * core/work.c queue of its own, fed by a bounded queue: a sink that is slow
 * or dead only loses its own oldest events (counted), never delays a sweep
 * or the loop. The module also keeps the events table bounded
 * (events.keep_days, events.max_rows): pruned in small batches on a work
 * queue of its own, every minute. docs/events.md. */
#ifndef LOOMD_EVENTS_H
#define LOOMD_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct events_conf;
struct store_event;
struct events_mod;

/* db_path: the database to prune, with a connection of the pruner's own. */
struct events_mod *events_new(struct event_base *base, const struct events_conf *conf,
			      const char *db_path, char *err, size_t errlen);
/* The sinks whose settings changed start anew (their queues dropped and
 * counted); the others keep their queue. Loop thread. */
void events_reconfigure(struct events_mod *m, const struct events_conf *conf);
/* After core's listener is cleared: stops the sinks (a send under way ends
 * within its timeout_ms) and the pruning. NULL is fine. */
void events_free(struct events_mod *m);

/* core/store.h's listener: log, and queue for the sinks. Any thread; takes
 * only short locks. arg is the events_mod. */
void events_on_event(const struct store_event *ev, void *arg);

/* A sink's counts since it was configured, for /metrics. */
struct events_sink_stats {
	char name[64];
	char type[16];            /* "syslog", "webhook" */
	uint64_t sent;            /* delivered */
	uint64_t dropped;         /* pushed out of a full queue (the oldest) */
	uint64_t failed;          /* given up after the retries */
	unsigned queued;          /* waiting now */
};
/* Up to max sinks' counts into out; the number of sinks. Any thread. */
size_t events_forward_stats(struct events_mod *m, struct events_sink_stats *out, size_t max);
/* The same as a JSON array of {name, type, sent, dropped, failed, queued},
 * for `loomctl status`. */
struct json_t;
struct json_t *events_status(struct events_mod *m);

#endif
