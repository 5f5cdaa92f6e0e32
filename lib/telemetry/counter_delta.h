/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/counter_delta.h: what a counter did between two samples,
 * without ever inventing a number (issue 19).
 *
 * A hardware counter of a given width is read twice. Between the reads:
 *  - it moved forward and is below its all-ones value: the difference is
 *    exact (CDELTA_OK), and a rate can be given;
 *  - it went backwards: someone cleared it (port re-initialised, switch
 *    rebooted, another manager's PortCountersSet). The interval is marked
 *    CDELTA_RESET; the counter's new value is what happened since the
 *    clear, a lower bound of the interval's count, and no rate is given;
 *  - it stands at all ones: InfiniBand's counters stop there (they do not
 *    wrap), so the count is at least the difference and maybe more
 *    (CDELTA_SATURATED): a lower bound again, no rate. A manager that may
 *    clear counters does so before this, when cdelta_near_full() says so
 *    (OpenSM's PerfMgr clears at three quarters of the range);
 *  - there is no earlier sample of the same width (CDELTA_FIRST), or the
 *    counter was not read (CDELTA_NOT_READ): nothing to say;
 *  - the counter was not asked this time and keeps an earlier read's value
 *    (CDELTA_CARRIED): nothing happened that this sample can tell.
 * Pure functions. */
#ifndef LOOM_COUNTER_DELTA_H
#define LOOM_COUNTER_DELTA_H

#include <stdint.h>

enum cdelta_state {
	CDELTA_OK,         /* exact: delta */
	CDELTA_FIRST,      /* no earlier sample to compare with */
	CDELTA_RESET,      /* cleared in between: delta is a lower bound */
	CDELTA_SATURATED,  /* stopped at all ones: delta is a lower bound */
	CDELTA_NOT_READ,   /* the counter has no value in this sample */
	CDELTA_CARRIED,    /* not read this time: the value is an earlier read's, kept
			    * (the detail counters, read every telemetry.details_every
			    * reads); delta 0, no rate */
};

struct cdelta {
	enum cdelta_state state;
	uint64_t delta;    /* exact for CDELTA_OK, at least this for RESET and SATURATED */
};

/* The largest value of a counter `bits` wide (1..64; 0 for 0). */
uint64_t cdelta_max(unsigned bits);

/* From prev (prev_bits wide; prev_bits 0: no earlier sample) to cur
 * (cur_bits wide; 0: not read). A change of width (the 64-bit extended
 * counters read for the first time) counts as no earlier sample. */
struct cdelta cdelta_of(uint64_t prev, unsigned prev_bits, uint64_t cur, unsigned cur_bits);

/* The per-second rate of d over dt seconds: 0 with *rate (finite, >= 0)
 * for CDELTA_OK and dt > 0; -EAGAIN for any other state (no rate for that
 * interval); -EINVAL for a dt that is not a positive finite number. */
int cdelta_rate(const struct cdelta *d, double dt, double *rate);

/* True when v has reached three quarters of a `bits`-wide counter's
 * range (for 4-bit counters: 10 of 15, PerfMgr's rule): a manager that may
 * clear counters should, before the counter stops. */
int cdelta_near_full(uint64_t v, unsigned bits);

/* "ok", "first", "reset", "saturated", "not read", "carried". */
const char *cdelta_state_name(enum cdelta_state s);

#endif
