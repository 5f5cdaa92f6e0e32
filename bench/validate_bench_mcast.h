/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/validate_bench_mcast.h: validate_bench's multicast entry (issue 43,
 * validate_bench_mcast.c says what it synthesises). */
#ifndef LOOM_BENCH_VALIDATE_MCAST_H
#define LOOM_BENCH_VALIDATE_MCAST_H

#include <stddef.h>

#include "lib/fabric/fabric.h"

#define BENCH_MCAST_MAX_ROUNDS 99

/* Time mcast_check rounds times over f (a fat tree): 0 with the median and
 * worst seconds, the findings of the last round (a clean tree: 0) and the
 * members of all groups; -1 when the data cannot be made. */
int bench_mcast(const struct fab *f, int rounds, double *median, double *worst,
		size_t *findings, size_t *members);

#endif
