/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_nodename.c: the node-name-map format of OpenSM and
 * infiniband-diags as lib/fabric/nodename.c reads it (quoted names with
 * spaces, unquoted names, comments, decimal GUIDs), bad lines refused by
 * file:line, and the display-name rule (map, else the description itself). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fabric/nodename.h"
#include "tests/unit/fixtures/check_run.h"

static struct nodename_map *parse_ok(const char *text)
{
	struct nodename_map *m = NULL;
	char err[256] = "";

	ck_assert_msg(nodename_map_parse(text, strlen(text), "map", &m, err, sizeof(err)) == 0,
		      "%s", err);
	return m;
}

static void parse_bad(const char *text, const char *want_err)
{
	struct nodename_map *m = (struct nodename_map *)1;
	char err[256] = "";

	ck_assert_int_eq(nodename_map_parse(text, strlen(text), "map", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want_err) != NULL, "'%s' has not '%s'", err, want_err);
}

START_TEST(the_formats_infiniband_diags_writes_are_read)
{
	/* as in ibnetdiscover(8)'s example and OpenSM's sample map */
	struct nodename_map *m = parse_ok(
		"# ibnetdiscover --node-name-map\n"
		"\n"
		"   # indented comment\n"
		"0x0002c90200002c10 \"SW1 spine rack 4\"\n"
		"0x0002c90200002c11\t\"ISR9024\" # with a comment\n"
		"0X0002C90200002C12 leaf-3   \n"
		"0x0002c90200002c13 leaf 4 # unquoted, up to the comment\n"
		"123 \"decimal guid\"\r\n"
		"0x0002c90200002c14 \"has # inside\"");

	ck_assert_uint_eq(nodename_map_count(m), 6);
	ck_assert_str_eq(nodename_get(m, 0x0002c90200002c10ULL), "SW1 spine rack 4");
	ck_assert_str_eq(nodename_get(m, 0x0002c90200002c11ULL), "ISR9024");
	ck_assert_str_eq(nodename_get(m, 0x0002c90200002c12ULL), "leaf-3");
	ck_assert_str_eq(nodename_get(m, 0x0002c90200002c13ULL), "leaf 4");
	ck_assert_str_eq(nodename_get(m, 123), "decimal guid");
	ck_assert_str_eq(nodename_get(m, 0x0002c90200002c14ULL), "has # inside");
	ck_assert_ptr_null(nodename_get(m, 0x0002c90200002c15ULL));
	nodename_map_free(m);
}
END_TEST

START_TEST(bad_lines_are_refused_naming_their_line)
{
	parse_bad("# ok\n0x1 \"a\"\nnot-a-guid \"b\"\n", "map:3: expected a node GUID");
	parse_bad("0x1 \"a\"\n0x2\n", "map:2: a GUID without a name");
	parse_bad("0x1 \"\"\n", "map:1: a GUID without a name");
	parse_bad("0x1 \"open name\n", "map:1: the name's quote is not closed");
	parse_bad("\n\n0x1 \"a\" trailing\n", "map:3: text after the quoted name");
	parse_bad("0x1z \"a\"\n", "map:1: expected a node GUID");
	parse_bad("0x10000000000000000 \"too big\"\n", "map:1: expected a node GUID");
	parse_bad("-1 \"neg\"\n", "map:1: expected a node GUID");
	parse_bad("0x1 \"a\"\n0x2 \"b\"\n0x1 \"c\"\n", "map:3: GUID 0x0000000000000001 is named "
		  "already on line 1");
	parse_bad("0x1 \"a\tb\"\n", "map:1: a control character");
}
END_TEST

START_TEST(long_names_are_refused_not_cut)
{
	char text[600], name[300];

	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(text, sizeof(text), "0x5 \"%s\"\n", name);
	parse_bad(text, "map:1: a name is at most 255 bytes");
	name[255] = '\0';
	snprintf(text, sizeof(text), "0x5 \"%s\"\n", name);
	struct nodename_map *m = parse_ok(text);
	ck_assert_uint_eq(strlen(nodename_get(m, 5)), 255);
	nodename_map_free(m);
}
END_TEST

START_TEST(the_display_name_is_the_map_s_else_the_description_itself)
{
	struct nodename_map *m = parse_ok("0xa \"spine-1\"\n");
	const char *desc = "MF0;switch-a:SX6036/U1";

	ck_assert_str_eq(nodename_of(m, 0xa, desc), "spine-1");
	ck_assert_ptr_eq(nodename_of(m, 0xb, desc), desc);
	ck_assert_ptr_eq(nodename_of(NULL, 0xa, desc), desc);
	/* a held map outlives its first owner */
	struct nodename_map *h = nodename_map_hold(m);
	nodename_map_free(m);
	ck_assert_str_eq(nodename_of(h, 0xa, desc), "spine-1");
	nodename_map_free(h);
}
END_TEST

START_TEST(a_built_map_keeps_the_first_name_of_a_guid)
{
	struct nodename_map *m = nodename_map_new();
	uint64_t g;
	const char *n;

	ck_assert_int_eq(nodename_map_add(m, 9, "nine"), 0);
	ck_assert_int_eq(nodename_map_add(m, 3, "three"), 0);
	ck_assert_int_eq(nodename_map_add(m, 9, "again"), 0);
	ck_assert_int_eq(nodename_map_add(m, 4, ""), -EINVAL);
	nodename_map_seal(m);
	ck_assert_uint_eq(nodename_map_count(m), 2);
	nodename_map_entry(m, 0, &g, &n);
	ck_assert_uint_eq(g, 3);
	ck_assert_str_eq(nodename_get(m, 9), "nine");
	nodename_map_free(m);
}
END_TEST

START_TEST(a_missing_file_names_its_path)
{
	struct nodename_map *m;
	char err[256] = "";

	ck_assert_int_eq(nodename_map_read("/nonexistent/nn.map", &m, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, "/nonexistent/nn.map") != NULL, "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nodename");
	TCase *tc = tcase_create("nodename");

	tcase_add_test(tc, the_formats_infiniband_diags_writes_are_read);
	tcase_add_test(tc, bad_lines_are_refused_naming_their_line);
	tcase_add_test(tc, long_names_are_refused_not_cut);
	tcase_add_test(tc, the_display_name_is_the_map_s_else_the_description_itself);
	tcase_add_test(tc, a_built_map_keeps_the_first_name_of_a_guid);
	tcase_add_test(tc, a_missing_file_names_its_path);
	suite_add_tcase(s, tc);
	return check_run(s);
}
