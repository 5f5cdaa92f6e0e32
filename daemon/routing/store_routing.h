/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/store_routing.h: what OpenSM's libloomosm.so reports, in loom's
 * database: its routing runs (table routing_runs, schema 3) and its events
 * (SUBNET UP, traps, LFT changes, SM state: the events table, kinds osm_*).
 * Kept apart from store.c, which records loomd's own sweeps; both use the
 * same connection (store_db). */
#ifndef LOOMD_STORE_ROUTING_H
#define LOOMD_STORE_ROUTING_H

#include <stddef.h>
#include <stdint.h>

struct store;

/* One routing run as the plugin reported it. Strings may be NULL where the
 * schema allows NULL (routed_by, reason, metrics). */
struct store_routing_run {
	double time;               /* the run started, unix seconds */
	double received;           /* loomd got the report */
	uint64_t sm_guid;
	int sm_pid;
	const char *engine, *routed_by, *note;
	int ok;                    /* result: 1 ok, 0 failed */
	const char *reason;
	double duration_ms;
	int vls;
	int64_t switches, ca_ports, entries_routed, entries_unreachable;
	const char *metrics;       /* JSON text of the metrics object */
};

/* Group the records of one batch of reports into one transaction (one
 * fsync instead of one per report). end commits when rc == 0, else rolls
 * back. 0 or -errno. */
int store_routing_begin(struct store *st);
int store_routing_end(struct store *st, int rc);

/* Record a run (and keep the newest STORE_ROUTING_RUNS_KEPT). Its subnet is
 * the one whose swept ports hold sm_guid, if any. 0 or -errno. */
int store_record_routing_run(struct store *st, const struct store_routing_run *run,
			     int64_t *id);

/* Record one event of OpenSM's (kind "osm_..."), attributed like a run. */
int store_record_osm_event(struct store *st, double time, uint64_t sm_guid,
			   const char *severity, const char *kind, const char *subject,
			   const char *old_value, const char *new_value);

/* The node holding `lid` in the subnet of sm_guid, as "desc" (its node
 * description) for event subjects: 0, or -ENOENT when loomd's sweeps have
 * not seen it (buf is then ""). */
int store_osm_lid_desc(struct store *st, uint64_t sm_guid, unsigned lid, char *buf,
		       size_t len);

/* The VL layers of the last successful routing run: 1 when none is known
 * (OpenSM's own engines do not report), -1 when the store cannot say. */
int store_routing_vls(struct store *st);

/* The pid of the OpenSM that last reported a routing run (libloomosm.so),
 * 0 when none has: 0 or -errno. */
int store_last_sm_pid(struct store *st, int *pid);

#endif
