/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/clock.h: the two clocks loom reads, as seconds in a double. Wall
 * time (CLOCK_REALTIME) for what is stored and shown; monotonic time
 * (CLOCK_MONOTONIC) for deadlines and durations, which must not jump when
 * the wall clock is set. */
#ifndef LOOM_CLOCK_H
#define LOOM_CLOCK_H

double clock_wall(void);
double clock_mono(void);

#endif
