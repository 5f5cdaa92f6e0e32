/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ar/test_ar_sequences.c: many switches' AR programming sequences in
 * flight at once (daemon/ar/ar_sequences.c through daemon/ib/mad_window.c's
 * mad_window_run_seq), behind a fake umad port.
 *
 * The fake port (struct fake, the window's struct mad_window_io) reads each
 * directed-route SMP the window sends, finds its switch by the SMP's
 * initial path, applies it to that switch's in-memory model
 * (tests/unit/fixtures/fixture_arsw.h) and queues the GetResp; recv hands the
 * queued answers back in a scrambled order, so that the switches' answers
 * interleave out of the order they were sent in. It can also answer a try with the local port's
 * timeout status (what ibsim does with every vendor SMP), hold a switch's
 * timeout statuses until nothing else is queued, answer an SMP twice, or
 * never answer a switch at all.
 *
 * The reference for every switch is the same sequence run alone through
 * ar_program_switch on a fresh model: in the window each switch must send
 * the same SMPs in the same order, end with the same outcome and reason,
 * and leave its model holding the same blocks. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ar/ar_sequences.h"
#include "daemon/ib/mad_window.h"
#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_plan.h"
#include "lib/ar/ar_program.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_arsw.h"

#define MAX_SW 128
#define MAX_LOG 512
#define MAX_Q 4096

/* One SMP a switch took (first try that reached it), in its order. */
struct logged {
	int set;
	uint16_t attr;
	uint32_t am;
};

struct swlog {
	struct logged e[MAX_LOG];
	size_t n;
};

struct queued {
	uint8_t buf[sizeof(struct ib_user_mad) + IB_MAD_SIZE];
	size_t sw;
	int held;           /* a timeout status held back while anything else is queued */
};

struct fake {
	struct memsw *m;
	size_t n_sw;
	struct swlog *log;
	struct queued q[MAX_Q];
	size_t n_q;
	/* what to do */
	long silent;            /* this switch never answers (-1: none) */
	long held;              /* this switch's every try: a timeout status, held */
	unsigned drop_every;    /* every Nth SMP of a switch: its first try timed out */
	unsigned dup_every;     /* every Nth SMP of a switch: answered twice */
	/* what happened */
	uint64_t sends, recvs;
	uint64_t first_send[MAX_SW], last_send[MAX_SW];
	unsigned smps_of[MAX_SW];       /* distinct SMPs a switch took */
	unsigned drops_of[MAX_SW];      /* tries answered with a timeout status */
	int out[MAX_SW];                /* tries out, not answered yet */
	size_t n_out, peak_out;         /* switches with a try out */
	uint32_t last_tid[MAX_SW];
	int dropped_last[MAX_SW];       /* the switch's current SMP lost its first try */
};

static size_t switch_of(uint8_t *mad)
{
	/* The initial path (directed-route SMP byte 128 on): [0, local port,
	 * the switch's number + 1] (see path_of). */
	return (size_t)mad[128 + 2] - 1;
}

static ib_dr_path_t path_of(size_t k)
{
	ib_dr_path_t p;

	memset(&p, 0, sizeof(p));
	p.cnt = 2;
	p.p[1] = 1;
	p.p[2] = (uint8_t)(k + 1);
	return p;
}

static struct queued *enqueue(struct fake *f, const void *umad, size_t sw)
{
	struct queued *q;

	ck_assert_uint_lt(f->n_q, MAX_Q);
	q = &f->q[f->n_q++];
	/* The window's buffers: umad_size() + IB_MAD_SIZE bytes. */
	ck_assert_uint_le(umad_size() + IB_MAD_SIZE, sizeof(q->buf));
	memcpy(q->buf, umad, umad_size() + IB_MAD_SIZE);
	q->sw = sw;
	q->held = 0;
	return q;
}

static void went_out(struct fake *f, size_t k)
{
	if (f->out[k]++ == 0 && ++f->n_out > f->peak_out)
		f->peak_out = f->n_out;
}

static void came_back(struct fake *f, size_t k)
{
	if (f->out[k] > 0 && --f->out[k] == 0)
		f->n_out--;
}

static int fake_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct fake *f = ctx;
	uint8_t *mad = umad_get_mad(umad), data[AR_MAD_DATA_LEN], reply[AR_MAD_DATA_LEN];
	size_t k = switch_of(mad);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
	int set = mad_get_field(mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_SET;
	uint16_t attr = (uint16_t)mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	uint32_t am = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);
	unsigned status = 0;
	struct queued *q;
	int rc, retry;

	(void)len;
	(void)timeout_ms;
	ck_assert_uint_lt(k, f->n_sw);
	if (!f->first_send[k])
		f->first_send[k] = f->sends + 1;
	f->last_send[k] = ++f->sends;
	went_out(f, k);
	/* A try of the SMP whose first try was lost: same TID's request, the
	 * model has not seen it yet. */
	retry = f->dropped_last[k];
	f->dropped_last[k] = 0;
	f->last_tid[k] = tid;
	if ((long)k == f->silent)
		return 0;
	if ((long)k == f->held) {
		q = enqueue(f, umad, k);
		((struct ib_user_mad *)q->buf)->status = ETIMEDOUT;
		q->held = 1;
		f->drops_of[k]++;
		return 0;
	}
	if (!retry && f->drop_every && (f->smps_of[k] + 1) % f->drop_every == 0) {
		q = enqueue(f, umad, k);
		((struct ib_user_mad *)q->buf)->status = ETIMEDOUT;
		f->drops_of[k]++;
		f->dropped_last[k] = 1;
		return 0;
	}
	ck_assert_uint_lt(f->log[k].n, MAX_LOG);
	f->log[k].e[f->log[k].n++] = (struct logged){ .set = set, .attr = attr, .am = am };
	f->smps_of[k]++;
	memcpy(data, mad + IB_SMP_DATA_OFFS, sizeof(data));
	memset(reply, 0, sizeof(reply));
	rc = set ? memsw_set(&f->m[k], attr, am, data, reply, &status)
		 : memsw_get(&f->m[k], attr, am, reply, &status);
	if (rc < 0)
		return 0;  /* the model does not answer */
	for (int copies = f->dup_every && f->smps_of[k] % f->dup_every == 0 ? 2 : 1; copies;
	     copies--) {
		uint8_t *r;

		q = enqueue(f, umad, k);
		r = umad_get_mad(q->buf);
		r[3] = 0x81;  /* GetResp */
		/* The D bit set, as on a directed-route answer. */
		mad_set_field(r, 0, IB_MAD_STATUS_F, status | 0x8000);
		memcpy(r + IB_SMP_DATA_OFFS, reply, AR_MAD_DATA_LEN);
	}
	return 0;
}

static int fake_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct fake *f = ctx;
	long pick = -1;

	/* Scrambled (never oldest first for long, never starving one); a held
	 * timeout only when nothing else is queued. */
	for (size_t j = 0, n = f->n_q; j < n; j++) {
		size_t i = (f->recvs * 5 + 3 + j) % n;

		if (!f->q[i].held) {
			pick = (long)i;
			break;
		}
	}
	f->recvs++;
	if (pick < 0 && f->n_q)
		pick = 0;
	if (pick < 0) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)timeout_ms * 1000000L };

		nanosleep(&ts, NULL);
		return -ETIMEDOUT;
	}
	memcpy(umad, f->q[pick].buf, umad_size() + IB_MAD_SIZE);
	came_back(f, f->q[pick].sw);
	memmove(&f->q[pick], &f->q[pick + 1], (f->n_q - (size_t)pick - 1) * sizeof(f->q[0]));
	f->n_q--;
	*len = IB_MAD_SIZE;
	return 0;
}

/* A logging transport around one model, for the reference run. */
struct logged_sw {
	struct memsw *m;
	struct swlog *log;
};

static int ref_get(void *ctx, uint16_t attr, uint32_t am, uint8_t data[AR_MAD_DATA_LEN],
		   unsigned *status)
{
	struct logged_sw *l = ctx;

	l->log->e[l->log->n++] = (struct logged){ .set = 0, .attr = attr, .am = am };
	return memsw_get(l->m, attr, am, data, status);
}

static int ref_set(void *ctx, uint16_t attr, uint32_t am, const uint8_t data[AR_MAD_DATA_LEN],
		   uint8_t reply[AR_MAD_DATA_LEN], unsigned *status)
{
	struct logged_sw *l = ctx;

	l->log->e[l->log->n++] = (struct logged){ .set = 1, .attr = attr, .am = am };
	return memsw_set(l->m, attr, am, data, reply, status);
}

/* Switch k's model as the tests set it up: some switches fail somewhere
 * (so that every outcome is among them), the others are programmed. */
static void model(struct memsw *m, const struct rt_ar *ar, size_t k)
{
	memsw_init(m, &ar->sw[k], ar->max_lid, k % 11 == 5 ? 1 : 0);  /* refused */
	m->cap.is_fr_sup = k % 2;
	if (k % 13 == 7)
		m->status = 0x0c;                /* unsupported */
	if (k % 17 == 3) {
		m->fail_set = 3;                 /* failed, AR left off */
		m->fail_kind = FAIL_STATUS;
	}
}

struct scene {
	struct arsw_tree t;
	size_t n;
	struct memsw *ref_m, *m;
	struct swlog *ref_log, *log;
	struct ar_program_result *ref;
	struct ar_sequences_switch *s;
	struct fake *f;
};

static const struct ar_program_opts opts = { .sl_mask = AR_PLAN_ALL_SLS, .shield = 1 };

static void scene_init(struct scene *c)
{
	memset(c, 0, sizeof(*c));
	c->t = arsw_tree3();
	c->n = c->t.ar->n_sw;
	ck_assert_uint_le(c->n, MAX_SW);
	c->ref_m = calloc(c->n, sizeof(*c->ref_m));
	c->m = calloc(c->n, sizeof(*c->m));
	c->ref_log = calloc(c->n, sizeof(*c->ref_log));
	c->log = calloc(c->n, sizeof(*c->log));
	c->ref = calloc(c->n, sizeof(*c->ref));
	c->s = calloc(c->n, sizeof(*c->s));
	c->f = calloc(1, sizeof(*c->f));
	ck_assert(c->ref_m && c->m && c->ref_log && c->log && c->ref && c->s && c->f);
	for (size_t k = 0; k < c->n; k++) {
		struct logged_sw l = { &c->ref_m[k], &c->ref_log[k] };
		struct ar_xport x = { .get = ref_get, .set = ref_set, .ctx = &l };

		model(&c->ref_m[k], c->t.ar, k);
		ck_assert_int_eq(ar_program_switch(&x, &c->t.ar->sw[k], c->t.ar->max_lid, &opts,
						   &c->ref[k]), 0);
		model(&c->m[k], c->t.ar, k);
		c->s[k].path = path_of(k);
		c->s[k].sw = &c->t.ar->sw[k];
	}
	c->f->m = c->m;
	c->f->n_sw = c->n;
	c->f->log = c->log;
	c->f->silent = c->f->held = -1;
}

static void scene_free(struct scene *c)
{
	free(c->ref_m);
	free(c->m);
	free(c->ref_log);
	free(c->log);
	free(c->ref);
	free(c->s);
	free(c->f);
	arsw_tree_free(&c->t);
}

static int run(struct scene *c, size_t window, unsigned timeout_ms, unsigned retries,
	       struct mad_window_stats *st)
{
	struct mad_window_io io = { .send = fake_send, .recv = fake_recv, .ctx = c->f };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = timeout_ms,
					.retries = retries, .max_flight = window, .io = &io };
	char err[256] = "";
	int rc = ar_sequences_run(&wp, c->s, c->n, c->t.ar->max_lid, &opts, st, err, sizeof(err));

	ck_assert_msg(rc == 0, "ar_sequences_run: %s", err);
	return rc;
}

/* Switch k did in the window what it does alone: the same SMPs in the same
 * order, the same outcome, reason, counts (smps_sent: plus its lost tries)
 * and the same blocks held at the end. */
static void assert_as_alone(const struct scene *c, size_t k, unsigned lost)
{
	const struct ar_program_result *a = &c->ref[k], *b = &c->s[k].res;

	ck_assert_uint_eq(c->log[k].n, c->ref_log[k].n);
	for (size_t i = 0; i < c->log[k].n; i++)
		ck_assert_msg(c->log[k].e[i].set == c->ref_log[k].e[i].set &&
			      c->log[k].e[i].attr == c->ref_log[k].e[i].attr &&
			      c->log[k].e[i].am == c->ref_log[k].e[i].am,
			      "switch %zu: SMP %zu differs from its sequence alone", k, i);
	ck_assert_int_eq(b->outcome, a->outcome);
	ck_assert_str_eq(b->reason, a->reason);
	ck_assert_int_eq(b->shield, a->shield);
	ck_assert_uint_eq(b->groups, a->groups);
	ck_assert_uint_eq(b->sets, a->sets);
	ck_assert_int_eq(b->ar_state_unknown, a->ar_state_unknown);
	ck_assert_uint_eq(b->smps_sent, a->smps_sent + lost);
	ck_assert_uint_eq(c->m[k].n, c->ref_m[k].n);
	for (size_t i = 0; i < c->m[k].n; i++) {
		const struct blk *x = &c->m[k].b[i], *y = memsw_find(&c->ref_m[k], x->attr, x->am);

		ck_assert_msg(y && memcmp(x->data, y->data, AR_MAD_DATA_LEN) == 0,
			      "switch %zu: block 0x%04x/0x%08x differs", k, x->attr, x->am);
	}
}

/* With a window of 8, eight switches are under way at once (the fake
 * port sees tries of eight switches out together, the window's peak is 8),
 * their answers come back out of order, every 5th SMP of a switch loses
 * its first try to a timeout status and every 7th is answered twice: each
 * switch still sends exactly its own sequence in its own order (a
 * duplicate answer of one Set is never taken for the next), ends as it
 * does alone (programmed, refused, unsupported, failed among them), and
 * counts its lost tries in smps_sent; the run's total is their sum. */
START_TEST(switches_go_through_their_sequences_at_once_each_in_its_own_order)
{
	struct mad_window_stats st;
	struct scene c;
	unsigned seen[AR_PROG_DRY_RUN + 1] = { 0 };
	uint64_t sum = 0, drops = 0;

	scene_init(&c);
	c.f->drop_every = 5;
	c.f->dup_every = 7;
	run(&c, 8, 5000, 2, &st);
	for (size_t k = 0; k < c.n; k++) {
		assert_as_alone(&c, k, c.f->drops_of[k]);
		seen[c.s[k].res.outcome]++;
		sum += c.s[k].res.smps_sent;
		drops += c.f->drops_of[k];
		ck_assert_uint_eq(c.s[k].local_timeouts, c.f->drops_of[k]);
	}
	ck_assert_uint_gt(drops, 0);
	ck_assert_uint_gt(seen[AR_PROG_PROGRAMMED], 0);
	ck_assert_uint_gt(seen[AR_PROG_REFUSED], 0);
	ck_assert_uint_gt(seen[AR_PROG_UNSUPPORTED], 0);
	ck_assert_uint_gt(seen[AR_PROG_FAILED], 0);
	ck_assert_uint_eq(st.sent, sum);
	ck_assert_uint_eq(st.sent, c.f->sends);
	ck_assert_uint_eq(st.peak, 8);
	ck_assert_uint_eq(c.f->peak_out, 8);
	scene_free(&c);
}
END_TEST

/* The window is the only limit: with room for every switch, all of them
 * are under way at once; with a window of 1, one at a time (the old
 * sequential order: each switch's SMPs all sent before the next's first). */
START_TEST(the_window_bounds_how_many_switches_are_under_way)
{
	struct mad_window_stats st;
	struct scene c;

	scene_init(&c);
	run(&c, c.n, 5000, 1, &st);
	ck_assert_uint_eq(st.peak, c.n);
	ck_assert_uint_eq(c.f->peak_out, c.n);
	for (size_t k = 0; k < c.n; k++)
		assert_as_alone(&c, k, 0);
	scene_free(&c);

	scene_init(&c);
	run(&c, 1, 5000, 1, &st);
	ck_assert_uint_eq(st.peak, 1);
	for (size_t k = 0; k + 1 < c.n; k++) {
		assert_as_alone(&c, k, 0);
		ck_assert_uint_lt(c.f->last_send[k], c.f->first_send[k + 1]);
	}
	scene_free(&c);
}
END_TEST

/* A switch whose every try comes back timed out (its timeout statuses held
 * back while anything else is queued) ends unsupported after its GetCap's
 * retries + 1 tries, each counted as a local timeout, and does not hold
 * the others back: every other switch went through its whole sequence
 * while it was still waiting for its GetCap (their last SMPs were sent
 * before its last try), and ended as it does alone. */
START_TEST(a_switch_that_times_out_does_not_hold_the_others_back)
{
	const unsigned retries = 2;
	struct mad_window_stats st;
	struct scene c;
	size_t held = 1;

	scene_init(&c);
	c.f->held = (long)held;
	run(&c, 4, 5000, retries, &st);
	for (size_t k = 0; k < c.n; k++) {
		const struct ar_program_result *r = &c.s[k].res;

		if (k == held) {
			ck_assert_int_eq(r->outcome, AR_PROG_UNSUPPORTED);
			ck_assert_msg(strstr(r->reason, "no answer to ARInfo GetCap") &&
				      strstr(r->reason, "left on static routing"), "%s", r->reason);
			ck_assert_uint_eq(r->smps_sent, retries + 1);
			ck_assert_uint_eq(r->sets, 0);
			ck_assert_uint_eq(c.s[k].local_timeouts, retries + 1);
			continue;
		}
		assert_as_alone(&c, k, 0);
		ck_assert_msg(c.f->last_send[k] < c.f->last_send[held],
			      "switch %zu finished after the switch that timed out", k);
	}
	ck_assert_uint_eq(c.f->sends, st.sent);
	scene_free(&c);
}
END_TEST

/* A switch that never answers at all (the window's own deadline ends each
 * try) ends unsupported after retries + 1 tries, none a local timeout;
 * every other switch ends as it does alone. */
START_TEST(a_silent_switch_ends_unsupported_and_the_others_as_alone)
{
	const unsigned retries = 2;
	struct mad_window_stats st;
	struct scene c;
	size_t silent = 2;

	scene_init(&c);
	c.f->silent = (long)silent;
	/* 300 ms: the silent switch's three tries take about a second, and a
	 * busy machine that holds this process back for a few tens of ms
	 * (make -j2 beside other tests) times no other switch out */
	run(&c, 4, 300, retries, &st);
	for (size_t k = 0; k < c.n; k++) {
		const struct ar_program_result *r = &c.s[k].res;

		if (k != silent) {
			assert_as_alone(&c, k, 0);
			continue;
		}
		ck_assert_int_eq(r->outcome, AR_PROG_UNSUPPORTED);
		ck_assert_msg(strstr(r->reason, "no answer to ARInfo GetCap"), "%s", r->reason);
		ck_assert_uint_eq(r->smps_sent, retries + 1);
		ck_assert_uint_eq(c.s[k].local_timeouts, 0);
	}
	ck_assert_uint_eq(c.f->sends, st.sent);
	scene_free(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ar_sequences");
	TCase *tc = tcase_create("ar_sequences");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, switches_go_through_their_sequences_at_once_each_in_its_own_order);
	tcase_add_test(tc, the_window_bounds_how_many_switches_are_under_way);
	tcase_add_test(tc, a_switch_that_times_out_does_not_hold_the_others_back);
	tcase_add_test(tc, a_silent_switch_ends_unsupported_and_the_others_as_alone);
	suite_add_tcase(s, tc);
	return check_run(s);
}
