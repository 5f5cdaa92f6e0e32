/* daemon/http/http.c: see http.h.
 *
 * Bounding connections: libevent 2.1's evhttp has no connection limit of
 * its own. Each connection's bufferevent is made here (evhttp_set_bevcb),
 * which counts it; right after the accept (an event made active then runs
 * before any I/O of the new connection) the connection gets a close
 * callback, which uncounts it. (A filter bufferevent's free callback would
 * say the same without that step, but evhttp 2.1 over a filter loses
 * requests.) At http.max_connections every listener is disabled (from
 * inside the accept, so that accept loop stops at once); the next
 * connection waits in the kernel's queue until one closes. Timeouts
 * (evhttp_set_timeout) close connections that idle, do not send their
 * request, or do not read their answer.
 *
 * Per connection (struct conn, made in that same step): its peer's
 * address, against http.max_connections_per_peer (one more from an address
 * that has that many open is closed at once, before a byte is read or a
 * TLS handshake made); and a timer for http.header_timeout_s. evhttp's
 * timeouts are between two reads, so a client sending a byte a second
 * would hold a connection for ever: the timer runs from the accept, and
 * again from each answer sent, until the request is whole (its handler is
 * called), and closes the connection when it runs out. A client that
 * reads no answer is closed by the write timeout: evhttp holds the one
 * answer it was given, no more, and what the client sends meanwhile is
 * read up to a high watermark (a request's size), not without end.
 *
 * TLS (tls.c): with http.tls.cert, the bufferevents made here are
 * OpenSSL's, on every listener. A reload makes a new context for the
 * connections accepted after it; open ones keep theirs. */
#include "autoconf.h"
#include "daemon/http/http.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#include "daemon/core/config.h"
#include "daemon/http/http_impl.h"
#include "lib/util/log.h"

struct listener {
	struct http_addr addr;
	char text[LOOM_ADDRESS_LEN];
	struct evhttp_bound_socket *bound;
};

struct route {
	char path[128];
	unsigned methods;
	http_handler_fn fn;
	void *arg;
};

/* An accepted connection (counted in n_conns once it has one of these). */
struct conn {
	struct http_mod *m;
	struct evhttp_connection *evcon;
	struct event *timer;        /* http.header_timeout_s */
	char peer[64];              /* the client's address */
	struct conn *prev, *next;
};

struct http_mod {
	struct event_base *base;
	struct ssl_ctx_st *tls;     /* http.tls; NULL: plain HTTP */
	struct conn *conns;
	unsigned max_per_peer;
	size_t read_cap;            /* bytes a connection reads ahead of evhttp */
	int header_timeout_s;
	time_t peer_logged;         /* when a peer over its cap was last logged */
	unsigned peer_refused;      /* connections refused since */
	struct evhttp *http;
	struct listener ls[LOOM_HTTP_MAX_LISTEN];
	int n_ls;
	unsigned n_conns, max_conns;
	int paused;                 /* listeners disabled: max_conns reached */
	int closing;                /* http_free: the listeners are going */
	time_t full_logged;         /* when max_conns was last logged */
	struct event *fixup;        /* gives fresh connections their close callback */
	struct bufferevent *fresh[1024]; /* accepted, not yet given it (<= max_conns) */
	size_t n_fresh;
	struct route *routes;
	size_t n_routes;
};

/* ---- answers ------------------------------------------------------------------ */

void http_send(struct evhttp_request *req, int code, const char *reason, struct evbuffer *body)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	char length[24];

	if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD) {
		evhttp_send_reply(req, code, reason, body);
		return;
	}
	if (body && code != 304 && !evhttp_find_header(h, "Content-Length")) {
		snprintf(length, sizeof(length), "%zu", evbuffer_get_length(body));
		evhttp_add_header(h, "Content-Length", length);
	}
	if (body)
		evbuffer_drain(body, evbuffer_get_length(body));
	evhttp_send_reply(req, code, reason, NULL);
}

void http_reply_text(struct evhttp_request *req, int code, const char *reason,
		     const char *fmt, ...)
{
	struct evbuffer *b = evbuffer_new();
	va_list ap;

	if (!b) {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	va_start(ap, fmt);
	evbuffer_add_vprintf(b, fmt, ap);
	va_end(ap);
	evbuffer_add(b, "\n", 1);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; charset=utf-8");
	http_send(req, code, reason, b);
	evbuffer_free(b);
}

/* ---- routes ------------------------------------------------------------------- */

int http_route(struct http_mod *m, const char *path, unsigned methods, http_handler_fn fn,
	       void *arg)
{
	struct route *r;

	if (strlen(path) >= sizeof(r->path) || path[0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < m->n_routes; i++)
		if (!strcmp(m->routes[i].path, path))
			return -EEXIST;
	if (!(r = realloc(m->routes, (m->n_routes + 1) * sizeof(*r))))
		return -ENOMEM;
	m->routes = r;
	r = &m->routes[m->n_routes++];
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->methods = methods;
	r->fn = fn;
	r->arg = arg;
	return 0;
}

static const struct route *find_route(const struct http_mod *m, const char *path)
{
	const struct route *best = NULL;

	for (size_t i = 0; i < m->n_routes; i++) {
		const struct route *r = &m->routes[i];
		size_t n = strlen(r->path);

		if (!strcmp(r->path, path))
			return r;
		/* "/api/v1/": everything under it; the longest prefix wins. */
		if (n > 1 && r->path[n - 1] == '/' && !strncmp(r->path, path, n) &&
		    (!best || n > strlen(best->path)))
			best = r;
	}
	return best;
}

static const struct {
	unsigned bit;
	const char *name;
} methods[] = {
	{ EVHTTP_REQ_GET, "GET" }, { EVHTTP_REQ_HEAD, "HEAD" }, { EVHTTP_REQ_POST, "POST" },
	{ EVHTTP_REQ_PUT, "PUT" }, { EVHTTP_REQ_DELETE, "DELETE" },
	{ EVHTTP_REQ_OPTIONS, "OPTIONS" }, { EVHTTP_REQ_PATCH, "PATCH" },
};
#define N_METHODS (sizeof(methods) / sizeof(methods[0]))

static void arm_timer(struct conn *c)
{
	struct timeval tv = { .tv_sec = c->m->header_timeout_s };

	evtimer_add(c->timer, &tv);
}

/* The answer is sent: the next request on the connection has
 * header_timeout_s from now. */
static void on_answered(struct evhttp_request *req, void *arg)
{
	(void)req;
	arm_timer(arg);
}

/* The request is whole: its time to arrive is over. */
static void request_arrived(struct http_mod *m, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);

	for (struct conn *c = m->conns; c; c = c->next)
		if (c->evcon == evcon) {
			evtimer_del(c->timer);
			evhttp_request_set_on_complete_cb(req, on_answered, c);
			return;
		}
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http_mod *m = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	unsigned cmd = (unsigned)evhttp_request_get_command(req);
	const struct route *r;
	char allow[96] = "";

	request_arrived(m, req);
	if (!path || !path[0])
		path = "/";
	if (!(r = find_route(m, path))) {
		http_reply_text(req, HTTP_NOTFOUND, "Not Found", "not found: %s", path);
		return;
	}
	if (!(r->methods & cmd)) {
		for (size_t i = 0; i < N_METHODS; i++)
			if (r->methods & methods[i].bit)
				snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s",
					 allow[0] ? ", " : "", methods[i].name);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allow);
		http_reply_text(req, 405, "Method Not Allowed", "method not allowed on %s "
				"(allowed: %s)", r->path, allow);
		return;
	}
	r->fn(req, r->arg);
}

static void on_healthz(struct evhttp_request *req, void *arg)
{
	(void)arg;
	http_reply_text(req, HTTP_OK, "OK", "ok");
}

/* ---- connections ------------------------------------------------------------------ */

static void set_paused(struct http_mod *m, int paused)
{
	if (m->paused == paused)
		return;
	m->paused = paused;
	for (int i = 0; i < m->n_ls; i++) {
		struct evconnlistener *l = evhttp_bound_socket_get_listener(m->ls[i].bound);

		if (paused)
			evconnlistener_disable(l);
		else
			evconnlistener_enable(l);
	}
	/* At most once a minute: a flood of connections is no flood of logs. */
	if (paused && time(NULL) - m->full_logged >= 60) {
		m->full_logged = time(NULL);
		log_info("http: %u connections open (http.max_connections): new ones wait",
			 m->n_conns);
	}
}

static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct conn *c = arg;
	struct http_mod *m = c->m;
	char why[256];

	/* A failed handshake (no client certificate, another CA, an old
	 * protocol) says why here, for whoever debugs a client. */
	if (http_tls_error(evcon, why, sizeof(why)))
		log_debug("http: %s: TLS: %s", c->peer, why);
	if (c->prev)
		c->prev->next = c->next;
	else
		m->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	event_free(c->timer);
	free(c);
	m->n_conns--;
	if (!m->closing && m->n_conns < m->max_conns)
		set_paused(m, 0);
}

static void on_header_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	log_debug("http: %s sent no whole request in %d s (http.header_timeout_s): closed",
		  c->peer, c->m->header_timeout_s);
	evhttp_connection_free(c->evcon);   /* conn_closed frees c */
}

/* One more from a peer that has max_per_peer open: closed. Logged at
 * most once a minute, with how many were closed in between. */
static int over_peer_cap(struct http_mod *m, const struct conn *c)
{
	unsigned n = 0;

	for (const struct conn *o = m->conns; o; o = o->next)
		n += !strcmp(o->peer, c->peer);
	if (n <= m->max_per_peer)
		return 0;
	m->peer_refused++;
	if (time(NULL) - m->peer_logged >= 60) {
		m->peer_logged = time(NULL);
		log_warn("http: %s has %u connections open (http.max_connections_per_peer): "
			 "closing its new ones (%u closed since the last message)", c->peer,
			 m->max_per_peer, m->peer_refused);
		m->peer_refused = 0;
	}
	return 1;
}

/* The connection of a fresh bufferevent: its struct conn, its close
 * callback, its peer's cap, its timer. */
static void conn_start(struct http_mod *m, struct evhttp_connection *evcon)
{
	struct conn *c = calloc(1, sizeof(*c));
	char *addr = NULL;
	ev_uint16_t port = 0;
	evutil_socket_t fd;
	int one = 1;

	if (!c || !(c->timer = evtimer_new(m->base, on_header_timeout, c))) {
		free(c);
		m->n_conns--;
		evhttp_connection_free(evcon);
		return;
	}
	c->m = m;
	c->evcon = evcon;
	evhttp_connection_get_peer(evcon, &addr, &port);
	snprintf(c->peer, sizeof(c->peer), "%s", addr ? addr : "?");
	c->next = m->conns;
	if (m->conns)
		m->conns->prev = c;
	m->conns = c;
	evhttp_connection_set_closecb(evcon, conn_closed, c);
	if (over_peer_cap(m, c)) {
		evhttp_connection_free(evcon);
		return;
	}
	/* An answer goes out in more than one write (TLS: a record for the
	 * headers, one for the body): with Nagle's algorithm the second
	 * waits for the client's delayed ACK, 40 ms a request. */
	fd = bufferevent_getfd(evhttp_connection_get_bufferevent(evcon));
	if (fd >= 0)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	arm_timer(c);
}

/* evhttp has made the connections of the fresh bufferevents (their
 * callbacks' argument is the connection). */
static void on_fixup(evutil_socket_t fd, short what, void *arg)
{
	struct http_mod *m = arg;
	size_t n = m->n_fresh;

	(void)fd;
	(void)what;
	m->n_fresh = 0;
	for (size_t i = 0; i < n; i++) {
		void *evcon = NULL;

		bufferevent_getcb(m->fresh[i], NULL, NULL, NULL, &evcon);
		if (evcon)
			conn_start(m, evcon);
		else
			m->n_conns--;
	}
}

static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct http_mod *m = arg;
	struct bufferevent *bev;

	/* Listeners are disabled at max_conns, so fresh never fills up;
	 * NULL lets evhttp make the bufferevent itself, uncounted. */
	if (m->n_fresh == sizeof(m->fresh) / sizeof(m->fresh[0]))
		return NULL;
	bev = m->tls ? http_tls_bev_new(base, m->tls)
		     : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		return NULL;
	/* evhttp reads on while it writes an answer (to see a close) and
	 * keeps what comes: without a bound, a client that does not read its
	 * answer could send loomd gigabytes before the write timeout. */
	bufferevent_setwatermark(bev, EV_READ, 0, m->read_cap);
	m->fresh[m->n_fresh++] = bev;
	event_active(m->fixup, EV_TIMEOUT, 0);
	if (++m->n_conns >= m->max_conns)
		set_paused(m, 1);
	return bev;
}

/* ---- listeners -------------------------------------------------------------------- */

static void apply_limits(struct http_mod *m, const struct loom_config *conf)
{
	evhttp_set_timeout(m->http, conf->http_timeout_s);
	evhttp_set_max_headers_size(m->http, conf->http_max_header_bytes);
	evhttp_set_max_body_size(m->http, conf->http_max_body_bytes);
	m->max_conns = (unsigned)conf->http_max_connections;
	m->max_per_peer = (unsigned)conf->http_max_per_peer;
	m->header_timeout_s = conf->http_header_timeout_s;
	/* A whole request, and a TLS record beyond it. */
	m->read_cap = (size_t)conf->http_max_header_bytes + (size_t)conf->http_max_body_bytes +
		      16384;
	set_paused(m, m->n_conns >= m->max_conns);
}

static int same_addr(const struct http_addr *a, const struct http_addr *b)
{
	return a->port == b->port && !strcmp(a->host, b->host);
}

/* Bind conf's addresses, keeping those bound already; on a failure
 * nothing changes. */
static int rebind(struct http_mod *m, const struct loom_config *conf, char *err, size_t errlen)
{
	struct listener next[LOOM_HTTP_MAX_LISTEN];
	int kept[LOOM_HTTP_MAX_LISTEN] = { 0 }, fresh[LOOM_HTTP_MAX_LISTEN] = { 0 };
	int n = 0;

	memset(next, 0, sizeof(next));
	for (int i = 0; i < conf->http_n_listen && i < LOOM_HTTP_MAX_LISTEN; i++) {
		struct listener *l = &next[n];
		char why[160];
		int j;

		if (http_addr_parse(conf->http_listen[i], &l->addr, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "http.listen: %s", why);
			goto undo;
		}
		snprintf(l->text, sizeof(l->text), "%s", conf->http_listen[i]);
		for (j = 0; j < m->n_ls; j++)
			if (!kept[j] && same_addr(&m->ls[j].addr, &l->addr))
				break;
		if (j < m->n_ls) {
			kept[j] = 1;
			l->bound = m->ls[j].bound;
		} else {
			errno = 0;
			if (!(l->bound = evhttp_bind_socket_with_handle(m->http, l->addr.host,
									 (ev_uint16_t)l->addr.port))) {
				snprintf(err, errlen, "http.listen: cannot listen on %s: %s", l->text,
					 errno ? strerror(errno) : "bind failed");
				goto undo;
			}
			fresh[n] = 1;
			if (m->paused)
				evconnlistener_disable(evhttp_bound_socket_get_listener(l->bound));
			log_notice("http: listening on %s", l->text);
		}
		n++;
	}
	for (int j = 0; j < m->n_ls; j++)
		if (!kept[j]) {
			log_notice("http: no longer listening on %s", m->ls[j].text);
			evhttp_del_accept_socket(m->http, m->ls[j].bound);
		}
	memcpy(m->ls, next, sizeof(next));
	m->n_ls = n;
	return 0;
undo:
	for (int i = 0; i < n; i++)
		if (fresh[i])
			evhttp_del_accept_socket(m->http, next[i].bound);
	return -1;
}

/* conf's TLS context in m->tls (none without http.tls.cert); on a
 * failure the one in force stays. */
static int set_tls(struct http_mod *m, const struct loom_config *conf, char *err,
		   size_t errlen)
{
	struct ssl_ctx_st *ctx = NULL;

	struct stat st;

	if (conf->http_tls_cert[0] && !(ctx = http_tls_ctx_new(conf, err, errlen)))
		return -1;
	/* Taken all the same: refusing would stop a running fabric manager
	 * over a mode; said at every start and reload until it is fixed. */
	if (ctx && !stat(conf->http_tls_key, &st) && (st.st_mode & (S_IRWXG | S_IRWXO)))
		log_warn("http.tls.key: %s can be read by others than its owner (mode %04o): "
			 "chmod 600 it", conf->http_tls_key, (unsigned)(st.st_mode & 07777));
	http_tls_ctx_free(m->tls);
	m->tls = ctx;
	return 0;
}

int http_reconfigure(struct http_mod *m, const struct loom_config *conf)
{
	char err[PATH_MAX + 256];
	int rc = 0;

	apply_limits(m, conf);
	if (set_tls(m, conf, err, sizeof(err)) < 0) {
		log_err("reload: %s; the TLS certificate in force stays", err);
		rc = -1;
	}
	if (rebind(m, conf, err, sizeof(err)) < 0) {
		log_err("reload: %s; the HTTP listeners in force stay", err);
		return -1;
	}
	return rc;
}

/* ---- life cycle ----------------------------------------------------------------------- */

struct http_mod *http_new(struct event_base *base, const struct loom_config *conf,
			  char *err, size_t errlen)
{
	struct http_mod *m = calloc(1, sizeof(*m));

	if (errlen)
		err[0] = '\0';
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	if (!(m->fixup = event_new(base, -1, 0, on_fixup, m))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!(m->http = evhttp_new(base))) {
		snprintf(err, errlen, "cannot create the HTTP server");
		goto fail;
	}
	/* Every method reaches the route table, which answers 405 itself. */
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
				   EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
				   EVHTTP_REQ_PATCH);
	evhttp_set_gencb(m->http, on_request, m);
	evhttp_set_bevcb(m->http, conn_new, m);
	evhttp_set_default_content_type(m->http, "text/plain; charset=utf-8");
	apply_limits(m, conf);
	if (set_tls(m, conf, err, errlen) < 0)
		goto fail;
	if (http_route(m, "/healthz", HTTP_M_GET | HTTP_M_HEAD, on_healthz, m) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (rebind(m, conf, err, errlen) < 0)
		goto fail;
	return m;
fail:
	http_free(m);
	return NULL;
}

void http_free(struct http_mod *m)
{
	if (!m)
		return;
	m->closing = 1;   /* evhttp_free frees the listeners, then the connections */
	if (m->http)
		evhttp_free(m->http);
	if (m->fixup)
		event_free(m->fixup);
	http_tls_ctx_free(m->tls);
	free(m->routes);
	free(m);
}
