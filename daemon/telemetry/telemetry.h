/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/telemetry.h: the port counters module (issue 19, first
 * step). Every telemetry.interval_s it reads the counters of every cabled
 * port of every swept InfiniBand subnet (a `loomd --read-counters` child per
 * subnet, daemon/telemetry/counters_read.h) and records them with what each
 * counter did since the last read (daemon/telemetry/store_counters.h). On
 * the control socket: "counters" (CTL_READ): the stored counters, read
 * anew first when asked ("now": true; refused as busy while a read runs).
 * One read at a time, through daemon/core/work.h: a slow subnet delays the
 * next interval, never piles reads up. On the same interval it starts a
 * read of the Ethernet switches' counters (daemon/telemetry/switch_counters.h,
 * its own work queue and control command "switch_counters"). A port whose
 * LinkDownedCounter moved is told to telemetry_on_flap's listener
 * (discovery walks its switch again, daemon/ib/sweep_follow.c). "health"
 * and "job" (which jobs a bad link hurts) run on job_impact.h's queue,
 * which this module owns. */
#ifndef LOOMD_TELEMETRY_H
#define LOOMD_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct ctl;
struct store;
struct telemetry_mod;

/* What loomd.c hands the module of loom.yaml: its own section and what it
 * reads of others' (each kept as a copy of its own). */
struct telemetry_inputs {
	const struct telemetry_conf *conf;     /* telemetry: */
	const struct swept_mad *mad;           /* discovery's MAD limits */
	const struct hostmap_rule *hosts;      /* the tenants' host rule (job impact) */
	const struct switches_conf *switches;  /* the Ethernet switches' counters */
	const char *plugin_dir;                /* plugins.dir */
	const char *prometheus_url;            /* http.prometheus_url (port-history) */
};

/* store is the loop's connection (for the swept subnets). NULL with err. */
struct telemetry_mod *telemetry_new(struct event_base *base, const struct telemetry_inputs *in,
				    struct store *store, char *err, size_t errlen);
void telemetry_free(struct telemetry_mod *m);
/* A new interval takes effect from now. */
void telemetry_reconfigure(struct telemetry_mod *m, const struct telemetry_inputs *in);
int telemetry_register(struct telemetry_mod *m, struct ctl *ctl);
/* The job index its job_impact keeps (lib/db/job_db.h), for the sweeps'
 * link events; freed with m. */
struct job_index;
struct job_index *telemetry_job_index(struct telemetry_mod *m);

/* Told, after each read, of every port whose LinkDownedCounter moved since
 * the last read (guid 0: too many to name, somewhere in the subnet): the
 * link went down and trained again between two reads, maybe narrower or
 * slower. Called on the loop. */
typedef void (*telemetry_flap_fn)(void *arg, const char *subnet, uint64_t guid,
				  unsigned port);
void telemetry_on_flap(struct telemetry_mod *m, telemetry_flap_fn fn, void *arg);
/* Told, after each recorded read of a subnet, of every port whose error
 * counters or LinkDownedCounter moved (store_counters.h's struct
 * counters_moved, n of them; `over` more were not named), at wall-clock
 * time `at`. Called on the loop; moved lives only for the call. */
struct counters_moved;
typedef void (*telemetry_read_fn)(void *arg, const char *subnet, double at,
				  const struct counters_moved *moved, size_t n, size_t over);
void telemetry_on_read(struct telemetry_mod *m, telemetry_read_fn fn, void *arg);


#endif
