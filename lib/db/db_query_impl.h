/* lib/db/db_query_impl.h: what lib/db/db_query.c shares with the other query
 * files of lib/db/ (db_query_eth.c); not for anyone else. */
#ifndef LOOM_DB_QUERY_IMPL_H
#define LOOM_DB_QUERY_IMPL_H

#include <stddef.h>
#include <sqlite3.h>
#include <jansson.h>

/* Write the message to err and return rc. */
int dbq_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* -EIO with sqlite's message for `what`. */
int dbq_db_fail(sqlite3 *db, char *err, size_t errlen, const char *what);
int dbq_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s, char *err, size_t errlen);
/* Step through `s` (finalized here), a new array of row_fn(row) in *out. */
int dbq_collect(sqlite3 *db, sqlite3_stmt *s, json_t *(*row_fn)(sqlite3_stmt *),
		json_t **out, char *err, size_t errlen);
/* A text column, "" for NULL. */
const char *dbq_col_str(sqlite3_stmt *s, int col);
/* A text column as a JSON string, forced to ASCII when it is not UTF-8. */
json_t *dbq_col_text(sqlite3_stmt *s, int col);
/* A unix time column as an ISO 8601 UTC string. */
json_t *dbq_col_time(sqlite3_stmt *s, int col);

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
