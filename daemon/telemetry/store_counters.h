/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_counters.h: a counters read of a subnet into the
 * database (schemas 010 and 013): the read, and per port the new sample,
 * packed (lib/telemetry/counter_row.h), with what
 * each counter did since the stored one (lib/telemetry/counter_delta.h: the
 * delta, its state, a rate for exact deltas only). A port read "same"
 * (counters_wire.h) takes the counters it was not read for from its stored
 * sample: they did not move. A port that did not
 * answer keeps its last sample, marked stale with the reason: never zeros.
 * Ports no longer cabled lose their rows. Then each port's alarms against
 * the thresholds (schema 011, store_alarms.h). One transaction, on the
 * caller's connection (a worker's own). */
#ifndef LOOMD_STORE_COUNTERS_H
#define LOOMD_STORE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/telemetry/counters_wire.h"

#include "lib/telemetry/port_alarms.h"

struct store;

/* Ports whose LinkDownedCounter moved that a read names (more are counted). */
#define COUNTERS_FLAPPED_MAX 64

struct counters_recorded {
	size_t stale;     /* ports that did not answer */
	size_t raised;    /* alarms raised by this read */
	size_t cleared;   /* alarms cleared by it */
	size_t same;      /* ports read "same": their PortCounters from the stored sample */
	size_t unsure;    /* ... of them with no stored sample: those counters unknown */
	size_t history_refused;  /* answered ports the in-memory history had no room for */
	/* Ports whose LinkDownedCounter moved since the stored sample: their
	 * link went down and trained again (maybe narrower or slower) between
	 * two reads. The first COUNTERS_FLAPPED_MAX named; flapped counts all. */
	size_t flapped;
	struct counters_port_ref {
		uint64_t guid;    /* the port's node */
		unsigned port;
	} flapped_port[COUNTERS_FLAPPED_MAX];
	/* Every port whose errors or LinkDownedCounter moved (malloc'd: free
	 * with counters_recorded_clear), and the ones beyond the bound. */
	struct counters_moved *moved;
	size_t n_moved, n_moved_over;
	double read_at;   /* the read's finish (wall clock): the moves' time */
};

/* A port whose error counters or LinkDownedCounter moved in a read (issue
 * 42's isolation counts them in its window). */
struct counters_moved {
	uint64_t guid;
	unsigned port;
	uint64_t errors;      /* the error counters' deltas, LinkDowned apart (lower bounds count) */
	uint64_t symbol;      /* SymbolErrorCounter's */
	uint64_t downed;      /* LinkDownedCounter's */
};
/* At most this many named per read (more are counted in n_moved_over). */
#define COUNTERS_MOVED_MAX 65536

/* Free what a recorded read holds (its moved ports). */
void counters_recorded_clear(struct counters_recorded *r);

/* The read a (counters_read_run's), judged against t. 0, or -errno
 * (-ENOENT: no such subnet). *out may be NULL; its moved ports are not
 * kept (store_record_counters_jobs' callers free them). */
int store_record_counters(struct store *st, const char *subnet,
			  const struct port_thresholds *t, const struct counters_answer *a,
			  struct counters_recorded *out);
/* The same, the events of raised alarms naming the jobs whose paths cross
 * the port's link as `jobs` knows them (lib/db/job_db.h; NULL: none), and
 * each answered port's read added to hist (lib/telemetry/port_history.h;
 * NULL: none). */
struct job_index;
struct port_history;
int store_record_counters_jobs(struct store *st, const char *subnet,
			       const struct port_thresholds *t, const struct counters_answer *a,
			       struct counters_recorded *out, struct job_index *jobs,
			       struct port_history *hist);

#endif
