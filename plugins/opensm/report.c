/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/report.c: what the plugin tells loomd: each routing run of
 * loom's engines (with the metrics of the new tables), SUBNET UP, traps,
 * SM state changes and how many switches' LFTs changed per sweep.
 *
 * One JSON object per datagram, sent with MSG_DONTWAIT on an unconnected
 * unix datagram socket to loomd's report socket ($LOOMOSM_SOCKET, default
 * LOSM_REPORT_SOCKET). Everything here runs on OpenSM's threads (sweeper,
 * receivers), so nothing may wait: when loomd is absent or its queue is
 * full the datagram is dropped and counted, and the next one that gets
 * through says how many were lost ("dropped"). Nothing is ever retried.
 *
 * The metrics of a run walk every CA pair through the tables, which takes
 * longer than the routing itself on large fabrics: a worker thread computes
 * them (and sends the run) while OpenSM goes on. At most one worker runs; a
 * run that arrives meanwhile is sent at once without metrics. The worker
 * runs at nice 19 (REPORT_NICE; Linux sets it per thread): on a machine
 * with few cores it must not slow OpenSM's sweep after a run. The worker is
 * joined, not detached: OpenSM unloads the plugin right after delete(), so
 * delete() must know that no thread still runs its code. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <opensm/osm_event_plugin.h>

#include "lib/route/route_metrics.h"
#include "lib/route/route_sl2vl.h"

/* A datagram: a run with its note, reason and metrics is about 1.5 KB. */
#define REPORT_MAX 4096

/* Metrics of a run: enough permutations to show hot spots, few enough that
 * a 10k-host fabric is judged in seconds (the pairs walk dominates). */
#define REPORT_SHIFTS 64
#define REPORT_RANDOM 4
#define REPORT_BISECT 4
#define REPORT_NICE 19   /* the worker's nice value */

struct losm_report {
	osm_opensm_t *osm;
	int fd;                        /* -1: reporting is off */
	struct sockaddr_un to;
	socklen_t to_len;
	atomic_ulong seq;
	atomic_ulong dropped;          /* lost since the last one that got through */
	atomic_int failing;            /* the last send failed (logged once) */

	pthread_mutex_t lock;          /* guards everything below */
	/* LFT changes of the current sweep: the distinct switches (an open
	 * addressing set of node GUIDs, 0 = free) and the blocks. */
	uint64_t *sw_set;
	size_t sw_cap, n_sw, n_blocks, n_tops;
	/* Traps 64/65 (GID in/out of service) come once per port on a sweep
	 * that finds new ports: counted, and sent with SUBNET UP. */
	size_t gids_in, gids_out;
	struct timespec sweep_start;
	uint8_t sm_state;              /* the last one reported */
	int worker_busy, worker_joinable;
	pthread_t worker;
};

/* ---- JSON text ---------------------------------------------------------------- */

/* A message being written; a message that does not fit is not sent. */
struct jbuf {
	char s[REPORT_MAX];
	size_t len;
	int full;
};

static void jb_printf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b->s) - b->len)
		b->full = 1;
	else
		b->len += (size_t)n;
}

/* ,"key":"value" with JSON escapes. Node descriptions and notes are bytes,
 * JSON is UTF-8: bytes outside ASCII become '?' so that loomd's parser never
 * refuses a whole report for one name. NULL writes null. */
static void jb_str(struct jbuf *b, const char *key, const char *v)
{
	jb_printf(b, ",\"%s\":", key);
	if (!v) {
		jb_printf(b, "null");
		return;
	}
	jb_printf(b, "\"");
	for (const unsigned char *c = (const unsigned char *)v; *c && !b->full; c++) {
		if (*c == '"' || *c == '\\')
			jb_printf(b, "\\%c", *c);
		else if (*c < 0x20)
			jb_printf(b, "\\u%04x", *c);
		else
			jb_printf(b, "%c", *c >= 0x7f ? '?' : *c);
	}
	jb_printf(b, "\"");
}

static double now_unix(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The fields every message has. The SM's port GUID tells loomd which of its
 * subnets this OpenSM manages; it is known from OpenSM's start (0 before). */
static void msg_begin(struct losm_report *rep, struct jbuf *b, const char *type,
		      unsigned long *dropped)
{
	*dropped = atomic_exchange(&rep->dropped, 0);
	b->len = 0;
	b->full = 0;
	jb_printf(b, "{\"v\":1");
	jb_str(b, "type", type);
	jb_printf(b, ",\"time\":%.3f,\"pid\":%ld,\"sm_guid\":\"0x%016" PRIx64 "\","
		  "\"seq\":%lu,\"dropped\":%lu", now_unix(), (long)getpid(),
		  cl_ntoh64(rep->osm->subn.sm_port_guid), atomic_fetch_add(&rep->seq, 1) + 1,
		  *dropped);
}

/* Close the object and send it, never waiting. A failure is counted (with
 * the count this message carried) and logged once until a send works. */
static void msg_send(struct losm_report *rep, struct jbuf *b, unsigned long dropped)
{
	ssize_t n = -1;
	int e = EMSGSIZE;

	jb_printf(b, "}");
	if (!b->full) {
		n = sendto(rep->fd, b->s, b->len, MSG_DONTWAIT | MSG_NOSIGNAL,
			   (const struct sockaddr *)&rep->to, rep->to_len);
		e = errno;
	}
	if (n == (ssize_t)b->len) {
		if (atomic_exchange(&rep->failing, 0))
			OSM_LOG(&rep->osm->log, OSM_LOG_INFO,
				"loomosm: reporting to loomd at %s again\n", rep->to.sun_path);
		return;
	}
	atomic_fetch_add(&rep->dropped, dropped + 1);
	if (!atomic_exchange(&rep->failing, 1))
		OSM_LOG(&rep->osm->log, OSM_LOG_INFO,
			"loomosm: cannot report to loomd at %s (%s): reports are dropped "
			"(and counted) until it listens\n", rep->to.sun_path, strerror(e));
}

/* ---- routing runs ------------------------------------------------------------- */

/* A finished run, as the worker needs it: OpenSM's structures may change
 * as soon as routing returns, the tables in res are held. */
struct run_job {
	struct losm_report *rep;
	struct losm_result *res;       /* held; NULL for a failed run */
	struct rt_sl2vl *sl2vl;        /* the SL2VL tables it will run on, or NULL */
	double time, duration_ms;
	char engine[32], routed_by[32];
	char note[sizeof(((struct rt_lfts *)0)->note)];
	char reason[256];
	unsigned vls;
	size_t switches, ca_ports, routed, unreachable;
	uint64_t iso_version;          /* loomd's isolated set in force (osm_isolated.c) */
	unsigned iso_links;            /* links it left out */
};

static void send_run(struct run_job *j, const struct rt_metrics *m, double metrics_ms,
		     const char *no_metrics)
{
	struct jbuf b;
	unsigned long dropped;

	msg_begin(j->rep, &b, "routing_run", &dropped);
	jb_str(&b, "engine", j->engine);
	jb_str(&b, "routed_by", j->routed_by[0] ? j->routed_by : NULL);
	jb_str(&b, "result", j->res ? "ok" : "failed");
	jb_str(&b, "reason", j->res ? NULL : j->reason);
	jb_str(&b, "note", j->note);
	jb_printf(&b, ",\"started\":%.3f,\"duration_ms\":%.3f,\"vls\":%u,\"switches\":%zu,"
		  "\"ca_ports\":%zu,\"entries_routed\":%zu,\"entries_unreachable\":%zu",
		  j->time, j->duration_ms, j->vls, j->switches, j->ca_ports, j->routed,
		  j->unreachable);
	jb_printf(&b, ",\"isolated_version\":%" PRIu64 ",\"isolated\":%u", j->iso_version,
		  j->iso_links);
	if (m) {
		/* The keys of lib/route/route_live.h's rl_metrics_json. */
		jb_printf(&b, ",\"metrics_ms\":%.3f,\"metrics\":{\"pairs\":%zu,\"delivered\":%zu,"
			  "\"unreachable\":%zu,\"loops\":%zu,\"max_hops\":%zu,\"efi_max\":%zu,"
			  "\"efi_mean\":%.3f,\"efi_links\":%zu,\"shifts\":%zu,"
			  "\"shift_max_load\":%zu,\"shift_worst_k\":%zu,\"randoms\":%zu,"
			  "\"random_max_load\":%zu,\"cdg_acyclic\":%s,\"cdg_vls\":%zu,"
			  "\"cdg_edges\":%zu,\"bisections\":%zu,\"ebb\":%.4f,"
			  "\"cdg_sl2vl\":%s,\"cdg_vl_changes\":%zu,\"cdg_vl_loop\":%s,"
			  "\"cdg_cycle_vl\":%d}",
			  metrics_ms, m->pairs, m->delivered, m->unreachable, m->loops,
			  m->max_hops, m->efi_max, m->efi_mean, m->efi_links, m->shifts,
			  m->shift_max_load, m->shift_worst_k, m->randoms, m->random_max_load,
			  m->cdg_acyclic ? "true" : "false", m->cdg_vls, m->cdg_edges,
			  m->bisections, m->ebb, m->cdg_sl2vl ? "true" : "false",
			  m->cdg_vl_changes, m->cdg_vl_loop ? "true" : "false", m->cdg_cycle_vl);
	} else {
		jb_printf(&b, ",\"metrics\":null");
		if (no_metrics)
			jb_str(&b, "metrics_skipped", no_metrics);
	}
	msg_send(j->rep, &b, dropped);
}

static void job_free(struct run_job *j)
{
	rt_sl2vl_free(j->sl2vl);
	losm_result_free(j->res);
	free(j);
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void *run_worker(void *arg)
{
	struct run_job *j = arg;
	struct losm_report *rep = j->rep;
	struct rt_metrics_opts o = {
		.max_shifts = REPORT_SHIFTS, .n_random = REPORT_RANDOM, .seed = 1,
		.n_bisect = REPORT_BISECT,
	};
	struct rt_metrics m;
	struct timespec t0;

	o.sl2vl = j->sl2vl;  /* NULL: SL s on VL s */
	/* The lowest priority, this thread alone: where the CPU is short,
	 * OpenSM's sweep (and on a test bed ibsim) get nearly all of it. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), REPORT_NICE) < 0)
		OSM_LOG(&rep->osm->log, OSM_LOG_VERBOSE,
			"loomosm: the metrics run at OpenSM's priority (setpriority: %s)\n",
			strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rt_metrics_compute(j->res->g, j->res->l, &o, &m) == 0)
		send_run(j, &m, elapsed_ms(&t0), NULL);
	else
		send_run(j, NULL, 0, "out of memory");
	job_free(j);
	pthread_mutex_lock(&rep->lock);
	rep->worker_busy = 0;
	pthread_mutex_unlock(&rep->lock);
	return NULL;
}

/* Which lib engine routed: "loom" says it in its note ("loom chose ftree:
 * ..."), the others are themselves; an incremental reroute
 * (route_reroute.c: "rerouted N destinations ...") is "reroute". */
static void routed_by(const struct losm_engine *e, const struct rt_lfts *l, char *buf,
		      size_t len)
{
	char chosen[32];

	if (l && strncmp(l->note, "rerouted ", 9) == 0)
		snprintf(buf, len, "reroute");
	else if (strcmp(e->eng->name, "loom") != 0)
		snprintf(buf, len, "%s", e->eng->name);
	else if (l && sscanf(l->note, "loom chose %31[a-z0-9_-]", chosen) == 1)
		snprintf(buf, len, "%s", chosen);
	else
		buf[0] = '\0';
}

void losm_report_run(struct losm_engine *e, struct losm_result *r, double secs,
		     const char *error)
{
	struct losm_report *rep = e->plugin->report;
	struct run_job *j;
	int rc;

	if (!rep || rep->fd < 0)
		return;
	if (!(j = calloc(1, sizeof(*j)))) {
		atomic_fetch_add(&rep->dropped, 1);
		return;
	}
	j->rep = rep;
	j->time = now_unix() - secs;
	j->duration_ms = secs * 1e3;
	snprintf(j->engine, sizeof(j->engine), "%s", e->name);
	if (r && r->g) {
		j->switches = r->g->n_sw;
		j->ca_ports = r->g->n_ca;
	}
	if (r) {
		j->iso_version = r->iso_version;
		j->iso_links = r->iso_links;
	}
	if (error) {
		snprintf(j->reason, sizeof(j->reason), "%s", error);
		send_run(j, NULL, 0, NULL);
		free(j);
		return;
	}
	routed_by(e, r->l, j->routed_by, sizeof(j->routed_by));
	snprintf(j->note, sizeof(j->note), "%s", r->l->note);
	j->vls = r->l->n_vls ? r->l->n_vls : 1;
	j->routed = r->l->n_routed;
	j->unreachable = r->l->n_unreachable;
	j->res = losm_result_hold(r);
	j->sl2vl = losm_sl2vl_tables(e, r);

	pthread_mutex_lock(&rep->lock);
	if (rep->worker_busy) {
		pthread_mutex_unlock(&rep->lock);
		send_run(j, NULL, 0, "the previous run's metrics were still being computed");
		job_free(j);
		return;
	}
	/* The previous worker has finished (not busy): joining it is
	 * immediate, and keeps at most one thread to join at unload. */
	if (rep->worker_joinable)
		pthread_join(rep->worker, NULL);
	rep->worker_joinable = 0;
	rc = pthread_create(&rep->worker, NULL, run_worker, j);
	if (rc == 0)
		rep->worker_busy = rep->worker_joinable = 1;
	pthread_mutex_unlock(&rep->lock);
	if (rc != 0) {
		send_run(j, NULL, 0, "no thread to compute them");
		job_free(j);
	}
}

/* ---- OpenSM's events ---------------------------------------------------------- */

static const char *sm_state_name(uint8_t s)
{
	switch (s) {
	case IB_SMINFO_STATE_NOTACTIVE: return "not active";
	case IB_SMINFO_STATE_DISCOVERING: return "discovering";
	case IB_SMINFO_STATE_STANDBY: return "standby";
	case IB_SMINFO_STATE_MASTER: return "master";
	default: return "unknown";
	}
}

/* Add a switch to the set of this sweep's changed LFTs (under rep->lock).
 * A set that cannot grow still counts blocks; the switch count is then a
 * lower bound, which is all an operator reads from it. */
static void lft_add(struct losm_report *rep, uint64_t guid)
{
	size_t i;

	if (!guid)
		return;
	if (2 * (rep->n_sw + 1) > rep->sw_cap) {
		size_t cap = rep->sw_cap ? 2 * rep->sw_cap : 256;
		uint64_t *set = calloc(cap, sizeof(*set));

		if (!set)
			return;
		for (size_t k = 0; k < rep->sw_cap; k++) {
			if (!rep->sw_set[k])
				continue;
			for (i = rep->sw_set[k] & (cap - 1); set[i]; i = (i + 1) & (cap - 1))
				;
			set[i] = rep->sw_set[k];
		}
		free(rep->sw_set);
		rep->sw_set = set;
		rep->sw_cap = cap;
	}
	/* GUIDs of one vendor differ in their low bits: a fine hash. */
	for (i = guid & (rep->sw_cap - 1); rep->sw_set[i]; i = (i + 1) & (rep->sw_cap - 1))
		if (rep->sw_set[i] == guid)
			return;
	rep->sw_set[i] = guid;
	rep->n_sw++;
}

/* Send the LFT changes gathered since the last flush, if any. */
static void lft_flush(struct losm_report *rep, const char *when)
{
	size_t n_sw, n_blocks, n_tops;
	struct jbuf b;
	unsigned long dropped;

	pthread_mutex_lock(&rep->lock);
	n_sw = rep->n_sw;
	n_blocks = rep->n_blocks;
	n_tops = rep->n_tops;
	if (rep->sw_set)
		memset(rep->sw_set, 0, rep->sw_cap * sizeof(*rep->sw_set));
	rep->n_sw = rep->n_blocks = rep->n_tops = 0;
	pthread_mutex_unlock(&rep->lock);
	if (!n_sw)
		return;
	msg_begin(rep, &b, "lft_change", &dropped);
	jb_printf(&b, ",\"switches\":%zu,\"blocks\":%zu,\"top_changes\":%zu", n_sw, n_blocks,
		  n_tops);
	jb_str(&b, "after", when);
	msg_send(rep, &b, dropped);
}

/* Trap numbers OpenSM passes on, by what they say about the fabric. */
static const char *trap_name(unsigned n)
{
	switch (n) {
	case 64: return "GID in service";
	case 65: return "GID out of service";
	case 66: return "multicast group created";
	case 67: return "multicast group deleted";
	case 128: return "link state change";
	case 129: return "local link integrity threshold";
	case 130: return "excessive buffer overrun threshold";
	case 131: return "flow control update watchdog";
	case 144: return "capability mask change";
	case 145: return "system image GUID change";
	case 256: return "bad M_Key";
	case 257: return "bad P_Key";
	case 258: return "bad Q_Key";
	case 259: return "bad P_Key at a switch port";
	default: return NULL;
	}
}

static void on_trap(struct losm_report *rep, const ib_mad_notice_attr_t *ntc)
{
	struct jbuf b;
	unsigned long dropped;
	unsigned num;

	if (!ntc)
		return;
	if (!ib_notice_is_generic(ntc)) {
		msg_begin(rep, &b, "trap", &dropped);
		jb_printf(&b, ",\"generic\":false,\"vendor_id\":%u,\"trap\":%u,\"issuer_lid\":%u",
			  (unsigned)cl_ntoh32(ib_notice_get_vend_id(ntc)),
			  (unsigned)cl_ntoh16(ntc->g_or_v.vend.dev_id),
			  (unsigned)cl_ntoh16(ntc->issuer_lid));
		msg_send(rep, &b, dropped);
		return;
	}
	num = cl_ntoh16(ntc->g_or_v.generic.trap_num);
	if (num == 64 || num == 65 || num == 66 || num == 67) {
		/* OpenSM itself announces every new port (64) on a sweep and
		 * multicast groups (66/67) as clients join: one datagram each
		 * would flood loomd on large fabrics for nothing a sweep of
		 * loomd does not see. 64/65 are counted into SUBNET UP. */
		pthread_mutex_lock(&rep->lock);
		if (num == 64)
			rep->gids_in++;
		else if (num == 65)
			rep->gids_out++;
		pthread_mutex_unlock(&rep->lock);
		return;
	}
	msg_begin(rep, &b, "trap", &dropped);
	jb_printf(&b, ",\"generic\":true,\"trap\":%u", num);
	jb_str(&b, "name", trap_name(num));
	jb_printf(&b, ",\"issuer_lid\":%u", (unsigned)cl_ntoh16(ntc->issuer_lid));
	if (num == 128)
		jb_printf(&b, ",\"lid\":%u", (unsigned)cl_ntoh16(ntc->data_details.ntc_128.sw_lid));
	else if (num >= 129 && num <= 131)
		jb_printf(&b, ",\"lid\":%u,\"port\":%u",
			  (unsigned)cl_ntoh16(ntc->data_details.ntc_129_131.lid),
			  (unsigned)ntc->data_details.ntc_129_131.port_num);
	msg_send(rep, &b, dropped);
}

void losm_report_event(struct losm_report *rep, osm_epi_event_id_t id, void *data)
{
	osm_subn_t *subn;
	struct jbuf b;
	unsigned long dropped;

	if (!rep || rep->fd < 0)
		return;
	subn = &rep->osm->subn;
	switch (id) {
	case OSM_EVENT_ID_TRAP:
		on_trap(rep, data);
		break;
	case OSM_EVENT_ID_LFT_CHANGE: {
		const osm_epi_lft_change_event_t *ev = data;

		if (!ev || !ev->p_sw || !ev->p_sw->p_node)
			break;
		pthread_mutex_lock(&rep->lock);
		lft_add(rep, cl_ntoh64(osm_node_get_node_guid(ev->p_sw->p_node)));
		if (ev->flags & LFT_CHANGED_BLOCK)
			rep->n_blocks++;
		if (ev->flags & LFT_CHANGED_LFT_TOP)
			rep->n_tops++;
		pthread_mutex_unlock(&rep->lock);
		break;
	}
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
		/* Changes left from a sweep that ended early belong to it. */
		lft_flush(rep, "an interrupted sweep");
		pthread_mutex_lock(&rep->lock);
		clock_gettime(CLOCK_MONOTONIC, &rep->sweep_start);
		pthread_mutex_unlock(&rep->lock);
		break;
	case OSM_EVENT_ID_HEAVY_SWEEP_DONE: {
		double ms;

		pthread_mutex_lock(&rep->lock);
		ms = elapsed_ms(&rep->sweep_start);
		pthread_mutex_unlock(&rep->lock);
		msg_begin(rep, &b, "heavy_sweep", &dropped);
		jb_printf(&b, ",\"discovery_ms\":%.3f,\"nodes\":%u,\"switches\":%u", ms,
			  (unsigned)cl_qmap_count(&subn->node_guid_tbl),
			  (unsigned)cl_qmap_count(&subn->sw_guid_tbl));
		msg_send(rep, &b, dropped);
		break;
	}
	case OSM_EVENT_ID_UCAST_ROUTING_DONE: {
		/* OpenSM has waited for every Set(LFT) to be answered: the
		 * sweep's LFT changes are complete. */
		int reroute = (osm_epi_ucast_routing_flags_t)(intptr_t)data == UCAST_ROUTING_REROUTE;
		const struct osm_routing_engine *used = rep->osm->routing_engine_used;

		lft_flush(rep, reroute ? "reroute" : "heavy sweep");
		msg_begin(rep, &b, "routing_done", &dropped);
		jb_str(&b, "engine", used && used->name ? used->name : NULL);
		jb_printf(&b, ",\"reroute\":%s", reroute ? "true" : "false");
		msg_send(rep, &b, dropped);
		break;
	}
	case OSM_EVENT_ID_SUBNET_UP: {
		size_t in, out;

		lft_flush(rep, "heavy sweep");
		pthread_mutex_lock(&rep->lock);
		in = rep->gids_in;
		out = rep->gids_out;
		rep->gids_in = rep->gids_out = 0;
		pthread_mutex_unlock(&rep->lock);
		msg_begin(rep, &b, "subnet_up", &dropped);
		jb_printf(&b, ",\"nodes\":%u,\"switches\":%u,\"ports\":%u,\"gids_in\":%zu,"
			  "\"gids_out\":%zu", (unsigned)cl_qmap_count(&subn->node_guid_tbl),
			  (unsigned)cl_qmap_count(&subn->sw_guid_tbl),
			  (unsigned)cl_qmap_count(&subn->port_guid_tbl), in, out);
		jb_str(&b, "sm_state", sm_state_name(subn->sm_state));
		msg_send(rep, &b, dropped);
		break;
	}
	case OSM_EVENT_ID_STATE_CHANGE: {
		uint8_t now = subn->sm_state, old;

		pthread_mutex_lock(&rep->lock);
		old = rep->sm_state;
		rep->sm_state = now;
		pthread_mutex_unlock(&rep->lock);
		if (old == now)
			break;
		msg_begin(rep, &b, "sm_state", &dropped);
		jb_str(&b, "state", sm_state_name(now));
		jb_str(&b, "old", sm_state_name(old));
		msg_send(rep, &b, dropped);
		break;
	}
	default:
		/* Port counters (perfmgr) and SA dumps: not loomd's business. */
		break;
	}
}

struct losm_report *losm_report_new(osm_opensm_t *osm)
{
	struct losm_report *rep = calloc(1, sizeof(*rep));
	const char *path = getenv("LOOMOSM_SOCKET");

	if (!rep)
		return NULL;
	rep->osm = osm;
	rep->fd = -1;
	rep->sm_state = osm->subn.sm_state;
	pthread_mutex_init(&rep->lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &rep->sweep_start);
	if (!path || !*path)
		path = LOSM_REPORT_SOCKET;
	if (path[0] != '/' || strlen(path) >= sizeof(rep->to.sun_path)) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM04: loomosm: LOOMOSM_SOCKET \"%s\" is "
			"not an absolute path of at most %zu bytes: nothing is reported to "
			"loomd\n", path, sizeof(rep->to.sun_path) - 1);
		return rep;
	}
	rep->to.sun_family = AF_UNIX;
	memcpy(rep->to.sun_path, path, strlen(path) + 1);
	rep->to_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	rep->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (rep->fd < 0) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM04: loomosm: no socket to report to "
			"loomd (%s): nothing is reported\n", strerror(errno));
		return rep;
	}
	/* An abstract name of the kernel's choosing (autobind): loomd sees
	 * where each report comes from and sends its requests there
	 * (request.c). Without it, reports still go. */
	if (bind(rep->fd, (const struct sockaddr *)&(struct sockaddr_un){ .sun_family = AF_UNIX },
		 sizeof(sa_family_t)) < 0)
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM04: loomosm: cannot bind the report "
			"socket (%s): loomd's requests are not heard\n", strerror(errno));
	else
		OSM_LOG(&osm->log, OSM_LOG_INFO, "loomosm: reporting to loomd at %s\n", path);
	return rep;
}

int losm_report_socket(const struct losm_report *rep, struct sockaddr_un *to)
{
	if (!rep || rep->fd < 0)
		return -1;
	if (to)
		*to = rep->to;
	return rep->fd;
}

void losm_report_free(struct losm_report *rep)
{
	int joinable;

	if (!rep)
		return;
	pthread_mutex_lock(&rep->lock);
	joinable = rep->worker_joinable;
	rep->worker_joinable = 0;
	pthread_mutex_unlock(&rep->lock);
	if (joinable)
		pthread_join(rep->worker, NULL);
	if (rep->fd >= 0)
		close(rep->fd);
	pthread_mutex_destroy(&rep->lock);
	free(rep->sw_set);
	free(rep);
}
