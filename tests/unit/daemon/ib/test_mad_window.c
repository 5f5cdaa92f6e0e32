/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_mad_window.c: what the windowed MAD readers take as an
 * answer (daemon/ib/mad_window.c, mad_window_is_get_resp). libibmad's
 * IB_MAD_METHOD_F is the 7-bit method, so a GetResp (0x81) reads as Get
 * with the response bit: the AR probe and programmer compared the method
 * with 0x81 and so ignored every real answer (ibsim never answers ARInfo,
 * so no test saw it; its PMA answers showed it). And the M_Key: every SMP
 * the window sends carries mad_window_params.mkey (a port whose M_Key is
 * protected answers nothing else), a PerfMgt MAD is left as built. And the
 * order (mad_window_spread): a list of one switch's ports after another's is
 * asked round robin over the switches, every entry once. And the quick
 * retries (mad_window_params.rtt): a lost Get is asked again after the
 * round trips seen, its last try after the whole timeout. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_build.h"
#include "daemon/ib/mad_window.h"
#include "lib/ar/ar_mad.h"
#include "tests/unit/fixtures/check_run.h"

/* A MAD header: class, method byte as on the wire (0x81: GetResp), attr. */
static void mad(uint8_t *buf, unsigned cls, unsigned method_byte, unsigned attr)
{
	memset(buf, 0, IB_MAD_SIZE);
	buf[0] = 1;                 /* BaseVersion */
	buf[1] = (uint8_t)cls;      /* MgmtClass */
	buf[2] = 1;                 /* ClassVersion */
	buf[3] = (uint8_t)method_byte;
	buf[16] = (uint8_t)(attr >> 8);
	buf[17] = (uint8_t)attr;
}

START_TEST(a_getresp_on_the_wire_is_an_answer)
{
	uint8_t b[IB_MAD_SIZE];

	mad(b, IB_SMI_DIRECT_CLASS, 0x81, AR_MAD_ATTR_INFO);
	ck_assert(mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_PERFORMANCE_CLASS, 0x81, IB_GSI_PORT_COUNTERS);
	ck_assert(mad_window_is_get_resp(b, IB_PERFORMANCE_CLASS, IB_GSI_PORT_COUNTERS));
}
END_TEST

START_TEST(a_get_another_class_or_another_attribute_is_not)
{
	uint8_t b[IB_MAD_SIZE];

	mad(b, IB_SMI_DIRECT_CLASS, 0x01, AR_MAD_ATTR_INFO);  /* the request itself */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_SMI_DIRECT_CLASS, 0x82, AR_MAD_ATTR_INFO);  /* not a Get's response */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_SMI_CLASS, 0x81, AR_MAD_ATTR_INFO);         /* LID-routed, not ours */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_PERFORMANCE_CLASS, 0x81, IB_GSI_PORT_COUNTERS_EXT);
	ck_assert(!mad_window_is_get_resp(b, IB_PERFORMANCE_CLASS, IB_GSI_PORT_COUNTERS));
}
END_TEST

/* An io that keeps what was sent and answers each MAD with its GetResp. */
struct echo {
	uint8_t sent[4][IB_MAD_SIZE];
	size_t n_sent;
	uint8_t queued[sizeof(struct ib_user_mad) + IB_MAD_SIZE + 64];
	int has;
};

static int echo_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct echo *e = ctx;

	(void)len;
	(void)timeout_ms;
	if (e->n_sent < 4)
		memcpy(e->sent[e->n_sent++], umad_get_mad(umad), IB_MAD_SIZE);
	memcpy(e->queued, umad, (size_t)umad_size() + IB_MAD_SIZE);
	((uint8_t *)umad_get_mad(e->queued))[3] = 0x81;  /* GetResp */
	e->has = 1;
	return 0;
}

static int echo_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct echo *e = ctx;

	(void)timeout_ms;
	if (!e->has)
		return -ETIMEDOUT;
	memcpy(umad, e->queued, (size_t)umad_size() + IB_MAD_SIZE);
	*len = IB_MAD_SIZE;
	e->has = 0;
	return 0;
}

static const ib_dr_path_t path = { .cnt = 1, .p = { 0, 1 } };
static int build_class;  /* what build_one builds */

static int build_one(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct madb_req r = { .mgmt_class = build_class, .method = IB_MAD_METHOD_GET,
				    .attr = build_class == IB_PERFORMANCE_CLASS ?
					    IB_GSI_PORT_COUNTERS : IB_ATTR_NODE_INFO,
				    .tid = tid, .path = &path, .lid = 7 };

	(void)ctx;
	(void)i;
	(void)err;
	(void)errlen;
	return madb_build(buf, blen, &r);
}

static int take_any(void *ctx, size_t i, uint8_t *mad)
{
	(void)ctx;
	(void)i;
	(void)mad;
	return 1;
}

static void run_one(struct echo *e, int cls, uint64_t mkey)
{
	struct mad_window_io io = { .send = echo_send, .recv = echo_recv, .ctx = e };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = 100,
					.max_flight = 1, .io = &io, .mkey = mkey };
	struct mad_window_req req[1];
	char err[256];

	memset(e, 0, sizeof(*e));
	build_class = cls;
	ck_assert_int_eq(mad_window_run(&wp, 1, req, build_one, take_any, NULL, NULL, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(e->n_sent, 1);
}

START_TEST(every_smp_the_window_sends_carries_its_m_key)
{
	static const uint8_t key[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	static const uint8_t none[8] = { 0 };
	struct echo e;

	run_one(&e, IB_SMI_DIRECT_CLASS, 0x1122334455667788ULL);
	ck_assert_mem_eq(e.sent[0] + 24, key, 8);  /* the SMP header's M_Key, big endian */
	ck_assert_uint_eq(mad_get_field64(e.sent[0], 0, IB_MAD_MKEY_F), 0x1122334455667788ULL);
	run_one(&e, IB_SMI_DIRECT_CLASS, 0);
	ck_assert_mem_eq(e.sent[0] + 24, none, 8);
	/* A PerfMgt MAD has no M_Key: its bytes stay as built. */
	run_one(&e, IB_PERFORMANCE_CLASS, 0x1122334455667788ULL);
	ck_assert_mem_eq(e.sent[0] + 24, none, 8);
}
END_TEST

START_TEST(set_mkey_touches_smps_only)
{
	uint8_t b[IB_MAD_SIZE];

	mad(b, IB_SMI_CLASS, 0x01, IB_ATTR_PORT_INFO);
	madb_set_mkey(b, 0xfeedULL);
	ck_assert_uint_eq(mad_get_field64(b, 0, IB_MAD_MKEY_F), 0xfeedULL);
	mad(b, IB_SMI_DIRECT_CLASS, 0x02, IB_ATTR_PORT_INFO);
	madb_set_mkey(b, 0xfeedULL);
	ck_assert_uint_eq(mad_get_field64(b, 0, IB_MAD_MKEY_F), 0xfeedULL);
	mad(b, IB_SA_CLASS, 0x01, 0x31);  /* there bytes 24..31 are the SM_Key */
	madb_set_mkey(b, 0xfeedULL);
	ck_assert_uint_eq(mad_get_field64(b, 0, IB_MAD_MKEY_F), 0);
}
END_TEST

/* An io that loses the first `lose` tries and answers the others (a GetResp
 * at once), and keeps the longest wait the window asked for each try. */
struct lossy {
	struct echo e;
	unsigned lose, sends;
	int wait[8];             /* wait[k]: the longest umad_recv timeout while try k+1 was out */
};

static int lossy_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct lossy *l = ctx;

	if (l->sends++ < l->lose)
		return 0;
	return echo_send(&l->e, umad, len, timeout_ms);
}

static int lossy_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct lossy *l = ctx;

	if (l->sends && l->sends <= 8 && timeout_ms > l->wait[l->sends - 1])
		l->wait[l->sends - 1] = timeout_ms;
	return echo_recv(&l->e, umad, len, timeout_ms);
}

/* Run one Get with tries lost, timeout 100 ms, 1 retry; rtt NULL or not. */
static int run_lossy(struct lossy *l, unsigned lose, struct mad_window_rtt *rtt)
{
	struct mad_window_io io = { .send = lossy_send, .recv = lossy_recv, .ctx = l };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = 100, .retries = 1,
					.max_flight = 1, .io = &io, .rtt = rtt };
	struct mad_window_req req[1];
	char err[256];

	memset(l, 0, sizeof(*l));
	l->lose = lose;
	build_class = IB_PERFORMANCE_CLASS;
	ck_assert_int_eq(mad_window_run(&wp, 1, req, build_one, take_any, NULL, NULL, err,
					sizeof(err)), 0);
	return req[0].answered;
}

/* Issue 44: with the round trips known (a few ms), a lost Get is asked again
 * after MAD_WINDOW_QUICK_MIN_MS, not after the whole timeout; without them
 * (rtt NULL: a clear, or a caller that did not ask) it waits the timeout. */
START_TEST(a_lost_get_is_asked_again_after_the_round_trips_seen)
{
	struct mad_window_rtt rtt = { .srtt = 0.001, .rttvar = 0.0002, .known = 1 };
	struct lossy l;

	ck_assert(run_lossy(&l, 1, &rtt));
	ck_assert_uint_eq(l.sends, 2);
	ck_assert_int_le(l.wait[0], MAD_WINDOW_QUICK_MIN_MS + 1);
	ck_assert(run_lossy(&l, 1, NULL));
	ck_assert_uint_eq(l.sends, 2);
	ck_assert_int_gt(l.wait[0], 50);
}
END_TEST

/* The last try waits the whole timeout (a slow target still gets its
 * time), and a round trip unknown yet is not guessed: the timeout. The
 * answers teach the round trip. */
START_TEST(the_last_try_and_an_unknown_round_trip_wait_the_timeout)
{
	struct mad_window_rtt rtt = { .srtt = 0.001, .rttvar = 0.0002, .known = 1 };
	struct mad_window_rtt none = { 0 };
	struct lossy l;

	ck_assert(!run_lossy(&l, 2, &rtt));
	ck_assert_uint_eq(l.sends, 2);
	ck_assert_int_le(l.wait[0], MAD_WINDOW_QUICK_MIN_MS + 1);
	ck_assert_int_gt(l.wait[1], 50);
	ck_assert(run_lossy(&l, 1, &none));
	ck_assert_int_gt(l.wait[0], 50);
	ck_assert(none.known);  /* the answer to the second try timed one */
	ck_assert(none.srtt < 0.05);
}
END_TEST

/* An io that first hands out a stale answer (a MAD of a run before), then
 * answers what is sent. */
struct replay {
	struct echo e;
	uint8_t stale[sizeof(struct ib_user_mad) + IB_MAD_SIZE + 64];
	int pending;
};

static int replay_send(void *ctx, void *umad, int len, int timeout_ms)
{
	return echo_send(&((struct replay *)ctx)->e, umad, len, timeout_ms);
}

static int replay_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct replay *p = ctx;

	if (p->pending) {
		p->pending = 0;
		memcpy(umad, p->stale, (size_t)umad_size() + IB_MAD_SIZE);
		*len = IB_MAD_SIZE;
		return 0;
	}
	return echo_recv(&p->e, umad, len, timeout_ms);
}

static uint8_t taken_mark;  /* the last byte of the MAD taken as the answer */

static int take_mark(void *ctx, size_t i, uint8_t *mad)
{
	(void)ctx;
	(void)i;
	taken_mark = mad[IB_MAD_SIZE - 1];
	return 1;
}

/* A reader's runs ask the same attribute one after another (the switches'
 * sums, then their ports' PortCounters), and with quick retries an answer
 * to a run's second try may come after that run ended: it must not pass
 * for the next run's answer (it would be a sum taken for a port's
 * counters). */
START_TEST(a_late_answer_of_a_run_before_is_not_taken_by_the_next)
{
	struct lossy l;
	struct replay p;
	struct mad_window_io io = { .send = replay_send, .recv = replay_recv, .ctx = &p };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = 100, .retries = 1,
					.max_flight = 1, .io = &io };
	struct mad_window_req req[1];
	char err[256];

	ck_assert(run_lossy(&l, 1, NULL));   /* its second try answered */
	memset(&p, 0, sizeof(p));
	memcpy(umad_get_mad(p.stale), l.e.sent[0], IB_MAD_SIZE);
	((uint8_t *)umad_get_mad(p.stale))[3] = 0x81;  /* that try's GetResp, again */
	((uint8_t *)umad_get_mad(p.stale))[IB_MAD_SIZE - 1] = 0xa5;  /* its data: not ours */
	p.pending = 1;
	ck_assert_int_eq(mad_window_run(&wp, 1, req, build_one, take_mark, NULL, NULL, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(p.e.n_sent, 1);
	ck_assert_uint_eq(taken_mark, 0);  /* the answer to this run's Get, not the stale one */
}
END_TEST

/* A source that grows while the run goes on (the walk's queue, walk_queue.c,
 * has this shape): requests to targets, at most one out to a target, the
 * urgent ones before the others; an answer may add an urgent request. An
 * io answers the oldest MAD out, one a receive, and keeps what was on the
 * wire: how many were out to each target at once, and the send order. The
 * attribute modifier names the request (target * 100 + k). */
#define SRC_MAX 32
struct grow {
	unsigned target[SRC_MAX], urgent[SRC_MAX], state[SRC_MAX];  /* 0 waiting, 1 out, 2 done */
	size_t n;
	unsigned out[8];             /* the source's count */
	unsigned answers;
	/* the wire */
	uint8_t wire[SRC_MAX * 2][sizeof(struct ib_user_mad) + IB_MAD_SIZE + 64];
	int wire_done[SRC_MAX * 2];
	size_t n_wire;
	unsigned on_wire[8], max_on_wire[8], wire_peak, order[SRC_MAX * 2];
};

static void grow_add(struct grow *g, unsigned target, unsigned urgent)
{
	ck_assert_uint_lt(g->n, SRC_MAX);
	g->target[g->n] = target;
	g->urgent[g->n++] = urgent;
}

static size_t grow_pick(void *ctx)
{
	struct grow *g = ctx;

	for (unsigned pass = 1; pass <= 2; pass++)
		for (size_t i = 0; i < g->n; i++)
			if (!g->state[i] && g->urgent[i] == (pass == 1) && !g->out[g->target[i]]) {
				g->state[i] = 1;
				g->out[g->target[i]]++;
				return i;
			}
	return MAD_WINDOW_NONE;
}

static int grow_build(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen,
		      char *err, size_t errlen)
{
	struct grow *g = ctx;
	const struct madb_req r = { .mgmt_class = IB_SMI_DIRECT_CLASS,
				    .method = IB_MAD_METHOD_GET, .attr = IB_ATTR_PORT_INFO,
				    .am = g->target[i] * 100 + (unsigned)i, .tid = tid,
				    .path = &path };

	(void)err;
	(void)errlen;
	return madb_build(buf, blen, &r);
}

static int grow_next(void *ctx, size_t i, int answered, char *err, size_t errlen)
{
	struct grow *g = ctx;

	(void)err;
	(void)errlen;
	ck_assert_uint_eq(g->state[i], 1);
	g->state[i] = 2;
	g->out[g->target[i]]--;
	if (answered && !g->answers++)
		grow_add(g, 3, 1);  /* the first answer finds work for target 3, urgent */
	return 0;
}

static int grow_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct grow *g = ctx;
	unsigned t = mad_get_field(umad_get_mad(umad), 0, IB_MAD_ATTRMOD_F) / 100, busy = 0;

	(void)len;
	(void)timeout_ms;
	ck_assert_uint_lt(g->n_wire, SRC_MAX * 2);
	memcpy(g->wire[g->n_wire], umad, (size_t)umad_size() + IB_MAD_SIZE);
	((uint8_t *)umad_get_mad(g->wire[g->n_wire]))[3] = 0x81;  /* its GetResp */
	g->order[g->n_wire++] = mad_get_field(umad_get_mad(umad), 0, IB_MAD_ATTRMOD_F);
	if (++g->on_wire[t] > g->max_on_wire[t])
		g->max_on_wire[t] = g->on_wire[t];
	for (unsigned k = 0; k < 8; k++)
		busy += g->on_wire[k];
	if (busy > g->wire_peak)
		g->wire_peak = busy;
	return 0;
}

static int grow_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct grow *g = ctx;

	(void)timeout_ms;
	for (size_t w = 0; w < g->n_wire; w++)
		if (!g->wire_done[w]) {
			g->wire_done[w] = 1;
			g->on_wire[g->order[w] / 100]--;
			memcpy(umad, g->wire[w], (size_t)umad_size() + IB_MAD_SIZE);
			*len = IB_MAD_SIZE;
			return 0;
		}
	return -ETIMEDOUT;
}

/* The engine asks the source whenever a slot is free, again after the
 * source had nothing that could go out (room comes back when a request
 * ends), and tells it each end before it asks again: what the source
 * allows is what goes on the wire. Here, with 4 slots and 3 targets: never
 * two out to one target, the urgent request added by the first answer
 * before the waiting ones, every request asked, more than the window holds
 * (the slots are reused: a TID names the slot). */
START_TEST(a_source_picks_what_goes_out_and_hears_what_ended)
{
	static struct grow g;
	struct mad_window_io io = { .send = grow_send, .recv = grow_recv, .ctx = &g };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = 100,
					.max_flight = 4, .io = &io };
	struct mad_window_source src = { .pick = grow_pick, .build = grow_build,
					 .answer = take_any, .next = grow_next, .ctx = &g };
	struct mad_window_stats st;
	char err[256];

	memset(&g, 0, sizeof(g));
	for (unsigned k = 0; k < 3; k++)   /* 1, 2, 1, 2, 1, 2 */
		for (unsigned t = 1; t <= 2; t++)
			grow_add(&g, t, 0);
	ck_assert_int_eq(mad_window_run_source(&wp, &src, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(g.n, 7);
	for (size_t i = 0; i < g.n; i++)
		ck_assert_uint_eq(g.state[i], 2);
	ck_assert_uint_eq(g.answers, 7);
	ck_assert_uint_eq(st.sent, 7);
	ck_assert_uint_eq(st.retries, 0);
	ck_assert_uint_eq(st.lost, 0);
	for (unsigned t = 1; t <= 3; t++)
		ck_assert_uint_eq(g.max_on_wire[t], 1);
	ck_assert_uint_eq(g.wire_peak, 3);  /* one to each target */
	ck_assert_uint_eq(st.peak, 3);
	/* target 1's first, target 2's first; the first answer (target 1's)
	 * adds the urgent one: it goes before target 1's second */
	ck_assert_uint_eq(g.order[0], 100);
	ck_assert_uint_eq(g.order[1], 201);
	ck_assert_uint_eq(g.order[2], 306);
	ck_assert_uint_eq(g.order[3], 102);
}
END_TEST

/* Entries are target indices; their target is targets[e] (a switch). */
static size_t target_of(const void *ctx, size_t e)
{
	return ((const size_t *)ctx)[e];
}

/* The counters reader's ports come a switch's after one another; the
 * window gets them one of each switch in turn, so that 64 MADs in flight
 * keep 64 switches' management processors busy, not one or two. */
START_TEST(spread_asks_the_ports_round_robin_over_switches)
{
	/* Switch 7: 3 ports, switch 2: 1 port (a CA), switch 9: 2 ports. */
	const size_t targets[] = { 7, 7, 7, 2, 9, 9 };
	size_t list[] = { 0, 1, 2, 3, 4, 5 };
	const size_t want[] = { 0, 3, 4, 1, 5, 2 };

	ck_assert_int_eq(mad_window_spread(list, 6, target_of, targets), 0);
	ck_assert_mem_eq(list, want, sizeof(want));
}
END_TEST

/* A list already one entry a target, or empty, stays as it was; a target
 * met again later starts its rounds again (still each MAD asked once). */
START_TEST(spread_keeps_single_entries_and_every_entry)
{
	const size_t targets[] = { 1, 2, 3, 1, 1, 4 };
	size_t one[] = { 2, 1, 0 };
	size_t list[] = { 0, 3, 4, 1, 2, 5 };   /* targets 1 1 1 2 3 4 */
	const size_t want[] = { 0, 1, 2, 5, 3, 4 };
	size_t again[] = { 0, 1, 3, 4 };        /* targets 1 2 1 1 */
	const size_t want_again[] = { 0, 1, 3, 4 };

	ck_assert_int_eq(mad_window_spread(one, 3, target_of, targets), 0);
	ck_assert_uint_eq(one[0], 2);
	ck_assert_uint_eq(one[1], 1);
	ck_assert_uint_eq(one[2], 0);
	ck_assert_int_eq(mad_window_spread(list, 0, target_of, targets), 0);
	ck_assert_int_eq(mad_window_spread(list, 6, target_of, targets), 0);
	ck_assert_mem_eq(list, want, sizeof(want));
	ck_assert_int_eq(mad_window_spread(again, 4, target_of, targets), 0);
	ck_assert_mem_eq(again, want_again, sizeof(want_again));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mad_window");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_getresp_on_the_wire_is_an_answer);
	tcase_add_test(tc, a_get_another_class_or_another_attribute_is_not);
	tcase_add_test(tc, every_smp_the_window_sends_carries_its_m_key);
	tcase_add_test(tc, set_mkey_touches_smps_only);
	tcase_add_test(tc, spread_asks_the_ports_round_robin_over_switches);
	tcase_add_test(tc, spread_keeps_single_entries_and_every_entry);
	tcase_add_test(tc, a_lost_get_is_asked_again_after_the_round_trips_seen);
	tcase_add_test(tc, the_last_try_and_an_unknown_round_trip_wait_the_timeout);
	tcase_add_test(tc, a_late_answer_of_a_run_before_is_not_taken_by_the_next);
	tcase_add_test(tc, a_source_picks_what_goes_out_and_hears_what_ended);
	suite_add_tcase(s, tc);
	return check_run(s);
}
