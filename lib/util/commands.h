/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/commands.h: the one list of loom's commands (issue 38). Each is
 * declared once, here: its name in the control protocol, who may run it,
 * the arguments it takes (cmds_args.h), loomctl's synopsis and a paragraph
 * of help, its REST routes where it has any, and whether `loomctl --db`
 * answers it from the database. Everything else reads this table:
 * daemon/core/ctl (the socket: a module only hands in the handler of a
 * declared name), daemon/http/api.c (the routes under /api/v1), loomctl's
 * usage and `loomctl help`, and cli/local.c (--db). Entries that are
 * loomctl's alone (offline, or built on other commands) are declared too,
 * for the usage, and marked so: loomd never answers them.
 *
 * Plain data, usable by any process: no socket, no daemon. */
#ifndef LOOM_COMMANDS_H
#define LOOM_COMMANDS_H

#include <stddef.h>

#include "lib/util/cmds_args.h"

/* Who may run a command (daemon/core/authz.h maps roles onto these). */
enum cmds_access {
	CMDS_READ,     /* any local user, API role read */
	CMDS_WRITE,    /* root, control.admin_group, API role admin */
	CMDS_TENANT,   /* also tenants.users/groups, API role tenant */
};

/* What an entry is (flags). */
enum {
	CMDS_LOOMD = 1 << 0,    /* loomd answers it: a module must hand in its handler */
	CMDS_DB = 1 << 1,       /* loomctl --db answers it from the database (cli/local_run.c) */
	CMDS_LOOMCTL = 1 << 2,  /* loomctl's alone (offline, or through other commands):
				 * in the usage, never a protocol command */
};

/* An HTTP method of a route. */
enum cmds_method {
	CMDS_HTTP_NONE,   /* no route */
	CMDS_HTTP_GET,
	CMDS_HTTP_POST,
	CMDS_HTTP_DELETE,
};

/* How a route's request becomes the command's arguments (flags). */
enum {
	CMDS_R_LIST = 1 << 0,   /* the result is an array: ?limit=&offset= pages it */
	CMDS_R_BODY = 1 << 1,   /* the arguments come from the JSON body */
	CMDS_R_JOB = 1 << 2,    /* long: 202 and a job to poll */
};

/* A REST route under /api/v1/ (docs/api.md). */
struct cmds_route {
	enum cmds_method method;
	const char *path;      /* under /api/v1/; "{}" is one segment */
	const char *seg_arg;   /* the argument "{}" becomes */
	const char *query;     /* a GET's query parameters: argument names separated by
				* spaces, typed as the arguments are; NULL none */
	unsigned flags;        /* CMDS_R_* */
	const char *fixed;     /* arguments always given (JSON), or NULL */
};
#define CMDS_ROUTES_MAX 2

struct cmds_decl {
	const char *name;               /* the protocol's; a CMDS_LOOMCTL entry's own key */
	unsigned flags;                 /* CMDS_LOOMD, CMDS_DB, CMDS_LOOMCTL */
	enum cmds_access access;
	const struct cmds_arg *args;    /* ended by CMDS_ARG_END */
	const char *usage;              /* loomctl's synopsis; "\n" continues it */
	const char *help;               /* one paragraph, unwrapped; "" none */
	struct cmds_route http[CMDS_ROUTES_MAX];   /* method CMDS_HTTP_NONE: no more */
};

/* The table, in loomctl's usage order, ended by an entry with a NULL name. */
const struct cmds_decl *cmds_table(void);
/* The entry of table (ended by a NULL name) called name, or NULL. */
const struct cmds_decl *cmds_find(const struct cmds_decl *table, const char *name);

#endif
