/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/names_db.h: the site's node names in loom's database (schema 018's
 * node_names, issue 39): loomd writes the node-name-map it loaded there
 * whole (names_db_store); every query names a node with NAMES_DB_NAME, the
 * map's name for its GUID, else its description, so that loomd, the REST
 * API, the web view and `loomctl --db` name nodes alike; `loomctl --db
 * --node-name-map FILE` shadows the stored map with a TEMP table of the same
 * name (names_db_shadow). names_db_load reads the stored map back for code
 * that names nodes outside SQL (nodename_of, lib/fabric/nodename.h). */
#ifndef LOOM_NAMES_DB_H
#define LOOM_NAMES_DB_H

#include <stddef.h>

#include <sqlite3.h>

#include "lib/fabric/nodename.h"

/* The SQL of a node's display name, from its GUID column (text, as stored)
 * and its description column. */
#define NAMES_DB_NAME(guid_col, desc_col) \
	"coalesce((SELECT nn.name FROM node_names nn WHERE nn.guid = " guid_col "), " \
	desc_col ")"

/* Replace the stored map with m (NULL: none), in one savepoint: 0, or -EIO
 * with err. */
int names_db_store(sqlite3 *db, const struct nodename_map *m, char *err, size_t errlen);
/* On a connection of one's own (read-only is fine): queries name nodes by m
 * instead of the stored map (m NULL: only where the database has no
 * node_names, one older than schema 018, an empty one). 0, or -EIO/-ENOMEM
 * with err. */
int names_db_shadow(sqlite3 *db, const struct nodename_map *m, char *err, size_t errlen);
/* The map the database holds (an empty one when none): 0 with *out, or
 * -EIO/-ENOMEM with err. */
int names_db_load(sqlite3 *db, struct nodename_map **out, char *err, size_t errlen);

#endif
