/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_mcast_read.c: the parent's reading of a
 * `loomd --read-mcast` child's answer (daemon/ib/mcast_read.h): groups with
 * their members and JoinStates, switch tables with their port masks sorted
 * by MLID, the MAD count; a stream of another build, one cut short (no
 * END) and a malformed entry refused with -EPROTO and nothing kept. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ib/mcast_read.h"
#include "tests/unit/fixtures/check_run.h"

static int parse(const char *text, struct mc_data *d, char *err, size_t errlen)
{
	char *copy = strdup(text);
	int rc;

	ck_assert_ptr_nonnull(copy);
	rc = mcast_read_parse(copy, d, err, errlen);
	free(copy);
	return rc;
}

START_TEST(reads_groups_and_tables)
{
	struct mc_data d;
	char err[256] = "", mgid[64];

	ck_assert_int_eq(parse("LOOMMCAST1\n"
			       "g ff12401bffff000000000000ffffffff c000 100003:1 100007:4\n"
			       "g ff120000000000000000000000000001 c001\n"
			       "t 200001 c001=6.0.0.0 c000=1.0.0.100000000\n"
			       "t 200002\n"
			       "m 57\nEND\n", &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d.n_groups, 2);
	ck_assert_str_eq(mc_mgid_str(d.g[0].mgid, mgid, sizeof(mgid)), "ff12:401b:ffff::ffff:ffff");
	ck_assert_uint_eq(d.g[0].mlid, 0xc000);
	ck_assert_uint_eq(d.g[0].n, 2);
	ck_assert_uint_eq(d.g[0].m[1].port_guid, 0x100007);
	ck_assert_uint_eq(d.g[0].m[1].join_state, MC_JOIN_SEND_ONLY);
	ck_assert_uint_eq(d.g[1].n, 0);
	ck_assert_uint_eq(d.n_tables, 2);
	ck_assert_uint_eq(d.t[0].guid, 0x200001);
	ck_assert_uint_eq(d.t[0].n, 2);
	ck_assert_uint_eq(d.t[0].e[0].mlid, 0xc000);   /* sorted */
	ck_assert(mc_mask_has(mc_table_mask(&d.t[0], 0xc000), 0));
	ck_assert(mc_mask_has(mc_table_mask(&d.t[0], 0xc000), 224));
	ck_assert(mc_mask_has(mc_table_mask(&d.t[0], 0xc001), 2));
	ck_assert(!mc_mask_has(mc_table_mask(&d.t[0], 0xc001), 0));
	ck_assert_ptr_null(mc_table_mask(&d.t[1], 0xc000));
	ck_assert_uint_eq(d.mads, 57);
	mc_data_clear(&d);
}
END_TEST

START_TEST(refuses_bad_streams)
{
	static const char *const bad[] = {
		"LOOMPKEY2\nEND\n",                                           /* another stream */
		"LOOMMCAST1\ng ff120000000000000000000000000001 c001 1:1\n",  /* cut: no END */
		"LOOMMCAST1\ng ff12 c001\nEND\n",                             /* short MGID */
		"LOOMMCAST1\nt 200001 c001\nEND\n",                           /* entry without mask */
		"LOOMMCAST1\nx what\nEND\n",                                  /* unknown line */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mc_data d;
		char err[256] = "";

		ck_assert_int_eq(parse(bad[i], &d, err, sizeof(err)), -EPROTO);
		ck_assert_uint_eq(d.n_groups + d.n_tables, 0);
		ck_assert_msg(err[0], "no error for stream %zu", i);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mcast_read");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, reads_groups_and_tables);
	tcase_add_test(tc, refuses_bad_streams);
	suite_add_tcase(s, tc);
	return check_run(s);
}
