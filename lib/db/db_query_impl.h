/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_query_impl.h: the Ethernet fabric's queries (db_query_eth.c),
 * which db_query.c merges into its nodes, ports, links and subnets; not for
 * anyone else. The row helpers both use are lib/db/db_row.h. */
#ifndef LOOM_DB_QUERY_IMPL_H
#define LOOM_DB_QUERY_IMPL_H

#include <stddef.h>
#include <sqlite3.h>
#include <jansson.h>

/* The Ethernet fabric (db_query_eth.c). Each appends to `arr`; a database
 * older than schema 5 has none and appends nothing. */
int dbq_eth_nodes(sqlite3 *db, const char *type, json_t *arr, char *err, size_t errlen);
int dbq_eth_ports(sqlite3 *db, const char *node, json_t *arr, char *err, size_t errlen);
int dbq_eth_links(sqlite3 *db, json_t *arr, char *err, size_t errlen);
int dbq_eth_subnets(sqlite3 *db, json_t *arr, char *err, size_t errlen);
/* The Ethernet node `id` names (its name or chassis MAC) with its
 * "port_list"; -ENOENT (err not written) when there is none. */
int dbq_eth_node(sqlite3 *db, const char *id, json_t **out, char *err, size_t errlen);
/* Does the database hold the Ethernet fabric (schema 5)? */
int dbq_has_eth_fabric(sqlite3 *db);

#endif
