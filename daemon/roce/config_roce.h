/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/config_roce.h: loom.yaml's `roce:` section (the lossless
 * policy of every switch) and `switches:` list, defined in config_roce.c.
 * The switches are handed to every module that drives them (qos, tenants,
 * switch counters); roce: to qos. */
#ifndef LOOMD_ROCE_CONFIG_ROCE_H
#define LOOMD_ROCE_CONFIG_ROCE_H

#include <limits.h>

#include "daemon/core/config.h"
#include "lib/qos/qos_policy.h"

/* One Ethernet switch managed through a plugin (loom.yaml `switches:`). */
struct loom_switch_conf {
	char name[LOOM_NAME_LEN];        /* unique; loom's name for it */
	char plugin[LOOM_NAME_LEN];      /* plugin file PLUGIN.so in plugins.dir */
	char address[LOOM_ADDRESS_LEN];  /* in the plugin's own form */
	char credentials[256];           /* file with the credentials, "" none */
	char options[LOOM_ADDRESS_LEN];  /* plugin options, "" none */
	struct qos_policy roce;          /* overrides: only roce.set fields */
};

struct roce_conf {
	struct qos_policy roce;
	int roce_interval;              /* roce.interval: seconds between read-backs, 0 off */
	int roce_reapply;               /* roce.reapply: re-apply a drifted switch */
};

struct switches_conf {
	int n_switches;
	struct loom_switch_conf switches[LOOM_MAX_SWITCHES];
};

extern const struct config_section roce_config;
const struct roce_conf *roce_conf_get(const struct loom_config *c);
extern const struct config_section roce_switches_config;
const struct switches_conf *switches_conf_get(const struct loom_config *c);

#endif
