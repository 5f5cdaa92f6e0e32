/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/store_ar.h: a subnet's adaptive-routing probe in the database
 * (schema 8: ar_probes, ar_switches) and the events of capability changes.
 * Read back with lib/ar/ar_status.h's ar_db_status(). */
#ifndef LOOMD_STORE_AR_H
#define LOOMD_STORE_AR_H

#include <stddef.h>

#include <jansson.h>

struct store;

/* Replace the stored probe of `subnet` (which must have been swept) with
 * `probe` and `switches` (daemon/ar/ar_read.h's shapes), in one transaction.
 * A switch seen for the first time, or whose "supported" changed, is an
 * event: kind ar_unsupported ("left on static routing" and why) or
 * ar_supported, subject "0x<guid> (<desc>)". Switches the probe did not
 * find are dropped. *n_events (may be NULL) gets the events written.
 * 0 or -errno. */
int store_record_ar(struct store *st, const char *subnet, const json_t *probe,
		    const json_t *switches, size_t *n_events);

/* A run of `ar program` (daemon/ar/ar_write.h's switches, not a dry run), in
 * one transaction: one event per switch, kind ar_programmed (notice),
 * ar_unsupported (info), ar_program_refused (warning) or ar_program_failed
 * (error), subject "0x<guid> (<desc>)", the result's reason as the text;
 * and the stored AR status of the switches Sets were sent to: programmed
 * ones enabled (when they have groups) with their groups in use, failed
 * ones disabled (enabled unknown when AR could not be turned off). Switches
 * that were not touched (unsupported, refused) keep what the probe found.
 * *n_events (may be NULL) gets the events written. 0, -ENOENT (subnet
 * never swept) or -errno.
 * quiet (a run loomd started after a reroute, which may come often on a
 * large fabric): per-switch events only for refused and failed switches,
 * and one ar_program_run event (info, subject the subnet) with the counts. */
int store_record_ar_program(struct store *st, const char *subnet, int quiet, const json_t *done,
			    const json_t *switches, size_t *n_events);

#endif
