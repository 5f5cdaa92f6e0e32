/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_sm.c: the subnet-manager and M_Key
 * rules (lib/validate/sm.h, keys.h) on a small hand-built subnet (two
 * switches, six hosts) with the SM list and keys a sweep would hand them:
 * each test sets up one situation and finds exactly the findings it names. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/validate/keys.h"
#include "lib/validate/sm.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_fabric.h"

#define SW1 0x10ULL
#define SW2 0x20ULL
#define HOST(i) (0x100ULL + (i))

static struct fab *subnet(void)
{
	struct fab *f = fab_new("ib0");
	char name[16];

	fixture_node(f, IBT_NODE_SWITCH, SW1, 8, "leaf-1", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW2, 8, "leaf-2", 2);
	fixture_link(f, SW1, 8, SW2, 8);
	for (unsigned i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "host-%u", i);
		fixture_node(f, IBT_NODE_CA, HOST(i), 1, name, (uint16_t)(10 + i));
		fixture_link(f, i < 3 ? SW1 : SW2, 1 + i % 3, HOST(i), 1);
	}
	fab_sort(f);
	f->sm_read = FAB_SM_READ;
	return f;
}

static void add_sm(struct fab *f, unsigned host, unsigned state, unsigned prio, uint32_t count)
{
	struct fab_sm sm = { .node_guid = HOST(host), .port = 1, .answered = 1,
			     .priority = (uint8_t)prio, .state = (uint8_t)state,
			     .act_count = count, .guid = HOST(host) + 0x1000 };

	fab_find(f, HOST(host))->ports[1].capmask |= FAB_CAP_IS_SM;
	ck_assert_int_eq(fab_add_sm(f, &sm), 0);
}

/* The findings as "code subject" lines, in the report's order. */
static const char *lines(struct val_report *r)
{
	static char buf[4096];
	size_t off = 0;

	buf[0] = '\0';
	val_report_sort(r);
	for (size_t i = 0; i < r->n && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s",
					i ? "; " : "", val_code_name(r->f[i].code),
					r->f[i].subject);
	return buf;
}

static const char *check_sm(const struct fab *f, const struct sm_opts *o, struct val_report *r)
{
	ck_assert_int_eq(sm_check(f, o, r), 0);
	return lines(r);
}

START_TEST(a_master_and_a_standby_both_allowed_have_no_finding)
{
	struct fab *f = subnet();
	const char *allowed[] = { "host-0", "0x0000000000001101" };  /* a name, a port GUID */
	struct fab_sm prev[2];
	struct sm_opts o = { allowed, 2, prev, 2, NULL };
	struct val_report r = { 0 };

	add_sm(f, 0, FAB_SM_MASTER, 15, 1000);
	add_sm(f, 1, FAB_SM_STANDBY, 1, 500);
	memcpy(prev, f->sms, sizeof(prev));
	prev[0].act_count = 900;
	prev[1].act_count = 500;   /* a standby's count need not move */
	ck_assert_str_eq(check_sm(f, &o, &r), "");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_rogue_sm_is_named_by_its_node_and_port)
{
	struct fab *f = subnet();
	const char *allowed[] = { "host-0", "host-1" };
	struct sm_opts o = { allowed, 2, NULL, 0, NULL };
	struct val_report r = { 0 };

	add_sm(f, 0, FAB_SM_MASTER, 15, 1000);
	add_sm(f, 1, FAB_SM_STANDBY, 1, 500);
	add_sm(f, 4, FAB_SM_STANDBY, 0, 20);
	ck_assert_str_eq(check_sm(f, &o, &r), "sm-unlisted host-4[1]");
	ck_assert_int_eq(r.f[0].sev, VAL_ERROR);
	ck_assert_ptr_nonnull(strstr(r.f[0].got, "STANDBY"));
	val_report_clear(&r);
	o.n_allowed = 0;   /* no list: not checked */
	ck_assert_str_eq(check_sm(f, &o, &r), "");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(two_masters_are_one_finding_naming_both)
{
	struct fab *f = subnet();
	struct sm_opts o = { 0 };
	struct val_report r = { 0 };

	add_sm(f, 0, FAB_SM_MASTER, 15, 1000);
	add_sm(f, 3, FAB_SM_MASTER, 15, 10);
	ck_assert_str_eq(check_sm(f, &o, &r), "sm-masters host-0[1], host-3[1]");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_master_whose_count_stopped_or_a_silent_sm_is_stalled)
{
	struct fab *f = subnet();
	struct fab_sm prev[2];
	struct sm_opts o = { NULL, 0, prev, 2, NULL };
	struct val_report r = { 0 };
	struct fab_sm silent = { .node_guid = HOST(5), .port = 1 };

	add_sm(f, 0, FAB_SM_MASTER, 15, 1000);
	add_sm(f, 1, FAB_SM_STANDBY, 1, 500);
	memcpy(prev, f->sms, sizeof(prev));
	ck_assert_str_eq(check_sm(f, &o, &r), "sm-stalled host-0[1]");
	ck_assert_ptr_nonnull(strstr(r.f[0].got, "ActCount 1000"));
	val_report_clear(&r);
	f->sms[0].act_count++;
	ck_assert_str_eq(check_sm(f, &o, &r), "");
	val_report_clear(&r);
	o.prev = NULL;   /* the first sweep: no judgement of counts */
	f->sms[0].act_count--;
	ck_assert_str_eq(check_sm(f, &o, &r), "");
	val_report_clear(&r);
	ck_assert_int_eq(fab_add_sm(f, &silent), 0);
	ck_assert_str_eq(check_sm(f, &o, &r), "sm-stalled host-5[1]");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_standby_above_the_master_priority_is_a_warning)
{
	struct fab *f = subnet();
	struct sm_opts o = { 0 };
	struct val_report r = { 0 };

	add_sm(f, 0, FAB_SM_MASTER, 5, 1000);
	add_sm(f, 1, FAB_SM_STANDBY, 9, 500);
	add_sm(f, 2, FAB_SM_STANDBY, 5, 500);   /* equal: no finding */
	ck_assert_str_eq(check_sm(f, &o, &r), "sm-priority host-1[1]");
	ck_assert_int_eq(r.f[0].sev, VAL_WARNING);
	ck_assert_ptr_nonnull(strstr(r.f[0].want, "host-0[1]"));
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(a_fabric_without_an_sm_list_is_not_judged)
{
	struct fab *f = subnet();
	struct sm_opts o = { 0 };
	struct val_report r = { 0 };

	add_sm(f, 0, FAB_SM_MASTER, 15, 1000);
	add_sm(f, 3, FAB_SM_MASTER, 15, 10);
	f->sm_read = FAB_SM_NOT_READ;
	ck_assert_str_eq(check_sm(f, &o, &r), "");
	ck_assert_int_eq(keys_check(f, KEYS_REQUIRED, NULL, &r), 0);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

/* ---- keys ---- */

static void protect_all(struct fab *f)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->nports; p++)
			f->nodes[i]->ports[p].m_key_protect = 2;   /* a hidden key reads 0 */
}

START_TEST(zero_keys_everywhere_are_one_finding_per_subnet)
{
	struct fab *f = subnet();
	struct val_report r = { 0 };

	ck_assert_int_eq(keys_check(f, KEYS_REPORT, NULL, &r), 0);
	ck_assert_str_eq(lines(&r), "m-key-unset subnet ib0");
	ck_assert_int_eq(r.f[0].sev, VAL_WARNING);
	/* 6 host ports and 2 switch ports 0 judged; a few examples */
	ck_assert_msg(!strncmp(r.f[0].got, "8 of 8 ports, e.g. ", 19), "%s", r.f[0].got);
	ck_assert_ptr_nonnull(strstr(r.f[0].want, "m_key_protection_level"));
	val_report_clear(&r);
	ck_assert_int_eq(keys_check(f, KEYS_REQUIRED, NULL, &r), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.f[0].sev, VAL_ERROR);
	val_report_clear(&r);
	ck_assert_int_eq(keys_check(f, KEYS_OFF, NULL, &r), 0);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

START_TEST(a_minority_that_differs_is_named_port_by_port)
{
	struct fab *f = subnet();
	struct val_report r = { 0 };

	protect_all(f);
	ck_assert_int_eq(keys_check(f, KEYS_REPORT, NULL, &r), 0);
	ck_assert_uint_eq(r.n, 0);
	fab_find(f, HOST(2))->ports[1].m_key_protect = 0;
	fab_find(f, HOST(4))->ports[1].m_key_protect = 0;
	fab_find(f, HOST(4))->ports[1].m_key = 0x1234;
	ck_assert_int_eq(keys_check(f, KEYS_REPORT, NULL, &r), 0);
	ck_assert_str_eq(lines(&r), "m-key-unset host-2[1]; m-key-unprotected host-4[1]");
	val_report_clear(&r);
	fab_free(f);
}
END_TEST

START_TEST(keys_modes_parse)
{
	ck_assert_int_eq(keys_mode_of("off"), KEYS_OFF);
	ck_assert_int_eq(keys_mode_of("report"), KEYS_REPORT);
	ck_assert_int_eq(keys_mode_of("required"), KEYS_REQUIRED);
	ck_assert_int_eq(keys_mode_of("yes"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_sm");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_master_and_a_standby_both_allowed_have_no_finding);
	tcase_add_test(tc, a_rogue_sm_is_named_by_its_node_and_port);
	tcase_add_test(tc, two_masters_are_one_finding_naming_both);
	tcase_add_test(tc, a_master_whose_count_stopped_or_a_silent_sm_is_stalled);
	tcase_add_test(tc, a_standby_above_the_master_priority_is_a_warning);
	tcase_add_test(tc, a_fabric_without_an_sm_list_is_not_judged);
	tcase_add_test(tc, zero_keys_everywhere_are_one_finding_per_subnet);
	tcase_add_test(tc, a_minority_that_differs_is_named_port_by_port);
	tcase_add_test(tc, keys_modes_parse);
	suite_add_tcase(s, tc);
	return check_run(s);
}
