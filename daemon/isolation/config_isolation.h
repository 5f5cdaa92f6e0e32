/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/config_isolation.h: loom.yaml's `isolation:` section,
 * the isolation module's own settings (config_isolation.c parses them). */
#ifndef LOOMD_CONFIG_ISOLATION_H
#define LOOMD_CONFIG_ISOLATION_H

#include <limits.h>

#include "daemon/core/config.h"
#include "daemon/isolation/isolation_policy.h"

#define ISO_EXCLUDE_MAX 128

struct isolation_conf {
	int iso_mode;              /* mode: enum iso_mode */
	char iso_file[PATH_MAX];   /* file: the set libloomosm reads */
	int iso_window_s;          /* window_s: the rules count in it */
	int iso_errors;            /* errors: error-counter increments in the window (0 off) */
	int iso_ber_exp;           /* ber_exp: symbol errors per bit above 10^-N (0 off) */
	int iso_flaps;             /* flaps: times down in the window (0 off) */
	int iso_degraded;          /* degraded: narrower or slower than both ends enable */
	unsigned long long iso_findings; /* findings: validation codes (1 << enum val_code) */
	int iso_max_isolated;      /* max_isolated */
	int iso_max_per_switch;    /* max_per_switch */
	int iso_min_paths;         /* min_paths: paths kept between every leaf pair */
	int iso_ebb_floor_pct;     /* ebb_floor_pct: EBB never below this % (0 off) */
	int iso_clean_for_s;       /* clean_for_s: first probation */
	int iso_backoff;           /* backoff: the probation's factor per return */
	int iso_max_returns;       /* max_returns: then it stays until an operator acts (0 never) */
	int iso_drain_hosts;       /* drain_hosts: a host's bad cable drains it in Slurm */
	struct iso_exclude iso_exclude[ISO_EXCLUDE_MAX];  /* exclude: never isolated */
	int iso_n_exclude;
};

extern const struct config_section isolation_config;
const struct isolation_conf *isolation_conf_get(const struct loom_config *c);
/* The policy's bounds of c (exclude points into c). */
void isolation_conf_bounds(const struct isolation_conf *c, struct iso_bounds *b);

#endif
