/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_sls.c: the SLs and VLs of loom's paths as the plugin
 * gives them: the SL2VL map it has OpenSM program on each port for VL
 * layers (losm_port_sl2vl, osm_engine.c's update_sl2vl), and the SL file
 * (lib/route/route_sl2vl.h): after each
 * successful run of a loom engine, the SL that path_sl (osm_engine.c) gives
 * every path, for class 0 (SL = layer, or loom's ib_qos layered SL of the
 * layer), is written next to loomd's report socket as "SOCKET.sls", where
 * `loomctl route check` reads it to judge the tables read back per VL (the
 * SLs are the SA's answers, on no switch; a PathRecord per pair would be
 * O(n^2)). Written to a temporary name and renamed, so a reader sees a
 * whole file, the old one or the new; a failed run, or one on one layer,
 * removes it (the SLs are then OpenSM's own). Runs on OpenSM's routing thread:
 * one byte per (switch with CAs, LID), 8 MB at 11664 hosts.
 *
 * Also the SL2VL tables the run report judges its tables with (report.c):
 * what update_sl2vl will have OpenSM program on every switch port once the
 * run is done (the physp tables OpenSM holds when the report is made are
 * the previous run's), through the same losm_port_sl2vl, so a port with
 * fewer VLs than the layers need (its SLs wrapped) shows as the credit loop
 * it makes. */
#include "autoconf.h"
#include "loomosm.h"
#include "osm_vls.h"

#include <errno.h>
#include <inttypes.h>
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

/* The SL2VL map of one port (for a switch: of every pair in_port -> this
 * output port) for tables of n_vls layers. With loom's ib_qos policy in
 * force, the layered map of lib/qos/ib_qos.h; otherwise SL s on VL s, the
 * identity the engines assume. Beyond the port's lanes SLs wrap around them
 * (traffic flows, but deadlock freedom on that port is lost: said once in
 * the log when warn). 0 with map[] filled; -1 for one layer (engines with
 * one VL leave OpenSM's QoS map as it is). */
int losm_port_sl2vl(struct losm_engine *e, unsigned n_vls, osm_physp_t *port,
		    uint8_t map[IBQOS_SLS], int warn)
{
	unsigned lanes, op, need;
	int layered;
	struct losm_qos q;

	if (n_vls <= 1)
		return -1;
	losm_qos_get(e->plugin, &q);
	layered = losm_qos_layered(&q, n_vls);
	if (layered) {
		ibqos_layered_sl2vl(q.class_map, n_vls, map);
		need = n_vls * ibqos_class_vls(q.class_map, ibqos_layer_sls(n_vls));
	} else {
		for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
			map[sl] = (uint8_t)sl;
		need = n_vls;
		if (warn && q.active && !e->warned_qos) {
			e->warned_qos = 1;
			OSM_LOG(&e->plugin->osm->log, OSM_LOG_ERROR,
				"ERR LOOM05: loom engine %s needs %u VL layers and loom's ib_qos "
				"classes cannot share the VLs with them (see loomctl qos status "
				"--ib): paths keep SL = layer, the classes are not applied\n",
				e->name, n_vls);
		}
	}
	lanes = losm_vls(ib_port_info_get_vl_cap(&port->port_info));
	op = losm_vls(ib_port_info_get_op_vls(&port->port_info));
	if (op && op < lanes)
		lanes = op;
	if (lanes == 0)
		lanes = 1;
	if (warn && lanes < need && !e->warned_vls) {
		e->warned_vls = 1;
		OSM_LOG(&e->plugin->osm->log, OSM_LOG_ERROR,
			"ERR LOOM03: loom engine %s needs %u VLs, port %u of 0x%016" PRIx64
			" runs %u: its paths are not deadlock-free there\n", e->name, need,
			osm_physp_get_port_num(port),
			cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(port))), lanes);
	}
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		map[sl] = layered && map[sl] == IBQOS_VL_DROP ? IBQOS_VL_DROP :
			  (uint8_t)(map[sl] % lanes);
	return 0;
}

struct rt_sl2vl *losm_sl2vl_tables(struct losm_engine *e, const struct losm_result *r)
{
	osm_opensm_t *osm = e->plugin->osm;
	const struct rt_graph *g = r->g;
	struct sl_ctx c = { 0, r->l->n_vls ? r->l->n_vls : 1 };
	struct rt_sl2vl *t;
	struct losm_qos q;

	if (!r->l->sl || c.n_vls <= 1 || !osm->subn.opt.qos || !(t = rt_sl2vl_new(g)))
		return NULL;
	losm_qos_get(e->plugin, &q);
	c.layered = losm_qos_layered(&q, c.n_vls);
	for (size_t s = 0; s < g->n_sw; s++) {
		osm_switch_t *sw = osm_get_switch_by_guid(&osm->subn, cl_hton64(g->sw[s].guid));

		for (unsigned o = 1; sw && o <= g->sw[s].nports; o++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(sw->p_node, o);
			uint8_t map[16], by_layer[16];

			if (rt_graph_port(g, s, o)->kind != RT_PEER_SWITCH || !ph ||
			    losm_port_sl2vl(e, c.n_vls, ph, map, 0) < 0)
				continue;
			for (unsigned l = 0; l < 16; l++)
				by_layer[l] = map[layer_sl(&c, (uint8_t)l) & 15];
			for (unsigned in = 0; in <= g->sw[s].nports; in++)
				(void)rt_sl2vl_set(t, s, in, o, by_layer);
		}
	}
	return t;
}

void losm_sls_write(struct losm_engine *e, const struct losm_result *r, const char *socket)
{
	osm_opensm_t *osm = e->plugin->osm;
	struct sl_ctx c = { 0, r && r->l->n_vls ? r->l->n_vls : 1 };
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 8], tmp[sizeof(path) + 8];
	struct losm_qos q;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s.sls", socket);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!r || !r->l->sl || c.n_vls <= 1) {
		/* A failed run (OpenSM's next engine routes), or one layer:
		 * path_sl then hands out OpenSM's own SL (a partition's sl=, a
		 * QoS level), which the plugin does not know. */
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
