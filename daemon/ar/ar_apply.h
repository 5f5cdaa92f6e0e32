/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_apply.h: the control command "ar-program" (CTL_WRITE): program
 * NVIDIA adaptive routing on every switch of a subnet (issue 7) in a
 * `loomd --program-ar` child (daemon/ar/ar_write.h) on a worker thread, record
 * an event per switch and the new AR status (daemon/ar/store_ar.h), and answer
 * with every switch's result. Refused unless loom.yaml has ar.program: true
 * or the request is a dry run: the attribute modifiers of the AR tables are
 * not confirmed (docs/ar-mad-notes.md). */
#ifndef LOOMD_AR_APPLY_H
#define LOOMD_AR_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/core/intent.h"

struct event_base;
struct ctl;
struct ar_conf;
struct swept_mad;
struct ar_apply;

/* conf: its section; mad: discovery's MAD limits; db_path: what a run's
 * job opens. */
struct ar_apply *ar_apply_new(struct event_base *base, const struct ar_conf *conf,
			      const struct swept_mad *mad, const char *db_path, char *err,
			      size_t errlen);
/* Waits for a run under way and answers it. Call before ctl_free(). */
void ar_apply_free(struct ar_apply *a);
/* ar: settings and MAD limits for the runs from now on. */
void ar_apply_reconfigure(struct ar_apply *a, const struct ar_conf *conf,
			  const struct swept_mad *mad);
/* Register "ar-program" (CTL_WRITE). */
int ar_apply_register(struct ar_apply *a, struct ctl *ctl);

/* HA: a run (not a dry run) first puts the record ar/SUBNET = {"subnet",
 * "state": "programming", "by", "at", "settings": {"mode", "sl_mask",
 * "shield"}} and sends no Set when that fails; once done, the record again
 * with "state": "programmed", "run" (the counts) and "switches" (each
 * switch's result: what was enabled, its groups). A new leader compares
 * it with `ar status` (daemon/ar/ar.c). */
void ar_apply_set_intent(struct ar_apply *a, const struct intent_writer *w);

/* OpenSM sm_guid changed forwarding tables (osm_report_on_lft_change's
 * hook; arg is the ar_apply). With ar.program and ar.after_reroute_s, a run
 * on that OpenSM's subnet starts once no change came for after_reroute_s
 * seconds (NVIDIA switches turn AR off when their static table is set). */
void ar_apply_lft_changed(void *arg, uint64_t sm_guid);

#endif
