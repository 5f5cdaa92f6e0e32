/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/loop_lag.h: the event loop's stalls, measured by how late it
 * runs a timer (loop_lag.c); /metrics' loom_loop_lag_seconds. */
#ifndef LOOMD_LOOP_LAG_H
#define LOOMD_LOOP_LAG_H

#define LOOP_LAG_INTERVAL_MS 25

struct event_base;
struct loop_lag;
struct mt_buf;

/* Starts measuring on base's loop; NULL: out of memory. */
struct loop_lag *loop_lag_new(struct event_base *base);
void loop_lag_free(struct loop_lag *l);
/* The most the timer ran late since it started, in seconds. Loop thread. */
double loop_lag_max(const struct loop_lag *l);
/* loom_loop_lag_seconds (histogram) and loom_loop_lag_max_seconds into
 * out (nothing for NULL). Loop thread. */
void loop_lag_render(const struct loop_lag *l, struct mt_buf *out);

#endif
