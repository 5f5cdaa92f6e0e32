/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_isolated_set.c: the isolated set's file
 * (lib/fabric/isolated_set.c): a good file read whole, every malformed line
 * refused with its number, the version, comments, the entry limit, the
 * writer read back by the parser; and its links removed from a fabric as a
 * cut cable would be, so that the incremental reroute
 * (lib/route/route_reroute.c) moves only what crossed them, routes nothing
 * over them and loses no pair. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/isolated_set.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"

static int parse(const char *text, struct iso_set *s, char *err)
{
	return iso_set_parse(text, strlen(text), s, err, 160);
}

START_TEST(a_good_file_is_read_whole_and_sorted)
{
	const char *text =
		"# loom: links taken out of the routes (written by loomd, read by libloomosm)\n"
		"version 7\n"
		"0x0002c90300005678 3\n"
		"\n"
		"   0x0002C90300001234\t17 # why, free text to end of line # with a # in it\n"
		"0x0002c90300005678 3   # the same port twice: once in the set\n"
		"# the end\n";
	struct iso_set s;
	char err[160] = "";

	ck_assert_int_eq(parse(text, &s, err), 0);
	ck_assert_uint_eq(s.version, 7);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.v[0].guid, 0x0002c90300001234ULL);
	ck_assert_uint_eq(s.v[0].port, 17);
	ck_assert_uint_eq(s.v[1].guid, 0x0002c90300005678ULL);
	ck_assert_uint_eq(s.v[1].port, 3);
	ck_assert(iso_set_has(&s, 0x0002c90300001234ULL, 17));
	ck_assert(iso_set_has(&s, 0x0002c90300005678ULL, 3));
	ck_assert(!iso_set_has(&s, 0x0002c90300005678ULL, 17));
	ck_assert(!iso_set_has(&s, 0x0002c90300001234ULL, 3));
	iso_set_free(&s);
	ck_assert_ptr_null(s.v);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(no_version_is_version_0_and_an_empty_file_an_empty_set)
{
	struct iso_set s;
	char err[160] = "";

	ck_assert_int_eq(parse("0x1 1\n", &s, err), 0);
	ck_assert_uint_eq(s.version, 0);
	ck_assert_uint_eq(s.n, 1);
	iso_set_free(&s);
	ck_assert_int_eq(parse("", &s, err), 0);
	ck_assert_uint_eq(s.version, 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert(!iso_set_has(&s, 1, 1));
	iso_set_free(&s);
	ck_assert_int_eq(parse("version 18446744073709551615", &s, err), 0);
	ck_assert_uint_eq(s.version, UINT64_MAX);
	iso_set_free(&s);
}
END_TEST

START_TEST(the_text_need_not_end_with_nul)
{
	/* The file's bytes as read, the next byte not a NUL: only len counts. */
	const char buf[] = "version 3\n0x10 2\n0x20 9 # trailing garbage after len";
	struct iso_set s;
	char err[160] = "";

	ck_assert_int_eq(iso_set_parse(buf, 17, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.version, 3);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.v[0].guid, 0x10);
	iso_set_free(&s);
	/* Cut in the middle of the second entry's port: "0x20 " has no port. */
	ck_assert_int_eq(iso_set_parse(buf, 22, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 3: no port number after the GUID");
}
END_TEST

START_TEST(every_malformed_line_is_refused_with_its_number)
{
	static const struct { const char *text, *err; } bad[] = {
		{ "version 1\n0x1 1\n\n0x2 300\n", "line 4: port 300 out of range (1..254)" },
		{ "0x1 0\n", "line 1: port 0 out of range (1..254)" },
		{ "0x1 255\n", "line 1: port 255 out of range (1..254)" },
		{ "0x1 99999999999999999999999\n",
		  "line 1: port 99999999999999999999999 out of range (1..254)" },
		{ "0x1 -1\n", "line 1: port \"-1\" is not a number" },
		{ "0x1 1x\n", "line 1: port \"1x\" is not a number" },
		{ "0x1\n", "line 1: no port number after the GUID" },
		{ "0x1 1 2\n", "line 1: \"2\" after the port (a comment starts with #)" },
		{ "# c\n0x1 1\n1234 5\n",
		  "line 3: \"1234\" is neither \"version N\" nor a node GUID (hex with 0x)" },
		{ "0xg1 1\n", "line 1: \"0xg1\" is neither \"version N\" nor a node GUID (hex with 0x)" },
		{ "0x 1\n", "line 1: \"0x\" is neither \"version N\" nor a node GUID (hex with 0x)" },
		{ "0x10000000000000000 1\n",
		  "line 1: \"0x10000000000000000\" is neither \"version N\" nor a node GUID (hex "
		  "with 0x)" },
		{ "0x0 1\n", "line 1: node GUID 0" },
		{ "version 1\nversion 2\n", "line 2: version given twice" },
		{ "version\n", "line 1: version without a number" },
		{ "version -3\n", "line 1: version \"-3\" is not an unsigned 64-bit number" },
		{ "version 18446744073709551616\n",
		  "line 1: version \"18446744073709551616\" is not an unsigned 64-bit number" },
		{ "version 2 3\n", "line 1: \"3\" after the version" },
		{ "Version 2\n", "line 1: \"Version\" is neither \"version N\" nor a node GUID "
		  "(hex with 0x)" },
	};
	struct iso_set s;
	char err[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(parse(bad[i].text, &s, err) == -EINVAL, "accepted: %s", bad[i].text);
		ck_assert_str_eq(err, bad[i].err);
		ck_assert_ptr_null(s.v);
		ck_assert_uint_eq(s.n, 0);
	}
	/* A NUL byte inside the text. */
	ck_assert_int_eq(iso_set_parse("0x1 1\n0x2\0 2\n", 13, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 2: a NUL byte");
}
END_TEST

START_TEST(at_most_65536_entries)
{
	size_t cap = (ISO_SET_MAX + 2) * 24;
	char *text = malloc(cap), err[160] = "";
	size_t len = (size_t)snprintf(text, cap, "version 1\n");
	struct iso_set s;

	ck_assert_ptr_nonnull(text);
	for (unsigned i = 0; i < ISO_SET_MAX; i++)
		len += (size_t)snprintf(text + len, cap - len, "0x%x %u\n", 1 + i / 200, 1 + i % 200);
	ck_assert_int_eq(iso_set_parse(text, len, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.n, ISO_SET_MAX);
	ck_assert(iso_set_has(&s, 1 + (ISO_SET_MAX - 1) / 200, 1 + (ISO_SET_MAX - 1) % 200));
	iso_set_free(&s);
	len += (size_t)snprintf(text + len, cap - len, "0xffff 1\n");
	ck_assert_int_eq(iso_set_parse(text, len, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 65538: more than 65536 entries");
	free(text);
}
END_TEST

START_TEST(what_format_writes_parse_reads_back)
{
	struct iso_port v[] = { { 0x0002c90300005678ULL, 3 }, { 0x0002c90300001234ULL, 17 },
				{ 0xffffffffffffffffULL, 254 } };
	struct iso_set s = { .version = 42, .v = v, .n = 3 }, back;
	const char *comments[] = { "ber 1e-9 # over 1e-12\nsecond line", NULL, "" };
	char *text = iso_set_format(&s, comments), err[160] = "";

	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strncmp(text, "# loom: links taken out of the routes", 37) == 0, "%s", text);
	ck_assert_msg(strstr(text, "\nversion 42\n") != NULL, "%s", text);
	/* The comment stays on its line: its newline and '#' are spaces. */
	ck_assert_msg(strstr(text, "\n0x0002c90300005678 3 # ber 1e-9   over 1e-12 second line\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\n0x0002c90300001234 17\n"), "%s", text);
	ck_assert_msg(strstr(text, "\n0xffffffffffffffff 254\n"), "%s", text);
	ck_assert_int_eq(parse(text, &back, err), 0);
	ck_assert_uint_eq(back.version, 42);
	ck_assert_uint_eq(back.n, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert(iso_set_has(&back, v[i].guid, v[i].port));
	iso_set_free(&back);
	free(text);
	/* No comments at all, no entries. */
	s.n = 0;
	text = iso_set_format(&s, NULL);
	ck_assert_int_eq(parse(text, &back, err), 0);
	ck_assert_uint_eq(back.version, 42);
	ck_assert_uint_eq(back.n, 0);
	free(text);
}
END_TEST

/* Two switches with two cables between them, a host on each. */
#define SW_A 0x100ULL
#define SW_B 0x200ULL
#define CA_A 0x1000ULL
#define CA_B 0x2000ULL

static struct fab *small(void)
{
	struct fab *f = fab_new("test");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW_A, 4, "sw-a", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW_B, 4, "sw-b", 2);
	fixture_node(f, IBT_NODE_CA, CA_A, 1, "host-a", 3);
	fixture_node(f, IBT_NODE_CA, CA_B, 1, "host-b", 4);
	fixture_link(f, SW_A, 1, CA_A, 1);
	fixture_link(f, SW_B, 1, CA_B, 1);
	fixture_link(f, SW_A, 2, SW_B, 3);
	fixture_link(f, SW_A, 3, SW_B, 2);
	return f;
}

START_TEST(apply_removes_a_link_named_by_either_end_once)
{
	struct iso_port by_a = { SW_A, 2 }, by_b = { SW_B, 2 }, both[] = { { SW_A, 2 }, { SW_B, 3 } };
	struct iso_port stale[] = { { 0x999, 1 }, { SW_A, 4 } };
	struct { struct iso_port *v; size_t n; uint64_t gone_guid; unsigned gone_port; } cases[] = {
		{ &by_a, 1, SW_A, 2 }, { &by_b, 1, SW_A, 3 }, { both, 2, SW_A, 2 },
	};
	char err[256] = "";

	for (size_t i = 0; i < 3; i++) {
		struct fab *f = small();
		struct iso_set s = { .version = 1, .v = cases[i].v, .n = cases[i].n };
		const struct fab_node *a = fab_find(f, SW_A), *b = fab_find(f, SW_B);
		unsigned other = cases[i].gone_port == 2 ? 3 : 2;

		ck_assert_uint_eq(iso_set_apply(&s, f), 1);
		ck_assert_uint_eq(fab_count_links(f), 3);
		ck_assert_msg(fab_check(f, err, sizeof(err)) == 0, "%s", err);
		/* Both ends lose their peer, as a cut cable's do. */
		ck_assert(!a->ports[cases[i].gone_port].has_peer);
		ck_assert(!b->ports[other].has_peer);  /* A2-B3, A3-B2 */
		ck_assert(a->ports[other].has_peer);
		/* Applied again: nothing left to remove. */
		ck_assert_uint_eq(iso_set_apply(&s, f), 0);
		fab_free(f);
	}
	/* Entries naming no node, or a port without a cable: nothing. */
	{
		struct fab *f = small();
		struct iso_set s = { .version = 2, .v = stale, .n = 2 }, none = { 0 };

		ck_assert_uint_eq(iso_set_apply(&s, f), 0);
		ck_assert_uint_eq(iso_set_apply(&none, f), 0);
		ck_assert_uint_eq(fab_count_links(f), 4);
		fab_free(f);
	}
}
END_TEST

static struct rt_graph *graph(const struct fab *f)
{
	char err[256] = "";
	struct rt_graph *g = rt_graph_new(f, err, sizeof(err));

	ck_assert_msg(g != NULL, "%s", err);
	return g;
}

/* The switch link of g that the fewest LIDs cross (one at least): the
 * reroute refuses to move more than half of the destinations. */
static const struct rt_link *busy_link(const struct rt_graph *g, const struct rt_lfts *l)
{
	const struct rt_link *best = NULL;
	size_t best_n = SIZE_MAX;

	for (size_t i = 0; i < g->n_links; i++) {
		const struct rt_link *k = &g->links[i];
		size_t n = 0;

		for (unsigned lid = 1; lid <= g->max_lid; lid++)
			n += rt_lfts_get(l, (size_t)k->sw, lid) == k->port ||
			     rt_lfts_get(l, (size_t)k->peer, lid) == k->peer_port;
		if (n > 0 && n < best_n) {
			best = k;
			best_n = n;
		}
	}
	ck_assert_msg(best != NULL, "no switch link carries anything");
	return best;
}

START_TEST(an_isolated_link_is_rerouted_like_a_cut_cable_and_carries_nothing)
{
	struct fg_fabric fg;
	struct fab *f, *cut;
	struct rt_graph *g0, *g1, *g2;
	struct rt_lfts *l0, *l1, *l2;
	struct rt_reroute_stats st;
	struct rt_metrics m;
	const struct rt_link *k;
	struct iso_port end;
	struct iso_set s = { .version = 1, .v = &end, .n = 1 };
	uint64_t a_guid, b_guid;
	char err[256] = "";
	size_t moved = 0, kept = 0;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
			 .radix = 8, .hosts = 128, .rails = 1 }), 0);
	f = fixture_fabgen(&fg, 0);
	g0 = graph(f);
	ck_assert_ptr_nonnull(l0 = rt_lfts_new(g0));
	ck_assert_int_eq(rt_route_loom(g0, l0, err, sizeof(err)), 0);
	k = busy_link(g0, l0);
	a_guid = g0->sw[k->sw].guid;
	b_guid = g0->sw[k->peer].guid;
	/* Named by the far end: the link goes all the same. */
	end = (struct iso_port){ b_guid, k->peer_port };
	ck_assert_ptr_nonnull(cut = fab_dup(f));
	ck_assert_uint_eq(iso_set_apply(&s, cut), 1);
	g1 = graph(cut);
	ck_assert_uint_eq(g1->n_links, g0->n_links - 2);   /* directed: both ways */
	ck_assert_ptr_nonnull(l1 = rt_lfts_new(g1));
	ck_assert_msg(rt_reroute(g0, l0, g1, l1, &st, err, sizeof(err)) == 0,
		      "not incremental: %s", err);
	ck_assert_uint_eq(st.cut, 2);
	for (size_t sw = 0; sw < g1->n_sw; sw++)
		for (unsigned lid = 1; lid <= g1->max_lid; lid++) {
			uint8_t p = rt_lfts_get(l1, sw, lid);

			ck_assert_msg(!(g1->sw[sw].guid == a_guid && p == k->port) &&
				      !(g1->sw[sw].guid == b_guid && p == k->peer_port),
				      "LID %u still leaves %s by the isolated link", lid,
				      g1->sw[sw].desc);
			if (p != rt_lfts_get(l0, sw, lid))
				moved++;
			else
				kept++;
		}
	ck_assert_uint_gt(moved, 0);
	ck_assert_uint_gt(kept, moved);   /* only what crossed it moved */
	ck_assert_int_eq(rt_metrics_compute(g1, l1, NULL, &m), 0);
	fixture_assert_all_delivered(&m, g1->n_ca);
	ck_assert(m.cdg_acyclic);
	/* Restored (the set empty again): the cable "appeared", a full run,
	 * which uses it again. */
	g2 = graph(f);
	ck_assert_ptr_nonnull(l2 = rt_lfts_new(g2));
	ck_assert_int_eq(rt_reroute(g1, l1, g2, l2, &st, err, sizeof(err)), -EAGAIN);
	ck_assert_msg(strstr(err, "appeared"), "%s", err);
	ck_assert_int_eq(rt_route_loom(g2, l2, err, sizeof(err)), 0);
	ck_assert_int_eq(rt_metrics_compute(g2, l2, NULL, &m), 0);
	fixture_assert_all_delivered(&m, g2->n_ca);
	moved = 0;
	for (unsigned lid = 1; lid <= g2->max_lid; lid++)
		moved += rt_lfts_get(l2, (size_t)k->sw, lid) == k->port;
	ck_assert_msg(moved > 0, "the restored link carries nothing");
	rt_lfts_free(l0);
	rt_lfts_free(l1);
	rt_lfts_free(l2);
	rt_graph_free(g0);
	rt_graph_free(g1);
	rt_graph_free(g2);
	fab_free(cut);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolated_set");
	TCase *tc = tcase_create("isolated_set");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_good_file_is_read_whole_and_sorted);
	tcase_add_test(tc, no_version_is_version_0_and_an_empty_file_an_empty_set);
	tcase_add_test(tc, the_text_need_not_end_with_nul);
	tcase_add_test(tc, every_malformed_line_is_refused_with_its_number);
	tcase_add_test(tc, at_most_65536_entries);
	tcase_add_test(tc, what_format_writes_parse_reads_back);
	tcase_add_test(tc, apply_removes_a_link_named_by_either_end_once);
	tcase_add_test(tc, an_isolated_link_is_rerouted_like_a_cut_cable_and_carries_nothing);
	suite_add_tcase(s, tc);
	return check_run(s);
}
