/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm.h: Slurm's topology.conf kept true (issue 24). After
 * every recorded sweep the sweeper hands the fabric over (loomd.c shares
 * it with daemon/validate); on a work queue of its own, one job at a time,
 * the file is made from it (lib/slurm/slurm_topo.h, the tenants' host rule
 * of lib/fabric/hostmap.h) and compared with the last one written: only
 * when the lines Slurm reads differ (a leaf gone, a host moved, a switch
 * added, a LinkSpeed; never a counter) is slurm.topology_file written again,
 * atomically (core/file_atomic.h), with a `slurm_topology` event saying
 * what changed. With slurm.reconfigure, `scontrol reconfigure` runs next on
 * the same worker (bounded by 30 s); when it fails the previous file is
 * written back (or the new one removed when there was none), the event
 * `slurm_topology_refused` says why, and that same text is not tried again
 * until the fabric changes once more (under ha every loomd keeps its own
 * node's file, and only the leader runs scontrol: core/ctl.h's gate). A fabric that makes no file (not a
 * tree, a name Slurm refuses, an unwritable path) leaves the old file as
 * it is and says why once in a `slurm_topology_error` event.
 *   slurm-topology (CTL_READ) {format?: "tree"|"block", subnet?}: the file
 *     now, from the last swept fabric: lib's JSON plus "subnet", "header",
 *     "text" (what the file holds under loom's comment lines). */
#ifndef LOOMD_SLURM_H
#define LOOMD_SLURM_H

#include <stddef.h>

struct event_base;
struct ctl;
struct fab;
struct slurm_conf;
struct hostmap_rule;
struct slurm_mod;

/* conf: its section; hosts: the tenants' host rule (Slurm's nodes are the
 * tenants' hosts); db_path: where a job records its events. */
struct slurm_mod *slurm_new(struct event_base *base, const struct slurm_conf *conf,
			    const struct hostmap_rule *hosts, const char *db_path, char *err,
			    size_t errlen);
/* Waits for the running job. */
void slurm_free(struct slurm_mod *m);
/* New keys from the next sweep on (the file is compared again whole). */
/* The site's node names (held; NULL: descriptions): topology.conf's switch
 * names from now on, the file written again if they change it. */
struct nodename_map;
void slurm_set_names(struct slurm_mod *m, struct nodename_map *names);
void slurm_reconfigure(struct slurm_mod *m, const struct slurm_conf *conf,
		       const struct hostmap_rule *hosts);
int slurm_register(struct slurm_mod *m, struct ctl *ctl);
/* A sweep's fabric (sweeper_on_swept's listener, through loomd.c): takes fab. */
void slurm_on_swept(void *arg, const char *subnet, struct fab *fab);

#endif
