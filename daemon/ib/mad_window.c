/* daemon/ib/mad_window.c: see mad_window.h. */
#include "autoconf.h"
#include "daemon/ib/mad_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lib/util/clock.h"

/* A TID's low 32 bits: base + (request index << TRY_BITS | try). */
#define TRY_BITS 5
#define TRY_MASK ((1u << TRY_BITS) - 1)

enum { REQ_WAITING, REQ_IN_FLIGHT, REQ_DONE };

struct run {
	const struct mad_window_params *p;
	size_t n;
	struct mad_window_req *reqs;
	mad_window_build_fn build;
	mad_window_answer_fn answer;
	void *ctx;
	size_t *flight;              /* indices in flight */
	size_t n_flight;
	uint32_t tid_base;
	struct mad_window_stats st;
	uint8_t *sbuf, *rbuf;
	size_t blen;
	char *err;
	size_t errlen;
};

/* One more try of request i. */
static int send_try(struct run *r, size_t i)
{
	struct mad_window_req *q = &r->reqs[i];
	uint32_t tid = r->tid_base + ((uint32_t)i << TRY_BITS | ((q->tries + 1) & TRY_MASK));
	int len;

	memset(r->sbuf, 0, r->blen);
	if ((len = r->build(r->ctx, i, tid, r->sbuf, r->blen, r->err, r->errlen)) < 0)
		return len;
	if (umad_send(r->p->fd, r->p->agent, r->sbuf, len, (int)r->p->timeout_ms, 0) < 0) {
		snprintf(r->err, r->errlen, "cannot send MADs on the local port");
		return -EIO;
	}
	r->st.sent++;
	q->tries++;
	q->deadline = clock_mono() + r->p->timeout_ms / 1000.0;
	return 0;
}

static void finish(struct run *r, size_t slot)
{
	r->reqs[r->flight[slot]].state = REQ_DONE;
	r->flight[slot] = r->flight[--r->n_flight];
}

/* A try of the request in `slot` ended without an answer: again, or done. */
static int try_lost(struct run *r, size_t slot)
{
	size_t i = r->flight[slot];

	if (r->reqs[i].tries <= r->p->retries)
		return send_try(r, i);
	finish(r, slot);
	return 0;
}

static long slot_of(const struct run *r, size_t i)
{
	for (size_t s = 0; s < r->n_flight; s++)
		if (r->flight[s] == i)
			return (long)s;
	return -1;
}

/* One MAD from umad_recv(): an answer, or the kernel's timeout of a send. */
static int received(struct run *r)
{
	uint8_t *mad = umad_get_mad(r->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - r->tid_base;
	size_t i = (size_t)(tid >> TRY_BITS);
	long slot;

	if (i >= r->n || (slot = slot_of(r, i)) < 0)
		return 0;  /* not ours, or a late answer to a request already done */
	if (umad_status(r->rbuf)) {
		/* The timeout of an earlier try, already sent again: not this one. */
		if ((tid & TRY_MASK) != (r->reqs[i].tries & TRY_MASK))
			return 0;
		r->reqs[i].local_timeouts++;
		return try_lost(r, (size_t)slot);
	}
	if (r->answer(r->ctx, i, mad) != 1)
		return 0;
	r->reqs[i].answered = 1;
	finish(r, (size_t)slot);
	return 0;
}

static int loop(struct run *r)
{
	size_t next = 0;
	int rc;

	while (next < r->n || r->n_flight) {
		double now, first;
		int wait_ms, len = IB_MAD_SIZE;

		while (r->n_flight < r->p->max_flight && next < r->n) {
			r->reqs[next].state = REQ_IN_FLIGHT;
			r->flight[r->n_flight++] = next;
			if ((rc = send_try(r, next++)) < 0)
				return rc;
		}
		if (r->n_flight > r->st.peak)
			r->st.peak = r->n_flight;
		now = clock_mono();
		first = r->reqs[r->flight[0]].deadline;
		for (size_t s = 1; s < r->n_flight; s++)
			if (r->reqs[r->flight[s]].deadline < first)
				first = r->reqs[r->flight[s]].deadline;
		/* Never 0: umad_recv() then blocks without polling. */
		wait_ms = first > now ? (int)((first - now) * 1000.0) + 1 : 1;
		rc = umad_recv(r->p->fd, r->rbuf, &len, wait_ms);
		if (rc >= 0 && (rc = received(r)) < 0)
			return rc;
		if (rc < 0 && rc != -ETIMEDOUT && rc != -EWOULDBLOCK && rc != -EINTR &&
		    rc != -ENOSPC) {
			snprintf(r->err, r->errlen, "receiving MADs on the local port: %s",
				 strerror(-rc));
			return rc;
		}
		now = clock_mono();
		for (size_t s = 0; s < r->n_flight;) {
			size_t before = r->n_flight;

			if (r->reqs[r->flight[s]].deadline <= now && (rc = try_lost(r, s)) < 0)
				return rc;
			if (r->n_flight == before)
				s++;  /* still in flight (sent again, or not due) */
		}
	}
	return 0;
}

int mad_window_is_get_resp(uint8_t *mad, unsigned mgmt_class, uint16_t attr)
{
	/* libibmad's IB_MAD_METHOD_F is the 7-bit method: a GetResp (0x81)
	 * reads as Get (1) with IB_MAD_RESPONSE_F set. */
	return mad_get_field(mad, 0, IB_MAD_RESPONSE_F) == 1 &&
	       mad_get_field(mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_GET &&
	       mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == mgmt_class &&
	       mad_get_field(mad, 0, IB_MAD_ATTRID_F) == attr;
}

int mad_window_run(const struct mad_window_params *p, size_t n, struct mad_window_req *reqs,
		   mad_window_build_fn build, mad_window_answer_fn answer, void *ctx,
		   struct mad_window_stats *st, char *err, size_t errlen)
{
	struct run r = {
		.p = p, .n = n, .reqs = reqs, .build = build, .answer = answer, .ctx = ctx,
		.tid_base = (uint32_t)mad_trid(), .blen = umad_size() + IB_MAD_SIZE,
		.err = err, .errlen = errlen,
	};
	int rc;

	if (p->max_flight < 1 || p->retries >= TRY_MASK ||
	    n > (SIZE_MAX >> TRY_BITS) || (uint64_t)n > (UINT32_MAX >> TRY_BITS)) {
		snprintf(err, errlen, "%zu requests, %u retries: more than a TID can name", n,
			 p->retries);
		return -EINVAL;
	}
	if (n)
		memset(reqs, 0, n * sizeof(*reqs));
	r.flight = calloc(p->max_flight, sizeof(*r.flight));
	r.sbuf = calloc(1, r.blen);
	r.rbuf = calloc(1, r.blen);
	if (!r.flight || !r.sbuf || !r.rbuf) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	} else {
		rc = loop(&r);
	}
	free(r.flight);
	free(r.sbuf);
	free(r.rbuf);
	if (st)
		*st = r.st;
	return rc;
}
