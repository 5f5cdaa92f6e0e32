/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_walk_queue.c: the choices of loom's walk queue
 * (daemon/ib/walk_queue.c) on a fake umad io that answers the oldest SMP
 * out, one per receive, and can stay silent for some: the window is spread
 * over the targets (the first sends go to as many targets as there are
 * slots), never more than per_target out to one target, the WALKQ_FIRST
 * requests go before the others, a try that is not answered is sent again
 * and counted, a target that never answers is given up after its tries
 * without holding the others, and a timeout the port reports for a
 * WALKQ_STATUS_FINAL request ends it at once. The attribute modifier of
 * each request names its target (target * 100 + k). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/walk_queue.h"
#include "tests/unit/fixtures/check_run.h"

#define MAX_SENT 256
#define UMAD_CAP (sizeof(struct ib_user_mad) + IB_MAD_SIZE)   /* room */
#define UMAD_LEN ((size_t)umad_size() + IB_MAD_SIZE)          /* what a buffer holds */

struct fake {
	uint8_t sent[MAX_SENT][UMAD_CAP];
	int answered[MAX_SENT];
	size_t n_sent;
	unsigned silent_target;   /* its SMPs are never answered (0: none) */
	unsigned drop_first_am;   /* the first try of this AM is not answered (0: none) */
	unsigned bounce_am;       /* answered with the port's timeout status (0: none) */
	unsigned out[16];         /* SMPs out per target now */
	unsigned max_out[16];     /* the most ever */
	unsigned order[MAX_SENT]; /* the target of each send */
};

static unsigned am_of(const uint8_t *umad)
{
	return mad_get_field(umad_get_mad((void *)umad), 0, IB_MAD_ATTRMOD_F);
}

static int fake_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct fake *f = ctx;
	unsigned t = am_of(umad) / 100;

	(void)len;
	(void)timeout_ms;
	ck_assert_uint_lt(f->n_sent, MAX_SENT);
	memcpy(f->sent[f->n_sent], umad, UMAD_LEN);
	f->order[f->n_sent] = t;
	if (f->drop_first_am && am_of(umad) == f->drop_first_am) {
		f->answered[f->n_sent] = 1;  /* lost: never answered */
		f->drop_first_am = 0;
	} else if (t == f->silent_target) {
		f->answered[f->n_sent] = 1;
	} else {
		f->answered[f->n_sent] = 0;
		if (++f->out[t] > f->max_out[t])
			f->max_out[t] = f->out[t];
	}
	f->n_sent++;
	return 0;
}

static int fake_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct fake *f = ctx;

	for (size_t i = 0; i < f->n_sent; i++) {
		struct ib_user_mad *u = umad;

		if (f->answered[i])
			continue;
		f->answered[i] = 1;
		f->out[f->order[i]]--;
		memcpy(umad, f->sent[i], UMAD_LEN);
		((uint8_t *)umad_get_mad(umad))[3] = 0x81;  /* GetResp */
		u->status = am_of(f->sent[i]) == f->bounce_am ? ETIMEDOUT : 0;
		*len = IB_MAD_SIZE;
		return 0;
	}
	usleep((useconds_t)(timeout_ms > 2 ? 2000 : timeout_ms * 1000));
	return -ETIMEDOUT;
}

struct ends {
	unsigned answered, refused, lost;
	uint64_t last_lost;
	struct walkq *q;
	size_t add_first_to;   /* on the first answer, add a WALKQ_FIRST request (0: no) */
};

static int on_done(void *ctx, uint64_t cookie, enum walkq_end end, uint8_t *mad, char *err,
		   size_t errlen)
{
	struct ends *e = ctx;
	static const ib_dr_path_t path = { .cnt = 1, .p = { 0, 1 } };

	(void)mad;
	(void)err;
	(void)errlen;
	if (end == WALKQ_ANSWERED)
		e->answered++;
	else if (end == WALKQ_REFUSED)
		e->refused++;
	else {
		e->lost++;
		e->last_lost = cookie;
	}
	if (e->add_first_to && e->answered == 1) {
		size_t t = e->add_first_to;

		e->add_first_to = 0;
		return walkq_add(e->q, t, IB_ATTR_NODE_INFO, (unsigned)t * 100 + 99, &path,
				 WALKQ_FIRST, 999);
	}
	return 0;
}

static struct fake fk;
static struct mad_window_io io = { fake_send, fake_recv, &fk };
static const ib_dr_path_t path1 = { .cnt = 1, .p = { 0, 1 } };

static struct walkq *queue(size_t max_flight, unsigned per_target, unsigned retries,
			   struct ends *e)
{
	struct walkq_params p = { .timeout_ms = 5, .retries = retries, .max_flight = max_flight,
				  .per_target = per_target, .io = &io };
	struct walkq *q;

	memset(&fk, 0, sizeof(fk));
	memset(e, 0, sizeof(*e));
	ck_assert_ptr_nonnull(q = walkq_new(&p, on_done, e));
	e->q = q;
	ck_assert_uint_eq(walkq_target(q), 0);  /* target 0: unused, AM 0.. means none */
	return q;
}

/* n requests to each of targets 1..n_targets (AM target*100 + k). */
static void fill(struct walkq *q, unsigned n_targets, unsigned n)
{
	for (unsigned t = 1; t <= n_targets; t++)
		ck_assert_uint_eq(walkq_target(q), t);
	for (unsigned k = 0; k < n; k++)
		for (unsigned t = 1; t <= n_targets; t++)
			ck_assert_int_eq(walkq_add(q, t, IB_ATTR_PORT_INFO, t * 100 + k, &path1, 0,
						   t * 100 + k), 0);
}

START_TEST(the_window_is_spread_over_the_targets)
{
	struct ends e;
	struct walkq *q = queue(4, 2, 0, &e);
	char err[128];
	struct walkq_stats st;

	fill(q, 4, 3);
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	/* the first 4 sends: 4 targets, one each */
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(fk.order[i], fk.order[j]);
	ck_assert_uint_eq(e.answered, 12);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.sent, 12);
	ck_assert_uint_eq(st.peak_targets, 4);
	walkq_free(q);
}
END_TEST

START_TEST(never_more_than_per_target_out_to_one_target)
{
	struct ends e;
	struct walkq *q = queue(16, 2, 0, &e);
	char err[128];
	struct walkq_stats st;

	fill(q, 1, 10);
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.answered, 10);
	ck_assert_uint_eq(fk.max_out[1], 2);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.peak, 2);
	walkq_free(q);
}
END_TEST

START_TEST(first_requests_go_before_the_others)
{
	struct ends e;
	struct walkq *q = queue(1, 1, 0, &e);
	char err[128];

	fill(q, 2, 3);
	e.add_first_to = 2;  /* target 2's probe, added on the first answer */
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.answered, 7);
	/* one at a time: the first request, then the probe */
	ck_assert_uint_eq(am_of(fk.sent[0]), 100);
	ck_assert_uint_eq(am_of(fk.sent[1]), 299);
	walkq_free(q);
}
END_TEST

START_TEST(an_unanswered_try_is_sent_again_and_counted)
{
	struct ends e;
	struct walkq *q = queue(4, 2, 2, &e);
	char err[128];
	struct walkq_stats st;

	fill(q, 2, 2);
	fk.drop_first_am = 201;
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.answered, 4);
	ck_assert_uint_eq(e.lost, 0);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.retries, 1);
	ck_assert_uint_eq(st.sent, 5);
	walkq_free(q);
}
END_TEST

START_TEST(a_silent_target_is_given_up_and_holds_no_other)
{
	struct ends e;
	struct walkq *q = queue(4, 1, 2, &e);
	char err[128];
	struct walkq_stats st;

	fill(q, 3, 4);
	fk.silent_target = 2;
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.answered, 8);
	ck_assert_uint_eq(e.lost, 4);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.lost, 4);
	ck_assert_uint_eq(st.retries, 8);  /* 2 more tries of each of the 4 */
	walkq_free(q);
}
END_TEST

START_TEST(a_bounce_of_a_status_final_request_ends_it_at_once)
{
	struct ends e;
	struct walkq *q = queue(4, 2, 3, &e);
	char err[128];
	struct walkq_stats st;

	ck_assert_uint_eq(walkq_target(q), 1);
	ck_assert_int_eq(walkq_add(q, 1, IB_ATTR_MLNX_EXT_PORT_INFO, 101, &path1,
				   WALKQ_STATUS_FINAL, 1), 0);
	ck_assert_int_eq(walkq_add(q, 1, IB_ATTR_PORT_INFO, 102, &path1, 0, 2), 0);
	fk.bounce_am = 101;
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.refused, 1);
	ck_assert_uint_eq(e.answered, 1);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.sent, 2);
	ck_assert_uint_eq(st.retries, 0);
	walkq_free(q);
}
END_TEST

START_TEST(a_bounce_of_another_request_is_retried)
{
	struct ends e;
	struct walkq *q = queue(4, 2, 3, &e);
	char err[128];
	struct walkq_stats st;

	ck_assert_uint_eq(walkq_target(q), 1);
	ck_assert_int_eq(walkq_add(q, 1, IB_ATTR_PORT_INFO, 101, &path1, 0, 1), 0);
	fk.bounce_am = 101;
	ck_assert_int_eq(walkq_run(q, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.lost, 1);
	walkq_get_stats(q, &st);
	ck_assert_uint_eq(st.sent, 4);
	walkq_free(q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("walk_queue");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_window_is_spread_over_the_targets);
	tcase_add_test(tc, never_more_than_per_target_out_to_one_target);
	tcase_add_test(tc, first_requests_go_before_the_others);
	tcase_add_test(tc, an_unanswered_try_is_sent_again_and_counted);
	tcase_add_test(tc, a_silent_target_is_given_up_and_holds_no_other);
	tcase_add_test(tc, a_bounce_of_a_status_final_request_ends_it_at_once);
	tcase_add_test(tc, a_bounce_of_another_request_is_retried);
	suite_add_tcase(s, tc);
	return check_run(s);
}
