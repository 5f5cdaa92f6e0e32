/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_partitions.c: the OpenSM partitions file of loom's tenants
 * (lib/fabric/partitions.c). That OpenSM accepts it is tests/integration/tenants.sh's. */
#include "autoconf.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/partitions.h"
#include "tests/unit/fixtures/check_run.h"

static int has(const uint8_t *used, unsigned pkey)
{
	return (used[pkey / 8] >> (pkey % 8)) & 1;
}

START_TEST(the_operators_pkeys_are_found_and_nothing_else)
{
	static const char text[] =
		"# a comment: Fake=0x0777 : ALL ;\n"
		"Default=0x7fff, ipoib : ALL, SELF=full ;\n"
		"storage=0x8002, ipoib, defmember=full : 0x0002c90300000001 ;\n"
		"noname_key : ALL ;\n"
		"mgmt = 0x0010\n  : ALL_SWITCHES=full ;";
	uint8_t used[4096];
	unsigned n = 0;

	part_static_pkeys(text, used);
	for (unsigned k = 0; k < 0x8000; k++)
		n += (unsigned)has(used, k);
	ck_assert(has(used, 0x7fff));
	ck_assert(has(used, 0x0002));    /* full-membership bit cleared */
	ck_assert(has(used, 0x0010));
	ck_assert(!has(used, 0x0777));   /* commented out */
	ck_assert_uint_eq(n, 3);
}
END_TEST

START_TEST(tenants_follow_the_operators_text_with_their_port_guids)
{
	const uint64_t a[] = { 0x0002c90300a1b2c4ULL, 0x0002c90300a1b2c5ULL };
	const uint64_t b[] = { 0x0002c90300000009ULL };
	const struct part_tenant t[] = {
		{ "42", 0x1001, 0, a, 2, 0, 0 },
		{ "job 7/x", 0x8102, 1, b, 1, 0, 0 },
	};
	char *f = part_file_new("Default=0x7fff : ALL=full ;", t, 2);
	const char *op, *t1, *t2;

	ck_assert_ptr_nonnull(f);
	op = strstr(f, "Default=0x7fff : ALL=full ;\n");
	t1 = strstr(f, "loom_42=0x1001 : 0x0002c90300a1b2c4=full, 0x0002c90300a1b2c5=full ;\n");
	t2 = strstr(f, "loom_job_7_x=0x0102 : 0x0002c90300000009=limited ;\n");
	ck_assert_msg(op && t1 && t2 && op < t1 && t1 < t2, "file:\n%s", f);
	free(f);
	f = part_file_new(NULL, NULL, 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(strstr(f, "operator's partitions ("));
	ck_assert_ptr_null(strchr(f, ';'));
	free(f);
}
END_TEST

START_TEST(partition_names_are_safe_for_opensms_parser)
{
	char buf[80];

	part_name("123", buf, sizeof(buf));
	ck_assert_str_eq(buf, "loom_123");
	part_name("a=b:c,d;e f#g", buf, sizeof(buf));
	ck_assert_str_eq(buf, "loom_a_b_c_d_e_f_g");
	part_name("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		  buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("partitions");
	TCase *tc = tcase_create("partitions");

	tcase_add_test(tc, the_operators_pkeys_are_found_and_nothing_else);
	tcase_add_test(tc, tenants_follow_the_operators_text_with_their_port_guids);
	tcase_add_test(tc, partition_names_are_safe_for_opensms_parser);
	suite_add_tcase(s, tc);
	return check_run(s);
}
