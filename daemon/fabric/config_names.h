/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/config_names.h: loom.yaml's `names:` section, the site's
 * node names (config_names.c parses it; daemon/fabric/names.c uses it). */
#ifndef LOOMD_CONFIG_NAMES_H
#define LOOMD_CONFIG_NAMES_H

#include <limits.h>

#include "daemon/core/config.h"

struct names_conf {
	char names_node_name_map[PATH_MAX]; /* node_name_map: the file, "" none */
};

extern const struct config_section names_config;
const struct names_conf *names_conf_get(const struct loom_config *c);

#endif
