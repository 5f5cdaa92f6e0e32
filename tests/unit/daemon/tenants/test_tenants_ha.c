/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/tenants/test_tenants_ha.c: the tenants under HA (daemon/tenants/tenants_fence.c),
 * the parts that need no etcd: the fence inside a change (a lost lease stops
 * it: not-leader when another node leads, no-quorum when none is known;
 * nothing without HA), a switch's VLAN push stopped by it with nothing
 * pushed and nothing undone (the new leader owns the ports), the record
 * a tenant gives etcd, and a tenant's states (daemon/tenants/tenants_state.c). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tenants/tenants_impl.h"
#include "tests/unit/fixtures/check_run.h"

static int held_answer;
static int held_calls;

static int fake_held(void *arg)
{
	(void)arg;
	held_calls++;
	return held_answer;
}

static struct tenants_mod mod;
static struct top top;

static void setup(void)
{
	memset(&mod, 0, sizeof(mod));
	memset(&top, 0, sizeof(top));
	top.m = &mod;
	strcpy(top.name, "jobA");
	mod.iw.held = fake_held;
	mod.iw.node = "node-a";
	held_calls = 0;
}

START_TEST(fence_held_lets_the_change_go_on)
{
	held_answer = 1;
	ck_assert_int_eq(tenants_fence_lost(&top), 0);
	ck_assert_int_eq(top.lost, 0);
	ck_assert_int_eq(top.rc, 0);
	ck_assert_int_eq(held_calls, 1);
}
END_TEST

START_TEST(fence_lost_to_another_leader_stops_the_change)
{
	held_answer = 0;
	ck_assert_int_eq(tenants_fence_lost(&top), 1);
	ck_assert_int_eq(top.lost, 1);  /* answered not-leader */
	ck_assert_int_eq(top.rc, -EPERM);
	ck_assert_ptr_nonnull(strstr(top.err, "(node-a) lost the leadership"));
	ck_assert_ptr_nonnull(strstr(top.err, "another node leads"));
}
END_TEST

START_TEST(fence_lost_without_quorum_says_so)
{
	held_answer = -1;
	ck_assert_int_eq(tenants_fence_lost(&top), 1);
	ck_assert_int_eq(top.lost, 2);  /* answered no-quorum */
	ck_assert_ptr_nonnull(strstr(top.err, "no etcd quorum"));
}
END_TEST

START_TEST(no_fence_without_ha)
{
	mod.iw.held = NULL;
	ck_assert_int_eq(tenants_fence_lost(&top), 0);
	ck_assert_int_eq(top.lost, 0);
}
END_TEST

/* A switch whose calls are counted. */
static int n_open, n_set, n_clear, n_get;
static uint16_t port_vid[2];

static int sw_open(const struct lp_endpoint *ep, const struct lp_host *host,
		   struct lp_switch **out, char *err, size_t errlen)
{
	(void)ep, (void)host, (void)err, (void)errlen;
	n_open++;
	*out = (struct lp_switch *)&n_open;  /* any non-NULL handle */
	return 0;
}

static void sw_close(struct lp_switch *sw)
{
	(void)sw;
}

static int port_index(const char *port)
{
	return strcmp(port, "Ethernet0") ? 1 : 0;
}

static int sw_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
		       size_t errlen)
{
	(void)sw, (void)err, (void)errlen;
	n_get++;
	*vid = port_vid[port_index(port)];
	return 0;
}

static int sw_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
		       size_t errlen)
{
	(void)sw, (void)err, (void)errlen;
	n_set++;
	port_vid[port_index(port)] = vid;
	return 0;
}

static int sw_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	(void)sw, (void)err, (void)errlen;
	n_clear++;
	port_vid[port_index(port)] = 0;
	return 0;
}

static const struct loom_plugin_v1 fake_ops = {
	.name = "fake", .open = sw_open, .close = sw_close, .vlan_get = sw_vlan_get,
	.vlan_set = sw_vlan_set, .vlan_clear = sw_vlan_clear,
};

/* One switch, two host ports: Ethernet0 a member (VLAN 0 now), Ethernet4 not
 * (VLAN 2000 now: another port holds the tenant's VLAN). */
static void one_switch(struct top *t, struct top_switch *s)
{
	static char ports[2][LP_NAME_LEN] = { "Ethernet0", "Ethernet4" };
	static uint8_t member[2] = { 1, 0 };

	memset(s, 0, sizeof(*s));
	strcpy(s->sw.name, "leaf1");
	s->ops = &fake_ops;
	s->ports = ports;
	s->member = member;
	s->n_ports = 2;
	t->eth = s;
	t->n_eth = 1;
	t->vlan = 2000;
	n_open = n_set = n_clear = n_get = 0;
	port_vid[0] = 0;
	port_vid[1] = 2000;
}

START_TEST(vlan_push_happens_while_the_lease_holds)
{
	struct top_switch s;

	one_switch(&top, &s);
	held_answer = 1;
	ck_assert_int_eq(tenants_eth_apply(&top), 0);
	ck_assert_int_eq(n_set, 1);
	ck_assert_int_eq(n_clear, 1);
	ck_assert_int_eq(port_vid[0], 2000);
	ck_assert_int_eq(port_vid[1], 0);
	free(s.before);
	free(s.changed);
}
END_TEST

START_TEST(vlan_push_stops_when_the_lease_is_lost)
{
	struct top_switch s;

	one_switch(&top, &s);
	held_answer = 0;
	ck_assert_int_eq(tenants_eth_apply(&top), -EPERM);
	ck_assert_int_eq(top.lost, 1);
	ck_assert_int_eq(n_set, 0);    /* nothing pushed */
	ck_assert_int_eq(n_clear, 0);  /* and nothing "undone" */
	ck_assert_int_eq(port_vid[0], 0);
	ck_assert_int_eq(port_vid[1], 2000);
	free(s.before);
	free(s.changed);
}
END_TEST

START_TEST(record_from_a_stored_tenant)
{
	json_t *tn = json_pack("{s:s, s:i, s:s, s:s, s:s, s:[{s:s, s:s}]}", "name", "jobA",
			       "pkey", 0x1001, "membership", "limited", "state", "active",
			       "creator", "token slurm", "ports", "host", "host-0000", "guid",
			       "0x0002c90300000001");
	json_t *r = tenants_record(tn, "node-b", TENANT_APPLYING);

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(r, "name")), "jobA");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "pkey")), 0x1001);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "vlan")), 0);
	ck_assert(json_is_true(json_object_get(r, "limited")));
	ck_assert_str_eq(json_string_value(json_object_get(r, "state")), "applying");
	ck_assert_str_eq(json_string_value(json_object_get(r, "leader")), "node-b");
	ck_assert_str_eq(json_string_value(json_object_get(r, "by")), "token slurm");
	ck_assert_int_eq(json_array_size(json_object_get(r, "ports")), 1);
	/* a tenant without switch ports: an empty list, as load_one needs */
	ck_assert(json_is_array(json_object_get(r, "eth_ports")));
	ck_assert_int_eq(json_array_size(json_object_get(r, "eth_ports")), 0);
	json_decref(r);
	json_decref(tn);
}
END_TEST

/* tenants_state.c: the names the database keeps, and the diagram's arrows. */
START_TEST(state_names_are_the_databases)
{
	static const char *const names[] = { "applying", "active", "failed", "deleted" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_str_eq(tenants_state_name(tenants_state_parse(names[i])), names[i]);
	ck_assert_int_eq(tenants_state_parse(NULL), TENANT_DELETED);
	ck_assert_int_eq(tenants_state_parse("rolling"), TENANT_DELETED);
}
END_TEST

START_TEST(state_steps_follow_the_diagram)
{
	/* a change: from anything to applying */
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_CHANGED, 0), TENANT_APPLYING);
	ck_assert_int_eq(tenants_state_next(TENANT_FAILED, TENANT_CHANGED, 0), TENANT_APPLYING);
	/* the fabric's answer, from any stored state; a deleted tenant has none */
	ck_assert_int_eq(tenants_state_next(TENANT_APPLYING, TENANT_CONFIRMED, 0), TENANT_ACTIVE);
	ck_assert_int_eq(tenants_state_next(TENANT_FAILED, TENANT_CONFIRMED, 0), TENANT_ACTIVE);
	ck_assert_int_eq(tenants_state_next(TENANT_ACTIVE, TENANT_NOT_CONFIRMED, 0), TENANT_FAILED);
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_CONFIRMED, 0), -EINVAL);
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_NOT_CONFIRMED, 0), -EINVAL);
	/* a rollback goes where the caller says, only from a change */
	ck_assert_int_eq(tenants_state_next(TENANT_APPLYING, TENANT_ROLLED_BACK, TENANT_FAILED),
			 TENANT_FAILED);
	ck_assert_int_eq(tenants_state_next(TENANT_APPLYING, TENANT_ROLLED_BACK, TENANT_DELETED),
			 TENANT_DELETED);
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_ROLLED_BACK, TENANT_ACTIVE),
			 TENANT_ACTIVE);
	ck_assert_int_eq(tenants_state_next(TENANT_ACTIVE, TENANT_ROLLED_BACK, TENANT_FAILED),
			 -EINVAL);
	/* delete; a mirror reaches a stored state, never "deleted" */
	ck_assert_int_eq(tenants_state_next(TENANT_ACTIVE, TENANT_REMOVED, 0), TENANT_DELETED);
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_REMOVED, 0), -EINVAL);
	ck_assert_int_eq(tenants_state_next(TENANT_DELETED, TENANT_MIRRORED, TENANT_APPLYING),
			 TENANT_APPLYING);
	ck_assert_int_eq(tenants_state_next(TENANT_ACTIVE, TENANT_MIRRORED, TENANT_DELETED),
			 -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tenants_ha");
	TCase *tc = tcase_create("fence");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, fence_held_lets_the_change_go_on);
	tcase_add_test(tc, fence_lost_to_another_leader_stops_the_change);
	tcase_add_test(tc, fence_lost_without_quorum_says_so);
	tcase_add_test(tc, no_fence_without_ha);
	tcase_add_test(tc, vlan_push_happens_while_the_lease_holds);
	tcase_add_test(tc, vlan_push_stops_when_the_lease_is_lost);
	tcase_add_test(tc, record_from_a_stored_tenant);
	suite_add_tcase(s, tc);
	tc = tcase_create("state");
	tcase_add_test(tc, state_names_are_the_databases);
	tcase_add_test(tc, state_steps_follow_the_diagram);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
