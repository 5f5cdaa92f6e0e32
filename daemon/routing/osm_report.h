/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/osm_report.h: loomd's end of libloomosm.so's reports. OpenSM's
 * plugin sends one JSON object per datagram to a unix datagram socket that
 * loomd owns (opensm.report_socket); this module reads them on the event
 * loop, checks them and stores them (store_routing.h): routing runs in
 * routing_runs, SUBNET UP, traps, LFT changes and SM state changes as
 * events. It also answers `route-runs` on the control socket.
 *
 * The messages (version 1), every one with
 *   "v":1, "type", "time" (unix seconds), "pid", "sm_guid":"0x...",
 *   "seq" (per OpenSM, from 1), "dropped" (reports lost just before it)
 * and by type:
 *   routing_run  "engine", "routed_by"|null, "result":"ok|failed",
 *                "reason"|null, "note", "started", "duration_ms", "vls",
 *                "switches", "ca_ports", "entries_routed",
 *                "entries_unreachable", "metrics":{...}|null,
 *                ["metrics_ms"], ["metrics_skipped"],
 *                ["isolated_version", "isolated"]: loomd's isolated set in
 *                force for the run and the links it left out (issue 42;
 *                an older plugin sends neither: version 0)
 *   subnet_up    "nodes", "switches", "ports", "gids_in", "gids_out",
 *                "sm_state"
 *   trap         "generic", "trap", ["name"], "issuer_lid", ["lid"],
 *                ["port"], ["vendor_id"]
 *   lft_change   "switches", "blocks", "top_changes", "after"
 *   sm_state     "state", "old"
 *   heavy_sweep  "discovery_ms", "nodes", "switches"   (logged only)
 *   routing_done "engine"|null, "reroute"               (logged only)
 * Unknown types are ignored (a newer plugin may send more).
 *
 * Requests the other way (loomd -> the plugin), one JSON object a datagram
 * sent from the report socket to the address the plugin last reported
 * from (an abstract name it autobinds; the plugin takes requests only from
 * the socket it reports to, so only loomd's own socket can ask):
 *   heavy_sweep  "v":1, "why": OpenSM does what its SIGHUP does: a heavy
 *                sweep that first re-reads its options file, then its
 *                partitions file (docs/opensm-slurm.md).
 *   reroute      "v":1, "why": OpenSM routes again without discovery (its
 *                console's `reroute`); each run reads the isolated links
 *                file again (docs/isolation-plugin.md). */
#ifndef LOOMD_OSM_REPORT_H
#define LOOMD_OSM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct event_base;
struct ctl;
struct store;
struct osm_report;

/* Bind the socket at `path` (mode 0660; a stale socket file is replaced, a
 * live one belongs to another loomd) and read it on `base`, storing into
 * `st` (which must outlive it). NULL + err on failure. */
struct osm_report *osm_report_new(struct event_base *base, const char *path,
				  struct store *st, char *err, size_t errlen);
/* Stop reading, unlink the socket. */
void osm_report_free(struct osm_report *r);
/* After each LFT change report with changed blocks, call fn(arg, the
 * reporting OpenSM's port GUID) on the loop: OpenSM set new forwarding
 * tables (daemon/ar/ar_apply.c programs adaptive routing again). One hook. */
void osm_report_on_lft_change(struct osm_report *r, void (*fn)(void *arg, uint64_t sm_guid),
			      void *arg);
/* On the loop, for a change OpenSM reports on a subnet loomd sweeps: a trap
 * 128 (a port of the switch of LID lid changed state; nodes 0), or
 * SUBNET UP with `nodes` nodes (lid 0). daemon/ib/sweep_follow.c walks
 * the switch again, or the subnet when the counts differ. One hook. */
typedef void (*osm_report_change_fn)(void *arg, const char *subnet, unsigned lid,
				     unsigned nodes);
void osm_report_on_change(struct osm_report *r, osm_report_change_fn fn, void *arg);
/* A routing run as reported (ok 0: it failed), for osm_report_on_run. */
struct osm_run_info {
	const char *engine;
	int ok;
	uint64_t isolated_version;  /* the isolated set in force (0: none, or an older plugin) */
	unsigned isolated;          /* links it left out */
	double secs;                /* the run's duration */
};
/* On the loop, after each routing run report is stored (failed runs too):
 * fn(arg, run); run lives for the call only. One hook (daemon/isolation/
 * learns which version of the isolated set OpenSM routes with). */
void osm_report_on_run(struct osm_report *r,
		       void (*fn)(void *arg, const struct osm_run_info *run), void *arg);
/* Register `route-runs` (CTL_READ) on ctl. */
int osm_report_register(struct osm_report *r, struct ctl *ctl);

/* The request type asking the plugin for a heavy sweep (plugins/opensm
 * matches the same text). */
#define OSM_REQ_HEAVY_SWEEP "heavy_sweep"
/* The request type asking it to route again (isolated links changed). */
#define OSM_REQ_REROUTE "reroute"

/* Where requests reach the plugin: copied on the loop, used from any
 * thread while the osm_report lives. */
struct osm_report_peer {
	int fd;                       /* the report socket: the sender */
	struct sockaddr_un addr;      /* the plugin's (abstract) address */
	socklen_t addr_len;
	int pid;                      /* its OpenSM's, as reported (0: unknown) */
};
/* Loop thread: the plugin that last reported from an address of its own,
 * 0 with *p filled; -ENOENT when none has (none since loomd started, or an
 * older plugin that cannot hear requests; r may be NULL). */
int osm_report_peer(const struct osm_report *r, struct osm_report_peer *p);
/* Any thread: ask it for a heavy sweep (why: into OpenSM's log). 0 sent
 * (or its queue already full: a sweep is already asked), -errno
 * (-ECONNREFUSED: that OpenSM is gone). Never waits. */
int osm_report_ask_heavy_sweep(const struct osm_report_peer *p, const char *why);
/* Any thread: ask it to route again (OSM_REQ_REROUTE); as above. */
int osm_report_ask_reroute(const struct osm_report_peer *p, const char *why);

/* Handle one datagram (exposed for the unit tests). 0, -EINVAL for a
 * message refused (logged), or -errno from the store. */
int osm_report_handle(struct osm_report *r, const char *buf, size_t len, double received);

#endif
