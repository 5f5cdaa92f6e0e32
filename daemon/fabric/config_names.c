/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/config_names.c: loom.yaml's `names:` section (issue 39).
 *
 *   names:
 *     node_name_map: /etc/loom/node-name-map  # the site's node names, in the
 *                          # node-name-map format of OpenSM and infiniband-diags
 *                          # (ibnetdiscover --node-name-map): `GUID "name"`
 *                          # lines, # comments. "" or absent: nodes are named
 *                          # by their NodeDescription, as before
 *
 * The check reads the map whole (lib/fabric/nodename.h): a bad line refuses
 * the file (at start, and at a reload, whose running configuration then
 * stays) with the map's file and line. */
#include "autoconf.h"

#include <stdio.h>

#include "daemon/core/config_parse.h"
#include "daemon/fabric/config_names.h"
#include "lib/fabric/nodename.h"

#define CFG_SECTION_TYPE struct names_conf

static int check_names(struct parse *p, void *sec)
{
	const struct names_conf *c = sec;
	struct nodename_map *m;
	char err[1024];

	if (!c->names_node_name_map[0])
		return 0;
	if (nodename_map_read(c->names_node_name_map, &m, err, sizeof(err)) < 0)
		return cfg_fail(p, cfg_key_line(p, "names", "node_name_map"), "names.node_name_map",
				"%s", err);
	nodename_map_free(m);
	return 0;
}

static const struct cfg_key names_keys[] = {
	CFG_KEY_STR("node_name_map", CFG_OPT_PATH, names_node_name_map, NULL),
};

const struct names_conf *names_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &names_config);
}

const struct config_section names_config = {
	.name = "names", .size = sizeof(struct names_conf), .keys = names_keys,
	.n_keys = sizeof(names_keys) / sizeof(names_keys[0]),
	.check = check_names,
};
