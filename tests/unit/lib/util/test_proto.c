/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/util/test_proto.c: the control protocol's framing, builders, request
 * validation and blocking I/O (lib/util/proto.h). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util/proto.h"
#include "tests/unit/fixtures/check_run.h"

/* A frame with `body` as its bytes and the true length in the header. */
static char *raw_frame(const char *body, size_t *len)
{
	size_t n = strlen(body);
	char *f = malloc(PROTO_HEADER_LEN + n);

	ck_assert_ptr_nonnull(f);
	f[0] = (char)(n >> 24);
	f[1] = (char)(n >> 16);
	f[2] = (char)(n >> 8);
	f[3] = (char)n;
	memcpy(f + PROTO_HEADER_LEN, body, n);
	*len = PROTO_HEADER_LEN + n;
	return f;
}

START_TEST(round_trip)
{
	json_t *req = proto_request_new("nodes", json_pack("{s:s}", "type", "switch"), 42);
	json_t *back = NULL;
	char *buf, err[128];
	size_t len;

	ck_assert_ptr_nonnull(req);
	ck_assert_int_eq(proto_frame_new(req, PROTO_MAX_REQUEST, &buf, &len), 0);
	ck_assert_uint_gt(len, PROTO_HEADER_LEN);
	/* big-endian length of the body */
	ck_assert_uint_eq(((size_t)(unsigned char)buf[0] << 24 | (size_t)(unsigned char)buf[1] << 16 |
			   (size_t)(unsigned char)buf[2] << 8 | (unsigned char)buf[3]),
			  len - PROTO_HEADER_LEN);
	ck_assert_int_eq(proto_frame_decode(buf, len, PROTO_MAX_REQUEST, &back, err, sizeof(err)),
			 (ssize_t)len);
	ck_assert(json_equal(req, back));
	ck_assert_int_eq(json_integer_value(json_object_get(back, "v")), PROTO_VERSION);
	json_decref(back);
	json_decref(req);
	free(buf);
}
END_TEST

START_TEST(byte_by_byte_needs_more_until_complete)
{
	json_t *msg = proto_response_ok_new(7, json_pack("[i, i, s]", 1, 2, "three"));
	json_t *back = NULL;
	char *buf, err[128];
	size_t len;

	ck_assert_int_eq(proto_frame_new(msg, PROTO_MAX_RESPONSE, &buf, &len), 0);
	for (size_t i = 0; i < len; i++) {
		ck_assert_int_eq(proto_frame_decode(buf, i, PROTO_MAX_RESPONSE, &back, err,
						    sizeof(err)), 0);
		ck_assert_ptr_null(back);
	}
	ck_assert_int_eq(proto_frame_decode(buf, len, PROTO_MAX_RESPONSE, &back, err, sizeof(err)),
			 (ssize_t)len);
	ck_assert(json_equal(msg, back));
	ck_assert(json_is_true(json_object_get(back, "ok")));
	json_decref(back);
	json_decref(msg);
	free(buf);
}
END_TEST

START_TEST(two_frames_in_one_buffer)
{
	json_t *a = proto_request_new("status", NULL, 1);
	json_t *b = proto_response_err_new(2, PROTO_ERR_NOTFOUND, "no node \"%s\"", "x");
	json_t *back = NULL;
	char *fa, *fb, *both, err[128];
	size_t la, lb;
	ssize_t used;

	ck_assert_int_eq(proto_frame_new(a, PROTO_MAX_REQUEST, &fa, &la), 0);
	ck_assert_int_eq(proto_frame_new(b, PROTO_MAX_REQUEST, &fb, &lb), 0);
	both = malloc(la + lb);
	ck_assert_ptr_nonnull(both);
	memcpy(both, fa, la);
	memcpy(both + la, fb, lb);

	used = proto_frame_decode(both, la + lb, PROTO_MAX_REQUEST, &back, err, sizeof(err));
	ck_assert_int_eq(used, (ssize_t)la);
	ck_assert(json_equal(a, back));
	/* no args given: the builder puts an empty object */
	ck_assert(json_is_object(json_object_get(back, "args")));
	json_decref(back);
	used = proto_frame_decode(both + la, lb, PROTO_MAX_REQUEST, &back, err, sizeof(err));
	ck_assert_int_eq(used, (ssize_t)lb);
	ck_assert(json_equal(b, back));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(back, "error"), "code")),
			 PROTO_ERR_NOTFOUND);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(back, "error"),
							   "message")), "no node \"x\"");
	json_decref(back);
	json_decref(a);
	json_decref(b);
	free(fa);
	free(fb);
	free(both);
}
END_TEST

START_TEST(oversize_announced_length_is_emsgsize)
{
	/* The header alone decides: no body follows. */
	const unsigned char hdr[4] = { 0x00, 0x01, 0x00, 0x01 }; /* 65537 */
	json_t *back = NULL;
	char err[128] = "";

	ck_assert_int_eq(proto_frame_decode(hdr, sizeof(hdr), PROTO_MAX_REQUEST, &back, err,
					    sizeof(err)), -EMSGSIZE);
	ck_assert_ptr_null(back);
	ck_assert_ptr_nonnull(strstr(err, "65537"));
	/* exactly the maximum is fine (still waiting for the body) */
	const unsigned char max[4] = { 0x00, 0x01, 0x00, 0x00 };
	ck_assert_int_eq(proto_frame_decode(max, sizeof(max), PROTO_MAX_REQUEST, &back, err,
					    sizeof(err)), 0);
}
END_TEST

START_TEST(bad_bodies_are_ebadmsg)
{
	static const char *const bodies[] = {
		"[1, 2, 3]", "\"just a string\"", "42", "{\"v\": 1,", "not json", "",
		"{\"a\": 1, \"a\": 2}",
	};

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		json_t *back = NULL;
		char err[128] = "";
		size_t len;
		char *f = raw_frame(bodies[i], &len);

		ck_assert_msg(proto_frame_decode(f, len, PROTO_MAX_REQUEST, &back, err,
						 sizeof(err)) == -EBADMSG, "body %s", bodies[i]);
		ck_assert_ptr_null(back);
		ck_assert_msg(err[0] != '\0', "no reason for %s", bodies[i]);
		free(f);
	}
}
END_TEST

START_TEST(frame_new_over_max_is_emsgsize)
{
	char big[200];
	json_t *msg;
	char *buf = NULL;
	size_t len = 0;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	msg = json_pack("{s:s}", "data", big);
	ck_assert_int_eq(proto_frame_new(msg, 100, &buf, &len), -EMSGSIZE);
	ck_assert_ptr_null(buf);
	ck_assert_int_eq(proto_frame_new(msg, 1000, &buf, &len), 0);
	free(buf);
	json_decref(msg);
	/* only objects are messages */
	msg = json_array();
	ck_assert_int_eq(proto_frame_new(msg, 1000, &buf, &len), -EINVAL);
	json_decref(msg);
}
END_TEST

/* Parse `text` as a request. */
static int parse(const char *text, const char **cmd, json_t **args, json_int_t *id,
		 json_t **req, char *err, size_t errlen)
{
	*req = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(*req);
	return proto_request_parse(*req, cmd, args, id, err, errlen);
}

START_TEST(request_parse)
{
	const char *cmd = NULL;
	json_t *args = NULL, *req;
	json_int_t id = -1;
	char err[256];

	ck_assert_int_eq(parse("{\"v\":1,\"id\":9,\"cmd\":\"node\",\"args\":{\"id\":\"sw1\"}}",
			       &cmd, &args, &id, &req, err, sizeof(err)), 0);
	ck_assert_str_eq(cmd, "node");
	ck_assert_int_eq(id, 9);
	ck_assert_str_eq(json_string_value(json_object_get(args, "id")), "sw1");
	json_decref(req);

	/* args absent: an empty object, never NULL */
	ck_assert_int_eq(parse("{\"v\":1,\"cmd\":\"links\"}", &cmd, &args, &id, &req, err,
			       sizeof(err)), 0);
	ck_assert(json_is_object(args));
	ck_assert_int_eq(json_object_size(args), 0);
	ck_assert_int_eq(id, 0);
	json_decref(req);
}
END_TEST

START_TEST(request_parse_refusals)
{
	static const struct {
		const char *text;
		int rc;
		json_int_t id;
	} cases[] = {
		{ "{\"v\":2,\"id\":3,\"cmd\":\"nodes\"}", -EPROTO, 3 },
		{ "{\"v\":0,\"cmd\":\"nodes\"}", -EPROTO, 0 },
		{ "{\"id\":4,\"cmd\":\"nodes\"}", -EBADMSG, 4 },
		{ "{\"v\":\"1\",\"cmd\":\"nodes\"}", -EBADMSG, 0 },
		{ "{\"v\":1,\"id\":5}", -EBADMSG, 5 },
		{ "{\"v\":1,\"cmd\":\"\"}", -EBADMSG, 0 },
		{ "{\"v\":1,\"cmd\":7}", -EBADMSG, 0 },
		{ "{\"v\":1,\"cmd\":\"nodes\",\"args\":[1]}", -EBADMSG, 0 },
		{ "{\"v\":1,\"cmd\":\"nodes\",\"args\":\"type=switch\"}", -EBADMSG, 0 },
		{ "{\"v\":1,\"cmd\":\"nodes\",\"args\":null}", -EBADMSG, 0 },
		{ "{\"v\":1,\"id\":\"x\",\"cmd\":\"nodes\"}", -EBADMSG, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *cmd = NULL;
		json_t *args = NULL, *req;
		json_int_t id = -1;
		char err[256] = "";

		ck_assert_msg(parse(cases[i].text, &cmd, &args, &id, &req, err, sizeof(err)) ==
			      cases[i].rc, "%s", cases[i].text);
		/* the id is known even for a refusal, so it can be answered */
		ck_assert_msg(id == cases[i].id, "%s: id %lld", cases[i].text, (long long)id);
		ck_assert_msg(err[0] != '\0', "%s: no reason", cases[i].text);
		json_decref(req);
	}
}
END_TEST

START_TEST(error_response_shape)
{
	json_t *r = proto_response_err_new(11, PROTO_ERR_DENIED, "\"%s\" needs group %s",
					   "discover", "loom");
	json_t *e = json_object_get(r, "error");

	ck_assert_int_eq(json_integer_value(json_object_get(r, "v")), PROTO_VERSION);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 11);
	ck_assert(json_is_false(json_object_get(r, "ok")));
	ck_assert_str_eq(json_string_value(json_object_get(e, "code")), "permission-denied");
	ck_assert_str_eq(json_string_value(json_object_get(e, "message")),
			 "\"discover\" needs group loom");
	json_decref(r);
	/* a message that is not UTF-8 still gives a valid error */
	r = proto_response_err_new(1, PROTO_ERR_NOTFOUND, "no node \"%s\"", "\xff\xfe");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
			 PROTO_ERR_NOTFOUND);
	json_decref(r);
}
END_TEST

START_TEST(send_and_recv_over_a_socket)
{
	int sv[2];
	json_t *msg, *back = NULL;
	char big[100000];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* larger than a socket buffer's first write: short writes and reads
	 * happen; a child reads while we write */
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	msg = proto_response_ok_new(3, json_pack("{s:s}", "blob", big));
	pid_t pid = fork();
	if (pid == 0) {  /* no check assertions in the child */
		close(sv[1]);
		_exit(proto_send_fd(sv[0], msg, PROTO_MAX_RESPONSE) == 0 ? 0 : 1);
	}
	ck_assert_int_ge(pid, 0);
	close(sv[0]);
	ck_assert_int_eq(proto_recv_fd(sv[1], PROTO_MAX_RESPONSE, &back), 0);
	ck_assert(json_equal(msg, back));
	json_decref(back);
	/* the child is gone: end of stream before a header */
	ck_assert_int_eq(proto_recv_fd(sv[1], PROTO_MAX_RESPONSE, &back), -ECONNRESET);
	close(sv[1]);
	json_decref(msg);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(recv_refuses_oversize_and_truncated)
{
	int sv[2];
	json_t *back = NULL;
	const unsigned char hdr[4] = { 0x00, 0x10, 0x00, 0x00 };
	size_t len;
	char *f = raw_frame("{\"v\":1}", &len);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(write(sv[0], hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	ck_assert_int_eq(proto_recv_fd(sv[1], 1024, &back), -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(write(sv[0], f, len - 2), (ssize_t)(len - 2));
	close(sv[0]);
	ck_assert_int_eq(proto_recv_fd(sv[1], 1024, &back), -ECONNRESET);
	close(sv[1]);
	free(f);

	/* a peer that left: sending fails with an error, not SIGPIPE */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	back = json_object();
	ck_assert_int_eq(proto_send_fd(sv[0], back, 1024), -EPIPE);
	json_decref(back);
	close(sv[0]);
}
END_TEST

/* A peer that answers and closes before reading (loomd refusing a
 * connection): the call still returns its answer; a peer that closes
 * without a word is the send's error. */
START_TEST(call_reads_the_answer_of_a_peer_that_closed_before_reading)
{
	int sv[2], sent = -1;
	json_t *req = proto_request_new("status", NULL, 1), *busy, *resp = NULL;

	busy = proto_response_err_new(0, PROTO_ERR_BUSY, "all in use");
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(proto_send_fd(sv[1], busy, PROTO_MAX_RESPONSE), 0);
	close(sv[1]);
	ck_assert_int_eq(proto_call_fd(sv[0], req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp,
				       &sent), 0);
	ck_assert_int_eq(sent, 0);
	ck_assert(json_equal(resp, busy));
	json_decref(resp);
	close(sv[0]);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	resp = NULL;
	ck_assert_int_eq(proto_call_fd(sv[0], req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp,
				       &sent), -EPIPE);
	ck_assert_int_eq(sent, 0);
	ck_assert_ptr_null(resp);
	close(sv[0]);

	/* the usual order: sent whole, then answered */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(proto_send_fd(sv[1], busy, PROTO_MAX_RESPONSE), 0);
	ck_assert_int_eq(proto_call_fd(sv[0], req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp,
				       &sent), 0);
	ck_assert_int_eq(sent, 1);
	ck_assert(json_equal(resp, busy));
	json_decref(resp);
	close(sv[0]);
	close(sv[1]);
	json_decref(busy);
	json_decref(req);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("proto");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, byte_by_byte_needs_more_until_complete);
	tcase_add_test(tc, two_frames_in_one_buffer);
	tcase_add_test(tc, oversize_announced_length_is_emsgsize);
	tcase_add_test(tc, bad_bodies_are_ebadmsg);
	tcase_add_test(tc, frame_new_over_max_is_emsgsize);
	tcase_add_test(tc, request_parse);
	tcase_add_test(tc, request_parse_refusals);
	tcase_add_test(tc, error_response_shape);
	tcase_add_test(tc, send_and_recv_over_a_socket);
	tcase_add_test(tc, recv_refuses_oversize_and_truncated);
	tcase_add_test(tc, call_reads_the_answer_of_a_peer_that_closed_before_reading);
	suite_add_tcase(s, tc);
	return check_run(s);
}
