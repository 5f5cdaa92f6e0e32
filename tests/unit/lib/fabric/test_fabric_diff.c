/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_fabric_diff.c: the change events between two sweeps. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/fabric/fabric_diff.h"
#include "tests/unit/fixtures/check_run.h"

#define SW1 0x0002c90000000010ULL
#define SW2 0x0002c90000000040ULL
#define CA_A 0x0002c90000000020ULL
#define CA_B 0x0002c90000000030ULL
#define CA_C 0x0002c90000000050ULL

/* sw1 (8 ports) with CA A on port 1, CA B on port 2 and sw2 on port 3.
 * `without` leaves out one node (and its link). */
static struct fab *base(uint64_t without)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW1, 8, "sw1", 1);
	if (without != SW2)
		fixture_node(f, IBT_NODE_SWITCH, SW2, 8, "sw2", 2);
	fixture_node(f, IBT_NODE_CA, CA_A, 1, "hostA mlx5_0", 5);
	fixture_node(f, IBT_NODE_CA, CA_B, 1, "hostB mlx5_0", 6);
	fixture_link(f, SW1, 1, CA_A, 1);
	fixture_link(f, SW1, 2, CA_B, 1);
	if (without != SW2)
		fixture_link(f, SW1, 3, SW2, 1);
	return f;
}

static struct fab_diff *diff(const struct fab *old, const struct fab *cur)
{
	char err[256];
	struct fab_diff *d;

	ck_assert_int_eq(fab_check(cur, err, sizeof(err)), 0);
	d = fab_diff_new(old, cur, NULL);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void assert_event(const struct fab_event *ev, enum fab_ev_kind kind,
			 enum fab_ev_severity sev, const char *subject,
			 const char *old_value, const char *new_value)
{
	ck_assert_str_eq(fab_ev_kind_name(ev->kind), fab_ev_kind_name(kind));
	ck_assert_str_eq(fab_ev_severity_name(ev->severity), fab_ev_severity_name(sev));
	ck_assert_str_eq(ev->subject, subject);
	ck_assert_str_eq(ev->old_value, old_value);
	ck_assert_str_eq(ev->new_value, new_value);
}

START_TEST(identical_fabrics_have_no_events)
{
	struct fab *a = base(0), *b = base(0);
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 0);
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(first_sweep_is_one_summary_event)
{
	struct fab *f = base(0);
	struct fab_diff *d = diff(NULL, f);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_SUBNET_FIRST_SWEEP, FAB_SEV_INFO, "subnet ib0", "",
		     "4 nodes (2 switches, 2 CAs), 3 links");
	fab_diff_free(d);
	fab_free(f);
}
END_TEST

START_TEST(new_node_is_one_event_without_its_links)
{
	struct fab *a = base(0), *b = base(0);

	fixture_node(b, IBT_NODE_CA, CA_C, 1, "hostC mlx5_0", 7);
	fixture_link(b, SW1, 4, CA_C, 1);
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_NODE_APPEARED, FAB_SEV_NOTICE,
		     "0x0002c90000000050 (hostC mlx5_0)", "", "ca");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(vanished_switch_is_one_event_not_a_flood)
{
	struct fab *a = base(0), *b = base(SW2);
	struct fab_diff *d = diff(a, b);

	/* sw1 port 3 went down with sw2: explained by the node event. */
	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_NODE_DISAPPEARED, FAB_SEV_WARNING,
		     "0x0002c90000000040 (sw2)", "switch", "");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(unplugged_cable_is_link_down_only)
{
	struct fab *a = base(0), *b = base(0);

	fixture_unlink(b, SW1, 1);
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LINK_DOWN, FAB_SEV_WARNING,
		     "0x0002c90000000010[1] (sw1) <-> 0x0002c90000000020[1] (hostA mlx5_0)",
		     "4x QDR", "");
	fab_diff_free(d);
	d = diff(b, a);
	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LINK_UP, FAB_SEV_NOTICE,
		     "0x0002c90000000010[1] (sw1) <-> 0x0002c90000000020[1] (hostA mlx5_0)",
		     "", "4x QDR");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(moved_cable_is_down_of_old_and_up_of_new)
{
	struct fab *a = base(0), *b = base(0);

	fixture_unlink(b, SW1, 1);
	fixture_link(b, SW1, 5, CA_A, 1);
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 2);
	assert_event(&d->events[0], FAB_EV_LINK_UP, FAB_SEV_NOTICE,
		     "0x0002c90000000010[5] (sw1) <-> 0x0002c90000000020[1] (hostA mlx5_0)",
		     "", "4x QDR");
	assert_event(&d->events[1], FAB_EV_LINK_DOWN, FAB_SEV_WARNING,
		     "0x0002c90000000010[1] (sw1) <-> 0x0002c90000000020[1] (hostA mlx5_0)",
		     "4x QDR", "");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(port_state_change_on_a_kept_link)
{
	struct fab *a = base(0), *b = base(0);

	/* The SM restarted: the link is there, the CA port is back in init. */
	fab_find(b, CA_B)->ports[1].state = 2;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_PORT_STATE, FAB_SEV_WARNING,
		     "0x0002c90000000030[1] (hostB mlx5_0)", "active/linkup", "init/linkup");
	fab_diff_free(d);
	d = diff(b, a);
	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_PORT_STATE, FAB_SEV_NOTICE,
		     "0x0002c90000000030[1] (hostB mlx5_0)", "init/linkup", "active/linkup");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(unlinked_port_phys_state_change)
{
	struct fab *a = base(0), *b = base(0);

	fab_find(b, SW1)->ports[7].phys_state = 3;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_PORT_STATE, FAB_SEV_NOTICE,
		     "0x0002c90000000010[7] (sw1)", "down/polling", "down/disabled");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(degraded_and_restored_link)
{
	struct fab *a = base(0), *b = base(0);

	fab_find(b, SW1)->ports[3].width_active = IBT_WIDTH_1X;
	fab_find(b, SW2)->ports[1].width_active = IBT_WIDTH_1X;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LINK_DEGRADED, FAB_SEV_WARNING,
		     "0x0002c90000000010[3] (sw1) <-> 0x0002c90000000040[1] (sw2)",
		     "4x QDR", "1x QDR");
	fab_diff_free(d);
	d = diff(b, a);
	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LINK_RESTORED, FAB_SEV_NOTICE,
		     "0x0002c90000000010[3] (sw1) <-> 0x0002c90000000040[1] (sw2)",
		     "1x QDR", "4x QDR");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(slower_speed_is_degraded)
{
	struct fab *a = base(0), *b = base(0);

	fab_find(b, SW1)->ports[2].speed_active = IBT_SPEED_SDR;
	fab_find(b, CA_B)->ports[1].speed_active = IBT_SPEED_SDR;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LINK_DEGRADED, FAB_SEV_WARNING,
		     "0x0002c90000000010[2] (sw1) <-> 0x0002c90000000030[1] (hostB mlx5_0)",
		     "4x QDR", "4x SDR");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(ca_lid_change_is_per_port)
{
	struct fab *a = base(0), *b = base(0);

	fab_find(b, CA_A)->ports[1].lid = 9;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LID_CHANGE, FAB_SEV_NOTICE,
		     "0x0002c90000000020[1] (hostA mlx5_0)", "5", "9");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(switch_lid_change_is_one_event)
{
	struct fab *a = base(0), *b = base(0);
	struct fab_node *sw = fab_find(b, SW2);

	for (unsigned p = 0; p <= sw->nports; p++)
		sw->ports[p].lid = 42;
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_LID_CHANGE, FAB_SEV_NOTICE,
		     "0x0002c90000000040[0] (sw2)", "2", "42");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(description_change)
{
	struct fab *a = base(0), *b = base(0);

	snprintf(fab_find(b, CA_B)->desc, FAB_DESC_LEN + 1, "%s", "hostB-renamed mlx5_0");
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_DESC_CHANGE, FAB_SEV_INFO,
		     "0x0002c90000000030 (hostB-renamed mlx5_0)", "hostB mlx5_0",
		     "hostB-renamed mlx5_0");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

/* Build the same changed fabric in another node order: same event list. */
START_TEST(output_is_sorted_and_independent_of_node_order)
{
	struct fab *a = base(0), *b = base(SW2), *c = fab_new("ib0");
	struct fab_diff *d1, *d2;

	fixture_node(b, IBT_NODE_CA, CA_C, 1, "hostC mlx5_0", 7);
	fixture_link(b, SW1, 4, CA_C, 1);
	fab_find(b, CA_A)->ports[1].lid = 9;
	fixture_unlink(b, SW1, 2);
	for (size_t i = b->n_nodes; i-- > 0;) {
		const struct fab_node *src = b->nodes[i];
		struct fab_node *n = fab_add_node(c, src->type, src->guid, src->nports);

		ck_assert_ptr_nonnull(n);
		memcpy(n->desc, src->desc, sizeof(n->desc));
		memcpy(n->ports, src->ports, ((size_t)src->nports + 1) * sizeof(*n->ports));
	}
	d1 = diff(a, b);
	d2 = diff(a, c);
	ck_assert_uint_eq(d1->n_events, 4);
	ck_assert_uint_eq(d2->n_events, d1->n_events);
	for (size_t i = 0; i < d1->n_events; i++) {
		ck_assert_str_eq(d1->events[i].subject, d2->events[i].subject);
		ck_assert_int_eq(d1->events[i].kind, d2->events[i].kind);
		if (i > 0)
			ck_assert_int_le(d1->events[i - 1].kind, d1->events[i].kind);
	}
	ck_assert_int_eq(d1->events[0].kind, FAB_EV_NODE_APPEARED);
	ck_assert_int_eq(d1->events[1].kind, FAB_EV_NODE_DISAPPEARED);
	ck_assert_int_eq(d1->events[2].kind, FAB_EV_LINK_DOWN);
	ck_assert_int_eq(d1->events[3].kind, FAB_EV_LID_CHANGE);
	fab_diff_free(d1);
	fab_diff_free(d2);
	fab_free(a);
	fab_free(b);
	fab_free(c);
}
END_TEST

/* A switch with n CAs, each CA port in `state`. */
static struct fab *hosts(unsigned n, int state)
{
	struct fab *f = fab_new("ib0");

	fixture_node(f, IBT_NODE_SWITCH, SW1, 40, "sw1", 1);
	for (unsigned i = 0; i < n; i++) {
		char desc[32];

		snprintf(desc, sizeof(desc), "host%02u mlx5_0", i);
		fixture_node(f, IBT_NODE_CA, CA_A + 0x100 * (i + 1), 1, desc, 10 + i);
		fixture_link(f, SW1, i + 1, CA_A + 0x100 * (i + 1), 1);
		fab_find(f, CA_A + 0x100 * (i + 1))->ports[1].state = state;
	}
	return f;
}

START_TEST(a_storm_of_port_states_is_one_event)
{
	/* Up to FAB_DIFF_EACH ports each their own event... */
	struct fab *a = hosts(FAB_DIFF_EACH, 2), *b = hosts(FAB_DIFF_EACH, 4);
	struct fab_diff *d = diff(a, b);

	ck_assert_uint_eq(d->n_events, FAB_DIFF_EACH);
	ck_assert_int_eq(d->events[0].kind, FAB_EV_PORT_STATE);
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
	/* ... one more (the SM bringing the subnet up) and they are one. */
	a = hosts(FAB_DIFF_EACH + 4, 2);
	b = hosts(FAB_DIFF_EACH + 4, 4);
	fab_find(b, CA_A + 0x100)->ports[1].state = 3;
	d = diff(a, b);
	ck_assert_uint_eq(d->n_events, 1);
	assert_event(&d->events[0], FAB_EV_PORT_STATES, FAB_SEV_NOTICE, "subnet ib0",
		     "the first: 0x0002c90000000120[1] (host00 mlx5_0)",
		     "20 changes: 1 init/linkup -> armed/linkup, 19 init/linkup -> active/linkup");
	fab_diff_free(d);
	fab_free(a);
	fab_free(b);
}
END_TEST

START_TEST(kind_and_severity_names)
{
	ck_assert_str_eq(fab_ev_kind_name(FAB_EV_LINK_DOWN), "link_down");
	ck_assert_str_eq(fab_ev_kind_name(FAB_EV_SUBNET_FIRST_SWEEP), "subnet_first_sweep");
	ck_assert_str_eq(fab_ev_kind_name(FAB_EV_DESC_CHANGE), "desc_change");
	ck_assert_str_eq(fab_ev_kind_name(FAB_EV_PORT_STATES), "port_states");
	ck_assert_str_eq(fab_ev_kind_name(FAB_EV_DESC_CHANGES), "desc_changes");
	ck_assert_str_eq(fab_ev_severity_name(FAB_SEV_WARNING), "warning");
	ck_assert_str_eq(fab_ev_severity_name(FAB_SEV_ERROR), "error");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fabric_diff");
	TCase *tc = tcase_create("diff");

	tcase_add_test(tc, identical_fabrics_have_no_events);
	tcase_add_test(tc, first_sweep_is_one_summary_event);
	tcase_add_test(tc, new_node_is_one_event_without_its_links);
	tcase_add_test(tc, vanished_switch_is_one_event_not_a_flood);
	tcase_add_test(tc, unplugged_cable_is_link_down_only);
	tcase_add_test(tc, moved_cable_is_down_of_old_and_up_of_new);
	tcase_add_test(tc, port_state_change_on_a_kept_link);
	tcase_add_test(tc, unlinked_port_phys_state_change);
	tcase_add_test(tc, degraded_and_restored_link);
	tcase_add_test(tc, slower_speed_is_degraded);
	tcase_add_test(tc, ca_lid_change_is_per_port);
	tcase_add_test(tc, switch_lid_change_is_one_event);
	tcase_add_test(tc, description_change);
	tcase_add_test(tc, output_is_sorted_and_independent_of_node_order);
	tcase_add_test(tc, a_storm_of_port_states_is_one_event);
	tcase_add_test(tc, kind_and_severity_names);
	suite_add_tcase(s, tc);
	return check_run(s);
}
