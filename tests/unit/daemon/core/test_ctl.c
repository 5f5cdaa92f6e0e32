/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_ctl.c: the control socket server (daemon/core/ctl.h) on a real
 * event loop. The client side runs in this process with blocking
 * proto_send_fd/proto_recv_fd, and the loop is turned by hand (non-blocking
 * rounds) while it waits; permission checks for other users use a child that
 * drops to `nobody`. The bounds of ctl_limits.h are in test_ctl_limits.c,
 * in the same program (fixture_ctl.c is the socket and the client). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "daemon/core/authz.h"
#include "daemon/core/ctl.h"
#include "daemon/core/ctl_impl.h"
#include "daemon/core/ctl_limits.h"
#include "daemon/fabric/queries.h"
#include "daemon/core/store.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_ctl.h"

/* ---- tests ------------------------------------------------------------------------ */

START_TEST(read_command_is_answered)
{
	int fd = connect_to(sock_path);
	json_t *resp = call(fd, "echo", json_pack("{s:i}", "x", 5), 17);
	json_t *result = json_object_get(resp, "result");
	struct stat st;

	ck_assert(json_is_true(json_object_get(resp, "ok")));
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), 17);
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "v")), PROTO_VERSION);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(result, "echo"), "x")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(result, "cmd")), "echo");
	ck_assert_str_eq(json_string_value(json_object_get(result, "arg")), "echo-arg");
	ck_assert_int_eq(json_integer_value(json_object_get(result, "uid")), (json_int_t)getuid());
	json_decref(resp);
	close(fd);

	/* everyone may connect; the directory was created 0755 */
	ck_assert_int_eq(stat(sock_path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0666);
	*strrchr(sock_path, '/') = '\0';
	ck_assert_int_eq(stat(sock_path, &st), 0);
	sock_path[strlen(sock_path)] = '/';
	ck_assert(S_ISDIR(st.st_mode));
}
END_TEST

START_TEST(pipelined_requests_are_answered_in_order)
{
	int fd = connect_to(sock_path);

	/* the first waits for its handler; the others queue behind it */
	send_req(fd, "later", NULL, 1);
	send_req(fd, "echo", NULL, 2);
	send_req(fd, "nosuch", NULL, 3);
	pump(100);
	ck_assert_ptr_nonnull(saved);
	ck_assert_int_eq(pump_until_readable(fd, 50), 0);
	ctl_reply_ok(saved, json_string("first"));
	saved = NULL;
	for (json_int_t id = 1; id <= 3; id++) {
		json_t *resp = recv_resp(fd);

		ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), id);
		json_decref(resp);
	}
	close(fd);
}
END_TEST

START_TEST(unknown_command)
{
	int fd = connect_to(sock_path);
	json_t *resp = call(fd, "frobnicate", NULL, 4);

	ck_assert(json_is_false(json_object_get(resp, "ok")));
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), 4);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(err_message(resp), "frobnicate"));
	ck_assert_ptr_nonnull(strstr(err_message(resp), "echo"));
	json_decref(resp);
	close(fd);
}
END_TEST

START_TEST(bad_requests_are_refused_and_the_connection_stays)
{
	int fd = connect_to(sock_path);
	json_t *req = json_pack("{s:i, s:i, s:s}", "v", PROTO_VERSION + 1, "id", 8, "cmd", "echo");
	json_t *resp;
	const unsigned char junk[] = { 0, 0, 0, 3, 'a', 'b', 'c' };

	ck_assert_int_eq(proto_send_fd(fd, req, PROTO_MAX_REQUEST), 0);
	json_decref(req);
	resp = recv_resp(fd);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_VERSION);
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), 8);
	json_decref(resp);

	req = json_pack("{s:i, s:i}", "v", PROTO_VERSION, "id", 9);
	ck_assert_int_eq(proto_send_fd(fd, req, PROTO_MAX_REQUEST), 0);
	json_decref(req);
	resp = recv_resp(fd);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	json_decref(resp);

	req = json_pack("{s:i, s:s, s:[i]}", "v", PROTO_VERSION, "cmd", "echo", "args", 1);
	ck_assert_int_eq(proto_send_fd(fd, req, PROTO_MAX_REQUEST), 0);
	json_decref(req);
	resp = recv_resp(fd);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	json_decref(resp);

	/* not JSON at all, but framed: refused, and the next one is served */
	ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	resp = recv_resp(fd);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	json_decref(resp);
	resp = call(fd, "echo", NULL, 10);
	ck_assert(json_is_true(json_object_get(resp, "ok")));
	json_decref(resp);
	close(fd);
}
END_TEST

START_TEST(write_command_allowed_for_root_or_the_admin_group)
{
	int fd;
	json_t *resp;

	if (geteuid() != 0) {
		/* Not root: our own primary group stands in for the admin
		 * group, and with none set we are refused. */
		struct group *g = getgrgid(getegid());

		ck_assert_ptr_nonnull(g);
		fd = connect_to(sock_path);
		resp = call(fd, "poke", NULL, 1);
		ck_assert_str_eq(err_code(resp), PROTO_ERR_DENIED);
		json_decref(resp);
		ck_assert_int_eq(ctl_set_admin_group(ctl, g->gr_name), 0);
		close(fd);
	}
	fd = connect_to(sock_path);
	resp = call(fd, "poke", NULL, 2);
	ck_assert_msg(json_is_true(json_object_get(resp, "ok")), "refused: %s", err_message(resp));
	ck_assert(json_is_true(json_object_get(json_object_get(resp, "result"), "poked")));
	json_decref(resp);
	close(fd);
}
END_TEST


/* The child's side of run_as_nobody: its exit status. */
static int child_as_nobody(const char *expect)
{
	json_t *resp;
	int fd, ok;

	if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
		return 10;
	if ((fd = connect_to(sock_path)) < 0)
		return 11;
	/* Twice: the first waits for nobody's identity, the second is checked
	 * against the identity kept. */
	for (int i = 1; i <= 2; i++) {
		if (!(resp = child_call(fd, "poke", 10 + i)))
			return 12;
		if (strcmp(expect, "ok") == 0)
			ok = json_is_true(json_object_get(resp, "ok"));
		else
			ok = strcmp(err_code(resp), expect) == 0 && strstr(err_message(resp), "poke");
		if (!ok)
			fprintf(stderr, "nobody: poke %d: %s: %s\n", i, err_code(resp),
				err_message(resp));
		json_decref(resp);
		if (!ok)
			return 13;
	}
	/* reading is for everyone */
	if (!(resp = child_call(fd, "echo", 2)))
		return 14;
	ok = json_is_true(json_object_get(resp, "ok")) &&
	     json_integer_value(json_object_get(json_object_get(resp, "result"), "uid")) == NOBODY;
	json_decref(resp);
	close(fd);
	return ok ? 0 : 15;
}

/* In a child running as nobody (gid nobody's group): "poke", twice, must
 * get `expect` ("ok" or an error code naming the command) and "echo" must
 * be answered. Turns the loop until the child is done; its exit status. */
static int run_as_nobody(const char *expect)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0)  /* no check assertions in the child: its messages go to the runner */
		_exit(child_as_nobody(expect));
	ck_assert_int_ge(pid, 0);
	for (int i = 0; i < 10000; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		ck_assert_int_ge(r, 0);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 101;
}

START_TEST(write_command_denied_for_others)
{
	struct group *g;

	if (geteuid() != 0) {
		printf("skipped: switching to nobody needs root\n");
		return;
	}
	/* root only */
	ck_assert_int_eq(run_as_nobody(PROTO_ERR_DENIED), 0);
	/* a group nobody is not in */
	ck_assert_int_eq(ctl_set_admin_group(ctl, "root"), 0);
	ck_assert_int_eq(run_as_nobody(PROTO_ERR_DENIED), 0);
	/* nobody's primary group as the admin group */
	if ((g = getgrgid(NOBODY)) != NULL) {
		ck_assert_int_eq(ctl_set_admin_group(ctl, g->gr_name), 0);
		ck_assert_int_eq(run_as_nobody("ok"), 0);
	}
}
END_TEST

/* A write request from nobody waits for nobody's identity (looked up on a
 * thread, ctl_ident.h). Its client may be gone when the lookup ends: the
 * request is dropped, and the next one is served. */
START_TEST(a_request_held_for_an_identity_survives_its_client_leaving)
{
	struct group *g;
	pid_t pid;
	int status;

	if (geteuid() != 0 || (g = getgrgid(NOBODY)) == NULL) {
		printf("skipped: switching to nobody needs root and nobody's group\n");
		return;
	}
	ck_assert_int_eq(ctl_set_admin_group(ctl, g->gr_name), 0);
	pid = fork();
	if (pid == 0) {  /* send "poke" as nobody and leave at once */
		json_t *req = proto_request_new("poke", NULL, 1);
		int fd;

		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0 ||
		    (fd = connect_to(sock_path)) < 0 || proto_send_fd(fd, req, PROTO_MAX_REQUEST) < 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_ge(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 200; i++) {  /* the loop takes the request, then the lookup's end */
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
	ck_assert_int_eq(run_as_nobody("ok"), 0);
}
END_TEST

START_TEST(deferred_reply)
{
	int fd = connect_to(sock_path);
	json_t *resp;

	send_req(fd, "later", json_pack("{s:s}", "k", "v"), 21);
	pump(50);
	ck_assert_ptr_nonnull(saved);
	ck_assert_str_eq(ctl_req_cmd(saved), "later");
	ck_assert_int_eq(ctl_req_uid(saved), (int)getuid());
	ck_assert_int_eq(pump_until_readable(fd, 50), 0);
	ctl_reply_err(saved, PROTO_ERR_BUSY, "came back %d ms later", 50);
	saved = NULL;
	resp = recv_resp(fd);
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), 21);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BUSY);
	ck_assert_str_eq(err_message(resp), "came back 50 ms later");
	json_decref(resp);
	close(fd);
}
END_TEST

START_TEST(client_gone_before_a_deferred_reply)
{
	int fd = connect_to(sock_path);
	json_t *resp;

	send_req(fd, "later", NULL, 1);
	pump(50);
	ck_assert_ptr_nonnull(saved);
	close(fd);
	pump(50);   /* the server sees the hang-up */
	ctl_reply_ok(saved, json_pack("{s:s}", "big", "answer nobody reads"));
	saved = NULL;
	pump(20);
	/* the server is still fine */
	fd = connect_to(sock_path);
	resp = call(fd, "echo", NULL, 2);
	ck_assert(json_is_true(json_object_get(resp, "ok")));
	json_decref(resp);
	close(fd);
}
END_TEST

START_TEST(oversize_request_is_disconnected)
{
	int fd = connect_to(sock_path);
	size_t n = PROTO_MAX_REQUEST + 1;
	const unsigned char hdr[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16),
				       (unsigned char)(n >> 8), (unsigned char)n };
	json_t *resp = NULL;

	ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), 4);
	ck_assert_int_eq(write(fd, "{\"v\":1", 6), 6);
	resp = recv_resp(fd);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	json_decref(resp);
	resp = NULL;
	ck_assert(pump_until_readable(fd, 2000));
	ck_assert_int_eq(proto_recv_fd(fd, PROTO_MAX_RESPONSE, &resp), -ECONNRESET);
	close(fd);
}
END_TEST

START_TEST(stale_socket_is_replaced)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[sizeof(sa.sun_path)], err[256] = "";
	struct ctl *other;
	int fd;

	/* what a daemon killed with -9 leaves: a socket nobody listens on */
	snprintf(path, sizeof(path), "%s/stale.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	ck_assert_int_eq(connect_to(path), -ECONNREFUSED);

	other = ctl_new(base, path, "", err, sizeof(err));
	ck_assert_msg(other != NULL, "ctl_new on a stale socket: %s", err);
	fd = connect_to(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	pump(10);
	ctl_free(other);
}
END_TEST

START_TEST(live_socket_is_refused)
{
	char err[256] = "", path[160];
	struct ctl *other = ctl_new(base, sock_path, "", err, sizeof(err));
	int fd;

	ck_assert_ptr_null(other);
	ck_assert_msg(strstr(err, "another loomd is listening on") != NULL, "err: %s", err);
	ck_assert_ptr_nonnull(strstr(err, sock_path));
	/* and the live one still works */
	fd = connect_to(sock_path);
	ck_assert_int_ge(fd, 0);
	json_decref(call(fd, "echo", NULL, 1));
	close(fd);

	/* a file that is not a socket is never deleted */
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	other = ctl_new(base, path, "", err, sizeof(err));
	ck_assert_ptr_null(other);
	ck_assert_ptr_nonnull(strstr(err, "not a socket"));
	ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

START_TEST(free_answers_pending_and_unlinks)
{
	int fd = connect_to(sock_path);
	int idle = connect_to(sock_path);
	json_t *resp = NULL;

	send_req(fd, "later", NULL, 5);
	pump(50);
	ck_assert_ptr_nonnull(saved);
	ctl_free(ctl);
	ctl = NULL;
	saved = NULL;   /* answered by ctl_free */
	/* libevent closes a freed bufferevent's socket from the loop */
	pump(10);
	ck_assert_int_eq(access(sock_path, F_OK), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(proto_recv_fd(fd, PROTO_MAX_RESPONSE, &resp), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(resp, "id")), 5);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BUSY);
	json_decref(resp);
	ck_assert_int_eq(proto_recv_fd(fd, PROTO_MAX_RESPONSE, &resp), -ECONNRESET);
	ck_assert_int_eq(proto_recv_fd(idle, PROTO_MAX_RESPONSE, &resp), -ECONNRESET);
	close(fd);
	close(idle);
}
END_TEST

static void got_answer(json_t *answer, void *arg)
{
	json_t **out = arg;

	ck_assert_ptr_null(*out);  /* once */
	*out = answer;
}

/* Another transport's request (ctl_call): the socket's answer without its
 * framing, the one table deciding by role, and a later answer. */
START_TEST(calls_as_a_principal_decide_by_role_and_answer_once)
{
	struct authz_principal reader, admin;
	json_t *ans = NULL, *args = json_pack("{s:i}", "x", 1);

	authz_principal_named(&reader, "token", "mon", AUTHZ_READ);
	authz_principal_named(&admin, "token", "ops", AUTHZ_ADMIN);
	ctl_call(ctl, "echo", args, &reader, got_answer, &ans);  /* borrowed */
	json_decref(args);
	ck_assert_ptr_nonnull(ans);
	ck_assert(json_is_true(json_object_get(ans, "ok")));
	ck_assert_ptr_null(json_object_get(ans, "v"));
	ck_assert_ptr_null(json_object_get(ans, "id"));
	/* uid -1: not a unix peer */
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(ans, "result"), "uid")),
			 -1);
	json_decref(ans);
	ans = NULL;
	ctl_call(ctl, "poke", NULL, &reader, got_answer, &ans);
	ck_assert_str_eq(err_code(ans), PROTO_ERR_DENIED);
	ck_assert_msg(strstr(err_message(ans), "needs role admin") &&
		      strstr(err_message(ans), "token mon (role read)"), "%s", err_message(ans));
	json_decref(ans);
	ans = NULL;
	ctl_call(ctl, "poke", NULL, &admin, got_answer, &ans);
	ck_assert(json_is_true(json_object_get(ans, "ok")));
	json_decref(ans);
	ans = NULL;
	ctl_call(ctl, "nope", NULL, &admin, got_answer, &ans);
	ck_assert_str_eq(err_code(ans), PROTO_ERR_UNKNOWN);
	json_decref(ans);
	ans = NULL;
	saved = NULL;
	ctl_call(ctl, "later", NULL, &reader, got_answer, &ans);
	ck_assert_ptr_null(ans);
	ck_assert_ptr_nonnull(saved);
	ck_assert_str_eq(ctl_req_principal(saved)->how, "token mon");
	ctl_reply_ok(saved, json_string("done"));
	ck_assert_str_eq(json_string_value(json_object_get(ans, "result")), "done");
	json_decref(ans);
}
END_TEST

/* Arguments typed as declared (lib/util/commands.c), checked before the
 * handler: the attack's wrong-typed tenant bodies each refused naming the
 * field, an unknown key refused naming it and the keys taken, the right
 * ones run. */
#define create_spec fixture_create_spec

/* cmds_args_check of the JSON text: "" when taken, else its message */
static const char *checked(const struct cmds_arg *spec, const char *text)
{
	static char err[512];
	json_t *args = json_loads(text, 0, NULL);

	ck_assert_msg(args != NULL, "bad JSON in the test: %s", text);
	err[0] = '\0';
	if (cmds_args_check("tenant-create", spec, args, err, sizeof(err)) == 0)
		ck_assert_str_eq(err, "");
	else
		ck_assert_str_ne(err, "");
	json_decref(args);
	return err;
}

START_TEST(arguments_are_checked_against_their_declared_types)
{
	static const struct cmds_arg none[] = { CMDS_ARG_END };
	static const struct cmds_arg since[] = { CMDS_ARG_N("since", 0, 1LL << 40), CMDS_ARG_END };

	ck_assert_str_eq(checked(create_spec, "{\"name\": \"j1\", \"hosts\": \"h[1-2]\", "
				 "\"pkey\": 4660, \"limited\": true, \"class\": \"storage\"}"), "");
	ck_assert_str_eq(checked(create_spec, "{\"name\": \"j1\", \"pkey\": 0, \"class\": null}"),
			 "");
	ck_assert_str_eq(checked(create_spec, "{\"limited\": \"true\"}"),
			 "\"limited\" must be true or false");
	ck_assert_str_eq(checked(create_spec, "{\"limited\": null}"),
			 "\"limited\" must be true or false");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": 70000}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": 4294967587}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": -1}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": 32767}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": \"0x1234\"}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"pkey\": 4660.0}"),
			 "\"pkey\" must be an integer from 0 to 32766");
	ck_assert_str_eq(checked(create_spec, "{\"class\": 5}"), "\"class\" must be a string");
	ck_assert_str_eq(checked(create_spec, "{\"hosts\": [\"h1\"]}"), "\"hosts\" must be a string");
	ck_assert_str_eq(checked(create_spec, "{\"name\": \"j1\", \"memebrship\": \"full\"}"),
			 "unknown argument \"memebrship\": \"tenant-create\" takes name, hosts, "
			 "pkey, limited, class");
	ck_assert_str_eq(checked(none, "{}"), "");
	ck_assert_str_eq(checked(none, "{\"x\": 1}"),
			 "unknown argument \"x\": \"tenant-create\" takes none");
	ck_assert_str_eq(checked(since, "{\"since\": 1700000000.5}"), "");
	ck_assert_str_eq(checked(since, "{\"since\": 1700000000}"), "");
	ck_assert_str_eq(checked(since, "{\"since\": \"yesterday\"}"),
			 "\"since\" must be a number from 0 to 1099511627776");
}
END_TEST

static int typed_runs;

static void h_typed(struct ctl_req *req, json_t *args, void *arg)
{
	typed_runs++;
	ctl_reply_ok(req, json_true());
}

/* ... on the socket and through ctl_call alike, before the handler */
START_TEST(a_command_refuses_what_it_does_not_declare_from_either_transport)
{
	struct authz_principal admin;
	json_t *resp, *args, *ans = NULL;
	int fd;

	ck_assert_int_eq(ctl_handle(ctl, "tenant-create", h_typed, NULL), 0);
	fd = connect_to(sock_path);
	args = json_pack("{s:s, s:s, s:b, s:i}", "name", "j1", "hosts", "h1", "limited", 0,
			 "pkey", 4660);
	resp = call(fd, "tenant-create", json_incref(args), 1);
	ck_assert_msg(json_is_true(json_object_get(resp, "ok")), "%s", err_message(resp));
	json_decref(resp);
	json_object_set_new(args, "limited", json_string("true"));
	resp = call(fd, "tenant-create", json_incref(args), 2);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	ck_assert_str_eq(err_message(resp), "\"limited\" must be true or false");
	json_decref(resp);
	json_object_set_new(args, "limited", json_true());
	json_object_set_new(args, "colour", json_string("red"));
	resp = call(fd, "tenant-create", json_incref(args), 3);
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BADREQ);
	ck_assert_msg(strstr(err_message(resp), "unknown argument \"colour\""), "%s",
		      err_message(resp));
	json_decref(resp);
	close(fd);
	authz_principal_named(&admin, "token", "slurm", AUTHZ_ADMIN);
	ctl_call(ctl, "tenant-create", args, &admin, got_answer, &ans);
	ck_assert_str_eq(err_code(ans), PROTO_ERR_BADREQ);
	json_decref(ans);
	json_decref(args);
	ck_assert_int_eq(typed_runs, 1);
	/* declared with no argument: takes none */
	ans = NULL;
	args = json_pack("{s:i}", "x", 1);
	ctl_call(ctl, "poke", args, &admin, got_answer, &ans);
	ck_assert_str_eq(err_code(ans), PROTO_ERR_BADREQ);
	ck_assert_str_eq(err_message(ans), "unknown argument \"x\": \"poke\" takes none");
	json_decref(ans);
	json_decref(args);
}
END_TEST

/* A module hands in handlers only: a name the declarations do not give
 * to loomd (unknown, or loomctl's alone) is refused, and ctl_unhandled
 * names the declared ones still without a handler (loomd does not start
 * while any is left). */
START_TEST(only_declared_loomd_commands_take_a_handler_and_the_unhandled_are_named)
{
	char names[256];

	ck_assert_int_eq(ctl_handle(ctl, "frobnicate", h_typed, NULL), -ENOENT);
	ck_assert_int_eq(ctl_handle(ctl, "offline", h_typed, NULL), -ENOENT);
	ck_assert_int_eq(ctl_handle(ctl, "", h_typed, NULL), -EINVAL);
	ck_assert_int_eq(ctl_handle(ctl, "poke", NULL, NULL), -EINVAL);
	ck_assert_uint_eq(ctl_unhandled(ctl, names, sizeof(names)), 2);
	ck_assert_str_eq(names, "tenant-create, qos-status");
	ck_assert_int_eq(ctl_handle(ctl, "tenant-create", h_typed, NULL), 0);
	ck_assert_uint_eq(ctl_unhandled(ctl, names, sizeof(names)), 1);
	ck_assert_str_eq(names, "qos-status");
	ck_assert_int_eq(ctl_handle(ctl, "qos-status", h_typed, NULL), 0);
	ck_assert_uint_eq(ctl_unhandled(ctl, names, sizeof(names)), 0);
	ck_assert_str_eq(names, "");
}
END_TEST

/* The same against loom's own table: each loomd command is unhandled until
 * its handler comes, then taken once; loomctl's entries never are. */
START_TEST(every_declared_loomd_command_is_unhandled_until_handed_in)
{
	size_t loomd = 0, loomctl = 0, unhandled;
	char names[2048];

	ctl_set_declarations(ctl, cmds_table());
	unhandled = ctl_unhandled(ctl, names, sizeof(names));
	ck_assert_uint_eq(ctl_unhandled(ctl, NULL, 0), unhandled);
	for (const struct cmds_decl *d = cmds_table(); d->name; d++) {
		if (!(d->flags & CMDS_LOOMD)) {
			ck_assert_int_eq(ctl_handle(ctl, d->name, h_typed, NULL), -ENOENT);
			loomctl++;
			continue;
		}
		loomd++;
		ck_assert_msg(strstr(names, d->name), "%s is not named unhandled: %s", d->name,
			      names);
		ck_assert_int_eq(ctl_handle(ctl, d->name, h_typed, NULL), 0);
		ck_assert_int_eq(ctl_handle(ctl, d->name, h_typed, NULL), -EEXIST);
	}
	ck_assert_uint_eq(unhandled, loomd);
	ck_assert_uint_ge(loomd, 30);
	ck_assert_uint_ge(loomctl, 5);
	ck_assert_uint_eq(ctl_unhandled(ctl, names, sizeof(names)), 0);
}
END_TEST

/* The gate (HA's "only the leader changes things"): asked before every
 * command that is not a read, from the socket and from ctl_call alike, and
 * by ctl_gate_check for a module's own changes; its code and message are
 * the answer; removed, everything runs again. */
static int gate_calls;

static const char *test_gate(void *arg, const char *cmd, char *why, size_t whylen)
{
	gate_calls++;
	snprintf(why, whylen, "%s: %s", (const char *)arg, cmd);
	return PROTO_ERR_NOT_LEADER;
}

START_TEST(the_gate_refuses_changes_not_reads)
{
	struct authz_principal admin;
	json_t *ans = NULL, *resp;
	char why[128];
	int fd;

	authz_principal_named(&admin, "token", "ops", AUTHZ_ADMIN);
	ck_assert_int_eq(ctl_gate_check(ctl, "x", why, sizeof(why)), 0);  /* no gate */
	ctl_set_gate(ctl, test_gate, "follower");
	fd = connect_to(sock_path);
	resp = call(fd, "echo", NULL, 1);
	ck_assert(json_is_true(json_object_get(resp, "ok")));  /* a read */
	json_decref(resp);
	ck_assert_int_eq(gate_calls, 0);
	if (geteuid() == 0) {
		resp = call(fd, "poke", NULL, 2);
		ck_assert_str_eq(err_code(resp), PROTO_ERR_NOT_LEADER);
		ck_assert_str_eq(err_message(resp), "follower: poke");
		json_decref(resp);
		ck_assert_int_eq(gate_calls, 1);
	}
	close(fd);
	ctl_call(ctl, "poke", NULL, &admin, got_answer, &ans);
	ck_assert_str_eq(err_code(ans), PROTO_ERR_NOT_LEADER);
	json_decref(ans);
	ans = NULL;
	ck_assert_int_eq(ctl_gate_check(ctl, "a check", why, sizeof(why)), -EPERM);
	ck_assert_str_eq(why, "follower: a check");
	ctl_set_gate(ctl, NULL, NULL);
	ctl_call(ctl, "poke", NULL, &admin, got_answer, &ans);
	ck_assert(json_is_true(json_object_get(ans, "ok")));
	json_decref(ans);
}
END_TEST

/* The fabric queries (daemon/fabric/queries.c) run off the loop; the same
 * question at the same data version joins the query under way (both
 * answers are one result), a write in between makes it ask again, and
 * ctl_version gives the version only to whom may run the command. */
START_TEST(same_query_at_one_data_version_is_run_once)
{
	struct authz_principal reader;
	char path[192], err[512] = "";
	struct store *st;
	struct queries *q;
	json_t *a1 = NULL, *a2 = NULL, *b1 = NULL, *b2 = NULL;
	unsigned v1, v2;

	snprintf(path, sizeof(path), "%s/loom.db", dir);
	st = store_open(path, err, sizeof(err));
	ck_assert_msg(st != NULL, "%s", err);
	ctl_set_declarations(ctl, cmds_table());   /* the fabric's reads are loomd's */
	q = queries_new(base, ctl, store_db(st), err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	authz_principal_named(&reader, "token", "mon", AUTHZ_READ);
	ck_assert_int_eq(ctl_version(ctl, "nodes", &reader, &v1), 1);
	ck_assert_int_eq(ctl_version(ctl, "echo", &reader, &v2), 0);   /* none set */

	ctl_call(ctl, "nodes", NULL, &reader, got_answer, &a1);
	ctl_call(ctl, "nodes", NULL, &reader, got_answer, &a2);
	ck_assert_ptr_null(a1);   /* off the loop: not answered yet */
	for (int i = 0; i < 5000 && (!a1 || !a2); i++)
		pump(1);
	ck_assert_ptr_nonnull(a1);
	ck_assert_ptr_nonnull(a2);
	ck_assert(json_is_true(json_object_get(a1, "ok")));
	ck_assert(json_is_array(json_object_get(a1, "result")));
	ck_assert_ptr_eq(json_object_get(a1, "result"), json_object_get(a2, "result"));

	ctl_call(ctl, "links", NULL, &reader, got_answer, &b1);
	ck_assert_int_eq(sqlite3_exec(store_db(st), "INSERT INTO subnets (name, created) "
				      "VALUES ('x', 0)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(ctl_version(ctl, "links", &reader, &v2), 1);
	ck_assert_uint_ne(v1, v2);
	ctl_call(ctl, "links", NULL, &reader, got_answer, &b2);
	for (int i = 0; i < 5000 && (!b1 || !b2); i++)
		pump(1);
	ck_assert_ptr_nonnull(b1);
	ck_assert_ptr_nonnull(b2);
	ck_assert(json_is_true(json_object_get(b2, "ok")));
	ck_assert_ptr_ne(json_object_get(b1, "result"), json_object_get(b2, "result"));
	json_decref(a1);
	json_decref(a2);
	json_decref(b1);
	json_decref(b2);
	queries_free(q);
	store_close(st);
}
END_TEST

/* The frames of one large result sent to two clients (a joined query's
 * answers): each decodes to its own response, and the result's bytes are
 * one buffer both connections reference; a small one is framed whole; one
 * over the limit queues nothing. */
START_TEST(a_large_result_is_encoded_once_for_every_client)
{
	struct ctl_frames f = { 0 };
	json_t *list = json_array(), *r1, *r2, *back;
	struct evbuffer *b1 = evbuffer_new(), *b2 = evbuffer_new();
	struct evbuffer_iovec v1[8], v2[8];
	int n1, n2, shared = 0;

	for (int i = 0; i < 300; i++)
		json_array_append_new(list, json_pack("{s:i, s:s}", "i", i, "desc", "node"));
	r1 = proto_response_ok_new(1, json_incref(list));
	r2 = proto_response_ok_new(2, json_incref(list));
	ck_assert_int_eq(ctl_frame_queue(&f, b1, r1, PROTO_MAX_RESPONSE), 0);
	ck_assert_int_eq(ctl_frame_queue(&f, b2, r2, PROTO_MAX_RESPONSE), 0);
	for (int k = 0; k < 2; k++) {
		struct evbuffer *b = k ? b2 : b1;
		size_t len = evbuffer_get_length(b);
		unsigned char *p = evbuffer_pullup(b, -1);
		json_t *want = k ? r2 : r1;

		ck_assert_int_eq(proto_frame_decode(p, len, PROTO_MAX_RESPONSE, &back, NULL, 0),
				 (ssize_t)len);
		ck_assert_msg(json_equal(back, want), "frame %d is not its response", k + 1);
		json_decref(back);
	}
	evbuffer_free(b1);
	evbuffer_free(b2);
	/* sharing, seen in the buffers' chains before they are pulled up */
	b1 = evbuffer_new();
	b2 = evbuffer_new();
	ck_assert_int_eq(ctl_frame_queue(&f, b1, r1, PROTO_MAX_RESPONSE), 0);
	ck_assert_int_eq(ctl_frame_queue(&f, b2, r2, PROTO_MAX_RESPONSE), 0);
	n1 = evbuffer_peek(b1, -1, NULL, v1, 8);
	n2 = evbuffer_peek(b2, -1, NULL, v2, 8);
	for (int i = 0; i < n1 && i < 8; i++)
		for (int j = 0; j < n2 && j < 8; j++)
			shared |= v1[i].iov_base == v2[j].iov_base && v1[i].iov_len > 1000;
	ck_assert_msg(shared, "the two frames do not share the result's bytes");
	evbuffer_free(b1);
	evbuffer_free(b2);
	/* over the limit: -EMSGSIZE and nothing queued */
	b1 = evbuffer_new();
	json_decref(r1);
	r1 = proto_response_ok_new(3, json_array_get(list, 0) ? json_copy(list) : NULL);
	ck_assert_int_eq(ctl_frame_queue(&f, b1, r1, 100), -EMSGSIZE);
	ck_assert_uint_eq(evbuffer_get_length(b1), 0);
	evbuffer_free(b1);
	ctl_frames_release(&f);
	json_decref(r1);
	json_decref(r2);
	json_decref(list);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("ctl");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, read_command_is_answered);
	tcase_add_test(tc, pipelined_requests_are_answered_in_order);
	tcase_add_test(tc, unknown_command);
	tcase_add_test(tc, calls_as_a_principal_decide_by_role_and_answer_once);
	tcase_add_test(tc, the_gate_refuses_changes_not_reads);
	tcase_add_test(tc, arguments_are_checked_against_their_declared_types);
	tcase_add_test(tc, a_command_refuses_what_it_does_not_declare_from_either_transport);
	tcase_add_test(tc, only_declared_loomd_commands_take_a_handler_and_the_unhandled_are_named);
	tcase_add_test(tc, every_declared_loomd_command_is_unhandled_until_handed_in);
	tcase_add_test(tc, same_query_at_one_data_version_is_run_once);
	tcase_add_test(tc, a_large_result_is_encoded_once_for_every_client);
	tcase_add_test(tc, bad_requests_are_refused_and_the_connection_stays);
	tcase_add_test(tc, write_command_allowed_for_root_or_the_admin_group);
	tcase_add_test(tc, write_command_denied_for_others);
	tcase_add_test(tc, a_request_held_for_an_identity_survives_its_client_leaving);
	tcase_add_test(tc, deferred_reply);
	tcase_add_test(tc, client_gone_before_a_deferred_reply);
	tcase_add_test(tc, oversize_request_is_disconnected);
	tcase_add_test(tc, stale_socket_is_replaced);
	tcase_add_test(tc, live_socket_is_refused);
	tcase_add_test(tc, free_answers_pending_and_unlinks);
	ctl_limits_add_tests(tc);
	suite_add_tcase(s, tc);
	return check_run(s);
}
