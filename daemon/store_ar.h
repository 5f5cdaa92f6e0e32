/* daemon/store_ar.h: a subnet's adaptive-routing probe in the database
 * (schema 8: ar_probes, ar_switches) and the events of capability changes.
 * Read back with lib/ar_status.h's ar_db_status(). */
#ifndef LOOMD_STORE_AR_H
#define LOOMD_STORE_AR_H

#include <stddef.h>

#include <jansson.h>

struct store;

/* Replace the stored probe of `subnet` (which must have been swept) with
 * `probe` and `switches` (daemon/ar_read.h's shapes), in one transaction.
 * A switch seen for the first time, or whose "supported" changed, is an
 * event: kind ar_unsupported ("left on static routing" and why) or
 * ar_supported, subject "0x<guid> (<desc>)". Switches the probe did not
 * find are dropped. *n_events (may be NULL) gets the events written.
 * 0 or -errno. */
int store_record_ar(struct store *st, const char *subnet, const json_t *probe,
		    const json_t *switches, size_t *n_events);

#endif
