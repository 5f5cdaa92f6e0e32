/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/opensm_sweep.h: how loomd asks the local OpenSM for a
 * heavy sweep after it changed a file OpenSM reads (the partitions file,
 * loom's block of the options file). OpenSM re-reads its options file at
 * the start of a heavy sweep it is asked for and its partitions file in
 * every heavy sweep (opensm/osm_state_mgr.c do_sweep, 3.3.23). Two ways,
 * the first that works:
 *  1. a request to libloomosm.so inside OpenSM over the report socket
 *     (osm_report.h, heavy_sweep): works whatever user loomd runs as;
 *  2. SIGHUP to OpenSM's pid, from loom.yaml's tenants.opensm_pid_file or,
 *     without one, the OpenSM whose plugin last reported: works only when
 *     loomd may signal OpenSM (root, or OpenSM's own user). Only a live
 *     process named opensm counts, so a stale pid that the system gave to
 *     another program is never signalled.
 * Found on the loop (opensm_sweep_find), asked from any thread. The same
 * ways ask OpenSM to route again after loomd rewrote the isolated links
 * file (issue 42): the plugin's `reroute` request (no discovery), else
 * SIGHUP (a heavy sweep also routes again). */
#ifndef LOOMD_OPENSM_SWEEP_H
#define LOOMD_OPENSM_SWEEP_H

#include <stddef.h>

#include "daemon/routing/osm_report.h"

struct store;

struct opensm_sweep {
	struct osm_report_peer peer;
	int has_peer;         /* 1: ask the plugin first */
	int pid;              /* OpenSM to signal else, 0: none */
	char why[512];        /* why there is no way at all ("" when one is) */
};

/* Loop thread: the ways to the local OpenSM now (rep may be NULL; pid_file
 * "" or NULL: the store's last report). */
void opensm_sweep_find(struct osm_report *rep, const char *pid_file, struct store *st,
		       struct opensm_sweep *s);
/* Any thread: ask for a heavy sweep (why: into OpenSM's log when the
 * plugin is asked). 0 with how ("asked libloomosm.so in OpenSM pid N",
 * "signalled OpenSM pid N") and *pid the OpenSM asked (0: unknown), or
 * -errno with how saying why not. */
int opensm_sweep_ask(const struct opensm_sweep *s, const char *why, int *pid, char *how,
		     size_t howlen);
/* Any thread: ask OpenSM to route again (every routing run reads the
 * isolated links file): the plugin's reroute request, else SIGHUP. As
 * opensm_sweep_ask. */
int opensm_sweep_reroute(const struct opensm_sweep *s, const char *why, int *pid, char *how,
			 size_t howlen);

#endif
