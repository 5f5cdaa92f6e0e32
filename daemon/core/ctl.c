/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl.c: the control socket server (see ctl.h).
 *
 * One bufferevent per client. A connection is served strictly in order: the
 * next request on it is not even decoded until the current one has been
 * answered, so responses come back in request order and one client can keep
 * at most one handler busy (a client that wants parallel requests opens
 * several connections). Every request is answered, including refused ones;
 * the response carries the request's "id".
 *
 * A write command from a client other than root needs its user name and
 * groups, which come from NSS (ctl_ident.h): looked up on a thread, the
 * request held meanwhile (it is the connection's current one, so the
 * connection waits with it) and checked when the answer comes.
 *
 * A request lives in struct ctl_req from dispatch until its handler answers.
 * If the client goes away first the request is orphaned (req->client = NULL)
 * and the answer is dropped when it comes. ctl_free() answers whatever is
 * still pending, so handlers must not keep ctl_req pointers past it.
 *
 * Bounds (ctl_limits.h): a client whose output crosses the mark is "stalled"
 * and not read (its requests wait in its socket) until the output drains to
 * half the mark (the write low watermark). One timer per client, armed for
 * what it waits for: the stall timeout while stalled or flushing before a
 * close, the idle timeout with no request in flight, none while a handler
 * holds its request. A connection only the reserve can take, from a user
 * whose admin group membership is not yet known, is "vetting": not read
 * until the lookup says, then kept or refused. */
#include "autoconf.h"
#include "daemon/core/ctl.h"
#include "daemon/core/authz.h"
#include "daemon/core/ctl_ident.h"
#include "daemon/core/ctl_impl.h"
#include "daemon/core/ctl_limits.h"
#include "daemon/core/usock.h"

#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/util/log.h"
#include "lib/util/proto.h"

#define CTL_BACKLOG 64
/* After accept() fails for lack of descriptors the pending connection stays
 * in the backlog and the listener would fire again at once: pause instead. */
#define CTL_ACCEPT_PAUSE_S 1
static void client_process(struct ctl_client *cl);

/* ---- timers --------------------------------------------------------------------- */

/* Arm the client's timer for what it now waits for. The idle timeout
 * restarts only when restart_idle is set (connected, or a request was
 * answered): bytes trickling in do not count as activity. */
static void client_arm(struct ctl_client *cl, int restart_idle)
{
	const struct ctl_limits *l = &cl->ctl->limits;
	struct timeval tv = { 0 };
	int want = cl->stalled || cl->closing ? TIMING_STALL :
		   cl->current || !l->idle_timeout_s ? TIMING_NONE : TIMING_IDLE;

	if (want == TIMING_NONE)
		evtimer_del(cl->timer);
	else if (want != (int)cl->timing || (want == TIMING_IDLE && restart_idle)) {
		/* From now, not from the start of this turn of the loop (the
		 * time libevent caches): a handler that took longer than the
		 * timeout to build a large answer must not see it dropped as
		 * soon as it is queued. */
		event_base_update_cache_time(cl->ctl->base);
		tv.tv_sec = want == TIMING_STALL ? l->stall_timeout_s : l->idle_timeout_s;
		evtimer_add(cl->timer, &tv);
	}
	cl->timing = want;
}

/* ---- sending ------------------------------------------------------------------ */

/* Queue `resp` (stolen) on the client's connection. A response above the
 * protocol's limit is replaced by an error, so the client is never left
 * waiting. */
static void client_send(struct ctl_client *cl, json_t *resp)
{
	json_int_t id = json_integer_value(json_object_get(resp, "id"));
	struct evbuffer *out = bufferevent_get_output(cl->bev);
	int rc = resp ? ctl_frame_queue(&cl->ctl->frames, out, resp, PROTO_MAX_RESPONSE) : -ENOMEM;

	json_decref(resp);
	if (rc == -EMSGSIZE) {
		log_warn("control: a response to uid %d exceeds %u bytes; sending an error instead",
			 (int)cl->uid, PROTO_MAX_RESPONSE);
		resp = proto_response_err_new(id, PROTO_ERR_TOO_LARGE,
					      "the answer is over the control protocol's limit of "
					      "%u bytes: ask for less, or read the database itself "
					      "(loomctl --db)", PROTO_MAX_RESPONSE);
		rc = resp ? ctl_frame_queue(&cl->ctl->frames, out, resp, PROTO_MAX_RESPONSE) :
		     -ENOMEM;
		json_decref(resp);
	}
	if (rc < 0) {
		/* The client would wait forever for an answer that cannot be
		 * sent: hang up instead (from the loop: we may be deep in a
		 * handler here). */
		log_err("control: cannot send a response to uid %d: %s; closing the connection",
			(int)cl->uid, strerror(-rc));
		cl->closing = 1;
		bufferevent_disable(cl->bev, EV_READ);
		event_active(cl->resume, EV_WRITE, 0);
		return;
	}
	if (!cl->stalled && evbuffer_get_length(bufferevent_get_output(cl->bev)) >
	    cl->ctl->limits.max_output) {
		/* Not one more request until it reads: the reply that crossed
		 * the mark is the last one queued (client_write_cb resumes). */
		log_debug("control: uid %d (pid %d) does not read its answers; not reading its "
			  "requests until it does", (int)cl->uid, (int)cl->pid);
		cl->stalled = 1;
		bufferevent_disable(cl->bev, EV_READ);
		client_arm(cl, 0);
	}
}

/* ---- clients -------------------------------------------------------------------- */

static void client_free(struct ctl_client *cl)
{
	struct ctl *ctl = cl->ctl;

	if (cl->current) {
		log_debug("control: uid %d left before \"%s\" was answered", (int)cl->uid,
			  cl->current->cmd->name);
		cl->current->client = NULL;
	}
	if (cl->prev)
		cl->prev->next = cl->next;
	else
		ctl->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	ctl->n_clients--;
	bufferevent_free(cl->bev);
	event_free(cl->resume);
	event_free(cl->timer);
	free(cl);
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_client *cl = arg;
	const struct ctl_limits *l = &cl->ctl->limits;

	if (cl->timing == TIMING_STALL)
		log_warn("control: uid %d (pid %d) has not read its answers for %u s (%zu bytes "
			 "queued); dropping it", (int)cl->uid, (int)cl->pid, l->stall_timeout_s,
			 evbuffer_get_length(bufferevent_get_output(cl->bev)));
	else
		log_info("control: closing the connection of uid %d (pid %d): no request for %u s",
			 (int)cl->uid, (int)cl->pid, l->idle_timeout_s);
	client_free(cl);
}

/* Close once everything queued has been written (the write callback fires
 * when the output drains). */
static void client_close_after_flush(struct ctl_client *cl)
{
	cl->closing = 1;
	bufferevent_disable(cl->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(cl->bev)) == 0)
		client_free(cl);
	else
		client_arm(cl, 0);  /* a client that never reads is dropped */
}

static void client_read_cb(struct bufferevent *bev, void *arg)
{
	client_process(arg);
}

/* Runs after a write left at most half the mark queued (the write low
 * watermark), down to nothing. */
static void client_write_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *cl = arg;
	size_t left = evbuffer_get_length(bufferevent_get_output(bev));

	if (cl->closing) {
		if (left == 0)
			client_free(cl);
		return;
	}
	if (cl->stalled && left <= cl->ctl->limits.max_output / 2) {
		cl->stalled = 0;
		if (!cl->vetting)
			bufferevent_enable(bev, EV_READ);
		client_arm(cl, 0);
		event_active(cl->resume, EV_READ, 0);  /* what it sent meanwhile */
	}
}

static void client_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_client *cl = arg;

	if (what & BEV_EVENT_ERROR)
		log_debug("control: connection of uid %d failed: %s", (int)cl->uid,
			  strerror(EVUTIL_SOCKET_ERROR()));
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		client_free(cl);
}

static void client_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_client *cl = arg;

	if (cl->closing)
		client_close_after_flush(cl);
	else
		client_process(cl);
}

/* ---- requests ------------------------------------------------------------------------- */

/* Put req on the pending list. */
static void req_link(struct ctl *ctl, struct ctl_req *req)
{
	req->ctl = ctl;
	req->next = ctl->pending;
	if (ctl->pending)
		ctl->pending->prev = req;
	ctl->pending = req;
}

/* A request of cl, current on its connection and pending; NULL (answered)
 * when out of memory. */
static struct ctl_req *req_new(struct ctl_client *cl, const struct ctl_cmd *cmd, json_int_t id)
{
	struct ctl *ctl = cl->ctl;
	struct ctl_req *req = calloc(1, sizeof(*req));

	if (!req) {
		log_err("control: out of memory for a request");
		client_send(cl, proto_response_err_new(id, PROTO_ERR_INTERNAL, "out of memory"));
		return NULL;
	}
	req->client = cl;
	req->cmd = cmd;
	req->id = id;
	req->uid = cl->uid;
	req->gid = cl->gid;
	/* A read needs no identity: any local user may, whatever its role. */
	authz_principal_unix(&req->who, (int)cl->uid, cl->uid == 0 ? AUTHZ_ADMIN : AUTHZ_READ);
	req_link(ctl, req);
	cl->current = req;
	return req;
}

/* Run a request whose caller may run it: its arguments checked against
 * the command's keys (ctl_set_args), a socket reader's fabric reads
 * against its rate (ctl_rate_check), the gate (ctl_set_gate) for anything
 * but a read, then the audit line and the handler. */
static void run_request(struct ctl *ctl, struct ctl_req *req, json_t *args)
{
	const struct ctl_cmd *cmd = req->cmd;
	const char *code;
	char why[1024];

	if (cmds_args_check(cmd->name, cmd->args, args, why, sizeof(why)) < 0) {
		ctl_audit(cmd, &req->who, "bad request");
		ctl_reply_err(req, PROTO_ERR_BADREQ, "%s", why);
		return;
	}
	if (ctl_rate_check(ctl, req, args, why, sizeof(why)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "%s", why);
		return;
	}
	if (cmd->access != CTL_READ && ctl->gate &&
	    (code = ctl->gate(ctl->gate_arg, cmd->name, why, sizeof(why)))) {
		ctl_audit(cmd, &req->who, why);
		ctl_reply_err(req, code, "%s", why);
		return;
	}
	ctl_audit(cmd, &req->who, NULL);
	cmd->fn(req, args, cmd->arg);
}

void ctl_set_gate(struct ctl *ctl, ctl_gate_fn fn, void *arg)
{
	ctl->gate = fn;
	ctl->gate_arg = arg;
}

int ctl_gate_check(struct ctl *ctl, const char *what, char *why, size_t whylen)
{
	return ctl && ctl->gate && ctl->gate(ctl->gate_arg, what, why, whylen) ? -EPERM : 0;
}

/* Does this request of cl need its peer's role (its identity)? A write
 * does; so does a fabric read, which role read may run only so often (root
 * and the admin group as they like). Root is admin without asking. */
static int needs_role(const struct ctl *ctl, const struct ctl_client *cl,
		      const struct ctl_cmd *cmd, const json_t *args)
{
	if (cl->uid == 0)
		return 0;
	return !authz_allows(AUTHZ_READ, cmd->access) ||
	       (ctl->limits.read_rate_s && ctl_limits_spends(cmd->name, args));
}

/* Handle one decoded request. */
static void client_dispatch(struct ctl_client *cl, json_t *msg)
{
	struct ctl *ctl = cl->ctl;
	const struct ctl_cmd *cmd;
	const char *name;
	json_t *args;
	json_int_t id;
	char err[256];
	int rc = proto_request_parse(msg, &name, &args, &id, err, sizeof(err));

	if (rc < 0) {
		log_debug("control: bad request from uid %d: %s", (int)cl->uid, err);
		client_send(cl, proto_response_err_new(id, rc == -EPROTO ? PROTO_ERR_VERSION :
						       PROTO_ERR_BADREQ, "%s", err));
		return;
	}
	log_debug("control: \"%.64s\" from uid %d (pid %d)", name, (int)cl->uid, (int)cl->pid);
	if (!(cmd = ctl_cmd_find(ctl, name))) {
		client_send(cl, ctl_cmd_unknown_new(ctl, id, name));
		return;
	}
	if (needs_role(ctl, cl, cmd, args)) {
		const struct ctl_ident *who = NULL;
		struct authz_principal p;
		char why[1024];
		int arc;

		rc = ctl_identity(ctl, cl->uid, &who);
		if (rc < 0 && cmd->access == CTL_READ) {
			/* the databases failed: a read runs, as role read */
			struct ctl_req *req = req_new(cl, cmd, id);

			if (req)
				run_request(ctl, req, args);
			return;
		}
		if (rc < 0) {
			log_warn("control: cannot look up uid %d: %s", (int)cl->uid, strerror(-rc));
			client_send(cl, proto_response_err_new(id, rc == -EAGAIN ? PROTO_ERR_BUSY :
							       PROTO_ERR_INTERNAL, "cannot look up "
							       "uid %d: %s", (int)cl->uid,
							       strerror(-rc)));
			return;
		}
		if (rc == 1 && (arc = ctl_access_check(ctl, cl->uid, cl->gid, cmd, who, &p, why,
						       sizeof(why))) < 0) {
			ctl_audit(cmd, &p, arc == -EIO ? "identity unknown" : "permission denied");
			client_send(cl, proto_response_err_new(id, arc == -EIO ? PROTO_ERR_FAILED :
							       PROTO_ERR_DENIED, "%s", why));
			return;
		}
		if (rc == 0) {  /* held until the lookup ends (idents_ready) */
			struct ctl_req *req = req_new(cl, cmd, id);

			if (req)
				req->held = json_incref(args);
			return;
		}
		struct ctl_req *req = req_new(cl, cmd, id);
		if (req) {
			req->who = p;
			run_request(ctl, req, args);
		}
		return;
	}

	struct ctl_req *req = req_new(cl, cmd, id);
	if (req) {
		run_request(ctl, req, args);
	}
}

/* Connections taken into the reserve before their identity was known:
 * kept when it is root's or an admin's, else refused now. */
static void vet_clients(struct ctl *ctl)
{
	struct ctl_client *next;

	for (struct ctl_client *cl = ctl->clients; cl; cl = next) {
		const struct ctl_ident *who = NULL;
		char msg[256];
		int rc;

		next = cl->next;
		if (!cl->vetting || (rc = ctl_identity(ctl, cl->uid, &who)) == 0)
			continue;
		cl->vetting = 0;
		if (rc == 1 && ctl->admin_group[0] &&
		    ctl_ident_in_group(who, cl->gid, ctl->admin_group) == 1) {
			if (!cl->stalled)
				bufferevent_enable(cl->bev, EV_READ);
			event_active(cl->resume, EV_READ, 0);
			continue;
		}
		ctl_limits_refusal(&ctl->limits, &ctl->refusals, CTL_ADMIT_IF_ADMIN, cl->uid,
				   cl->pid, msg, sizeof(msg));
		client_send(cl, proto_response_err_new(0, PROTO_ERR_BUSY, "%s", msg));
		client_close_after_flush(cl);
	}
}

/* Requests held for an identity whose lookup has ended: checked now, then
 * handled or refused. Several lookups may have ended in one call. */
static void idents_ready(void *arg)
{
	struct ctl *ctl = arg;
	struct ctl_req **held = NULL;
	size_t n = 0, cap = 0;

	for (struct ctl_req *r = ctl->pending; r; r = r->next) {
		if (!r->held)
			continue;
		if (n == cap) {
			struct ctl_req **bigger = realloc(held, (cap = cap ? 2 * cap : 8) *
							  sizeof(*held));

			if (!bigger)
				break;  /* the rest waits for the next wake-up */
			held = bigger;
		}
		held[n++] = r;
	}
	/* Handlers may add and answer requests: work from the copy. */
	for (size_t i = 0; i < n; i++) {
		struct ctl_req *req = held[i];
		const struct ctl_ident *who = NULL;
		json_t *args = req->held;
		char why[1024];
		int rc = ctl_identity(ctl, req->uid, &who);

		if (rc == 0)
			continue;  /* another lookup (the group names changed) */
		req->held = NULL;
		if (rc < 0 && req->cmd->access != CTL_READ)
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot look up uid %d: %s",
				      (int)req->uid, strerror(-rc));
		else if (!req->client)
			ctl_reply_err(req, PROTO_ERR_BUSY, "the client is gone");  /* dropped */
		else if (rc > 0 && (rc = ctl_access_check(ctl, req->uid, req->gid, req->cmd, who,
							  &req->who, why, sizeof(why))) < 0) {
			ctl_audit(req->cmd, &req->who, rc == -EIO ? "identity unknown" :
				  "permission denied");
			ctl_reply_err(req, rc == -EIO ? PROTO_ERR_FAILED : PROTO_ERR_DENIED, "%s", why);
		} else {
			run_request(ctl, req, args);
		}
		json_decref(args);
	}
	free(held);
	vet_clients(ctl);
}

/* Decode and dispatch what the client has sent, one request at a time. */
static void client_process(struct ctl_client *cl)
{
	struct evbuffer *in = bufferevent_get_input(cl->bev);

	while (!cl->current && !cl->closing && !cl->stalled && !cl->vetting) {
		size_t avail = evbuffer_get_length(in);
		unsigned char header[PROTO_HEADER_LEN];
		size_t need;
		json_t *msg = NULL;
		char err[256];
		ssize_t used;

		if (avail < PROTO_HEADER_LEN)
			return;
		evbuffer_copyout(in, header, sizeof(header));
		need = PROTO_HEADER_LEN + ((size_t)header[0] << 24 | (size_t)header[1] << 16 |
					   (size_t)header[2] << 8 | (size_t)header[3]);
		/* An oversize frame is refused from its header alone (the
		 * decoder says so with the header only); a complete one is
		 * decoded in place, made contiguous by pullup. */
		if (need > PROTO_HEADER_LEN + PROTO_MAX_REQUEST)
			used = proto_frame_decode(header, sizeof(header), PROTO_MAX_REQUEST, &msg,
						  err, sizeof(err));
		else if (avail < need)
			return;
		else
			used = proto_frame_decode(evbuffer_pullup(in, (ev_ssize_t)need), need,
						  PROTO_MAX_REQUEST, &msg, err, sizeof(err));
		if (used == -EMSGSIZE) {
			/* The stream cannot be resynchronized past a body we
			 * will not read: answer, then hang up. */
			log_warn("control: uid %d sent an oversize request (%s); disconnecting",
				 (int)cl->uid, err);
			client_send(cl, proto_response_err_new(0, PROTO_ERR_BADREQ, "%s", err));
			client_close_after_flush(cl);
			return;
		}
		if (used == 0)
			return;
		evbuffer_drain(in, need);
		if (used < 0) {
			/* The framing is intact: refuse this one, serve the next. */
			log_debug("control: undecodable request from uid %d: %s", (int)cl->uid, err);
			client_send(cl, proto_response_err_new(0, PROTO_ERR_BADREQ, "%s", err));
			continue;
		}
		client_dispatch(cl, msg);
		json_decref(msg);
		/* An answer may have freed nothing but queued a stall; a
		 * request taken stops the idle timer. */
		client_arm(cl, 0);
	}
}

static void req_unlink(struct ctl_req *req)
{
	struct ctl *ctl = req->ctl;

	if (req->prev)
		req->prev->next = req->next;
	else
		ctl->pending = req->next;
	if (req->next)
		req->next->prev = req->prev;
}

/* Send `resp` (stolen) for req and free req. */
static void req_finish(struct ctl_req *req, json_t *resp)
{
	struct ctl_client *cl = req->client;

	req_unlink(req);
	json_decref(req->held);
	if (req->answer) {
		/* ctl_call's: the same answer, without the socket's framing */
		if (resp) {
			json_object_del(resp, "v");
			json_object_del(resp, "id");
		}
		req->answer(resp, req->answer_arg);
		free(req);
		return;
	}
	if (!cl) {
		log_debug("control: dropping the answer to \"%s\": its client is gone",
			  req->cmd->name);
		json_decref(resp);
		free(req);
		return;
	}
	cl->current = NULL;
	client_send(cl, resp);
	free(req);
	client_arm(cl, 1);
	/* The next request is taken up from the loop, not from here: the
	 * handler answering may be iterating over its own state. */
	event_active(cl->resume, EV_READ, 0);
}

void ctl_reply_ok(struct ctl_req *req, json_t *result)
{
	req_finish(req, proto_response_ok_new(req->id, result));
}

void ctl_reply_err(struct ctl_req *req, const char *code, const char *fmt, ...)
{
	json_t *resp;
	va_list ap;

	va_start(ap, fmt);
	resp = proto_response_verr_new(req->id, code, fmt, ap);
	va_end(ap);
	req_finish(req, resp);
}

void ctl_reply_errno(struct ctl_req *req, int rc, json_t *result, const char *other,
		     const char *err)
{
	if (rc == 0)
		ctl_reply_ok(req, result);
	else if (rc == -ENOENT)
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "%s", err);
	else if (rc == -EINVAL || rc == -EEXIST)
		ctl_reply_err(req, PROTO_ERR_BADREQ, "%s", err);
	else
		ctl_reply_err(req, other, "%s", err);
}

const char *ctl_req_cmd(const struct ctl_req *req)
{
	return req->cmd->name;
}

int ctl_req_uid(const struct ctl_req *req)
{
	return req->who.uid;
}

const struct authz_principal *ctl_req_principal(const struct ctl_req *req)
{
	return &req->who;
}

/* ---- other transports ------------------------------------------------------------------ */

/* Answer a ctl_call that never became a request. */
static void call_answer_now(json_t *resp, ctl_answer_fn fn, void *arg)
{
	if (resp) {
		json_object_del(resp, "v");
		json_object_del(resp, "id");
	}
	fn(resp, arg);
}

void ctl_call(struct ctl *ctl, const char *name, json_t *args, const struct authz_principal *who,
	      ctl_answer_fn fn, void *arg)
{
	const struct ctl_cmd *cmd = ctl_cmd_find(ctl, name);
	struct ctl_req *req;
	json_t *empty = NULL;

	if (!cmd) {
		call_answer_now(ctl_cmd_unknown_new(ctl, 0, name), fn, arg);
		return;
	}
	if (!authz_allows(who->role, cmd->access)) {
		ctl_audit(cmd, who, "permission denied");
		call_answer_now(proto_response_err_new(0, PROTO_ERR_DENIED, "\"%s\" needs role %s: "
						       "permission denied for %s (role %s)",
						       cmd->name,
						       authz_role_name(authz_needed(cmd->access)),
						       who->how, authz_role_name(who->role)),
				fn, arg);
		return;
	}
	if (!(req = calloc(1, sizeof(*req)))) {
		log_err("control: out of memory for a request");
		call_answer_now(proto_response_err_new(0, PROTO_ERR_INTERNAL, "out of memory"), fn,
				arg);
		return;
	}
	req->cmd = cmd;
	req->uid = (uid_t)-1;
	req->gid = (gid_t)-1;
	req->who = *who;
	req->answer = fn;
	req->answer_arg = arg;
	req_link(ctl, req);
	if (!args)
		args = empty = json_object();
	run_request(ctl, req, args);
	json_decref(empty);
}

/* ---- the listener ---------------------------------------------------------------------- */

/* May this peer connect: 0, 1 (into the reserve until its groups are
 * known), or the refusal (-CTL_REFUSE_FULL, ...), logged. */
static int admit(struct ctl *ctl, const struct ucred *cred)
{
	const struct ctl_ident *who = NULL;
	unsigned of_uid = 0;
	enum ctl_admit a;
	int rc;

	for (const struct ctl_client *c = ctl->clients; c; c = c->next)
		of_uid += c->uid == cred->uid;
	a = ctl_limits_admit(&ctl->limits, cred->uid, ctl->n_clients, of_uid);
	if (a == CTL_ADMIT)
		return 0;
	if (a == CTL_ADMIT_IF_ADMIN && ctl->admin_group[0]) {
		/* known, or looked up with the connection unread meanwhile */
		rc = ctl_identity(ctl, cred->uid, &who);
		if (rc == 0)
			return 1;
		if (rc == 1 && ctl_ident_in_group(who, cred->gid, ctl->admin_group) == 1)
			return 0;
	}
	return -(int)a;
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct ctl *ctl = arg;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ctl_client *cl = NULL;
	char msg[256];
	int vetting;

	/* Credentials are taken at connect time, which is what SO_PEERCRED
	 * reports: a client cannot gain rights by passing the fd on. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log_warn("control: cannot read a client's credentials: %s; refusing it",
			 strerror(errno));
		evutil_closesocket(fd);
		return;
	}
	if ((vetting = admit(ctl, &cred)) < 0) {
		ctl_limits_refusal(&ctl->limits, &ctl->refusals, (enum ctl_admit)-vetting, cred.uid,
				   cred.pid, msg, sizeof(msg));
		ctl_limits_refuse_fd(fd, msg);
		return;
	}
	if (!(cl = calloc(1, sizeof(*cl))) ||
	    !(cl->bev = bufferevent_socket_new(ctl->base, fd, BEV_OPT_CLOSE_ON_FREE)) ||
	    !(cl->resume = event_new(ctl->base, -1, 0, client_resume_cb, cl)) ||
	    !(cl->timer = evtimer_new(ctl->base, client_timer_cb, cl))) {
		log_err("control: out of memory for a client");
		if (cl && cl->resume)
			event_free(cl->resume);
		if (cl && cl->bev)
			bufferevent_free(cl->bev);
		else
			evutil_closesocket(fd);
		free(cl);
		return;
	}
	cl->ctl = ctl;
	cl->uid = cred.uid;
	cl->gid = cred.gid;
	cl->pid = cred.pid;
	cl->vetting = vetting;
	cl->next = ctl->clients;
	if (ctl->clients)
		ctl->clients->prev = cl;
	ctl->clients = cl;
	ctl->n_clients++;
	/* Stop reading once a whole maximal request is buffered: a client
	 * that pipelines while its request is handled cannot grow our
	 * buffer without bound. */
	bufferevent_setwatermark(cl->bev, EV_READ, 0, PROTO_HEADER_LEN + PROTO_MAX_REQUEST);
	bufferevent_setwatermark(cl->bev, EV_WRITE, ctl->limits.max_output / 2, 0);
	bufferevent_setcb(cl->bev, client_read_cb, client_write_cb, client_event_cb, cl);
	bufferevent_enable(cl->bev, vetting ? EV_WRITE : EV_READ | EV_WRITE);
	client_arm(cl, 1);
	log_debug("control: client uid %d pid %d connected%s", (int)cred.uid, (int)cred.pid,
		  vetting ? " (in the reserve until its groups are known)" : "");
}

static void accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl *ctl = arg;

	evconnlistener_enable(ctl->listener);
}

static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
	struct ctl *ctl = arg;
	struct timeval tv = { .tv_sec = CTL_ACCEPT_PAUSE_S };
	int e = EVUTIL_SOCKET_ERROR();

	log_warn("control: accept failed: %s; pausing for %d s", strerror(e),
		 CTL_ACCEPT_PAUSE_S);
	evconnlistener_disable(lev);
	evtimer_add(ctl->accept_pause, &tv);
}



struct ctl *ctl_new(struct event_base *base, const char *path, const char *admin_group,
		    char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct ctl *ctl;
	int fd;

	if (usock_addr(path, &sa, err, errlen) < 0)
		return NULL;
	if (!(ctl = calloc(1, sizeof(*ctl)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctl->base = base;
	ctl->decls = cmds_table();
	ctl_limits_default(&ctl->limits);
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	if (ctl_set_admin_group(ctl, admin_group) < 0) {
		snprintf(err, errlen, "admin group name \"%s\" is too long", admin_group);
		free(ctl);
		return NULL;
	}
	/* Everyone may connect (0666): reads are public, writes are checked
	 * per request. */
	if (usock_make_parent_dir(path, err, errlen) < 0 ||
	    usock_clear_stale(&sa, SOCK_STREAM, "control", err, errlen) < 0 ||
	    (fd = usock_bind(&sa, SOCK_STREAM, 0666, CTL_BACKLOG, err, errlen)) < 0) {
		free(ctl);
		return NULL;
	}
	if (!(ctl->idents = ctl_idents_new(base, idents_ready, ctl, err, errlen))) {
		close(fd);
		unlink(sa.sun_path);
		free(ctl);
		return NULL;
	}
	ctl->accept_pause = evtimer_new(base, accept_resume_cb, ctl);
	ctl->listener = evconnlistener_new(base, accept_cb, ctl,
					   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (!ctl->accept_pause || !ctl->listener) {
		snprintf(err, errlen, "cannot set up the listener: out of memory");
		if (!ctl->listener)
			close(fd);
		ctl_free(ctl);
		return NULL;
	}
	evconnlistener_set_error_cb(ctl->listener, accept_error_cb);
	return ctl;
}

/* Best effort to get what is queued for a client out before it is closed
 * at shutdown: one non-blocking send (the bufferevent's output cannot be
 * drained from outside, so nothing is consumed); a client that does not
 * read loses it. */
static void client_flush_now(struct ctl_client *cl)
{
	struct evbuffer *out = bufferevent_get_output(cl->bev);
	size_t len = evbuffer_get_length(out);

	if (len)
		usock_send_nowait(bufferevent_getfd(cl->bev), evbuffer_pullup(out, -1), len);
}

void ctl_free(struct ctl *ctl)
{
	if (!ctl)
		return;
	/* Stop accepting first, so no new request arrives meanwhile. */
	if (ctl->listener)
		evconnlistener_free(ctl->listener);
	while (ctl->pending) {
		struct ctl_req *req = ctl->pending;

		ctl_reply_err(req, PROTO_ERR_BUSY, "loomd is shutting down");
	}
	while (ctl->clients) {
		client_flush_now(ctl->clients);
		client_free(ctl->clients);
	}
	ctl_refusals_flush(&ctl->refusals);
	if (ctl->path[0] && unlink(ctl->path) < 0 && errno != ENOENT)
		log_warn("control: cannot remove %s: %s", ctl->path, strerror(errno));
	if (ctl->accept_pause)
		event_free(ctl->accept_pause);
	ctl_idents_free(ctl->idents);
	while (ctl->cmds) {
		struct ctl_cmd *c = ctl->cmds;

		ctl->cmds = c->next;
		free(c);
	}
	ctl_frames_release(&ctl->frames);
	free(ctl);
}

int ctl_set_admin_group(struct ctl *ctl, const char *admin_group)
{
	if (!admin_group)
		admin_group = "";
	if (strlen(admin_group) >= sizeof(ctl->admin_group))
		return -ENAMETOOLONG;
	snprintf(ctl->admin_group, sizeof(ctl->admin_group), "%s", admin_group);
	/* Not looked up here (NSS, on the loop): the first write request of
	 * someone else than root finds out, and says so once. */
	ctl->warned_admin = 0;
	return 0;
}

int ctl_set_limits(struct ctl *ctl, const struct ctl_limits *limits, char *err, size_t errlen)
{
	int rc = ctl_limits_check(limits, err, errlen);

	if (rc < 0)
		return rc;
	ctl->limits = *limits;
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next) {
		bufferevent_setwatermark(cl->bev, EV_WRITE, limits->max_output / 2, 0);
		cl->timing = TIMING_NONE;  /* re-armed with the new timeouts */
		client_arm(cl, 1);
	}
	return 0;
}

void ctl_usage(const struct ctl *ctl, struct ctl_usage *u)
{
	memset(u, 0, sizeof(*u));
	for (const struct ctl_client *cl = ctl->clients; cl; cl = cl->next, u->clients++)
		if (evbuffer_get_length(bufferevent_get_output(cl->bev)) > u->queued_max)
			u->queued_max = evbuffer_get_length(bufferevent_get_output(cl->bev));
}

int ctl_set_tenant_writers(struct ctl *ctl, const char *users, const char *groups)
{
	if (strlen(users) >= sizeof(ctl->tenant_users) ||
	    strlen(groups) >= sizeof(ctl->tenant_groups))
		return -ENAMETOOLONG;
	snprintf(ctl->tenant_users, sizeof(ctl->tenant_users), "%s", users);
	snprintf(ctl->tenant_groups, sizeof(ctl->tenant_groups), "%s", groups);
	return 0;
}
