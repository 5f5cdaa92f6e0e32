/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/config_ib.c: what the ib_qos: and ib_cc: sections' parsers
 * share (see config_ib.h). */
#include "autoconf.h"
#include "daemon/qos/config_ib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int qos_cfg_map(struct parse *p, const yaml_node_t *v, const char *where,
		qos_cfg_member_fn fn, void *ctx)
{
	int rc;

	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, where, YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		char key[160];
		const char *name = cfg_member_key(p, v, pr, where, key, sizeof(key));

		if (!name)
			return -EINVAL;
		if ((rc = fn(p, name, key, k, yaml_document_get_node(p->doc, pr->value), ctx)) < 0)
			return rc;
	}
	return 0;
}

int qos_cfg_seq(struct parse *p, const yaml_node_t *v, const char *key, int null_ok,
		qos_cfg_item_fn fn, void *ctx)
{
	unsigned n = 0;
	int rc;

	if (null_ok && cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, n++) {
		char ikey[160];

		snprintf(ikey, sizeof(ikey), "%s[%u]", key, n);
		if ((rc = fn(p, yaml_document_get_node(p->doc, *it), ikey, n, ctx)) < 0)
			return rc;
	}
	return (int)n;
}

const char *qos_cfg_check_key(const char *msg, const char *dflt, char *key, size_t keylen)
{
	const char *colon = strstr(msg, ": ");

	if (!colon) {
		snprintf(key, keylen, "%s", dflt);
		return msg;
	}
	snprintf(key, keylen, "%.*s", (int)(colon - msg), msg);
	return colon + 2;
}
