/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/sdnotify.c: sd_notify(3) without libsystemd. The protocol is one
 * datagram per state on the AF_UNIX socket named by $NOTIFY_SOCKET (a leading
 * '@' means the abstract namespace). */
#include "autoconf.h"
#include "daemon/core/sdnotify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int sdnotify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, rc = 0;

	if (!path || !*path)
		return 0;
	if ((path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, strlen(path));
	if (sun.sun_path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sun, len) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int sdnotifyf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sdnotify(buf);
}

int sdnotify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return sdnotifyf("RELOADING=1\nMONOTONIC_USEC=%llu",
			 (unsigned long long)ts.tv_sec * 1000000ULL +
			 (unsigned long long)ts.tv_nsec / 1000ULL);
}

uint64_t sdnotify_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	char *end;

	if (!usec || !*usec)
		return 0;
	if (pid && *pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	unsigned long long v = strtoull(usec, &end, 10);
	if (errno || *end)
		return 0;
	return v;
}
