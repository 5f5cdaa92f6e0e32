/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/config_opensm.h: loom.yaml's `opensm:` section: where
 * libloomosm.so reports, loomd's routing threads, whether tables are read
 * again (config_opensm.c). */
#ifndef LOOMD_CONFIG_OPENSM_H
#define LOOMD_CONFIG_OPENSM_H

#include <limits.h>

#include "daemon/core/config.h"

struct opensm_conf {
	char osm_socket_path[PATH_MAX]; /* opensm.report_socket: libloomosm.so's reports */
	int routing_threads;            /* opensm.threads: loomd's routing work (route
					 * check's metrics); 0 = the cores */
	int osm_read_tables;            /* opensm.read_tables: read the tables again
					 * after OpenSM changes them (routes.c) */
};

extern const struct config_section osm_report_config;
const struct opensm_conf *opensm_conf_get(const struct loom_config *c);

#endif
