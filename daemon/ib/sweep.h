/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sweep.h: the sweep scheduler. Runs each subnet's discovery on a
 * worker thread (subnets in parallel), records the result in the store from
 * that thread, and reports back on the event loop. Owns the periodic timer
 * and the "discover" and "status" control commands. */
#ifndef LOOMD_SWEEP_H
#define LOOMD_SWEEP_H

#include <stdint.h>

#include <jansson.h>

struct event_base;
struct ctl;
struct discovery_conf;
struct sweeper;
struct fab;

/* A subnet's sweep was recorded: its fabric, now the listener's to free
 * (fab_free), on the loop. */
typedef void (*sweeper_swept_fn)(void *arg, const char *subnet, struct fab *fab);

/* conf: discovery:; db_path: what a sweep's job records into. */
struct sweeper *sweeper_new(struct event_base *base, const struct discovery_conf *conf,
			    const char *db_path, char *err, size_t errlen);
/* Waits for running sweeps to end. */
void sweeper_free(struct sweeper *sw);
/* Apply a new configuration (interval, subnets, MAD settings); a sweep under
 * way finishes with the settings it started with. The new subnet list wins:
 * subnets not in it are no longer swept, and an empty list means every
 * local port (as at a start without one), not the subnets of before. */
int sweeper_reconfigure(struct sweeper *sw, const struct discovery_conf *conf);
/* The interval in seconds in place of discovery.interval (0: no periodic
 * sweep), kept across reloads until set back with -1 (HA: a follower's
 * lower rate, set by loomd.c on a change of role). The next sweep is due
 * one new interval from now. */
void sweeper_set_interval(struct sweeper *sw, int interval);
/* The one listener of every recorded sweep's fabric (loomd.c's, which
 * hands it to daemon/validate and daemon/slurm);
 * NULL: none, and the fabric is freed on the worker. */
void sweeper_on_swept(struct sweeper *sw, sweeper_swept_fn fn, void *arg);
/* The job index (lib/db/job_db.h, its own mutex): a sweep's link_down and
 * link_degraded events name the jobs whose paths crossed the link. It must
 * outlive the sweeper. */
struct job_index;
void sweeper_set_job_index(struct sweeper *sw, struct job_index *jobs);
/* The site's node names the change events use from the next run on (held;
 * NULL: descriptions). Loop thread. */
struct nodename_map;
void sweeper_set_names(struct sweeper *sw, struct nodename_map *names);
/* Start a sweep of every subnet now (no-op for one already running). */
void sweeper_trigger(struct sweeper *sw);
/* OpenSM reported a change on subnet `subnet` (a name loomd sweeps) at
 * the switch of LID `lid` (a trap; 0: somewhere): with discovery.follow,
 * that switch is walked again soon (daemon/ib/sweep_follow.c). */
void sweeper_changed(struct sweeper *sw, const char *subnet, unsigned lid);
/* OpenSM's SUBNET UP on `subnet` counted `nodes` nodes: a full sweep when
 * loom's last count differs (a change no trap named). */
void sweeper_osm_swept(struct sweeper *sw, const char *subnet, unsigned nodes);
/* The counters read saw the LinkDownedCounter of port `port` of node
 * `guid` move (guid 0: of too many ports to name): with discovery.follow,
 * the port's switch (a CA's: the switch it is cabled to) is walked again
 * soon, for a link that came back narrower or slower. */
void sweeper_port_flapped(struct sweeper *sw, const char *subnet, uint64_t guid,
			  unsigned port);
/* Register "discover" (CTL_WRITE) and contribute to "status". */
int sweeper_register(struct sweeper *sw, struct ctl *ctl);
/* The sweeper's part of "status": {"interval":N,"running":bool,"subnets":[...]} */
json_t *sweeper_status(struct sweeper *sw);

#endif
