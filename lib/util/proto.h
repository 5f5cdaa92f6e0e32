/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/proto.h: loom's control protocol, shared by loomd and loomctl.
 *
 * A message is a frame: a 4-byte big-endian length, then that many bytes of
 * one UTF-8 JSON object. Requests are capped at PROTO_MAX_REQUEST bytes and
 * responses at PROTO_MAX_RESPONSE; a peer that sends more is disconnected.
 *
 *   request:  {"v":1, "id":N, "cmd":"nodes", "args":{...}}
 *   response: {"v":1, "id":N, "ok":true,  "result":...}
 *             {"v":1, "id":N, "ok":false, "error":{"code":"...", "message":"..."}}
 *
 * The version "v" is the protocol's major version: a server answers a request
 * of another major version with error code "version". */
#ifndef LOOM_PROTO_H
#define LOOM_PROTO_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#define PROTO_VERSION       1
#define PROTO_MAX_REQUEST   (64u * 1024u)
#define PROTO_MAX_RESPONSE  (256u * 1024u * 1024u)
#define PROTO_HEADER_LEN    4

/* Error codes carried in error.code. */
#define PROTO_ERR_VERSION   "version"    /* unsupported protocol version */
#define PROTO_ERR_BADREQ    "bad-request"
#define PROTO_ERR_UNKNOWN   "unknown-command"
#define PROTO_ERR_DENIED    "permission-denied"
#define PROTO_ERR_NOTFOUND  "not-found"
#define PROTO_ERR_BUSY      "busy"
#define PROTO_ERR_INTERNAL  "internal"
#define PROTO_ERR_FAILED    "failed"     /* the change could not be made; it was undone */
#define PROTO_ERR_TOO_LARGE "too-large"  /* the answer is over PROTO_MAX_RESPONSE */
#define PROTO_ERR_NOT_LEADER "not-leader" /* HA: a change sent to a follower (names the leader) */
#define PROTO_ERR_NO_QUORUM "no-quorum"   /* HA: etcd unreachable, no leader confirmed */

/* Encode msg as one frame in a new malloc'd buffer. 0 or -errno
 * (-EMSGSIZE if the JSON is larger than max). */
int proto_frame_new(const json_t *msg, size_t max, char **buf, size_t *len);

/* Try to decode one frame at the start of buf[0..len). Returns the number of
 * bytes consumed (> 0) and sets *msg (a new reference), 0 if more bytes are
 * needed, -EMSGSIZE if the announced length exceeds max, -EBADMSG if the body
 * is not a JSON object (err says why). */
ssize_t proto_frame_decode(const void *buf, size_t len, size_t max, json_t **msg,
			   char *err, size_t errlen);

/* Builders; each returns a new reference and steals args/result. */
json_t *proto_request_new(const char *cmd, json_t *args, json_int_t id);
json_t *proto_response_ok_new(json_int_t id, json_t *result);
json_t *proto_response_err_new(json_int_t id, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
json_t *proto_response_verr_new(json_int_t id, const char *code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Validate a request: right version, "cmd" a string, "args" absent or an
 * object. On success *cmd and *args (an object, never NULL; borrowed) point
 * into req. On failure returns -EPROTO (version) or -EBADMSG, and err says why. */
int proto_request_parse(json_t *req, const char **cmd, json_t **args, json_int_t *id,
			char *err, size_t errlen);

/* Blocking I/O on a stream socket (for loomctl). 0 or -errno. */
int proto_send_fd(int fd, const json_t *msg, size_t max);
int proto_recv_fd(int fd, size_t max, json_t **msg);
/* Send req, then read one response into *resp. A peer that answered and
 * closed before it read the request (loomd refusing a connection over its
 * bounds, daemon/core/ctl_limits.h: one "busy" answer, then close) makes
 * the send fail with EPIPE or ECONNRESET, depending on who runs first; its
 * answer is still read then, so that the caller gets the same answer
 * either way. 0 and *resp, or -errno; *sent (may be NULL) says whether
 * the request went out whole, for the caller's message. */
int proto_call_fd(int fd, const json_t *req, size_t max_req, size_t max_resp, json_t **resp,
		  int *sent);

#endif
