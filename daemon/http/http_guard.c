/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http_guard.c: see http_guard.h.
 *
 * The NUL watch is a callback on the connection's input buffer: it sees
 * every read as it is appended (the new bytes are the buffer's last
 * n_added), searches only those, so a body costs one pass over its bytes.
 * On a NUL it drops what was read and shuts the socket down: evhttp then
 * reads an end of file and closes the connection (no request of it runs).
 * It keeps no state, so nothing is to be freed with the connection. */
#include "autoconf.h"
#include "daemon/http/http_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "lib/util/log.h"

/* ---- NUL bytes -------------------------------------------------------------------- */

static void on_input(struct evbuffer *in, const struct evbuffer_cb_info *info, void *arg)
{
	struct bufferevent *bev = arg;
	size_t len = evbuffer_get_length(in);
	struct evbuffer_ptr p;
	evutil_socket_t fd;

	if (!info->n_added || info->n_added > len ||
	    evbuffer_ptr_set(in, &p, len - info->n_added, EVBUFFER_PTR_SET) < 0)
		return;
	if (evbuffer_search(in, "", 1, &p).pos < 0)
		return;
	fd = bufferevent_getfd(bev);
	log_debug("http: a client sent a NUL byte: connection closed");
	evbuffer_drain(in, len);
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

void http_guard_watch(struct bufferevent *bev)
{
	evbuffer_add_cb(bufferevent_get_input(bev), on_input, bev);
}

/* ---- the request's head ------------------------------------------------------------- */

static int is_loopback_v4(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

static int same_v6(const char *a, const char *b)
{
	struct in6_addr x, y;

	return inet_pton(AF_INET6, a, &x) == 1 && inet_pton(AF_INET6, b, &y) == 1 &&
	       !memcmp(&x, &y, sizeof(x));
}

/* The port after the name: none, or ':' and 1-5 digits. */
static int port_ok(const char *s)
{
	size_t n;

	if (!*s)
		return 1;
	n = strspn(s + 1, "0123456789");
	return s[0] == ':' && n >= 1 && n <= 5 && !s[1 + n];
}

int http_guard_host_ok(const char *host, const char *self)
{
	char name[64];
	const char *end;
	size_t n;

	if (host[0] == '[') {
		if (!(end = strchr(host, ']')) || !port_ok(end + 1) ||
		    (n = (size_t)(end - host - 1)) >= sizeof(name))
			return 0;
		memcpy(name, host + 1, n);
		name[n] = '\0';
		return same_v6(name, "::1") || (self && same_v6(name, self));
	}
	end = strchr(host, ':');
	n = end ? (size_t)(end - host) : strlen(host);
	if (n == 0 || n >= sizeof(name) || (end && !port_ok(end)))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	return !strcasecmp(name, "localhost") || !strcasecmp(name, "localhost.") ||
	       is_loopback_v4(name) || (self && !strcmp(name, self));
}

/* The listener's own address when the request came to a loopback one
 * (into self), 1; 0 for any other listener. */
static int local_loopback(struct evhttp_request *req, char *self, size_t len)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;

	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, self, (socklen_t)len);
		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, self, (socklen_t)len);
		return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	}
	return 0;
}

static unsigned count_header(const struct evkeyvalq *h, const char *name)
{
	const struct evkeyval *e;
	unsigned n = 0;

	TAILQ_FOREACH(e, h, next)
		n += !strcasecmp(e->key, name);
	return n;
}

/* What is wrong with the request's framing headers, or NULL. */
static const char *framing_error(const struct evkeyvalq *in)
{
	unsigned n_len = count_header(in, "Content-Length");

	if (n_len > 1)
		return "more than one Content-Length header";
	if (n_len && count_header(in, "Transfer-Encoding"))
		return "Content-Length and Transfer-Encoding together";
	if (count_header(in, "Host") > 1)
		return "more than one Host header";
	return NULL;
}

int http_guard_request(struct evhttp_request *req, const char **reason, const char **why)
{
	const struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *host = evhttp_find_header(in, "Host");
	char self[INET6_ADDRSTRLEN] = "";

	if ((*why = framing_error(in))) {
		*reason = "Bad Request";
		return 400;
	}
	if (host && local_loopback(req, self, sizeof(self)) && !http_guard_host_ok(host, self)) {
		*reason = "Misdirected Request";
		*why = "this listener is on loopback: Host must be localhost, a 127.x.y.z address "
		       "or [::1] (DNS rebinding)";
		return 421;
	}
	return 0;
}
