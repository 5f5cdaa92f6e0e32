/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_graph.c: the adapter between OpenSM's subnet and loom's
 * graph: OpenSM's nodes, ports, LIDs and cables into a struct fab (which
 * rt_graph_new turns into a routing graph), and the engine's tables back
 * into each switch's new_lft. Runs on OpenSM's sweeper thread, under its
 * exclusive lock, so the subnet does not move while it is read. */
#include "autoconf.h"
#include "loomosm.h"
#include "osm_vls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"

/* OpenSM's node types are IB's NodeInfo:NodeType, as are loom's. */
static int node_type(const osm_node_t *n)
{
	switch (osm_node_get_type(n)) {
	case IB_NODE_TYPE_CA:
		return IBT_NODE_CA;
	case IB_NODE_TYPE_SWITCH:
		return IBT_NODE_SWITCH;
	case IB_NODE_TYPE_ROUTER:
		return IBT_NODE_ROUTER;
	default:
		return IBT_NODE_UNKNOWN;
	}
}

/* A node's ports as loom keeps them: present, GUID, base LID, LMC, peer.
 * A CA port without a LID (OpenSM has not given it one yet) keeps its peer
 * out of the graph: rt_graph_new would otherwise number every LID itself. */
static void fill_ports(struct fab_node *fn, osm_node_t *n, int is_switch)
{
	for (unsigned p = is_switch ? 0 : 1; p <= fn->nports && p < n->physp_tbl_size; p++) {
		osm_physp_t *ph = osm_node_get_physp_ptr(n, p);
		osm_physp_t *rp;
		struct fab_port *fp = &fn->ports[p];

		if (!ph)
			continue;
		fp->present = 1;
		fp->guid = cl_ntoh64(osm_physp_get_port_guid(ph));
		if (!is_switch || p == 0) {
			/* A switch's external ports report port 0's LID, or
			 * nothing: only port 0 holds it. */
			fp->lid = cl_ntoh16(osm_physp_get_base_lid(ph));
			fp->lmc = osm_physp_get_lmc(ph);
		} else {
			fp->lid = cl_ntoh16(osm_node_get_base_lid(n, 0));
		}
		fp->state = osm_physp_get_port_state(ph);
		fp->vls = (uint8_t)losm_vls(ib_port_info_get_vl_cap(&ph->port_info));
		rp = p ? osm_physp_get_remote(ph) : NULL;
		if (!rp || !osm_physp_is_valid(rp) || (!is_switch && fp->lid == 0))
			continue;
		fp->has_peer = 1;
		fp->peer_port = osm_physp_get_port_num(rp);
		fp->peer_guid = cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(rp)));
	}
}

struct fab *losm_fabric_from_subnet(osm_subn_t *subn, char *err, size_t errlen)
{
	struct fab *fab = fab_new("opensm");
	cl_qmap_t *tbl = &subn->node_guid_tbl;

	if (!fab) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
		osm_node_t *n = (osm_node_t *)it;
		int type = node_type(n);
		struct fab_node *fn;

		if (type == IBT_NODE_UNKNOWN)
			continue;
		/* A switch without a LID cannot be named in anyone's table:
		 * leave it out (its cables then lead nowhere), rather than let
		 * rt_graph_new renumber the whole subnet. */
		if (type == IBT_NODE_SWITCH && osm_node_get_base_lid(n, 0) == 0)
			continue;
		fn = fab_add_node(fab, type, cl_ntoh64(osm_node_get_node_guid(n)),
				  n->node_info.num_ports);
		if (!fn) {
			snprintf(err, errlen, "node 0x%016llx: %s",
				 (unsigned long long)cl_ntoh64(osm_node_get_node_guid(n)),
				 strerror(errno));
			fab_free(fab);
			return NULL;
		}
		memcpy(fn->desc, n->node_desc.description, FAB_DESC_LEN);
		fn->desc[FAB_DESC_LEN] = '\0';
		fn->sysimg_guid = cl_ntoh64(n->node_info.sys_guid);
		fn->vendor_id = cl_ntoh32(ib_node_info_get_vendor_id(&n->node_info));
		fn->device_id = cl_ntoh16(n->node_info.device_id);
		fill_ports(fn, n, type == IBT_NODE_SWITCH);
	}
	return fab;
}

uint16_t *losm_base_lids(osm_subn_t *subn, uint16_t *max_lid)
{
	cl_qmap_t *tbl = &subn->port_guid_tbl;
	unsigned max = 0;
	uint16_t *base;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		unsigned lid = cl_ntoh16(osm_port_get_base_lid(port));
		unsigned last = lid + (1u << osm_port_get_lmc(port)) - 1;

		if (lid && last > max)
			max = last;
	}
	if (max > IB_LID_UCAST_END_HO)
		max = IB_LID_UCAST_END_HO;
	base = calloc((size_t)max + 1, sizeof(*base));
	if (!base)
		return NULL;
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		unsigned lid = cl_ntoh16(osm_port_get_base_lid(port));
		unsigned n = 1u << osm_port_get_lmc(port);

		for (unsigned k = 0; lid && k < n && lid + k <= max; k++)
			base[lid + k] = (uint16_t)lid;
	}
	*max_lid = (uint16_t)max;
	return base;
}

int losm_write_lfts(osm_subn_t *subn, const struct rt_graph *g, const struct rt_lfts *l,
		    const uint16_t *base_lid, uint16_t max_lid, char *err, size_t errlen)
{
	for (size_t i = 0; i < g->n_sw; i++) {
		osm_switch_t *sw = osm_get_switch_by_guid(subn, cl_hton64(g->sw[i].guid));

		if (!sw) {
			snprintf(err, errlen, "switch 0x%016llx left the subnet during routing",
				 (unsigned long long)g->sw[i].guid);
			return -ENOENT;
		}
		/* Every entry is written, so that nothing an engine tried before
		 * this one (OpenSM calls them in turn) survives. */
		for (unsigned lid = 1; lid <= sw->max_lid_ho; lid++) {
			unsigned b = lid <= max_lid ? base_lid[lid] : 0;
			uint8_t port = OSM_NO_PATH;

			if (b && (rt_graph_lid_switch(g, b) >= 0 || rt_graph_lid_ca(g, b) >= 0))
				port = rt_lfts_get(l, i, b);
			sw->new_lft[lid] = port;
		}
	}
	return 0;
}
