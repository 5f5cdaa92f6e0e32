/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_engine.c: the routing engine callbacks OpenSM calls for
 * each of loom's engines: route the subnet (ucast_build_fwd_tables), then,
 * for engines that break deadlocks with virtual lanes, the SL of each path
 * (path_sl) and the SL-to-VL maps of every port (update_sl2vl).
 *
 * Return values follow OpenSM 3.3.23's ucast_mgr_route(): 0 = tables are in
 * new_lft, < 0 = this engine failed and OpenSM tries the next one in its
 * routing_engine list (then its default, minhop). Nothing here waits on
 * anything outside OpenSM: a slow callback stalls the whole sweep. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>

#include "lib/fabric/fabric.h"
#include "lib/qos/ib_qos.h"

void losm_result_free(struct losm_result *r)
{
	/* holds counts the holders beyond the first: 0 means this is the
	 * last one. */
	if (!r || atomic_fetch_sub(&r->holds, 1) > 0)
		return;
	rt_lfts_free(r->l);
	rt_graph_free(r->g);
	free(r->base_lid);
	free(r);
}

struct losm_result *losm_result_hold(struct losm_result *r)
{
	atomic_fetch_add(&r->holds, 1);
	return r;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The SL file next to loomd's report socket, if there is one (osm_sls.c). */
static void sls_write(struct losm_engine *e, const struct losm_result *r)
{
	struct sockaddr_un to;

	if (losm_report_socket(e->plugin->report, &to) >= 0)
		losm_sls_write(e, r, to.sun_path);
}

/* Keep r as the engine's current tables (NULL: it has none), freeing the
 * previous ones. SA threads read them in path_sl, hence the lock. */
static void set_last(struct losm_engine *e, struct losm_result *r)
{
	struct losm_result *old;

	pthread_mutex_lock(&e->lock);
	old = e->last;
	e->last = r;
	pthread_mutex_unlock(&e->lock);
	losm_result_free(old);
}

/* Route the subnet with the engine: OpenSM's subnet -> loom's graph ->
 * engine -> new_lft of every switch. */
static int build_fwd_tables(void *context)
{
	struct losm_engine *e = context;
	osm_opensm_t *osm = e->plugin->osm;
	struct losm_result *r = calloc(1, sizeof(*r));
	struct fab *fab = NULL;
	struct timespec t0;
	char err[256] = "out of memory";
	double secs, t_read = 0, t_route = 0;
	int rc = -ENOMEM;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	e->runs++;
	if (!r)
		goto fail;
	fab = losm_fabric_from_subnet(&osm->subn, err, sizeof(err));
	if (!fab)
		goto fail;
	/* loomd's isolated links (issue 42): out of the graph as if cut, so
	 * that every engine, and the incremental reroute, routes around them. */
	r->iso_links = losm_isolated_apply(e->plugin->isolated, fab, e->name);
	r->iso_version = losm_isolated_version(e->plugin->isolated);
	r->g = rt_graph_new(fab, err, sizeof(err));
	fab_free(fab);
	if (!r->g)
		goto fail;
	if (r->g->lids_assigned) {
		/* Cannot happen (ports without LIDs are left out), but tables
		 * for LIDs of loom's own numbering would be worse than none. */
		snprintf(err, sizeof(err), "the subnet has ports without LIDs");
		rc = -EINVAL;
		goto fail;
	}
	r->l = rt_lfts_new(r->g);
	r->base_lid = losm_base_lids(&osm->subn, &r->max_lid);
	if (!r->l || !r->base_lid) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	t_read = elapsed(&t0);
	/* Cables cut since the last run of a fat-tree engine: only the
	 * destinations that crossed them are routed again
	 * (lib/route/route_reroute.c); anything else, a full run. The plugin's
	 * threads are for this run only: the report's metrics read the graph
	 * later, on a thread of their own. */
	rc = -EAGAIN;
	if (e->last && e->incremental) {
		struct rt_reroute_stats st;
		char why[200];

		rc = rt_reroute(e->last->g, e->last->l, r->g, r->l, &st, why, sizeof(why));
		if (rc < 0)
			OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "loom engine %s: a full run (%s)\n",
				e->name, why);
	}
	if (rc < 0) {
		r->g->pool = e->plugin->pool;
		memset(r->l->port, RT_NO_PORT, r->l->n_sw * ((size_t)r->l->max_lid + 1));
		rc = e->eng->route(r->g, r->l, err, sizeof(err));
		r->g->pool = NULL;
		if (rc < 0)
			goto fail;
	}
	t_route = elapsed(&t0) - t_read;
	rc = losm_write_lfts(&osm->subn, r->g, r->l, r->base_lid, r->max_lid, err, sizeof(err));
	if (rc < 0)
		goto fail;
	secs = elapsed(&t0);

	/* The parts: OpenSM's subnet read into loom's graph, the engine (or
	 * the reroute), the tables written into OpenSM's new_lft. */
	OSM_LOG(&osm->log, OSM_LOG_INFO,
		"loom engine %s routed %zu switches, %zu CA ports in %.2f ms (subnet read %.1f, "
		"routing %.1f, tables written %.1f ms): "
		"%zu entries routed, %zu unreachable, %u VL%s%s%s\n",
		e->name, r->g->n_sw, r->g->n_ca, secs * 1e3, t_read * 1e3, t_route * 1e3,
		(secs - t_read - t_route) * 1e3, r->l->n_routed, r->l->n_unreachable,
		r->l->n_vls ? r->l->n_vls : 1, r->l->n_vls > 1 ? "s" : "",
		r->l->note[0] ? "; " : "", r->l->note);
	if (r->l->n_vls > 1 && !osm->subn.opt.qos)
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR LOOM02: loom engine %s spreads paths over %u VLs, but qos is "
			"FALSE: OpenSM will not program SL2VL maps, so the paths are not "
			"deadlock-free (set qos TRUE)\n", e->name, r->l->n_vls);
	/* To loomd (report.c): returns at once, the metrics of the tables are
	 * computed on another thread. */
	losm_report_run(e, r, secs, NULL);
	sls_write(e, r);
	set_last(e, r);
	return 0;

fail:
	e->failures++;
	OSM_LOG(&osm->log, OSM_LOG_ERROR,
		"ERR LOOM01: loom engine %s failed after %.2f ms (%s): %s; "
		"OpenSM goes on with its next routing engine\n",
		e->name, elapsed(&t0) * 1e3, strerror(-rc), err);
	losm_report_run(e, r, elapsed(&t0), err);
	sls_write(e, NULL);
	losm_result_free(r);
	set_last(e, NULL);
	return -1;
}

/* The SL of the path slid -> dlid: the layer the engine chose for paths
 * that enter the fabric at the source's switch toward dlid's base LID, with
 * the class in it when loom's ib_qos policy is in force (osm_qos.c: SL =
 * layer * K + the hint). On one VL (no layers, or dfsssp needing one), or
 * for LIDs the engine did not see, OpenSM's hint (the partition's sl=, the
 * QoS policy) stands. */
static uint8_t path_sl(void *context, uint8_t hint, const ib_net16_t slid,
		       const ib_net16_t dlid)
{
	struct losm_engine *e = context;
	unsigned s = cl_ntoh16(slid), d = cl_ntoh16(dlid), n_vls = 0;
	uint8_t sl = hint;
	int layer = -1;
	struct losm_result *r;

	pthread_mutex_lock(&e->lock);
	r = e->last;
	if (r && r->l->sl && r->l->n_vls > 1 && s <= r->max_lid && d <= r->max_lid) {
		unsigned sb = r->base_lid[s], db = r->base_lid[d];
		int32_t sw = rt_graph_lid_switch(r->g, sb);

		if (sw < 0) {
			int32_t ca = rt_graph_lid_ca(r->g, sb);

			sw = ca >= 0 ? r->g->ca[ca].sw : -1;
		}
		if (sw >= 0 && (rt_graph_lid_switch(r->g, db) >= 0 || rt_graph_lid_ca(r->g, db) >= 0)) {
			layer = rt_lfts_sl(r->l, (size_t)sw, db);
			n_vls = r->l->n_vls;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (layer >= 0) {
		struct losm_qos q;

		losm_qos_get(e->plugin, &q);
		sl = losm_qos_layered(&q, n_vls) ? ibqos_layered_sl((unsigned)layer, n_vls, hint)
						 : (uint8_t)layer;
		if (losm_qos_layered(&q, n_vls) && hint >= ibqos_layer_sls(n_vls) &&
		    !atomic_exchange(&e->warned_hint, 1))
			OSM_LOG(&e->plugin->osm->log, OSM_LOG_ERROR,
				"ERR LOOM06: loom engine %s: a path asks for SL %u (its partition's "
				"sl= or QoS level), but with %u VL layers each layer has SLs 0-%u "
				"for classes: it is given SL 0's class (said once)\n", e->name,
				hint, n_vls, ibqos_layer_sls(n_vls) - 1);
	}
	return sl;
}

/* The layers of the engine's current tables (0: none, or one). */
static unsigned current_layers(struct losm_engine *e)
{
	unsigned n;

	pthread_mutex_lock(&e->lock);
	n = e->last && e->last->l->sl ? e->last->l->n_vls : 0;
	pthread_mutex_unlock(&e->lock);
	return n;
}

/* OpenSM's QoS setup asks (qos TRUE only): losm_port_sl2vl's map. */
static void update_sl2vl(void *context, osm_physp_t *port, uint8_t in_port,
			 uint8_t out_port, ib_slvl_table_t *t)
{
	struct losm_engine *e = context;
	uint8_t map[IBQOS_SLS];

	(void)in_port;
	(void)out_port;
	if (losm_port_sl2vl(e, current_layers(e), port, map, 1) < 0)
		return;
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		ib_slvl_table_set(t, (uint8_t)sl, map[sl]);
}

/* One block of a port's VLArbitration table (blocks 0, 1: low priority;
 * 2, 3: high), as OpenSM filled it from the policy: with loom's policy in
 * force and layers, the first block of each table gets every weighted
 * entry once per layer (lib/qos/ib_qos.h), the second is cleared (loomd refuses
 * policies whose expansion would not fit one block). */
static void update_vlarb(void *context, osm_physp_t *port, uint8_t port_num,
			 ib_vl_arb_table_t *block, unsigned block_length, unsigned block_num)
{
	struct losm_engine *e = context;
	unsigned n_vls = current_layers(e), v, n;
	struct ibqos_entry t[IBQOS_VLARB_LAYERED];
	struct losm_qos q;

	(void)port_num;
	if (n_vls <= 1 || block_length > IBQOS_VLARB_LAYERED)
		return;
	losm_qos_get(e->plugin, &q);
	if (!losm_qos_layered(&q, n_vls))
		return;
	if (block_num == 1 || block_num == 3) {
		memset(block->vl_entry, 0, block_length * sizeof(block->vl_entry[0]));
		return;
	}
	v = ibqos_class_vls(q.class_map, ibqos_layer_sls(n_vls));
	for (unsigned i = 0; i < block_length; i++)
		t[i] = (struct ibqos_entry){ block->vl_entry[i].vl, block->vl_entry[i].weight };
	n = ibqos_layered_vlarb(t, block_length, v, n_vls, t, block_length);
	if (n > block_length && !e->warned_vlarb) {
		/* Entry-major: what is cut is the last class entries, in every
		 * layer; their VLs may get no weight at all on this port. */
		e->warned_vlarb = 1;
		OSM_LOG(&e->plugin->osm->log, OSM_LOG_ERROR,
			"ERR LOOM07: loom engine %s: port %u of 0x%016" PRIx64 " holds %u %s "
			"arbitration entries, the policy needs %u with %u VL layers: the last "
			"ones are left out (loomctl qos status --ib names the port)\n", e->name,
			osm_physp_get_port_num(port),
			cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(port))),
			block_length, block_num < 2 ? "low" : "high", n, n_vls);
	}
	for (unsigned i = 0; i < block_length; i++) {
		block->vl_entry[i].vl = t[i].vl;
		block->vl_entry[i].weight = t[i].weight;
	}
}

/* OpenSM's min-hop tables (for its multicast manager and SA; loom's
 * engines do not need them), by BFS: OpenSM's own relaxation is most of the
 * routing time on large fabrics. > 0 hands the job back to OpenSM. */
static int build_lid_matrices(void *context)
{
	struct losm_engine *e = context;
	osm_opensm_t *osm = e->plugin->osm;
	struct timespec t0;
	char err[160];
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = losm_build_hops(&osm->subn, e->plugin->pool, err, sizeof(err));
	if (rc < 0) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM04: loom engine %s: %s; OpenSM "
			"computes the hop tables itself\n", e->name, err);
		return 1;
	}
	if (rc == 0)
		OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "loom engine %s: hop tables in %.2f ms\n",
			e->name, elapsed(&t0) * 1e3);
	return rc;
}

/* OpenSM frees its engine structs at shutdown (before it unloads the
 * plugin): drop the tables; the context itself belongs to the plugin. */
static void destroy(void *context)
{
	set_last(context, NULL);
}

int losm_engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct losm_engine *e = re->context;

	re->build_lid_matrices = build_lid_matrices;
	re->ucast_build_fwd_tables = build_fwd_tables;
	re->path_sl = path_sl;
	re->update_sl2vl = update_sl2vl;
	re->update_vlarb = update_vlarb;
	re->destroy = destroy;
	OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "loom engine %s set up (lib engine %s)\n",
		e->name, e->eng->name);
	return 0;
}
