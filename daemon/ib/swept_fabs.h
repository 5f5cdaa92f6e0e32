/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/swept_fabs.h: the last swept fabric of each subnet, kept for
 * the modules that work on it after a sweep (daemon/slurm/: topology.conf;
 * daemon/validate/: the cabling plan and the fabric's rules). The sweeper
 * hands each one its own reference (fab_hold); a job that outlives the next
 * sweep holds the fabric it got (fab_hold) and frees it itself. A subnet
 * keeps its index for loomd's life, so that a module may keep state of its
 * own per subnet in an array beside this one. Loop thread only. */
#ifndef LOOMD_SWEPT_FABS_H
#define LOOMD_SWEPT_FABS_H

#include <stddef.h>

#include "daemon/core/config.h"
#include "lib/fabric/fabric.h"

#define SWEPT_FABS_MAX 64

struct swept_fab {
	char name[LOOM_NAME_LEN];
	struct fab *last;           /* the last sweep's; NULL: none yet */
};

struct swept_fabs {
	struct swept_fab s[SWEPT_FABS_MAX];
	size_t n;
};

/* fab (taken: freed here when there is no room) as subnet's last: its
 * index, or -1 (more than SWEPT_FABS_MAX subnets). */
int swept_fabs_keep(struct swept_fabs *f, const char *subnet, struct fab *fab);
/* The index of subnet with a fabric, or -1. */
int swept_fabs_find(const struct swept_fabs *f, const char *subnet);
/* The subnet a request means: `want`, else `dflt` (a configured one),
 * else the only one swept: its index, or -1 with why (not swept, several
 * and none named: "set `what`", none yet). */
int swept_fabs_choose(const struct swept_fabs *f, const char *want, const char *dflt,
		      const char *what, char *why, size_t len);
void swept_fabs_clear(struct swept_fabs *f);

#endif
