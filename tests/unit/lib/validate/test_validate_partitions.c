/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_partitions.c: partitions against
 * the guidelines (lib/validate/partitions.h, issue 43) on a switch with six
 * hosts: every host a full member of the default partition is one finding
 * for the subnet, one host among limited ones a finding of its own, the
 * ports allowed full (by name or GUID) and the other policies; a tenant's
 * member without its key, an intruder with it, a port with two tenants'
 * keys, a switch port facing a host without the host's key; the reader's
 * tables refused when they are not tables. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/partitions.h"
#include "tests/unit/fixtures/check_run.h"

#define HOSTS 6

static struct fab *fabric(void)
{
	char text[2048], err[512] = "";
	size_t off = (size_t)snprintf(text, sizeof(text), "Switch 8 \"sw1\"\n");
	struct fab *f;

	for (int i = 0; i < HOSTS; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "[%d] \"h%d\"[1]\n", i + 1, i);
	for (int i = 0; i < HOSTS; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "\nHca 1 \"h%d\"\n[1] \"sw1\"[%d]\n",
					i, i + 1);
	f = topo_file_parse("f.net", text, off, "ib0", err, sizeof(err));
	ck_assert_msg(f != NULL, "%s", err);
	return f;
}

/* Host i's port (GUID). */
static uint64_t host_port(const struct fab *f, int i)
{
	char desc[16];

	snprintf(desc, sizeof(desc), "h%d", i);
	for (size_t k = 0; k < f->n_nodes; k++)
		if (!strcmp(f->nodes[k]->desc, desc))
			return fab_port(f->nodes[k], 1)->guid;
	ck_abort_msg("no host %s", desc);
	return 0;
}

/* The reader's object: host i's table keys[i] ("" no table; "0x7fff
 * 0x9001"), and the switch port facing it sw[i] (NULL: none read). */
static json_t *tables_json(const struct fab *f, const char *const *keys, const char *const *sw)
{
	json_t *o = json_object();

	for (int i = 0; i < HOSTS; i++) {
		for (int s = 0; s < 2; s++) {
			const char *text = s ? (sw ? sw[i] : NULL) : keys[i];
			char name[40], *end;
			json_t *a = json_array();

			if (!text || (!s && !*text)) {
				json_decref(a);
				continue;
			}
			for (const char *at = text; *at; at = end) {
				unsigned long k = strtoul(at, &end, 16);

				if (end == at)
					break;
				json_array_append_new(a, json_integer((json_int_t)k));
			}
			snprintf(name, sizeof(name), "0x%016" PRIx64 "%s", host_port(f, i), s ? "/sw" : "");
			json_object_set_new(o, name, a);
		}
	}
	return o;
}

static void check(const struct fab *f, const char *const *keys, const char *const *sw,
		  const struct partitions_tenant *t, size_t nt, const struct partitions_opts *o,
		  struct val_report *r)
{
	struct partitions_tables tabs;
	char err[256] = "";
	json_t *j = tables_json(f, keys, sw);

	ck_assert_msg(partitions_tables_from_json(j, &tabs, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(partitions_check(f, &tabs, t, nt, o, r, err, sizeof(err)) == 0, "%s", err);
	partitions_tables_clear(&tabs);
	json_decref(j);
	val_report_sort(r);
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "finding: %s %s (want %s, got %s)\n", val_code_name(r->f[i].code),
			r->f[i].subject, r->f[i].want, r->f[i].got);
}

static const struct val_finding *find(const struct val_report *r, enum val_code c,
				      const char *subject)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].code == c && !strcmp(r->f[i].subject, subject))
			return &r->f[i];
	ck_abort_msg("no %s finding \"%s\"", val_code_name(c), subject);
	return NULL;
}

static const char *const ALL_FULL[HOSTS] = { "0xffff", "0xffff", "0xffff", "0xffff", "0xffff",
					     "0xffff" };
static const char *const ALL_LIMITED[HOSTS] = { "0x7fff", "0x7fff", "0x7fff", "0x7fff",
						"0x7fff", "0x7fff" };

START_TEST(every_host_full_in_the_default_partition_is_one_finding)
{
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED };
	struct fab *f = fabric();
	struct val_report r = { 0 };
	const struct val_finding *x;

	check(f, ALL_FULL, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 1);
	x = find(&r, VAL_PART_DEFAULT, "default partition 0x7fff");
	ck_assert_int_eq(x->sev, VAL_WARNING);
	ck_assert_msg(strstr(x->got, "6 of 6 host ports are full members, e.g. h"), "%s", x->got);
	val_report_clear(&r);
	/* all limited: the guideline holds */
	check(f, ALL_LIMITED, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

START_TEST(one_full_host_among_limited_ones_is_a_finding_of_its_own)
{
	static const char *const keys[HOSTS] = { "0x7fff", "0x7fff", "0x7fff", "0xffff", "0x7fff",
						 "" };
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED };
	struct fab *f = fabric();
	struct val_report r = { 0 };

	check(f, keys, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(find(&r, VAL_PART_DEFAULT, "h3[1] 0x7fff (default partition)")->got, "full member (0xffff)");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(the_ports_allowed_full_and_the_other_policies)
{
	static const char *const keys[HOSTS] = { "0xffff", "0xffff", "0x7fff", "0x7fff", "0x7fff",
						 "" };
	struct fab *f = fabric();
	char guid[24];
	const char *ok[2] = { "h0", guid };
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED, .full_ok = ok,
				     .n_full_ok = 2 };
	struct val_report r = { 0 };

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, host_port(f, 1));
	check(f, keys, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 0);
	/* without the list: two findings of their own (2 of 5 is no majority) */
	o.n_full_ok = 0;
	check(f, keys, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 2);
	find(&r, VAL_PART_DEFAULT, "h0[1] 0x7fff (default partition)");
	find(&r, VAL_PART_DEFAULT, "h1[1] 0x7fff (default partition)");
	val_report_clear(&r);
	o.default_policy = PARTITIONS_DEFAULT_OFF;
	check(f, ALL_FULL, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 0);
	o.default_policy = PARTITIONS_DEFAULT_FULL;
	check(f, ALL_FULL, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 0);
	check(f, keys, NULL, NULL, 0, &o, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_msg(strstr(find(&r, VAL_PART_DEFAULT, "default partition 0x7fff")->got,
			     "3 of 5 host ports are not full members"), "%s", r.f[0].got);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(tenants_member_missing_intruder_and_shared_port)
{
	/* job42 (0x1001, full) on h0 h1; job43 (0x1002, limited) on h3 h4 */
	static const char *const keys[HOSTS] = { "0x7fff 0x9001", "0x7fff", "0x7fff 0x9001",
						 "0x7fff 0x1002 0x9001", "0x7fff 0x9002",
						 "0x7fff" };
	struct fab *f = fabric();
	uint64_t a[2] = { host_port(f, 0), host_port(f, 1) }, b[2] = { host_port(f, 3),
								 host_port(f, 4) };
	struct partitions_tenant t[2] = { { "job42", 0x1001, 0, a, 2 }, { "job43", 0x1002, 1, b, 2 } };
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED };
	struct val_report r = { 0 };
	const struct val_finding *x;

	check(f, keys, NULL, t, 2, &o, &r);
	ck_assert_uint_eq(r.n, 4);
	x = find(&r, VAL_PART_MEMBER, "h1[1] 0x1001 (tenant job42)");
	ck_assert_int_eq(x->sev, VAL_ERROR);
	ck_assert_str_eq(x->got, "not a member");
	ck_assert_int_eq(find(&r, VAL_PART_INTRUDER, "h2[1] 0x1001 (tenant job42)")->sev, VAL_ERROR);
	find(&r, VAL_PART_SHARED, "h3[1] 0x1002 (tenant job43), 0x1001 (tenant job42)");
	x = find(&r, VAL_PART_MEMBER, "h4[1] 0x1002 (tenant job43)");
	ck_assert_str_eq(x->got, "full member");
	ck_assert_str_eq(x->want, "limited member (0x1002)");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_switch_port_without_the_hosts_key_is_unenforced)
{
	static const char *const keys[HOSTS] = { "0x7fff 0x9001", "0x7fff 0x9001", "0x7fff",
						 "0x7fff", "0x7fff", "0x7fff" };
	static const char *const sw[HOSTS] = { "0xffff 0x1001", "0xffff", "0xffff", "0xffff",
					       "0xffff", NULL };
	struct fab *f = fabric();
	uint64_t a[2] = { host_port(f, 0), host_port(f, 1) };
	struct partitions_tenant t = { "job42", 0x1001, 0, a, 2 };
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED, .enforce = 1 };
	struct val_report r = { 0 };

	check(f, keys, sw, &t, 1, &o, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(find(&r, VAL_PART_UNENFORCED, "sw1[2] (facing h1[1])")->got, "lacks 0x1001");
	val_report_clear(&r);
	o.enforce = 0;
	check(f, keys, sw, &t, 1, &o, &r);
	ck_assert_uint_eq(r.n, 0);
	fab_free(f);
}
END_TEST

START_TEST(tables_that_are_not_tables_are_refused)
{
	struct partitions_tables t;
	char err[256] = "";
	json_t *o = json_pack("{s:[i]}", "host-1", 0x7fff);

	ck_assert_int_eq(partitions_tables_from_json(o, &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "\"host-1\""), "%s", err);
	json_decref(o);
	o = json_pack("{s:[i]}", "0x0000000000000001", 0x10000);
	ck_assert_int_eq(partitions_tables_from_json(o, &t, err, sizeof(err)), -EINVAL);
	json_decref(o);
	o = json_pack("{s:[i,i],s:[i]}", "0x0000000000000002/sw", 0xffff, 0x1001,
		      "0x0000000000000002", 0x7fff);
	ck_assert_int_eq(partitions_tables_from_json(o, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_uint_eq(partitions_table_find(&t, 2, 1)->n, 2);
	ck_assert_uint_eq(partitions_table_find(&t, 2, 0)->keys[0], 0x7fff);
	ck_assert_ptr_null(partitions_table_find(&t, 3, 0));
	partitions_tables_clear(&t);
	json_decref(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_partitions");
	TCase *tc = tcase_create("partitions");

	tcase_add_test(tc, every_host_full_in_the_default_partition_is_one_finding);
	tcase_add_test(tc, one_full_host_among_limited_ones_is_a_finding_of_its_own);
	tcase_add_test(tc, the_ports_allowed_full_and_the_other_policies);
	tcase_add_test(tc, tenants_member_missing_intruder_and_shared_port);
	tcase_add_test(tc, a_switch_port_without_the_hosts_key_is_unenforced);
	tcase_add_test(tc, tables_that_are_not_tables_are_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
