/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/config_ha.h: loom.yaml's `ha:` section, high availability
 * on etcd (config_ha.c). */
#ifndef LOOMD_CONFIG_HA_H
#define LOOMD_CONFIG_HA_H

#include <limits.h>

#include "daemon/core/config.h"

struct ha_conf {
	char ha_endpoints[LOOM_HA_ENDPOINTS_LEN]; /* ha.endpoints: "URL,URL,..." ("" off) */
	char ha_name[64];               /* ha.name: this node ("": the host name) */
	char ha_advertise[256];         /* ha.advertise: this node's REST API URL, for others */
	char ha_cluster[64];            /* ha.cluster: the keys under /loom/CLUSTER/ */
	int ha_ttl_s;                   /* ha.ttl_s: the leader's lease */
	int ha_timeout_ms;              /* ha.timeout_ms: one etcd request to one endpoint */
	int ha_poll_ms;                 /* ha.poll_ms: a follower reads the leader key */
	int ha_follower_discovery_interval; /* ha.follower_discovery_interval: s (0: 4 x
					     * discovery.interval) */
	char ha_tls_ca[PATH_MAX];       /* ha.tls.ca: CA of https:// endpoints ("" system) */
	char ha_tls_cert[PATH_MAX];     /* ha.tls.cert / key: client certificate ("" none) */
	char ha_tls_key[PATH_MAX];
	char ha_user[64];               /* ha.user: etcd authentication ("" none) */
	char ha_password_file[PATH_MAX]; /* ha.password_file: its password, first line */
};

extern const struct config_section ha_config;
const struct ha_conf *ha_conf_get(const struct loom_config *c);

#endif
