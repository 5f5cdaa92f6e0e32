/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_sls.c: the SL file (lib/route/route_sl2vl.h): after each
 * successful run of a loom engine, the SL that path_sl (osm_engine.c) gives
 * every path, for class 0 (SL = layer, or loom's ib_qos layered SL of the
 * layer), is written next to loomd's report socket as "SOCKET.sls", where
 * `loomctl route check` reads it to judge the tables read back per VL (the
 * SLs are the SA's answers, on no switch; a PathRecord per pair would be
 * O(n^2)). Written to a temporary name and renamed, so a reader sees a
 * whole file, the old one or the new; a failed run removes it (OpenSM's
 * next engine gives other SLs). Runs on OpenSM's routing thread:
 * one byte per (switch with CAs, LID), 8 MB at 11664 hosts. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "lib/qos/ib_qos.h"
#include "lib/route/route_sl2vl.h"

struct sl_ctx {
	int layered;
	unsigned n_vls;
};

static uint8_t layer_sl(void *ctx, uint8_t layer)
{
	const struct sl_ctx *c = ctx;

	return c->layered ? ibqos_layered_sl(layer, c->n_vls, 0) : layer;
}

void losm_sls_write(struct losm_engine *e, const struct losm_result *r)
{
	osm_opensm_t *osm = e->plugin->osm;
	struct sockaddr_un to;
	struct sl_ctx c = { 0, r && r->l->n_vls ? r->l->n_vls : 1 };
	char path[sizeof(to.sun_path) + 8], tmp[sizeof(path) + 8];
	struct losm_qos q;
	FILE *f;
	int rc;

	if (losm_report_socket(e->plugin->report, &to) < 0)
		return;  /* no loomd to read it */
	snprintf(path, sizeof(path), "%s.sls", to.sun_path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!r) {  /* the run failed: OpenSM's next engine routes, SLs unknown */
		remove(path);
		return;
	}
	if (r->l->sl && c.n_vls > 1) {
		losm_qos_get(e->plugin, &q);
		c.layered = losm_qos_layered(&q, c.n_vls);
	}
	if (!(f = fopen(tmp, "we"))) {
		OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "loom engine %s: cannot write %s: %s\n",
			e->name, tmp, strerror(errno));
		return;
	}
	rc = rt_sls_write(r->g, r->l, layer_sl, &c, f);
	if (fclose(f) != 0)
		rc = -EIO;
	if (rc == 0 && rename(tmp, path) == 0)
		return;
	OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM12: loom engine %s: the SL file %s could "
		"not be written (%s): route check judges every path on SL 0\n", e->name, path,
		strerror(rc < 0 ? -rc : errno));
	remove(tmp);
}
