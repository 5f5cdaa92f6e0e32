/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ibcc.h: loom.yaml's ib_cc (InfiniBand congestion control,
 * lib/qos/ib_cc.h) on the InfiniBand fabric, as control commands:
 *   "qos-ib-cc-apply"  (write) write every congestion-control option into
 *                      loom's ib_cc block of ib_cc.opensm_config and ask
 *                      OpenSM to re-read it (daemon/routing/opensm_sweep.h),
 *                      whose congestion-control manager sends the
 *                      settings to every switch and CA after its next routing;
 *   "qos-ib-cc-status" (read)  check the options file OpenSM reads: loom's
 *                      block holds exactly loom.yaml's options and no later
 *                      line sets a congestion-control option again.
 * A change from in policy to drifted is an event (kind ib_cc_drift, with what
 * differs); back again, ib_cc_in_policy. The ports' own CongestionSetting
 * attributes are not read back (docs/ib-cc-notes.md: why, and what ibsim
 * does with class 0x21 MADs). */
#ifndef LOOMD_QOS_IBCC_H
#define LOOMD_QOS_IBCC_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/core/intent.h"

struct event_base;
struct ctl;
struct osm_report;
struct ib_cc_conf;
struct qos_ibcc_mod;
struct store;

/* conf: ib_cc:; osm_pid_file: as qos_ib_new's. */
struct qos_ibcc_mod *qos_ibcc_new(struct event_base *base, const struct ib_cc_conf *conf,
				  const char *osm_pid_file, struct store *store, char *err,
				  size_t errlen);
void qos_ibcc_free(struct qos_ibcc_mod *m);
int qos_ibcc_reconfigure(struct qos_ibcc_mod *m, const struct ib_cc_conf *conf,
			 const char *osm_pid_file);
int qos_ibcc_register(struct qos_ibcc_mod *m, struct ctl *ctl);
/* As qos_ib_set_opensm. */
void qos_ibcc_set_opensm(struct qos_ibcc_mod *m, struct osm_report *osm);
/* HA: as qos_ib_set_intent and qos_ib_watch, for policy/ib_cc. */
void qos_ibcc_set_intent(struct qos_ibcc_mod *m, const struct intent_writer *w);
void qos_ibcc_watch(void *arg, const json_t *records, int leading);

#endif
