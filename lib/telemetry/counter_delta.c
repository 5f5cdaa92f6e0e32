/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/counter_delta.c: see counter_delta.h. */
#include "autoconf.h"
#include "lib/telemetry/counter_delta.h"

#include <errno.h>
#include <math.h>

uint64_t cdelta_max(unsigned bits)
{
	if (bits == 0)
		return 0;
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

struct cdelta cdelta_of(uint64_t prev, unsigned prev_bits, uint64_t cur, unsigned cur_bits)
{
	uint64_t max = cdelta_max(cur_bits);

	if (cur_bits == 0 || cur > max)
		return (struct cdelta){ CDELTA_NOT_READ, 0 };
	if (prev_bits != cur_bits || prev > max)
		return (struct cdelta){ CDELTA_FIRST, 0 };
	if (cur < prev)
		return (struct cdelta){ CDELTA_RESET, cur };
	/* A 64-bit counter does not reach all ones in a lifetime: all ones
	 * there is as plausible as any value, and it stays exact. */
	if (cur == max && cur_bits < 64)
		return (struct cdelta){ CDELTA_SATURATED, cur - prev };
	return (struct cdelta){ CDELTA_OK, cur - prev };
}

int cdelta_rate(const struct cdelta *d, double dt, double *rate)
{
	if (!(dt > 0.0) || !isfinite(dt))
		return -EINVAL;
	if (d->state != CDELTA_OK)
		return -EAGAIN;
	*rate = (double)d->delta / dt;
	return isfinite(*rate) ? 0 : -EINVAL;
}

int cdelta_near_full(uint64_t v, unsigned bits)
{
	uint64_t max = cdelta_max(bits);

	if (bits == 0)
		return 0;
	if (bits == 4)
		return v >= 10;
	return v >= max - max / 4;
}

const char *cdelta_state_name(enum cdelta_state s)
{
	switch (s) {
	case CDELTA_OK:
		return "ok";
	case CDELTA_FIRST:
		return "first";
	case CDELTA_RESET:
		return "reset";
	case CDELTA_SATURATED:
		return "saturated";
	case CDELTA_NOT_READ:
		return "not read";
	case CDELTA_CARRIED:
		return "carried";
	}
	return "?";
}
