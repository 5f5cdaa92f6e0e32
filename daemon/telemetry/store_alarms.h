/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/store_alarms.h: the port alarms of a counters read into
 * the database (schema 011): per port, each alarm's hysteresis step
 * (lib/telemetry/port_alarms.h) against its stored state; a raise or a
 * clear is an event (kind link_errors ... and link_errors_cleared ...),
 * recorded once; a raise names the jobs on the port's link when the job
 * index is given (store_alarms_set_jobs). Used by store_counters.c inside its transaction. */
#ifndef LOOMD_STORE_ALARMS_H
#define LOOMD_STORE_ALARMS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/telemetry/port_alarms.h"

struct store;
struct store_alarms;

/* The statements of one read, on st's connection: of an InfiniBand
 * subnet's ports (port_alarms), or of the Ethernet switches' ports
 * (switch_port_alarms; their events have no subnet). NULL: logged. */
struct store_alarms *store_alarms_new(struct store *st, int64_t subnet_id,
				      const struct port_thresholds *t, double now);
struct store_alarms *store_alarms_new_eth(struct store *st, const struct port_thresholds *t,
					  double now);
/* The events of alarms raised on an InfiniBand subnet's ports name the
 * jobs whose paths cross the port's link, as `jobs` knows them (no query:
 * lib/db/job_db.h's job_index_names_at; NULL: none named). */
struct job_index;
void store_alarms_set_jobs(struct store_alarms *a, struct job_index *jobs, const char *subnet);
/* One port's judgement. 0 or -errno. */
int store_alarms_port(struct store_alarms *a, const char *guid, int port, const char *node,
		      const struct port_judgement *j);
int store_alarms_switch_port(struct store_alarms *a, const char *sw, const char *port,
			     const struct port_judgement *j);
/* Forget the alarms of ports that have no counters row any more (no longer
 * cabled; for the switches: needs schema 12's switch_port_counters). 0 or -errno; *raised, *cleared (may be
 * NULL): events recorded by this read. */
int store_alarms_finish(struct store_alarms *a, size_t *raised, size_t *cleared);
void store_alarms_free(struct store_alarms *a);

#endif
