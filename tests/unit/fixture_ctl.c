/* tests/unit/fixture_ctl.c: test_ctl's fixture (fixture_ctl.h): a control
 * socket on a real event loop with four handlers, and a blocking client
 * in this process. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/core/ctl.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "fixture_ctl.h"


char dir[64];
char sock_path[128];
struct event_base *base;
struct ctl *ctl;
struct ctl_req *saved;   /* held by the "later" handler */

/* ---- handlers ----------------------------------------------------------------- */

static void h_echo(struct ctl_req *req, json_t *args, void *arg)
{
	ctl_reply_ok(req, json_pack("{s:O, s:s, s:i, s:s}", "echo", args, "cmd", ctl_req_cmd(req),
				    "uid", ctl_req_uid(req), "arg", (const char *)arg));
}

static void h_poke(struct ctl_req *req, json_t *args, void *arg)
{
	ctl_reply_ok(req, json_pack("{s:b}", "poked", 1));
}

static void h_later(struct ctl_req *req, json_t *args, void *arg)
{
	saved = req;
}

/* Builds its answer slowly (the loop stands still meanwhile, as with a large
 * query on loomd's loop), then answers with `pad` bytes. */
static void h_slow_big(struct ctl_req *req, json_t *args, void *arg)
{
	size_t pad = (size_t)json_integer_value(json_object_get(args, "pad"));
	char *text = malloc(pad + 1);

	ck_assert_ptr_nonnull(text);
	memset(text, 'z', pad);
	text[pad] = '\0';
	usleep((useconds_t)json_integer_value(json_object_get(args, "ms")) * 1000);
	ctl_reply_ok(req, json_pack("{s:s}", "pad", text));
	free(text);
}

/* ---- fixture ------------------------------------------------------------------ */

/* the tests' commands, declared as lib/util/commands.c declares loomd's:
 * the arguments the tests give them (poke and qos-status take none) */
static const struct cmds_arg echo_args[] = {
	CMDS_ARG_I("x", 0, 1000), CMDS_ARG_S("pad"), CMDS_ARG_END,
};
static const struct cmds_arg later_args[] = { CMDS_ARG_S("k"), CMDS_ARG_END };
static const struct cmds_arg big_args[] = {
	CMDS_ARG_I("pad", 0, 1LL << 32), CMDS_ARG_I("ms", 0, 60000), CMDS_ARG_END,
};
static const struct cmds_arg none[] = { CMDS_ARG_END };
const struct cmds_arg fixture_create_spec[] = {
	CMDS_ARG_S("name"), CMDS_ARG_S("hosts"), CMDS_ARG_I("pkey", 0, 0x7ffe), CMDS_ARG_B("limited"),
	CMDS_ARG_S("class"), CMDS_ARG_END,
};
const struct cmds_decl fixture_decls[] = {
	{ .name = "echo", .flags = CMDS_LOOMD, .access = CMDS_READ, .args = echo_args },
	{ .name = "poke", .flags = CMDS_LOOMD, .access = CMDS_WRITE, .args = none },
	{ .name = "later", .flags = CMDS_LOOMD, .access = CMDS_READ, .args = later_args },
	{ .name = "slow_big", .flags = CMDS_LOOMD, .access = CMDS_READ, .args = big_args },
	{ .name = "tenant-create", .flags = CMDS_LOOMD, .access = CMDS_TENANT,
	  .args = fixture_create_spec },
	{ .name = "qos-status", .flags = CMDS_LOOMD, .access = CMDS_READ, .args = none },
	{ .name = "offline", .flags = CMDS_LOOMCTL, .access = CMDS_READ, .args = none },
	{ .name = NULL },
};

void setup(void)
{
	char err[256] = "";

	log_init("test_ctl", LOG_LVL_ERR, LOG_TARGET_STDERR);
	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof(dir), "/tmp/loom-test-ctl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* `nobody` must reach the socket (mkdtemp makes it 0700). */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	/* a directory that does not exist yet: ctl_new creates it */
	snprintf(sock_path, sizeof(sock_path), "%s/run/loomd.sock", dir);
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	ctl = ctl_new(base, sock_path, "", err, sizeof(err));
	ck_assert_msg(ctl != NULL, "ctl_new: %s", err);
	ctl_set_declarations(ctl, fixture_decls);
	ck_assert_int_eq(ctl_handle(ctl, "echo", h_echo, "echo-arg"), 0);
	ck_assert_int_eq(ctl_handle(ctl, "poke", h_poke, NULL), 0);
	ck_assert_int_eq(ctl_handle(ctl, "later", h_later, NULL), 0);
	ck_assert_int_eq(ctl_handle(ctl, "slow_big", h_slow_big, NULL), 0);
	ck_assert_int_eq(ctl_handle(ctl, "echo", h_echo, NULL), -EEXIST);
	saved = NULL;
}

void teardown(void)
{
	char cmd[128];

	ctl_free(ctl);
	ctl = NULL;
	event_base_free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* ---- client side ----------------------------------------------------------------- */

int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Turn the loop for about `ms` milliseconds. */
void pump(int ms)
{
	for (int i = 0; i < ms; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
}

/* Turn the loop until fd has something to read (1) or `ms` passed (0). */
int pump_until_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (int i = 0; i < ms; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		if (poll(&p, 1, 1) > 0)
			return 1;
	}
	return 0;
}

void send_req(int fd, const char *cmd, json_t *args, json_int_t id)
{
	json_t *req = proto_request_new(cmd, args, id);

	ck_assert_int_eq(proto_send_fd(fd, req, PROTO_MAX_REQUEST), 0);
	json_decref(req);
}

json_t *recv_resp(int fd)
{
	json_t *resp = NULL;

	ck_assert_msg(pump_until_readable(fd, 5000), "no response within 5 s");
	ck_assert_int_eq(proto_recv_fd(fd, PROTO_MAX_RESPONSE, &resp), 0);
	return resp;
}

json_t *call(int fd, const char *cmd, json_t *args, json_int_t id)
{
	send_req(fd, cmd, args, id);
	return recv_resp(fd);
}

const char *err_code(const json_t *resp)
{
	const char *c = json_string_value(json_object_get(json_object_get(resp, "error"), "code"));

	return c ? c : "(none)";
}

const char *err_message(const json_t *resp)
{
	const char *m = json_string_value(json_object_get(json_object_get(resp, "error"),
							   "message"));

	return m ? m : "";
}


/* One request from the child, as loomctl makes it (proto_call_fd: a
 * connection refused before the request was written still gives the
 * refusal); the response, or NULL. Everything is freed so that valgrind
 * has nothing to say about the child either. */
json_t *child_call(int fd, const char *cmd, json_int_t id)
{
	json_t *req = proto_request_new(cmd, NULL, id), *resp = NULL;
	int rc = proto_call_fd(fd, req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp, NULL);

	json_decref(req);
	return rc < 0 ? NULL : resp;
}
