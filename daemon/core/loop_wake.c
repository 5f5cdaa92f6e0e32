/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/loop_wake.c: a worker thread wakes the event loop (see
 * loop_wake.h) by writing one byte to a non-blocking pipe whose read end
 * the loop watches; the loop drains whatever bytes are there and runs the
 * module's function once. */
#include "autoconf.h"
#include "daemon/core/loop_wake.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

struct loop_wake {
	int fd[2];          /* the pipe: the loop reads [0], threads write [1] */
	struct event *ev;
	loop_wake_fn fn;
	void *arg;
};

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct loop_wake *w = arg;
	char buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	w->fn(w->arg);
}

struct loop_wake *loop_wake_new(struct event_base *base, loop_wake_fn fn, void *arg,
				const char *what, char *err, size_t errlen)
{
	struct loop_wake *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "cannot set up %s", what);
		return NULL;
	}
	w->fn = fn;
	w->arg = arg;
	w->fd[0] = w->fd[1] = -1;
	if (pipe2(w->fd, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	w->ev = event_new(base, w->fd[0], EV_READ | EV_PERSIST, wake_cb, w);
	if (!w->ev || event_add(w->ev, NULL) < 0) {
		snprintf(err, errlen, "cannot set up %s", what);
		goto fail;
	}
	return w;
fail:
	loop_wake_free(w);
	return NULL;
}

int loop_wake_signal(struct loop_wake *w)
{
	char byte = 1;
	ssize_t n = write(w->fd[1], &byte, 1);

	/* A full pipe holds unread wake-ups already: the loop will run fn. */
	if (n == 1 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
		return 0;
	return n < 0 ? -errno : -EIO;
}

void loop_wake_free(struct loop_wake *w)
{
	if (!w)
		return;
	if (w->ev)
		event_free(w->ev);
	if (w->fd[0] >= 0)
		close(w->fd[0]);
	if (w->fd[1] >= 0)
		close(w->fd[1]);
	free(w);
}
