/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/bench_rounds.h: what the C bench drivers share: the clock of a
 * round (lib/util/clock.h's) and the median of their rounds (sorted in
 * place: the worst is then the last). Header only: each driver is one
 * program. */
#ifndef LOOM_BENCH_ROUNDS_H
#define LOOM_BENCH_ROUNDS_H

#include <stdlib.h>

#include "lib/util/clock.h"

static int bench_dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Sort the n > 0 rounds t and return their median (t[n - 1]: the worst). */
static inline double bench_median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), bench_dbl_cmp);
	return t[n / 2];
}

#endif
