/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mad_window.c: see mad_window.h. */
#include "autoconf.h"
#include "daemon/ib/mad_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/mad_build.h"
#include "lib/util/clock.h"

/* A TID's low 32 bits: base + (gen << GEN_SHIFT | slot << seq_bits | n), gen
 * the run's generation (a process counts its runs modulo 2^GEN_BITS), slot
 * the window's slot the request holds (slots stay put: a request keeps its
 * slot until it ends), n the slot's send count (every try of every MAD of
 * every request it held) modulo 2^seq_bits, seq_bits what the slot leaves
 * below the generation (at least TRY_BITS: a MAD's tries, at most 31, have
 * distinct n). A try of the slot's current MAD is one whose n is among its
 * last `tries`; any other answer is to a MAD (of this request or one
 * before in the slot) already over. Naming the slot, not the request,
 * lets a source grow without bound (the walk's queue). The generation
 * keeps a late answer to a run before (its base is mad_trid()'s, one
 * apart) from passing for an answer of this one: with quick retries an
 * answer often comes after its request ended, and the next run of a reader
 * may ask the same attribute (the switches' sums, then their ports'
 * PortCounters). */
#define TRY_BITS 5
#define TRY_MASK ((1u << TRY_BITS) - 1)
#define GEN_BITS 4
#define GEN_SHIFT (32 - GEN_BITS)
#define GEN_MASK ((1u << GEN_BITS) - 1)

static unsigned run_gen;  /* the process's runs (the children run one at a time) */

/* What is still out on the local port, over runs (mad_window_drain): every
 * try sent with a timeout gets exactly one MAD back, its answer or the local
 * port's timeout report (the kernel's; umad2sim's through ibsim or the test
 * bed's model), so tries sent less MADs received is what may still come. A
 * run that stops early leaves requests out, and with quick retries a
 * request answered by a later try leaves the earlier one out. */
static unsigned long out_tries;
static double out_until;  /* the last deadline of those tries (clock_mono) */

enum { REQ_WAITING, REQ_IN_FLIGHT, REQ_DONE };

/* A place in the window. */
struct slot {
	size_t i;                    /* the request it holds */
	struct mad_window_req *q;    /* its fate: the source's reqs[i], or own */
	struct mad_window_req own;
	uint32_t seq;                /* the slot's sends, for the TID */
	int busy;
};

struct run {
	const struct mad_window_params *p;
	const struct mad_window_source *src;
	unsigned seq_bits;
	uint32_t seq_mask;
	struct slot *slots;          /* max_flight of them */
	size_t *free;                /* free slots, a stack */
	size_t n_free, n_busy;
	uint32_t tid_base;
	uint32_t gen;                /* this run's generation, < 2^GEN_BITS */
	struct mad_window_stats st;
	uint8_t *sbuf, *rbuf;
	size_t blen;
	char *err;
	size_t errlen;
};

static int io_send(const struct mad_window_params *p, void *umad, int len)
{
	double until = clock_mono() + p->timeout_ms / 1000.0;
	int rc;

	if (p->io)
		return p->io->send(p->io->ctx, umad, len, (int)p->timeout_ms);
	if ((rc = umad_send(p->fd, p->agent, umad, len, (int)p->timeout_ms, 0)) >= 0) {
		out_tries++;
		if (until > out_until)
			out_until = until;
	}
	return rc;
}

static int io_recv(const struct mad_window_params *p, void *umad, int *len, int timeout_ms)
{
	int rc;

	if (p->io)
		return p->io->recv(p->io->ctx, umad, len, timeout_ms);
	if ((rc = umad_recv(p->fd, umad, len, timeout_ms)) >= 0 && out_tries)
		out_tries--;
	return rc;
}

void mad_window_drain(int fd)
{
	uint8_t *buf;

	if (fd < 0 || !out_tries || !(buf = calloc(1, (size_t)umad_size() + IB_MAD_SIZE))) {
		out_tries = 0;
		return;
	}
	/* the last deadline, and a little for the report of a try lost there */
	while (out_tries) {
		double left = out_until + 0.05 - clock_mono();
		int len = IB_MAD_SIZE, rc;

		if (left <= 0)
			break;
		rc = umad_recv(fd, buf, &len, (int)(left * 1000.0) + 1);
		if (rc >= 0)
			out_tries--;
		else if (rc != -EWOULDBLOCK && rc != -EINTR && rc != -ENOSPC && rc != -ETIMEDOUT)
			break;
	}
	free(buf);
	out_tries = 0;
}

/* How long try q->tries (counted, this one included) waits for its answer
 * before the next (mad_window_params.rtt). */
static double try_wait(const struct run *r, const struct mad_window_req *q)
{
	const struct mad_window_rtt *rtt = r->p->rtt;
	double full = r->p->timeout_ms / 1000.0, quick;

	if (!rtt || !rtt->known || q->tries > r->p->retries)
		return full;
	quick = rtt->srtt + 4 * rtt->rttvar;
	if (quick < MAD_WINDOW_QUICK_MIN_MS / 1000.0)
		quick = MAD_WINDOW_QUICK_MIN_MS / 1000.0;
	return quick < full ? quick : full;
}

/* An answer to the latest try of a request, s seconds after it went out:
 * one more round trip seen (RFC 6298's smoothing). */
static void rtt_seen(struct run *r, double s)
{
	struct mad_window_rtt *rtt = r->p->rtt;
	double d;

	if (!rtt || s < 0)
		return;
	if (!rtt->known) {
		rtt->srtt = s;
		rtt->rttvar = s / 2;
		rtt->known = 1;
		return;
	}
	d = rtt->srtt > s ? rtt->srtt - s : s - rtt->srtt;
	rtt->rttvar = 0.75 * rtt->rttvar + 0.25 * d;
	rtt->srtt = 0.875 * rtt->srtt + 0.125 * s;
}

/* One more try of the current MAD of the request in slot s. */
static int send_try(struct run *r, size_t s)
{
	struct slot *sl = &r->slots[s];
	struct mad_window_req *q = sl->q;
	uint32_t tid = r->tid_base + (r->gen << GEN_SHIFT | (uint32_t)s << r->seq_bits |
				      (sl->seq & r->seq_mask));
	int len;

	memset(r->sbuf, 0, r->blen);
	if ((len = r->src->build(r->src->ctx, sl->i, tid, r->sbuf, r->blen, r->err,
				 r->errlen)) < 0)
		return len;
	madb_set_mkey(umad_get_mad(r->sbuf), r->p->mkey);
	if (io_send(r->p, r->sbuf, len) < 0) {
		snprintf(r->err, r->errlen, "cannot send MADs on the local port");
		return -EIO;
	}
	r->st.sent++;
	if (!q->tries++)
		q->mads++;
	else
		r->st.retries++;
	q->sent++;
	sl->seq++;
	q->sent_at = clock_mono();
	q->deadline = q->sent_at + try_wait(r, q);
	return 0;
}

/* The current MAD of the request in slot s ended, answered or not: its
 * next MAD goes out in the same slot, or the request is done and the slot
 * free. */
static int finish(struct run *r, size_t s, int answered)
{
	struct slot *sl = &r->slots[s];
	struct mad_window_req *q = sl->q;
	int rc;

	q->answered = answered;
	if (r->src->next) {
		if ((rc = r->src->next(r->src->ctx, sl->i, answered, r->err, r->errlen)) < 0)
			return rc;
		if (rc > 0) {
			q->tries = 0;
			q->answered = 0;
			return send_try(r, s);
		}
	}
	q->state = REQ_DONE;
	sl->busy = 0;
	r->n_busy--;
	r->free[r->n_free++] = s;
	return 0;
}

/* A try of the request in slot s ended without an answer: again, or the
 * MAD is lost. */
static int try_lost(struct run *r, size_t s)
{
	if (r->slots[s].q->tries <= r->p->retries)
		return send_try(r, s);
	r->st.lost++;
	return finish(r, s, 0);
}

/* One MAD from umad_recv(): an answer, or the kernel's timeout of a send. */
static int received(struct run *r)
{
	uint8_t *mad = umad_get_mad(r->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - r->tid_base;
	size_t s = (size_t)((tid & ((1u << GEN_SHIFT) - 1)) >> r->seq_bits);
	struct slot *sl;
	uint32_t back;  /* how many sends before the slot's next one this was */

	if (tid >> GEN_SHIFT != r->gen || s >= r->p->max_flight || !r->slots[s].busy)
		return 0;  /* not ours, or a late answer to a run or request already done */
	sl = &r->slots[s];
	back = (sl->seq - (tid & r->seq_mask)) & r->seq_mask;
	if (back == 0 || back > sl->q->tries)
		return 0;  /* a MAD before the slot's current one */
	if (umad_status(r->rbuf)) {
		/* The timeout of an earlier try, already sent again: not this one. */
		if (back != 1)
			return 0;
		sl->q->local_timeouts++;
		if (r->src->bounced && r->src->bounced(r->src->ctx, sl->i))
			return finish(r, s, 0);
		return try_lost(r, s);
	}
	if (r->src->answer(r->src->ctx, sl->i, mad) != 1)
		return 0;
	/* Only an answer to the latest try times a round trip (Karn): one to
	 * an earlier try would count the quick retry's wait in. */
	if (back == 1)
		rtt_seen(r, clock_mono() - sl->q->sent_at);
	return finish(r, s, 1);
}

/* Free slots to what the source picks. */
static int fill(struct run *r)
{
	void *pick_ctx = r->src->pick_ctx ? r->src->pick_ctx : r->src->ctx;
	size_t i, s;
	int rc;

	while (r->n_free && (i = r->src->pick(pick_ctx)) != MAD_WINDOW_NONE) {
		struct slot *sl = &r->slots[s = r->free[--r->n_free]];

		sl->i = i;
		sl->busy = 1;
		sl->own = (struct mad_window_req){ 0 };
		sl->q = r->src->reqs ? &r->src->reqs[i] : &sl->own;
		sl->q->state = REQ_IN_FLIGHT;
		r->n_busy++;
		if ((rc = send_try(r, s)) < 0)
			return rc;
	}
	if (r->n_busy > r->st.peak)
		r->st.peak = r->n_busy;
	return 0;
}

static int loop(struct run *r)
{
	size_t n = r->p->max_flight;
	int rc;

	for (;;) {
		double now, first = 0;
		int wait_ms, len = IB_MAD_SIZE, any = 0;

		if ((rc = fill(r)) < 0)
			return rc;
		if (!r->n_busy)
			return 0;
		now = clock_mono();
		for (size_t s = 0; s < n; s++)
			if (r->slots[s].busy && (!any++ || r->slots[s].q->deadline < first))
				first = r->slots[s].q->deadline;
		/* Never 0: umad_recv() then blocks without polling. */
		wait_ms = first > now ? (int)((first - now) * 1000.0) + 1 : 1;
		rc = io_recv(r->p, r->rbuf, &len, wait_ms);
		if (rc >= 0 && (rc = received(r)) < 0)
			return rc;
		if (rc < 0 && rc != -ETIMEDOUT && rc != -EWOULDBLOCK && rc != -EINTR &&
		    rc != -ENOSPC) {
			snprintf(r->err, r->errlen, "receiving MADs on the local port: %s",
				 strerror(-rc));
			return rc;
		}
		now = clock_mono();
		for (size_t s = 0; s < n; s++)
			if (r->slots[s].busy && r->slots[s].q->deadline <= now &&
			    (rc = try_lost(r, s)) < 0)
				return rc;
	}
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

int mad_window_spread(size_t *list, size_t n, mad_window_target_fn target, const void *ctx)
{
	size_t *rank, *out, *at, rounds = 0;

	if (n < 2)
		return 0;
	rank = calloc(n, sizeof(*rank));
	out = calloc(n, sizeof(*out));
	if (!rank || !out) {
		free(rank);
		free(out);
		return -ENOMEM;
	}
	/* Each entry's round: its place among its target's run of entries. */
	for (size_t e = 0, prev = 0; e < n; e++) {
		size_t t = target(ctx, list[e]);

		rank[e] = e && t == prev ? rank[e - 1] + 1 : 0;
		prev = t;
		if (rank[e] + 1 > rounds)
			rounds = rank[e] + 1;
	}
	/* A stable counting sort on the round. */
	if (!(at = calloc(rounds + 1, sizeof(*at)))) {
		free(rank);
		free(out);
		return -ENOMEM;
	}
	for (size_t e = 0; e < n; e++)
		at[rank[e] + 1]++;
	for (size_t k = 1; k <= rounds; k++)
		at[k] += at[k - 1];
	for (size_t e = 0; e < n; e++)
		out[at[rank[e]]++] = list[e];
	memcpy(list, out, n * sizeof(*list));
	free(at);
	free(rank);
	free(out);
	return 0;
}

/* The fixed list 0..n-1, in index order. */
struct list_source {
	size_t n, next;
};

static size_t list_pick(void *ctx)
{
	struct list_source *l = ctx;

	return l->next < l->n ? l->next++ : MAD_WINDOW_NONE;
}

int mad_window_run_source(const struct mad_window_params *p, const struct mad_window_source *src,
			  struct mad_window_stats *st, char *err, size_t errlen)
{
	struct run r = {
		.p = p, .src = src, .tid_base = (uint32_t)mad_trid(),
		.blen = umad_size() + IB_MAD_SIZE, .err = err, .errlen = errlen,
	};
	unsigned slot_bits = 1;
	int rc;

	while (slot_bits < 32 && ((uint64_t)1 << slot_bits) < (uint64_t)p->max_flight)
		slot_bits++;
	if (p->max_flight < 1 || p->retries >= TRY_MASK || slot_bits > GEN_SHIFT - TRY_BITS) {
		snprintf(err, errlen, "%zu MADs in flight, %u retries: more than a TID can name",
			 p->max_flight, p->retries);
		return -EINVAL;
	}
	r.seq_bits = GEN_SHIFT - slot_bits;
	r.seq_mask = (1u << r.seq_bits) - 1;
	r.gen = run_gen++ & GEN_MASK;
	r.slots = calloc(p->max_flight, sizeof(*r.slots));
	r.free = calloc(p->max_flight, sizeof(*r.free));
	r.sbuf = calloc(1, r.blen);
	r.rbuf = calloc(1, r.blen);
	if (!r.slots || !r.free || !r.sbuf || !r.rbuf) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	} else {
		for (r.n_free = 0; r.n_free < p->max_flight; r.n_free++)  /* slot 0 first */
			r.free[r.n_free] = p->max_flight - 1 - r.n_free;
		rc = loop(&r);
	}
	free(r.slots);
	free(r.free);
	free(r.sbuf);
	free(r.rbuf);
	if (st)
		*st = r.st;
	return rc;
}

int mad_window_run(const struct mad_window_params *p, size_t n, struct mad_window_req *reqs,
		   mad_window_build_fn build, mad_window_answer_fn answer, void *ctx,
		   struct mad_window_stats *st, char *err, size_t errlen)
{
	return mad_window_run_seq(p, n, reqs, build, answer, NULL, ctx, st, err, errlen);
}

int mad_window_run_seq(const struct mad_window_params *p, size_t n, struct mad_window_req *reqs,
		       mad_window_build_fn build, mad_window_answer_fn answer,
		       mad_window_next_fn next, void *ctx, struct mad_window_stats *st,
		       char *err, size_t errlen)
{
	struct list_source l = { .n = n };
	struct mad_window_source src = {
		.pick = list_pick, .build = build, .answer = answer, .next = next,
		.reqs = reqs, .ctx = ctx, .pick_ctx = &l,
	};

	if (n)
		memset(reqs, 0, n * sizeof(*reqs));
	return mad_window_run_source(p, &src, st, err, errlen);
}
