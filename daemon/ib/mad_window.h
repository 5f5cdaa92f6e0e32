/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mad_window.h: many MADs in flight on one umad agent, each with
 * its own deadline and tries: loom's one engine for that (slots, TIDs,
 * tries, deadlines, timeout reports, answer matching, counts, the drain),
 * fed by a source that picks what goes out next (mad_window_run_source):
 * the fixed list of mad_window_run, or the walk's growing queue
 * (walk_queue.c, its policy over this engine). The sweep children use it
 * when they ask
 * every switch or port of a subnet the same question (daemon/ar/ar_read.c:
 * ARInfo SMPs by directed route; daemon/telemetry/counters_read.c: PMA
 * GMPs by LID), and when each switch has a sequence of its own to go
 * through (daemon/ar/ar_sequences.c: AR programming): with a next callback
 * (mad_window_run_seq) a request is a sequence of MADs, one out at a time
 * and in order, the next one built when the last was answered or lost; it
 * keeps its place in the window until its sequence is over, so up to
 * max_flight sequences go on at once and a silent target holds one slot,
 * never the others.
 *
 * Why not libibmad's *_query_via() per target: it waits for each answer,
 * and a target that does not answer costs (retries + 1) x timeout.
 * Sequentially that is 800 ms per silent target with loom's defaults, 13
 * minutes for 1000 switches. Here up to max_flight requests are out at once;
 * the time is about ceil(n / max_flight) x (retries + 1) x timeout when
 * nothing answers, and one round trip per window when everything does.
 *
 * Deadlines are kept here as well as by the kernel: umad_recv() is given
 * the time to the nearest deadline and an expired request is sent again
 * until its tries are spent. A timeout the local MAD layer reports (umad
 * status ETIMEDOUT: the kernel after the send's timeout; ibsim at once, for
 * every MAD it drops) ends a try the same way, and is counted. The TID's
 * low 32 bits name the run, the window's slot and its send: a late answer
 * of a run before is not this run's; a late answer to an earlier
 * try of the current MAD still counts, a late timeout of an earlier try
 * does not end the current one, and an answer to a MAD already over (of
 * the request's, or of a request the slot held before) does not count for
 * the next. With quick retries
 * (mad_window_params.rtt, the counters reader's Gets) a try but the last
 * ends after the round trips seen instead of the whole timeout: a 1% loss
 * no longer holds window slots and each phase's end for 200 ms a lost MAD
 * (issue 44). Blocking: for the children, never for loomd's loop. */
#ifndef LOOMD_MAD_WINDOW_H
#define LOOMD_MAD_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* Where the MADs go: umad_send / umad_recv on fd and agent, or (io not
 * NULL) these, with the same meaning and umad buffers (tests). */
struct mad_window_io {
	int (*send)(void *ctx, void *umad, int len, int timeout_ms);
	int (*recv)(void *ctx, void *umad, int *len, int timeout_ms);
	void *ctx;
};

/* The round trips a caller's runs have seen (mad_window_params.rtt), kept
 * from one run to the next: smoothed and its mean deviation, seconds, as
 * TCP keeps them (RFC 6298). Start it zeroed. */
struct mad_window_rtt {
	double srtt, rttvar;
	int known;
};

/* Start from a zeroed struct: a field a caller does not set stays at its
 * default (io NULL). */
struct mad_window_params {
	int fd, agent;          /* an open umad port and a registered agent */
	unsigned timeout_ms;    /* per try */
	unsigned retries;       /* tries after the first (at most 30) */
	size_t max_flight;      /* requests out at once (>= 1) */
	const struct mad_window_io *io;  /* NULL: umad on fd, agent */
	uint64_t mkey;          /* the M_Key every SMP sent carries (madb_set_mkey;
				 * disc_ib_params.m_key); 0: none */
	struct mad_window_rtt *rtt;  /* not NULL: quick retries. A try but the last
				 * is sent again after the round trips seen (srtt +
				 * 4 x rttvar, MAD_WINDOW_QUICK_MIN_MS at least,
				 * timeout_ms at most; timeout_ms while none is
				 * known), not after timeout_ms; the last try waits
				 * timeout_ms. A lost MAD then holds its slot and
				 * the run's end for milliseconds, not a whole
				 * timeout, and a slow answer to an earlier try
				 * still counts. For MADs that may be asked twice
				 * (Gets), never for a Set whose repeat changes
				 * what the first did (a counters clear). */
};
#define MAD_WINDOW_QUICK_MIN_MS 10

/* One request's fate, filled by the run (n of them, given zeroed or not:
 * the run clears them). */
struct mad_window_req {
	int state;                /* internal */
	double deadline;          /* internal: monotonic seconds, while in flight */
	double sent_at;           /* internal: when its last try went out */
	unsigned tries;           /* its (current or last) MAD was sent this many times */
	unsigned local_timeouts;  /* tries the local port reported timed out, all MADs */
	int answered;             /* the answer callback took an answer to that MAD */
	unsigned mads;            /* MADs of the request (1 without a next callback) */
	uint64_t sent;            /* every try of every MAD of it */
};

struct mad_window_stats {
	uint64_t sent;            /* MADs sent, every try counted */
	size_t peak;              /* most requests out at once */
	uint64_t retries;         /* tries after a MAD's first */
	uint64_t lost;            /* MADs whose tries were all spent */
};

/* Build try `tid` of request i into buf (blen bytes, cleared): the
 * umad_send length, or -errno (the run stops with that error and err). */
typedef int (*mad_window_build_fn)(void *ctx, size_t i, uint32_t tid, uint8_t *buf,
				   size_t blen, char *err, size_t errlen);
/* A MAD (umad_get_mad) whose TID names request i, not a timeout: 1 when it
 * is the answer (request i is done), 0 when it is something else (another
 * method or attribute: ignored, the request stays out). */
typedef int (*mad_window_answer_fn)(void *ctx, size_t i, uint8_t *mad);

/* True when mad (umad_get_mad) is a GetResp of class mgmt_class (e.g.
 * IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS) for attribute attr. */
int mad_window_is_get_resp(uint8_t *mad, unsigned mgmt_class, uint16_t attr);

/* With mad_window_run_seq: request i's current MAD ended, answered (the
 * answer callback took an answer) or not (its tries spent). 1 when request
 * i has another MAD: build is called for it (its tries start again, same
 * slot); 0 when request i is done; -errno with err: the run stops. */
typedef int (*mad_window_next_fn)(void *ctx, size_t i, int answered, char *err,
				  size_t errlen);

/* The target (a switch's PMA or SMA, ...) that entry e of a request list
 * goes to, for mad_window_spread. */
typedef size_t (*mad_window_target_fn)(const void *ctx, size_t e);

/* Reorders list[0..n) round robin over its targets: the first entry of
 * every target, then the second of every target, and so on, each round in
 * the order the targets came (stable). A target answers one MAD at a time
 * (a switch's management processor: ~100 us a MAD), so the window full of
 * one switch's ports waits on that switch alone, while spread over
 * switches it has up to max_flight of them at work at once. A target's
 * entries are expected next to each other (as a plan per node lists
 * them); one that comes back later starts its rounds again. 0, or -ENOMEM
 * (list unchanged). */
int mad_window_spread(size_t *list, size_t n, mad_window_target_fn target, const void *ctx);

/* Ask requests 0..n-1. 0 when every request was answered or ran out of
 * tries (see reqs[i]); -errno with err when the port failed or a build did.
 * *st (may be NULL) gets the counts. */
int mad_window_run(const struct mad_window_params *p, size_t n, struct mad_window_req *reqs,
		   mad_window_build_fn build, mad_window_answer_fn answer, void *ctx,
		   struct mad_window_stats *st, char *err, size_t errlen);
/* The same with a request a sequence of MADs (next, see above; NULL: one
 * MAD a request, as mad_window_run). Requests enter the window in index
 * order. */
int mad_window_run_seq(const struct mad_window_params *p, size_t n, struct mad_window_req *reqs,
		       mad_window_build_fn build, mad_window_answer_fn answer,
		       mad_window_next_fn next, void *ctx, struct mad_window_stats *st,
		       char *err, size_t errlen);

/* Where a run's requests come from (mad_window_run_source): the fixed list
 * 0..n-1 of mad_window_run_seq, or a queue that grows while the run goes
 * on and chooses what goes out next (the walk's, walk_queue.c: priorities,
 * a round robin over targets, at most so many out to one). The engine asks
 * pick for a request whenever a slot of the window is free; a request
 * keeps its slot until it ends, and then next tells the source, which may
 * free room for others and add more. The run is over when nothing is out
 * and pick has none. */
#define MAD_WINDOW_NONE SIZE_MAX
struct mad_window_source {
	/* The request to send now (the source counts it as out from here on),
	 * or MAD_WINDOW_NONE: none left, or none that may go out before
	 * another ends. */
	size_t (*pick)(void *ctx);
	mad_window_build_fn build;
	mad_window_answer_fn answer;
	/* Request i's current MAD ended, answered or not (see
	 * mad_window_next_fn): 1 keeps the request in its slot for another
	 * MAD, 0 ends it. NULL: a request is one MAD. */
	mad_window_next_fn next;
	/* The local port reported the current try of request i timed out: 1
	 * when that ends the MAD at once (a bounce, not a loss: not counted
	 * lost, next is told answered 0), 0 when it is a lost try like any
	 * other. NULL: always 0. */
	int (*bounced)(void *ctx, size_t i);
	/* NULL, or each request's fate, indexed by the request (as many as
	 * pick can return; the run does not clear them). */
	struct mad_window_req *reqs;
	void *ctx;          /* every callback's first argument ... */
	void *pick_ctx;     /* ... but pick's when not NULL */
};

/* Ask what src picks until it has nothing more and nothing is out. 0, or
 * -errno with err (the port failed, a callback did, or max_flight is more
 * than a TID can name). *st (may be NULL) gets the counts. */
int mad_window_run_source(const struct mad_window_params *p, const struct mad_window_source *src,
			  struct mad_window_stats *st, char *err, size_t errlen);

/* Before the local port fd is closed: wait for what the runs on it still
 * have out (a run that stopped early, earlier tries of requests a quick
 * retry answered), until each came back or its deadline passed, and drop
 * it. A real kernel would drop those answers itself; umad2sim's receiver
 * thread does not survive an answer for a port that is gone. Returns at
 * once when nothing is out (the usual end of a run). */
void mad_window_drain(int fd);

#endif
