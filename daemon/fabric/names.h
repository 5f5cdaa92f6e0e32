/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/names.h: the site's node names (issue 39): names.node_name_map
 * loaded (lib/fabric/nodename.h) at start and on each reload, and written
 * whole into the database's node_names (lib/db/names_db.h), where every
 * query (the CLI, the REST API, the web view, `loomctl --db`) reads a node's
 * name. loomd.c hands the map it holds to the modules that name nodes
 * outside SQL (events' text, topology.conf's switches). */
#ifndef LOOMD_NAMES_H
#define LOOMD_NAMES_H

#include <stddef.h>

struct names_conf;
struct nodename_map;
struct store;
struct names_mod;

/* The map of conf (none when its node_name_map is ""), written to st's
 * database: NULL with err when the file cannot be read or stored. */
struct names_mod *names_new(const struct names_conf *conf, struct store *st, char *err,
			    size_t errlen);
/* The map read again (a reload: the file may have changed under the same
 * path) and stored. 0; -errno with the error logged, and the map in force
 * stays. */
int names_reconfigure(struct names_mod *m, const struct names_conf *conf);
/* The map in force (NULL: none); hold it to keep it past a reload. */
struct nodename_map *names_map(const struct names_mod *m);
void names_free(struct names_mod *m);

#endif
