/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/loomosm.c: libloomosm.so, the OpenSM event plugin that puts
 * loom's routing engines inside OpenSM. With
 *     event_plugin_name loomosm
 *     routing_engine loom
 * in opensm.conf, OpenSM dlopen()s libloomosm.so, calls create() below, which
 * registers one external routing engine per loom engine: "loom" (the one that
 * picks ftree or dfsssp by itself) and "loom-ftree", "loom-dfsssp",
 * "loom-minhop"; routing_engine then selects them like OpenSM's own. The
 * routing itself is in osm_engine.c, the translation in osm_graph.c, the
 * reports to loomd in report.c, loomd's requests in request.c, loom's
 * options file over OpenSM's in osm_options.c, loomd's isolated links in
 * osm_isolated.c.
 *
 * OpenSM refuses the plugin unless osm_version equals its own version string
 * exactly, so the plugin must be built against the running OpenSM's headers. */
#include "autoconf.h"
#include "loomosm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "OpenSM's event plugin interface is not the one this plugin was written for"
#endif

/* The name OpenSM's routing_engine option uses for lib engine `name`. */
static void engine_name(char *buf, size_t len, const char *name)
{
	if (strcmp(name, "loom") == 0)
		snprintf(buf, len, "loom");
	else
		snprintf(buf, len, "loom-%s", name);
}

static void losm_plugin_free(struct losm_plugin *p)
{
	for (size_t i = 0; i < p->n_engines; i++) {
		losm_result_free(p->engines[i].last);
		pthread_mutex_destroy(&p->engines[i].lock);
	}
	losm_request_free(p->request);  /* its thread reads the report socket */
	losm_options_free(p->options);
	losm_isolated_free(p->isolated);
	losm_report_free(p->report);
	par_pool_free(p->pool);
	pthread_mutex_destroy(&p->qos_lock);
	free(p);
}

/* $LOOMOSM_THREADS (1..PAR_MAX_THREADS), else 0: the cores. */
static unsigned threads_wanted(struct osm_opensm *osm)
{
	const char *v = getenv("LOOMOSM_THREADS");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return 0;
	n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > PAR_MAX_THREADS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM08: loomosm: LOOMOSM_THREADS=\"%s\" is "
			"not a count from 1 to %d: using the cores\n", v, PAR_MAX_THREADS);
		return 0;
	}
	return (unsigned)n;
}

static void *create(struct osm_opensm *osm)
{
	struct losm_plugin *p = calloc(1, sizeof(*p));
	const struct rt_engine *engines;
	size_t n;
	char names[256] = "";

	if (!p) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM00: loomosm: out of memory\n");
		return NULL;
	}
	p->osm = osm;
	pthread_mutex_init(&p->qos_lock, NULL);
	/* Before the engines: their first run may come right after. Without
	 * it (out of memory) OpenSM routes all the same, unreported. */
	p->report = losm_report_new(osm);
	/* loomd's requests (a heavy sweep without a signal) come back on the
	 * report socket: loomd learns its address from the first report. */
	{
		struct sockaddr_un loomd;
		int fd = losm_report_socket(p->report, &loomd);

		p->request = fd < 0 ? NULL : losm_request_new(osm, fd, &loomd);
		if (fd >= 0 && !p->request)
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM09: loomosm: no thread for "
				"loomd's requests: loomd can only signal this OpenSM\n");
	}
	p->options = losm_options_new(osm);
	if (!(p->isolated = losm_isolated_new(osm)))
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM11: loomosm: out of memory: loomd's "
			"isolated links are not honoured\n");
	p->pool = par_pool_new(threads_wanted(osm));
	engines = rt_engine_list(&n);
	for (size_t i = 0; i < n && p->n_engines < sizeof(p->engines) / sizeof(p->engines[0]);
	     i++) {
		struct losm_engine *e = &p->engines[p->n_engines];
		external_routing_engine_module_t module;
		cl_status_t st;

		e->plugin = p;
		e->eng = &engines[i];
		/* Tables of strict up*-down* levels (loom's ftree, refined or
		 * not): later cuts can be rerouted incrementally. */
		e->incremental = strcmp(engines[i].name, "loom") == 0 ||
				 strcmp(engines[i].name, "ftree") == 0;
		engine_name(e->name, sizeof(e->name), engines[i].name);
		pthread_mutex_init(&e->lock, NULL);
		/* OpenSM copies the module (and its name); e, the context,
		 * must live as long as OpenSM does: it is in p. */
		module.name = e->name;
		module.setup = losm_engine_setup;
		module.context = e;
		st = osm_register_external_routing_engine(osm, &module, e);
		if (st != CL_SUCCESS) {
			OSM_LOG(&osm->log, OSM_LOG_ERROR,
				"ERR LOOM00: loomosm: cannot register routing engine %s "
				"(status %d: the name is taken?)\n", e->name, (int)st);
			pthread_mutex_destroy(&e->lock);
			continue;
		}
		p->n_engines++;
		if (names[0])
			strncat(names, ", ", sizeof(names) - strlen(names) - 1);
		strncat(names, e->name, sizeof(names) - strlen(names) - 1);
	}
	/* Once one engine is registered OpenSM holds its context: returning
	 * NULL now would make OpenSM unload the code its engine list points
	 * into. */
	if (p->n_engines == 0) {
		losm_plugin_free(p);
		return NULL;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "loomosm %s: routing engines registered: %s (%u "
		"thread%s)\n", PACKAGE_VERSION, names, par_pool_threads(p->pool),
		par_pool_threads(p->pool) == 1 ? "" : "s");
	return p;
}

/* Called at OpenSM's shutdown, after it destroyed its routing engines. */
static void delete(void *data)
{
	if (data)
		losm_plugin_free(data);
}

/* OpenSM's events (heavy sweep done, routing done, LFT changes, traps...),
 * on OpenSM's threads: report.c sends them to loomd without ever waiting. */
static void report(void *data, osm_epi_event_id_t event_id, void *event_data)
{
	struct losm_plugin *p = data;

	if (!p)
		return;
	/* A heavy sweep follows loomd's request (request.c) or a SIGHUP,
	 * which is how loomd says that it rewrote its ib_qos block: read the
	 * block again before OpenSM's QoS
	 * setup of this sweep asks for the tables. */
	if (event_id == OSM_EVENT_ID_HEAVY_SWEEP_START)
		losm_qos_invalidate(p);
	/* Discovery done, OpenSM's own options read again: loom's go over
	 * them before OpenSM sets partitions, QoS and congestion control. */
	if (event_id == OSM_EVENT_ID_HEAVY_SWEEP_DONE)
		losm_options_apply(p->options);
	losm_report_event(p->report, event_id, event_data);
}

/* The one exported symbol (see loomosm.map). */
osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = create,
	.delete = delete,
	.report = report,
};
