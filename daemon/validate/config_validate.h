/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/config_validate.h: loom.yaml's `validation:` section,
 * the validate module's own settings (config_validate.c parses them). */
#ifndef LOOMD_CONFIG_VALIDATE_H
#define LOOMD_CONFIG_VALIDATE_H

#include <limits.h>
#include <stdint.h>

#include "daemon/core/config.h"


struct validate_conf {
	int validation_enabled;             /* enabled: after every sweep */
	char validation_expected[PATH_MAX]; /* expected: the cabling plan ("" none) */
	int validation_fat_tree;            /* fat_tree: -1 auto, 0 no, 1 yes */
	/* issue 43, multicast */
	int validation_multicast;           /* multicast: read and check the groups' trees */
	uint64_t validation_mc_sm_key;      /* multicast_sm_key: what the SA is asked with */
};

extern const struct config_section validate_config;
const struct validate_conf *validate_conf_get(const struct loom_config *c);

#endif
