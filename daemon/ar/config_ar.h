/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/config_ar.h: loom.yaml's `ar:` section, how loomd programs
 * adaptive routing (config_ar.c). */
#ifndef LOOMD_CONFIG_AR_H
#define LOOMD_CONFIG_AR_H

#include <limits.h>

#include "daemon/core/config.h"

struct ar_conf {
	int ar_program;                 /* ar.program: 1 lets loomd send AR Sets (default 0) */
	int ar_mode;                    /* ar.mode: enum rt_ar_mode, tree (default) or lag */
	unsigned ar_sl_mask;            /* ar.sls: the SLs under AR; 0xFFFF every SL */
	int ar_shield;                  /* ar.shield: fast link fault recovery where supported */
	int ar_after_reroute_s;         /* ar.after_reroute_s: program again this long after
					 * OpenSM's last LFT change (0: never by itself) */
};

extern const struct config_section ar_config;
const struct ar_conf *ar_conf_get(const struct loom_config *c);

#endif
