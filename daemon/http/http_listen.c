/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/http_listen.c: a listening TCP socket for an http.listen
 * address (http_impl.h), made by the core, which hands it to the HTTP
 * front end (front.c), and by http.c in tests that run the listener in
 * one process. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/http/http_impl.h"

int http_listen_fd(const struct http_addr *a, int backlog)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr *sa;
	socklen_t len;
	int fd, on = 1, e;

	if (inet_pton(AF_INET, a->host, &in4.sin_addr) == 1) {
		in4.sin_port = htons((uint16_t)a->port);
		sa = (struct sockaddr *)&in4;
		len = sizeof(in4);
	} else if (inet_pton(AF_INET6, a->host, &in6.sin6_addr) == 1) {
		in6.sin6_port = htons((uint16_t)a->port);
		sa = (struct sockaddr *)&in6;
		len = sizeof(in6);
	} else {
		return -EINVAL;
	}
	if ((fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	/* A restarted loomd binds at once, connections of the last one in
	 * TIME_WAIT or not (libevent's LEV_OPT_REUSEABLE). */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    bind(fd, sa, len) < 0 || listen(fd, backlog > 0 ? backlog : 128) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}
