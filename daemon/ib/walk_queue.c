/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walk_queue.c: see walk_queue.h.
 *
 * A TID's low 32 bits are the request's index << TRY_BITS | its try number:
 * an answer to any try of a request still out counts, a timeout report only
 * for its current try. Targets with work and room wait in a FIFO ring (the
 * round-robin); a target goes back to its end after each request it sends. */
#include "autoconf.h"
#include "daemon/ib/walk_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_build.h"
#include "lib/util/clock.h"

#define TRY_BITS 5
#define TRY_MASK ((1u << TRY_BITS) - 1)
#define MAX_REQS ((size_t)1 << (32 - TRY_BITS))
#define NONE SIZE_MAX

enum { R_WAITING, R_OUT, R_DONE };

struct wreq {
	uint64_t cookie;
	ib_dr_path_t path;
	double deadline;
	size_t target;
	size_t next;          /* the next waiting request of its target (or first list) */
	size_t slot;          /* its place in flight[], while out */
	uint32_t am;
	uint16_t attr;
	uint8_t flags, state, tries;
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
	size_t *flight;       /* request indices out */
	size_t n_flight;
	size_t targets_out;   /* targets with out > 0 */
	uint32_t tid_base;
	uint8_t *sbuf, *rbuf;
	size_t blen;
	struct walkq_stats st;
};

struct walkq *walkq_new(const struct walkq_params *p, walkq_done_fn done, void *ctx)
{
	struct walkq *q;

	if (p->max_flight < 1 || p->per_target < 1 || p->retries >= TRY_MASK) {
		errno = EINVAL;
		return NULL;
	}
	if (!(q = calloc(1, sizeof(*q))))
		return NULL;
	q->p = *p;
	q->done = done;
	q->ctx = ctx;
	q->first_head = q->first_tail = NONE;
	q->tid_base = (uint32_t)mad_trid();
	q->blen = umad_size() + IB_MAD_SIZE;
	q->flight = calloc(p->max_flight, sizeof(*q->flight));
	q->sbuf = calloc(1, q->blen);
	q->rbuf = calloc(1, q->blen);
	if (!q->flight || !q->sbuf || !q->rbuf) {
		walkq_free(q);
		errno = ENOMEM;
		return NULL;
	}
	return q;
}

void walkq_free(struct walkq *q)
{
	if (!q)
		return;
	free(q->r);
	free(q->t);
	free(q->ring);
	free(q->flight);
	free(q->sbuf);
	free(q->rbuf);
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

static int io_send(const struct walkq_params *p, void *umad, int len)
{
	if (p->io)
		return p->io->send(p->io->ctx, umad, len, (int)p->timeout_ms);
	return umad_send(p->fd, p->agent, umad, len, (int)p->timeout_ms, 0);
}

static int io_recv(const struct walkq_params *p, void *umad, int *len, int timeout_ms)
{
	if (p->io)
		return p->io->recv(p->io->ctx, umad, len, timeout_ms);
	return umad_recv(p->fd, umad, len, timeout_ms);
}

static int send_try(struct walkq *q, size_t i, char *err, size_t errlen)
{
	struct wreq *r = &q->r[i];
	uint32_t tid = q->tid_base + (uint32_t)(i << TRY_BITS | (r->tries & TRY_MASK));
	int len = dr_smp_build(q->sbuf, q->blen, IB_MAD_METHOD_GET, r->attr, r->am, &r->path,
			       tid, NULL);

	if (len < 0) {
		snprintf(err, errlen, "cannot build an SMP (attribute 0x%04x)", r->attr);
		return len;
	}
	madb_set_mkey(umad_get_mad(q->sbuf), q->p.mkey);
	if (io_send(&q->p, q->sbuf, len) < 0) {
		snprintf(err, errlen, "cannot send SMPs on the local port");
		return -EIO;
	}
	if (r->tries++)
		q->st.retries++;
	q->st.sent++;
	r->deadline = clock_mono() + q->p.timeout_ms / 1000.0;
	return 0;
}

/* Start request i (taken off its list) in a new slot. */
static int start(struct walkq *q, size_t i, char *err, size_t errlen)
{
	struct wreq *r = &q->r[i];

	r->state = R_OUT;
	r->slot = q->n_flight;
	q->flight[q->n_flight++] = i;
	if (!q->t[r->target].out++)
		q->targets_out++;
	if (q->n_flight > q->st.peak)
		q->st.peak = q->n_flight;
	if (q->targets_out > q->st.peak_targets)
		q->st.peak_targets = q->targets_out;
	return send_try(q, i, err, errlen);
}

/* Fill the window: the first requests whose target has room, in order,
 * then one request of each target of the ring in turn. */
static int fill(struct walkq *q, char *err, size_t errlen)
{
	int rc;

	while (q->n_flight < q->p.max_flight && q->first_head != NONE &&
	       q->t[q->r[q->first_head].target].out < q->p.per_target) {
		size_t i = q->first_head;

		q->first_head = q->r[i].next;
		if (q->first_head == NONE)
			q->first_tail = NONE;
		if ((rc = start(q, i, err, errlen)) < 0)
			return rc;
	}
	while (q->n_flight < q->p.max_flight && q->ring_len) {
		size_t t = ring_pop(q), i = q->t[t].head;

		q->t[t].head = q->r[i].next;
		if (q->t[t].head == NONE)
			q->t[t].tail = NONE;
		if ((rc = start(q, i, err, errlen)) < 0)
			return rc;
		ring_maybe(q, t);
	}
	return 0;
}

/* The request in `slot` is over: its slot goes to the last one out. */
static void unplace(struct walkq *q, size_t slot)
{
	size_t last = q->flight[--q->n_flight];

	q->r[q->flight[slot]].state = R_DONE;
	q->flight[slot] = last;
	q->r[last].slot = slot;
}

/* The request in `slot` ended: free its slot and target room, then tell. */
static int finish(struct walkq *q, size_t slot, enum walkq_end end, uint8_t *mad, char *err,
		  size_t errlen)
{
	size_t i = q->flight[slot];
	struct wreq *r = &q->r[i];

	unplace(q, slot);
	if (!--q->t[r->target].out)
		q->targets_out--;
	ring_maybe(q, r->target);
	if (end == WALKQ_LOST)
		q->st.lost++;
	else if (end == WALKQ_REFUSED)
		q->st.refused++;
	return q->done(q->ctx, r->cookie, end, mad, err, errlen);
}

static int try_lost(struct walkq *q, size_t slot, char *err, size_t errlen)
{
	if (q->r[q->flight[slot]].tries <= q->p.retries)
		return send_try(q, q->flight[slot], err, errlen);
	return finish(q, slot, WALKQ_LOST, NULL, err, errlen);
}

static long slot_of(const struct walkq *q, size_t i)
{
	return q->r[i].state == R_OUT ? (long)q->r[i].slot : -1;
}

static int received(struct walkq *q, char *err, size_t errlen)
{
	uint8_t *mad = umad_get_mad(q->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - q->tid_base;
	size_t i = tid >> TRY_BITS;
	struct wreq *r;
	long slot;

	if (i >= q->n_r || (slot = slot_of(q, i)) < 0)
		return 0;  /* not ours, or late: the request is over */
	r = &q->r[i];
	if (umad_status(q->rbuf)) {
		if ((tid & TRY_MASK) != ((r->tries - 1u) & TRY_MASK))
			return 0;  /* an earlier try's, already sent again */
		if (r->flags & WALKQ_STATUS_FINAL)
			return finish(q, (size_t)slot, WALKQ_REFUSED, NULL, err, errlen);
		return try_lost(q, (size_t)slot, err, errlen);
	}
	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, r->attr) ||
	    mad_get_field(mad, 0, IB_MAD_ATTRMOD_F) != r->am)
		return 0;
	if (mad_get_field(mad, 0, IB_DRSMP_STATUS_F))
		return finish(q, (size_t)slot, WALKQ_REFUSED, mad, err, errlen);
	return finish(q, (size_t)slot, WALKQ_ANSWERED, mad, err, errlen);
}

/* A run that stops early still has SMPs out: wait for their answers (or
 * their tries' deadlines, by which the local port reports them) before the
 * port is closed, so that none arrives for a port that is gone (umad2sim's
 * receiver thread does not survive that). Nothing is sent, nobody told. */
static void drain(struct walkq *q)
{
	double until = 0;

	for (size_t s = 0; s < q->n_flight; s++)
		if (q->r[q->flight[s]].deadline > until)
			until = q->r[q->flight[s]].deadline;
	until += 0.05;
	while (q->n_flight) {
		double now = clock_mono();
		int len = IB_MAD_SIZE, rc;
		uint32_t tid;
		size_t i;
		long slot;

		if (now >= until)
			return;
		rc = io_recv(&q->p, q->rbuf, &len, (int)((until - now) * 1000.0) + 1);
		if (rc < 0 && rc != -ETIMEDOUT && rc != -EWOULDBLOCK && rc != -EINTR &&
		    rc != -ENOSPC)
			return;
		if (rc < 0)
			continue;
		tid = (uint32_t)mad_get_field64(umad_get_mad(q->rbuf), 0, IB_MAD_TRID_F) -
		      q->tid_base;
		i = tid >> TRY_BITS;
		if (i < q->n_r && (slot = slot_of(q, i)) >= 0)
			unplace(q, (size_t)slot);
	}
}

static int run(struct walkq *q, char *err, size_t errlen)
{
	int rc;

	for (;;) {
		double now, first;
		int wait_ms, len = IB_MAD_SIZE;

		if ((rc = fill(q, err, errlen)) < 0)
			return rc;
		if (!q->n_flight)
			return 0;
		now = clock_mono();
		first = q->r[q->flight[0]].deadline;
		for (size_t s = 1; s < q->n_flight; s++)
			if (q->r[q->flight[s]].deadline < first)
				first = q->r[q->flight[s]].deadline;
		/* Never 0: umad_recv() then blocks without polling. */
		wait_ms = first > now ? (int)((first - now) * 1000.0) + 1 : 1;
		rc = io_recv(&q->p, q->rbuf, &len, wait_ms);
		if (rc >= 0 && (rc = received(q, err, errlen)) < 0)
			return rc;
		if (rc < 0 && rc != -ETIMEDOUT && rc != -EWOULDBLOCK && rc != -EINTR &&
		    rc != -ENOSPC) {
			snprintf(err, errlen, "receiving SMPs on the local port: %s", strerror(-rc));
			return rc;
		}
		now = clock_mono();
		for (size_t s = 0; s < q->n_flight;) {
			size_t before = q->n_flight;
			size_t i = q->flight[s];

			if (q->r[i].deadline <= now && (rc = try_lost(q, s, err, errlen)) < 0)
				return rc;
			if (q->n_flight == before && q->flight[s] == i)
				s++;
		}
	}
}

int walkq_run(struct walkq *q, char *err, size_t errlen)
{
	int rc = run(q, err, errlen);

	if (rc < 0)
		drain(q);
	return rc;
}

void walkq_get_stats(const struct walkq *q, struct walkq_stats *st)
{
	*st = q->st;
}
