/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/api_load.c: a load generator for bench/api.sh (issue 20). N clients
 * at once, each a connection that sends one request, reads the whole
 * answer, and sends the next, for S seconds; then the requests answered,
 * those that failed, requests per second and the latencies (p50, p90,
 * p99, max) of the answered ones. One thread, epoll, non-blocking sockets:
 * a thousand clients cost it little, so what is measured is the server.
 *
 *   api_load http HOST PORT PATH TOKEN CLIENTS SECONDS
 *       GET PATH with "Authorization: Bearer TOKEN", HTTP/1.1 keep-alive;
 *       an answer is its headers and Content-Length bytes (loomd's evhttp
 *       always says it); a status other than 200 counts as failed.
 *   api_load unix SOCKET CMD CLIENTS SECONDS
 *       loom's control protocol (lib/util/proto.h: a 4-byte big-endian
 *       length, then JSON) with {"v":1,"id":N,"cmd":CMD}; an answer with
 *       "ok":false counts as failed.
 * A connection the server closes is reopened (and its request counts as
 * failed); a client refused at connect counts once per try.
 * With EVERY_MS (a last argument to either), clients are paced instead:
 * each sends a request every EVERY_MS (the clients' first ones spread over
 * that time), as pollers do, and a latency counts from when the request
 * was due, not when it could be sent (no coordinated omission: a server
 * that falls behind sees its queue in the numbers).
 *
 * Output, one line: requests N failed N unanswered N seconds S rps R p50_ms A
 * p90_ms B p99_ms C max_ms D bytes N; unanswered: requests sent (or due,
 * paced) and not answered when the time was up, whose latencies the
 * percentiles therefore lack. Not a test: bench/api.sh runs it. */
#include "autoconf.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct client {
	int fd;
	char *out;              /* the request */
	size_t out_len, sent;
	char *in;               /* what came back of the answer */
	size_t in_len, in_cap;
	size_t want;            /* the answer's whole length once known, else 0 */
	double started;
	double due;             /* paced: when the next request is due (0: sent) */
};

static int http_mode;
static struct sockaddr_storage addr;
static socklen_t addr_len;
static char request[4096];
static size_t request_len;
static double *lat;
static size_t n_lat, cap_lat;
static unsigned long failed, bytes;
static double every;            /* paced: seconds between a client's requests */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_one(int ep, struct client *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
	int one = 1;

	c->fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if (addr.ss_family == AF_INET)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&addr, addr_len) < 0 && errno != EINPROGRESS) {
		close(c->fd);
		c->fd = -1;
		return -errno;
	}
	c->sent = c->in_len = c->want = 0;
	c->started = now();
	return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0 ? -errno : 0;
}

/* Wake for writes only while part of the request is unsent: a writable
 * idle socket would otherwise wake epoll_wait at every turn. */
static void want_out(int ep, struct client *c, int out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void reopen(int ep, struct client *c)
{
	if (c->fd >= 0) {
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	failed++;
	while (open_one(ep, c) < 0) {
		failed++;
		usleep(1000);
	}
}

static void record(double ms)
{
	if (n_lat == cap_lat) {
		cap_lat = cap_lat ? 2 * cap_lat : 4096;
		if (!(lat = realloc(lat, cap_lat * sizeof(*lat)))) {
			perror("api_load");
			exit(1);
		}
	}
	lat[n_lat++] = ms;
}

/* The answer's whole length when the headers (or the frame's length) are
 * in, else 0; -1 when it cannot be read. */
static long answer_len(const struct client *c, int *ok)
{
	if (!http_mode) {
		uint32_t n;

		if (c->in_len < 4)
			return 0;
		memcpy(&n, c->in, 4);
		*ok = 1;
		return 4 + (long)ntohl(n);
	}
	const char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
	const char *cl;

	if (!end)
		return 0;
	*ok = c->in_len > 12 && !memcmp(c->in + 9, "200", 3);
	cl = memmem(c->in, (size_t)(end - c->in), "Content-Length:", 15);
	if (!cl)
		cl = memmem(c->in, (size_t)(end - c->in), "content-length:", 15);
	if (!cl)
		return -1;
	return (long)(end + 4 - c->in) + strtol(cl + 15, NULL, 10);
}

static void on_event(int ep, struct client *c, uint32_t what)
{
	if (what & (EPOLLERR | EPOLLHUP) && !(what & EPOLLIN)) {
		reopen(ep, c);
		return;
	}
	if ((what & EPOLLOUT) && c->sent < request_len) {
		ssize_t n = send(c->fd, request + c->sent, request_len - c->sent, MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN) {
			reopen(ep, c);
			return;
		}
		if (n > 0)
			c->sent += (size_t)n;
		/* All sent, or the rest (all of it while the connection is
		 * still being made: a paced request that is due) when the
		 * socket can take it: never dropped unseen. */
		want_out(ep, c, c->sent < request_len);
	}
	if (!(what & EPOLLIN))
		return;
	for (;;) {
		ssize_t n;
		int ok = 0;
		long whole;

		if (c->in_cap - c->in_len < 65536) {
			c->in_cap = c->in_cap ? 2 * c->in_cap : 131072;
			if (!(c->in = realloc(c->in, c->in_cap))) {
				perror("api_load");
				exit(1);
			}
		}
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			reopen(ep, c);
			return;
		}
		if (n < 0)
			return;
		c->in_len += (size_t)n;
		bytes += (size_t)n;
		whole = answer_len(c, &ok);
		if (whole < 0) {
			reopen(ep, c);
			return;
		}
		if (!whole || c->in_len < (size_t)whole)
			continue;
		if (!http_mode)
			ok = !memmem(c->in, c->in_len, "\"ok\":false", 10) &&
			     !memmem(c->in, c->in_len, "\"ok\": false", 11);
		if (ok)
			record((now() - c->started) * 1000.0);
		else
			failed++;
		/* keep-alive: the next request on the same connection */
		c->in_len = 0;
		c->sent = 0;
		if (every > 0) {
			c->due = c->started + every;
			c->sent = request_len;   /* nothing to send until it is due */
			return;
		}
		c->started = now();
		want_out(ep, c, 1);
		on_event(ep, c, EPOLLOUT);
		return;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double p)
{
	size_t i;

	if (!n_lat)
		return 0;
	i = (size_t)(p * (double)(n_lat - 1) + 0.5);
	return lat[i];
}

int main(int argc, char **argv)
{
	unsigned clients, unanswered = 0;
	double seconds, t0, end;
	struct client *cs;
	int ep;

	if ((argc == 8 || argc == 9) && !strcmp(argv[1], "http")) {
		struct sockaddr_in *in = (struct sockaddr_in *)&addr;

		http_mode = 1;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)atoi(argv[3]));
		if (inet_pton(AF_INET, argv[2], &in->sin_addr) != 1) {
			fprintf(stderr, "api_load: %s is no IPv4 address\n", argv[2]);
			return 2;
		}
		addr_len = sizeof(*in);
		request_len = (size_t)snprintf(request, sizeof(request),
					       "GET %s HTTP/1.1\r\nHost: %s:%s\r\n"
					       "Authorization: Bearer %s\r\n\r\n",
					       argv[4], argv[2], argv[3], argv[5]);
		clients = (unsigned)atoi(argv[6]);
		seconds = atof(argv[7]);
		every = argc == 9 ? atof(argv[8]) / 1000.0 : 0;
	} else if ((argc == 6 || argc == 7) && !strcmp(argv[1], "unix")) {
		struct sockaddr_un *un = (struct sockaddr_un *)&addr;
		char body[256];
		uint32_t n;

		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s", argv[2]);
		addr_len = sizeof(*un);
		n = (uint32_t)snprintf(body, sizeof(body), "{\"v\":1,\"id\":1,\"cmd\":\"%s\"}", argv[3]);
		uint32_t be = htonl(n);
		memcpy(request, &be, 4);
		memcpy(request + 4, body, n);
		request_len = 4 + n;
		clients = (unsigned)atoi(argv[4]);
		seconds = atof(argv[5]);
		every = argc == 7 ? atof(argv[6]) / 1000.0 : 0;
	} else {
		fprintf(stderr, "usage: api_load http HOST PORT PATH TOKEN CLIENTS SECONDS [EVERY_MS]\n"
				"       api_load unix SOCKET CMD CLIENTS SECONDS [EVERY_MS]\n");
		return 2;
	}
	if (!clients || request_len >= sizeof(request) || seconds <= 0) {
		fprintf(stderr, "api_load: bad arguments\n");
		return 2;
	}
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 || !(cs = calloc(clients, sizeof(*cs)))) {
		perror("api_load");
		return 1;
	}
	t0 = now();
	for (unsigned i = 0; i < clients; i++) {
		cs[i].fd = -1;
		while (open_one(ep, &cs[i]) < 0) {
			failed++;
			usleep(1000);
		}
		if (every > 0) {   /* spread over the first period */
			cs[i].due = t0 + every * i / clients;
			cs[i].sent = request_len;
			want_out(ep, &cs[i], 0);
		}
	}
	end = t0 + seconds;
	while (now() < end) {
		struct epoll_event evs[256];
		int n = epoll_wait(ep, evs, 256, every > 0 ? 1 : 100);
		double t = now();

		for (int i = 0; i < n; i++)
			on_event(ep, evs[i].data.ptr, evs[i].events);
		for (unsigned i = 0; every > 0 && i < clients; i++) {
			struct client *c = &cs[i];

			if (c->due > 0 && c->due <= t) {
				c->started = c->due;   /* latency from when it was due */
				c->due = 0;
				c->sent = 0;
				on_event(ep, c, EPOLLOUT);
			}
		}
	}
	for (unsigned i = 0; i < clients; i++)
		unanswered += cs[i].due == 0;   /* due (sent or not) and not answered */
	qsort(lat, n_lat, sizeof(*lat), cmp_double);
	printf("requests %zu failed %lu unanswered %u seconds %.1f rps %.1f p50_ms %.1f p90_ms %.1f "
	       "p99_ms %.1f max_ms %.1f bytes %lu\n", n_lat, failed, unanswered, now() - t0,
	       n_lat / (now() - t0), pct(0.5), pct(0.9), pct(0.99), n_lat ? lat[n_lat - 1] : 0.0,
	       bytes);
	return 0;
}
