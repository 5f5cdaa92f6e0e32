/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http.c: see http.h.
 *
 * Bounding connections: libevent 2.1's evhttp has no connection limit of
 * its own. Each connection's bufferevent is made here (evhttp_set_bevcb),
 * which counts it; right after the accept (an event made active then runs
 * before any I/O of the new connection) the connection gets a close
 * callback, which uncounts it, and its struct conn. (A filter
 * bufferevent's free callback would say the same without that step, but
 * evhttp 2.1 over a filter loses requests.)
 *
 * Slots no unauthenticated client can hold (issue 37): a connection is in
 * one of three queues, oldest first: FIRST (accepted, its first request
 * not whole yet: a TLS handshake, a request line, headers, a body), BUSY
 * (a request is whole: its handler runs or its answer is being sent) and
 * NEXT (keep-alive, waiting for its next request). At
 * http.max_connections a new connection closes one of the oldest of FIRST
 * (of the EVICT_LOOK oldest: a TLS handshake stalled before its whole
 * ClientHello first, then the one whose address has most connections
 * open), else of NEXT, never one of BUSY: a slow client only ever holds a
 * slot until newer ones need it. Only when every connection is BUSY are
 * the listeners disabled (from inside the accept, so that its loop stops
 * at once); new ones then wait in the kernel's queue (http.listen_backlog,
 * loomd's own listening sockets: evhttp's are 128). The limit is checked
 * in that step after the accept, where the peer is known: between an
 * accept and it, at most FRESH_MAX connections more are open.
 *
 * Per peer (struct peer, a hash of the addresses with connections open):
 * one more from an address that has http.max_connections_per_peer open is
 * closed at once, before a byte is read or a TLS handshake made, and
 * closes no other connection. Per connection, a timer for
 * http.header_timeout_s: evhttp's timeouts are between two reads, so a
 * client sending a byte a second would hold a connection for ever; the
 * timer runs from the accept (the TLS handshake is inside it), and again
 * from each answer sent, until the request is whole (its handler is
 * called), and closes the connection when it runs out. A client that
 * reads no answer is closed by the write timeout: evhttp holds the one
 * answer it was given, no more, and what the client sends meanwhile is
 * read up to a high watermark (a request's size), not without end.
 *
 * TLS (tls.c): with http.tls.cert, the bufferevents made here are
 * OpenSSL's, on every listener. A reload makes a new context for the
 * connections accepted after it; open ones keep theirs. Answers over TLS
 * carry Strict-Transport-Security. */
#include "autoconf.h"
#include "daemon/http/http.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#include "daemon/http/config_http.h"
#include "daemon/http/http_impl.h"
#include "daemon/http/http_guard.h"
#include "lib/util/log.h"

/* Accepted connections not yet given their struct conn (one loop turn). */
#define FRESH_MAX 64
/* Files loomd keeps for the rest (database, sockets, plugins, logs). */
#define FILES_RESERVED 256
#define PEER_BUCKETS 1024
/* Connections looked at for the one to close when the table is full. */
#define EVICT_LOOK 16
/* Answers over TLS: browsers use https:// for a year. */
#define HSTS "max-age=31536000"

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

/* A client address with connections open. */
struct peer {
	char addr[64];
	unsigned n;                 /* its connections open */
	struct peer *next;          /* in its hash bucket */
};

/* A connection's queue (see the top). */
enum { Q_FIRST, Q_BUSY, Q_NEXT, N_QUEUES, Q_NONE = -1 };

/* An accepted connection (counted in n_conns from its bufferevent on). */
struct conn {
	struct http_mod *m;
	struct evhttp_connection *evcon;
	struct event *timer;        /* http.header_timeout_s */
	struct peer *peer;          /* the client's address */
	evutil_socket_t fd;
	int q;                      /* Q_*: the queue it is in */
	struct conn *prev, *next;   /* in it, oldest first */
};

struct queue {
	struct conn *head, *tail;
	unsigned n;
};

struct http_mod {
	struct event_base *base;
	struct ssl_ctx_st *tls;     /* http.tls; NULL: plain HTTP */
	struct queue q[N_QUEUES];
	struct conn **by_fd;        /* the connection of a socket */
	size_t n_by_fd;
	struct peer *peers[PEER_BUCKETS];
	unsigned max_per_peer;
	size_t read_cap;            /* bytes a connection reads ahead of evhttp */
	int header_timeout_s;
	int backlog;                /* http.listen_backlog */
	time_t peer_logged;         /* when a peer over its cap was last logged */
	unsigned peer_refused;      /* connections refused since */
	time_t evict_logged;        /* when an eviction was last logged */
	unsigned evicted;           /* connections closed for newer ones since */
	struct evhttp *http;
	struct listener ls[LOOM_HTTP_MAX_LISTEN];
	int n_ls;
	unsigned n_conns, max_conns;
	int paused;                 /* listeners disabled: every slot busy */
	int closing;                /* http_free: the listeners are going */
	int quiet;                  /* http_quiesce: accepts no more */
	time_t full_logged;         /* when max_conns was last logged */
	struct event *fixup;        /* gives fresh connections their struct conn */
	struct bufferevent *fresh[FRESH_MAX]; /* accepted, not yet given it */
	size_t n_fresh;
	struct route *routes;
	size_t n_routes;
	const int *inherited;       /* listening sockets handed over (front end) */
	int n_inherited, n_inherited_used;
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

/* ---- queues, peers ---------------------------------------------------------------- */

static void q_remove(struct http_mod *m, struct conn *c)
{
	struct queue *q;

	if (c->q == Q_NONE)
		return;
	q = &m->q[c->q];
	if (c->prev)
		c->prev->next = c->next;
	else
		q->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		q->tail = c->prev;
	q->n--;
	c->prev = c->next = NULL;
	c->q = Q_NONE;
}

/* Into queue `which`, as its newest. */
static void q_move(struct http_mod *m, struct conn *c, int which)
{
	struct queue *q = &m->q[which];

	q_remove(m, c);
	c->q = which;
	c->prev = q->tail;
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	q->n++;
}

static unsigned peer_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % PEER_BUCKETS;
}

/* The peer of address addr, its count one more. NULL: out of memory. */
static struct peer *peer_get(struct http_mod *m, const char *addr)
{
	struct peer **b = &m->peers[peer_hash(addr)], *p;

	for (p = *b; p; p = p->next)
		if (!strcmp(p->addr, addr))
			break;
	if (!p) {
		if (!(p = calloc(1, sizeof(*p))))
			return NULL;
		snprintf(p->addr, sizeof(p->addr), "%s", addr);
		p->next = *b;
		*b = p;
	}
	p->n++;
	return p;
}

static void peer_put(struct http_mod *m, struct peer *p)
{
	struct peer **b;

	if (!p || --p->n)
		return;
	for (b = &m->peers[peer_hash(p->addr)]; *b != p; b = &(*b)->next)
		;
	*b = p->next;
	free(p);
}

static struct conn *conn_of(struct http_mod *m, struct evhttp_connection *evcon)
{
	evutil_socket_t fd = bufferevent_getfd(evhttp_connection_get_bufferevent(evcon));
	struct conn *c;

	if (fd < 0 || (size_t)fd >= m->n_by_fd || !(c = m->by_fd[fd]) || c->evcon != evcon)
		return NULL;
	return c;
}

/* ---- requests ---------------------------------------------------------------------- */

static void arm_timer(struct conn *c)
{
	struct timeval tv = { .tv_sec = c->m->header_timeout_s };

	evtimer_add(c->timer, &tv);
}

static void update_paused(struct http_mod *m);

/* The answer is sent: the next request on the connection has
 * header_timeout_s from now, and the connection may be closed for a new
 * one meanwhile. */
static void on_answered(struct evhttp_request *req, void *arg)
{
	struct conn *c = arg;

	(void)req;
	q_move(c->m, c, Q_NEXT);
	arm_timer(c);
	update_paused(c->m);
}

/* The request is whole: its time to arrive is over, and its connection is
 * no longer one to close for a new one. */
static void request_arrived(struct http_mod *m, struct evhttp_request *req)
{
	struct conn *c = conn_of(m, evhttp_request_get_connection(req));

	if (http_tls_request_is_tls(req))
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Strict-Transport-Security", HSTS);
	if (!c)
		return;
	evtimer_del(c->timer);
	q_move(m, c, Q_BUSY);
	evhttp_request_set_on_complete_cb(req, on_answered, c);
	update_paused(m);   /* one connection fewer to close for a new one */
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http_mod *m = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	unsigned cmd = (unsigned)evhttp_request_get_command(req);
	const char *reason, *why;
	const struct route *r;
	char allow[96] = "";
	int code;

	request_arrived(m, req);
	/* issue 37: smuggling, DNS rebinding */
	if ((code = http_guard_request(req, &reason, &why)) != 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
		http_reply_text(req, code, reason, "%s", why);
		return;
	}
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
	if (paused && m->n_fresh < FRESH_MAX && time(NULL) - m->full_logged >= 60) {
		m->full_logged = time(NULL);
		log_info("http: %u connections open (http.max_connections), each with a "
			 "request under way: new ones wait", m->n_conns);
	}
}

/* Accept while a new connection can have a slot: a free one, or one of a
 * connection without a request under way, which it would close. */
static void update_paused(struct http_mod *m)
{
	if (m->closing || m->quiet)
		return;
	set_paused(m, m->n_fresh >= FRESH_MAX ||
		   m->n_conns >= m->max_conns + m->q[Q_FIRST].n + m->q[Q_NEXT].n);
}

static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct conn *c = arg;
	struct http_mod *m = c->m;
	char why[256];

	/* A failed handshake (no client certificate, another CA, an old
	 * protocol) says why here, for whoever debugs a client. */
	if (http_tls_error(evcon, why, sizeof(why)))
		log_debug("http: %s: TLS: %s", c->peer ? c->peer->addr : "?", why);
	q_remove(m, c);
	if (c->fd >= 0 && (size_t)c->fd < m->n_by_fd && m->by_fd[c->fd] == c)
		m->by_fd[c->fd] = NULL;
	peer_put(m, c->peer);
	event_free(c->timer);
	free(c);
	m->n_conns--;
	update_paused(m);
}

static void on_header_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	log_debug("http: %s sent no whole request in %d s (http.header_timeout_s): closed",
		  c->peer->addr, c->m->header_timeout_s);
	evhttp_connection_free(c->evcon);   /* conn_closed frees c */
}

/* One more from a peer that has max_per_peer open: closed. Logged at
 * most once a minute, with how many were closed in between. */
static int over_peer_cap(struct http_mod *m, const struct conn *c)
{
	if (c->peer->n <= m->max_per_peer)
		return 0;
	m->peer_refused++;
	if (time(NULL) - m->peer_logged >= 60) {
		m->peer_logged = time(NULL);
		log_warn("http: %s has %u connections open (http.max_connections_per_peer): "
			 "closing its new ones (%u closed since the last message)", c->peer->addr,
			 m->max_per_peer, m->peer_refused);
		m->peer_refused = 0;
	}
	return 1;
}

/* How much a connection deserves to be closed for a new one: a TLS
 * handshake stalled before a whole ClientHello first, then the more
 * connections its address has open, the more. */
static unsigned long long evict_rank(const struct conn *c)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(c->evcon);

	return ((unsigned long long)!http_tls_hello_seen(bev) << 32) | c->peer->n;
}

/* The connection to close in queue q: of its EVICT_LOOK oldest, the one of
 * highest evict_rank (the oldest of those). A client whose ClientHello
 * loomd has answered, or that is alone on its address, is not the one
 * closed while handshakes that stall, or an address that opens hundreds,
 * churn through the table faster than it completes its own. */
static struct conn *victim(struct http_mod *m, int q)
{
	struct conn *v = m->q[q].head;
	unsigned long long best = v ? evict_rank(v) : 0;
	int k = 0;

	for (struct conn *c = v; c && k < EVICT_LOOK; c = c->next, k++) {
		unsigned long long r = evict_rank(c);

		if (r > best) {
			v = c;
			best = r;
		}
	}
	return v;
}

/* Over max_conns: close a connection without a request under way (first
 * those that never sent a whole one). 0, or -1 when there is none. */
static int evict_one(struct http_mod *m)
{
	struct conn *v = m->q[Q_FIRST].head ? victim(m, Q_FIRST) : victim(m, Q_NEXT);

	if (!v)
		return -1;
	m->evicted++;
	if (time(NULL) - m->evict_logged >= 60) {
		m->evict_logged = time(NULL);
		log_info("http: %u connections open (http.max_connections): closing the oldest "
			 "without a request under way for each new one (%u closed since the last "
			 "message)", m->max_conns, m->evicted);
		m->evicted = 0;
	}
	log_debug("http: %s: closed for a newer connection (%s)", v->peer->addr,
		  v->q == Q_FIRST ? "no whole request yet" : "idle keep-alive");
	evhttp_connection_free(v->evcon);   /* conn_closed frees v */
	return 0;
}

static int by_fd_set(struct http_mod *m, evutil_socket_t fd, struct conn *c)
{
	if (fd < 0)
		return 0;
	if ((size_t)fd >= m->n_by_fd) {
		size_t n = m->n_by_fd ? m->n_by_fd : 1024;
		struct conn **t;

		while (n <= (size_t)fd)
			n *= 2;
		if (!(t = realloc(m->by_fd, n * sizeof(*t))))
			return -1;
		memset(t + m->n_by_fd, 0, (n - m->n_by_fd) * sizeof(*t));
		m->by_fd = t;
		m->n_by_fd = n;
	}
	m->by_fd[fd] = c;
	return 0;
}

/* The connection of a fresh bufferevent: its struct conn, its close
 * callback, its peer's cap, a slot (closing an older connection for it
 * when none is free), its timer. */
static void conn_start(struct http_mod *m, struct evhttp_connection *evcon)
{
	struct conn *c = calloc(1, sizeof(*c));
	char *addr = NULL;
	ev_uint16_t port = 0;
	int one = 1;

	if (c) {
		c->q = Q_NONE;
		c->fd = bufferevent_getfd(evhttp_connection_get_bufferevent(evcon));
		evhttp_connection_get_peer(evcon, &addr, &port);
		c->peer = peer_get(m, addr ? addr : "?");
	}
	if (!c || !c->peer || !(c->timer = evtimer_new(m->base, on_header_timeout, c)) ||
	    by_fd_set(m, c->fd, c) < 0) {
		if (c) {
			peer_put(m, c->peer);
			if (c->timer)
				event_free(c->timer);
		}
		free(c);
		m->n_conns--;
		evhttp_connection_free(evcon);
		update_paused(m);
		return;
	}
	c->m = m;
	c->evcon = evcon;
	evhttp_connection_set_closecb(evcon, conn_closed, c);
	if (over_peer_cap(m, c)) {
		evhttp_connection_free(evcon);
		return;
	}
	while (m->n_conns > m->max_conns)
		if (evict_one(m) < 0) {
			log_debug("http: %s: closed, every connection has a request under way",
				  c->peer->addr);
			evhttp_connection_free(evcon);
			return;
		}
	/* An answer goes out in more than one write (TLS: a record for the
	 * headers, one for the body): with Nagle's algorithm the second
	 * waits for the client's delayed ACK, 40 ms a request. */
	if (c->fd >= 0)
		(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	q_move(m, c, Q_FIRST);
	arm_timer(c);
}

/* evhttp has made the connections of the fresh bufferevents (their
 * callbacks' argument is the connection). */
static void on_fixup(evutil_socket_t fd, short what, void *arg)
{
	struct http_mod *m = arg;
	struct bufferevent *fresh[FRESH_MAX];
	size_t n = m->n_fresh;

	(void)fd;
	(void)what;
	memcpy(fresh, m->fresh, n * sizeof(fresh[0]));
	m->n_fresh = 0;
	for (size_t i = 0; i < n; i++) {
		void *evcon = NULL;

		bufferevent_getcb(fresh[i], NULL, NULL, NULL, &evcon);
		if (evcon)
			conn_start(m, evcon);
		else
			m->n_conns--;
	}
	update_paused(m);
}

static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct http_mod *m = arg;
	struct bufferevent *bev;

	/* Listeners are disabled when fresh is full, so it never overflows;
	 * NULL lets evhttp make the bufferevent itself, uncounted. */
	if (m->n_fresh == FRESH_MAX)
		return NULL;
	bev = m->tls ? http_tls_bev_new(base, m->tls)
		     : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		return NULL;
	/* evhttp reads on while it writes an answer (to see a close) and
	 * keeps what comes: without a bound, a client that does not read its
	 * answer could send loomd gigabytes before the write timeout. */
	bufferevent_setwatermark(bev, EV_READ, 0, m->read_cap);
	http_guard_watch(bev);        /* a NUL byte closes the connection */
	m->fresh[m->n_fresh++] = bev;
	event_active(m->fixup, EV_TIMEOUT, 0);
	m->n_conns++;
	update_paused(m);
	return bev;
}

/* ---- listeners -------------------------------------------------------------------- */

/* Room for max_conns connections in loomd's open files: the soft limit is
 * raised as far as the hard one allows; beyond, max_conns is lowered. */
static unsigned files_for(unsigned max_conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_conns + FRESH_MAX + FILES_RESERVED;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return max_conns;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 && getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return max_conns;
	if (rl.rlim_cur >= want)
		return max_conns;
	want = rl.rlim_cur > FRESH_MAX + FILES_RESERVED + 1 ?
	       rl.rlim_cur - FRESH_MAX - FILES_RESERVED : 1;
	log_warn("http.max_connections %u: loomd may open %llu files (RLIMIT_NOFILE); "
		 "%llu connections at most", max_conns, (unsigned long long)rl.rlim_cur,
		 (unsigned long long)want);
	return (unsigned)want;
}

static void apply_limits(struct http_mod *m, const struct http_conf *conf)
{
	evhttp_set_timeout(m->http, conf->http_timeout_s);
	evhttp_set_max_headers_size(m->http, conf->http_max_header_bytes);
	evhttp_set_max_body_size(m->http, conf->http_max_body_bytes);
	m->max_conns = files_for((unsigned)conf->http_max_connections);
	m->max_per_peer = (unsigned)conf->http_max_per_peer;
	m->header_timeout_s = conf->http_header_timeout_s;
	/* A whole request, and a TLS record beyond it. */
	m->read_cap = (size_t)conf->http_max_header_bytes + (size_t)conf->http_max_body_bytes +
		      16384;
	/* Linux takes a new backlog on a socket that listens already. */
	if (m->backlog != conf->http_listen_backlog) {
		m->backlog = conf->http_listen_backlog;
		for (int i = 0; i < m->n_ls; i++)
			(void)listen(evconnlistener_get_fd(evhttp_bound_socket_get_listener(
					m->ls[i].bound)), m->backlog);
	}
	/* Fewer slots than open connections: the newest close the oldest idle
	 * ones as they come; nothing is cut now. */
	update_paused(m);
}

/* A listening socket of loomd's own, for its backlog (evhttp's is 128):
 * bound here (tests), or the i-th of those the core handed to the front
 * end (http_new_inherited). NULL with errno. */
static struct evhttp_bound_socket *bind_one(struct http_mod *m, const struct http_addr *a)
{
	struct evconnlistener *l;
	struct evhttp_bound_socket *b;
	int fd;

	if (m->inherited) {
		if (m->n_inherited_used >= m->n_inherited) {
			errno = EINVAL;
			return NULL;
		}
		fd = m->inherited[m->n_inherited_used++];
	} else if ((fd = http_listen_fd(a, m->backlog)) < 0) {
		errno = -fd;
		return NULL;
	}
	/* Backlog 0: the socket listens already, with http.listen_backlog
	 * (libevent's -1 would listen() again with 128). */
	if (!(l = evconnlistener_new(m->base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE |
				     LEV_OPT_CLOSE_ON_EXEC, 0, fd))) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	if (!(b = evhttp_bind_listener(m->http, l))) {
		evconnlistener_free(l);
		errno = ENOMEM;
	}
	return b;
}

static int same_addr(const struct http_addr *a, const struct http_addr *b)
{
	return a->port == b->port && !strcmp(a->host, b->host);
}

/* Bind conf's addresses, keeping those bound already; on a failure
 * nothing changes. */
static int rebind(struct http_mod *m, const struct http_conf *conf, char *err, size_t errlen)
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
			if (!(l->bound = bind_one(m, &l->addr))) {
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
static int set_tls(struct http_mod *m, const struct http_conf *conf, char *err,
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

int http_reconfigure(struct http_mod *m, const struct http_conf *conf)
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

void http_quiesce(struct http_mod *m)
{
	set_paused(m, 1);
	m->quiet = 1;
}

unsigned http_open(const struct http_mod *m)
{
	return m->n_conns;
}

/* ---- life cycle ----------------------------------------------------------------------- */

struct http_mod *http_new(struct event_base *base, const struct http_conf *conf,
			  char *err, size_t errlen)
{
	return http_new_inherited(base, conf, NULL, 0, err, errlen);
}

struct http_mod *http_new_inherited(struct event_base *base, const struct http_conf *conf,
				    const int *fds, int n_fds, char *err, size_t errlen)
{
	struct http_mod *m = calloc(1, sizeof(*m));

	if (errlen)
		err[0] = '\0';
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->inherited = fds;
	m->n_inherited = n_fds;
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
	m->inherited = NULL;   /* a reload binds its own */
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
	for (size_t i = 0; i < PEER_BUCKETS; i++)
		while (m->peers[i]) {
			struct peer *p = m->peers[i];

			m->peers[i] = p->next;
			free(p);
		}
	free(m->by_fd);
	if (m->fixup)
		event_free(m->fixup);
	http_tls_ctx_free(m->tls);
	free(m->routes);
	free(m);
}
