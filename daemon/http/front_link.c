/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_link.c: the front end's end of the channel (see
 * front_link.h; the messages are front_proto.h's).
 *
 * Each question is a struct ask on a list, found again by its id when the
 * answer comes; the core answers in any order. An answer the front end
 * did not ask for, or a frame it cannot read, closes the link: the core
 * is then not the one it was started by, and the front end exits. */
#include "autoconf.h"
#include "daemon/http/front_link.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/core/authz.h"
#include "daemon/http/front_proto.h"
#include "lib/util/log.h"

enum ask_kind { ASK_CALL, ASK_VERSION, ASK_METRICS, ASK_READY };

struct ask {
	struct ask *prev, *next;
	json_int_t id;
	enum ask_kind kind;
	void *arg;
	front_answer_fn answer;
	void (*started)(void *arg);
	void (*version)(void *arg, int keep, unsigned version);
	void (*metrics)(void *arg, const char *body, size_t len, int gzipped, const char *why);
	void (*ready)(void *arg, int ready, const char *why);
};

struct front_link {
	struct bufferevent *bev;
	struct ask *asks;
	size_t n_asks;
	json_int_t next_id;
	struct ask *raw;          /* the ask whose raw bytes come next */
	size_t raw_len;
	int raw_gzip;
	int closed;
	void (*on_closed)(void *arg);
	void *arg;
};

static void ask_unlink(struct front_link *l, struct ask *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		l->asks = a->next;
	if (a->next)
		a->next->prev = a->prev;
	l->n_asks--;
}

/* Answer a with the link's failure (the core is gone or said nonsense). */
static void ask_fail(struct ask *a, const char *why)
{
	switch (a->kind) {
	case ASK_CALL:
		a->answer(proto_response_err_new(0, PROTO_ERR_BUSY, "%s", why), a->arg);
		break;
	case ASK_VERSION:
		a->version(a->arg, 0, 0);
		break;
	case ASK_METRICS:
		a->metrics(a->arg, NULL, 0, 0, why);
		break;
	case ASK_READY:
		a->ready(a->arg, 0, why);
		break;
	}
	free(a);
}

static void link_close(struct front_link *l, const char *why)
{
	if (l->closed)
		return;
	l->closed = 1;
	log_err("http front end: the channel to the core: %s", why);
	if (l->raw)
		l->raw = NULL;   /* on the list still: failed below */
	while (l->asks) {
		struct ask *a = l->asks;

		ask_unlink(l, a);
		ask_fail(a, "loomd's core is not answering");
	}
	bufferevent_disable(l->bev, EV_READ);
	if (l->on_closed)
		l->on_closed(l->arg);
}

static struct ask *ask_find(struct front_link *l, json_int_t id)
{
	for (struct ask *a = l->asks; a; a = a->next)
		if (a->id == id)
			return a;
	return NULL;
}

/* An answer: its ask is answered (and freed) unless it waits for bytes
 * or was only told the command started. -1: nonsense. */
static int on_message(struct front_link *l, json_t *m)
{
	json_t *id = json_object_get(m, "id"), *v;
	struct ask *a = json_is_integer(id) ? ask_find(l, json_integer_value(id)) : NULL;

	if (!a)
		return -1;
	switch (a->kind) {
	case ASK_CALL:
		if (json_is_true(json_object_get(m, "started"))) {
			if (a->started)
				a->started(a->arg);
			a->started = NULL;
			return 0;
		}
		if (!json_is_object(v = json_object_get(m, "answer")))
			return -1;
		ask_unlink(l, a);
		a->answer(json_incref(v), a->arg);
		break;
	case ASK_VERSION:
		v = json_object_get(m, "version");
		ask_unlink(l, a);
		a->version(a->arg, json_is_integer(v), json_is_integer(v) ?
			   (unsigned)json_integer_value(v) : 0);
		break;
	case ASK_METRICS:
		if (json_is_integer(v = json_object_get(m, "bytes")) && json_integer_value(v) >= 0 &&
		    (uint64_t)json_integer_value(v) <= PROTO_MAX_RESPONSE) {
			l->raw = a;
			l->raw_len = (size_t)json_integer_value(v);
			l->raw_gzip = json_is_true(json_object_get(m, "gzip"));
			return 0;
		}
		ask_unlink(l, a);
		a->metrics(a->arg, NULL, 0, 0, json_string_value(json_object_get(m, "error")) ?
			   json_string_value(json_object_get(m, "error")) : "no text");
		break;
	case ASK_READY:
		ask_unlink(l, a);
		a->ready(a->arg, json_is_true(json_object_get(m, "ready")),
			 json_string_value(json_object_get(m, "why")) ?
			 json_string_value(json_object_get(m, "why")) : "");
		break;
	}
	free(a);
	return 0;
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct front_link *l = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!l->closed) {
		size_t have = evbuffer_get_length(in);
		unsigned char hdr[PROTO_HEADER_LEN];
		char err[160];
		json_t *m = NULL;
		ssize_t n;
		size_t len;

		if (l->raw) {
			struct ask *a = l->raw;
			const char *p;

			if (have < l->raw_len)
				return;
			p = (const char *)evbuffer_pullup(in, (ev_ssize_t)l->raw_len);
			l->raw = NULL;
			ask_unlink(l, a);
			a->metrics(a->arg, p ? p : "", l->raw_len, l->raw_gzip,
				   p || !l->raw_len ? NULL : "out of memory");
			free(a);
			evbuffer_drain(in, l->raw_len);
			continue;
		}
		if (have < PROTO_HEADER_LEN)
			return;
		evbuffer_copyout(in, hdr, sizeof(hdr));
		len = ((size_t)hdr[0] << 24) | ((size_t)hdr[1] << 16) | ((size_t)hdr[2] << 8) | hdr[3];
		if (len > PROTO_MAX_RESPONSE) {
			link_close(l, "a frame over the protocol's limit");
			return;
		}
		if (have < PROTO_HEADER_LEN + len)
			return;
		n = proto_frame_decode(evbuffer_pullup(in, (ev_ssize_t)(PROTO_HEADER_LEN + len)),
				       have, PROTO_MAX_RESPONSE, &m, err, sizeof(err));
		if (n <= 0 || on_message(l, m) < 0) {
			json_decref(m);
			link_close(l, n <= 0 ? err : "an answer to no question");
			return;
		}
		json_decref(m);
		evbuffer_drain(in, (size_t)n);
	}
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	link_close(arg, (what & BEV_EVENT_EOF) ? "closed" : "an error");
}

struct front_link *front_link_new(struct event_base *base, int fd, void (*closed)(void *arg),
				  void *arg)
{
	struct front_link *l = calloc(1, sizeof(*l));

	if (!l || !(l->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE))) {
		free(l);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	l->on_closed = closed;
	l->arg = arg;
	bufferevent_setcb(l->bev, on_read, NULL, on_event, l);
	bufferevent_enable(l->bev, EV_READ | EV_WRITE);
	return l;
}

void front_link_free(struct front_link *l)
{
	if (!l)
		return;
	l->on_closed = NULL;
	l->raw = NULL;
	while (l->asks) {
		struct ask *a = l->asks;

		ask_unlink(l, a);
		ask_fail(a, "loomd is stopping");
	}
	bufferevent_free(l->bev);
	free(l);
}

size_t front_link_pending(const struct front_link *l)
{
	return l ? l->n_asks : 0;
}

int front_link_say(struct front_link *l, json_t *msg)
{
	char *buf;
	size_t len;
	int rc;

	if (l->closed)
		return -EPIPE;
	if ((rc = proto_frame_new(msg, FRONT_MAX_FRAME, &buf, &len)) < 0)
		return rc;
	rc = bufferevent_write(l->bev, buf, len) < 0 ? -ENOMEM : 0;
	free(buf);
	return rc;
}

/* Send msg (stolen; its "id" set here) for a; a is answered with the
 * failure when it cannot go. */
static void ask_send(struct front_link *l, struct ask *a, json_t *msg)
{
	int rc = -ENOMEM;

	a->id = ++l->next_id;
	if (msg && !l->closed && json_object_set_new(msg, "id", json_integer(a->id)) == 0)
		rc = front_link_say(l, msg);
	json_decref(msg);
	if (rc < 0) {
		ask_fail(a, rc == -EMSGSIZE ? "the request is over the control protocol's limit" :
			 l->closed ? "loomd's core is not answering" : "out of memory");
		return;
	}
	a->next = l->asks;
	if (l->asks)
		l->asks->prev = a;
	l->asks = a;
	l->n_asks++;
}

static struct ask *ask_new(enum ask_kind kind, void *arg)
{
	struct ask *a = calloc(1, sizeof(*a));

	if (a) {
		a->kind = kind;
		a->arg = arg;
	}
	return a;
}

/* W of front_proto.h. */
static json_t *who_json(const struct authz_principal *who)
{
	return json_pack("{s:s, s:s, s:s}", "kind", strncmp(who->how, "cert ", 5) ? "token" : "cert",
			 "name", who->name, "role", authz_role_name(who->role));
}

void front_link_call(struct front_link *l, const char *cmd, json_t *args,
		     const struct authz_principal *who, front_answer_fn fn,
		     void (*started)(void *arg), void *arg)
{
	struct ask *a = ask_new(ASK_CALL, arg);

	if (!a) {
		fn(NULL, arg);
		return;
	}
	a->answer = fn;
	a->started = started;
	ask_send(l, a, json_pack("{s:s, s:s, s:O, s:o, s:b}", "op", "call", "cmd", cmd, "args",
				 args ? args : json_object(), "who", who_json(who), "ack",
				 started != NULL));
}

void front_link_version(struct front_link *l, const char *cmd, const struct authz_principal *who,
			void (*fn)(void *arg, int keep, unsigned version), void *arg)
{
	struct ask *a = ask_new(ASK_VERSION, arg);

	if (!a) {
		fn(arg, 0, 0);
		return;
	}
	a->version = fn;
	ask_send(l, a, json_pack("{s:s, s:s, s:o}", "op", "version", "cmd", cmd, "who",
				 who_json(who)));
}

void front_link_metrics(struct front_link *l, int gzip, unsigned long long auth_failures,
			void (*fn)(void *arg, const char *body, size_t len, int gzipped,
				   const char *why), void *arg)
{
	struct ask *a = ask_new(ASK_METRICS, arg);

	if (!a) {
		fn(arg, NULL, 0, 0, "out of memory");
		return;
	}
	a->metrics = fn;
	ask_send(l, a, json_pack("{s:s, s:b, s:I}", "op", "metrics", "gzip", gzip, "auth_failures",
				 (json_int_t)auth_failures));
}

void front_link_ready(struct front_link *l, void (*fn)(void *arg, int ready, const char *why),
		      void *arg)
{
	struct ask *a = ask_new(ASK_READY, arg);

	if (!a) {
		fn(arg, 0, "out of memory");
		return;
	}
	a->ready = fn;
	ask_send(l, a, json_pack("{s:s}", "op", "ready"));
}
