/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/usock.h: helpers for loomd's unix sockets (daemon/core/usock.c). */
#ifndef LOOM_USOCK_H
#define LOOM_USOCK_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

/* Fill sa (AF_UNIX) with path, which must be absolute and fit sun_path.
 * 0, or -EINVAL with the reason in err. */
int usock_addr(const char *path, struct sockaddr_un *sa, char *err, size_t errlen);

/* mkdir -p of the directory holding `path`. 0 or -errno, reason in err. */
int usock_make_parent_dir(const char *path, char *err, size_t errlen);

/* Make room for a socket of `type` (SOCK_STREAM, SOCK_DGRAM) at sa's path:
 * a socket file nobody is bound to is a dead daemon's leftover and goes
 * (logged as `who`); a live one belongs to another loomd (-EADDRINUSE);
 * anything that is not a socket is never touched (-EEXIST). 0 or -errno,
 * reason in err. */
int usock_clear_stale(const struct sockaddr_un *sa, int type, const char *who, char *err,
		      size_t errlen);

/* A socket of `type` bound at sa, with `mode` (set before anyone can
 * connect), listening with `backlog` when it is a SOCK_STREAM; non-blocking
 * and close-on-exec. The fd, or -1 with the reason in err (nothing left
 * behind). */
int usock_bind(const struct sockaddr_un *sa, int type, mode_t mode, int backlog, char *err,
	       size_t errlen);

/* One send of buf on a connected socket without blocking or SIGPIPE (a
 * best effort: at shutdown, or to tell a refused client why). 0 or -errno. */
int usock_send_nowait(int fd, const void *buf, size_t len);

#endif
