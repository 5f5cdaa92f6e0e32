/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation.h: self-healing links (issue 42,
 * docs/isolation.md). loom takes a bad switch-to-switch cable out of the
 * routes while it stays up (its counters keep being read), and puts it back
 * after a clean probation; a host's bad cable drains the host instead.
 *
 * Inputs: each counters read's ports whose errors or LinkDownedCounter moved
 * (telemetry_on_read: isolation_on_read), each sweep's fabric
 * (isolation_on_swept: degraded links, and the link_down / link_flap events
 * that sweeps write are counted as flaps), and a timer for the probations.
 * Each input marks the module dirty; one evaluation runs at a time on the
 * "isolation" work queue (a newer input meanwhile makes one more): the rules
 * of loom.yaml's isolation: over the window, the policy
 * (isolation_policy.h), the loss of each isolation computed offline
 * (lib/route/route_loss.h) against the floors, then in one transaction the
 * rows (schema 020) and their events; when the set of cables changed, the
 * file libloomosm reads (isolation.file, with its version) and a reroute
 * asked of OpenSM (routing/opensm_sweep.h). Only where the gate lets it
 * (ctl_gate_check: under HA, the leader) does the module act by itself.
 *
 * Commands:
 *   link-isolated (CTL_READ) {subnet?}: {"mode", "version", "links": [...]}
 *   link-isolate (CTL_WRITE) {port: "NODE:PORT", reason, force?, subnet?}:
 *     an operator's isolation (the floors apply unless force), kept until
 *     link-restore
 *   link-restore (CTL_WRITE) {port, subnet?}: back into the routes now, its
 *     returns forgotten. */
#ifndef LOOMD_ISOLATION_H
#define LOOMD_ISOLATION_H

#include <stddef.h>

#include <jansson.h>

struct event_base;
struct ctl;
struct fab;
struct store;
struct isolation_conf;
struct isolation_mod;
struct job_index;
struct osm_report;
struct counters_moved;

/* store: the loop's connection (for link-isolated); db_path: what the
 * evaluation's worker opens. NULL with err. */
struct isolation_mod *isolation_new(struct event_base *base, const struct isolation_conf *conf,
				    const char *db_path, struct store *store, char *err,
				    size_t errlen);
/* Waits for the evaluation under way. */
void isolation_free(struct isolation_mod *m);
void isolation_reconfigure(struct isolation_mod *m, const struct isolation_conf *conf);
int isolation_register(struct isolation_mod *m, struct ctl *ctl);
/* Where a host whose cable is bad is drained (daemon/slurm/slurm_drain.h;
 * NULL: none), and which Slurm node a CA port is (the tenants' host rule,
 * copied; again at each reload). */
struct slurm_mod;
struct hostmap_rule;
void isolation_set_slurm(struct isolation_mod *m, struct slurm_mod *slurm,
			 const struct hostmap_rule *hosts);
/* Under HA: the writer of the set into etcd before it changes
 * (core/intent.h), and ha_watch's function for "isolation/": a follower's
 * mirror, a new leader's takeover (isolation_ha.c). */
struct intent_writer;
void isolation_set_intent(struct isolation_mod *m, const struct intent_writer *w);
void isolation_watch(void *arg, const json_t *records, int leading);
/* The site's node names (held; NULL: none): how validation findings name
 * the cables isolation.findings isolates. */
struct nodename_map;
void isolation_set_names(struct isolation_mod *m, struct nodename_map *names);
/* The jobs on each link, for the events (telemetry's index; not owned). */
void isolation_set_job_index(struct isolation_mod *m, struct job_index *ix);
/* Where OpenSM is asked to reroute: the plugin that reports on rep, else
 * the OpenSM of pid_file ("" the last reported). */
void isolation_set_opensm(struct isolation_mod *m, struct osm_report *rep, const char *pid_file);
/* osm_report_on_run's listener: the version of the set OpenSM routed with
 * (link-isolated's "applied_version"). */
struct osm_run_info;
void isolation_on_run(void *arg, const struct osm_run_info *run);
/* /metrics' family of the module (daemon/loomd.c's metrics hook):
 * loom_isolation_applied_version, the set's version OpenSM last routed with
 * (no series before OpenSM reported one since loomd started). */
struct mt_buf;
void isolation_metrics(const struct isolation_mod *m, struct mt_buf *out);
/* sweeper_on_swept's listener: takes fab. */
void isolation_on_swept(void *arg, const char *subnet, struct fab *fab);
/* telemetry_on_read's listener. */
void isolation_on_read(void *arg, const char *subnet, double at,
		       const struct counters_moved *moved, size_t n, size_t over);

#endif
