/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/work.h: the one way loomd runs blocking work off its event
 * loop (SMP walks through `loomd --X` children, switch pushes, anything that
 * waits) and brings the result back to the loop (daemon/core/work.c).
 *
 * A module makes one queue per kind of job and submits jobs to it. Each job
 * runs on a thread of its own; when it returns, the loop (never the worker)
 * calls the job's done() with what run() returned, then its free(). The
 * module keeps only those functions: the thread, the wake-up of the loop,
 * the join, the limit on jobs under way and shutdown are this module's.
 *
 *   run()   worker thread: the blocking part. It must not touch the loop's
 *           state (no ctl reply, no event, no store the loop uses); what it
 *           needs is copied into the job before work_submit().
 *   done()  loop thread, once run() has returned: answer, record, log.
 *   free()  loop thread, after done() (NULL: the job is not freed).
 *
 * Policies: WORK_REFUSE (a submit while max_running jobs are under way is
 * refused with -EBUSY: a client looping on a command cannot pile up SMP
 * walks) and WORK_FIFO (it waits, and starts in submission order when a
 * running job ends). Shutdown (work_queue_free) waits for the jobs that
 * run, calls their done() as usual, and calls done() of jobs that never
 * started with -ECANCELED. */
#ifndef LOOMD_CORE_WORK_H
#define LOOMD_CORE_WORK_H

#include <stddef.h>

struct event_base;
struct work_queue;

struct work_ops {
	int (*run)(void *job, char *err, size_t errlen);
	void (*done)(void *job, int rc, const char *err);
	void (*free)(void *job);
};

enum work_policy {
	WORK_REFUSE,  /* full: work_submit() says -EBUSY */
	WORK_FIFO,    /* full: the job waits its turn */
};

/* A queue on `base` for jobs of one kind; `what` names them in logs ("AR
 * probe"). max_running >= 1. NULL with the reason in err. Loop thread. */
struct work_queue *work_queue_new(struct event_base *base, const char *what,
				  unsigned max_running, enum work_policy policy,
				  char *err, size_t errlen);

/* Start (or queue) a job. 0: the queue owns it, and done() and free() will
 * be called exactly once, on the loop. -EBUSY (WORK_REFUSE, full),
 * -ESHUTDOWN (from a done() during work_queue_free) or -errno (no thread
 * could be started, no memory): the caller still owns the job and nothing
 * was called. Loop thread. */
int work_submit(struct work_queue *q, const struct work_ops *ops, void *job);

/* Jobs started and not yet done(); jobs waiting (WORK_FIFO). */
unsigned work_running(const struct work_queue *q);
unsigned work_waiting(const struct work_queue *q);
/* 1 when a WORK_REFUSE submit would be refused now. */
int work_full(const struct work_queue *q);

/* Wait for every running job and finish it (done, free); waiting jobs get
 * done(-ECANCELED, "loomd is shutting down"). NULL is fine. Loop thread. */
void work_queue_free(struct work_queue *q);

#endif
