/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/events_send.c: one event to one sink, on the sink's
 * sending thread (events_impl.h).
 *
 * syslog: RFC 5424, facility daemon, "<PRI>1 TIMESTAMP HOSTNAME loomd PID
 * KIND [loom@32473 ...] TEXT": the event kind is the MSGID, its fields are
 * structured data (SD-ID loom@32473: 32473 is the private enterprise
 * number RFC 5612 reserves for examples; loom has none of its own) and the
 * MSG is the same line loomd logs. Over a unix datagram socket (/dev/log),
 * UDP (a datagram a message) or TCP (RFC 6587 octet counting: "LEN MSG").
 * A socket that fails is closed and opened again on the next try.
 *
 * webhook: one JSON object an event, POSTed with libcurl (TLS verified,
 * against ca_file when set; "Authorization: Bearer" from token_file), each
 * try bounded by timeout_ms. 2xx sent; a transport error, 408, 429 or 5xx
 * is worth another try; any other status is given up. */
#include "autoconf.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "daemon/events/events_impl.h"
#include "lib/util/log.h"

static void iso_time(double t, char *buf, size_t len)
{
	time_t sec = (time_t)t;
	struct tm tm;
	char s[32];

	gmtime_r(&sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", s, (int)((t - (double)sec) * 1000) % 1000);
}

/* An SD-PARAM value: '"', '\' and ']' escaped (RFC 5424 6.3.3). */
static size_t sd_escape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	for (; *src && o + 2 < len; src++) {
		if (*src == '"' || *src == '\\' || *src == ']')
			dst[o++] = '\\';
		dst[o++] = *src;
	}
	dst[o] = '\0';
	return o;
}

int events_rfc5424(const struct fwd_event *ev, const char *host, int pid, char *buf,
		   size_t len)
{
	/* severity names in RFC 5424's numbers; facility daemon (3). */
	static const int sev_code[] = { 6, 5, 4, 3 };
	char ts[40], subj[512], o[512], n[1024];
	int w;

	iso_time(ev->time, ts, sizeof(ts));
	sd_escape(subj, sizeof(subj), ev->subject);
	sd_escape(o, sizeof(o), ev->old_value);
	sd_escape(n, sizeof(n), ev->new_value);
	w = snprintf(buf, len,
		     "<%d>1 %s %.255s loomd %d %.32s [loom@32473 severity=\"%s\" subnet_id=\"%lld\" "
		     "subject=\"%s\" old=\"%s\" new=\"%s\"] %s: %s%s%s%s%s",
		     3 * 8 + sev_code[ev->sev & 3], ts, host, pid, ev->kind, ev->severity,
		     (long long)ev->subnet_id, subj, o, n, ev->kind, ev->subject,
		     *ev->old_value || *ev->new_value ? ": " : "", ev->old_value,
		     *ev->old_value || *ev->new_value ? " -> " : "", ev->new_value);
	if (w < 0)
		return -1;
	return (size_t)w >= len ? (int)len - 1 : w;
}

char *events_json(const struct fwd_event *ev, const char *host)
{
	char ts[40];
	json_t *o;
	char *s;

	iso_time(ev->time, ts, sizeof(ts));
	o = json_pack("{s:s, s:f, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "time", ts, "time_unix",
		      ev->time, "severity", ev->severity, "kind", ev->kind, "subject", ev->subject,
		      "old_value", ev->old_value, "new_value", ev->new_value, "host", host,
		      "subnet_id", (json_int_t)ev->subnet_id, "source", "loomd");
	if (!o)
		return NULL;
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* ---- syslog ---------------------------------------------------------------- */

static int wait_fd(int fd, short what, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = what };
	int rc = poll(&p, 1, timeout_ms);

	return rc > 0 ? 0 : rc == 0 ? -ETIMEDOUT : -errno;
}

static int open_inet(const char *addr, int tcp, int timeout_ms, char *err, size_t errlen)
{
	char host[256], *port;
	struct addrinfo hints = { .ai_socktype = tcp ? SOCK_STREAM : SOCK_DGRAM }, *ai, *a;
	int fd = -1, rc;

	snprintf(host, sizeof(host), "%s", addr);
	if (!(port = strrchr(host, ':')))
		return err_fmt(err, errlen, -EINVAL, "%s: no port", addr);
	*port++ = '\0';
	if (host[0] == '[' && port[-2] == ']') {
		port[-2] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0)
		return err_fmt(err, errlen, -EAGAIN, "%s: %s", addr, gai_strerror(rc));
	rc = -EAGAIN;
	for (a = ai; a; a = a->ai_next) {
		if ((fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
		    (errno == EINPROGRESS && wait_fd(fd, POLLOUT, timeout_ms) == 0)) {
			int soerr = 0;
			socklen_t sl = sizeof(soerr);

			getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
			if (!soerr)
				break;
			errno = soerr;
		}
		err_fmt(err, errlen, -EAGAIN, "%s: connect: %s", addr, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd >= 0 ? fd : rc;
}

static int open_syslog(const struct events_sink_conf *c, char *err, size_t errlen)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd;

	if (strncmp(c->address, "udp://", 6) == 0)
		return open_inet(c->address + 6, 0, c->timeout_ms, err, errlen);
	if (strncmp(c->address, "tcp://", 6) == 0)
		return open_inet(c->address + 6, 1, c->timeout_ms, err, errlen);
	if (strlen(c->address) >= sizeof(un.sun_path))
		return err_fmt(err, errlen, -EINVAL, "%.64s...: too long a socket path", c->address);
	memcpy(un.sun_path, c->address, strlen(c->address) + 1);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return err_fmt(err, errlen, -EAGAIN, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&un, sizeof(un)) < 0) {
		err_fmt(err, errlen, -EAGAIN, "%s: %s", c->address, strerror(errno));
		close(fd);
		return -EAGAIN;
	}
	return fd;
}

/* All of buf on a non-blocking socket within timeout_ms. */
static int send_all(int fd, const char *buf, size_t len, int timeout_ms)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (len) {
		ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
		long left;

		if (w > 0) {
			buf += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - ((now.tv_sec - t0.tv_sec) * 1000 +
				     (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || wait_fd(fd, POLLOUT, (int)left) < 0)
			return -ETIMEDOUT;
	}
	return 0;
}

static int send_syslog(const struct events_sink_conf *c, const char *host,
		       struct sink_conn *conn, const struct fwd_event *ev, char *err,
		       size_t errlen)
{
	char msg[4096], framed[4200];
	int n = events_rfc5424(ev, host, (int)getpid(), msg, sizeof(msg)), rc;
	int tcp = strncmp(c->address, "tcp://", 6) == 0;
	const char *out = msg;
	size_t len;

	if (n < 0)
		return err_fmt(err, errlen, -EINVAL, "cannot format the message");
	len = (size_t)n;
	if (tcp) {
		len = (size_t)snprintf(framed, sizeof(framed), "%d %s", n, msg);
		out = framed;
	}
	if (conn->fd < 0 && (conn->fd = open_syslog(c, err, errlen)) < 0) {
		rc = conn->fd;
		conn->fd = -1;
		return rc;
	}
	if ((rc = send_all(conn->fd, out, len, c->timeout_ms)) < 0) {
		close(conn->fd);
		conn->fd = -1;
		return err_fmt(err, errlen, -EAGAIN, "%s: send: %s", c->address, strerror(-rc));
	}
	return 0;
}

/* ---- webhook --------------------------------------------------------------- */

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static int send_webhook(const struct events_sink_conf *c, const char *token, const char *host,
			struct sink_conn *conn, const struct fwd_event *ev, char *err,
			size_t errlen)
{
	char *body = events_json(ev, host);
	long status = 0;
	CURLcode cc;
	CURL *h;

	if (!body)
		return err_fmt(err, errlen, -ENOMEM, "out of memory");
	if (!conn->curl) {
		struct curl_slist *hl = curl_slist_append(NULL, "Content-Type: application/json");
		char auth[600];

		if (hl && token[0]) {
			snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
			hl = curl_slist_append(hl, auth);
		}
		if (!hl || !(conn->curl = curl_easy_init())) {
			curl_slist_free_all(hl);
			free(body);
			return err_fmt(err, errlen, -EAGAIN, "cannot set up libcurl");
		}
		conn->headers = hl;
		h = conn->curl;
		curl_easy_setopt(h, CURLOPT_URL, c->url);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
		if (c->ca_file[0])
			curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	}
	h = conn->curl;
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	cc = curl_easy_perform(h);
	free(body);
	if (cc != CURLE_OK)
		return err_fmt(err, errlen, -EAGAIN, "%s: %s", c->url, curl_easy_strerror(cc));
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300)
		return 0;
	return err_fmt(err, errlen, status == 408 || status == 429 || status >= 500 ? -EAGAIN :
		       -EPROTO, "%s: HTTP %ld", c->url, status);
}

int events_send(const struct events_sink_conf *c, const char *token, const char *host,
		struct sink_conn *conn, const struct fwd_event *ev, char *err, size_t errlen)
{
	if (c->sink_type == EVENTS_SINK_SYSLOG)
		return send_syslog(c, host, conn, ev, err, errlen);
	return send_webhook(c, token, host, conn, ev, err, errlen);
}

void events_send_close(struct sink_conn *conn)
{
	if (conn->fd >= 0)
		close(conn->fd);
	conn->fd = -1;
	if (conn->curl)
		curl_easy_cleanup(conn->curl);
	curl_slist_free_all(conn->headers);
	conn->curl = NULL;
	conn->headers = NULL;
}
