/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_ctl_limits.c: the control socket's bounds
 * (daemon/core/ctl_limits.h), in test_ctl's program, with shortened limits:
 * a client that never reads, a stalled one that reads again, idle
 * connections, a large answer built slower than the stall timeout, the
 * connection caps with their reserve for root and the admin group, and the
 * fabric reads of role read, one per uid per control.read_rate_s (the
 * decision alone, then on the socket as nobody, root and an admin). */
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

#include <event2/event.h>

#include "daemon/core/ctl.h"
#include "daemon/core/ctl_limits.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "tests/unit/fixtures/fixture_ctl.h"

/* ---- bounds (ctl_limits.h) ------------------------------------------------------------ */

static void set_limits(size_t max_output, unsigned stall_s, unsigned idle_s, unsigned max_clients,
		       unsigned per_uid, unsigned reserve)
{
	struct ctl_limits l;
	char err[256] = "";

	ctl_limits_default(&l);
	l.max_output = max_output;
	l.stall_timeout_s = stall_s;
	l.idle_timeout_s = idle_s;
	l.max_clients = max_clients;
	l.max_per_uid = per_uid;
	l.reserve = reserve;
	ck_assert_msg(ctl_set_limits(ctl, &l, err, sizeof(err)) == 0, "ctl_set_limits: %s", err);
}

static unsigned n_clients(void)
{
	struct ctl_usage u;

	ctl_usage(ctl, &u);
	return u.clients;
}

/* Turn the loop until the server counts n clients (1) or `ms` passed (0):
 * a client that left is counted until the loop has seen its end. */
static int pump_until_clients(unsigned n, int ms)
{
	for (int i = 0; i < ms && n_clients() != n; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
	return n_clients() == n;
}

/* One framed "echo" request whose answer is about `pad` bytes long. */
static char *echo_frame(size_t pad, json_int_t id, size_t *len)
{
	char *text = malloc(pad + 1), *buf = NULL;
	json_t *req;

	ck_assert_ptr_nonnull(text);
	memset(text, 'x', pad);
	text[pad] = '\0';
	req = proto_request_new("echo", json_pack("{s:s}", "pad", text), id);
	ck_assert_int_eq(proto_frame_new(req, PROTO_MAX_REQUEST, &buf, len), 0);
	json_decref(req);
	free(text);
	return buf;
}

/* A client writing copies of one frame without blocking. */
struct sender {
	int fd;
	const char *frame;
	size_t len, off;
	unsigned sent;
};

/* Send until s->sent reaches n or nothing moved for `patience` rounds of
 * the loop (~1 ms each), turning the loop while the socket is full. The
 * most the server queued for one client meanwhile goes to *peak. */
static void send_some(struct sender *s, unsigned n, int patience, size_t *peak)
{
	struct ctl_usage u;
	int still = 0;

	while (s->sent < n && still < patience) {
		ssize_t w = send(s->fd, s->frame + s->off, s->len - s->off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w > 0) {
			still = 0;
			if ((s->off += (size_t)w) == s->len) {
				s->off = 0;
				s->sent++;
			}
			continue;
		}
		ck_assert_msg(errno == EAGAIN || errno == EWOULDBLOCK, "send: %s", strerror(errno));
		event_base_loop(base, EVLOOP_NONBLOCK);
		ctl_usage(ctl, &u);
		if (u.queued_max > *peak)
			*peak = u.queued_max;
		/* the server runs in the loop turned above, not while we
		 * sleep: sleep only to let `patience` measure time */
		if (++still < patience)
			usleep(1000);
	}
}

START_TEST(a_client_that_never_reads_is_bounded_then_dropped)
{
	const size_t mark = 64 * 1024;
	struct sender snd = { .fd = connect_to(sock_path) };
	char *frame = echo_frame(1000, 1, &snd.len);
	size_t peak = 0;
	char buf[65536];
	ssize_t r;

	snd.frame = frame;
	/* A stall timeout far longer than sending takes, however slow the
	 * machine (longer than the test's own timeout): the bound is checked
	 * on a client that is still there (with 1 s, 500 rounds of the loop
	 * under load outlasted it and the client was gone before the checks:
	 * "send: Broken pipe"). */
	set_limits(mark, 600, 300, 64, 16, 8);
	send_some(&snd, 10000, 500, &peak);
	/* Unbounded, all 10000 are read and ~10 MB of answers queued. */
	ck_assert_msg(peak <= mark + 2 * snd.len, "%zu bytes queued for a client that does not "
		      "read (mark %zu, one answer ~%zu)", peak, mark, snd.len);
	ck_assert_msg(snd.sent < 10000, "every request was taken from a client that does not read");
	ck_assert_uint_eq(n_clients(), 1);
	/* Still not reading after the stall timeout (now 1 s, from now):
	 * dropped. */
	set_limits(mark, 1, 300, 64, 16, 8);
	ck_assert_msg(pump_until_clients(0, 10000), "a client that does not read is still "
		      "connected 10 s after a 1 s stall timeout");
	while ((r = read(snd.fd, buf, sizeof(buf))) > 0)
		;
	ck_assert(r == 0 || errno == ECONNRESET);
	close(snd.fd);
	free(frame);
}
END_TEST

START_TEST(a_stalled_client_that_reads_again_is_served_in_order)
{
	const unsigned n = 300;
	struct sender snd = { .fd = connect_to(sock_path) };
	char *frame = echo_frame(4000, 7, &snd.len);
	size_t peak = 0;

	snd.frame = frame;
	set_limits(64 * 1024, 30, 300, 64, 16, 8);
	/* 300 answers of ~4 kB: well above the mark and the socket buffers */
	send_some(&snd, n, 500, &peak);
	ck_assert_uint_lt(snd.sent, n);
	ck_assert_uint_le(peak, 64 * 1024 + 2 * snd.len);
	for (unsigned got = 0; got < n; got++) {
		json_t *resp;

		send_some(&snd, n, 1, &peak);  /* the rest, as room comes */
		ck_assert_msg(pump_until_readable(snd.fd, 5000), "answer %u of %u never came", got,
			      n);
		ck_assert_int_eq(proto_recv_fd(snd.fd, PROTO_MAX_RESPONSE, &resp), 0);
		ck_assert_msg(json_is_true(json_object_get(resp, "ok")), "answer %u: %s", got,
			      err_message(resp));
		json_decref(resp);
	}
	ck_assert_uint_eq(snd.sent, n);
	ck_assert_uint_eq(n_clients(), 1);
	close(snd.fd);
	free(frame);
}
END_TEST

START_TEST(an_idle_connection_is_closed_but_one_awaiting_an_answer_is_not)
{
	int idle = connect_to(sock_path), waiting;
	json_t *resp = NULL;

	set_limits(CTL_MAX_OUTPUT_DEFAULT, 30, 1, 64, 16, 8);
	waiting = connect_to(sock_path);
	send_req(waiting, "later", NULL, 3);
	pump(1600);
	ck_assert_ptr_nonnull(saved);
	ck_assert_int_eq(proto_recv_fd(idle, PROTO_MAX_RESPONSE, &resp), -ECONNRESET);
	ck_assert_uint_eq(n_clients(), 1);
	ctl_reply_ok(saved, json_string("late"));
	saved = NULL;
	resp = recv_resp(waiting);
	ck_assert(json_is_true(json_object_get(resp, "ok")));
	json_decref(resp);
	close(idle);
	close(waiting);
}
END_TEST

/* An answer far above the mark that took longer than the stall timeout to
 * build: the stall timeout counts from when it is queued, so a client that
 * reads it at once gets all of it. (It counted from the start of the
 * loop's turn: such an answer was dropped as soon as it was queued, which
 * is what `loomctl counters` met on a 70k-port fabric.) */
START_TEST(a_large_answer_built_slower_than_the_stall_timeout_is_sent_whole)
{
	const size_t pad = 1024 * 1024;
	int fd = connect_to(sock_path);
	size_t cap = pad + 4096, have = 0;
	char *buf = malloc(cap);
	json_t *resp = NULL;
	ssize_t r = 1;

	ck_assert_ptr_nonnull(buf);
	/* stall 2 s, the answer built in 3 s: on the old code the timer had
	 * expired before the first byte went out */
	set_limits(64 * 1024, 2, 300, 64, 16, 8);
	send_req(fd, "slow_big", json_pack("{s:I, s:i}", "pad", (json_int_t)pad, "ms", 3000), 1);
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	/* The client reads here, between turns of the loop, with no sleep:
	 * the transfer needs this process alone to run for a few ms, not two
	 * processes to be scheduled in turn on a loaded machine. */
	for (time_t end = time(NULL) + 30; r != 0 && time(NULL) < end;) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		while (have < cap && (r = read(fd, buf + have, cap - have)) > 0)
			have += (size_t)r;
		ck_assert_msg(r >= 0 || errno == EAGAIN, "read: %s", strerror(errno));
		if (proto_frame_decode(buf, have, PROTO_MAX_RESPONSE, &resp, NULL, 0) > 0)
			break;
	}
	ck_assert_msg(resp != NULL, "%zu bytes of the answer came, then %s", have,
		      r == 0 ? "the connection closed" : "nothing for 30 s");
	ck_assert_uint_eq(json_string_length(json_object_get(json_object_get(resp, "result"),
							     "pad")), pad);
	json_decref(resp);
	free(buf);
	close(fd);
}
END_TEST

struct holder {
	pid_t pid;
};

/* The child's side of hold_as: n connections, one "echo" on each, kept
 * open until it is killed. Writes one letter per connection to out:
 * o answered, u refused for its uid's cap, b refused otherwise, x other. */
static void child_hold(uid_t uid, gid_t gid, unsigned n, int out)
{
	char c;

	if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		_exit(10);
	for (unsigned i = 0; i < n; i++) {
		int fd = connect_to(sock_path);
		json_t *resp = fd < 0 ? NULL : child_call(fd, "echo", 1);

		c = !resp ? 'x' : json_is_true(json_object_get(resp, "ok")) ? 'o' :
		    strcmp(err_code(resp), PROTO_ERR_BUSY) ? 'x' :
		    strstr(err_message(resp), "max_clients_per_uid") ? 'u' : 'b';
		json_decref(resp);
		if (write(out, &c, 1) != 1)
			_exit(11);
	}
	close(out);
	for (;;)
		pause();
}

/* The n letters a child (uid) writes on fd, one per answer, into got (a
 * string), turning the loop meanwhile; fd closed. */
static void child_letters(int fd, uid_t uid, unsigned n, char *got)
{
	size_t have = 0;

	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	for (int i = 0; i < 10000 && have < n; i++) {
		ssize_t r = read(fd, got + have, n - have);

		if (r > 0)
			have += (size_t)r;
		else
			ck_assert_msg(r < 0 && errno == EAGAIN, "uid %d's child died", (int)uid);
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
	got[have] = '\0';
	close(fd);
}

/* In a child as uid/gid, open n connections and keep them; what each got
 * (see child_hold), turning the loop meanwhile. */
static void hold_as(uid_t uid, gid_t gid, unsigned n, struct holder *h, char *got)
{
	int out[2];

	ck_assert_int_eq(pipe(out), 0);
	h->pid = fork();
	ck_assert_int_ge(h->pid, 0);
	if (h->pid == 0) {
		close(out[0]);
		child_hold(uid, gid, n, out[1]);
	}
	close(out[1]);
	child_letters(out[0], uid, n, got);
}

static void release(struct holder *h)
{
	int status;

	kill(h->pid, SIGKILL);
	ck_assert_int_eq(waitpid(h->pid, &status, 0), h->pid);
}

/* root's own connection: answered (1) or refused (0) */
static int root_gets_in(int *fd)
{
	json_t *resp;
	int ok;

	*fd = connect_to(sock_path);
	resp = call(*fd, "echo", NULL, 1);
	ok = json_is_true(json_object_get(resp, "ok"));
	json_decref(resp);
	return ok;
}

START_TEST(connections_are_capped_per_uid_and_in_total_with_room_kept_for_root_and_admins)
{
	struct holder nobody, other, admin;
	struct group *g;
	char got[16];
	int r1, r2, r3;

	if (geteuid() != 0 || (g = getgrgid(NOBODY)) == NULL) {
		printf("skipped: other uids need root and nobody's group\n");
		return;
	}
	/* 6 at once, 3 per uid, the last 2 for root and the admin group */
	set_limits(CTL_MAX_OUTPUT_DEFAULT, 30, 300, 6, 3, 2);
	hold_as(NOBODY, NOBODY, 4, &nobody, got);
	ck_assert_str_eq(got, "ooou");
	hold_as(NOBODY - 1, NOBODY - 1, 2, &other, got);
	ck_assert_str_eq(got, "ob");      /* 4 taken: the rest is the reserve */
	ck_assert_uint_eq(n_clients(), 4);
	/* nobody's group administers: its member gets the reserve, once its
	 * groups are known, but never the last place */
	ck_assert_int_eq(ctl_set_admin_group(ctl, g->gr_name), 0);
	hold_as(NOBODY - 2, NOBODY, 2, &admin, got);
	ck_assert_str_eq(got, "ob");
	/* the last place is root's */
	ck_assert(root_gets_in(&r1));
	ck_assert_uint_eq(n_clients(), 6);
	ck_assert(!root_gets_in(&r2));    /* everything is taken now */
	close(r2);
	release(&nobody);
	/* its 3 connections are closed once waitpid returns, but counted
	 * until the loop has read their ends */
	ck_assert_msg(pump_until_clients(3, 10000), "%u clients after nobody left, not 3",
		      n_clients());
	ck_assert(root_gets_in(&r3));
	close(r1);
	close(r3);
	release(&other);
	release(&admin);
}
END_TEST

/* The order that made the test above flaky, forced: the server refuses
 * the connection (answer, close) before the client writes its request.
 * The client's write then fails (EPIPE); the refusal must still be what
 * it reads, as when it wrote first. */
START_TEST(a_connection_refused_before_its_request_is_written_still_hears_why)
{
	int r1, r2, late = -1;
	json_t *req, *resp = NULL;
	int sent = -1;

	set_limits(CTL_MAX_OUTPUT_DEFAULT, 30, 300, 2, 1, 1);
	ck_assert(root_gets_in(&r1));
	ck_assert(root_gets_in(&r2));      /* root may take the last place */
	ck_assert_uint_eq(n_clients(), 2);
	late = connect_to(sock_path);
	ck_assert_int_ge(late, 0);
	/* refused and closed by the server: the answer is waiting */
	ck_assert_msg(pump_until_readable(late, 5000), "the refusal never came");
	req = proto_request_new("echo", NULL, 5);
	ck_assert_int_eq(proto_call_fd(late, req, PROTO_MAX_REQUEST, PROTO_MAX_RESPONSE, &resp,
				       &sent), 0);
	ck_assert_int_eq(sent, 0);         /* the order above really happened */
	ck_assert_str_eq(err_code(resp), PROTO_ERR_BUSY);
	ck_assert_ptr_nonnull(strstr(err_message(resp), "control.max_clients"));
	ck_assert_uint_eq(n_clients(), 2);
	json_decref(resp);
	json_decref(req);
	close(late);
	close(r1);
	close(r2);
}
END_TEST

/* ---- fabric reads of role read (ctl_limits_spends, ctl_limits_rate_take) ------------ */

START_TEST(what_spends_mads_is_one_rule)
{
	json_t *none = json_object(), *now = json_pack("{s:b}", "now", 1);
	json_t *cached = json_pack("{s:b}", "cached", 1), *not_now = json_pack("{s:b}", "now", 0);

	ck_assert_int_eq(ctl_limits_spends("ar-status", none), 1);
	ck_assert_int_eq(ctl_limits_spends("ar-status", cached), 0);
	ck_assert_int_eq(ctl_limits_spends("route-trace", none), 1);
	ck_assert_int_eq(ctl_limits_spends("route-trace", cached), 0);
	ck_assert_int_eq(ctl_limits_spends("counters", none), 0);
	ck_assert_int_eq(ctl_limits_spends("counters", not_now), 0);
	ck_assert_int_eq(ctl_limits_spends("counters", now), 1);
	ck_assert_int_eq(ctl_limits_spends("switch_counters", now), 1);
	ck_assert_int_eq(ctl_limits_spends("qos-status", none), 1);
	ck_assert_int_eq(ctl_limits_spends("qos-ib-status", none), 1);
	ck_assert_int_eq(ctl_limits_spends("qos-ib-cc-status", none), 1);
	ck_assert_int_eq(ctl_limits_spends("tenant-verify", none), 1);
	ck_assert_int_eq(ctl_limits_spends("nodes", none), 0);
	ck_assert_int_eq(ctl_limits_spends("health", now), 0);
	json_decref(none);
	json_decref(now);
	json_decref(cached);
	json_decref(not_now);
}
END_TEST

START_TEST(one_fabric_read_per_uid_per_interval)
{
	static struct ctl_rate r;

	memset(&r, 0, sizeof(r));
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 100.0, 10), 0);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 101.0, 10), 9);
	/* refused: not counted, the wait does not grow */
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 101.5, 10), 9);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 109.5, 10), 1);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1001, 101.0, 10), 0);  /* another uid */
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 110.0, 10), 0);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 110.1, 10), 10);
	/* 0: no limit */
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 1000, 110.2, 0), 0);
	/* more uids than slots: the longest unused one is forgotten */
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < CTL_RATE_SLOTS; i++)
		ck_assert_uint_eq(ctl_limits_rate_take(&r, 2000 + i, 200.0 + i, 100), 0);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 5000, 200.0 + CTL_RATE_SLOTS, 100), 0);
	ck_assert_uint_eq(ctl_limits_rate_take(&r, 2000, 200.0 + CTL_RATE_SLOTS, 100), 0);
	ck_assert_uint_gt(ctl_limits_rate_take(&r, 2000 + CTL_RATE_SLOTS - 1,
					       200.0 + CTL_RATE_SLOTS, 100), 0);
	/* the REST API's interval for role read (api_rate.h) */
	ck_assert_uint_eq(CTL_READ_RATE_S_DEFAULT, 10);
}
END_TEST

static void h_fabric_read(struct ctl_req *req, json_t *args, void *arg)
{
	ctl_reply_ok(req, json_true());
}

/* The child's side of reads_as: n "qos-status" (a fabric read) on one
 * connection; one letter each to out: o answered, r refused as too soon
 * (busy, saying when to try again), x other. */
static void child_reads(uid_t uid, gid_t gid, unsigned n, int out)
{
	int fd;

	if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0 ||
	    (fd = connect_to(sock_path)) < 0)
		_exit(10);
	for (unsigned i = 0; i < n; i++) {
		json_t *resp = child_call(fd, "qos-status", 1 + (json_int_t)i);
		char c = !resp ? 'x' : json_is_true(json_object_get(resp, "ok")) ? 'o' :
			 !strcmp(err_code(resp), PROTO_ERR_BUSY) &&
			 strstr(err_message(resp), "try again in ") &&
			 strstr(err_message(resp), "control.read_rate_s") ? 'r' : 'x';

		if (c == 'x' && resp)
			fprintf(stderr, "uid %d: %s: %s\n", (int)uid, err_code(resp),
				err_message(resp));
		json_decref(resp);
		if (write(out, &c, 1) != 1)
			_exit(11);
	}
	_exit(0);
}

/* What a child as uid/gid got for n fabric reads, the loop turned meanwhile. */
static void reads_as(uid_t uid, gid_t gid, unsigned n, char *got)
{
	int out[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(out), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(out[0]);
		child_reads(uid, gid, n, out[1]);
	}
	close(out[1]);
	child_letters(out[0], uid, n, got);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

START_TEST(fabric_reads_of_role_read_are_rate_limited_per_uid_but_never_roots)
{
	struct group *g;
	char got[8];
	int fd;

	if (geteuid() != 0) {
		printf("skipped: switching to nobody needs root\n");
		return;
	}
	ck_assert_int_eq(ctl_handle(ctl, "qos-status", h_fabric_read, NULL), 0);
	reads_as(NOBODY, NOBODY, 3, got);
	ck_assert_str_eq(got, "orr");
	/* root, right after, as often as it likes */
	fd = connect_to(sock_path);
	for (int i = 0; i < 5; i++) {
		json_t *resp = call(fd, "qos-status", NULL, 1 + i);

		ck_assert_msg(json_is_true(json_object_get(resp, "ok")), "root's read %d: %s", i,
			      err_message(resp));
		json_decref(resp);
	}
	close(fd);
	/* nobody in the admin group: its own budget is none */
	if ((g = getgrgid(NOBODY)) != NULL) {
		ck_assert_int_eq(ctl_set_admin_group(ctl, g->gr_name), 0);
		reads_as(NOBODY, NOBODY, 3, got);
		ck_assert_str_eq(got, "ooo");
		ck_assert_int_eq(ctl_set_admin_group(ctl, ""), 0);
	}
	/* control.read_rate_s 0: no limit */
	{
		struct ctl_limits l;
		char err[256];

		ctl_limits_default(&l);
		l.read_rate_s = 0;
		ck_assert_int_eq(ctl_set_limits(ctl, &l, err, sizeof(err)), 0);
		reads_as(NOBODY, NOBODY, 2, got);
		ck_assert_str_eq(got, "oo");
	}
}
END_TEST

void ctl_limits_add_tests(TCase *tc)
{
	tcase_add_test(tc, what_spends_mads_is_one_rule);
	tcase_add_test(tc, one_fabric_read_per_uid_per_interval);
	tcase_add_test(tc, fabric_reads_of_role_read_are_rate_limited_per_uid_but_never_roots);
	tcase_add_test(tc, a_client_that_never_reads_is_bounded_then_dropped);
	tcase_add_test(tc, a_stalled_client_that_reads_again_is_served_in_order);
	tcase_add_test(tc, an_idle_connection_is_closed_but_one_awaiting_an_answer_is_not);
	tcase_add_test(tc, a_large_answer_built_slower_than_the_stall_timeout_is_sent_whole);
	tcase_add_test(tc, connections_are_capped_per_uid_and_in_total_with_room_kept_for_root_and_admins);
	tcase_add_test(tc, a_connection_refused_before_its_request_is_written_still_hears_why);
}
