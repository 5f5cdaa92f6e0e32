/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/names.c: see names.h. The map is written on the loop's
 * connection: once at start and once per reload, one savepoint of a row
 * per mapped node (a few ms for ten thousand lines), as the OpenSM reports
 * are. */
#include "autoconf.h"
#include "daemon/fabric/names.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/core/store.h"
#include "daemon/fabric/config_names.h"
#include "lib/db/names_db.h"
#include "lib/fabric/nodename.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

struct names_mod {
	struct store *store;
	struct nodename_map *map;     /* NULL: none configured */
};

/* conf's map into *out (NULL for none) and the database: 0 or -errno. */
static int load(struct names_mod *m, const struct names_conf *conf, struct nodename_map **out,
		char *err, size_t errlen)
{
	const char *path = conf->names_node_name_map;
	double t0 = clock_wall();
	int rc;

	*out = NULL;
	if (path[0] && (rc = nodename_map_read(path, out, err, errlen)) < 0)
		return rc;
	if ((rc = names_db_store(store_db(m->store), *out, err, errlen)) < 0) {
		nodename_map_free(*out);
		*out = NULL;
		return rc;
	}
	if (path[0])
		log_info("names: %zu node names from %s (stored in %.0f ms)",
			 nodename_map_count(*out), path, (clock_wall() - t0) * 1e3);
	return 0;
}

struct names_mod *names_new(const struct names_conf *conf, struct store *st, char *err,
			    size_t errlen)
{
	struct names_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->store = st;
	if (load(m, conf, &m->map, err, errlen) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

int names_reconfigure(struct names_mod *m, const struct names_conf *conf)
{
	struct nodename_map *map;
	char err[1024];
	int rc;

	if ((rc = load(m, conf, &map, err, sizeof(err))) < 0) {
		log_err("reload: names.node_name_map: %s; the names in force stay", err);
		return rc;
	}
	nodename_map_free(m->map);
	m->map = map;
	return 0;
}

struct nodename_map *names_map(const struct names_mod *m)
{
	return m ? m->map : NULL;
}

void names_free(struct names_mod *m)
{
	if (!m)
		return;
	nodename_map_free(m->map);
	free(m);
}
