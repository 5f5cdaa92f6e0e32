/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/work.c: jobs on threads, results on the loop (see work.h).
 *
 * One thread per job, joined by the loop: jobs are few and long (an SMP walk
 * of a subnet, a switch push), so a pool would buy nothing and would make a
 * job hung in a MAD library hold back unrelated ones. A job's last act on
 * its thread is to set `finished` and wake the loop (loop_wake.h); the loop
 * joins every finished job, in the order they were started, so a job is
 * never joined before its thread has stopped touching it. */
#include "autoconf.h"
#include "daemon/core/work.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/loop_wake.h"
#include "lib/util/log.h"

#define WORK_ERR_LEN 1024

struct work_item {
	struct work_item *next;
	struct work_queue *q;
	const struct work_ops *ops;
	void *job;
	pthread_t thread;
	atomic_int finished;   /* set by the thread as its last act */
	int rc;
	char err[WORK_ERR_LEN];
};

struct work_queue {
	char what[64];
	unsigned max_running;
	enum work_policy policy;
	struct loop_wake *wake;
	struct work_item *running;   /* oldest first */
	struct work_item *waiting;   /* oldest first (WORK_FIFO) */
	unsigned n_running, n_waiting;
	int closing;                 /* work_queue_free under way */
};

static void append(struct work_item **list, struct work_item *it)
{
	while (*list)
		list = &(*list)->next;
	it->next = NULL;
	*list = it;
}

static void *item_thread(void *arg)
{
	struct work_item *it = arg;
	struct work_queue *q = it->q;
	int rc;

	it->rc = it->ops->run(it->job, it->err, sizeof(it->err));
	if (it->rc < 0 && !it->err[0])
		snprintf(it->err, sizeof(it->err), "%s", strerror(-it->rc));
	atomic_store(&it->finished, 1);
	/* `it` may be joined and freed from here on: only q is used. */
	if ((rc = loop_wake_signal(q->wake)) < 0)
		log_err("%s: cannot wake the event loop: %s", q->what, strerror(-rc));
	return NULL;
}

static int item_start(struct work_queue *q, struct work_item *it)
{
	int rc;

	atomic_store(&it->finished, 0);
	if ((rc = pthread_create(&it->thread, NULL, item_thread, it)) != 0) {
		log_err("%s: cannot start a thread: %s", q->what, strerror(rc));
		return -rc;
	}
	append(&q->running, it);
	q->n_running++;
	return 0;
}

static void item_finish(struct work_item *it, int rc, const char *err)
{
	if (it->ops->done)
		it->ops->done(it->job, rc, err);
	if (it->ops->free)
		it->ops->free(it->job);
	free(it);
}

/* Start waiting jobs while there is room; one that cannot start is
 * finished with its error (its submitter was told 0 long ago). */
static void start_waiting(struct work_queue *q)
{
	while (q->waiting && q->n_running < q->max_running) {
		struct work_item *it = q->waiting;
		int rc;

		q->waiting = it->next;
		q->n_waiting--;
		if ((rc = item_start(q, it)) < 0)
			item_finish(it, rc, "cannot start a thread");
	}
}

/* Join and finish every finished job (every job when `all`). */
static void reap(struct work_queue *q, int all)
{
	struct work_item **pp = &q->running;

	while (*pp) {
		struct work_item *it = *pp;

		if (!all && !atomic_load(&it->finished)) {
			pp = &it->next;
			continue;
		}
		pthread_join(it->thread, NULL);
		*pp = it->next;
		q->n_running--;
		item_finish(it, it->rc, it->err);
	}
	if (!all)
		start_waiting(q);
}

static void wake_cb(void *arg)
{
	reap(arg, 0);
}

struct work_queue *work_queue_new(struct event_base *base, const char *what,
				  unsigned max_running, enum work_policy policy,
				  char *err, size_t errlen)
{
	struct work_queue *q = calloc(1, sizeof(*q));
	char events[96];

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(q->what, sizeof(q->what), "%s", what);
	q->max_running = max_running ? max_running : 1;
	q->policy = policy;
	snprintf(events, sizeof(events), "%s events", what);
	if (!(q->wake = loop_wake_new(base, wake_cb, q, events, err, errlen))) {
		free(q);
		return NULL;
	}
	return q;
}

int work_submit(struct work_queue *q, const struct work_ops *ops, void *job)
{
	struct work_item *it;
	int rc;

	if (q->closing)
		return -ESHUTDOWN;  /* a done() at shutdown starts nothing new */
	if (q->policy == WORK_REFUSE && q->n_running >= q->max_running)
		return -EBUSY;
	if (!(it = calloc(1, sizeof(*it))))
		return -ENOMEM;
	it->q = q;
	it->ops = ops;
	it->job = job;
	/* Behind the waiting ones, even with room (a done() submitting while
	 * reap() has not started them yet): first come, first started. */
	if (q->n_running >= q->max_running || q->waiting) {
		append(&q->waiting, it);
		q->n_waiting++;
		return 0;
	}
	if ((rc = item_start(q, it)) < 0) {
		free(it);
		return rc;
	}
	return 0;
}

unsigned work_running(const struct work_queue *q)
{
	return q->n_running;
}

unsigned work_waiting(const struct work_queue *q)
{
	return q->n_waiting;
}

int work_full(const struct work_queue *q)
{
	return q->n_running >= q->max_running;
}

void work_queue_free(struct work_queue *q)
{
	if (!q)
		return;
	q->closing = 1;
	reap(q, 1);
	while (q->waiting) {
		struct work_item *it = q->waiting;

		q->waiting = it->next;
		item_finish(it, -ECANCELED, "loomd is shutting down");
	}
	loop_wake_free(q->wake);
	free(q);
}
