/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/osm_block.c: loom's block of OpenSM's options file, written,
 * OpenSM asked to re-read it, checked and mirrored for ib_qos and ib_cc
 * (see osm_block.h). One function writes the block (put_block), for the
 * leader's apply and a follower's mirror alike; one asks OpenSM for the
 * heavy sweep that re-reads it (ask_osm, daemon/routing/opensm_sweep.h). */
#include "autoconf.h"
#include "daemon/qos/osm_block.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/ctl.h"
#include "daemon/core/file_atomic.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/qos/qos_intent.h"
#include "daemon/routing/opensm_sweep.h"
#include "lib/qos/options_block.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

struct osm_block {
	const struct osm_block_ops *ops;
	void *mod;
	struct store *store;
	char path[PATH_MAX];      /* NAME.opensm_config: "" none */
	char pid_file[PATH_MAX];  /* tenants.opensm_pid_file: "" the SM's reports */
	struct osm_report *osm;   /* the plugin's channel (NULL: signals only) */
	/* HA: the options replicated before the file is written. */
	struct intent_writer w;
	char node[64];
	struct work_queue *iwork;
};

struct osm_block *osm_block_new(struct event_base *base, const struct osm_block_ops *ops,
				void *mod, struct store *store, char *err, size_t errlen)
{
	struct osm_block *b = calloc(1, sizeof(*b));
	char what[64];

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->ops = ops;
	b->mod = mod;
	b->store = store;
	snprintf(what, sizeof(what), "%s intent", ops->name);
	if (!(b->iwork = work_queue_new(base, what, 1, WORK_FIFO, err, errlen))) {
		free(b);
		return NULL;
	}
	return b;
}

void osm_block_free(struct osm_block *b)
{
	if (!b)
		return;
	work_queue_free(b->iwork);
	free(b);
}

void osm_block_set_opensm(struct osm_block *b, struct osm_report *osm)
{
	b->osm = osm;
}

void osm_block_reconfigure(struct osm_block *b, const char *path, const char *pid_file)
{
	snprintf(b->path, sizeof(b->path), "%s", path);
	snprintf(b->pid_file, sizeof(b->pid_file), "%s", pid_file);
}

const char *osm_block_path(const struct osm_block *b)
{
	return b->path;
}

void osm_block_set_intent(struct osm_block *b, const struct intent_writer *w)
{
	b->w = *w;
	snprintf(b->node, sizeof(b->node), "%s", w->node ? w->node : "");
	b->w.node = b->node;
}

/* ---- the file and OpenSM ---------------------------------------------------- */

/* The block of b's file made `options` (rewritten even when already so if
 * always); *text the file's new text when text (free it). 1 written, 0
 * already so, -errno with err. */
static int put_block(const struct osm_block *b, const char *options, int always, char **text,
		     char *err, size_t errlen)
{
	char *old = file_read_text(b->path, err, errlen);  /* none yet: a new file */
	char *t = options_block_set(old, b->ops->begin, b->ops->end, options);
	int same;

	if (!t) {
		free(old);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	same = !always && old && !strcmp(old, t);
	free(old);
	if (!same && file_write_atomic(b->path, t, err, errlen) < 0) {
		free(t);
		return -EIO;
	}
	if (text)
		*text = t;
	else
		free(t);
	return !same;
}

/* The local OpenSM asked for a heavy sweep, which re-reads the options
 * file (its plugin, else SIGHUP): 1 asked (*pid its pid, 0 unknown), 0
 * not, with how. */
static int ask_osm(const struct osm_block *b, int *pid, char *how, size_t howlen)
{
	struct opensm_sweep s;

	opensm_sweep_find(b->osm, b->pid_file, b->store, &s);
	return opensm_sweep_ask(&s, b->ops->name, pid, how, howlen) == 0;
}

void osm_block_check(const struct osm_block *b, const char *options, char *why,
		     size_t whylen)
{
	char err[512];
	char *text = file_read_text(b->path, err, sizeof(err));

	why[0] = '\0';
	if (!text)
		snprintf(why, whylen, "%s", err);
	else if (b->ops->drift)
		b->ops->drift(text, options, why, whylen);
	free(text);
}

int osm_block_note(struct store *store, const char *name, const char *subject,
		   const char *was, const char *now)
{
	char kind[64];

	if (was ? !strcmp(was, now) : !now[0])
		return 0;  /* unchanged, or first seen in policy */
	if (now[0])
		log_warn("%s: %s drifted: %s", name, subject, now);
	snprintf(kind, sizeof(kind), "%s_%s", name, now[0] ? "drift" : "in_policy");
	if (store &&
	    store_record_event(store, clock_wall(), 0, now[0] ? "warning" : "info", kind, subject,
			       was && was[0] ? was : NULL, now[0] ? now : NULL) < 0)
		log_warn("%s: cannot record an event for %s", name, subject);
	return 1;
}

/* ---- apply --------------------------------------------------------------------- */

struct apply_ctx {
	struct osm_block *b;
	struct ctl_req *req;
	int carry;
	char opts[];  /* ops->max bytes */
};

static void apply_write(struct osm_block *b, struct ctl_req *req, const char *opts, int carry)
{
	const struct osm_block_ops *o = b->ops;
	char err[512], why[512] = "", kind[64], how[1024];
	char *text = NULL;
	json_t *ans;
	int pid, asked;

	if (put_block(b, opts, 1, &text, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "%s", err);
		return;
	}
	/* A line after loom's block that sets an option again still wins in
	 * OpenSM: said now, not only at the next status. */
	if (o->drift && o->drift(text, opts, why, sizeof(why)))
		log_warn("%s: %s: %s", o->name, b->path, why);
	free(text);
	asked = ask_osm(b, &pid, how, sizeof(how));
	if (asked)
		log_notice("%s: options written to %s, OpenSM re-reads them (%s)", o->name,
			   b->path, how);
	else
		log_warn("%s: options written to %s, but OpenSM was not asked to re-read them: %s",
			 o->name, b->path, how);
	snprintf(kind, sizeof(kind), "%s_applied", o->name);
	if (b->store &&
	    store_record_event(b->store, clock_wall(), 0, "info", kind, b->path, NULL,
			       o->applied_detail ? o->applied_detail(b->mod, opts) : opts) < 0)
		log_warn("%s: cannot record the apply event", o->name);
	ans = json_pack("{s:s, s:s, s:i, s:b, s:s}", "file", b->path, "options", opts,
			"opensm_pid", pid, "opensm_asked", asked, "opensm_how", how);
	if (ans && o->answer)
		o->answer(b->mod, ans, why, carry);
	ctl_reply_ok(req, ans);
}

static void apply_replicated(void *arg, int rc, const char *err)
{
	struct apply_ctx *c = arg;
	const char *name = c->b->ops->name;

	if (rc < 0) {
		log_warn("%s: apply refused: the options could not be replicated in etcd: %s", name,
			 err);
		ctl_reply_err(c->req, PROTO_ERR_FAILED, "the %s options could not be replicated "
			      "in etcd, nothing was written: %s", name, err);
	} else {
		apply_write(c->b, c->req, c->opts, c->carry);
	}
	free(c);
}

static void cmd_apply(struct ctl_req *req, json_t *args, void *arg)
{
	struct osm_block *b = arg;
	const char *name = b->ops->name;
	struct apply_ctx *c = calloc(1, sizeof(*c) + b->ops->max);
	char version[17], key[64];
	int rc;

	(void)args;
	if (!c) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	if (b->ops->options(b->mod, req, c->opts, b->ops->max, &c->carry) < 0) {
		free(c);
		return;
	}
	if (!b->w.put) {
		apply_write(b, req, c->opts, c->carry);
		free(c);
		return;
	}
	/* HA: etcd holds the options before OpenSM's file does. */
	c->b = b;
	c->req = req;
	qos_intent_hash(c->opts, version);
	snprintf(key, sizeof(key), "policy/%s", name);
	rc = qos_intent_put_async(b->iwork, b->w.put, b->w.arg, key,
				  json_pack("{s:s, s:s, s:s, s:s, s:f}", "file", b->path,
					    "options", c->opts, "version", version, "by", b->node,
					    "at", clock_wall()),
				  apply_replicated, c);
	if (rc < 0) {
		free(c);
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "%s: cannot replicate the options: %s", name,
			      strerror(-rc));
	}
}

int osm_block_register(struct osm_block *b, struct ctl *ctl)
{
	return ctl_handle(ctl, b->ops->apply_cmd, cmd_apply, b);
}

/* ---- HA ------------------------------------------------------------------------ */

/* A follower: the leader's block into this node's file, its OpenSM
 * signalled when the file changed. */
static void mirror(struct osm_block *b, const char *opts)
{
	const char *name = b->ops->name;
	char err[512], how[1024];
	int rc, pid;

	if (!b->path[0]) {
		log_warn("%s: the leader replicated OpenSM options but this node has no "
			 "%s.opensm_config to write them to", name, name);
		return;
	}
	if ((rc = put_block(b, opts, 0, NULL, err, sizeof(err))) < 0)
		log_warn("%s: the leader's options not written to %s: %s", name, b->path, err);
	else if (rc > 0 && ask_osm(b, &pid, how, sizeof(how)))
		log_notice("%s: loom's block written from the leader's record, the local OpenSM "
			   "re-reads it (%s)", b->path, how);
	else if (rc > 0)
		log_warn("%s: loom's block written from the leader's record, but the local OpenSM "
			 "was not asked to re-read it: %s", b->path, how);
}

void osm_block_watch(struct osm_block *b, const json_t *records, int leading)
{
	const struct osm_block_ops *o = b->ops;
	const json_t *rec = json_object_get(records, o->name);
	const char *opts = json_string_value(json_object_get(rec, "options"));
	const char *version = json_string_value(json_object_get(rec, "version"));
	const char *by = json_string_value(json_object_get(rec, "by"));
	char what[768], *mine;
	int same;

	if (!opts)
		return;  /* nothing replicated (or etcd unread): nothing to do */
	if (!leading) {
		mirror(b, opts);
		return;
	}
	/* Takeover: the replicated options are what OpenSM holds (every node
	 * mirrored them); say whether this node's loom.yaml agrees. */
	mine = malloc(o->max);
	same = mine && o->mine(b->mod, mine, o->max) == 0 && !strcmp(mine, opts);
	free(mine);
	snprintf(what, sizeof(what), "%s: the replicated options (version %s, by %s) %s%s%s",
		 o->name, version ? version : "?", by ? by : "?", same ?
		 "are this node's loom.yaml's" : "differ from this node's loom.yaml; OpenSM keeps "
		 "the replicated ones until ", same ? "" : o->apply_cmd,
		 same ? "" : " is run on this node");
	log_msg(same ? LOG_LVL_NOTICE : LOG_LVL_WARNING, "%s", what);
	if (b->store && store_record_event(b->store, clock_wall(), 0, same ? "info" : "warning",
					   "ha_takeover_policy", o->name, NULL, what) < 0)
		log_warn("%s: cannot record the takeover event", o->name);
}
