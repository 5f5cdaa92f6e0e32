/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar.h: the control command "ar-status" (CTL_READ): the adaptive
 * routing capability of every switch of a subnet (issue 7). Unless it asks
 * for the cached result, a request probes the switches in a `loomd
 * --read-ar` child (daemon/ar/ar_read.h) on a worker thread, records the probe
 * and the capability changes as events (daemon/ar/store_ar.h), then answers
 * from the database (lib/ar/ar_status.h), as loomctl --db does. The probe only
 * reads; programming is "ar-program" (daemon/ar/ar_apply.h). */
#ifndef LOOMD_AR_H
#define LOOMD_AR_H

#include <stddef.h>

struct event_base;
struct ctl;
struct swept_mad;
struct ar_mod;

/* mad: discovery's MAD limits; db_path: what a probe's job opens. */
struct ar_mod *ar_new(struct event_base *base, const struct swept_mad *mad, const char *db_path,
		      char *err, size_t errlen);
/* Waits for a probe under way and answers it. Call before ctl_free(). */
void ar_free(struct ar_mod *ar);
/* MAD limits for the probes that start from now on. */
void ar_reconfigure(struct ar_mod *ar, const struct swept_mad *mad);
/* Register "ar-status" (CTL_READ). */
int ar_register(struct ar_mod *ar, struct ctl *ctl);

#endif
