/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/osm_report.c: the reports of OpenSM's libloomosm.so (see
 * osm_report.h): a unix datagram socket read on the event loop, each
 * datagram one JSON object, checked and stored.
 *
 * Datagrams rather than a stream: the plugin sends without ever waiting
 * and without a connection to keep (OpenSM must not notice whether loomd
 * runs), and each report arrives whole or not at all. What loomd cannot
 * take in time the kernel refuses to the sender, which counts it; loomd
 * learns the count from the next report that gets through. */
#include "autoconf.h"
#include "daemon/routing/osm_report.h"
#include "daemon/core/usock.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "lib/util/clock.h"
#include "daemon/core/ctl.h"
#include "lib/db/db_query.h"
#include "lib/fabric/ibtypes.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "daemon/core/store.h"
#include "daemon/routing/store_routing.h"
#include "daemon/ib/store_sweep.h"

/* Larger than any report the plugin writes (4 KiB): a longer datagram is
 * not ours. */
#define OSM_REPORT_MAX 16384
/* Datagrams handled per wakeup, in one transaction: bounded so that a
 * flood of traps cannot keep the loop from serving loomctl. */
#define OSM_REPORT_BATCH 64

struct osm_report {
	struct event_base *base;
	struct event *ev;
	struct store *st;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned long refused;    /* malformed reports, for rate-limited logging */
	int warned_unknown;
	void (*lft_fn)(void *arg, uint64_t sm_guid);  /* osm_report_on_lft_change */
	void *lft_arg;
	osm_report_change_fn change_fn;               /* osm_report_on_change */
	void *change_arg;
	void (*run_fn)(void *arg, const struct osm_run_info *run);  /* osm_report_on_run */
	void *run_arg;
	/* The plugin that last sent a valid report from an address of its
	 * own (its autobound abstract name): where requests go. */
	struct sockaddr_un peer;
	socklen_t peer_len;       /* 0: none yet */
	int peer_pid;
	int last_pid;             /* the pid of the report handled last */
	char buf[OSM_REPORT_MAX]; /* one datagram */
};

/* ---- the socket ---------------------------------------------------------------- */

static int bind_socket(const struct sockaddr_un *sa, char *err, size_t errlen)
{
	if (usock_make_parent_dir(sa->sun_path, err, errlen) < 0 ||
	    usock_clear_stale(sa, SOCK_DGRAM, "OpenSM reports", err, errlen) < 0)
		return -1;
	/* Only root (OpenSM) and loomd's group may write into loom's history;
	 * nobody reads from a datagram socket's path. */
	return usock_bind(sa, SOCK_DGRAM, 0660, 0, err, errlen);
}

/* ---- checking a report ---------------------------------------------------------- */

/* What every report carries. */
struct head {
	const char *type;
	double time;
	int pid;
	uint64_t sm_guid;
	long long seq, dropped;
	char sm[40];              /* "OpenSM 0x..." for subjects and logs */
};

/* Refuse a report: logged for the first few and then every 100th, so that
 * a broken sender cannot fill the journal. */
static int refuse(struct osm_report *r, const char *why, const char *type)
{
	r->refused++;
	if (r->refused <= 5 || r->refused % 100 == 0)
		log_warn("OpenSM reports: refused a%s%s report (%s; %lu refused so far)",
			 type ? " " : "", type ? type : "", why, r->refused);
	return -EINVAL;
}

static const char *str_or_null(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* An integer field >= 0, or -1 when missing or of another type. */
static long long count_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v)
								  : -1;
}

static int read_head(struct osm_report *r, json_t *msg, struct head *h)
{
	json_t *v = json_object_get(msg, "v"), *t = json_object_get(msg, "time");
	const char *guid = str_or_null(msg, "sm_guid");

	h->type = str_or_null(msg, "type");
	if (!json_is_integer(v) || json_integer_value(v) != 1)
		return refuse(r, "not version 1", h->type);
	if (!h->type || !json_is_number(t) || !isfinite(json_number_value(t)) || !guid ||
	    ibt_guid_parse(guid, &h->sm_guid) < 0 || count_of(msg, "pid") < 0)
		return refuse(r, "type, time, pid or sm_guid missing or wrong", h->type);
	h->time = json_number_value(t);
	h->pid = (int)count_of(msg, "pid");
	h->seq = count_of(msg, "seq");
	h->dropped = count_of(msg, "dropped");
	snprintf(h->sm, sizeof(h->sm), "OpenSM 0x%016" PRIx64, h->sm_guid);
	return 0;
}

/* ---- storing ---------------------------------------------------------------------- */

static int store_run(struct osm_report *r, const struct head *h, json_t *msg, double received)
{
	const char *result = str_or_null(msg, "result");
	json_t *dur = json_object_get(msg, "duration_ms"), *started = json_object_get(msg, "started");
	json_t *metrics = json_object_get(msg, "metrics");
	struct store_routing_run run = {
		.time = json_is_number(started) ? json_number_value(started) : h->time,
		.received = received,
		.sm_guid = h->sm_guid,
		.sm_pid = h->pid,
		.engine = str_or_null(msg, "engine"),
		.routed_by = str_or_null(msg, "routed_by"),
		.note = str_or_null(msg, "note"),
		.reason = str_or_null(msg, "reason"),
		.vls = (int)count_of(msg, "vls"),
		.switches = count_of(msg, "switches"),
		.ca_ports = count_of(msg, "ca_ports"),
		.entries_routed = count_of(msg, "entries_routed"),
		.entries_unreachable = count_of(msg, "entries_unreachable"),
	};
	char *metrics_text = NULL;
	json_t *iso_version;
	struct osm_run_info info;
	int rc;

	if (!run.engine || !result || (strcmp(result, "ok") && strcmp(result, "failed")) ||
	    !json_is_number(dur) || run.vls < 0 || run.switches < 0 || run.ca_ports < 0 ||
	    run.entries_routed < 0 || run.entries_unreachable < 0 ||
	    (metrics && !json_is_object(metrics) && !json_is_null(metrics)))
		return refuse(r, "engine, result, duration or counts missing or wrong", h->type);
	run.ok = strcmp(result, "ok") == 0;
	run.duration_ms = json_number_value(dur);
	/* loomd's isolated set in force for the run (issue 42): absent from an
	 * older plugin's reports, version 0. */
	iso_version = json_object_get(msg, "isolated_version");
	if (iso_version && (!json_is_integer(iso_version) || json_integer_value(iso_version) < 0 ||
			    count_of(msg, "isolated") < 0 || count_of(msg, "isolated") > UINT_MAX))
		return refuse(r, "isolated_version or isolated wrong", h->type);
	/* Stored as text, re-encoded compactly: what was parsed, not the
	 * sender's bytes. */
	if (json_is_object(metrics) && !(metrics_text = json_dumps(metrics, JSON_COMPACT))) {
		log_err("OpenSM reports: out of memory");
		return -ENOMEM;
	}
	run.metrics = metrics_text;
	info = (struct osm_run_info){
		.engine = run.engine, .ok = run.ok, .secs = run.duration_ms / 1e3,
		.isolated_version = iso_version ? (uint64_t)json_integer_value(iso_version) : 0,
		.isolated = iso_version ? (unsigned)count_of(msg, "isolated") : 0,
	};
	rc = store_record_routing_run(r->st, &run, NULL);
	if (rc == 0 && !run.ok) {
		char what[320];

		snprintf(what, sizeof(what), "%s failed: %s", run.engine,
			 run.reason ? run.reason : "no reason given");
		rc = store_record_osm_event(r->st, h->time, h->sm_guid, "warning",
					    "osm_routing_failed", h->sm, "", what);
	}
	if (rc == 0 && run.ok) {
		json_t *m = json_object_get(msg, "metrics");

		log_info("%s: %s routed (by %s) %lld switches, %lld CA ports in %.1f ms, %d VL%s; "
			 "pairs %lld of %lld delivered; isolated set version %" PRIu64 ", %u link%s "
			 "left out", h->sm, run.engine,
			 run.routed_by ? run.routed_by : "?", (long long)run.switches,
			 (long long)run.ca_ports, run.duration_ms, run.vls, run.vls == 1 ? "" : "s",
			 (long long)count_of(m, "delivered"), (long long)count_of(m, "pairs"),
			 info.isolated_version, info.isolated, info.isolated == 1 ? "" : "s");
	} else if (rc == 0) {
		log_warn("%s: routing engine %s failed (%s); OpenSM used its next engine", h->sm,
			 run.engine, run.reason ? run.reason : "no reason given");
	}
	/* The listener hears of the run once it is stored. */
	if (rc == 0 && r->run_fn)
		r->run_fn(r->run_arg, &info);
	free(metrics_text);
	return rc;
}

/* Hand a change to the listener (osm_report_on_change), with the subnet
 * loomd sweeps that has the reporting OpenSM's port: a report about a
 * subnet loomd does not sweep, or before its first sweep, goes nowhere. */
static void tell_change(struct osm_report *r, const struct head *h, unsigned lid,
			unsigned nodes)
{
	char subnet[128];

	if (r->change_fn && h->sm_guid &&
	    store_subnet_of_port(r->st, h->sm_guid, subnet, sizeof(subnet)) > 0)
		r->change_fn(r->change_arg, subnet, lid, nodes);
}

/* Trap numbers that say a port's link changed or misbehaves. */
static const char *trap_severity(long long n, int generic)
{
	if (!generic)
		return "notice";
	if ((n >= 128 && n <= 131) || (n >= 256 && n <= 259))
		return "warning";
	return "notice";
}

static int store_trap(struct osm_report *r, const struct head *h, json_t *msg)
{
	int generic = json_is_true(json_object_get(msg, "generic"));
	long long num = count_of(msg, "trap"), issuer = count_of(msg, "issuer_lid");
	long long lid = count_of(msg, "lid"), port = count_of(msg, "port");
	const char *name = str_or_null(msg, "name");
	char subject[160], what[160], desc[80];
	int n, rc;

	if (num < 0 || issuer < 0)
		return refuse(r, "trap number or issuer LID missing", h->type);
	if (lid < 0)
		lid = issuer;
	/* The LID as loomd's sweeps know it: operators read names. */
	store_osm_lid_desc(r->st, h->sm_guid, (unsigned)lid, desc, sizeof(desc));
	n = snprintf(subject, sizeof(subject), "lid %lld", lid);
	if (port >= 0)
		n += snprintf(subject + n, sizeof(subject) - (size_t)n, " port %lld", port);
	if (desc[0])
		snprintf(subject + n, sizeof(subject) - (size_t)n, " \"%s\"", desc);
	if (generic)
		snprintf(what, sizeof(what), "trap %lld%s%s", num, name ? ": " : "", name ? name : "");
	else
		snprintf(what, sizeof(what), "vendor trap %lld (vendor 0x%06llx)", num,
			 (unsigned long long)count_of(msg, "vendor_id"));
	log_notice("%s: %s from %s", h->sm, what, subject);
	rc = store_record_osm_event(r->st, h->time, h->sm_guid, trap_severity(num, generic),
				    "osm_trap", subject, "", what);
	/* A port of that switch changed state: discovery walks it again. */
	if (generic && num == 128)
		tell_change(r, h, (unsigned)lid, 0);
	return rc;
}

static int store_event(struct osm_report *r, const struct head *h, json_t *msg)
{
	char what[200];

	if (strcmp(h->type, "subnet_up") == 0) {
		snprintf(what, sizeof(what), "up: %lld nodes, %lld switches, %lld ports",
			 count_of(msg, "nodes"), count_of(msg, "switches"), count_of(msg, "ports"));
		log_info("%s: SUBNET UP (%s)", h->sm, what + 4);
		/* After OpenSM brought ports to Active: what discovery last
		 * followed is walked again (or all, if the counts differ). Not
		 * at heavy_sweep: OpenSM's node table still holds the nodes it
		 * is about to drop then. */
		if (count_of(msg, "nodes") > 0)
			tell_change(r, h, 0, (unsigned)count_of(msg, "nodes"));
		return store_record_osm_event(r->st, h->time, h->sm_guid, "info", "osm_subnet_up",
					      h->sm, "", what);
	}
	if (strcmp(h->type, "lft_change") == 0) {
		long long sw = count_of(msg, "switches"), blocks = count_of(msg, "blocks");

		if (sw < 0)
			return refuse(r, "switch count missing", h->type);
		snprintf(what, sizeof(what), "%lld switch%s, %lld LFT block%s", sw,
			 sw == 1 ? "" : "es", blocks, blocks == 1 ? "" : "s");
		log_info("%s: forwarding tables changed on %s", h->sm, what);
		if (r->lft_fn && blocks != 0)
			r->lft_fn(r->lft_arg, h->sm_guid);
		return store_record_osm_event(r->st, h->time, h->sm_guid, "info", "osm_lft_change",
					      h->sm, "", what);
	}
	if (strcmp(h->type, "sm_state") == 0) {
		const char *state = str_or_null(msg, "state"), *old = str_or_null(msg, "old");

		if (!state)
			return refuse(r, "state missing", h->type);
		log_notice("%s: SM state %s -> %s", h->sm, old ? old : "?", state);
		return store_record_osm_event(r->st, h->time, h->sm_guid, "notice", "osm_sm_state",
					      h->sm, old, state);
	}
	if (strcmp(h->type, "heavy_sweep") == 0 || strcmp(h->type, "routing_done") == 0) {
		/* The runs and SUBNET UP tell the story; these help debugging. */
		log_debug("%s: %s (engine %s)", h->sm, h->type,
			  str_or_null(msg, "engine") ? str_or_null(msg, "engine") : "-");
		return 0;
	}
	if (!r->warned_unknown) {
		r->warned_unknown = 1;
		log_info("OpenSM reports: ignoring reports of type \"%s\" (a newer plugin?)",
			 h->type);
	}
	return 0;
}

void osm_report_on_lft_change(struct osm_report *r, void (*fn)(void *arg, uint64_t sm_guid),
			      void *arg)
{
	r->lft_fn = fn;
	r->lft_arg = arg;
}

void osm_report_on_change(struct osm_report *r, osm_report_change_fn fn, void *arg)
{
	r->change_fn = fn;
	r->change_arg = arg;
}

void osm_report_on_run(struct osm_report *r,
		       void (*fn)(void *arg, const struct osm_run_info *run), void *arg)
{
	r->run_fn = fn;
	r->run_arg = arg;
}

int osm_report_handle(struct osm_report *r, const char *buf, size_t len, double received)
{
	json_error_t jerr;
	json_t *msg = json_loadb(buf, len, 0, &jerr);
	struct head h;
	int rc;

	if (!json_is_object(msg)) {
		json_decref(msg);
		return refuse(r, msg ? "not a JSON object" : jerr.text, NULL);
	}
	if ((rc = read_head(r, msg, &h)) < 0)
		goto out;
	r->last_pid = h.pid;
	if (h.dropped > 0)
		log_warn("%s (pid %d): %lld reports were lost before report %lld (loomd was not "
			 "listening, or too slow)", h.sm, h.pid, h.dropped, h.seq);
	if (strcmp(h.type, "routing_run") == 0)
		rc = store_run(r, &h, msg, received);
	else if (strcmp(h.type, "trap") == 0)
		rc = store_trap(r, &h, msg);
	else
		rc = store_event(r, &h, msg);
out:
	json_decref(msg);
	return rc;
}

/* ---- requests back to the plugin ------------------------------------------------- */

/* A valid report from an abstract address (a plugin that can hear
 * requests): it is the one to ask from now on. An unbound sender (an
 * older plugin, a test's tool) leaves the last one. */
static void note_peer(struct osm_report *r, const struct sockaddr_un *from, socklen_t len)
{
	if (len <= offsetof(struct sockaddr_un, sun_path) + 1 || from->sun_path[0] != '\0')
		return;
	if (r->peer_len != len || memcmp(&r->peer, from, len) != 0 || r->peer_pid != r->last_pid) {
		r->peer_pid = r->last_pid;
		log_info("OpenSM reports: the plugin of OpenSM pid %d takes loomd's requests",
			 r->peer_pid);
	}
	memcpy(&r->peer, from, len);
	r->peer_len = len;
}

int osm_report_peer(const struct osm_report *r, struct osm_report_peer *p)
{
	if (!r || !r->peer_len || r->fd < 0)
		return -ENOENT;
	p->fd = r->fd;
	p->addr = r->peer;
	p->addr_len = r->peer_len;
	p->pid = r->peer_pid;
	return 0;
}

/* Send request `type` to the plugin. */
static int ask(const struct osm_report_peer *p, const char *type, const char *why)
{
	json_t *msg = json_pack("{s:i, s:s, s:s}", "v", 1, "type", type, "why", why ? why : "");
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	ssize_t n;
	int e;

	json_decref(msg);
	if (!text)
		return -ENOMEM;
	/* Never waits: the plugin's queue full means OpenSM is far behind,
	 * and one sweep already asked covers this one too. */
	n = sendto(p->fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&p->addr, p->addr_len);
	e = errno;
	free(text);
	if (n < 0)
		return e == EAGAIN || e == EWOULDBLOCK ? 0 : -e;
	return 0;
}

int osm_report_ask_heavy_sweep(const struct osm_report_peer *p, const char *why)
{
	return ask(p, OSM_REQ_HEAVY_SWEEP, why);
}

int osm_report_ask_reroute(const struct osm_report_peer *p, const char *why)
{
	return ask(p, OSM_REQ_REROUTE, why);
}

/* ---- the loop ----------------------------------------------------------------------- */

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct osm_report *r = arg;
	int in_tx = store_routing_begin(r->st) == 0;

	/* Without a transaction each report commits alone: slower, not lost. */
	for (int i = 0; i < OSM_REPORT_BATCH; i++) {
		struct sockaddr_un from;
		socklen_t from_len = sizeof(from);
		ssize_t n = recvfrom(fd, r->buf, sizeof(r->buf), MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &from_len);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("OpenSM reports: recv: %s", strerror(errno));
			break;
		}
		if ((size_t)n > sizeof(r->buf)) {
			refuse(r, "longer than any report", NULL);
			continue;
		}
		/* A report refused or not stored has been logged; the others
		 * of the batch are kept all the same. */
		if (osm_report_handle(r, r->buf, (size_t)n, clock_wall()) == 0)
			note_peer(r, &from, from_len);
	}
	if (in_tx)
		store_routing_end(r->st, 0);
}

struct osm_report *osm_report_new(struct event_base *base, const char *path,
				  struct store *st, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct osm_report *r;

	if (usock_addr(path, &sa, err, errlen) < 0)
		return NULL;
	if (!(r = calloc(1, sizeof(*r)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->base = base;
	r->st = st;
	if ((r->fd = bind_socket(&sa, err, errlen)) < 0) {
		free(r);
		return NULL;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (!(r->ev = event_new(base, r->fd, EV_READ | EV_PERSIST, read_cb, r)) ||
	    event_add(r->ev, NULL) < 0) {
		snprintf(err, errlen, "cannot watch %s: out of memory", path);
		osm_report_free(r);
		return NULL;
	}
	return r;
}

void osm_report_free(struct osm_report *r)
{
	if (!r)
		return;
	if (r->ev)
		event_free(r->ev);
	if (r->fd >= 0)
		close(r->fd);
	if (r->path[0] && unlink(r->path) < 0 && errno != ENOENT)
		log_warn("OpenSM reports: cannot remove %s: %s", r->path, strerror(errno));
	free(r);
}

/* ---- route-runs on the control socket ------------------------------------------------- */

static void cmd_route_runs(struct ctl_req *req, json_t *args, void *arg)
{
	struct osm_report *r = arg;
	json_t *limit = json_object_get(args, "limit");
	char err[512] = "";
	json_t *out = NULL;
	int rc;

	if (limit && !json_is_integer(limit)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"limit\" must be an integer");
		return;
	}
	rc = dbq_routing_runs(store_db(r->st), limit ? (long)json_integer_value(limit) : 0, &out,
			      err, sizeof(err));
	if (rc == 0)
		ctl_reply_ok(req, out);
	else
		ctl_reply_err(req, rc == -ENOENT ? PROTO_ERR_NOTFOUND : PROTO_ERR_INTERNAL, "%s",
			      err);
}

int osm_report_register(struct osm_report *r, struct ctl *ctl)
{
	return ctl_handle(ctl, "route-runs", cmd_route_runs, r);
}
