/* daemon/telemetry/store_counters.h: a counters read of a subnet into the
 * database (schema 010): the read, and per port the new sample with what
 * each counter did since the stored one (lib/telemetry/counter_delta.h: the
 * delta, its state, a rate for exact deltas only). A port that did not
 * answer keeps its last sample, marked stale with the reason: never zeros.
 * Ports no longer cabled lose their rows. One transaction, on the caller's
 * connection (a worker's own). */
#ifndef LOOMD_STORE_COUNTERS_H
#define LOOMD_STORE_COUNTERS_H

#include <jansson.h>

struct store;

/* done and ports as counters_read_run gives them. 0, or -errno (-ENOENT:
 * no such subnet). *n_stale (may be NULL): ports that did not answer. */
int store_record_counters(struct store *st, const char *subnet, const json_t *done,
			  const json_t *ports, size_t *n_stale);

#endif
