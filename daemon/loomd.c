/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/loomd.c: the daemon as a whole. One libevent loop; the modules
 * are created here, in this order, and register their commands on the
 * control socket (docs/architecture.md draws them):
 *   core/store (SQLite), core/ctl (the control socket, its gate and limits),
 *   ha (the leader lease on etcd), ib/sweep (the sweeper: discovery, the
 *   walker's children), routing/routes (route requests, the tables read
 *   back), ar (AR probe) and ar/ar_apply (AR programming), qos (RoCE policy
 *   on the switches), qos/qos_ib and qos/qos_ibcc (OpenSM's QoS and CC
 *   options), tenants (partitions and VLANs of jobs), telemetry (counters,
 *   alarms, job impact), validate (the cabling plan and the fabric's rules),
 *   slurm (topology.conf), events (logged, forwarded, pruned; made first,
 *   before any module writes one), fabric/names (the site's node names),
 *   fabric/queries (the fabric read commands), http
 *   (listeners) with its metrics, web view and REST API, routing/osm_report
 *   (OpenSM's reports through loom's plugin).
 * Signals drive reload (each module handed the new configuration) and
 * shutdown. */
#include "autoconf.h"
#include "daemon/loomd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/ar/ar.h"
#include "daemon/ar/ar_apply.h"
#include "daemon/core/config.h"
#include "daemon/core/config_parse.h"
#include "daemon/core/config_writable.h"
#include "daemon/ar/config_ar.h"
#include "daemon/ha/config_ha.h"
#include "daemon/events/config_events.h"
#include "daemon/events/events.h"
#include "daemon/http/config_http.h"
#include "daemon/ib/config_discovery.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/qos/config_qos_ib.h"
#include "daemon/roce/config_roce.h"
#include "daemon/routing/config_opensm.h"
#include "daemon/slurm/config_slurm.h"
#include "daemon/fabric/config_names.h"
#include "daemon/fabric/names.h"
#include "daemon/telemetry/config_telemetry.h"
#include "daemon/tenants/config_tenants.h"
#include "daemon/validate/config_validate.h"
#include "daemon/core/ctl.h"
#include "daemon/core/ctl_limits.h"
#include "daemon/core/loop_lag.h"
#include "lib/db/db_query.h"
#include "lib/util/log.h"
#include "daemon/routing/osm_report.h"
#include "lib/util/proto.h"
#include "daemon/fabric/queries.h"
#include "daemon/qos/qos.h"
#include "daemon/qos/qos_ib.h"
#include "daemon/qos/qos_ibcc.h"
#include "daemon/telemetry/telemetry.h"
#include "daemon/ib/walker.h"
#include "daemon/tenants/tenants.h"
#include "daemon/routing/routes.h"
#include "daemon/core/sdnotify.h"
#include "daemon/core/store.h"
#include "daemon/ib/sweep.h"
#include "daemon/http/front.h"
#include "daemon/http/metrics_http.h"
#include "lib/telemetry/metrics_text.h"
#include "daemon/ha/ha.h"
#include "daemon/validate/validate.h"
#include "daemon/slurm/slurm.h"
#include "daemon/isolation/config_isolation.h"
#include "daemon/isolation/isolation.h"
#include "lib/fabric/fabric.h"

struct loomd {
	const struct loomd_options *opt;
	struct loom_config *conf;
	struct event_base *base;
	struct loop_lag *lag;          /* the loop's stalls, for /metrics */
	struct store *store;      /* the loop thread's connection (reads) */
	struct names_mod *names;  /* the site's node names (names.node_name_map) */
	struct ctl *ctl;
	struct sweeper *sweeper;
	struct routes *routes;    /* route check / trace requests */
	struct ar_mod *ar;        /* ar status: adaptive routing probes */
	struct ar_apply *ar_apply; /* ar program: adaptive routing Sets */
	struct qos_mod *qos;      /* qos plan / status / apply on the switches */
	struct qos_ib_mod *qos_ib; /* ib_qos: applied through OpenSM, read back by SMPs */
	struct qos_ibcc_mod *qos_ibcc; /* ib_cc: congestion control through OpenSM */
	struct tenants_mod *tenants; /* tenant isolation (IB partitions) */
	struct telemetry_mod *telemetry; /* port counters, read on an interval */
	struct http_front *front; /* the HTTP front end, a process apart (front.h) */
	struct http_metrics *metrics; /* the /metrics text it serves */
	struct queries *queries;  /* nodes, links...: read off the loop */
	struct osm_report *osm;   /* OpenSM's plugin reports (runs, events) */
	struct ha *ha;            /* HA: leader election on etcd (off without ha:) */
	struct validate_mod *validate; /* the fabric checked after every sweep */
	struct slurm_mod *slurm;       /* Slurm's topology.conf kept true */
	struct isolation_mod *isolation; /* bad cables out of the routes (issue 42) */
	struct events_mod *events;     /* events logged, forwarded, pruned */
	struct event *sig_hup, *sig_term, *sig_int, *watchdog;
	struct timespec started;
	int swept_once;           /* a sweep succeeded since start: /readyz */
};

/* The sections of loom.yaml, each its module's, in the documented order
 * (the order `loomd -n` prints them in). */
/* The control socket's bounds of conf (control.max_clients ...; the
 * reserve stays ctl_limits' own). The config's ranges keep every value
 * one ctl_set_limits takes. */
static void set_ctl_limits(struct ctl *ctl, const struct loom_config *conf)
{
	struct ctl_limits l;
	char err[256];

	ctl_limits_default(&l);
	l.max_clients = (unsigned)conf->ctl_max_clients;
	l.max_per_uid = (unsigned)conf->ctl_max_per_uid;
	l.max_output = (size_t)conf->ctl_max_output;
	l.stall_timeout_s = (unsigned)conf->ctl_stall_s;
	l.idle_timeout_s = (unsigned)conf->ctl_idle_s;
	l.read_rate_s = (unsigned)conf->ctl_read_rate_s;
	if (ctl_set_limits(ctl, &l, err, sizeof(err)) < 0)
		log_err("control: %s; the bounds in force stay", err);
}

/* The site's node names to the modules that name nodes outside SQL: the
 * sweeps' events, topology.conf's switches and the validation's findings
 * (the queries read the map the names module stored). */
static void set_names(struct loomd *d)
{
	sweeper_set_names(d->sweeper, names_map(d->names));
	slurm_set_names(d->slurm, names_map(d->names));
	validate_set_names(d->validate, names_map(d->names));
	isolation_set_names(d->isolation, names_map(d->names));
}

static const struct config_section *const config_sections[] = {
	&config_log, &config_database, &config_control, &sweep_config, &osm_report_config,
	&config_plugins, &tenants_config, &roce_config, &roce_switches_config,
	&qos_ib_config, &qos_ibcc_config, &ar_config, &telemetry_config, &http_config,
	&ha_config, &validate_config, &slurm_config, &isolation_config, &events_config,
	&names_config,
};

int loomd_config_init(void)
{
	for (size_t i = 0; i < sizeof(config_sections) / sizeof(config_sections[0]); i++) {
		int rc = config_register(config_sections[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Load the configuration the options name: an explicit -c file must exist;
 * the default file may be missing (built-in defaults then). Command line
 * overrides are applied on top. */
static int load_config(const struct loomd_options *opt, struct loom_config *c,
		       char *err, size_t errlen)
{
	int rc;

	if ((rc = loomd_config_init()) < 0) {
		snprintf(err, errlen, "cannot register the configuration's sections: %s",
			 strerror(-rc));
		return rc;
	}
	if (opt->config_path) {
		rc = config_load(opt->config_path, c, err, errlen);
	} else {
		rc = config_load(LOOM_DEFAULT_CONFIG, c, err, errlen);
		if (rc == -ENOENT) {
			config_defaults(c);
			rc = 0;
		}
	}
	if (rc < 0)
		return rc;
	if (opt->db_path)
		snprintf(c->db_path, sizeof(c->db_path), "%s", opt->db_path);
	if (opt->socket_path)
		snprintf(c->socket_path, sizeof(c->socket_path), "%s", opt->socket_path);
	if (opt->debug)
		c->log_level = LOG_LVL_DEBUG;
	return 0;
}

/* -n's warnings: what `user` (the unit's User=; NULL: the caller) could
 * not write. 0, or 1 when there is no such user. */
static int check_writable(const struct loom_config *c, const char *user)
{
	struct cfg_user *u = malloc(sizeof(*u));
	char err[256];
	int rc = 0;

	if (!u || cfg_user_lookup(user, u, err, sizeof(err)) < 0) {
		fprintf(stderr, "loomd: -u: %s\n", u ? err : "out of memory");
		rc = 1;
	} else {
		fflush(stdout);
		config_warn_unwritable(c, u, user != NULL, stderr);
	}
	free(u);
	return rc;
}

int loomd_check_config(const struct loomd_options *opt)
{
	struct loom_config *c = malloc(sizeof(*c));
	char err[1024];
	int rc;

	if (!c) {
		fprintf(stderr, "loomd: out of memory\n");
		return 1;
	}
	rc = load_config(opt, c, err, sizeof(err));
	/* What the start would find wrong with the host, refused now. */
	if (rc == 0)
		rc = config_check_host(c, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "loomd: %s\n", err);
		free(c);
		return 1;
	}
	if (!c->path[0])
		printf("# %s not found: built-in defaults\n", LOOM_DEFAULT_CONFIG);
	config_print(c, stdout);
	rc = check_writable(c, opt->check_user);
	free(c);
	return rc;
}

/* ---- commands owned by the daemon itself ----------------------------------- */

/* A recorded sweep's fabric: validation, Slurm's topology, isolation and the
 * tenants' PKey read-back read it (each holds its own reference; none
 * changes it). */
static void on_swept(void *arg, const char *subnet, struct fab *fab)
{
	struct loomd *d = arg;

	d->swept_once = 1;
	slurm_on_swept(d->slurm, subnet, fab_hold(fab));
	isolation_on_swept(d->isolation, subnet, fab_hold(fab));
	tenants_on_swept(d->tenants, subnet, fab_hold(fab));
	validate_on_swept(d->validate, subnet, fab);
}

/* /metrics' families of modules daemon/http does not know (on the loop,
 * per render; docs/metrics.md): the HA role, etcd, RoCE drift, the
 * isolated set OpenSM applied. */
static void metrics_families(void *arg, struct mt_buf *out)
{
	static const char *const roles[] = { "leader", "follower", "no-quorum" };
	struct loomd *d = arg;
	json_t *ha = ha_status(d->ha);
	const char *role = json_string_value(json_object_get(ha, "role"));
	int on = ha_enabled(d->ha), etcd_ok = json_is_true(json_object_get(
		json_object_get(ha, "etcd"), "ok"));
	char line[320];

	mt_puts(out, "# HELP loom_ha_role This loomd's HA role, 1 for the one it holds "
		"(leader, follower, no-quorum); no series without ha.\n# TYPE loom_ha_role gauge\n");
	for (size_t i = 0; on && i < sizeof(roles) / sizeof(roles[0]); i++) {
		snprintf(line, sizeof(line), "loom_ha_role{role=\"%s\"} %d\n", roles[i],
			 role && !strcmp(role, roles[i]));
		mt_puts(out, line);
	}
	mt_puts(out, "# HELP loom_ha_etcd_up 1 when etcd answered this loomd's last HA step, "
		"else 0; no series without ha.\n# TYPE loom_ha_etcd_up gauge\n");
	if (on) {
		snprintf(line, sizeof(line), "loom_ha_etcd_up %d\n", etcd_ok);
		mt_puts(out, line);
	}
	json_decref(ha);
	snprintf(line, sizeof(line), "# HELP loom_roce_switches_drifted RoCE switches whose "
		 "last check found settings off the policy.\n# TYPE loom_roce_switches_drifted "
		 "gauge\nloom_roce_switches_drifted %d\n", qos_switches_in_state(d->qos, "drifted"));
	mt_puts(out, line);
	isolation_metrics(d->isolation, out);
	loop_lag_render(d->lag, out);
}

/* /readyz: the first sweep done and, with ha, etcd answering. */
static int metrics_ready(void *arg, char *why, size_t len)
{
	struct loomd *d = arg;
	json_t *ha;
	int etcd_ok;

	if (!d->swept_once) {
		snprintf(why, len, "no sweep has succeeded yet");
		return 0;
	}
	if (!ha_enabled(d->ha))
		return 1;
	ha = ha_status(d->ha);
	etcd_ok = json_is_true(json_object_get(json_object_get(ha, "etcd"), "ok"));
	json_decref(ha);
	if (!etcd_ok)
		snprintf(why, len, "etcd does not answer (ha.endpoints)");
	return etcd_ok;
}

/* OpenSM's change reports (daemon/routing/osm_report.h) to discovery
 * (daemon/ib/sweep.h). */
static void osm_changed(void *arg, const char *subnet, unsigned lid, unsigned nodes)
{
	if (nodes)
		sweeper_osm_swept(arg, subnet, nodes);
	else
		sweeper_changed(arg, subnet, lid);
}

/* The counters read's flapped ports (daemon/telemetry/telemetry.h) to
 * discovery. */
static void port_flapped(void *arg, const char *subnet, uint64_t guid, unsigned port)
{
	sweeper_port_flapped(arg, subnet, guid, port);
}

/* OpenSM's new forwarding tables (daemon/routing/osm_report.h): adaptive
 * routing programmed again, the tables read back (opensm.read_tables). */
static void lft_changed(void *arg, uint64_t sm_guid)
{
	struct loomd *d = arg;

	ar_apply_lft_changed(d->ar_apply, sm_guid);
	routes_tables_changed(d->routes);
}

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct loomd *d = arg;
	struct timespec now;
	char err[512] = "";
	json_t *subnets = NULL;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (dbq_subnets(store_db(d->store), &subnets, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "%s", err);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:i, s:I, s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o}",
				    "version", PACKAGE_VERSION,
				    "pid", (int)getpid(),
				    "uptime_s", (json_int_t)(now.tv_sec - d->started.tv_sec),
				    "config", d->conf->path,
				    "db", d->conf->db_path,
				    "socket", d->conf->socket_path,
				    "schema_version", store_schema_version(),
				    "sweep", sweeper_status(d->sweeper),
				    "subnets", subnets,
				    "ha", ha_status(d->ha),
				    "events_forward", events_status(d->events)));
}

/* ---- HA ---------------------------------------------------------------------- */

/* ha_on_role: a node that does not lead discovers at
 * ha.follower_discovery_interval (0: four times discovery.interval, and
 * not at all when that is 0); the leader at discovery.interval. */
static void on_role(void *arg, int leading)
{
	struct loomd *d = arg;
	int normal = discovery_conf_get(d->conf)->sweep_interval;
	int slow = ha_conf_get(d->conf)->ha_follower_discovery_interval;

	if (!slow)
		slow = normal > 0 && normal <= 86400 / 4 ? 4 * normal : normal;
	sweeper_set_interval(d->sweeper, leading ? -1 : slow);
}

/* ---- each module's part of the configuration --------------------------------- */

/* Every module gets its own section and, named here, what it reads of
 * another's: these functions are the only place that knows who reads what. */

static struct swept_mad mad_of(const struct loom_config *c)
{
	struct swept_mad mad;

	swept_mad_of(discovery_conf_get(c), &mad);
	return mad;
}

static struct tenants_inputs tenants_inputs_of(const struct loom_config *c,
					       const struct swept_mad *mad)
{
	return (struct tenants_inputs){
		.conf = tenants_conf_get(c), .switches = switches_conf_get(c),
		.ib_qos = &ib_qos_conf_get(c)->ib_qos, .mad = mad, .plugin_dir = c->plugin_dir,
	};
}

static struct telemetry_inputs telemetry_inputs_of(const struct loom_config *c,
						   const struct swept_mad *mad)
{
	return (struct telemetry_inputs){
		.conf = telemetry_conf_get(c), .mad = mad, .hosts = &tenants_conf_get(c)->hosts,
		.switches = switches_conf_get(c), .plugin_dir = c->plugin_dir,
		.prometheus_url = http_conf_get(c)->http_prometheus_url,
	};
}

/* ---- signals ------------------------------------------------------------------ */

static void reload(struct loomd *d)
{
	struct loom_config *next = malloc(sizeof(*next));
	struct opensm_conf *osm;
	struct swept_mad mad;
	struct tenants_inputs ti;
	struct telemetry_inputs tm;
	const struct tenants_conf *tc;
	const char *osm_pid;
	char err[1024];

	sdnotify_reloading();
	if (!next) {
		log_err("reload refused: out of memory; the running configuration stays");
		goto out;
	}
	if (load_config(d->opt, next, err, sizeof(err)) < 0) {
		log_err("reload refused: %s; the running configuration stays", err);
		sdnotifyf("STATUS=reload refused: %s", err);
		free(next);
		goto out;
	}
	/* The database and the socket are opened once; moving them live would
	 * lose clients or history for no operator benefit. */
	if (strcmp(next->db_path, d->conf->db_path) != 0) {
		log_warn("database.path changed to %s: takes effect at restart", next->db_path);
		memcpy(next->db_path, d->conf->db_path, sizeof(next->db_path));
	}
	if (strcmp(next->socket_path, d->conf->socket_path) != 0) {
		log_warn("control.socket changed to %s: takes effect at restart", next->socket_path);
		memcpy(next->socket_path, d->conf->socket_path, sizeof(next->socket_path));
	}
	osm = config_section_edit(next, &osm_report_config);
	if (strcmp(osm->osm_socket_path, opensm_conf_get(d->conf)->osm_socket_path) != 0) {
		log_warn("opensm.report_socket changed to %s: takes effect at restart",
			 osm->osm_socket_path);
		memcpy(osm->osm_socket_path, opensm_conf_get(d->conf)->osm_socket_path,
		       sizeof(osm->osm_socket_path));
	}
	mad = mad_of(next);
	ti = tenants_inputs_of(next, &mad);
	tm = telemetry_inputs_of(next, &mad);
	tc = tenants_conf_get(next);
	osm_pid = tc->tenant_opensm_pid_file;
	log_init("loomd", next->log_level,
		 d->opt->foreground ? next->log_target : LOG_TARGET_SYSLOG);
	ctl_set_admin_group(d->ctl, next->admin_group);
	set_ctl_limits(d->ctl, next);
	ctl_set_tenant_writers(d->ctl, tc->tenant_users, tc->tenant_groups);
	if (sweeper_reconfigure(d->sweeper, discovery_conf_get(next)) < 0) {
		log_err("reload: cannot apply the new subnets; the running configuration stays");
		free(next);
		goto out;
	}
	routes_reconfigure(d->routes, opensm_conf_get(next), &mad);
	ar_reconfigure(d->ar, &mad);
	ar_apply_reconfigure(d->ar_apply, ar_conf_get(next), &mad);
	if (qos_reconfigure(d->qos, roce_conf_get(next), switches_conf_get(next),
			    next->plugin_dir) < 0)
		log_err("reload: out of memory for the switches; their previous settings stay");
	if (qos_ib_reconfigure(d->qos_ib, ib_qos_conf_get(next), &mad, osm_pid) < 0)
		log_err("reload: out of memory for ib_qos; its previous settings stay");
	if (qos_ibcc_reconfigure(d->qos_ibcc, ib_cc_conf_get(next), osm_pid) < 0)
		log_err("reload: out of memory for ib_cc; its previous settings stay");
	if (tenants_reconfigure(d->tenants, &ti) < 0)
		log_err("reload: out of memory for the tenants; their previous settings stay");
	telemetry_reconfigure(d->telemetry, &tm);
	validate_reconfigure(d->validate, validate_conf_get(next));
	validate_set_mad(d->validate, &mad);
	slurm_reconfigure(d->slurm, slurm_conf_get(next), &tc->hosts);
	isolation_reconfigure(d->isolation, isolation_conf_get(next));
	isolation_set_slurm(d->isolation, d->slurm, &tc->hosts);
	queries_set_hosts(d->queries, &tc->hosts);
	events_reconfigure(d->events, events_conf_get(next));
	/* the map read again (the file may have changed): a failure is logged
	 * and the names in force stay */
	if (names_reconfigure(d->names, names_conf_get(next)) == 0)
		set_names(d);
	/* a new front end (tokens, TLS, listeners read again); one that
	 * cannot start is logged and the one in force stays */
	(void)http_front_reconfigure(d->front, http_conf_get(next));
	ha_reconfigure(d->ha, ha_conf_get(next));
	http_metrics_reconfigure(d->metrics, http_conf_get(next));
	free(d->conf);
	d->conf = next;
	log_notice("configuration reloaded from %s", d->conf->path[0] ? d->conf->path : "defaults");
	sdnotify("STATUS=running");
out:
	sdnotify("READY=1");
}

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct loomd *d = arg;

	if (sig == SIGHUP) {
		reload(d);
		return;
	}
	log_notice("%s received: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	sdnotify("STOPPING=1");
	event_base_loopbreak(d->base);
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sdnotify("WATCHDOG=1");
}

/* ---- life cycle -------------------------------------------------------------- */

static int setup_signals(struct loomd *d)
{
	uint64_t wd = sdnotify_watchdog_usec();

	signal(SIGPIPE, SIG_IGN);
	d->sig_hup = evsignal_new(d->base, SIGHUP, signal_cb, d);
	d->sig_term = evsignal_new(d->base, SIGTERM, signal_cb, d);
	d->sig_int = evsignal_new(d->base, SIGINT, signal_cb, d);
	if (!d->sig_hup || !d->sig_term || !d->sig_int ||
	    evsignal_add(d->sig_hup, NULL) < 0 || evsignal_add(d->sig_term, NULL) < 0 ||
	    evsignal_add(d->sig_int, NULL) < 0)
		return -ENOMEM;
	if (wd) {
		/* Ping at half the interval, as sd_watchdog_enabled(3) advises. */
		struct timeval tv = { .tv_sec = (time_t)(wd / 2 / 1000000),
				      .tv_usec = (suseconds_t)(wd / 2 % 1000000) };

		d->watchdog = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d);
		if (!d->watchdog || event_add(d->watchdog, &tv) < 0)
			return -ENOMEM;
		log_debug("systemd watchdog: every %.1f s", wd / 2e6);
	}
	return 0;
}

static void loomd_teardown(struct loomd *d)
{
	/* No worker waits on a child that hangs (its MAD library blocked on a
	 * port that went away: up to the walker's 600 s otherwise). */
	walker_stop_all();
	/* The lease first: another node leads at once, not a TTL later. The
	 * struct itself last: a tenant change's worker may still ask it
	 * (and be told this node no longer leads). */
	if (d->ctl)
		ctl_set_gate(d->ctl, NULL, NULL);
	ha_resign(d->ha);
	/* Sweeps first: their threads write the database and answer clients. */
	sweeper_free(d->sweeper);
	if (d->qos)   /* the switches' reads no longer told to it (issue 43) */
		qos_on_recorded(d->qos, NULL, NULL);
	validate_free(d->validate); /* after the sweeps: they hand it their fabrics */
	slurm_free(d->slurm);
	/* Before the counters: their reads are told to it, their job index
	 * is read by its worker. */
	if (d->telemetry)
		telemetry_on_read(d->telemetry, NULL, NULL);
	isolation_free(d->isolation);
	names_free(d->names);       /* after the modules that hold its map: they hold refs */
	routes_free(d->routes);
	ar_free(d->ar);
	ar_apply_free(d->ar_apply);
	qos_free(d->qos);
	qos_ib_free(d->qos_ib);
	qos_ibcc_free(d->qos_ibcc);
	telemetry_free(d->telemetry);
	queries_free(d->queries);  /* its answers may go to the API's calls */
	http_front_free(d->front);      /* its calls under way answer nobody */
	http_metrics_free(d->metrics);
	tenants_free(d->tenants);
	osm_report_free(d->osm);
	ha_free(d->ha);          /* after every module whose workers may ask it */
	ctl_free(d->ctl);
	/* Last: every module that writes events has stopped. */
	store_on_event(NULL, NULL);
	events_free(d->events);
	store_close(d->store);
	if (d->sig_hup)
		event_free(d->sig_hup);
	if (d->sig_term)
		event_free(d->sig_term);
	if (d->sig_int)
		event_free(d->sig_int);
	if (d->watchdog)
		event_free(d->watchdog);
	loop_lag_free(d->lag);
	if (d->base)
		event_base_free(d->base);
	free(d->conf);
}

int loomd_run(const struct loomd_options *opt)
{
	struct loomd d = { .opt = opt };
	struct swept_mad mad;
	struct tenants_inputs ti;
	struct telemetry_inputs tm;
	const struct tenants_conf *tc;
	char err[1024];
	int status = 1;

	clock_gettime(CLOCK_MONOTONIC, &d.started);
	if (!(d.conf = malloc(sizeof(*d.conf)))) {
		fprintf(stderr, "loomd: out of memory\n");
		return 1;
	}
	if (load_config(opt, d.conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "loomd: %s\n", err);
		free(d.conf);
		return LOOMD_EXIT_CONFIG;
	}
	log_init("loomd", d.conf->log_level, d.conf->log_target);
	if (!opt->foreground) {
		/* Without -f, detach: stderr goes nowhere, so log to syslog. */
		if (daemon(0, 0) < 0) {
			log_err("cannot detach: %s", strerror(errno));
			free(d.conf);
			return 1;
		}
		log_init("loomd", d.conf->log_level, LOG_TARGET_SYSLOG);
	}

	if (!(d.base = event_base_new()) || !(d.lag = loop_lag_new(d.base))) {
		log_err("cannot create the event loop");
		goto out;
	}
	/* The history is the operators': owner and admin group only. */
	if (store_restrict(d.conf->db_path, d.conf->admin_group, err, sizeof(err)) < 0)
		log_warn("%s", err);
	if (!(d.store = store_open(d.conf->db_path, err, sizeof(err)))) {
		if (errno == EPROTO)
			status = LOOMD_EXIT_CONFIG;  /* store_open logged why, once */
		goto out;
	}
	/* Before any module writes an event: each is logged and forwarded. */
	if (!(d.events = events_new(d.base, events_conf_get(d.conf), d.conf->db_path, err,
				    sizeof(err)))) {
		log_err("events: %s", err);
		goto out;
	}
	store_on_event(events_on_event, d.events);
	if (!(d.ctl = ctl_new(d.base, d.conf->socket_path, d.conf->admin_group, err, sizeof(err)))) {
		log_err("control socket %s: %s", d.conf->socket_path, err);
		goto out;
	}
	mad = mad_of(d.conf);
	ti = tenants_inputs_of(d.conf, &mad);
	tm = telemetry_inputs_of(d.conf, &mad);
	tc = tenants_conf_get(d.conf);
	ctl_set_tenant_writers(d.ctl, tc->tenant_users, tc->tenant_groups);
	set_ctl_limits(d.ctl, d.conf);
	/* Before any module can change the fabric: the gate is set at once. */
	if (!(d.ha = ha_new(d.base, ha_conf_get(d.conf), err, sizeof(err))) ||
	    ha_register(d.ha, d.ctl) < 0) {
		log_err("ha: %s", err);
		goto out;
	}
	if (!(d.sweeper = sweeper_new(d.base, discovery_conf_get(d.conf), d.conf->db_path, err,
				      sizeof(err)))) {
		log_err("sweeper: %s", err);
		goto out;
	}
	if (!(d.routes = routes_new(d.base, opensm_conf_get(d.conf), &mad, d.conf->db_path, err,
				    sizeof(err)))) {
		log_err("route requests: %s", err);
		goto out;
	}
	if (!(d.ar = ar_new(d.base, &mad, d.conf->db_path, err, sizeof(err)))) {
		log_err("AR requests: %s", err);
		goto out;
	}
	if (!(d.ar_apply = ar_apply_new(d.base, ar_conf_get(d.conf), &mad, d.conf->db_path, err,
					sizeof(err)))) {
		log_err("AR program requests: %s", err);
		goto out;
	}
	if (!(d.qos = qos_new(d.base, roce_conf_get(d.conf), switches_conf_get(d.conf),
			      d.conf->plugin_dir, d.store, err, sizeof(err)))) {
		log_err("qos requests: %s", err);
		goto out;
	}
	if (!(d.qos_ib = qos_ib_new(d.base, ib_qos_conf_get(d.conf), &mad,
				    tc->tenant_opensm_pid_file, d.store, err, sizeof(err)))) {
		log_err("ib_qos requests: %s", err);
		goto out;
	}
	if (!(d.qos_ibcc = qos_ibcc_new(d.base, ib_cc_conf_get(d.conf), tc->tenant_opensm_pid_file,
					d.store, err, sizeof(err)))) {
		log_err("ib_cc requests: %s", err);
		goto out;
	}
	if (!(d.tenants = tenants_new(d.base, &ti, d.store, err, sizeof(err)))) {
		log_err("tenant requests: %s", err);
		goto out;
	}
	if (!(d.telemetry = telemetry_new(d.base, &tm, d.store, err, sizeof(err)))) {
		log_err("counters: %s", err);
		goto out;
	}
	if (!(d.validate = validate_new(d.base, validate_conf_get(d.conf), d.store, err,
					sizeof(err)))) {
		log_err("validation: %s", err);
		goto out;
	}
	validate_set_mad(d.validate, &mad);
	if (!(d.slurm = slurm_new(d.base, slurm_conf_get(d.conf), &tc->hosts, d.conf->db_path, err,
				  sizeof(err)))) {
		log_err("slurm: %s", err);
		goto out;
	}
	if (!(d.isolation = isolation_new(d.base, isolation_conf_get(d.conf), d.conf->db_path,
					  d.store, err, sizeof(err)))) {
		log_err("isolation: %s", err);
		goto out;
	}
	isolation_set_job_index(d.isolation, telemetry_job_index(d.telemetry));
	isolation_set_slurm(d.isolation, d.slurm, &tc->hosts);
	telemetry_on_read(d.telemetry, isolation_on_read, d.isolation);
	if (!(d.names = names_new(names_conf_get(d.conf), d.store, err, sizeof(err)))) {
		log_err("names: %s", err);
		goto out;
	}
	set_names(&d);
	sweeper_on_swept(d.sweeper, on_swept, &d);
	qos_on_recorded(d.qos, validate_on_switches_read, d.validate); /* issue 43 */
	/* A link's down or degraded event names the jobs that crossed it. */
	sweeper_set_job_index(d.sweeper, telemetry_job_index(d.telemetry));
	if (!(d.queries = queries_new(d.base, d.ctl, store_db(d.store), err, sizeof(err)))) {
		log_err("fabric queries: %s", err);
		goto out;
	}
	queries_set_hosts(d.queries, &tc->hosts);
	if (!(d.metrics = http_metrics_new(d.base, http_conf_get(d.conf), d.conf->db_path, err,
					   sizeof(err)))) {
		log_err("http: %s", err);
		goto out;
	}
	{
		struct http_metrics_hooks hooks = { metrics_families, metrics_ready, &d };

		http_metrics_set_hooks(d.metrics, &hooks);
	}
	/* OpenSM's reports are stored on the loop's connection: they are few
	 * (a run per heavy sweep, a trap per link change) and small. */
	if (!(d.osm = osm_report_new(d.base, opensm_conf_get(d.conf)->osm_socket_path, d.store, err,
				     sizeof(err)))) {
		log_err("OpenSM report socket %s: %s", opensm_conf_get(d.conf)->osm_socket_path, err);
		goto out;
	}
	/* The plugin's channel asks OpenSM to re-read the files loom writes
	 * without a signal (loomd need not be root: docs/opensm-slurm.md). */
	tenants_set_opensm(d.tenants, d.osm);
	qos_ib_set_opensm(d.qos_ib, d.osm);
	qos_ibcc_set_opensm(d.qos_ibcc, d.osm);
	isolation_set_opensm(d.isolation, d.osm, tc->tenant_opensm_pid_file);
	osm_report_on_run(d.osm, isolation_on_run, d.isolation);
	/* A reroute turns AR off on NVIDIA switches: program it again. */
	osm_report_on_lft_change(d.osm, lft_changed, &d);
	/* A trap or a heavy sweep: discovery follows the change. */
	osm_report_on_change(d.osm, osm_changed, d.sweeper);
	telemetry_on_flap(d.telemetry, port_flapped, d.sweeper);
	if (ctl_handle(d.ctl, "status", cmd_status, &d) < 0 ||
	    sweeper_register(d.sweeper, d.ctl) < 0 || routes_register(d.routes, d.ctl) < 0 ||
	    ar_register(d.ar, d.ctl) < 0 || ar_apply_register(d.ar_apply, d.ctl) < 0 ||
	    qos_register(d.qos, d.ctl) < 0 || qos_ib_register(d.qos_ib, d.ctl) < 0 ||
	    qos_ibcc_register(d.qos_ibcc, d.ctl) < 0 ||
	    tenants_register(d.tenants, d.ctl) < 0 || telemetry_register(d.telemetry, d.ctl) < 0 ||
	    validate_register(d.validate, d.ctl) < 0 || slurm_register(d.slurm, d.ctl) < 0 ||
	    isolation_register(d.isolation, d.ctl) < 0 ||
	    osm_report_register(d.osm, d.ctl) < 0 || setup_signals(&d) < 0) {
		log_err("cannot register the daemon's commands and signals");
		goto out;
	}
	/* Every command lib/util/commands.c declares for loomd has its handler. */
	if (ctl_unhandled(d.ctl, err, sizeof(err))) {
		log_err("commands declared without a handler: %s", err);
		goto out;
	}
	/* Once every command has its handler: the front end's calls may come. */
	if (!(d.front = http_front_new(d.base, d.ctl, d.metrics, http_conf_get(d.conf),
				       d.conf->db_path, err, sizeof(err)))) {
		log_err("http: %s", err);
		goto out;
	}
	/* After tenants_register: the check asks the HA gate (a follower leaves
	 * the tenants to the leader, which checks them when it takes over). */
	(void)tenants_resume(d.tenants); /* failures are logged; requests still work */
	ha_watch(d.ha, "intent-seeded", tenants_watch_seeded, d.tenants); /* before tenants/ */
	ha_watch(d.ha, "tenants/", tenants_watch, d.tenants);
	ha_on_role(d.ha, on_role, &d);
	ha_watch(d.ha, "policy/", qos_watch, d.qos);
	ha_watch(d.ha, "policy/", qos_ib_watch, d.qos_ib);
	ha_watch(d.ha, "policy/", qos_ibcc_watch, d.qos_ibcc);
	ha_watch(d.ha, "isolation/", isolation_watch, d.isolation);
	if (ha_enabled(d.ha)) {
		struct intent_writer w = { ha_intent_put, ha_intent_putv, ha_intent_held, d.ha,
					   ha_name(d.ha) };

		tenants_set_intent(d.tenants, &w);
		qos_set_intent(d.qos, &w);
		qos_ib_set_intent(d.qos_ib, &w);
		qos_ibcc_set_intent(d.qos_ibcc, &w);
		ar_apply_set_intent(d.ar_apply, &w);
		isolation_set_intent(d.isolation, &w);
	}

	log_notice("loomd %s running: config %s, database %s, socket %s", PACKAGE_VERSION,
		   d.conf->path[0] ? d.conf->path : "(built-in defaults)", d.conf->db_path,
		   d.conf->socket_path);
	sweeper_trigger(d.sweeper); /* the first sweep starts at once */
	sdnotify("READY=1\nSTATUS=running");
	if (event_base_dispatch(d.base) < 0)
		log_err("event loop failed");
	else
		status = 0;
out:
	loomd_teardown(&d);
	if (status == 0)
		log_notice("loomd stopped");
	return status;
}
