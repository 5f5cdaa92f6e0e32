/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/sonic/test_sonic_buffers.c: the sonic plugin and SONiC's buffermgrd
 * (traditional buffer model), on a switch as `config qos reload` leaves it
 * (tests/servers/sonic_db.py, which also plays buffermgrd and knows the
 * SKU's pg_profile_lookup.ini). A cable length with no headroom row is
 * refused before anything is written (with the lookup given as the plugin
 * option, or from the lossless profiles the switch already has); a bad
 * lookup file is refused at open with its line; lossless priority groups
 * buffermgrd left behind when the lossless priorities narrow are deleted. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_sonic.h"
#include "tests/unit/fixtures/fixture_redis.h"
#include "tests/unit/fixtures/fixture_plugin.h"

#define SCHEMA_202311 "version_202311_03"
#define MANAGED "Ethernet0,Ethernet4"

/* The plugin's switch handle reopened with options. */
static void reopen(const char *options)
{
	struct lp_endpoint ep = { .name = "leaf1", .options = options, .timeout_ms = 2000 };
	char address[160];

	snprintf(address, sizeof(address), "unix:%s", fr_sock);
	ep.address = address;
	ops->close(sw);
	sw = NULL;
	ck_assert_msg(ops->open(&ep, &host, &sw, err, sizeof(err)) == 0, "open: %s", err);
}

/* The SKU's pg_profile_lookup.ini (sonic_db.py lookup) into a file of the
 * test's: its path. */
static const char *lookup_file(void)
{
	static char path[200];
	char args[300], out[256];

	snprintf(path, sizeof(path), "%s/pg_profile_lookup.ini", fr_dir);
	snprintf(args, sizeof(args), "lookup > '%s'", path);
	ck_assert_msg(sonic_db(args, out, sizeof(out)) == 0, "lookup: %s", out);
	return path;
}

static struct lp_qos *two_ports(unsigned cable_m)
{
	struct lp_qos *want = fp_default_want(ops, sw);

	want->n_ports = 2;
	want->ports[0].cable_m = want->ports[1].cable_m = cable_m;
	return want;
}

/* 7 m on a 100G port: the switch's lossless profiles prove only 5 m for
 * 100000 Mb/s, so buffermgrd would find no row and PFC would run without
 * headroom. The apply is refused, naming the port, speed, length and the
 * lengths that have one, and CONFIG_DB is byte for byte as it was. The
 * checker sees the fault the old plugin made (it wrote 7m). */
START_TEST(sonic_cable_length_without_headroom_row_is_refused_and_nothing_written)
{
	struct lp_qos *want;
	struct changes cs = { 0 };
	char out[8192], snap[160];

	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));
	want = two_ports(7);
	ck_assert_int_eq(apply(want, 0, &cs), -EINVAL);
	ck_assert_msg(strstr(err, "Ethernet0") && strstr(err, "100000") && strstr(err, "7m") &&
		      strstr(err, "5m") && strstr(err, "nothing written"), "%s", err);
	ck_assert_uint_eq(cs.n, 0);
	ck_assert_msg(check_switch(snap, "", out, sizeof(out)) == 0, "after the refusal:\n%s",
		      out);
	/* what the plugin did before: CABLE_LENGTH 7m, which SONiC cannot serve */
	fr_hset(CONFIG_DB, "CABLE_LENGTH|AZURE", "Ethernet0", "7m", NULL);
	ck_assert_int_eq(check_switch(snap, MANAGED, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "Ethernet0 = 7m at speed 100000: no pg_profile_lookup.ini row"),
		      "%s", out);
	free(cs.v);
	free(want);
}
END_TEST

/* With the SKU's lookup as the plugin option, its rows decide: 40 m has a
 * row though no port of the switch uses it yet, so it is written, and
 * buffermgrd makes the port's headroom from it; 7 m is refused with the
 * file and its lengths for the speed, and the next longer one named. */
START_TEST(sonic_cable_length_is_checked_against_the_lookup_option)
{
	char out[8192], snap[160], opt[256], args[400];
	struct changes cs = { 0 };
	struct lp_qos *want;

	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));
	snprintf(opt, sizeof(opt), "pg_profile_lookup=%s", lookup_file());
	reopen(opt);
	want = two_ports(7);
	ck_assert_int_eq(apply(want, 0, &cs), -EINVAL);
	ck_assert_msg(strstr(err, "pg_profile_lookup.ini") && strstr(err, "5m, 40m, 300m") &&
		      strstr(err, "the next longer, 40m, is safe"), "%s", err);
	ck_assert_uint_eq(cs.n, 0);

	want->ports[0].cable_m = want->ports[1].cable_m = 40;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_str_eq(fr_hget("CABLE_LENGTH|AZURE", "Ethernet4"), "40m");
	ck_assert_msg(check_switch(snap, MANAGED, out, sizeof(out)) == 0, "after apply:\n%s", out);
	/* buffermgrd takes the new length at the port's next pfc_enable change */
	fr_hset(CONFIG_DB, "PORT_QOS_MAP|Ethernet4", "pfc_enable", "3", NULL);
	snprintf(args, sizeof(args), "buffermgrd %s --before '%s'", fr_sock, snap);
	ck_assert_int_eq(sonic_db(args, out, sizeof(out)), 0);
	ck_assert_msg(!out[0], "buffermgrd: %s", out);
	ck_assert_str_eq(fr_hget("BUFFER_PG|Ethernet4|3", "profile"),
			 "pg_lossless_100000_40m_profile");
	ck_assert(fr_exists("BUFFER_PROFILE|pg_lossless_100000_40m_profile"));
	free(cs.v);
	free(want);
}
END_TEST

/* A lookup file the plugin cannot read as buffermgrd does is refused when
 * the switch is opened, with its path and line. */
START_TEST(sonic_refuses_a_bad_lookup_file_with_its_line)
{
	struct lp_endpoint ep = { .name = "leaf1", .address = "unix:/nonexistent",
				  .timeout_ms = 2000 };
	char path[200], opt[256];
	struct lp_switch *other = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.ini", fr_dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("# speed cable size xon xoff threshold\n100000 5m 50176 19456 30720 0\n"
	      "100000 five 1 2 3 0\n", f);
	fclose(f);
	snprintf(opt, sizeof(opt), "pg_profile_lookup=%s", path);
	ep.options = opt;
	ck_assert_int_eq(ops->open(&ep, &host, &other, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "bad.ini:3:") && strstr(err, "100000 five"), "%s", err);
	ck_assert_ptr_null(other);
	ep.options = "lookup=/x";
	ck_assert_int_eq(ops->open(&ep, &host, &other, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "pg_profile_lookup=PATH"), "%s", err);
}
END_TEST

/* The lossless priorities narrow from 3,4 to 3: buffermgrd writes
 * BUFFER_PG|<port>|3 and never deletes |3-4, which would keep headroom on
 * the now lossy priority 4 and put group 3 in two entries. The plugin
 * deletes the managed ports' stale entry (before pfc_enable, so that
 * buffermgrd's new one lands after it); the other ports' stay. */
START_TEST(sonic_narrowed_lossless_priorities_leave_no_stale_priority_group)
{
	char out[8192], snap[160], args[400];
	struct changes cs = { 0 };
	struct lp_qos *want;

	seed_switch(12, SCHEMA_202311, snap, sizeof(snap));
	want = two_ports(5);
	want->pfc_mask = 1u << 3;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert(!fr_exists("BUFFER_PG|Ethernet0|3-4"));
	ck_assert(!fr_exists("BUFFER_PG|Ethernet4|3-4"));
	ck_assert(fr_exists("BUFFER_PG|Ethernet8|3-4"));
	ck_assert_int_lt(first_of(&cs, "BUFFER_PG|"), first_of(&cs, "PORT_QOS_MAP|"));
	snprintf(args, sizeof(args), "buffermgrd %s --before '%s'", fr_sock, snap);
	ck_assert_int_eq(sonic_db(args, out, sizeof(out)), 0);
	ck_assert_str_eq(fr_hget("BUFFER_PG|Ethernet0|3", "profile"),
			 "pg_lossless_100000_5m_profile");
	ck_assert_msg(check_switch(snap, MANAGED, out, sizeof(out)) == 0, "after apply:\n%s", out);
	/* the checker sees what the plugin left before */
	fr_hset(CONFIG_DB, "BUFFER_PG|Ethernet0|3-4", "profile", "pg_lossless_100000_5m_profile",
		NULL);
	ck_assert_int_eq(check_switch(snap, MANAGED, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "priority group 3 is in BUFFER_PG|Ethernet0|3 too") &&
		      strstr(out, "lossless headroom (pg_lossless_100000_5m_profile) on "
			     "priorities 4"), "%s", out);
	/* applied again: the stale entry goes again, and nothing else changes */
	cs.n = 0;
	ck_assert_msg(apply(want, 0, &cs) == 0, "%s", err);
	ck_assert_uint_eq(cs.n, 1);
	ck_assert_str_eq(cs.v[0].key, "BUFFER_PG|Ethernet0|3-4");
	free(cs.v);
	free(want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sonic_buffers");
	TCase *tc = tcase_create("sonic_buffers");

	tcase_add_test(tc, sonic_cable_length_without_headroom_row_is_refused_and_nothing_written);
	tcase_add_test(tc, sonic_cable_length_is_checked_against_the_lookup_option);
	tcase_add_test(tc, sonic_refuses_a_bad_lookup_file_with_its_line);
	tcase_add_test(tc, sonic_narrowed_lossless_priorities_leave_no_stale_priority_group);
	return sonic_main(s, tc, "test_sonic_buffers");
}
