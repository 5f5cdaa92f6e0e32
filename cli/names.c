/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/names.c: the node-name-map of --node-name-map (loomctl.h's
 * loomctl_names), for --db and the offline commands: loomd names nodes by
 * its own names.node_name_map. */
#include "autoconf.h"
#include "loomctl.h"

#include "lib/fabric/nodename.h"

int loomctl_names(const struct loomctl *lc, struct nodename_map **out)
{
	char err[1024];
	int rc;

	*out = NULL;
	if (!lc->node_name_map)
		return 0;
	if ((rc = nodename_map_read(lc->node_name_map, out, err, sizeof(err))) < 0)
		loomctl_error(lc, "%s", err);
	return rc;
}
