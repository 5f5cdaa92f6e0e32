/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/loomosm.h: libloomosm.so, loom's routing engines inside
 * OpenSM (an OpenSM event plugin that registers external routing engines).
 * Shared by its files: loomosm.c (the plugin: load, register, unload),
 * osm_graph.c (OpenSM's subnet -> loom's fabric graph, tables -> new_lft),
 * osm_engine.c (the routing engine callbacks OpenSM calls), report.c (runs
 * and events reported to loomd, never waiting on it), request.c (loomd's
 * requests back: a heavy sweep or a reroute without a signal), osm_options.c
 * (loom's options file applied over OpenSM's own), osm_isolated.c (the links
 * loomd took out of the routes, issue 42).
 *
 * Include the OpenSM headers through this file: osm_config.h must come first,
 * it holds the defines that shape OpenSM's structs. */
#ifndef LOOM_OSM_H
#define LOOM_OSM_H

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include <opensm/osm_event_plugin.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/route/route.h"
#include "lib/util/par.h"

/* What one successful run of an engine left behind: OpenSM asks for SLs
 * (path_sl, on every PathRecord query) and SL2VL maps (update_sl2vl, at QoS
 * setup) after routing returned, so the tables stay until the next run. */
struct losm_result {
	struct rt_graph *g;
	struct rt_lfts *l;
	/* OpenSM LID (host order) -> its port's base LID, 0 if nobody holds it:
	 * the graph knows base LIDs only, paths ask for any LID of an LMC range. */
	uint16_t *base_lid;
	uint16_t max_lid;      /* OpenSM's, >= g->max_lid */
	uint64_t iso_version;  /* the isolated set in force for the run (osm_isolated.c) */
	unsigned iso_links;    /* links it left out of g */
	/* Holders beyond the engine (report.c's metrics worker): the tables
	 * outlive the next run until the worker is done with them. */
	atomic_int holds;
};

struct losm_plugin;

/* One registered engine ("loom", "loom-ftree", ...): the context OpenSM hands
 * back to every callback of that engine. */
struct losm_engine {
	struct losm_plugin *plugin;
	const struct rt_engine *eng;  /* lib/route/route_engine.c */
	char name[32];                 /* the name in opensm.conf */
	pthread_mutex_t lock;          /* guards last: SA threads read it */
	struct losm_result *last;      /* NULL until a run succeeds */
	int incremental;               /* a fat-tree engine: reroute from last after cuts */
	unsigned runs, failures;
	int warned_vls;                /* a port lacking VLs was logged once */
	int warned_qos;                /* classes that cannot join the layers: once */
	int warned_vlarb;              /* a port too small for the expanded VLArb: once */
	atomic_int warned_hint;        /* a path SL hint past a layer's SLs: once
					* (SA threads: atomic) */
};

/* Where reports go when $LOOMOSM_SOCKET is not set: loomd's default
 * opensm.report_socket (daemon/core/config.h). */
#define LOSM_REPORT_SOCKET "/run/loom/osm.sock"

/* Where loomd writes its ib_qos and ib_cc options when $LOOMOSM_OPTIONS
 * is not set (osm_options.c): loom.yaml's opensm_config in
 * docs/opensm-slurm.md's set-up. */
#define LOSM_OPTIONS_FILE "/var/lib/loom/opensm.conf"

struct losm_report;
struct losm_request;
struct losm_options;
struct losm_isolated;
struct sockaddr_un;
struct rt_sl2vl;

/* osm_qos.c: loom's ib_qos block as found in OpenSM's options file. */
struct losm_qos {
	int active;                    /* the block is there, with its qos_sl2vl */
	uint8_t class_map[16];         /* its qos_sl2vl: the classes' SL -> VL */
	unsigned max_vls;              /* its qos_max_vls (15 when absent) */
};

struct losm_plugin {
	osm_opensm_t *osm;
	struct losm_report *report;    /* report.c; NULL if out of memory */
	struct losm_request *request;  /* request.c; NULL: none heard */
	struct losm_options *options;  /* osm_options.c; NULL if out of memory */
	struct losm_isolated *isolated;/* osm_isolated.c; NULL if out of memory */
	/* The threads the engines and the hop tables split their work over
	 * ($LOOMOSM_THREADS, default the cores): used only inside OpenSM's
	 * routing callbacks, which OpenSM calls one at a time from its state
	 * manager under its exclusive lock. NULL: one thread. */
	struct par_pool *pool;
	size_t n_engines;
	struct losm_engine engines[8];
	pthread_mutex_t qos_lock;      /* guards qos, qos_read_ns: SA threads */
	struct losm_qos qos;
	long long qos_read_ns;         /* when the file was read (0: never) */
};

/* osm_graph.c: build loom's fabric graph of OpenSM's subnet: every node with
 * its ports, base LIDs and LMC, and every cable OpenSM has discovered. Ports
 * without a LID (not yet assigned) are left out of the routing. NULL with a
 * reason in err on failure. */
struct fab *losm_fabric_from_subnet(osm_subn_t *subn, char *err, size_t errlen);

/* osm_graph.c: LID -> base LID table for every LID OpenSM knows
 * (*max_lid gets the highest). NULL on allocation failure. */
uint16_t *losm_base_lids(osm_subn_t *subn, uint16_t *max_lid);

/* osm_graph.c: write tables l (made for g) into every switch's new_lft,
 * LMC ranges included (every LID of a range takes its base LID's port).
 * Returns 0, or -ENOENT with a reason in err when a switch of g is no
 * longer in OpenSM's subnet. */
int losm_write_lfts(osm_subn_t *subn, const struct rt_graph *g, const struct rt_lfts *l,
		    const uint16_t *base_lid, uint16_t max_lid, char *err, size_t errlen);

/* ---- osm_hops.c ---- */

/* OpenSM's min-hop tables (every switch port to every switch LID), by one
 * BFS per switch: 0 when set, 1 when OpenSM must compute them itself (a
 * hop_weights_file is configured), -ENOMEM with a reason in err. */
int losm_build_hops(osm_subn_t *subn, struct par_pool *pool, char *err, size_t errlen);

/* ---- osm_options.c ---- */

/* loom's options file ($LOOMOSM_OPTIONS, default LOSM_OPTIONS_FILE). NULL
 * only when out of memory. */
struct losm_options *losm_options_new(osm_opensm_t *osm);
void losm_options_free(struct losm_options *o);
/* Apply loom's allowed lines over OpenSM's own options (OpenSM's state
 * manager thread, at HEAVY_SWEEP_DONE: after OpenSM's re-reads, before its
 * QoS and congestion-control set-up). No file: nothing. */
void losm_options_apply(struct losm_options *o);
/* The file when it exists (loom's blocks are there), else NULL. */
const char *losm_options_path(const struct losm_options *o);
/* OpenSM's own options file as OpenSM named it at its start (NULL: none),
 * never the copy losm_options_apply names to OpenSM for a moment. */
const char *losm_options_own(const struct losm_options *o);

/* ---- osm_isolated.c ---- */

/* loomd's isolated set ($LOOMOSM_ISOLATED, default ISO_SET_PATH). NULL
 * only when out of memory. */
struct losm_isolated *losm_isolated_new(osm_opensm_t *osm);
void losm_isolated_free(struct losm_isolated *iso);
/* At the start of a routing run (under OpenSM's lock): read the file again
 * if it changed, remove its links from fab (as cut cables); the number
 * removed. A bad file keeps the previous set (ERR LOOM11, once). */
unsigned losm_isolated_apply(struct losm_isolated *iso, struct fab *fab, const char *engine);
/* The version of the set in force (0: none, or no file). */
uint64_t losm_isolated_version(const struct losm_isolated *iso);

/* ---- osm_qos.c ---- */

/* The ib_qos block of loom's options file (osm_options.c), else of
 * OpenSM's own, read again when the copy is a second old. */
void losm_qos_get(struct losm_plugin *p, struct losm_qos *out);
/* Read the block again at the next losm_qos_get (a heavy sweep starts). */
void losm_qos_invalidate(struct losm_plugin *p);

/* 1 when paths carry class and layer together (lib/qos/ib_qos.h): the block is
 * there and its class VLs times n_layers fit its max_vls. 0: SL = layer. */
int losm_qos_layered(const struct losm_qos *q, unsigned n_layers);

/* osm_engine.c: OpenSM's setup callback of the external routing engine
 * module: fills the callbacks of re (whose context is a losm_engine). */
int losm_engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm);

/* osm_engine.c: drop one hold of r (the engine's own, or one taken with
 * losm_result_hold); the last one frees it. */
void losm_result_free(struct losm_result *r);
struct losm_result *losm_result_hold(struct losm_result *r);

/* report.c: the reporter of plugin p, sending to $LOOMOSM_SOCKET (default
 * LOSM_REPORT_SOCKET). Without a usable socket it reports nothing (said in
 * OpenSM's log). NULL only when out of memory. */
struct losm_report *losm_report_new(osm_opensm_t *osm);
/* Waits for a metrics worker still running: called from delete(), before
 * OpenSM unloads the plugin. */
void losm_report_free(struct losm_report *rep);
/* report.c: the socket reports leave from (bound to an abstract name of
 * its own, so that loomd can answer), and *to the socket they go to (to
 * may be NULL); -1 when nothing is reported. */
int losm_report_socket(const struct losm_report *rep, struct sockaddr_un *to);
/* request.c: a thread hearing loomd's requests on fd, the report socket
 * (losm_report_socket), taken only from loomd's socket `loomd`; NULL when
 * fd < 0 (nothing reported) or out of resources. */
struct losm_request *losm_request_new(osm_opensm_t *osm, int fd, const struct sockaddr_un *loomd);
/* Stops the thread: called from delete(), before losm_report_free. */
void losm_request_free(struct losm_request *q);
/* report.c: one of OpenSM's events (the plugin's report() callback). */
void losm_report_event(struct losm_report *rep, osm_epi_event_id_t id, void *data);
/* report.c: a finished run of engine e: r are its tables (held while their
 * metrics are computed off OpenSM's thread), or error says why it failed
 * (r may then be partial or NULL). Returns at once. */
void losm_report_run(struct losm_engine *e, struct losm_result *r, double secs,
		     const char *error);
/* osm_sls.c: the SL2VL map the plugin programs on port (every pair into
 * it, for a switch) for tables of n_vls layers; -1 when it programs none
 * (one layer). warn: say once what cannot be kept (ERR LOOM03, LOOM05). */
int losm_port_sl2vl(struct losm_engine *e, unsigned n_vls, osm_physp_t *port,
		    uint8_t map[16], int warn);
/* osm_sls.c: for the run report's judge, the SL2VL tables of run r's
 * switches as losm_port_sl2vl programs them, indexed by layer (the SL
 * table of r->l) rather than by SL: NULL when the plugin programs none (one
 * layer, qos FALSE) or out of memory. On OpenSM's thread, under its lock. */
struct rt_sl2vl *losm_sl2vl_tables(struct losm_engine *e, const struct losm_result *r);
/* osm_sls.c: the SLs of run r's paths to "SOCKET.sls" (SOCKET: loomd's
 * report socket) for loomd's route check (route_sl2vl.h's SL file); r NULL
 * (a failed run) or on one layer: the file removed; failures only logged. */
void losm_sls_write(struct losm_engine *e, const struct losm_result *r, const char *socket);

#endif
