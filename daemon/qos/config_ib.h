/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/config_ib.h: the parsing that loom.yaml's InfiniBand sections
 * of OpenSM options share (ib_qos: in config_ibqos.c, ib_cc: in
 * config_ibcc.c): a mapping walked key by key, a sequence item by item,
 * and a lib/qos check's "KEY: what" put where cfg_fail puts keys. Only
 * for those config_*.c files (daemon/core/config_parse.h). */
#ifndef LOOMD_QOS_CONFIG_IB_H
#define LOOMD_QOS_CONFIG_IB_H

#include <stddef.h>

#include "daemon/core/config_parse.h"

/* One member of a mapping: its name, "WHERE.NAME" in key (for errors), its
 * key node k and value v. 0, or -EINVAL with the error set. */
typedef int (*qos_cfg_member_fn)(struct parse *p, const char *name, const char *key,
				 const yaml_node_t *k, const yaml_node_t *v, void *ctx);
/* One item of a sequence: e, its index i and "KEY[i]" in ikey. */
typedef int (*qos_cfg_item_fn)(struct parse *p, const yaml_node_t *e, const char *ikey,
			       unsigned i, void *ctx);

/* The mapping v under `where` (null: no member), each member handed to fn
 * in order; a key that is no scalar or comes twice is refused
 * (cfg_member_key). 0, or the first error. */
int qos_cfg_map(struct parse *p, const yaml_node_t *v, const char *where,
		qos_cfg_member_fn fn, void *ctx);
/* The sequence v of `key` (null: no item when null_ok, else refused as
 * not a sequence), each item handed to fn in order. The number of items,
 * or the first error. */
int qos_cfg_seq(struct parse *p, const yaml_node_t *v, const char *key, int null_ok,
		qos_cfg_item_fn fn, void *ctx);
/* A check's message "KEY: what": KEY into key, what returned; a message
 * without a key: dflt into key, the whole message returned. */
const char *qos_cfg_check_key(const char *msg, const char *dflt, char *key, size_t keylen);

#endif
