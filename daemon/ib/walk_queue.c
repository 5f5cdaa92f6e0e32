/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walk_queue.c: see walk_queue.h.
 *
 * The policy of the walk's window; the tries are mad_window.c's (a source
 * for mad_window_run_source: TIDs, deadlines, retries, the local port's
 * timeout reports, the counts sent, retries, lost and peak). Here: which
 * request goes out next (pick), the room each target has, the SMP a
 * request is (build), what its answer means (answer, bounced) and telling
 * the walk (next, then done). Targets with work and room wait in a FIFO
 * ring (the round-robin); a target goes back to its end after each request
 * it sends. */
#include "autoconf.h"
#include "daemon/ib/walk_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/ib/dr_route.h"

/* A bound on a walk's requests (walk_dr.c says it): far more than any
 * subnet asks, less than would make the walk grow without end. */
#define MAX_REQS ((size_t)1 << 27)
#define NONE MAD_WINDOW_NONE

struct wreq {
	uint64_t cookie;
	ib_dr_path_t path;
	size_t target;
	size_t next;          /* the next waiting request of its target (or first list) */
	uint32_t am;
	uint16_t attr;
	uint8_t flags;
};

struct wtarget {
	size_t head, tail;    /* its waiting requests (not WALKQ_FIRST ones) */
	unsigned out;
	int in_ring;
};

struct walkq {
	struct walkq_params p;
	walkq_done_fn done;
	void *ctx;
	struct wreq *r;
	size_t n_r, cap_r;
	struct wtarget *t;
	size_t n_t, cap_t;
	size_t *ring;         /* targets with work and room, a circular FIFO */
	size_t ring_head, ring_len, ring_cap;
	size_t first_head, first_tail;  /* WALKQ_FIRST requests waiting */
	size_t targets_out;   /* targets with out > 0 */
	enum walkq_end end;   /* how the request ending now ended (answer, bounced) */
	uint8_t *end_mad;     /* its answer, or NULL */
	int end_set;          /* end is set: else its tries were spent */
	struct walkq_stats st;
};

struct walkq *walkq_new(const struct walkq_params *p, walkq_done_fn done, void *ctx)
{
	struct walkq *q;

	if (p->max_flight < 1 || p->per_target < 1 || p->retries > 30) {  /* mad_window's */
		errno = EINVAL;
		return NULL;
	}
	if (!(q = calloc(1, sizeof(*q))))
		return NULL;
	q->p = *p;
	q->done = done;
	q->ctx = ctx;
	q->first_head = q->first_tail = NONE;
	return q;
}

void walkq_free(struct walkq *q)
{
	if (!q)
		return;
	free(q->r);
	free(q->t);
	free(q->ring);
	free(q);
}

static int grow(void **a, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *b;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (!(b = realloc(*a, n * size)))
		return -ENOMEM;
	*a = b;
	*cap = n;
	return 0;
}

/* The ring holds each target once at most: its capacity follows the
 * targets', and it is laid out again from 0 when it grows. */
static int ring_grow(struct walkq *q, size_t need)
{
	size_t cap = q->ring_cap ? q->ring_cap * 2 : 64, *b;

	if (need <= q->ring_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (!(b = malloc(cap * sizeof(*b))))
		return -ENOMEM;
	for (size_t k = 0; k < q->ring_len; k++)
		b[k] = q->ring[(q->ring_head + k) % q->ring_cap];
	free(q->ring);
	q->ring = b;
	q->ring_cap = cap;
	q->ring_head = 0;
	return 0;
}

size_t walkq_target(struct walkq *q)
{
	if (grow((void **)&q->t, &q->cap_t, q->n_t + 1, sizeof(*q->t)) < 0 ||
	    ring_grow(q, q->n_t + 1) < 0)
		return NONE;
	q->t[q->n_t] = (struct wtarget){ .head = NONE, .tail = NONE };
	return q->n_t++;
}

static void ring_push(struct walkq *q, size_t t)
{
	q->ring[(q->ring_head + q->ring_len++) % q->ring_cap] = t;
	q->t[t].in_ring = 1;
}

static size_t ring_pop(struct walkq *q)
{
	size_t t = q->ring[q->ring_head];

	q->ring_head = (q->ring_head + 1) % q->ring_cap;
	q->ring_len--;
	q->t[t].in_ring = 0;
	return t;
}

/* Put t in the ring if it has work and room (and is not there). */
static void ring_maybe(struct walkq *q, size_t t)
{
	struct wtarget *w = &q->t[t];

	if (!w->in_ring && w->head != NONE && w->out < q->p.per_target)
		ring_push(q, t);
}

int walkq_add(struct walkq *q, size_t target, uint16_t attr, uint32_t am,
	      const ib_dr_path_t *path, unsigned flags, uint64_t cookie)
{
	struct wreq *r;
	size_t i = q->n_r;

	if (target >= q->n_t)
		return -EINVAL;
	if (i >= MAX_REQS)
		return -E2BIG;
	if (grow((void **)&q->r, &q->cap_r, i + 1, sizeof(*q->r)) < 0)
		return -ENOMEM;
	r = &q->r[q->n_r++];
	*r = (struct wreq){ .cookie = cookie, .path = *path, .target = target, .next = NONE,
			    .am = am, .attr = attr, .flags = (uint8_t)flags };
	q->st.requests++;
	if (flags & WALKQ_FIRST) {
		if (q->first_tail == NONE)
			q->first_head = i;
		else
			q->r[q->first_tail].next = i;
		q->first_tail = i;
		return 0;
	}
	if (q->t[target].tail == NONE)
		q->t[target].head = i;
	else
		q->r[q->t[target].tail].next = i;
	q->t[target].tail = i;
	ring_maybe(q, target);
	return 0;
}

/* Request i goes out: its target has one fewer room. */
static size_t start(struct walkq *q, size_t i)
{
	if (!q->t[q->r[i].target].out++)
		q->targets_out++;
	if (q->targets_out > q->st.peak_targets)
		q->st.peak_targets = q->targets_out;
	return i;
}

/* mad_window's pick: the first requests whose target has room, in order,
 * then one request of each target of the ring in turn. */
static size_t pick(void *ctx)
{
	struct walkq *q = ctx;
	size_t i, t;

	if (q->first_head != NONE && q->t[q->r[q->first_head].target].out < q->p.per_target) {
		i = q->first_head;
		q->first_head = q->r[i].next;
		if (q->first_head == NONE)
			q->first_tail = NONE;
		return start(q, i);
	}
	if (!q->ring_len)
		return NONE;
	t = ring_pop(q);
	i = q->t[t].head;
	q->t[t].head = q->r[i].next;
	if (q->t[t].head == NONE)
		q->t[t].tail = NONE;
	start(q, i);
	ring_maybe(q, t);
	return i;
}

static int build(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		 size_t errlen)
{
	struct walkq *q = ctx;
	struct wreq *r = &q->r[i];
	int len = dr_smp_build(buf, blen, IB_MAD_METHOD_GET, r->attr, r->am, &r->path, tid, NULL);

	if (len < 0)
		snprintf(err, errlen, "cannot build an SMP (attribute 0x%04x)", r->attr);
	return len;
}

/* The GetResp of request i's attribute and modifier ends it: answered, or
 * refused with a bad status. */
static int answer(void *ctx, size_t i, uint8_t *mad)
{
	struct walkq *q = ctx;
	struct wreq *r = &q->r[i];

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, r->attr) ||
	    mad_get_field(mad, 0, IB_MAD_ATTRMOD_F) != r->am)
		return 0;
	q->end = mad_get_field(mad, 0, IB_DRSMP_STATUS_F) ? WALKQ_REFUSED : WALKQ_ANSWERED;
	q->end_mad = mad;
	q->end_set = 1;
	return 1;
}

/* The local port's timeout report is final for a WALKQ_STATUS_FINAL request. */
static int bounced(void *ctx, size_t i)
{
	struct walkq *q = ctx;

	if (!(q->r[i].flags & WALKQ_STATUS_FINAL))
		return 0;
	q->end = WALKQ_REFUSED;
	q->end_mad = NULL;
	q->end_set = 1;
	return 1;
}

/* Request i ended: free its target's room, then tell the walk. */
static int ended(void *ctx, size_t i, int answered, char *err, size_t errlen)
{
	struct walkq *q = ctx;
	struct wreq *r = &q->r[i];
	enum walkq_end end = q->end_set ? q->end : WALKQ_LOST;
	uint8_t *mad = q->end_set ? q->end_mad : NULL;
	int rc;

	(void)answered;
	q->end_set = 0;
	if (!--q->t[r->target].out)
		q->targets_out--;
	ring_maybe(q, r->target);
	if (end == WALKQ_REFUSED)
		q->st.refused++;
	rc = q->done(q->ctx, r->cookie, end, mad, err, errlen);
	return rc < 0 ? rc : 0;
}

int walkq_run(struct walkq *q, char *err, size_t errlen)
{
	struct mad_window_params wp = {
		.fd = q->p.fd, .agent = q->p.agent, .timeout_ms = q->p.timeout_ms,
		.retries = q->p.retries, .max_flight = q->p.max_flight, .io = q->p.io,
		.mkey = q->p.mkey,
	};
	struct mad_window_source src = {
		.pick = pick, .build = build, .answer = answer, .next = ended,
		.bounced = bounced, .ctx = q,
	};
	struct mad_window_stats st;
	int rc = mad_window_run_source(&wp, &src, &st, err, errlen);

	q->st.sent += st.sent;
	q->st.retries += st.retries;
	q->st.lost += st.lost;
	if (st.peak > q->st.peak)
		q->st.peak = st.peak;
	return rc;
}

void walkq_get_stats(const struct walkq *q, struct walkq_stats *st)
{
	*st = q->st;
}
