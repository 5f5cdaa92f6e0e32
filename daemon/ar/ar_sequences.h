/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_sequences.h: lib/ar/ar_program.h's sequence run on many
 * switches at once over directed-route SMPs, through daemon/ib/mad_window.c
 * (what `loomd --program-ar`, daemon/ar/ar_write.c, sends with).
 *
 * Each switch is one request of the window: its sequence (GetCap, the
 * self-check Gets, the Sets in order, the read-backs, the enabling Set, or
 * the Set that turns AR off) goes one SMP at a time, the next built once
 * the last is answered or has spent its tries, with the window's timeout
 * and retries per SMP. Up to max_flight switches are under way at once, in
 * directed-route order as they enter; a switch that does not answer holds
 * its own slot for (retries + 1) x timeout per SMP and no other switch.
 * Each switch ends in one of ar_program.h's outcomes with its reason. */
#ifndef LOOMD_AR_SEQUENCES_H
#define LOOMD_AR_SEQUENCES_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

#include "daemon/ib/mad_window.h"
#include "lib/ar/ar_program.h"
#include "lib/ar/route_ar.h"

struct ar_sequences_switch {
	ib_dr_path_t path;                  /* the directed route to it */
	const struct rt_ar_switch *sw;      /* its static LFT and AR groups */
	struct ar_program_result res;       /* filled by the run; smps_sent counts
					     * every try of every SMP */
	unsigned local_timeouts;            /* tries the local port reported timed out */
};

/* Program switches s[0..n-1] (groups for LIDs 0..max_lid) with o over the
 * window of wp. 0 when every switch has its result (whatever it is),
 * -errno with err when the local port failed (the results are then
 * partial). *st (may be NULL): every SMP sent, the most switches under way
 * at once. */
int ar_sequences_run(const struct mad_window_params *wp, struct ar_sequences_switch *s, size_t n,
		     uint32_t max_lid, const struct ar_program_opts *o,
		     struct mad_window_stats *st, char *err, size_t errlen);

#endif
