/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/loop_wake.h: how a worker thread tells loomd's event loop it has
 * something for it (daemon/core/loop_wake.c).
 *
 * The loop creates one per module; any thread may signal it, as often as it
 * likes, and the loop then runs the module's function. Signals are not
 * counted: several may end in one call, so the function must look for every
 * piece of finished work (which thread ended is not said). The function
 * runs on the loop's thread, from the loop, never from loop_wake_signal(). */
#ifndef LOOM_LOOP_WAKE_H
#define LOOM_LOOP_WAKE_H

#include <stddef.h>

struct event_base;
struct loop_wake;

typedef void (*loop_wake_fn)(void *arg);

/* A wake-up on `base` that runs fn(arg). `what` names what it serves in the
 * error ("cannot set up <what>"). NULL with the reason in err. Loop thread. */
struct loop_wake *loop_wake_new(struct event_base *base, loop_wake_fn fn, void *arg,
				const char *what, char *err, size_t errlen);

/* Wake the loop: fn runs there soon after. Any thread; never blocks.
 * 0 (also when the pipe is full: the loop is due to run fn already), or
 * -errno. */
int loop_wake_signal(struct loop_wake *w);

/* Loop thread, once no thread can signal any more (NULL is fine). A signal
 * not yet handled is dropped: fn does not run. */
void loop_wake_free(struct loop_wake *w);

#endif
