/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_serve.c: the core's end of a front end's channel (see
 * front_serve.h and front_proto.h).
 *
 * Every question is a struct op on the peer's list until it is answered;
 * when the peer goes first, its ops are orphaned (peer NULL) and their
 * answers dropped when they come. What the front end sends is checked
 * field by field; anything else closes the channel (front.c starts a
 * new front end). The bounds: FRONT_MAX_FRAME a frame, FRONT_MAX_PENDING
 * questions at once (more are answered busy), FRONT_MAX_QUEUED bytes of
 * answers not read. */
#include "autoconf.h"
#include "daemon/http/front_serve.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/core/authz.h"
#include "daemon/core/ctl.h"
#include "daemon/http/config_http.h"
#include "daemon/http/front_proto.h"
#include "daemon/http/front_question.h"
#include "daemon/http/metrics_http.h"
#include "lib/util/log.h"

struct op {
	struct front_peer *peer;     /* NULL once orphaned */
	struct op *prev, *next;
	json_int_t id;
	int in_call;                 /* inside ctl_call: an answer now is "sync" */
	int answered;
};

struct front_peer {
	struct bufferevent *bev;
	pid_t pid;
	struct ctl *ctl;
	struct http_metrics *metrics;
	struct front_peer_hooks h;
	struct op *ops;
	size_t n_ops;
	int gone;
	struct event *later;         /* gone() from the loop, not from a callback */
	char why[256];
};

/* ---- answers ---------------------------------------------------------------------------- */

static void op_unlink(struct op *o)
{
	struct front_peer *p = o->peer;

	if (!p)
		return;
	if (o->prev)
		o->prev->next = o->next;
	else
		p->ops = o->next;
	if (o->next)
		o->next->prev = o->prev;
	p->n_ops--;
	o->peer = NULL;
}

static void peer_fail(struct front_peer *p, const char *why);

/* Queue msg (stolen) and, when given, len raw bytes after it. */
static void peer_send(struct front_peer *p, json_t *msg, const char *raw, size_t len)
{
	struct evbuffer *out = bufferevent_get_output(p->bev);
	char *buf = NULL;
	size_t n;

	if (p->gone) {
		json_decref(msg);
		return;
	}
	if (!msg || proto_frame_new(msg, PROTO_MAX_RESPONSE, &buf, &n) < 0 ||
	    evbuffer_add(out, buf, n) < 0 || (raw && evbuffer_add(out, raw, len) < 0)) {
		free(buf);
		json_decref(msg);
		peer_fail(p, "cannot queue an answer (out of memory or over the limit)");
		return;
	}
	free(buf);
	json_decref(msg);
	if (evbuffer_get_length(out) > FRONT_MAX_QUEUED)
		peer_fail(p, "it does not read its answers");
}

static json_t *answer_head(const struct op *o)
{
	return json_pack("{s:I}", "id", (json_int_t)o->id);
}

static void on_call_answer(json_t *answer, void *arg)
{
	struct op *o = arg;
	json_t *m;

	o->answered = 1;
	if (o->peer) {
		if (!answer)
			answer = proto_response_err_new(0, PROTO_ERR_INTERNAL, "out of memory");
		/* The protocol's answer without its "v" and "id" (ctl_call's). */
		if ((m = answer_head(o))) {
			json_object_set(m, "answer", answer ? answer : json_null());
			json_object_set_new(m, "sync", json_boolean(o->in_call));
		}
		peer_send(o->peer, m, NULL, 0);
		op_unlink(o);
	}
	json_decref(answer);
	if (!o->in_call)
		free(o);
}

static void on_metrics(void *arg, const char *body, size_t len, int gzipped, const char *why)
{
	struct op *o = arg;
	json_t *m;

	if (o->peer) {
		if ((m = answer_head(o))) {
			if (body)
				json_object_set_new(m, "bytes", json_integer((json_int_t)len)),
				json_object_set_new(m, "gzip", json_boolean(gzipped));
			else
				json_object_set_new(m, "error", json_string(why ? why : "no text"));
		}
		peer_send(o->peer, m, body, body ? len : 0);
		op_unlink(o);
	}
	free(o);
}

/* ---- questions ---------------------------------------------------------------------------- */

static struct op *op_new(struct front_peer *p, json_int_t id)
{
	struct op *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->peer = p;
	o->id = id;
	o->next = p->ops;
	if (p->ops)
		p->ops->prev = o;
	p->ops = o;
	p->n_ops++;
	return o;
}

/* One question; -1 when it breaks the protocol. */
static int on_question(struct front_peer *p, json_t *m)
{
	struct front_question q;
	struct op *o;
	char why[160] = "";
	json_t *a;
	unsigned v;

	if (front_question_parse(m, &q) < 0)
		return -1;
	switch (q.op) {
	case FQ_HELLO:   /* said once, in the handshake */
		return -1;
	case FQ_FAILED:
		snprintf(p->why, sizeof(p->why), "%s", q.error ? q.error : "it failed");
		return -1;
	default:
		break;
	}
	if (p->n_ops >= FRONT_MAX_PENDING) {
		if ((a = answer_head(&(struct op){ .id = q.id })) && q.op == FQ_CALL)
			json_object_set_new(a, "answer", proto_response_err_new(0, PROTO_ERR_BUSY,
					    "too many requests under way; try again"));
		else if (a)
			json_object_set_new(a, "error", json_string("busy"));
		peer_send(p, a, NULL, 0);
		return 0;
	}
	switch (q.op) {
	case FQ_CALL:
		if (!(o = op_new(p, q.id)))
			return -1;
		o->in_call = 1;
		ctl_call(p->ctl, q.cmd, q.args, &q.who, on_call_answer, o);
		o->in_call = 0;
		if (o->answered)
			free(o);
		else if (q.ack)
			peer_send(p, json_pack("{s:I, s:b}", "id", (json_int_t)o->id, "started", 1),
				  NULL, 0);
		return 0;
	case FQ_VERSION:
		if ((a = json_pack("{s:I}", "id", q.id)))
			json_object_set_new(a, "version", ctl_version(p->ctl, q.cmd, &q.who, &v) ?
					    json_integer(v) : json_null());
		peer_send(p, a, NULL, 0);
		return 0;
	case FQ_METRICS:
		if (!(o = op_new(p, q.id)))
			return -1;
		http_metrics_render(p->metrics, q.gzip, q.auth_failures, on_metrics, o);
		return 0;
	case FQ_READY:
		peer_send(p, json_pack("{s:I, s:b, s:s}", "id", q.id, "ready",
				       http_metrics_ready(p->metrics, why, sizeof(why)), "why", why),
			  NULL, 0);
		return 0;
	default:
		return -1;
	}
}

/* ---- the channel ---------------------------------------------------------------------------- */

static void on_later(evutil_socket_t fd, short what, void *arg)
{
	struct front_peer *p = arg;

	(void)fd;
	(void)what;
	if (p->h.gone)
		p->h.gone(p->h.arg, p, p->why);
}

static void peer_fail(struct front_peer *p, const char *why)
{
	if (p->gone)
		return;
	p->gone = 1;
	if (!p->why[0])
		snprintf(p->why, sizeof(p->why), "%s", why);
	bufferevent_disable(p->bev, EV_READ | EV_WRITE);
	event_active(p->later, 0, 0);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct front_peer *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!p->gone) {
		size_t have = evbuffer_get_length(in);
		char err[160];
		json_t *m = NULL;
		ssize_t n;

		if (have < PROTO_HEADER_LEN)
			return;
		n = proto_frame_decode(evbuffer_pullup(in, -1), have, FRONT_MAX_FRAME, &m, err,
				       sizeof(err));
		if (n == 0)
			return;
		if (n < 0) {
			char why[200];

			snprintf(why, sizeof(why), "it sent a bad frame (%s)", err);
			peer_fail(p, why);
			return;
		}
		evbuffer_drain(in, (size_t)n);
		if (on_question(p, m) < 0) {
			json_decref(m);
			peer_fail(p, "it broke the protocol");
			return;
		}
		json_decref(m);
	}
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	peer_fail(arg, (what & BEV_EVENT_EOF) ? "it closed its channel" : "its channel failed");
}

struct front_peer *front_peer_new(struct event_base *base, int fd, pid_t pid, struct ctl *ctl,
				  struct http_metrics *metrics, const struct front_peer_hooks *h)
{
	struct front_peer *p = calloc(1, sizeof(*p));

	if (!p || !(p->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE)) ||
	    !(p->later = event_new(base, -1, 0, on_later, p))) {
		if (p && p->bev)
			bufferevent_free(p->bev);
		else
			close(fd);
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->pid = pid;
	p->ctl = ctl;
	p->metrics = metrics;
	p->h = *h;
	bufferevent_setcb(p->bev, on_read, NULL, on_event, p);
	bufferevent_enable(p->bev, EV_READ | EV_WRITE);
	return p;
}

int front_handshake(int fd, const struct http_conf *conf, int n_listeners, int log_level,
		    int log_target, const char *user, json_t *probe, char *err, size_t errlen)
{
	json_t *m = json_pack("{s:s, s:I, s:i, s:i, s:i, s:s, s:o}", "op", "config", "bytes",
			      (json_int_t)sizeof(*conf), "listeners", n_listeners, "log_level",
			      log_level, "log_target", log_target, "user", user ? user : "",
			      "probe", probe ? probe : json_array());
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	const char *op;
	int rc;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = proto_send_fd(fd, m, FRONT_MAX_FRAME);
	json_decref(m);
	m = NULL;
	for (size_t off = 0; rc == 0 && off < sizeof(*conf);) {
		ssize_t n = write(fd, (const char *)conf + off, sizeof(*conf) - off);

		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot send it its configuration: %s", strerror(-rc));
		return rc;
	}
	/* Its set-up takes milliseconds: files, TLS, the sandbox. */
	do
		rc = poll(&pfd, 1, FRONT_START_WAIT_S * 1000);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		snprintf(err, errlen, "the front end did not start within %d s", FRONT_START_WAIT_S);
		return -ETIMEDOUT;
	}
	if ((rc = proto_recv_fd(fd, FRONT_MAX_FRAME, &m)) < 0) {
		snprintf(err, errlen, "the front end ended before it served (%s)",
			 rc == -EPIPE || rc == -ECONNRESET ? "its channel closed" : strerror(-rc));
		return rc;
	}
	op = json_string_value(json_object_get(m, "op"));
	if (op && !strcmp(op, "hello")) {
		json_decref(m);
		return 0;
	}
	snprintf(err, errlen, "%s", op && !strcmp(op, "failed") &&
		 json_string_value(json_object_get(m, "error")) ?
		 json_string_value(json_object_get(m, "error")) : "it said something else than hello");
	json_decref(m);
	return -EPROTO;
}

pid_t front_peer_pid(const struct front_peer *p)
{
	return p ? p->pid : -1;
}

void front_peer_free(struct front_peer *p)
{
	if (!p)
		return;
	while (p->ops)
		op_unlink(p->ops);   /* their answers come later, to nobody */
	bufferevent_free(p->bev);
	event_free(p->later);
	free(p);
}
