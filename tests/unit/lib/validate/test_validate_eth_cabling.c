/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_eth_cabling.c: the cabling plan's
 * Ethernet rows against the switches' LLDP neighbours (lib/validate/
 * eth_cabling.c): LLDP as planned has no finding (a switch found by its
 * hostname, a port by its alias); a neighbour on another port of the planned
 * switch is miswired, on another switch wrong-peer; no neighbour at either
 * end missing; one end's LLDP alone saying otherwise judged from that end;
 * two cables crosswise one swapped; a neighbour the plan lacks
 * extra; rows LLDP cannot see (no managed end, or a silent host) not seen;
 * the InfiniBand check skips the Ethernet rows of a mixed plan. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/cabling.h"
#include "lib/validate/eth_cabling.h"
#include "lib/validate/plan.h"
#include "tests/unit/fixtures/check_run.h"

static const char *const PLAN =
	"node,port,peer,peer_port\n"
	"spine-1,Ethernet0,leaf-1,Ethernet48\n"
	"spine-1,Ethernet4,leaf-2,Ethernet48\n"
	"leaf-1,Ethernet0,h1,eth0\n"
	"# a host that speaks no LLDP, and two hosts no managed switch sees\n"
	"leaf-2,Ethernet0,h2,eth0\n"
	"h3,eth0,h4,eth0\n";

static const struct eth_switch_seen SW[] = {
	{ "spine-1", "spine-1" }, { "leaf-1", "sonic-leaf1" }, { "leaf-2", "" },
};

/* The LLDP reads as planned; tests change copies. */
static const struct eth_port_seen PORTS[] = {
	{ "spine-1", "Ethernet0", "", 1, "sonic-leaf1", "etp13", "" },
	{ "spine-1", "Ethernet4", "", 1, "leaf-2", "Ethernet48", "" },
	{ "leaf-1", "Ethernet48", "etp13", 1, "spine-1", "Ethernet0", "" },
	{ "leaf-1", "Ethernet0", "", 1, "h1", "eth0", "" },
	{ "leaf-2", "Ethernet48", "", 1, "spine-1", "Ethernet4", "" },
	{ "leaf-2", "Ethernet52", "", 0, "", "", "" },
	{ "leaf-2", "Ethernet0", "", 1, "", "", "" },
};
#define N_PORTS (sizeof(PORTS) / sizeof(PORTS[0]))

static struct plan *plan_of(const char *text)
{
	char err[512] = "";
	struct plan *p = plan_parse("plan.csv", text, strlen(text), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

/* The check of PLAN over ports[0..n); the findings in *r, *not_seen. */
static void check(const struct eth_port_seen *ports, size_t n, struct val_report *r,
		  size_t *not_seen)
{
	struct plan *p = plan_of(PLAN);
	struct eth_seen s = { SW, 3, ports, n };
	char err[256] = "";
	int rc = eth_cabling_check(p, &s, r, not_seen, err, sizeof(err));

	ck_assert_msg(rc == 0, "eth_cabling_check: %d %s", rc, err);
	val_report_sort(r);
	plan_free(p);
}

static void one(const struct val_report *r, const char *code, const char *subject,
		const char *got)
{
	ck_assert_msg(r->n == 1, "%zu findings, the first %s %s", r->n,
		      r->n ? val_code_name(r->f[0].code) : "", r->n ? r->f[0].subject : "");
	ck_assert_str_eq(val_code_name(r->f[0].code), code);
	ck_assert_str_eq(r->f[0].subject, subject);
	if (got)
		ck_assert_str_eq(r->f[0].got, got);
}

START_TEST(lldp_as_planned_has_no_finding)
{
	struct val_report r = { 0 };
	size_t not_seen;

	check(PORTS, N_PORTS, &r, &not_seen);
	ck_assert_msg(r.n == 0, "%s %s", val_code_name(r.f[0].code), r.f[0].subject);
	ck_assert_uint_eq(r.cables, 3);
	ck_assert_uint_eq(r.cables_ok, 3);
	ck_assert_uint_eq(not_seen, 2);
	val_report_clear(&r);
}
END_TEST

START_TEST(another_port_of_the_planned_switch_is_miswired)
{
	struct eth_port_seen p[N_PORTS];
	struct val_report r = { 0 };
	size_t ns;

	memcpy(p, PORTS, sizeof(p));
	p[1].peer_port = "Ethernet52";     /* spine-1 sees leaf-2's Ethernet52 */
	p[4].up = 0;                        /* leaf-2 Ethernet48 down ... */
	p[5] = (struct eth_port_seen){ "leaf-2", "Ethernet52", "", 1, "spine-1", "Ethernet4", "" };
	check(p, N_PORTS, &r, &ns);
	one(&r, "miswired", "spine-1[Ethernet4]", "spine-1[Ethernet4] - leaf-2[Ethernet52]");
	ck_assert_str_eq(r.f[0].want, "spine-1[Ethernet4] - leaf-2[Ethernet48]");
	ck_assert_uint_eq(r.f[0].line, 3);
	val_report_clear(&r);
}
END_TEST

START_TEST(one_end_seeing_another_port_is_judged_from_that_end)
{
	struct eth_port_seen p[N_PORTS];
	struct val_report r = { 0 };
	size_t ns;

	/* leaf-1 still sees spine-1[Ethernet0]; spine-1 sees leaf-2 there */
	memcpy(p, PORTS, sizeof(p));
	p[0].peer_name = "leaf-2";
	p[0].peer_port = "Ethernet56";
	check(p, N_PORTS, &r, &ns);
	one(&r, "wrong-peer", "spine-1[Ethernet0]", "spine-1[Ethernet0] - leaf-2[Ethernet56]");
	val_report_clear(&r);
}
END_TEST

START_TEST(another_switch_is_wrong_peer)
{
	struct eth_port_seen p[N_PORTS];
	struct val_report r = { 0 };
	size_t ns;

	memcpy(p, PORTS, sizeof(p));
	p[3].peer_name = "h7";              /* leaf-1 Ethernet0 sees h7, not h1 */
	check(p, N_PORTS, &r, &ns);
	one(&r, "wrong-peer", "leaf-1[Ethernet0]", "leaf-1[Ethernet0] - h7[eth0]");
	val_report_clear(&r);
}
END_TEST

START_TEST(no_neighbour_at_either_end_is_missing)
{
	struct eth_port_seen p[N_PORTS];
	struct val_report r = { 0 };
	size_t ns;

	memcpy(p, PORTS, sizeof(p));
	p[1].up = 0;
	p[4].peer_name = "";
	check(p, N_PORTS, &r, &ns);
	one(&r, "missing", "spine-1[Ethernet4] - leaf-2[Ethernet48]", NULL);
	val_report_clear(&r);
}
END_TEST

START_TEST(two_cables_crosswise_are_one_swap)
{
	struct eth_port_seen p[N_PORTS];
	struct val_report r = { 0 };
	size_t ns;

	memcpy(p, PORTS, sizeof(p));
	p[0].peer_name = "leaf-2";
	p[0].peer_port = "Ethernet48";
	p[1].peer_name = "leaf-1";
	p[1].peer_port = "Ethernet48";
	p[2].peer_port = "Ethernet4";
	p[4].peer_port = "Ethernet0";
	check(p, N_PORTS, &r, &ns);
	one(&r, "swapped", "spine-1[Ethernet0] and spine-1[Ethernet4]", NULL);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_neighbour_the_plan_lacks_is_extra)
{
	struct eth_port_seen p[N_PORTS + 1];
	struct val_report r = { 0 };
	size_t ns;

	memcpy(p, PORTS, sizeof(PORTS));
	p[N_PORTS] = (struct eth_port_seen){ "leaf-1", "Ethernet8", "", 1, "", "eth1",
					     "b8:59:9f:00:00:09" };
	check(p, N_PORTS + 1, &r, &ns);
	one(&r, "extra", "leaf-1[Ethernet8] - b8:59:9f:00:00:09[eth1]", NULL);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_silent_host_seen_elsewhere_is_judged)
{
	struct eth_port_seen p[N_PORTS + 1];
	struct val_report r = { 0 };
	size_t ns;

	/* h2 speaks LLDP on leaf-1 (unplanned): its planned cable to leaf-2,
	 * with no neighbour there, is missing */
	memcpy(p, PORTS, sizeof(PORTS));
	p[N_PORTS] = (struct eth_port_seen){ "leaf-1", "Ethernet8", "", 1, "h2", "eth1", "" };
	check(p, N_PORTS + 1, &r, &ns);
	ck_assert_uint_eq(ns, 1);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(val_code_name(r.f[0].code), "extra");
	ck_assert_str_eq(r.f[0].subject, "leaf-1[Ethernet8] - h2[eth1]");
	ck_assert_str_eq(val_code_name(r.f[1].code), "missing");
	ck_assert_str_eq(r.f[1].subject, "leaf-2[Ethernet0] - h2[eth0]");
	val_report_clear(&r);
}
END_TEST

START_TEST(the_infiniband_check_skips_ethernet_rows)
{
	static const char *const net = "Switch 8 \"sw1\"\n[1] \"hA\"[1]\n\nHca 1 \"hA\"\n[1] \"sw1\"[1]\n";
	char err[256] = "";
	struct fab *f = topo_file_parse("f.net", net, strlen(net), "ib0", err, sizeof(err));
	struct plan *p = plan_of("sw1,1,hA,1\n" "spine-1,Ethernet0,leaf-1,Ethernet48\n"
				 "spine-2,Ethernet0,leaf-2,Ethernet48\n");
	struct val_report r = { 0 };

	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_uint_eq(p->n_eth, 2);
	ck_assert_int_eq(cabling_check(p, f, NULL, &r, err, sizeof(err)), 0);
	ck_assert_msg(r.n == 0, "%s %s", val_code_name(r.f[0].code), r.f[0].subject);
	ck_assert_uint_eq(r.cables, 1);
	ck_assert_uint_eq(r.cables_ok, 1);
	plan_free(p);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_eth_cabling");
	TCase *tc = tcase_create("eth_cabling");

	tcase_add_test(tc, lldp_as_planned_has_no_finding);
	tcase_add_test(tc, another_port_of_the_planned_switch_is_miswired);
	tcase_add_test(tc, one_end_seeing_another_port_is_judged_from_that_end);
	tcase_add_test(tc, another_switch_is_wrong_peer);
	tcase_add_test(tc, no_neighbour_at_either_end_is_missing);
	tcase_add_test(tc, two_cables_crosswise_are_one_swap);
	tcase_add_test(tc, a_neighbour_the_plan_lacks_is_extra);
	tcase_add_test(tc, a_silent_host_seen_elsewhere_is_judged);
	tcase_add_test(tc, the_infiniband_check_skips_ethernet_rows);
	suite_add_tcase(s, tc);
	return check_run(s);
}
