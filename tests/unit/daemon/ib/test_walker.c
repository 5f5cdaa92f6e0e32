/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_walker.c: walker_run, the parent's side of loomd's child
 * modes (daemon/ib/walker.h), with a shell script standing in for loomd: the
 * answer of a child that exits 0, the one-line error of one that exits 1,
 * one killed by a signal, and one that hangs, which is killed once its
 * time is up instead of holding its caller (and loomd's shutdown) for ever;
 * the M_Key reaching the child on its inherited fd and nowhere else (not
 * its arguments, not its environment), and the child's side reading it.
 * The child modes themselves run against ibsim in the integration tests. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/ib/walker.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_wire.h"
#include "tests/unit/fixtures/check_run.h"

static char dir[] = "/tmp/loom-walker-XXXXXX";
static char script[sizeof(dir) + 16];

/* The stand-in: its first argument (the mode) says what to do; the rest
 * are walker_run's SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS. */
static void setup(void)
{
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(script, sizeof(script), "%s/child", dir);
	f = fopen(script, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\n"
	      "case $1 in\n"
	      "--answer) echo \"answer for $2 on $3 port $4: $5 ms, $6 retries, $7 smps\" ;;\n"
	      "--fail) echo 'no such port'; exit 1 ;;\n"
	      "--die) kill -9 $$ ;;\n"
	      "--hang) exec sleep 60 ;;\n"
	      "--mkey) echo \"args=$*\"\n"
	      "        echo \"var=${LOOMD_MKEY_FD-unset}\"\n"
	      "        echo \"env=$(env | grep -c -e 1122334455667788 -e 1234605616436508552)\"\n"
	      "        [ -z \"$LOOMD_MKEY_FD\" ] ||\n"
	      "        echo \"key=$(od -An -tx1 <&3 | tr -d ' \\n')\" ;;\n"
	      "--stdin) [ \"$8\" = - ] || exit 3\n"
	      "         cat >\"$0.in\"; cat \"$0.in\"; rm -f \"$0.in\" ;;\n"
	      "esac\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(script, 0755), 0);
}

static void teardown(void)
{
	unlink(script);
	rmdir(dir);
}

static const struct disc_ib_params params = {
	.subnet = "ib0", .ca = "mlx5_0", .port = 1, .timeout_ms = 200, .retries = 3,
	.max_smps = 16,
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

START_TEST(a_child_that_exits_0_gives_its_whole_answer)
{
	char *out = NULL, err[256] = "";
	size_t len = 0;

	walker_set_child(script, 0);
	ck_assert_msg(walker_run("--answer", &params, &out, &len, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(out, "answer for ib0 on mlx5_0 port 1: 200 ms, 3 retries, 16 smps\n");
	ck_assert_uint_eq(len, strlen(out));
	free(out);
}
END_TEST

START_TEST(a_child_that_exits_1_gives_its_one_line_error)
{
	char *out = (char *)1, err[256] = "";
	size_t len = 1;

	walker_set_child(script, 0);
	ck_assert_int_eq(walker_run("--fail", &params, &out, &len, NULL, err, sizeof(err)), -EIO);
	ck_assert_str_eq(err, "no such port");
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(a_child_killed_by_a_signal_is_named_so)
{
	char *out, err[256] = "";
	size_t len;

	walker_set_child(script, 0);
	ck_assert_int_eq(walker_run("--die", &params, &out, &len, NULL, err, sizeof(err)), -EIO);
	ck_assert_msg(strstr(err, "signal 9"), "%s", err);
}
END_TEST

START_TEST(a_hung_child_is_killed_when_its_time_is_up)
{
	char *out, err[256] = "";
	size_t len;
	double t0 = now(), took;

	walker_set_child(script, 1);
	ck_assert_int_eq(walker_run("--hang", &params, &out, &len, NULL, err, sizeof(err)),
			 -ETIMEDOUT);
	took = now() - t0;
	ck_assert_msg(strstr(err, "no answer within 1 s: killed"), "%s", err);
	/* Killed and reaped at the limit, not after the child's 60 s. */
	ck_assert_msg(took >= 0.9 && took < 30, "took %.1f s", took);
	ck_assert_ptr_null(out);
}
END_TEST

/* walker_run_fabric: the child gets "-" after its usual arguments and the
 * fabric on stdin, whole, in fab_wire's form (here it echoes it back, once
 * it has read all of it, as walker_child_main does). */
START_TEST(a_fabric_handed_to_the_child_arrives_whole_on_its_stdin)
{
	struct fab *fab = fab_new("ib0"), *back;
	char *out = NULL, err[256] = "";
	size_t len = 0;

	ck_assert_ptr_nonnull(fab);
	/* Big enough to fill a socket buffer many times over. */
	for (unsigned i = 0; i < 3000; i++)
		ck_assert_ptr_nonnull(fab_add_node(fab, i % 3 ? IBT_NODE_CA : IBT_NODE_SWITCH,
						   0x1000 + i, 8));
	walker_set_child(script, 0);
	ck_assert_int_eq(walker_run_fabric("--stdin", &params, fab, &out, &len, err, sizeof(err)),
			 0);
	back = fab_wire_read(out, len, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_uint_eq(back->n_nodes, 3000);
	fab_free(back);
	fab_free(fab);
	free(out);
}
END_TEST

struct hang_run {
	int rc;
	char err[256];
};

static void *run_hang(void *arg)
{
	struct hang_run *h = arg;
	char *out;
	size_t len;

	h->rc = walker_run("--hang", &params, &out, &len, NULL, h->err, sizeof(h->err));
	return NULL;
}

/* loomd's shutdown calls walker_stop_all() before it waits for its workers:
 * a child that hangs is killed then, not after the walker's 600 s, and none
 * starts after it. */
START_TEST(stop_all_kills_a_hung_child_and_starts_no_more)
{
	struct hang_run h = { 0, "" };
	double t0 = now(), took;
	char *out, err[256] = "";
	size_t len;
	pthread_t t;

	walker_set_child(script, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, run_hang, &h), 0);
	usleep(300000);
	walker_stop_all();
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	took = now() - t0;
	ck_assert_int_eq(h.rc, -EIO);
	ck_assert_msg(strstr(h.err, "signal 9"), "%s", h.err);
	ck_assert_msg(took < 10, "took %.1f s", took);
	t0 = now();
	ck_assert_int_lt(walker_run("--hang", &params, &out, &len, NULL, err, sizeof(err)), 0);
	ck_assert_msg(now() - t0 < 10, "a child started after stop_all ran %.1f s", now() - t0);
}
END_TEST

START_TEST(the_m_key_reaches_the_child_on_its_fd_and_nowhere_else)
{
	struct disc_ib_params keyed = params;
	char *out = NULL, err[256] = "";
	size_t len = 0;

	keyed.m_key = 0x1122334455667788ULL;
	walker_set_child(script, 0);
	ck_assert_msg(walker_run("--mkey", &keyed, &out, &len, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(out, "args=--mkey ib0 mlx5_0 1 200 3 16\nvar=3\nenv=0\n"
			 "key=1122334455667788\n");
	free(out);
	/* No key: no fd, no variable. */
	ck_assert_msg(walker_run("--mkey", &params, &out, &len, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(out, "args=--mkey ib0 mlx5_0 1 200 3 16\nvar=unset\nenv=0\n");
	free(out);
}
END_TEST

START_TEST(the_child_reads_the_m_key_loomd_hands_it)
{
	static const unsigned char key[8] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0x2a };
	struct disc_ib_params p = params;
	char var[16], err[256] = "";
	int k[2];

	ck_assert_int_eq(pipe(k), 0);
	ck_assert_int_eq(write(k[1], key, sizeof(key)), (ssize_t)sizeof(key));
	close(k[1]);
	snprintf(var, sizeof(var), "%d", k[0]);
	setenv(WALKER_MKEY_ENV, var, 1);
	ck_assert_int_eq(walker_child_mkey(&p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.m_key, 0xdeadbeef0000002aULL);
	ck_assert_ptr_null(getenv(WALKER_MKEY_ENV));   /* forgotten */
	ck_assert_int_eq(close(k[0]), -1);             /* and its fd closed */
	/* A pipe cut short is an error, not a key. */
	ck_assert_int_eq(pipe(k), 0);
	ck_assert_int_eq(write(k[1], key, 3), 3);
	close(k[1]);
	snprintf(var, sizeof(var), "%d", k[0]);
	setenv(WALKER_MKEY_ENV, var, 1);
	ck_assert_int_lt(walker_child_mkey(&p, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "M_Key") != NULL, "%s", err);
	/* A variable naming stdin (or garbage) is refused, never read. */
	setenv(WALKER_MKEY_ENV, "0", 1);
	ck_assert_int_eq(walker_child_mkey(&p, err, sizeof(err)), -EINVAL);
	setenv(WALKER_MKEY_ENV, "x", 1);
	ck_assert_int_eq(walker_child_mkey(&p, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(getenv(WALKER_MKEY_ENV));
	/* Started by hand: no variable, no key. */
	p.m_key = 7;
	ck_assert_int_eq(walker_child_mkey(&p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.m_key, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("walker");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_child_that_exits_0_gives_its_whole_answer);
	tcase_add_test(tc, a_child_that_exits_1_gives_its_one_line_error);
	tcase_add_test(tc, a_child_killed_by_a_signal_is_named_so);
	tcase_add_test(tc, a_hung_child_is_killed_when_its_time_is_up);
	tcase_add_test(tc, a_fabric_handed_to_the_child_arrives_whole_on_its_stdin);
	tcase_add_test(tc, stop_all_kills_a_hung_child_and_starts_no_more);
	tcase_add_test(tc, the_m_key_reaches_the_child_on_its_fd_and_nowhere_else);
	tcase_add_test(tc, the_child_reads_the_m_key_loomd_hands_it);
	suite_add_tcase(s, tc);
	return check_run(s);
}
