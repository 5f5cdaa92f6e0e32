/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/queries.h: the read-only fabric commands of the control socket
 * (nodes, node, ports, links, events, switches, find), answered from the database through
 * lib/db/db_query.h, exactly as loomctl --db answers them on a stopped daemon. */
#ifndef LOOMD_QUERIES_H
#define LOOMD_QUERIES_H

#include <stddef.h>
#include <sqlite3.h>

struct ctl;
struct event_base;
struct queries;

/* Register the commands; `db` is the loop thread's connection (its file is
 * opened again, read-only, for the queries, which run off the loop) and
 * must outlive the queries. NULL with the reason in err. */
struct queries *queries_new(struct event_base *base, struct ctl *ctl, sqlite3 *db,
			    char *err, size_t errlen);
/* find's host rule (tenants.host_pattern and host_map): at start, and on
 * reload. */
struct hostmap_rule;
void queries_set_hosts(struct queries *q, const struct hostmap_rule *hosts);
/* Waits for the queries under way, which answer; before ctl_free. */
void queries_free(struct queries *q);

#endif
