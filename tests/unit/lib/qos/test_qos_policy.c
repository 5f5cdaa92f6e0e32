/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/qos/test_qos_policy.c: the lossless RoCE policy: its defaults
 * hold together, each contradiction is refused naming its key, overrides
 * replace only what they set, and what the policy means on a switch
 * (maps, ECN on the lossless queues only, headroom per port). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/qos/qos_policy.h"
#include "tests/unit/fixtures/check_run.h"

static char err[512];

static void assert_refused(const struct qos_policy *p, const char *needle)
{
	ck_assert_int_eq(qos_policy_check(p, "roce", NULL, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, needle), "wanted \"%s\" in: %s", needle, err);
}

START_TEST(qos_defaults_are_a_valid_policy)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	ck_assert_msg(qos_policy_check(&p, "roce", NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(qos_policy_tc(&p, 26), 3);
	ck_assert_uint_eq(qos_policy_tc(&p, 48), 6);
	ck_assert_uint_eq(qos_policy_tc(&p, 0), 0);
}
END_TEST

START_TEST(qos_refuses_pfc_on_a_priority_no_dscp_maps_to)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.lossless_mask |= 1u << 4;
	assert_refused(&p, "roce.lossless_priorities: priority 4 has PFC but no DSCP maps to "
		       "traffic class 4");
}
END_TEST

START_TEST(qos_refuses_ecn_min_at_or_above_max)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.ecn_min_bytes = p.ecn_max_bytes;
	assert_refused(&p, "roce.ecn: min_bytes 1500000 must be below max_bytes 1500000");
}
END_TEST

START_TEST(qos_refuses_a_cnp_class_that_is_not_strict)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.strict_mask = 0;
	p.ets_weight[0] = 40;
	p.ets_weight[6] = 10;
	assert_refused(&p, "roce.cnp.priority: class 6 carries CNPs and must be strict");
}
END_TEST

START_TEST(qos_refuses_a_cnp_dscp_that_maps_to_another_class)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.cnp_dscp = 46;   /* unlisted: default class 0 */
	assert_refused(&p, "roce.cnp.dscp: CNPs use DSCP 46, which maps to traffic class 0");
}
END_TEST

START_TEST(qos_refuses_ecn_max_above_the_pause_threshold)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.pause_threshold_bytes = 1000000;
	assert_refused(&p, "roce.ecn.max_bytes: 1500000 is at or above the pause threshold 1000000");
	p.pause_threshold_bytes = 2000000;
	ck_assert_int_eq(qos_policy_check(&p, "roce", NULL, err, sizeof(err)), 0);
}
END_TEST

START_TEST(qos_refuses_weights_that_do_not_sum_to_100_or_leave_a_class_out)
{
	struct qos_policy p;

	qos_policy_defaults(&p);
	p.ets_weight[0] = 40;
	assert_refused(&p, "roce.ets.weights: the weights sum to 90, not 100");
	qos_policy_defaults(&p);
	p.dscp_to_tc[10] = 1;
	assert_refused(&p, "roce.ets.weights: traffic class 1 carries traffic");
}
END_TEST

START_TEST(qos_override_replaces_only_the_fields_it_sets)
{
	struct qos_policy p, o;

	qos_policy_defaults(&p);
	memset(&o, 0, sizeof(o));
	memset(o.dscp_to_tc, QOS_DSCP_UNSET, sizeof(o.dscp_to_tc));
	o.set = QOS_ECN_MIN | QOS_ECN_MAX | QOS_ECN_PERCENT | QOS_DSCP_MAP;
	o.dscp_to_tc[46] = 6;   /* one entry more: the others stay */
	o.ecn_min_bytes = 1000;
	o.ecn_max_bytes = 2000;
	o.ecn_mark_percent = 50;
	o.cable_m = 300;  /* not set: ignored */
	qos_policy_merge(&p, &o);
	ck_assert_uint_eq(p.ecn_min_bytes, 1000);
	ck_assert_uint_eq(p.ecn_mark_percent, 50);
	ck_assert_uint_eq(p.cable_m, 5);
	ck_assert_uint_eq(p.lossless_mask, 1u << 3);
	ck_assert_uint_eq(qos_policy_tc(&p, 46), 6);
	ck_assert_uint_eq(qos_policy_tc(&p, 26), 3);
	ck_assert_int_eq(qos_policy_check(&p, "switches[leaf1].roce", NULL, err, sizeof(err)), 0);
}
END_TEST

/* Headroom worked by hand: 100 Gb/s over 5 m: 2 * 5 m * 5 ns = 50 ns =
 * 5000 bits on the wire, + 3840 bits response = 8840 bits = 1105 bytes, +
 * 2 * 9216 = 19537, rounded up to 20480. 400 Gb/s over 100 m: 400000 bits
 * + 3840 = 403840 bits = 50480 bytes + 18432 = 68912 -> 69632. */
START_TEST(qos_headroom_is_the_round_trip_plus_two_frames)
{
	struct lp_port_buffer b;

	qos_headroom(100000, 5, 9216, &b);
	ck_assert_uint_eq(b.xoff_bytes, 20480);
	ck_assert_uint_eq(b.xon_bytes, 18432);
	ck_assert_uint_eq(b.size_bytes, 20480 + 18432);
	qos_headroom(400000, 100, 9216, &b);
	ck_assert_uint_eq(b.xoff_bytes, 69632);
}
END_TEST

START_TEST(qos_resolves_ecn_and_pfc_on_the_lossless_queues_only)
{
	struct qos_policy p;
	struct lp_port ports[2] = { { .name = "Ethernet0", .speed_mbps = 100000 },
				    { .name = "Ethernet4", .speed_mbps = 400000 } };
	struct lp_qos *q = malloc(sizeof(*q));

	qos_policy_defaults(&p);
	ck_assert_int_eq(qos_policy_resolve(&p, ports, 2, q), 0);
	ck_assert_uint_eq(q->pfc_mask, 1u << 3);
	ck_assert_uint_eq(q->dscp_to_tc[26], 3);
	ck_assert_uint_eq(q->dscp_to_tc[1], 0);
	ck_assert_uint_eq(q->tc_to_pg[3], 3);
	ck_assert_uint_eq(q->tc_to_pg[6], 0);
	for (unsigned t = 0; t < LP_TCS; t++)
		ck_assert_uint_eq(q->ecn[t].enabled, t == 3);
	ck_assert_uint_eq(q->ecn[3].max_bytes, 1500000);
	ck_assert_uint_eq(q->strict_mask, 1u << 6);
	ck_assert_uint_eq(q->n_ports, 2);
	ck_assert_str_eq(q->ports[1].port, "Ethernet4");
	ck_assert_uint_gt(q->ports[1].xoff_bytes, q->ports[0].xoff_bytes);
	free(q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qos_policy");
	TCase *tc = tcase_create("qos_policy");

	tcase_add_test(tc, qos_defaults_are_a_valid_policy);
	tcase_add_test(tc, qos_refuses_pfc_on_a_priority_no_dscp_maps_to);
	tcase_add_test(tc, qos_refuses_ecn_min_at_or_above_max);
	tcase_add_test(tc, qos_refuses_a_cnp_class_that_is_not_strict);
	tcase_add_test(tc, qos_refuses_a_cnp_dscp_that_maps_to_another_class);
	tcase_add_test(tc, qos_refuses_ecn_max_above_the_pause_threshold);
	tcase_add_test(tc, qos_refuses_weights_that_do_not_sum_to_100_or_leave_a_class_out);
	tcase_add_test(tc, qos_override_replaces_only_the_fields_it_sets);
	tcase_add_test(tc, qos_headroom_is_the_round_trip_plus_two_frames);
	tcase_add_test(tc, qos_resolves_ecn_and_pfc_on_the_lossless_queues_only);
	suite_add_tcase(s, tc);
	return check_run(s);
}
