/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants.c: tenant isolation, the module: a tenant (a job) is a
 * partition key on exactly the HCA ports of its hosts (tenants_ib.c) and an
 * access VLAN on exactly the switch ports facing them (tenants_eth.c).
 *
 * One change at a time, in the order they came:
 *  1. (loop, tenants_cmd.c) the hosts resolve to ports (tenants_hosts.c); an
 *     unknown host changes nothing. The tenant is written to the store as
 *     "applying", with an audit event naming the uid.
 *  2. (loop, start_next) the change is prepared from the store: the
 *     partitions file's new text, the subnets to read, the switches and
 *     ports to set.
 *  3. (worker thread) IB: the file is written, OpenSM signalled, the PKey
 *     tables read back until the key is on each member port and on no
 *     other (or the timeout passes); then Ethernet: the VLAN set on each
 *     member port and cleared from every other host-facing port of those
 *     switches, all read back (undone on failure).
 *  4. (loop, finish) confirmed: "active", the answer is success. Not
 *     confirmed: the change is rolled back (store and file, OpenSM
 *     signalled again; the worker already put the switch ports back) and
 *     the answer is the error, naming the ports that were wrong.
 * A request that finds the tenant already as asked answers once the fabric
 * shows it, so a retried Slurm prolog or epilog is harmless. */
#include "autoconf.h"
#include "daemon/tenants/tenants.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/fabric/hostmap.h"
#include "lib/util/clock.h"
#include "daemon/core/ctl.h"
#include "daemon/core/file_atomic.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "daemon/tenants/store_tenants.h"
#include "daemon/roce/switch_open.h"

/* ---- the worker --------------------------------------------------------------- */

/* HA: the change's intent into the replicated store first, conditioned on
 * this node's lease: a node that lost it writes nothing and changes
 * nothing (fencing). The record: the tenant as the database holds it
 * (name, by: who made the change, pkey, vlan, limited, class, ports
 * [{host, guid}], eth_ports [{host, switch, port}]: what store_tenant_put
 * takes). */
static int put_intent(struct top *t)
{
	char key[LOOM_NAME_LEN + 16], *value = NULL;
	json_t *v = NULL;
	int rc;

	snprintf(key, sizeof(key), "tenants/%s", t->name);
	if (t->kind != TOP_DELETE && t->intent) {
		value = strdup(t->intent);
		if (!value) {
			snprintf(t->err, sizeof(t->err), "out of memory");
			return -ENOMEM;
		}
	} else if (t->kind != TOP_DELETE) {
		v = json_pack("{s:s, s:i, s:i, s:O?, s:b, s:s, s:s}", "name", t->name, "pkey",
			      (int)t->pkey, "vlan", (int)t->vlan, "members", t->members, "limited",
			      t->limited, "state", tenants_state_name(TENANT_APPLYING), "leader",
			      t->m->iw.node ? t->m->iw.node : "");
		if (!v || !(value = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS))) {
			json_decref(v);
			snprintf(t->err, sizeof(t->err), "out of memory");
			return -ENOMEM;
		}
		json_decref(v);
	}
	rc = t->m->iw.put(t->m->iw.arg, key, value, t->err, sizeof(t->err));
	free(value);
	return rc;
}

static int top_run(void *arg, char *unused, size_t unusedlen)
{
	struct top *t = arg;
	double start = clock_wall();

	t->rc = 0;
	if (t->m->iw.put && (t->kind == TOP_CREATE || t->kind == TOP_ADD ||
			     t->kind == TOP_REMOVE || t->kind == TOP_DELETE)) {
		if ((t->rc = put_intent(t)) < 0) {
			/* refused by the fence: another node leads, or none */
			if (t->rc == -EPERM && t->m->iw.held && t->m->iw.held(t->m->iw.arg) <= 0)
				t->lost = t->m->iw.held(t->m->iw.arg) == 0 ? 1 : 2;
			t->took = clock_wall() - start;
			return t->rc;
		}
		t->intent_put = 1;
	}
	if (t->kind == TOP_RESUME && t->n_seed && tenants_ha_seed(t) == -EPERM &&
	    tenants_fence_lost(t)) {
		t->took = clock_wall() - start;
		return t->rc;
	}
	if (t->kind == TOP_RESUME) {
		struct top **ib = calloc(t->n_batch + 1, sizeof(*ib));
		size_t n = 0;

		for (size_t i = 0; ib && i < t->n_batch; i++)
			if (t->batch[i]->pkey)
				ib[n++] = t->batch[i];
		if (!ib)
			t->rc = -ENOMEM;
		else if (n)
			tenants_ib_apply(t, ib, n, start + t->m->conf->t.tenant_timeout_s);
		free(ib);
		for (size_t i = 0; i < t->n_batch; i++)
			if (t->batch[i]->vlan && t->batch[i]->rc == 0)
				t->batch[i]->rc = tenants_eth_apply(t->batch[i]);
	} else {
		if (t->pkey)
			t->rc = tenants_ib_apply(t, &t, 1, start + t->m->conf->t.tenant_timeout_s);
		if (t->rc == 0 && t->vlan) {
			t->err[0] = '\0';
			t->rc = tenants_eth_apply(t);
		}
	}
	/* HA: a change that failed as the lease ran out is the new leader's */
	if (t->rc < 0 && !t->lost && t->m->iw.held && t->m->iw.held(t->m->iw.arg) <= 0) {
		char first[sizeof(t->err)];

		snprintf(first, sizeof(first), "%s", t->err);
		(void)tenants_fence_lost(t);
		snprintf(t->err + strlen(t->err), sizeof(t->err) - strlen(t->err),
			 " (the change had failed: %.400s)", first);
	}
	tenants_ha_after(t);  /* HA: the record follows the outcome */
	t->took = clock_wall() - start;
	(void)unused;
	(void)unusedlen;
	return t->rc;  /* its message is t->err; each of a batch has its own */
}

/* ---- the loop ------------------------------------------------------------------- */

static void start_next(struct tenants_mod *m);
static void arm_interval(struct tenants_mod *m);

/* The state of the tenant before the change (none: deleted). */
static enum tenant_state prev_state(const struct top *t)
{
	return tenants_state_parse(json_string_value(json_object_get(t->prev, "state")));
}

/* What the worker needs, from the tenant as stored now (none: deleted)
 * and as it was (t->prev). 0, or -errno with err. */
static int prepare(struct tenants_mod *m, struct top *t, char *err, size_t errlen)
{
	json_t *cur = NULL, *p, *had;
	size_t i;
	int rc = store_tenant_get(m->store, t->name, &cur);

	if (rc < 0 && rc != -ENOENT) {
		snprintf(err, errlen, "cannot read the tenant from the database");
		return rc;
	}
	had = cur ? cur : t->prev;
	t->was = tenants_state_parse(json_string_value(json_object_get(cur, "state")));
	t->pkey = (unsigned)json_integer_value(json_object_get(had, "pkey"));
	t->vlan = (unsigned)json_integer_value(json_object_get(had, "vlan"));
	t->once = t->kind == TOP_VERIFY && t->readonly;
	t->members = json_object();
	if (cur) {
		t->limited = !strcmp(json_string_value(json_object_get(cur, "membership")),
				     "limited");
		json_array_foreach(json_object_get(cur, "ports"), i, p)
			json_object_set_new(t->members,
					    json_string_value(json_object_get(p, "guid")),
					    json_true());
	}
	rc = 0;
	if (t->pkey) {
		if ((rc = tenants_ib_fill_subnets(m, t)) == -ENOENT)
			snprintf(err, errlen, "no InfiniBand subnet has been swept: run loomctl "
				 "discover first");
		else if (rc == 0 && t->kind != TOP_VERIFY &&
			 !(t->file_text = tenants_ib_file_text(m, err, errlen)))
			rc = -EIO;
		if (rc == 0 && t->file_text)
			opensm_sweep_find(m->osm, m->conf->t.tenant_opensm_pid_file, m->store,
					  &t->osm);
	}
	if (rc == 0 && t->vlan)
		rc = tenants_eth_prepare(m, t, cur, err, errlen);
	if (rc == 0 && m->iw.put && t->prev && t->kind != TOP_VERIFY) {
		json_t *r = tenants_record(t->prev, m->iw.node, prev_state(t));

		if (!r || !(t->prev_intent = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		json_decref(r);
	}
	json_decref(cur);
	return rc;
}

/* TOP_RESUME: a check of its own for every tenant; those that cannot even
 * be prepared are marked failed now. */
static int prepare_resume(struct tenants_mod *m, struct top *t, char *err, size_t errlen)
{
	json_t *list = NULL, *x;
	size_t i;
	int ib = 0;

	if (store_tenant_list(m->store, &list) < 0) {
		snprintf(err, errlen, "cannot read the tenants from the database");
		return -EIO;
	}
	if (!(t->batch = calloc(json_array_size(list) + 1, sizeof(*t->batch)))) {
		json_decref(list);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_array_foreach(list, i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		enum tenant_state was =
			tenants_state_parse(json_string_value(json_object_get(x, "state")));
		char why[512] = "";
		struct top *b;

		if (was == TENANT_APPLYING)
			log_notice("tenant %s: was being applied when loomd stopped; checking it",
				   name);
		if (!(b = tenants_top_new(m, NULL, TOP_VERIFY, name)))
			continue;
		/* One read judges a tenant that was settled; only a change a
		 * stop interrupted may wait for OpenSM (the queue waits too). */
		b->no_wait = was != TENANT_APPLYING;
		if (prepare(m, b, why, sizeof(why)) < 0) {
			log_warn("tenant %s: cannot check it: %s", name, why);
			tenants_state_set(m->store, name, was, TENANT_NOT_CONFIRMED, 0, why);
			tenants_top_free(b);
			continue;
		}
		ib |= b->pkey != 0;
		t->batch[t->n_batch++] = b;
	}
	json_decref(list);
	if (tenants_ha_prepare_resume(m, t) < 0) {
		snprintf(err, errlen, "cannot prepare the tenants' records for etcd");
		return -ENOMEM;
	}
	return ib ? tenants_ib_fill_subnets(m, t) : 0;
}

/* Each tenant of a TOP_RESUME: confirmed or failed. Events say what
 * changed since the last check: failed, restored, or switch ports put back
 * (a failed tenant that stays failed is not told again). */
static void finish_resume(struct tenants_mod *m, struct top *t)
{
	size_t ok = 0;

	if (t->lost) {  /* the new leader checks them */
		log_warn("tenants: %s check stopped: %s", t->name, t->err);
		return;
	}
	for (size_t i = 0; i < t->n_batch; i++) {
		struct top *b = t->batch[i];

		if (b->lost)  /* stopped by the fence: the new leader checks it */
			continue;
		if (b->rc == 0) {
			ok++;
			tenants_state_set(m->store, b->name, b->was, TENANT_CONFIRMED, 0, "");
			if (b->n_repaired) {
				char what[256];

				snprintf(what, sizeof(what), "%zu switch port%s put back (first: %s)",
					 b->n_repaired, b->n_repaired == 1 ? "" : "s", b->repaired);
				log_warn("tenant %s: %s", b->name, what);
				tenants_event(m, "warning", "tenant_repaired", b->name, what);
			}
			if (b->was != TENANT_ACTIVE)
				tenants_event(m, "notice", "tenant_restored", b->name,
					     "on the fabric as stored");
			continue;
		}
		log_warn("tenant %s: not on the fabric as stored: %s", b->name, b->err);
		tenants_state_set(m->store, b->name, b->was, TENANT_NOT_CONFIRMED, 0, b->err);
		if (b->was != TENANT_FAILED)
			tenants_event(m, "warning", "tenant_failed", b->name, b->err);
	}
	log_notice("tenants: %zu of %zu confirmed on the fabric (%s check) in %.1f s", ok,
		   t->n_batch, t->name, t->took);
	tenants_ha_finish_resume(m, t);
}

static void reply_tenant(struct tenants_mod *m, struct top *t, const char *note)
{
	json_t *cur = NULL;

	if (!t->req)
		return;
	if (store_tenant_get(m->store, t->name, &cur) < 0)
		cur = json_pack("{s:s, s:s}", "name", t->name, "state",
				tenants_state_name(TENANT_DELETED));
	if (note)
		json_object_set_new(cur, "note", json_string(note));
	json_object_set_new(cur, "took_s", json_real(t->took));
	ctl_reply_ok(t->req, cur);
}

/* Put the tenant back as it was before `t` (the store; the partitions file
 * follows from it), after a change that could not be confirmed. The
 * switch ports were put back by the worker. 0, or -errno when the store
 * refused (said in the log and as an event: the tenant is then not as it
 * was, and the answer says so). */
static int roll_back(struct tenants_mod *m, struct top *t)
{
	double now = clock_wall();
	/* from the state the change wrote: applying, or deleted by a delete */
	int rc = tenants_state_next(t->kind == TOP_DELETE ? TENANT_DELETED : TENANT_APPLYING,
				    TENANT_ROLLED_BACK, prev_state(t));

	if (t->kind == TOP_VERIFY)
		return 0;
	if (rc < 0) {
		log_err("tenant %s: a %s cannot be rolled back", t->name, tenants_top_names[t->kind]);
	} else if (rc == TENANT_DELETED) {
		rc = store_tenant_delete(m->store, now, t->name, t->who);
	} else {
		const char *membership = json_string_value(json_object_get(t->prev, "membership"));
		struct store_tenant st = {
			.name = t->name,
			.pkey = (unsigned)json_integer_value(json_object_get(t->prev, "pkey")),
			.vlan = (unsigned)json_integer_value(json_object_get(t->prev, "vlan")),
			.limited = membership && !strcmp(membership, "limited"),
			.class_name = json_string_value(json_object_get(t->prev, "class")),
			.ports = json_object_get(t->prev, "ports"),
			.eth_ports = json_object_get(t->prev, "eth_ports"),
			.state = tenants_state_name((enum tenant_state)rc),
		};

		rc = store_tenant_put(m->store, now, &st, t->uid, t->who, "tenant_rolled_back",
				      "rolled back");
	}
	if (rc < 0) {
		log_err("tenant %s: the rollback could not be written to the database", t->name);
		tenants_event(m, "error", "tenant_rollback_failed", t->name,
			     "the database refused the rollback; the tenant is not as it was");
	}
	if (t->file_text && !t->lost)  /* lost: this change never wrote it */
		tenants_ib_rewrite(m, "rollback");
	return rc;
}

/* After a rollback of `t`'s tenant, the changes of the same tenant still
 * queued were written against what the rollback undid: they fail, to be
 * asked again. */
static void fail_queued(struct tenants_mod *m, const struct top *t)
{
	struct top **pp = &m->queue;

	while (*pp) {
		struct top *q = *pp;

		if (q->kind == TOP_RESUME || strcmp(q->name, t->name) || (m->running && q == m->queue)) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		if (q->req)
			ctl_reply_err(q->req, PROTO_ERR_FAILED, "tenant %s: %s not done: the %s before "
				      "it failed and was rolled back; ask again", q->name,
				      tenants_top_names[q->kind], tenants_top_names[t->kind]);
		tenants_top_free(q);
	}
}

static void finish(struct tenants_mod *m, struct top *t)
{
	if (t->kind == TOP_RESUME) {
		finish_resume(m, t);
		return;
	}
	if (t->rc == 0) {
		if (t->kind != TOP_DELETE)
			tenants_state_set(m->store, t->name, t->was, TENANT_CONFIRMED, 0, "");
		log_notice("tenant %s: %s confirmed on the fabric in %.1f s", t->name,
			   tenants_top_names[t->kind], t->took);
		reply_tenant(m, t, NULL);
		return;
	}
	log_warn("tenant %s: %s not confirmed after %.1f s: %s", t->name,
		 tenants_top_names[t->kind], t->took, t->err);
	if (t->lost) {
		/* HA: this node lost the lease. What reached etcd is the new
		 * leader's to complete (nothing undone); a change that did not
		 * reach it is undone here (database and local file only). */
		if (!t->intent_put)
			(void)roll_back(m, t);
		if (t->req)
			ctl_reply_err(t->req, t->lost == 1 ? PROTO_ERR_NOT_LEADER : PROTO_ERR_NO_QUORUM,
				      "tenant %s: %s: %s", t->name, tenants_top_names[t->kind], t->err);
		return;
	}
	if (!t->req) { /* loomd's own check at start: nothing to undo, nobody to tell */
		tenants_state_set(m->store, t->name, t->was, TENANT_NOT_CONFIRMED, 0, t->err);
		return;
	}
	if (t->kind == TOP_VERIFY) {
		tenants_state_set(m->store, t->name, t->was, TENANT_NOT_CONFIRMED, 0, t->err);
		ctl_reply_err(t->req, PROTO_ERR_FAILED, "tenant %s: %s", t->name, t->err);
		return;
	}
	/* A delete too: its key and VLAN stay its own (they were kept from
	 * other changes while this one ran: tenants_inflight) until a retried
	 * delete takes them off the fabric. */
	{
		int rb = roll_back(m, t);
		char when[64];

		fail_queued(m, t);
		if (t->took >= m->conf->t.tenant_timeout_s)
			snprintf(when, sizeof(when), "not confirmed within %d s",
				 m->conf->t.tenant_timeout_s);
		else
			snprintf(when, sizeof(when), "failed after %.1f s", t->took);
		ctl_reply_err(t->req, PROTO_ERR_FAILED, "tenant %s: %s %s, %s: %s", t->name,
			      tenants_top_names[t->kind], when,
			      rb < 0 ? "and the ROLLBACK FAILED (see loomctl events)" : "rolled back",
			      t->err);
	}
}

static void top_done(void *arg, int rc, const char *err);

/* The change stays the queue's head while it runs; top_done() frees it. */
static const struct work_ops top_ops = { .run = top_run, .done = top_done };

static void start_next(struct tenants_mod *m)
{
	struct top *t;
	char err[1024];
	int rc;

	while (!m->running && (t = m->queue)) {
		err[0] = '\0';
		rc = t->kind == TOP_RESUME ? prepare_resume(m, t, err, sizeof(err))
					   : prepare(m, t, err, sizeof(err));
		if (rc == 0 && (rc = work_submit(m->work, &top_ops, t)) == 0) {
			m->running = 1;
			return;
		}
		m->queue = t->next;
		if (!err[0])
			snprintf(err, sizeof(err), "%s", strerror(rc < 0 ? -rc : EAGAIN));
		t->rc = rc < 0 ? rc : -EAGAIN;
		snprintf(t->err, sizeof(t->err), "%s", err);
		if (!t->req) {
			log_warn("tenant %s: cannot check it: %s", t->name, err);
			tenants_top_free(t);
			continue;
		}
		finish(m, t);
		tenants_top_free(t);
	}
}

static void top_done(void *arg, int rc, const char *err)
{
	struct top *t = arg;
	struct tenants_mod *m = t->m;

	(void)rc;
	(void)err;  /* top_run() kept both in t */
	if (m->closing)
		return;  /* tenants_free() answers and frees the queue */
	m->running = 0;
	m->queue = t->next;
	finish(m, t);
	tenants_top_free(t);
	if (m->pending) {
		free(m->conf);
		m->conf = m->pending;
		m->pending = NULL;
		arm_interval(m);
	}
	start_next(m);
	if (!m->queue && m->mirror_pending) {  /* HA: a follower's mirror waited */
		json_t *r = m->mirror_pending;

		m->mirror_pending = NULL;
		tenants_ha_mirror(m, r);
		json_decref(r);
	}
}

void tenants_enqueue(struct tenants_mod *m, struct top *t)
{
	struct top **pp = &m->queue;

	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	start_next(m);
}

/* ---- the module ------------------------------------------------------------------ */

/* Is a tenant of `list` (store_tenant_list) "applying": a change that a stop
 * (or the old leader's death) interrupted? */
static int interrupted(const json_t *list)
{
	const json_t *x;
	size_t i;

	json_array_foreach(list, i, x)
		if (tenants_state_parse(json_string_value(json_object_get(x, "state"))) ==
		    TENANT_APPLYING)
			return 1;
	return 0;
}

/* The partitions file rewritten when it differs from the database (the
 * database wins: a crash between the two, or an edit by hand), or written
 * again with OpenSM signalled when a change was interrupted, then every
 * tenant checked on the fabric with one read a pass, its VLANs applied
 * again (idempotent), and marked active or failed (a change a stop
 * interrupted, "applying", is completed or found failed). One check at a
 * time: none is queued while one waits. `why`: "start" or "periodic". */
static int check_all(struct tenants_mod *m, const char *why)
{
	char err[1024] = "", *text, *had;
	json_t *list = NULL;

	char why_not[1024];

	/* Changes queued or running write the file and confirm themselves;
	 * the next interval checks what they leave. */
	if (m->queue)
		return 0;
	/* HA: a follower leaves the file and the fabric to the leader. */
	if (ctl_gate_check(m->ctl, "the tenants' check", why_not, sizeof(why_not)) < 0) {
		log_debug("tenants: %s check skipped: %s", why, why_not);
		return 0;
	}
	if (!(text = tenants_ib_file_text(m, err, sizeof(err)))) {
		log_err("tenants: %s", err);
		return -EIO;
	}
	had = file_read_text(m->conf->t.tenant_partitions_file, err, sizeof(err));
	if (store_tenant_list(m->store, &list) < 0) {
		free(had);
		free(text);
		return -EIO;
	}
	/* No tenant and no file: tenants are not used here; write nothing. */
	if ((had || json_array_size(list)) && (!had || strcmp(had, text)))
		tenants_ib_rewrite(m, "it differed from the database");
	else if (had && interrupted(list))
		/* The file may hold a change whose OpenSM signal never went out
		 * (loomd killed between the two): signal again, or OpenSM would
		 * not read it before its next sweep of its own. */
		tenants_ib_rewrite(m, "a change was interrupted before OpenSM was told");
	free(had);
	free(text);
	/* HA: a first leader seeds etcd even from an empty database */
	if (json_array_size(list) || (m->iw.put && m->seeded == 0)) {
		struct top *t = tenants_top_new(m, NULL, TOP_RESUME, why);

		if (t)
			tenants_enqueue(m, t);
	}
	json_decref(list);
	return 0;
}

static void interval_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tenants_mod *m = arg;

	(void)fd, (void)what;
	check_all(m, "periodic");
	arm_interval(m);
}

/* Arm the periodic check of every tenant (tenants.interval, 0: none). */
static void arm_interval(struct tenants_mod *m)
{
	struct timeval tv = { m->conf->t.tenant_interval, 0 };

	if (!m->interval_ev)
		return;
	evtimer_del(m->interval_ev);
	if (m->conf->t.tenant_interval > 0)
		evtimer_add(m->interval_ev, &tv);
}

/* tenants.host_identity: description trusts what each host says of itself:
 * said at start and at each reload that keeps it. */
static void warn_identity(const struct tenants_settings *c)
{
	if (c->t.hosts.identity == HOSTMAP_ID_DESCRIPTION)
		log_warn("tenants.host_identity is description: a host's ports are found by "
			 "the node descriptions and LLDP names that root on each host sets, so "
			 "a host can name itself into another host's tenant; use map "
			 "(tenants.host_map) on a cluster shared by tenants");
}

/* A copy of what the module reads of loom.yaml, or NULL. */
static struct tenants_settings *settings_new(const struct tenants_inputs *in)
{
	struct tenants_settings *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->t = *in->conf;
	c->sw = *in->switches;
	c->ib_qos = *in->ib_qos;
	c->mad = *in->mad;
	snprintf(c->plugin_dir, sizeof(c->plugin_dir), "%s", in->plugin_dir);
	return c;
}

int tenants_reconfigure(struct tenants_mod *m, const struct tenants_inputs *in)
{
	struct tenants_settings *c = settings_new(in);

	if (!c)
		return -ENOMEM;
	warn_identity(c);
	/* A running change keeps the configuration it started with (its
	 * worker reads m->conf): the new one waits until it ends. */
	free(m->pending);
	m->pending = NULL;
	if (m->running) {
		m->pending = c;
		return 0;
	}
	free(m->conf);
	m->conf = c;
	arm_interval(m);
	return 0;
}

struct tenants_mod *tenants_new(struct event_base *base, const struct tenants_inputs *in,
				struct store *store, char *err, size_t errlen)
{
	struct tenants_mod *m = calloc(1, sizeof(*m));

	if (!m || !(m->conf = settings_new(in))) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	warn_identity(m->conf);
	m->base = base;
	m->store = store;
	m->seeded = -1;
	if (!(m->plugins = plugin_cache_new())) {
		snprintf(err, errlen, "out of memory");
		tenants_free(m);
		return NULL;
	}
	if (!(m->work = work_queue_new(base, "tenant", 1, WORK_REFUSE, err, errlen))) {
		tenants_free(m);
		return NULL;
	}
	if (!(m->interval_ev = evtimer_new(base, interval_cb, m))) {
		snprintf(err, errlen, "cannot set up the tenant check timer");
		tenants_free(m);
		return NULL;
	}
	arm_interval(m);
	return m;
}

void tenants_free(struct tenants_mod *m)
{
	struct top *t;

	if (!m)
		return;
	m->closing = 1;
	work_queue_free(m->work);  /* waits for the change under way */
	while ((t = m->queue)) {
		m->queue = t->next;
		if (t->req)
			ctl_reply_err(t->req, PROTO_ERR_FAILED, "loomd is stopping");
		tenants_top_free(t);
	}
	if (m->interval_ev)
		event_free(m->interval_ev);
	plugin_cache_free(m->plugins);
	swept_fabs_clear(&m->fabs);
	json_decref(m->mirror_pending);
	json_decref(m->takeover_undo);
	free(m->pending);
	free(m->conf);
	free(m);
}

int tenants_resume(struct tenants_mod *m)
{
	return check_all(m, "start");
}

void tenants_on_swept(struct tenants_mod *m, const char *subnet, struct fab *fab)
{
	(void)swept_fabs_keep(&m->fabs, subnet, fab);
}

void tenants_set_opensm(struct tenants_mod *m, struct osm_report *osm)
{
	m->osm = osm;
}

void tenants_set_intent(struct tenants_mod *m, const struct intent_writer *w)
{
	m->iw = *w;
}

void tenants_watch(void *arg, const json_t *records, int leading)
{
	struct tenants_mod *m = arg;

	if (!leading) {
		tenants_ha_mirror(m, records);
		return;
	}
	tenants_ha_takeover(m, records);
	(void)check_all(m, "takeover");
}
