/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/routing/test_opensm_sweep.c: how loomd asks OpenSM to
 * re-read its files (daemon/routing/opensm_sweep.c): the plugin first, when
 * one reported from an address of its own (the request reaches it), else
 * SIGHUP to a live opensm only; with neither, or with the plugin gone and
 * nothing to signal, the answer says what to set up, and a pid file naming
 * another program is never signalled. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/routing/opensm_sweep.h"
#include "tests/unit/fixtures/check_run.h"

START_TEST(no_plugin_no_pid_says_how_to_set_it_up)
{
	struct opensm_sweep s;
	char how[512];
	int pid = -1;

	opensm_sweep_find(NULL, "", NULL, &s);
	ck_assert_int_eq(s.has_peer, 0);
	ck_assert_int_eq(s.pid, 0);
	ck_assert_int_eq(opensm_sweep_ask(&s, "tenants", &pid, how, sizeof(how)), -ESRCH);
	ck_assert_int_eq(pid, 0);
	ck_assert_msg(strstr(how, "event_plugin_name loomosm") != NULL, "%s", how);
}
END_TEST

START_TEST(a_pid_file_naming_another_program_is_not_signalled)
{
	char path[] = "/tmp/loom-test-pid.XXXXXX", how[512];
	struct opensm_sweep s;
	int fd = mkstemp(path), pid;

	ck_assert_int_ge(fd, 0);
	dprintf(fd, "%d\n", (int)getpid());  /* this test, not an opensm */
	close(fd);
	opensm_sweep_find(NULL, path, NULL, &s);
	ck_assert_int_eq(s.pid, 0);
	ck_assert_int_eq(opensm_sweep_ask(&s, "ib_qos", &pid, how, sizeof(how)), -ESRCH);
	ck_assert_msg(strstr(how, "is not a running opensm") != NULL, "%s", how);
	unlink(path);
}
END_TEST

/* The next request waiting on fd, as text in buf. */
static const char *received(int fd, char *buf, size_t len)
{
	ssize_t n = recv(fd, buf, len - 1, MSG_DONTWAIT);

	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	return buf;
}

START_TEST(the_plugin_is_asked_and_its_going_is_said)
{
	int plugin = socket(AF_UNIX, SOCK_DGRAM, 0), loomd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct opensm_sweep s = { .has_peer = 1 };
	char how[512], buf[256];
	socklen_t len = sizeof(s.peer.addr);
	int pid;

	ck_assert_int_eq(bind(plugin, (struct sockaddr *)&(struct sockaddr_un){ .sun_family =
			      AF_UNIX }, sizeof(sa_family_t)), 0);
	ck_assert_int_eq(getsockname(plugin, (struct sockaddr *)&s.peer.addr, &len), 0);
	s.peer.addr_len = len;
	s.peer.fd = loomd;
	s.peer.pid = 4242;
	ck_assert_int_eq(opensm_sweep_ask(&s, "ib_cc", &pid, how, sizeof(how)), 0);
	ck_assert_int_eq(pid, 4242);
	ck_assert_str_eq(how, "asked libloomosm.so in OpenSM pid 4242");
	received(plugin, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "\"type\":\"heavy_sweep\"") && strstr(buf, "\"why\":\"ib_cc\""),
		      "%s", buf);
	/* a reroute (the isolated links changed) goes the same way */
	ck_assert_int_eq(opensm_sweep_reroute(&s, "isolation", &pid, how, sizeof(how)), 0);
	ck_assert_int_eq(pid, 4242);
	ck_assert_str_eq(how, "asked libloomosm.so in OpenSM pid 4242");
	ck_assert_str_eq(received(plugin, buf, sizeof(buf)),
			 "{\"v\":1,\"type\":\"reroute\",\"why\":\"isolation\"}");
	/* the plugin's OpenSM gone, nothing to signal: said, not claimed */
	close(plugin);
	ck_assert_int_eq(opensm_sweep_ask(&s, "ib_cc", &pid, how, sizeof(how)), -ESRCH);
	ck_assert_int_eq(pid, 0);
	ck_assert_msg(strstr(how, "libloomosm.so of OpenSM pid 4242") != NULL, "%s", how);
	ck_assert_int_eq(opensm_sweep_reroute(&s, "isolation", &pid, how, sizeof(how)), -ESRCH);
	ck_assert_msg(strstr(how, "libloomosm.so of OpenSM pid 4242") != NULL, "%s", how);
	close(loomd);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("opensm_sweep");
	TCase *tc = tcase_create("opensm_sweep");

	tcase_add_test(tc, no_plugin_no_pid_says_how_to_set_it_up);
	tcase_add_test(tc, a_pid_file_naming_another_program_is_not_signalled);
	tcase_add_test(tc, the_plugin_is_asked_and_its_going_is_said);
	suite_add_tcase(su, tc);
	return check_run(su);
}
