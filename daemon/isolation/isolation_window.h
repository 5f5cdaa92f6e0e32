/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_window.h: what each port's counters did over
 * the last window (issue 42's rules count errors, symbol errors and
 * LinkDownedCounter moves in isolation.window_s, not in one read). Pure.
 *
 * Only reads where something moved are kept: a healthy port costs
 * nothing. Per port at most ISO_WIN_SLOTS moves; more within the window
 * merge the two oldest (their sums stay exact, only their times blur to
 * the later one). At most `max_ports` ports: a port beyond them is counted
 * (refused) and not tracked, so no fabric makes it grow without bound. */
#ifndef LOOMD_ISOLATION_WINDOW_H
#define LOOMD_ISOLATION_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#define ISO_WIN_SLOTS 16

struct iso_moves {
	uint64_t errors;     /* error counters' deltas summed (LinkDowned apart) */
	uint64_t symbol;     /* SymbolErrorCounter's delta */
	uint64_t downed;     /* LinkDownedCounter's delta */
};

struct iso_windows;

struct iso_windows *iso_windows_new(size_t max_ports);
void iso_windows_free(struct iso_windows *w);
/* A read at time t of the port (subnet index, node GUID, port) moved m.
 * 0, or -ENOSPC (max_ports tracked: counted in refused). */
int iso_windows_add(struct iso_windows *w, unsigned subnet, uint64_t guid, unsigned port,
		    double t, const struct iso_moves *m);
/* The sums of the moves after `since` (0 and zeros for a port not tracked). */
void iso_windows_sum(const struct iso_windows *w, unsigned subnet, uint64_t guid,
		     unsigned port, double since, struct iso_moves *out);
/* Forget moves at or before `before`; ports left with none stop being
 * tracked. */
void iso_windows_expire(struct iso_windows *w, double before);
/* Every tracked port with its sums after `since`, in no order; stops when
 * fn returns non-zero (returned). */
typedef int (*iso_windows_fn)(void *arg, unsigned subnet, uint64_t guid, unsigned port,
			      const struct iso_moves *sum);
int iso_windows_foreach(const struct iso_windows *w, double since, iso_windows_fn fn, void *arg);
size_t iso_windows_ports(const struct iso_windows *w);
size_t iso_windows_refused(const struct iso_windows *w);

#endif
