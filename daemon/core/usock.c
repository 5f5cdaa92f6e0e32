/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/usock.c: what loomd's unix sockets (control, OpenSM reports) share:
 * the directory they live in, and replacing the socket file a dead daemon
 * left behind without ever taking over a live one. */
#include "autoconf.h"
#include "daemon/core/usock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/log.h"

/* mkdir -p of the directory holding `path`. */
int usock_addr(const char *path, struct sockaddr_un *sa, char *err, size_t errlen)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!path || path[0] != '/' || strlen(path) >= sizeof(sa->sun_path)) {
		snprintf(err, errlen, "the socket path must be absolute and shorter than %zu bytes",
			 sizeof(sa->sun_path));
		return -EINVAL;
	}
	memcpy(sa->sun_path, path, strlen(path));
	return 0;
}

int usock_make_parent_dir(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;

		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(e));
			return -e;
		}
		*p = saved;
		if (!saved)
			return 0;
	}
}

int usock_clear_stale(const struct sockaddr_un *sa, int type, const char *who, char *err,
		      size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (lstat(sa->sun_path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "cannot examine %s: %s", sa->sun_path, strerror(-rc));
		return rc;
	}
	/* Never delete what is not a socket: a typo in a socket path must not
	 * cost someone a file. */
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", sa->sun_path);
		return -EEXIST;
	}
	if ((fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		return rc;
	}
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ? 0 : -errno;
	close(fd);
	/* EAGAIN: a listener whose backlog is full is still a listener. */
	if (rc == 0 || rc == -EAGAIN) {
		snprintf(err, errlen, "another loomd is listening on %s", sa->sun_path);
		return -EADDRINUSE;
	}
	if (rc != -ECONNREFUSED && rc != -ENOENT) {
		snprintf(err, errlen, "cannot tell whether %s is in use: %s", sa->sun_path,
			 strerror(-rc));
		return rc;
	}
	if (unlink(sa->sun_path) < 0 && errno != ENOENT) {
		rc = -errno;
		snprintf(err, errlen, "cannot remove the stale socket %s: %s", sa->sun_path,
			 strerror(-rc));
		return rc;
	}
	log_info("%s: removed the stale socket %s", who, sa->sun_path);
	return 0;
}

int usock_bind(const struct sockaddr_un *sa, int type, mode_t mode, int backlog, char *err,
	       size_t errlen)
{
	int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		snprintf(err, errlen, "cannot bind %s: %s", sa->sun_path, strerror(errno));
		close(fd);
		return -1;
	}
	if (chmod(sa->sun_path, mode) < 0 || (type == SOCK_STREAM && listen(fd, backlog) < 0)) {
		snprintf(err, errlen, "cannot set up %s: %s", sa->sun_path, strerror(errno));
		unlink(sa->sun_path);
		close(fd);
		return -1;
	}
	return fd;
}

int usock_send_nowait(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}
