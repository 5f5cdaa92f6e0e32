/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/local.c: loomctl --db: a command answered straight from a database,
 * without a daemon: exactly the commands lib/util/commands.c marks CMDS_DB,
 * each by its runner (local_run.h); any other "needs a running loomd". */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <stdio.h>

#include "lib/db/db_query.h"
#include "lib/util/commands.h"
#include "lib/util/proto.h"
#include "lib/db/names_db.h"
#include "local_run.h"

int local_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result)
{
	const struct cmds_decl *d = cmds_find(cmds_table(), cmd);
	const struct local_runner *r = local_runner_find(cmd);
	char err[1024] = "";
	struct nodename_map *names;
	sqlite3 *db;
	int rc;

	if (!(db = dbq_open_readonly(lc->db_path, err, sizeof(err)))) {
		loomctl_error(lc, "%s", err);
		json_decref(args);
		return -EIO;
	}
	/* nodes named by --node-name-map, else by the map loomd stored */
	if ((rc = loomctl_names(lc, &names)) < 0) {
		sqlite3_close(db);
		json_decref(args);
		return rc;
	}
	rc = names_db_shadow(db, names, err, sizeof(err));
	nodename_map_free(names);
	if (rc == 0 && d && (d->flags & CMDS_DB) && r) {
		rc = r->run(db, lc->db_path, args, result, err, sizeof(err));
	} else if (rc == 0) {
		snprintf(err, sizeof(err), "\"%s\" needs a running loomd", cmd);
		rc = -ENOTSUP;
	}
	sqlite3_close(db);
	json_decref(args);
	if (rc < 0) {
		/* The daemon's error codes, so messages read the same. */
		loomctl_error(lc, "%s: %s",
			      rc == -ENOENT ? PROTO_ERR_NOTFOUND :
			      rc == -EEXIST || rc == -EINVAL ? PROTO_ERR_BADREQ :
			      rc == -ENOTSUP ? PROTO_ERR_UNKNOWN : PROTO_ERR_INTERNAL, err);
		return rc;
	}
	return 0;
}
