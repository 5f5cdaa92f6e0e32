/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/config_opensm.c: loom.yaml's `opensm:` section: where
 * libloomosm.so inside OpenSM sends its reports (daemon/routing/
 * osm_report.c); it must equal OpenSM's LOOMOSM_SOCKET. And the threads of
 * loomd's own routing work (route check's metrics, routes.c); OpenSM's
 * plugin takes its count from LOOMOSM_THREADS in OpenSM's environment. And
 * whether loomd reads the forwarding tables back after OpenSM changes them
 * (routes_tables_changed), so that what uses the stored tables (job impact,
 * health's jobs, route check --cached) follows a reroute. */
#include "autoconf.h"
#include "daemon/routing/config_opensm.h"

#include "daemon/core/config_parse.h"

#define CFG_SECTION_TYPE struct opensm_conf

static const struct cfg_key opensm_keys[] = {
	CFG_KEY_STR("report_socket", CFG_SOCKET, osm_socket_path, LOOM_DEFAULT_OSM_SOCKET),
	CFG_KEY_INT("threads", routing_threads, 1, 64, 1, 0),
	CFG_KEY_BOOL("read_tables", osm_read_tables, 0),
};

const struct opensm_conf *opensm_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &osm_report_config);
}

/* loomd's start binds the report socket (loomd -n). */
static int check_host_opensm(const struct loom_config *conf, const void *sec, char *err,
			     size_t errlen)
{
	const struct opensm_conf *c = sec;

	return cfg_host_socket(conf, "opensm", "report_socket", c->osm_socket_path, err, errlen);
}

static void opensm_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	add(ctx, "opensm.report_socket", ((const struct opensm_conf *)sec)->osm_socket_path,
	    CFG_WRITE_REPLACE);
}

const struct config_section osm_report_config = {
	.name = "opensm", .size = sizeof(struct opensm_conf), .keys = opensm_keys,
	.n_keys = sizeof(opensm_keys) / sizeof(opensm_keys[0]), .check_host = check_host_opensm,
	.written = opensm_written,
};
