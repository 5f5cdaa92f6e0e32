/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/loop_lag.c: how late the event loop runs a timer, the
 * measure of its stalls (issue 39: "no loop stall over 50 ms", what a
 * prune, a render or a handler must keep to). A timer is armed every
 * LOOP_LAG_INTERVAL_MS; each time it fires, how much later than due is
 * counted in a Prometheus histogram and kept as the worst seen. A stall of
 * d seconds is seen as a lateness of at least d - interval (it may begin
 * just after a firing), never more than d. Everything runs on the loop. */
#include "autoconf.h"
#include "daemon/core/loop_lag.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>

#include "lib/telemetry/metrics_text.h"

static const double bounds[] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5 };
#define N_BOUNDS (sizeof(bounds) / sizeof(bounds[0]))

struct loop_lag {
	struct event *timer;
	double due;                       /* monotonic seconds the timer is due */
	unsigned long long count;
	unsigned long long le[N_BOUNDS];  /* observations <= bounds[i] */
	double sum, max;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void arm(struct loop_lag *l)
{
	struct timeval tv = { 0, LOOP_LAG_INTERVAL_MS * 1000 };

	l->due = mono() + LOOP_LAG_INTERVAL_MS / 1000.0;
	event_add(l->timer, &tv);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct loop_lag *l = arg;
	double late = mono() - l->due;

	(void)fd;
	(void)what;
	if (late < 0)
		late = 0;
	l->count++;
	l->sum += late;
	if (late > l->max)
		l->max = late;
	for (size_t i = 0; i < N_BOUNDS; i++)
		l->le[i] += late <= bounds[i];
	arm(l);
}

struct loop_lag *loop_lag_new(struct event_base *base)
{
	struct loop_lag *l = calloc(1, sizeof(*l));

	if (!l || !(l->timer = evtimer_new(base, on_timer, l))) {
		free(l);
		return NULL;
	}
	arm(l);
	return l;
}

void loop_lag_free(struct loop_lag *l)
{
	if (!l)
		return;
	event_free(l->timer);
	free(l);
}

double loop_lag_max(const struct loop_lag *l)
{
	return l ? l->max : 0;
}

void loop_lag_render(const struct loop_lag *l, struct mt_buf *out)
{
	char line[256];

	if (!l)
		return;
	mt_puts(out, "# HELP loom_loop_lag_seconds How late loomd's event loop ran a timer due "
		"every 25 ms: its stalls (a stall of d seconds shows as at least d - 0.025).\n"
		"# TYPE loom_loop_lag_seconds histogram\n");
	for (size_t i = 0; i < N_BOUNDS; i++) {
		snprintf(line, sizeof(line), "loom_loop_lag_seconds_bucket{le=\"%g\"} %llu\n",
			 bounds[i], l->le[i]);
		mt_puts(out, line);
	}
	snprintf(line, sizeof(line), "loom_loop_lag_seconds_bucket{le=\"+Inf\"} %llu\n"
		 "loom_loop_lag_seconds_sum %.6f\nloom_loop_lag_seconds_count %llu\n",
		 l->count, l->sum, l->count);
	mt_puts(out, line);
	snprintf(line, sizeof(line), "# HELP loom_loop_lag_max_seconds The most the event loop "
		 "ran that timer late since loomd started.\n# TYPE loom_loop_lag_max_seconds gauge\n"
		 "loom_loop_lag_max_seconds %.6f\n", l->max);
	mt_puts(out, line);
}
