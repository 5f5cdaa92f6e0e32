/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/config_tenants.h: loom.yaml's `tenants:` section, the
 * tenants module's own settings (config_tenants.c parses them; loomd.c
 * hands them to tenants_new / tenants_reconfigure, and the host rule to
 * the reports that name hosts). */
#ifndef LOOMD_CONFIG_TENANTS_H
#define LOOMD_CONFIG_TENANTS_H

#include <limits.h>

#include "daemon/core/config.h"

#include "lib/fabric/hostmap.h"


struct tenants_conf {
	char tenant_partitions_file[PATH_MAX];   /* partitions_file: loom writes it */
	char tenant_static_partitions[PATH_MAX]; /* static_partitions: operator's, "" none */
	char tenant_opensm_pid_file[PATH_MAX];   /* opensm_pid_file: "" = the SM's reports */
	int tenant_pkey_min;                     /* pkey_min..pkey_max: the pool */
	int tenant_pkey_max;
	int tenant_timeout_s;                    /* timeout_s: to confirm a change */
	int tenant_interval;                     /* interval: check them all, 0 off */
	int tenant_vlan_min;                     /* vlan_min..vlan_max: RoCE VLAN pool */
	int tenant_vlan_max;
	char tenant_users[256];                  /* users: "slurm,..." may change tenants */
	char tenant_groups[256];                 /* groups: likewise, by group */
	struct hostmap_rule hosts;               /* host_pattern, host_map, host_identity */
	int tenant_check_switch_ports;           /* check_switch_ports: 0 or 1 */
};

extern const struct config_section tenants_config;
const struct tenants_conf *tenants_conf_get(const struct loom_config *c);

#endif
