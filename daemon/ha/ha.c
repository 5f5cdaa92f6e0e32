/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/ha.c: the HA module on the loop (see ha.h): the steps of the
 * election on a work queue of one, the role they lead to, the fencing
 * deadline, the gate on commands that change things, and the status. */
#include "autoconf.h"
#include "daemon/ha/ha.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/ha/config_ha.h"
#include "daemon/core/ctl.h"
#include "daemon/core/work.h"
#include "daemon/ha/ha_impl.h"
#include "lib/etcd/etcd.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

enum ha_role { HA_LEADER, HA_FOLLOWER, HA_NO_QUORUM };

struct ha {
	struct event_base *base;
	int enabled;
	struct work_queue *q;     /* the election steps, one at a time */
	struct event *tick;       /* the next step */
	struct etcd *etcd;        /* used by the running step only */
	struct ha_step_in in;
	int ttl_s, poll_ms;
	char name[HA_NAME_LEN];
	char advertise[HA_URL_LEN];
	char conf_sig[LOOM_HA_ENDPOINTS_LEN + 4 * PATH_MAX + 512]; /* the section, to see
								     * a change (restart) */
	/* the state, on the loop */
	enum ha_role role;
	double valid_until;       /* leader: changes allowed before this (clock_mono) */
	int64_t ttl_given;
	char leader_name[HA_NAME_LEN];
	char leader_url[HA_URL_LEN];
	int etcd_ok;
	double etcd_last_ok;      /* clock_mono(); 0 never */
	char endpoint[HA_URL_LEN];
	char etcd_err[HA_ERR_LEN];
	struct ha_watch_reg {
		void (*fn)(void *arg, const json_t *records, int leading);
		void *arg;
	} watches[HA_WATCH_MAX];  /* in.watch[i] is watches[i]'s prefix */
	void (*on_role)(void *arg, int leading);
	void *on_role_arg;
	int told_leading;         /* what on_role was last told (-1: nothing yet) */
	/* For ha_intent_put on other threads (each call its own etcd handle):
	 * the lease while leading (0 else) and its deadline, atomically. */
	int64_t fence_lease;
	int64_t fence_until_ms;   /* clock_mono() * 1000 */
	int fence_other;          /* another node leads (the last step said so) */
	int resigned;             /* ha_resign: the lease given up, no more steps */
	char *ep, *ca, *cert, *key, *user, *password;
	long timeout_ms;
	char prefix[HA_KEY_LEN];  /* /loom/CLUSTER/ */
};

static const char *role_name(enum ha_role r)
{
	return r == HA_LEADER ? "leader" : r == HA_FOLLOWER ? "follower" : "no-quorum";
}

/* The role now: a leader past its deadline has stopped leading. */
static enum ha_role role_now(const struct ha *ha)
{
	if (ha->role == HA_LEADER && clock_mono() >= ha->valid_until)
		return HA_NO_QUORUM;
	return ha->role;
}

static void schedule(struct ha *ha, long ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	if (!ha->resigned)   /* a step that ends inside ha_resign schedules nothing */
		event_add(ha->tick, &tv);
}

/* The fencing margin: the lease is counted from before the request that
 * renewed it; a fifth of it, at most 1 s, covers clock rates and the
 * time a change takes to start. */
static double margin_s(int64_t ttl)
{
	double m = (double)ttl / 5;

	return m > 1 ? 1 : m;
}

struct step_job {
	struct ha *ha;
	struct ha_step_in in;
	struct ha_step_out out;
};

static int step_run(void *arg, char *err, size_t errlen)
{
	struct step_job *j = arg;

	ha_elect_step(j->ha->etcd, &j->in, &j->out);
	return 0;
}

/* ha_on_role's fn when leading or not changed. */
static void tell_role(struct ha *ha)
{
	int leading = role_now(ha) == HA_LEADER;

	if (ha->on_role && leading != ha->told_leading) {
		ha->told_leading = leading;
		ha->on_role(ha->on_role_arg, leading);
	}
}

static void set_role(struct ha *ha, enum ha_role role, const char *why)
{
	enum ha_role before = role_now(ha);

	ha->role = role;
	if (before == role_now(ha))
		return;
	tell_role(ha);
	if (role == HA_LEADER) {
		log_notice("ha: this node (%s) is the leader%s%s", ha->name, why[0] ? ": " : "", why);
	}
	else if (role == HA_FOLLOWER)
		log_notice("ha: follower; the leader is %s%s%s%s%s", ha->leader_name,
			   ha->leader_url[0] ? " at " : "", ha->leader_url, why[0] ? ": " : "", why);
	else
		log_warn("ha: no quorum: changes are refused until etcd answers%s%s",
			 why[0] ? ": " : "", why);
}

static void step_done(void *arg, int rc, const char *err)
{
	struct step_job *j = arg;
	struct ha *ha = j->ha;
	struct ha_step_out *o = &j->out;
	double now = clock_mono();

	if (rc == -ECANCELED)
		return;
	snprintf(ha->endpoint, sizeof(ha->endpoint), "%s", o->endpoint);
	ha->in.lease = o->lease;
	if (o->outcome == HA_OUT_NO_QUORUM) {
		if (ha->etcd_ok || strcmp(ha->etcd_err, o->err))
			log_warn("ha: etcd: %s", o->err);
		ha->etcd_ok = 0;
		snprintf(ha->etcd_err, sizeof(ha->etcd_err), "%s", o->err);
		/* A leader stays one until its deadline (role_now): then no-quorum. */
		if (ha->role != HA_LEADER)
			set_role(ha, HA_NO_QUORUM, o->err);
	} else {
		if (!ha->etcd_ok && ha->etcd_last_ok > 0)
			log_notice("ha: etcd answers again (%s)", o->endpoint);
		ha->etcd_ok = 1;
		ha->etcd_last_ok = now;
		ha->etcd_err[0] = '\0';
		if (o->outcome == HA_OUT_LEADER) {
			ha->valid_until = o->renewed_at + (double)o->ttl_s - margin_s(o->ttl_s);
			ha->ttl_given = o->ttl_s;
			snprintf(ha->leader_name, sizeof(ha->leader_name), "%s", ha->name);
			snprintf(ha->leader_url, sizeof(ha->leader_url), "%s", ha->advertise);
			{
				int was = role_now(ha) == HA_LEADER;

				set_role(ha, HA_LEADER, o->err);
				/* the fence first: the takeover may change things */
				__atomic_store_n(&ha->fence_lease, o->lease, __ATOMIC_SEQ_CST);
				__atomic_store_n(&ha->fence_until_ms, (int64_t)(ha->valid_until * 1000),
						 __ATOMIC_SEQ_CST);
				/* a follower again later mirrors everything afresh */
				ha->in.seen_rev = 0;
				memset(ha->in.sig, 0, sizeof(ha->in.sig));
				if (!was && !j->in.leading)
					for (size_t i = 0; i < j->in.n_watch; i++)
						ha->watches[i].fn(ha->watches[i].arg, o->records[i], 1);
			}
		} else {
			int changed = strcmp(ha->leader_name, o->leader_name) ||
				      strcmp(ha->leader_url, o->leader_url);

			snprintf(ha->leader_name, sizeof(ha->leader_name), "%s", o->leader_name);
			snprintf(ha->leader_url, sizeof(ha->leader_url), "%s", o->leader_url);
			if (changed && ha->role == HA_FOLLOWER)
				log_notice("ha: the leader is now %s%s%s", ha->leader_name,
					   ha->leader_url[0] ? " at " : "", ha->leader_url);
			set_role(ha, HA_FOLLOWER, o->err);
			/* the mirror: the watches whose records changed */
			ha->in.seen_rev = o->seen_rev;
			for (size_t i = 0; i < j->in.n_watch; i++) {
				ha->in.sig[i] = o->sig[i];
				if (o->records[i])
					ha->watches[i].fn(ha->watches[i].arg, o->records[i], 0);
			}
		}
	}
	ha->in.leading = role_now(ha) == HA_LEADER;
	__atomic_store_n(&ha->fence_other, ha->role == HA_FOLLOWER, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ha->fence_lease, ha->in.leading ? ha->in.lease : 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ha->fence_until_ms, (int64_t)(ha->valid_until * 1000), __ATOMIC_SEQ_CST);
	/* A leader renews every third of its TTL; anyone else looks every
	 * poll_ms (and a leader cut off from etcd retries as often). */
	if (role_now(ha) == HA_LEADER && o->outcome == HA_OUT_LEADER) {
		/* sooner when the renewal itself was slow: halfway to the deadline */
		long ms = (long)ha->ttl_given * 1000 / 3;
		long half = (long)((ha->valid_until - now) * 500);

		schedule(ha, half < ms ? (half > 50 ? half : 50) : ms);
	} else
		schedule(ha, ha->poll_ms);
}

static void step_free(void *arg)
{
	struct step_job *j = arg;

	for (size_t i = 0; i < HA_WATCH_MAX; i++)
		json_decref(j->out.records[i]);
	free(j);
}

static const struct work_ops step_ops = { step_run, step_done, step_free };

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ha *ha = arg;
	struct step_job *j;
	int rc;

	if (work_running(ha->q))
		return;  /* its done() schedules the next */
	if (role_now(ha) != ha->role) {  /* the deadline passed without a renewal */
		log_warn("ha: the lease was not renewed in time: this node stops leading "
			 "(changes refused)");
		ha->role = HA_NO_QUORUM;
		tell_role(ha);
		ha->in.leading = 0;
	}
	if (!(j = calloc(1, sizeof(*j)))) {
		schedule(ha, ha->poll_ms);
		return;
	}
	j->ha = ha;
	j->in = ha->in;
	if ((rc = work_submit(ha->q, &step_ops, j)) < 0) {
		free(j);
		log_err("ha: cannot start an election step: %s", strerror(-rc));
		schedule(ha, ha->poll_ms);
	}
}

/* ---- the gate ------------------------------------------------------------------ */

/* Commands that change loomd's own view only (each node discovers for
 * itself): CTL_WRITE for their cost on the fabric, run everywhere. */
static int local_command(const char *cmd)
{
	return !strcmp(cmd, "discover") || !strcmp(cmd, "route-check");
}

static const char *gate(void *arg, const char *cmd, char *why, size_t whylen)
{
	struct ha *ha = arg;

	if (local_command(cmd))
		return NULL;
	switch (role_now(ha)) {
	case HA_LEADER:
		return NULL;
	case HA_FOLLOWER:
		snprintf(why, whylen, "\"%s\" changes the fabric and this loomd (%s) is a follower: "
			 "the leader is %s%s%s; send it there", cmd, ha->name, ha->leader_name,
			 ha->leader_url[0] ? " at " : "", ha->leader_url);
		return PROTO_ERR_NOT_LEADER;
	default:
		snprintf(why, whylen, "\"%s\" changes the fabric and this loomd (%s) cannot reach an "
			 "etcd quorum (%s), so no leader can be confirmed; changes are refused until "
			 "etcd answers", cmd, ha->name,
			 ha->etcd_err[0] ? ha->etcd_err : "the lease was not renewed in time");
		return PROTO_ERR_NO_QUORUM;
	}
}

/* ---- life cycle ---------------------------------------------------------------- */

static int read_password(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "ha.password_file %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
	n = strcspn(out, "\r\n");
	out[n] = '\0';
	if (!n) {
		snprintf(err, errlen, "ha.password_file %s: empty", path);
		return -EINVAL;
	}
	return 0;
}

static void conf_signature(const struct ha_conf *c, char *out, size_t len)
{
	snprintf(out, len, "%s|%s|%s|%s|%d|%d|%d|%s|%s|%s|%s|%s", c->ha_endpoints, c->ha_name,
		 c->ha_advertise, c->ha_cluster, c->ha_ttl_s, c->ha_timeout_ms, c->ha_poll_ms,
		 c->ha_tls_ca, c->ha_tls_cert, c->ha_tls_key, c->ha_user, c->ha_password_file);
}

struct ha *ha_new(struct event_base *base, const struct ha_conf *conf, char *err,
		  size_t errlen)
{
	struct ha *ha = calloc(1, sizeof(*ha));
	char password[256] = "";
	struct etcd_conf ec = { .endpoints = conf->ha_endpoints, .ca = conf->ha_tls_ca,
				.cert = conf->ha_tls_cert, .key = conf->ha_tls_key,
				.user = conf->ha_user, .password = password,
				.timeout_ms = conf->ha_timeout_ms };
	json_t *v;
	char *s;

	if (!ha) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ha->base = base;
	conf_signature(conf, ha->conf_sig, sizeof(ha->conf_sig));
	if (!conf->ha_endpoints[0])
		return ha;
	ha->enabled = 1;
	ha->ttl_s = conf->ha_ttl_s;
	ha->poll_ms = conf->ha_poll_ms;
	ha->role = HA_NO_QUORUM;
	snprintf(ha->etcd_err, sizeof(ha->etcd_err), "no answer from etcd yet");
	if (conf->ha_name[0])
		snprintf(ha->name, sizeof(ha->name), "%s", conf->ha_name);
	else if (gethostname(ha->name, sizeof(ha->name) - 1) < 0)
		snprintf(ha->name, sizeof(ha->name), "loomd-%d", (int)getpid());
	snprintf(ha->advertise, sizeof(ha->advertise), "%s", conf->ha_advertise);
	snprintf(ha->in.key, sizeof(ha->in.key), "/loom/%s/leader", conf->ha_cluster);
	ha->in.ttl_s = conf->ha_ttl_s;
	v = json_pack("{s:s, s:s}", "name", ha->name, "advertise", ha->advertise);
	s = v ? json_dumps(v, JSON_COMPACT) : NULL;
	json_decref(v);
	if (!s || strlen(s) >= sizeof(ha->in.value)) {
		free(s);
		snprintf(err, errlen, "ha: name and advertise too long");
		goto fail;
	}
	strcpy(ha->in.value, s);
	free(s);
	if (conf->ha_user[0] &&
	    read_password(conf->ha_password_file, password, sizeof(password), err, errlen) < 0)
		goto fail;
	snprintf(ha->prefix, sizeof(ha->prefix), "/loom/%s/", conf->ha_cluster);
	ha->timeout_ms = conf->ha_timeout_ms;
	if (!(ha->ep = strdup(conf->ha_endpoints)) || !(ha->ca = strdup(conf->ha_tls_ca)) ||
	    !(ha->cert = strdup(conf->ha_tls_cert)) || !(ha->key = strdup(conf->ha_tls_key)) ||
	    !(ha->user = strdup(conf->ha_user)) || !(ha->password = strdup(password))) {
		snprintf(err, errlen, "out of memory");
		memset(password, 0, sizeof(password));
		goto fail;
	}
	ha->etcd = etcd_new(&ec, err, errlen);
	memset(password, 0, sizeof(password));
	if (!ha->etcd)
		goto fail;
	if (!(ha->q = work_queue_new(base, "HA election step", 1, WORK_REFUSE, err, errlen)) ||
	    !(ha->tick = evtimer_new(base, tick_cb, ha))) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		goto fail;
	}
	log_notice("ha: node %s, cluster key %s, etcd %s, lease %d s", ha->name, ha->in.key,
		   conf->ha_endpoints, ha->ttl_s);
	schedule(ha, 0);
	return ha;
fail:
	ha_free(ha);
	return NULL;
}

void ha_resign(struct ha *ha)
{
	if (!ha || ha->resigned)
		return;
	ha->resigned = 1;
	work_queue_free(ha->q);  /* a step under way ends first (and schedules nothing) */
	ha->q = NULL;
	if (ha->tick)
		event_free(ha->tick);
	ha->tick = NULL;
	/* From now on no intent is put (ha_intent_held: not the leader). */
	__atomic_store_n(&ha->fence_lease, 0, __ATOMIC_SEQ_CST);
	if (ha->etcd && ha->in.lease) {
		if (ha->role == HA_LEADER)
			log_notice("ha: giving up the leadership (lease %lld revoked)",
				   (long long)ha->in.lease);
		ha_elect_resign(ha->etcd, ha->in.lease);
	}
	etcd_free(ha->etcd);
	ha->etcd = NULL;
}

void ha_free(struct ha *ha)
{
	if (!ha)
		return;
	ha_resign(ha);
	if (ha->password)
		memset(ha->password, 0, strlen(ha->password));
	free(ha->ep);
	free(ha->ca);
	free(ha->cert);
	free(ha->key);
	free(ha->user);
	free(ha->password);
	free(ha);
}

int ha_intent_held(void *arg)
{
	struct ha *ha = arg;
	int64_t lease = __atomic_load_n(&ha->fence_lease, __ATOMIC_SEQ_CST);
	int64_t until = __atomic_load_n(&ha->fence_until_ms, __ATOMIC_SEQ_CST);

	if (lease && clock_mono() * 1000 < (double)until)
		return 1;
	return __atomic_load_n(&ha->fence_other, __ATOMIC_SEQ_CST) ? 0 : -1;
}

int ha_intent_putv(void *arg, size_t n, const char *const *keys, const char *const *values,
		   char *err, size_t errlen)
{
	struct ha *ha = arg;
	int64_t lease = __atomic_load_n(&ha->fence_lease, __ATOMIC_SEQ_CST);
	struct etcd_conf ec = { .endpoints = ha->ep, .ca = ha->ca, .cert = ha->cert,
				.key = ha->key, .user = ha->user, .password = ha->password,
				.timeout_ms = ha->timeout_ms };
	char full[2 * HA_KEY_LEN], leader[2 * HA_KEY_LEN];
	struct etcd_txn *t = NULL;
	struct etcd_kvs kvs = { 0 };
	struct etcd *e;
	int ok = 0, rc = 0;

	if (ha_intent_held(ha) <= 0) {
		snprintf(err, errlen, "this node is not the leader (or its lease ran out): the "
			 "change was not made");
		return -EPERM;
	}
	snprintf(leader, sizeof(leader), "%sleader", ha->prefix);
	if (!(e = etcd_new(&ec, err, errlen)))
		return -ENOMEM;
	if (!(t = etcd_txn_new()) || etcd_txn_compare(t, leader, ETCD_LEASE, ETCD_EQUAL, lease) < 0)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		snprintf(full, sizeof(full), "%s%s", ha->prefix, keys[i]);
		if ((values[i] ? etcd_txn_put(t, ETCD_THEN, full, values[i], strlen(values[i]), 0) :
				 etcd_txn_delete(t, ETCD_THEN, full, NULL)) < 0)
			rc = -ENOMEM;
	}
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	else if ((rc = etcd_txn(e, t, &ok, &kvs, err, errlen)) == 0 && !ok) {
		snprintf(err, errlen, "the leader key no longer holds this node's lease %lld: the "
			 "change was not made", (long long)lease);
		rc = -EPERM;
	}
	etcd_kvs_clear(&kvs);
	etcd_txn_free(t);
	etcd_free(e);
	return rc;
}

int ha_intent_put(void *arg, const char *key, const char *value, char *err, size_t errlen)
{
	return ha_intent_putv(arg, 1, &key, &value, err, errlen);
}

const char *ha_name(const struct ha *ha)
{
	return ha->name;
}

int ha_register(struct ha *ha, struct ctl *ctl)
{
	if (ha->enabled)
		ctl_set_gate(ctl, gate, ha);
	return 0;
}

int ha_enabled(const struct ha *ha)
{
	return ha->enabled;
}

void ha_watch(struct ha *ha, const char *prefix,
	      void (*fn)(void *arg, const json_t *records, int leading), void *arg)
{
	size_t i = ha->in.n_watch;

	if (!ha->enabled)
		return;
	if (i >= HA_WATCH_MAX ||
	    (size_t)snprintf(ha->in.watch[i], sizeof(ha->in.watch[i]), "%s%s", ha->prefix,
			     prefix) >= sizeof(ha->in.watch[i])) {
		/* a programming error (fixed prefixes), said at start */
		log_err("ha: cannot watch %s%s: too many watches or too long", ha->prefix, prefix);
		return;
	}
	ha->watches[i].fn = fn;
	ha->watches[i].arg = arg;
	ha->in.n_watch = i + 1;
	ha->in.seen_rev = 0;  /* read at the next step */
}

void ha_reconfigure(struct ha *ha, const struct ha_conf *conf)
{
	char sig[sizeof(ha->conf_sig)];

	conf_signature(conf, sig, sizeof(sig));
	if (strcmp(sig, ha->conf_sig))
		log_warn("ha: the section changed: takes effect at restart");
}

json_t *ha_status(const struct ha *ha)
{
	double now = clock_mono();
	enum ha_role r;

	if (!ha->enabled)
		return json_pack("{s:b}", "enabled", 0);
	r = role_now(ha);
	return json_pack("{s:b, s:s, s:s, s:s, s:o, s:i, s:o, s:{s:b, s:s, s:s?, s:o}}",
			 "enabled", 1, "role", role_name(r), "name", ha->name,
			 "advertise", ha->advertise,
			 "leader", ha->leader_name[0] && r != HA_NO_QUORUM ?
			 json_pack("{s:s, s:s}", "name", ha->leader_name, "url", ha->leader_url) :
			 json_null(),
			 "lease_ttl_s", ha->ttl_s,
			 "lease_left_s", r == HA_LEADER ? json_real(ha->valid_until - now) :
			 json_null(),
			 "etcd", "ok", ha->etcd_ok, "endpoint", ha->endpoint,
			 "error", ha->etcd_err[0] ? ha->etcd_err : NULL,
			 "last_ok_s_ago", ha->etcd_last_ok > 0 ?
			 json_real(now - ha->etcd_last_ok) : json_null());
}

void ha_on_role(struct ha *ha, void (*fn)(void *arg, int leading), void *arg)
{
	ha->on_role = fn;
	ha->on_role_arg = arg;
	ha->told_leading = -1;
	if (ha->enabled)
		tell_role(ha);
}
