/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/config_slurm.h: loom.yaml's `slurm:` section, the slurm
 * module's own settings (config_slurm.c parses them). */
#ifndef LOOMD_CONFIG_SLURM_H
#define LOOMD_CONFIG_SLURM_H

#include <limits.h>

#include "daemon/core/config.h"

struct slurm_conf {
	char slurm_topology_file[PATH_MAX]; /* topology_file: loom writes it, "" none */
	int slurm_topology_format;      /* topology_format: enum slurm_topo_format */
	int slurm_reconfigure;          /* reconfigure: scontrol reconfigure after */
	char slurm_subnet[LOOM_NAME_LEN]; /* subnet: whose fabric, "" the only one */
	char slurm_scontrol[PATH_MAX];  /* scontrol: the scontrol program */
};

extern const struct config_section slurm_config;
const struct slurm_conf *slurm_conf_get(const struct loom_config *c);

#endif
