/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_commands.h: the read commands a database answers by itself,
 * named once with the argument each takes: loomd's fabric queries
 * (daemon/fabric/queries.c, off its loop) and loomctl --db (cli/local_run.c)
 * both run them from this table, so the two cannot answer differently.
 * The daemon checks the arguments' types before (cmds_args.h); the
 * values each command refuses (an unknown node type, an unknown event
 * kind) are refused by the query itself, the same either way. */
#ifndef LOOM_DB_COMMANDS_H
#define LOOM_DB_COMMANDS_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

/* A command's arguments: its one string argument (`key`), NULL when not
 * given; events' since (unix seconds, 0 none) and limit (0 none); find's
 * host rule (tenants.host_pattern and host_map: NULL, the first word of a
 * CA's description and no map). */
struct dbq_args {
	const char *s;
	double since;
	long limit;
	const char *host_pattern, *host_map;
};

struct dbq_command {
	const char *name;       /* "nodes", "node", "ports", "links", "events", "switches", "find" */
	const char *key;        /* its string argument, NULL: none */
	int (*run)(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		   size_t errlen);
};

/* The command called name, or NULL. */
const struct dbq_command *dbq_command_find(const char *name);
/* The arguments of c from a request's JSON arguments (pointers into args:
 * valid while it is). */
void dbq_args_from_json(const struct dbq_command *c, const json_t *args, struct dbq_args *a);

#endif
