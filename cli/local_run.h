/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/local_run.h: the runners of loomctl --db, one per command that
 * lib/util/commands.c marks CMDS_DB (tests/unit/lib/util/test_commands.c holds the
 * two lists equal): each answers from the database what loomd would, with
 * the daemon's arguments and results (the same lib/db calls). Pure: no
 * output, no loomctl state. */
#ifndef LOOMCTL_LOCAL_RUN_H
#define LOOMCTL_LOCAL_RUN_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

struct local_runner {
	const char *cmd;
	/* 0 with *out, or -errno with err (-ENOENT not found, -EINVAL bad
	 * request). db_path: the database's name, for status. */
	int (*run)(sqlite3 *db, const char *db_path, json_t *args, json_t **out, char *err,
		   size_t errlen);
};

/* The runners, ended by one with a NULL cmd. */
const struct local_runner *local_runners(void);
/* cmd's runner, or NULL. */
const struct local_runner *local_runner_find(const char *cmd);

#endif
