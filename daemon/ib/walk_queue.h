/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walk_queue.h: the queue of loom's own subnet walk (walk_dr.c):
 * directed-route SMP Gets that grow while the walk runs (each answer may add
 * requests), sent through one umad agent with at most max_flight out in all
 * and at most per_target out to one target (a node: its SMA answers one SMP
 * at a time, so more would only wait in its queue while other nodes idle).
 *
 * The next request is picked to spread the window over as many targets as
 * possible: first the requests added with WALKQ_FIRST (the NodeInfo probes
 * that find new nodes, each of which opens more work), in the order added,
 * then round-robin over the targets that have work and room, one request of
 * each in turn. The tries are mad_window.c's (mad_window_run_source): each
 * has its own deadline (timeout_ms); a try that is
 * not answered in time, or that the local port reports timed out, is sent
 * again until `retries` more tries are spent, then the request is lost. A
 * target that stops answering holds at most per_target slots, never the
 * others. Blocking: for the walk's child process, never loomd's loop. */
#ifndef LOOMD_WALK_QUEUE_H
#define LOOMD_WALK_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

#include "daemon/ib/mad_window.h"

struct walkq_params {
	int fd, agent;          /* an open umad port, an agent for DR SMPs */
	unsigned timeout_ms;    /* per try */
	unsigned retries;       /* tries after the first (at most 30) */
	size_t max_flight;      /* SMPs out at once, in all (>= 1) */
	unsigned per_target;    /* SMPs out at once to one target (>= 1) */
	const struct mad_window_io *io;  /* NULL: umad on fd, agent */
	uint64_t mkey;          /* the M_Key every SMP carries (madb_set_mkey); 0 none */
};

struct walkq_stats {
	uint64_t requests;        /* requests added */
	uint64_t sent;            /* SMPs sent, every try counted */
	uint64_t retries;         /* tries after a request's first */
	uint64_t lost;            /* requests whose tries were all spent */
	uint64_t refused;         /* answered with a bad status, or refused by the port */
	size_t peak;              /* most SMPs out at once */
	size_t peak_targets;      /* most distinct targets with an SMP out at once */
};

/* How a request ended, for the done callback. */
enum walkq_end {
	WALKQ_ANSWERED,   /* mad is the GetResp, its status 0 */
	WALKQ_REFUSED,    /* a GetResp with a bad status; or, for a request added
			   * with WALKQ_STATUS_FINAL, the local port's timeout report */
	WALKQ_LOST,       /* every try went unanswered */
};

#define WALKQ_FIRST        1u  /* sent before the round-robin's requests */
#define WALKQ_STATUS_FINAL 2u  /* a timeout the local port reports is final (an
				* attribute the device bounces), not retried */

struct walkq;
/* Request `cookie` ended (mad: the answer, umad_get_mad, when end is
 * WALKQ_ANSWERED or a bad status; else NULL). It may add requests. 0, or
 * -errno with err: the run stops. */
typedef int (*walkq_done_fn)(void *ctx, uint64_t cookie, enum walkq_end end, uint8_t *mad,
			     char *err, size_t errlen);

/* NULL on bad params (errno EINVAL) or no memory. */
struct walkq *walkq_new(const struct walkq_params *p, walkq_done_fn done, void *ctx);
void walkq_free(struct walkq *q);
/* A new target: the number requests to it are added with. */
size_t walkq_target(struct walkq *q);
/* Add a Get of attr/am along path to `target`. 0 or -ENOMEM / -E2BIG
 * (more than 2^27 requests in one walk: one that would not end). */
int walkq_add(struct walkq *q, size_t target, uint16_t attr, uint32_t am,
	      const ib_dr_path_t *path, unsigned flags, uint64_t cookie);
/* Send and receive until no request is left. 0, or -errno with err (the
 * port failed, or a done callback did). */
int walkq_run(struct walkq *q, char *err, size_t errlen);
void walkq_get_stats(const struct walkq *q, struct walkq_stats *st);

#endif
