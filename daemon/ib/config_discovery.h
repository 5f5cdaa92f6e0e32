/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/config_discovery.h: loom.yaml's `discovery:` section, the
 * sweeper's own settings (config_discovery.c parses them); its MAD limits
 * are also handed to the modules that send MADs (struct swept_mad). */
#ifndef LOOMD_CONFIG_DISCOVERY_H
#define LOOMD_CONFIG_DISCOVERY_H

#include <limits.h>
#include <stdint.h>

#include "daemon/core/config.h"

/* One subnet (one local HCA port) to sweep. */
struct loom_subnet_conf {
	char name[LOOM_NAME_LEN];   /* loom's name for it; default "<ca>/<port>" */
	char ca[LOOM_NAME_LEN];     /* local HCA, e.g. "mlx5_0" */
	int port;                   /* local port number, 1..254 */
};

struct discovery_conf {
	int sweep_interval;             /* discovery.interval seconds; 0 = on demand only; 0 or 5..86400 */
	int mad_timeout_ms;             /* discovery.timeout_ms 1..60000 */
	int mad_retries;                /* discovery.retries 0..20 */
	int max_smps;                   /* discovery.max_smps 1..1024: MADs in flight per subnet */
	char walker[16];                /* discovery.walker: "loom" (walk_dr.c) or "ibnetdisc" */
	int walker_id;                  /* the same as DISC_IB_WALKER_* (set when loaded) */
	int discovery_follow;           /* discovery.follow: walk the switches OpenSM reports
					 * a change on at once (daemon/ib/sweep_follow.c) */
	char m_key_file[PATH_MAX];      /* discovery.m_key_file: the M_Key, first line; "" none */
	uint64_t m_key;                 /* read from m_key_file when the file is loaded (0:
					 * none); no key of the table, so never printed */
	int n_subnets;                  /* 0 = every local HCA port that is found */
	struct loom_subnet_conf subnets[LOOM_MAX_SUBNETS]; /* discovery.subnets */
};

extern const struct config_section sweep_config;
const struct discovery_conf *discovery_conf_get(const struct loom_config *c);

#endif
