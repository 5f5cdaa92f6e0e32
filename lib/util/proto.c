/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/proto.c: framing, message builders and blocking I/O of loom's control
 * protocol (see proto.h for the wire format). Nothing here logs: loomd and
 * loomctl report failures in their own way. */
#include "autoconf.h"
#include "lib/util/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- frames ----------------------------------------------------------------- */

int proto_frame_new(const json_t *msg, size_t max, char **buf, size_t *len)
{
	char *body, *frame;
	size_t n;

	if (!json_is_object(msg))
		return -EINVAL;
	/* Compact: the frame is for a program; loomctl pretty-prints itself. */
	body = json_dumps(msg, JSON_COMPACT);
	if (!body)
		return -ENOMEM;
	n = strlen(body);
	if (n > max || n > UINT32_MAX) {
		free(body);
		return -EMSGSIZE;
	}
	frame = malloc(PROTO_HEADER_LEN + n);
	if (!frame) {
		free(body);
		return -ENOMEM;
	}
	frame[0] = (char)(n >> 24);
	frame[1] = (char)(n >> 16);
	frame[2] = (char)(n >> 8);
	frame[3] = (char)n;
	memcpy(frame + PROTO_HEADER_LEN, body, n);
	free(body);
	*buf = frame;
	*len = PROTO_HEADER_LEN + n;
	return 0;
}

ssize_t proto_frame_decode(const void *buf, size_t len, size_t max, json_t **msg,
			   char *err, size_t errlen)
{
	const unsigned char *p = buf;
	json_error_t jerr;
	json_t *j;
	size_t n;

	if (len < PROTO_HEADER_LEN)
		return 0;
	n = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | (size_t)p[3];
	/* Judged on the header alone, so a peer cannot make us buffer a body
	 * we would refuse anyway. */
	if (n > max) {
		set_err(err, errlen, "a message of %zu bytes exceeds the limit of %zu", n, max);
		return -EMSGSIZE;
	}
	if (len - PROTO_HEADER_LEN < n)
		return 0;
	j = json_loadb((const char *)p + PROTO_HEADER_LEN, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!j) {
		set_err(err, errlen, "invalid JSON at byte %d: %s", jerr.position, jerr.text);
		return -EBADMSG;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		set_err(err, errlen, "the message is not a JSON object");
		return -EBADMSG;
	}
	*msg = j;
	return (ssize_t)(PROTO_HEADER_LEN + n);
}

/* ---- messages ---------------------------------------------------------------- */

/* json_pack's "o" steals its value even when packing fails (jansson >= 2.11),
 * which gives the builders their "steals args/result" contract for free. */
json_t *proto_request_new(const char *cmd, json_t *args, json_int_t id)
{
	return json_pack("{s:i, s:I, s:s, s:o}", "v", PROTO_VERSION, "id", id, "cmd", cmd,
			 "args", args ? args : json_object());
}

json_t *proto_response_ok_new(json_int_t id, json_t *result)
{
	return json_pack("{s:i, s:I, s:b, s:o}", "v", PROTO_VERSION, "id", id, "ok", 1,
			 "result", result ? result : json_null());
}

json_t *proto_response_verr_new(json_int_t id, const char *code, const char *fmt, va_list ap)
{
	char *message = NULL;
	json_t *resp;
	int n = vasprintf(&message, fmt, ap);

	if (n < 0)
		return NULL;
	resp = json_pack("{s:i, s:I, s:b, s:{s:s, s:s}}", "v", PROTO_VERSION, "id", id,
			 "ok", 0, "error", "code", code, "message", message);
	if (!resp) {
		/* json_pack refuses strings that are not UTF-8 (a node description
		 * quoted in a message, say): keep the code, explain the rest. */
		resp = json_pack("{s:i, s:I, s:b, s:{s:s, s:s}}", "v", PROTO_VERSION, "id", id,
				 "ok", 0, "error", "code", code, "message",
				 "(error message is not valid UTF-8)");
	}
	free(message);
	return resp;
}

json_t *proto_response_err_new(json_int_t id, const char *code, const char *fmt, ...)
{
	json_t *resp;
	va_list ap;

	va_start(ap, fmt);
	resp = proto_response_verr_new(id, code, fmt, ap);
	va_end(ap);
	return resp;
}

int proto_request_parse(json_t *req, const char **cmd, json_t **args, json_int_t *id,
			char *err, size_t errlen)
{
	json_t *v, *c, *a, *i;

	*id = 0;
	if (!json_is_object(req)) {
		set_err(err, errlen, "a request must be a JSON object");
		return -EBADMSG;
	}
	/* The id first, so that even a refusal can be matched by the client. */
	i = json_object_get(req, "id");
	if (i && !json_is_integer(i)) {
		set_err(err, errlen, "\"id\" must be an integer");
		return -EBADMSG;
	}
	*id = i ? json_integer_value(i) : 0;
	v = json_object_get(req, "v");
	if (!json_is_integer(v)) {
		set_err(err, errlen, "\"v\" (the protocol version) must be an integer");
		return -EBADMSG;
	}
	if (json_integer_value(v) != PROTO_VERSION) {
		set_err(err, errlen, "protocol version %" JSON_INTEGER_FORMAT
			" is not supported; this side speaks version %d",
			json_integer_value(v), PROTO_VERSION);
		return -EPROTO;
	}
	c = json_object_get(req, "cmd");
	if (!json_is_string(c) || json_string_length(c) == 0) {
		set_err(err, errlen, "\"cmd\" must be a non-empty string");
		return -EBADMSG;
	}
	a = json_object_get(req, "args");
	if (!a) {
		/* Handlers always get an object; keeping it in req ties its
		 * lifetime to the request's. */
		a = json_object();
		if (!a || json_object_set_new(req, "args", a) < 0) {
			set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
	} else if (!json_is_object(a)) {
		set_err(err, errlen, "\"args\" must be a JSON object");
		return -EBADMSG;
	}
	*cmd = json_string_value(c);
	*args = a;
	return 0;
}

/* ---- blocking I/O --------------------------------------------------------------- */

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		/* MSG_NOSIGNAL: a peer that went away is an error to report,
		 * not a reason for SIGPIPE to kill loomctl. */
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Exactly len bytes; -ECONNRESET if the peer closes first. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int proto_send_fd(int fd, const json_t *msg, size_t max)
{
	char *buf;
	size_t len;
	int rc = proto_frame_new(msg, max, &buf, &len);

	if (rc < 0)
		return rc;
	rc = write_all(fd, buf, len);
	free(buf);
	return rc;
}

int proto_recv_fd(int fd, size_t max, json_t **msg)
{
	unsigned char header[PROTO_HEADER_LEN];
	size_t n;
	char *buf;
	ssize_t used;
	int rc = read_all(fd, header, sizeof(header));

	if (rc < 0)
		return rc;
	n = (size_t)header[0] << 24 | (size_t)header[1] << 16 | (size_t)header[2] << 8 |
	    (size_t)header[3];
	if (n > max)
		return -EMSGSIZE;
	buf = malloc(PROTO_HEADER_LEN + n);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, header, sizeof(header));
	rc = read_all(fd, buf + PROTO_HEADER_LEN, n);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	used = proto_frame_decode(buf, PROTO_HEADER_LEN + n, max, msg, NULL, 0);
	free(buf);
	if (used < 0)
		return (int)used;
	return used > 0 ? 0 : -EBADMSG;
}

int proto_call_fd(int fd, const json_t *req, size_t max_req, size_t max_resp, json_t **resp,
		  int *sent)
{
	int rc = proto_send_fd(fd, req, max_req);

	if (sent)
		*sent = rc == 0;
	*resp = NULL;
	if (rc == -EPIPE || rc == -ECONNRESET)
		/* Closed before reading it: whatever it said first is still
		 * in our socket. */
		return proto_recv_fd(fd, max_resp, resp) == 0 ? 0 : rc;
	if (rc < 0)
		return rc;
	return proto_recv_fd(fd, max_resp, resp);
}
