/* daemon/core/queries.h: the read-only fabric commands of the control socket
 * (nodes, node, ports, links, events), answered from the database through
 * lib/db/db_query.h, exactly as loomctl --db answers them on a stopped daemon. */
#ifndef LOOMD_QUERIES_H
#define LOOMD_QUERIES_H

#include <sqlite3.h>

struct ctl;

/* Register the commands; `db` is the loop thread's read connection and must
 * outlive the ctl. */
int queries_register(struct ctl *ctl, sqlite3 *db);

#endif
