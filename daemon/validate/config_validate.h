/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/config_validate.h: loom.yaml's `validation:` section,
 * the validate module's own settings (config_validate.c parses them). */
#ifndef LOOMD_CONFIG_VALIDATE_H
#define LOOMD_CONFIG_VALIDATE_H

#include <limits.h>
#include <stdint.h>

#include "daemon/core/config.h"

#define VALIDATE_SM_ALLOWED_MAX 64
#define VALIDATE_SM_NAME_LEN 72   /* a node name (64) or "0x" and 16 hex digits */

#define VALIDATE_DEFAULT_FULL_LEN 4096   /* validation.default_full, all entries */
#define VALIDATE_DEFAULT_FULL_MAX 64     /* ... at most this many */

struct validate_conf {
	int validation_enabled;             /* enabled: after every sweep */
	char validation_expected[PATH_MAX]; /* expected: the cabling plan ("" none) */
	int validation_fat_tree;            /* fat_tree: -1 auto, 0 no, 1 yes */
	/* issue 43, partitions (lib/validate/partitions.h) */
	int validation_partitions;          /* partitions: read the PKey tables, check */
	int validation_default_partition;   /* default_partition: enum partitions_default */
	/* default_full: GUIDs or node names, each ended by '\n' ("" none) */
	char validation_default_full[VALIDATE_DEFAULT_FULL_LEN];
	int validation_partition_enforcement; /* partition_enforcement: 0 or 1 */
	/* issue 43, rails (lib/validate/rails.h) */
	int validation_rails;               /* rails: enum rails_from (0 off) */
	char validation_rail_pattern[256];  /* rail_pattern: rails: pattern's regex */
	/* issue 43, subnet managers and keys */
	char validation_sm_allowed[VALIDATE_SM_ALLOWED_MAX][VALIDATE_SM_NAME_LEN];
	int validation_n_sm_allowed;        /* sm_allowed: 0: not checked */
	int validation_keys;                /* keys: enum keys_mode (lib/validate/keys.h) */
	/* issue 43, multicast */
	int validation_multicast;           /* multicast: read and check the groups' trees */
	uint64_t validation_mc_sm_key;      /* multicast_sm_key: what the SA is asked with */
};

extern const struct config_section validate_config;
const struct validate_conf *validate_conf_get(const struct loom_config *c);

#endif
