/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/config_qos_ib.h: loom.yaml's `ib_qos:` and `ib_cc:` sections,
 * the InfiniBand QoS and congestion control that OpenSM applies from loom's
 * block in its options file (config_ibqos.c, config_ibcc.c parse them). */
#ifndef LOOMD_CONFIG_QOS_IB_H
#define LOOMD_CONFIG_QOS_IB_H

#include <limits.h>

#include "daemon/core/config.h"
#include "lib/qos/ib_cc.h"
#include "lib/qos/ib_qos.h"

struct ib_qos_conf {
	struct ibqos_policy ib_qos;
	char ib_qos_opensm_config[PATH_MAX];    /* ib_qos.opensm_config: loom's block in it */
};

struct ib_cc_conf {
	/* ib_cc: InfiniBand congestion control through OpenSM (daemon/qos/config_ibcc.c);
	 * .set = 0: absent */
	struct ibcc_config ib_cc;
	char ib_cc_opensm_config[PATH_MAX];     /* ib_cc.opensm_config: loom's block in it */
};

extern const struct config_section qos_ib_config;
const struct ib_qos_conf *ib_qos_conf_get(const struct loom_config *c);
extern const struct config_section qos_ibcc_config;
const struct ib_cc_conf *ib_cc_conf_get(const struct loom_config *c);

#endif
