/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/ar/test_ar_program.c: the sequence that programs one switch's
 * adaptive routing (lib/ar/ar_program.h), on switches of fat trees made by
 * loom-fabgen's builders, routed by the ftree engine, with TREE groups.
 *
 * Why the transport is in memory: ibsim (the only switch loom's tests have)
 * answers no vendor attribute at all (every 0xFF2x SMP comes back at once
 * with a timeout status; docs/ar-mad-notes.md), so it can show that loom
 * leaves a switch without AR alone, never what loom does with one that has
 * it. Here struct memsw (tests/unit/fixtures/fixture_arsw.h) plays that switch
 * behind struct ar_xport: it keeps
 * every block by (attribute, modifier), answers GetCap with a chosen
 * ARInfo, starts with an SX AR LFT that mirrors the static LFT (as NVIDIA
 * switches keep it), and can be told not to answer, to answer with an
 * error status, to fail the Nth Set (no answer, error status, or not
 * taking the data), to corrupt a read-back, or to hold an AR LFT that does
 * not mirror the static one. These are tests of the sequence, not of any
 * switch's firmware. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_plan.h"
#include "lib/ar/ar_program.h"
#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_arsw.h"

/* ---- fabrics ------------------------------------------------------------------------ */

/* A switch of t with AR groups. */
static size_t with_groups(const struct arsw_tree *t)
{
	for (size_t s = 0; s < t->ar->n_sw; s++)
		if (t->ar->sw[s].n_groups >= 1)
			return s;
	ck_abort_msg("no switch with AR groups");
	return 0;
}

static struct ar_program_result run(struct memsw *m, const struct rt_ar *ar, size_t s,
				    const struct ar_program_opts *o)
{
	struct ar_xport x = memsw_xport(m);
	struct ar_program_result res;

	ck_assert_int_eq(ar_program_switch(&x, &ar->sw[s], ar->max_lid, o, &res), 0);
	return res;
}

static struct ar_plan *plan_for(const struct rt_ar *ar, size_t s, const struct ar_mad_info *cap,
				const struct ar_program_opts *o)
{
	char err[256] = "";
	struct ar_plan *p = ar_plan_new(&ar->sw[s], ar->max_lid, cap, o->sl_mask,
					o->shield ? AR_PLAN_SHIELD : 0, err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

static const struct ar_program_opts all_sls = { .sl_mask = AR_PLAN_ALL_SLS };

/* ---- a: switches without AR ------------------------------------------------------------- */

/* No answer, an error status (0x0C, unsupported method/attribute, or any
 * other) and group_cap 0 each end the sequence after the one GetCap: the
 * switch is unsupported, and not one Set (nor any other Get) is sent. */
START_TEST(a_switch_without_ar_is_unsupported_after_one_get_and_no_set)
{
	struct arsw_tree t = arsw_tree3();
	size_t s = with_groups(&t);
	struct ar_program_opts o = { .sl_mask = AR_PLAN_ALL_SLS, .shield = 1 };
	struct ar_program_result res;
	struct memsw m;

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.no_answer = 1;
	res = run(&m, t.ar, s, &o);
	ck_assert_int_eq(res.outcome, AR_PROG_UNSUPPORTED);
	ck_assert_msg(strstr(res.reason, "no answer to ARInfo GetCap") &&
		      strstr(res.reason, "left on static routing"), "%s", res.reason);
	ck_assert_uint_eq(m.n_get, 1);
	ck_assert_uint_eq(m.n_set, 0);
	ck_assert_uint_eq(res.smps_sent, 1);
	ck_assert_int_eq(res.shield, AR_PROG_SHIELD_UNSUPPORTED);

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.status = 0x0c;
	res = run(&m, t.ar, s, &o);
	ck_assert_int_eq(res.outcome, AR_PROG_UNSUPPORTED);
	ck_assert_msg(strstr(res.reason, "status 0x000c") &&
		      strstr(res.reason, "unsupported method/attribute"), "%s", res.reason);
	ck_assert_uint_eq(m.n_get, 1);
	ck_assert_uint_eq(m.n_set, 0);

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.cap.group_cap = 0;
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_UNSUPPORTED);
	ck_assert_msg(strstr(res.reason, "group_cap is 0"), "%s", res.reason);
	ck_assert_uint_eq(m.n_get, 1);
	ck_assert_uint_eq(m.n_set, 0);
	ck_assert_int_eq(res.shield, AR_PROG_SHIELD_OFF);  /* not asked for */
	ck_assert_str_eq(ar_program_outcome_name(res.outcome), "unsupported");
	arsw_tree_free(&t);
}
END_TEST

/* ---- b: the modifier self-check --------------------------------------------------------- */

/* On every switch, before any Set (dry-run: no Set at all), the AR LFT
 * blocks read are 2 or 3 distinct ones, the highest routed LID's among
 * them, at the modifiers ar_mad_lft_am gives; the dry run reports the
 * plan's Set count. */
START_TEST(the_self_check_reads_distinct_blocks_including_the_highest_before_any_set)
{
	struct arsw_tree t = arsw_tree3();
	struct ar_program_opts o = { .sl_mask = AR_PLAN_ALL_SLS, .dry_run = 1 };

	for (size_t s = 0; s < t.ar->n_sw; s++) {
		const struct rt_ar_switch *sw = &t.ar->sw[s];
		struct ar_program_result res;
		struct ar_plan *p;
		struct memsw m;
		uint32_t hi = 0, am_hi;
		char err[128];
		int saw_hi = 0;

		for (uint32_t lid = 0; lid <= t.ar->max_lid; lid++)
			if (sw->port[lid] != RT_NO_PORT)
				hi = lid;
		ck_assert_int_eq(ar_mad_lft_am(hi / 16, 0, &am_hi, err, sizeof(err)), 0);
		memsw_init(&m, sw, t.ar->max_lid, 0);
		res = run(&m, t.ar, s, &o);
		ck_assert_msg(res.outcome == AR_PROG_DRY_RUN, "switch %zu: %s", s, res.reason);
		ck_assert_uint_eq(m.n_set, 0);
		ck_assert_uint_ge(m.n_lft_gets, 2);
		ck_assert_uint_le(m.n_lft_gets, 3);
		for (unsigned i = 0; i < m.n_lft_gets; i++) {
			saw_hi |= m.lft_gets[i] == am_hi;
			for (unsigned j = 0; j < i; j++)
				ck_assert_uint_ne(m.lft_gets[i], m.lft_gets[j]);
		}
		ck_assert_msg(saw_hi, "switch %zu: the highest routed LID's block was not read", s);
		ck_assert_uint_eq(res.smps_sent, 1 + m.n_lft_gets);
		p = plan_for(t.ar, s, &m.cap, &o);
		ck_assert_uint_eq(res.sets, p->n);
		ck_assert_uint_eq(res.groups, sw->n_groups);
		ck_assert_msg(strstr(res.reason, "would send"), "%s", res.reason);
		ar_plan_free(p);
	}
	arsw_tree_free(&t);
}
END_TEST

/* A switch whose AR LFT block b holds another block's LIDs (a modifier
 * read another way) is refused naming the block, the LID and both ports;
 * one that answers the LFT Gets with an error status is refused too; no
 * Set reaches either. */
START_TEST(an_ar_lft_that_does_not_mirror_the_static_lft_is_refused_before_any_set)
{
	struct arsw_tree t = arsw_tree3();
	size_t s = with_groups(&t);
	struct ar_program_result res;
	struct memsw m;

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 1);
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_REFUSED);
	ck_assert_msg(strstr(res.reason, "refused: AR LFT block ") &&
		      strstr(res.reason, "does not mirror the static LFT (LID ") &&
		      strstr(res.reason, "the attribute modifier layout is not confirmed on "
			     "this switch"), "%s", res.reason);
	ck_assert_uint_eq(m.n_set, 0);

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.lft_status = 0x1c;
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_REFUSED);
	ck_assert_msg(strstr(res.reason, "could not be read: status 0x001c"), "%s", res.reason);
	ck_assert_uint_eq(m.n_set, 0);
	arsw_tree_free(&t);
}
END_TEST

/* ---- c: programming ------------------------------------------------------------------------ */

/* Every switch of the tree (leaves, middles, roots; some without groups)
 * is programmed: afterwards the in-memory switch holds exactly the plan
 * (every group and AR LFT block at its modifier, ARInfo = the enabling
 * Set, e on iff the switch has groups), ar_plan_check passes on what it
 * holds, and the counts are the plan's Sets plus one Get per block read
 * back. SHIELD asked for is on where the switch reports is_fr_sup and
 * "unsupported" (fr_enabled 0) where it does not. */
START_TEST(every_switch_of_a_fat_tree_is_programmed_and_holds_exactly_its_plan)
{
	struct arsw_tree t = arsw_tree3();
	struct ar_program_opts o = { .sl_mask = 0x0003, .shield = 1 };
	unsigned n_on = 0, n_unsup = 0;

	for (size_t s = 0; s < t.ar->n_sw; s++) {
		const struct rt_ar_switch *sw = &t.ar->sw[s];
		struct ar_program_result res;
		struct ar_mad_info now;
		struct ar_plan *p, held;
		struct memsw m;
		char err[256] = "";

		memsw_init(&m, sw, t.ar->max_lid, 0);
		m.cap.is_fr_sup = s % 2;
		res = run(&m, t.ar, s, &o);
		ck_assert_msg(res.outcome == AR_PROG_PROGRAMMED, "switch %zu: %s", s, res.reason);
		ck_assert_uint_eq(res.groups, sw->n_groups);
		p = plan_for(t.ar, s, &m.cap, &o);
		ck_assert_uint_eq(res.sets, p->n);
		ck_assert_uint_eq(m.n_set, p->n);
		ck_assert_uint_eq(res.smps_sent, 1 + m.n_lft_gets + p->n + (p->n - 1));
		held = *p;
		held.mad = calloc(p->n, sizeof(*p->mad));
		ck_assert_ptr_nonnull(held.mad);
		for (size_t i = 0; i < p->n; i++) {
			const struct blk *b = memsw_find(&m, p->mad[i].attr, p->mad[i].am);

			ck_assert_ptr_nonnull(b);
			held.mad[i] = p->mad[i];
			if (i > 0)  /* ARInfo: the switch holds the last Set's */
				ck_assert_msg(memcmp(b->data, p->mad[i].data, AR_MAD_DATA_LEN) == 0,
					      "switch %zu MAD %zu not held", s, i);
			memcpy(held.mad[i].data, b->data, AR_MAD_DATA_LEN);
		}
		memcpy(held.mad[0].data, p->mad[0].data, AR_MAD_DATA_LEN);
		ck_assert_msg(ar_plan_check(&held, sw, t.ar->max_lid, err, sizeof(err)) == 0,
			      "switch %zu: %s", s, err);
		now = memsw_info(&m);
		ck_assert_uint_eq(now.e, sw->n_groups > 0);
		ck_assert_uint_eq(now.fr_enabled, m.cap.is_fr_sup);
		ck_assert_int_eq(res.shield, m.cap.is_fr_sup ? AR_PROG_SHIELD_ON :
				 AR_PROG_SHIELD_UNSUPPORTED);
		n_on += res.shield == AR_PROG_SHIELD_ON;
		n_unsup += res.shield == AR_PROG_SHIELD_UNSUPPORTED;
		free(held.mad);
		ar_plan_free(p);
	}
	ck_assert_uint_gt(n_on, 0);
	ck_assert_uint_gt(n_unsup, 0);
	arsw_tree_free(&t);
}
END_TEST

/* ---- d: failures ------------------------------------------------------------------------- */

/* The first, second, a middle and the last (enabling) Set failing in each
 * way (no answer, error status, data not taken) ends with "failed: ...,
 * AR left off": exactly one more Set (AR off) was sent, the switch holds
 * e = 0 and fr_enabled 0, and AR was never enabled (the tables verify
 * before the enabling Set, and that Set failing is not taking it). */
START_TEST(a_failed_set_turns_ar_off_and_says_what_failed)
{
	struct arsw_tree t = arsw_tree3();
	size_t s = with_groups(&t);
	struct ar_program_opts o = { .sl_mask = AR_PLAN_ALL_SLS, .shield = 1 };
	struct memsw m;
	struct ar_plan *p;

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.cap.is_fr_sup = 1;
	p = plan_for(t.ar, s, &m.cap, &o);
	for (int kind = FAIL_NO_ANSWER; kind <= FAIL_NO_ECHO; kind++) {
		unsigned at[] = { 1, 2, (unsigned)p->n / 2, (unsigned)p->n };

		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			struct ar_program_result res;
			struct ar_mad_info now;
			const char *want = kind == FAIL_NO_ANSWER ? "no answer to the Set of" :
					   kind == FAIL_STATUS ? "answered with status 0x001c" :
					   "was not echoed";

			memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
			m.cap.is_fr_sup = 1;
			m.fail_set = at[k];
			m.fail_kind = (enum fail_kind)kind;
			res = run(&m, t.ar, s, &o);
			ck_assert_msg(res.outcome == AR_PROG_FAILED, "kind %d Set %u: %s", kind,
				      at[k], res.reason);
			ck_assert_msg(strstr(res.reason, want) && strstr(res.reason, "AR left off"),
				      "kind %d Set %u: %s", kind, at[k], res.reason);
			ck_assert_int_eq(res.ar_state_unknown, 0);
			ck_assert_uint_eq(m.n_set, at[k] + 1);
			ck_assert_uint_eq(res.sets, at[k] + 1);
			now = memsw_info(&m);
			ck_assert_uint_eq(now.e, 0);
			ck_assert_uint_eq(now.fr_enabled, 0);
			ck_assert_int_eq(res.shield, AR_PROG_SHIELD_OFF);
			ck_assert_int_eq(m.ever_enabled, 0);
		}
	}
	ar_plan_free(p);
	arsw_tree_free(&t);
}
END_TEST

/* A read-back that differs from what was sent: an AR LFT block (one bit of
 * a default port) is caught before AR is ever enabled; the ARInfo read
 * back after the enabling Set (one bit of group_cap) turns AR off again. */
START_TEST(a_corrupt_read_back_never_leaves_ar_on)
{
	struct arsw_tree t = arsw_tree3();
	size_t s = with_groups(&t);
	struct ar_program_result res;
	struct memsw m;
	uint32_t am;
	char err[128];

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	ck_assert_int_eq(ar_mad_lft_am(1, 0, &am, err, sizeof(err)), 0);
	m.corrupt_attr = AR_MAD_ATTR_LFT_SX;
	m.corrupt_am = am;
	m.corrupt_byte = 1;     /* entry 0's default port, bit 0 */
	m.corrupt_mask = 0x01;
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_FAILED);
	ck_assert_msg(strstr(res.reason, "the tables read back differ: LID 16: default port") &&
		      strstr(res.reason, "AR left off"), "%s", res.reason);
	ck_assert_int_eq(m.ever_enabled, 0);
	ck_assert_uint_eq(memsw_info(&m).e, 0);

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.corrupt_attr = AR_MAD_ATTR_INFO;
	m.corrupt_am = 0;
	m.corrupt_byte = 7;     /* group_cap, bit 0 */
	m.corrupt_mask = 0x01;
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_FAILED);
	ck_assert_msg(strstr(res.reason, "ARInfo read back differs") &&
		      strstr(res.reason, "AR left off"), "%s", res.reason);
	ck_assert_int_eq(m.ever_enabled, 1);
	ck_assert_uint_eq(memsw_info(&m).e, 0);
	arsw_tree_free(&t);
}
END_TEST

/* When the Set that turns AR off fails as well, the result says so loudly:
 * AR's state is unknown. */
START_TEST(when_ar_cannot_be_turned_off_the_result_says_its_state_is_unknown)
{
	struct arsw_tree t = arsw_tree3();
	size_t s = with_groups(&t);
	struct ar_program_result res;
	struct memsw m;
	json_t *j;

	memsw_init(&m, &t.ar->sw[s], t.ar->max_lid, 0);
	m.fail_set = 3;
	m.fail_later_too = 1;
	m.fail_kind = FAIL_NO_ANSWER;
	res = run(&m, t.ar, s, &all_sls);
	ck_assert_int_eq(res.outcome, AR_PROG_FAILED);
	ck_assert_int_eq(res.ar_state_unknown, 1);
	ck_assert_msg(strstr(res.reason, "turning AR off failed too") &&
		      strstr(res.reason, "AR STATE UNKNOWN"), "%s", res.reason);
	j = ar_program_json(0x1234, "sw-1", 7, &res);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(j, "guid")), "0x0000000000001234");
	ck_assert_str_eq(json_string_value(json_object_get(j, "result")), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(j, "shield")), "off");
	ck_assert(json_is_true(json_object_get(j, "ar_state_unknown")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "smps_sent")), res.smps_sent);
	json_decref(j);
	arsw_tree_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ar_program");
	TCase *tc = tcase_create("ar_program");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_switch_without_ar_is_unsupported_after_one_get_and_no_set);
	tcase_add_test(tc, the_self_check_reads_distinct_blocks_including_the_highest_before_any_set);
	tcase_add_test(tc, an_ar_lft_that_does_not_mirror_the_static_lft_is_refused_before_any_set);
	tcase_add_test(tc, every_switch_of_a_fat_tree_is_programmed_and_holds_exactly_its_plan);
	tcase_add_test(tc, a_failed_set_turns_ar_off_and_says_what_failed);
	tcase_add_test(tc, a_corrupt_read_back_never_leaves_ar_on);
	tcase_add_test(tc, when_ar_cannot_be_turned_off_the_result_says_its_state_is_unknown);
	suite_add_tcase(s, tc);
	return check_run(s);
}
