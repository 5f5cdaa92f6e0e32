/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_commands.c: see db_commands.h. */
#include "autoconf.h"
#include "lib/db/db_commands.h"

#include <string.h>

#include "lib/db/db_query.h"
#include "lib/db/find_db.h"

static int run_nodes(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		     size_t errlen)
{
	return dbq_nodes(db, a->s, out, err, errlen);
}

static int run_node(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		    size_t errlen)
{
	return dbq_node(db, a->s, out, err, errlen);
}

static int run_ports(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		     size_t errlen)
{
	return dbq_ports(db, a->s, out, err, errlen);
}

static int run_links(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		     size_t errlen)
{
	(void)a;
	return dbq_links(db, out, err, errlen);
}

static int run_events(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		      size_t errlen)
{
	return dbq_events(db, a->since, a->s, a->limit, out, err, errlen);
}

static int run_switches(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
			size_t errlen)
{
	return dbq_switches(db, a->s, out, err, errlen);
}

static int run_find(sqlite3 *db, const struct dbq_args *a, json_t **out, char *err,
		    size_t errlen)
{
	return find_db(db, a->s, a->limit, a->host_pattern, a->host_map, out, err, errlen);
}

static const struct dbq_command commands[] = {
	{ "nodes", "type", run_nodes },
	{ "node", "id", run_node },
	{ "ports", "node", run_ports },
	{ "links", NULL, run_links },
	{ "events", "kind", run_events },
	{ "switches", "name", run_switches },
	{ "find", "q", run_find },
};

const struct dbq_command *dbq_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void dbq_args_from_json(const struct dbq_command *c, const json_t *args, struct dbq_args *a)
{
	json_t *since = json_object_get(args, "since"), *limit = json_object_get(args, "limit");

	memset(a, 0, sizeof(*a));
	if (c->key)
		a->s = json_string_value(json_object_get(args, c->key));
	a->since = json_is_number(since) ? json_number_value(since) : 0;
	a->limit = json_is_integer(limit) ? (long)json_integer_value(limit) : 0;
}
