/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_work.c: daemon/core/work.h, the one way loomd runs
 * blocking jobs: run() on a thread that is not the loop's, done() and free()
 * on the loop's with what run() returned, WORK_REFUSE refusing past its
 * limit without taking the job, WORK_FIFO starting waiting jobs in
 * submission order and never more than its limit at once, and shutdown
 * finishing the running jobs, cancelling the waiting ones and starting
 * nothing a done() submits meanwhile. Jobs wait on
 * a gate the test opens, so what is under way is known, not raced. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "daemon/core/work.h"
#include "tests/unit/fixtures/check_run.h"

#define MAX_JOBS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int gate_open;
static int running_now, running_most, started;

struct job {
	int id;
	int rc;                /* what run() returns */
	pthread_t loop;        /* the thread that submitted it */
	int ran_on_loop;       /* run() saw the loop's thread */
	int start_index;       /* order in which run() began */
	int done_rc;
	char done_err[128];
	int done_on_loop;      /* done() saw the loop's thread */
	int done_calls, freed;
};

static struct job jobs[MAX_JOBS];
static int done_order[MAX_JOBS], n_done;

static void reset(void)
{
	memset(jobs, 0, sizeof(jobs));
	n_done = 0;
	gate_open = 0;
	running_now = running_most = started = 0;
	for (int i = 0; i < MAX_JOBS; i++) {
		jobs[i].id = i;
		jobs[i].loop = pthread_self();
	}
}

static void open_gate(void)
{
	pthread_mutex_lock(&lock);
	gate_open = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct job *j = arg;

	j->ran_on_loop = pthread_equal(pthread_self(), j->loop);
	pthread_mutex_lock(&lock);
	j->start_index = started++;
	if (++running_now > running_most)
		running_most = running_now;
	while (!gate_open)
		pthread_cond_wait(&cond, &lock);
	running_now--;
	pthread_mutex_unlock(&lock);
	if (j->rc < 0)
		snprintf(err, errlen, "job %d failed", j->id);
	return j->rc;
}

static void job_done(void *arg, int rc, const char *err)
{
	struct job *j = arg;

	j->done_calls++;
	j->done_rc = rc;
	snprintf(j->done_err, sizeof(j->done_err), "%s", err ? err : "");
	j->done_on_loop = pthread_equal(pthread_self(), j->loop);
	done_order[n_done++] = j->id;
}

static void job_free(void *arg)
{
	((struct job *)arg)->freed++;
}

static const struct work_ops ops = { .run = job_run, .done = job_done, .free = job_free };

static struct event_base *base;

/* A fresh loop, jobs and gate, and a queue on them. */
static struct work_queue *queue_new(unsigned max_running, enum work_policy policy)
{
	char err[256];
	struct work_queue *q;

	reset();
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	q = work_queue_new(base, "test", max_running, policy, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	return q;
}

/* Run the loop until `n` jobs are done (10 s at most). */
static void loop_until_done(int n)
{
	time_t limit = time(NULL) + 10;

	while (n_done < n && time(NULL) < limit)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert_int_eq(n_done, n);
}

/* Until `n` jobs have entered run(). */
static void wait_started(int n)
{
	time_t limit = time(NULL) + 10;

	for (;;) {
		pthread_mutex_lock(&lock);
		int s = started;
		pthread_mutex_unlock(&lock);
		if (s >= n || time(NULL) >= limit)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	ck_assert_int_ge(started, n);
}

START_TEST(run_is_off_the_loop_and_done_brings_its_result_back)
{
	struct work_queue *q = queue_new(2, WORK_REFUSE);

	jobs[1].rc = -ENOENT;
	ck_assert_int_eq(work_submit(q, &ops, &jobs[0]), 0);
	ck_assert_int_eq(work_submit(q, &ops, &jobs[1]), 0);
	open_gate();
	loop_until_done(2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(jobs[i].ran_on_loop, 0);
		ck_assert_int_eq(jobs[i].done_on_loop, 1);
		ck_assert_int_eq(jobs[i].done_calls, 1);
		ck_assert_int_eq(jobs[i].freed, 1);
	}
	ck_assert_int_eq(jobs[0].done_rc, 0);
	ck_assert_int_eq(jobs[1].done_rc, -ENOENT);
	ck_assert_str_eq(jobs[1].done_err, "job 1 failed");
	ck_assert_uint_eq(work_running(q), 0);
	work_queue_free(q);
	event_base_free(base);
}
END_TEST

START_TEST(refuse_says_busy_past_its_limit_and_leaves_the_job_to_the_caller)
{
	struct work_queue *q = queue_new(1, WORK_REFUSE);

	ck_assert_int_eq(work_submit(q, &ops, &jobs[0]), 0);
	ck_assert_int_eq(work_full(q), 1);
	ck_assert_int_eq(work_submit(q, &ops, &jobs[1]), -EBUSY);
	ck_assert_uint_eq(work_running(q), 1);
	ck_assert_uint_eq(work_waiting(q), 0);
	open_gate();
	loop_until_done(1);
	ck_assert_int_eq(jobs[1].done_calls, 0);
	ck_assert_int_eq(jobs[1].freed, 0);
	ck_assert_int_eq(work_full(q), 0);
	/* Room again: the next one is taken. */
	ck_assert_int_eq(work_submit(q, &ops, &jobs[2]), 0);
	loop_until_done(2);
	work_queue_free(q);
	event_base_free(base);
}
END_TEST

START_TEST(fifo_waits_its_turn_and_never_runs_past_its_limit)
{
	struct work_queue *q = queue_new(2, WORK_FIFO);

	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(work_submit(q, &ops, &jobs[i]), 0);
	wait_started(2);
	ck_assert_uint_eq(work_running(q), 2);
	ck_assert_uint_eq(work_waiting(q), 3);
	ck_assert_int_eq(started, 2);  /* the gate holds them: no third began */
	open_gate();
	loop_until_done(5);
	ck_assert_int_le(running_most, 2);
	/* The waiting ones began after the first two. (Two started together
	 * may enter run() in either order: the threads race.) */
	ck_assert_int_lt(jobs[0].start_index, 2);
	ck_assert_int_lt(jobs[1].start_index, 2);
	for (int i = 2; i < 5; i++)
		ck_assert_int_ge(jobs[i].start_index, 2);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(jobs[i].freed, 1);
	work_queue_free(q);
	event_base_free(base);
}
END_TEST

START_TEST(fifo_of_one_runs_jobs_in_the_order_they_were_submitted)
{
	struct work_queue *q = queue_new(1, WORK_FIFO);

	open_gate();
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(work_submit(q, &ops, &jobs[i]), 0);
	loop_until_done(6);
	ck_assert_int_eq(running_most, 1);
	for (int i = 0; i < 6; i++) {
		ck_assert_int_eq(jobs[i].start_index, i);
		ck_assert_int_eq(done_order[i], i);
	}
	work_queue_free(q);
	event_base_free(base);
}
END_TEST

START_TEST(shutdown_finishes_running_jobs_and_cancels_waiting_ones)
{
	struct work_queue *q = queue_new(1, WORK_FIFO);

	ck_assert_int_eq(work_submit(q, &ops, &jobs[0]), 0);
	ck_assert_int_eq(work_submit(q, &ops, &jobs[1]), 0);
	wait_started(1);
	open_gate();
	work_queue_free(q);  /* waits for job 0; job 1 never starts */
	ck_assert_int_eq(jobs[0].done_calls, 1);
	ck_assert_int_eq(jobs[0].done_rc, 0);
	ck_assert_int_eq(jobs[1].done_calls, 1);
	ck_assert_int_eq(jobs[1].done_rc, -ECANCELED);
	ck_assert_str_eq(jobs[1].done_err, "loomd is shutting down");
	ck_assert_int_eq(started, 1);
	ck_assert_int_eq(jobs[0].freed + jobs[1].freed, 2);
	event_base_free(base);
}
END_TEST

/* A done() that submits again, as a sweep's rerun would. */
static struct work_queue *resubmit_q;
static int resubmit_rc = 1;

static void resubmit_done(void *arg, int rc, const char *err)
{
	job_done(arg, rc, err);
	resubmit_rc = work_submit(resubmit_q, &ops, &jobs[7]);
}

static const struct work_ops resubmit_ops = { .run = job_run, .done = resubmit_done };

START_TEST(a_job_submitted_during_shutdown_is_refused)
{
	resubmit_q = queue_new(2, WORK_REFUSE);
	ck_assert_int_eq(work_submit(resubmit_q, &resubmit_ops, &jobs[0]), 0);
	wait_started(1);
	open_gate();
	work_queue_free(resubmit_q);
	ck_assert_int_eq(jobs[0].done_calls, 1);
	ck_assert_int_eq(resubmit_rc, -ESHUTDOWN);
	ck_assert_int_eq(jobs[7].done_calls, 0);
	ck_assert_int_eq(started, 1);
	event_base_free(base);
}
END_TEST

/* Job 0's done() submits job 3 while 1 and 2 wait: 3 must not jump them. */
static struct work_queue *fifo_q;

static void submit_more_done(void *arg, int rc, const char *err)
{
	job_done(arg, rc, err);
	if (((struct job *)arg)->id == 0)
		ck_assert_int_eq(work_submit(fifo_q, &ops, &jobs[3]), 0);
}

static const struct work_ops submit_more_ops = { .run = job_run, .done = submit_more_done };

START_TEST(a_job_submitted_from_done_waits_behind_the_waiting_ones)
{
	fifo_q = queue_new(1, WORK_FIFO);
	open_gate();
	ck_assert_int_eq(work_submit(fifo_q, &submit_more_ops, &jobs[0]), 0);
	ck_assert_int_eq(work_submit(fifo_q, &ops, &jobs[1]), 0);
	ck_assert_int_eq(work_submit(fifo_q, &ops, &jobs[2]), 0);
	loop_until_done(4);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(jobs[i].start_index, i);
	work_queue_free(fifo_q);
	event_base_free(base);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("work");
	TCase *tc = tcase_create("work");

	tcase_add_test(tc, run_is_off_the_loop_and_done_brings_its_result_back);
	tcase_add_test(tc, refuse_says_busy_past_its_limit_and_leaves_the_job_to_the_caller);
	tcase_add_test(tc, fifo_waits_its_turn_and_never_runs_past_its_limit);
	tcase_add_test(tc, fifo_of_one_runs_jobs_in_the_order_they_were_submitted);
	tcase_add_test(tc, a_job_submitted_from_done_waits_behind_the_waiting_ones);
	tcase_add_test(tc, shutdown_finishes_running_jobs_and_cancels_waiting_ones);
	tcase_add_test(tc, a_job_submitted_during_shutdown_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
