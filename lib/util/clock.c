/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/clock.c: see clock.h. */
#include "autoconf.h"
#include "lib/util/clock.h"

#include <time.h>

static double seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double clock_wall(void)
{
	return seconds(CLOCK_REALTIME);
}

double clock_mono(void)
{
	return seconds(CLOCK_MONOTONIC);
}
