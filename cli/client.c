/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/client.c: one request and its response over loomd's control socket.
 * loomctl sends a single request per run, so a blocking connection is all
 * it needs; there is no timeout because `discover --wait` may legitimately
 * take as long as a sweep (a completion sets lc->call_timeout_s). A socket
 * that cannot be reached is said as what to do: start loomd, join the
 * socket's group, remove a stale socket. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/util/proto.h"

#define CLIENT_REQUEST_ID 1

/* The group that owns path, or of the directory in the way when path itself
 * cannot be looked at: into buf ("GROUP" or "GID"), with the file it is of. */
static void path_group(const char *path, char *buf, size_t len, char *of, size_t oflen)
{
	struct stat st;
	struct group *gr;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];

	snprintf(of, oflen, "%s", path);
	if (stat(path, &st) < 0) {
		/* the directory refuses the lookup: its group is the one to join */
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');

		if (slash && slash != dir)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
		snprintf(of, oflen, "%s", dir);
		if (stat(dir, &st) < 0) {
			snprintf(buf, len, "?");
			return;
		}
	}
	if ((gr = getgrgid(st.st_gid)))
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%u", (unsigned)st.st_gid);
}

/* Why connect() failed, said as what to do about it. */
static void connect_error(const struct loomctl *lc, int e)
{
	const char *p = lc->socket_path;
	char group[256], of[sizeof(((struct sockaddr_un *)0)->sun_path)];

	switch (e) {
	case ENOENT:
		loomctl_error_code(lc, LOOMCTL_ERR_UNREACHABLE, 0, "no loomd socket at %s: is "
				   "loomd running? (systemctl status loomd)", p);
		break;
	case EACCES:
	case EPERM:
		path_group(p, group, sizeof(group), of, sizeof(of));
		loomctl_error_code(lc, LOOMCTL_ERR_DENIED, 0, "%s: permission denied: join group "
				   "\"%s\" (the group of %s: ls -l %s shows it; loomd's admins are "
				   "control.admin_group's), or use sudo", p, group, of, of);
		break;
	case ECONNREFUSED:
		loomctl_error_code(lc, LOOMCTL_ERR_UNREACHABLE, 0, "%s: connection refused: no "
				   "loomd listens there (a stale socket of a loomd that is gone?); "
				   "systemctl status loomd", p);
		break;
	default:
		loomctl_error_code(lc, LOOMCTL_ERR_UNREACHABLE, 0, "cannot connect to %s: %s (is "
				   "loomd running?)", p, strerror(e));
	}
}

static int client_connect(const struct loomctl *lc)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(lc->socket_path) >= sizeof(sa.sun_path)) {
		loomctl_error(lc, "cannot connect to %s: the path is too long", lc->socket_path);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, lc->socket_path, strlen(lc->socket_path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		int e = errno;

		loomctl_error(lc, "socket: %s", strerror(e));
		return -e;
	}
	if (lc->call_timeout_s > 0) {
		struct timeval tv = { .tv_sec = lc->call_timeout_s };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		connect_error(lc, e);
		close(fd);
		return -e;
	}
	return fd;
}

/* Check a response's shape; 0 and the result, or -errno reported. */
static int client_take_result(const struct loomctl *lc, json_t *resp, json_t **result)
{
	json_t *ok = json_object_get(resp, "ok");
	json_t *v = json_object_get(resp, "v");
	json_t *id = json_object_get(resp, "id");

	if (!json_is_integer(v) || json_integer_value(v) != PROTO_VERSION) {
		loomctl_error(lc, "loomd speaks another protocol version (%" JSON_INTEGER_FORMAT
			      ", loomctl speaks %d): use the loomctl that came with it",
			      json_integer_value(v), PROTO_VERSION);
		return -EPROTO;
	}
	if (json_is_false(ok)) {
		json_t *e = json_object_get(resp, "error");
		const char *code = json_string_value(json_object_get(e, "code"));
		const char *message = json_string_value(json_object_get(e, "message"));

		loomctl_error_code(lc, code ? code : "error", 1, "%s",
				   message ? message : "(no message)");
		/* the one error a command may explain further (cmd_counters.c) */
		return code && !strcmp(code, PROTO_ERR_TOO_LARGE) ? -EMSGSIZE : -EREMOTEIO;
	}
	/* An error about a frame loomd could not read carries id 0. */
	if (!json_is_true(ok) || !json_is_integer(id) ||
	    json_integer_value(id) != CLIENT_REQUEST_ID) {
		loomctl_error(lc, "malformed response from loomd");
		return -EBADMSG;
	}
	*result = json_incref(json_object_get(resp, "result"));
	if (!*result)
		*result = json_null();
	return 0;
}

int client_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result)
{
	json_t *req = proto_request_new(cmd, args, CLIENT_REQUEST_ID);
	json_t *resp = NULL;
	int fd, rc, sent = 0;

	if (!req) {
		loomctl_error(lc, "out of memory");
		return -ENOMEM;
	}
	if ((fd = client_connect(lc)) < 0) {
		json_decref(req);
		return fd;
	}
	/* A connection loomd refuses (over its bounds) is answered "busy" and
	 * closed at once, maybe before the request is written: that answer is
	 * what the operator must see, not EPIPE (proto_call_fd). */
	rc = proto_call_fd(fd, req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp, &sent);
	json_decref(req);
	close(fd);
	if (rc < 0 && !sent) {
		loomctl_error(lc, "cannot send the request to %s: %s", lc->socket_path,
			      rc == -EMSGSIZE ? "it is too large" : strerror(-rc));
		return rc;
	}
	if (rc < 0) {
		loomctl_error(lc, "no answer from loomd on %s: %s", lc->socket_path,
			      rc == -ECONNRESET ? "it closed the connection" :
			      rc == -EBADMSG ? "the response is not valid JSON" : strerror(-rc));
		return rc;
	}
	rc = client_take_result(lc, resp, result);
	json_decref(resp);
	return rc;
}
