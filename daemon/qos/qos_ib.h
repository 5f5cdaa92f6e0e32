/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ib.h: loom.yaml's ib_qos policy on the InfiniBand fabric, as
 * control commands:
 *   "qos-ib-apply"  (write) write the policy as OpenSM options into loom's
 *                   block of ib_qos.opensm_config and ask OpenSM for a heavy
 *                   sweep (daemon/routing/opensm_sweep.h), which
 *                   re-reads its qos_* options and programs every port;
 *                   with a routing on VL layers, refused unless the
 *                   classes and the layers fit the SLs and VLs together
 *                   (lib/qos/ib_qos.h: libloomosm then expands the tables);
 *   "qos-ib-status" (read)  read every port's SL2VL and VLArbitration tables
 *                   back (`loomd --read-qos` children, one per swept
 *                   subnet) and compare them with the policy, per port
 *                   (with layers: the policy as libloomosm expands it).
 * A port that leaves the policy is an event (kind ib_qos_drift, with the
 * first differing entry); one that comes back is ib_qos_in_policy. */
#ifndef LOOMD_QOS_IB_H
#define LOOMD_QOS_IB_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/core/intent.h"

struct event_base;
struct ctl;
struct osm_report;
struct ib_qos_conf;
struct swept_mad;
struct qos_ib_mod;
struct store;

/* conf: ib_qos:; mad: discovery's MAD limits (the read-back); osm_pid_file:
 * tenants.opensm_pid_file, how OpenSM is found to signal when its plugin
 * cannot be asked ("": its reports). */
struct qos_ib_mod *qos_ib_new(struct event_base *base, const struct ib_qos_conf *conf,
			      const struct swept_mad *mad, const char *osm_pid_file,
			      struct store *store, char *err, size_t errlen);
/* Waits for a read under way and answers it. Before ctl_free(). */
void qos_ib_free(struct qos_ib_mod *m);
int qos_ib_reconfigure(struct qos_ib_mod *m, const struct ib_qos_conf *conf,
		       const struct swept_mad *mad, const char *osm_pid_file);
int qos_ib_register(struct qos_ib_mod *m, struct ctl *ctl);
/* libloomosm.so's channel (daemon/routing/osm_report.h), which asks OpenSM
 * to re-read the options without a signal; it must outlive m. */
void qos_ib_set_opensm(struct qos_ib_mod *m, struct osm_report *osm);
/* HA: qos-ib-apply first puts the record policy/ib_qos (qos_intent.h) and
 * writes nothing when that fails (answered with etcd's error). */
void qos_ib_set_intent(struct qos_ib_mod *m, const struct intent_writer *w);
/* ha_watch's fn for "policy/": a follower (leading 0) writes loom's block
 * of its own ib_qos.opensm_config from the record and signals its OpenSM;
 * a new leader (1) says (event ha_takeover_policy) whether the replicated
 * options are its loom.yaml's (when not, they stay until qos-ib-apply). */
void qos_ib_watch(void *arg, const json_t *records, int leading);

/* The text of ib_qos.opensm_config with loom's block (between its marker
 * lines) replaced by `options`, or appended when the file has none; NULL
 * when out of memory. Exposed for the unit tests. */
char *qos_ib_options_file(const char *old_text, const char *options);


#endif
