/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_mcast.c: the multicast rules
 * (lib/validate/mcast.h) on hand-made trees over a small fat tree of three
 * leaves and two spines: the tree OpenSM would build has no finding; a
 * member whose leaf does not forward to it, or whose leaf is cut off from
 * the tree, is unreached (named by its switch port); a send-only member
 * needs no forwarding to it; two spines both forwarding close a loop; a
 * tree through a leaf between two spines is not up-down; a port forwarded
 * to a host that is no member leaks; past MCAST_PER_GROUP findings of one
 * code a group has one more saying how many. */
#include "autoconf.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/mcast.h"
#include "tests/unit/fixtures/check_run.h"

/* l1..l3 leaves, s1, s2 spines; hosts hA hB on l1, hC hD hE on l2, hF on l3. */
static const char NET[] =
	"Switch 8 \"l1\"\n[1] \"hA\"[1]\n[2] \"hB\"[1]\n[3] \"s1\"[1]\n[4] \"s2\"[1]\n\n"
	"Switch 8 \"l2\"\n[1] \"hC\"[1]\n[2] \"hD\"[1]\n[3] \"s1\"[2]\n[4] \"s2\"[2]\n"
	"[5] \"hE\"[1]\n\n"
	"Switch 8 \"l3\"\n[1] \"hF\"[1]\n[3] \"s1\"[3]\n[4] \"s2\"[3]\n\n"
	"Switch 8 \"s1\"\n[1] \"l1\"[3]\n[2] \"l2\"[3]\n[3] \"l3\"[3]\n\n"
	"Switch 8 \"s2\"\n[1] \"l1\"[4]\n[2] \"l2\"[4]\n[3] \"l3\"[4]\n\n"
	"Hca 1 \"hA\"\n[1] \"l1\"[1]\n\nHca 1 \"hB\"\n[1] \"l1\"[2]\n\n"
	"Hca 1 \"hC\"\n[1] \"l2\"[1]\n\nHca 1 \"hD\"\n[1] \"l2\"[2]\n\n"
	"Hca 1 \"hE\"\n[1] \"l2\"[5]\n\nHca 1 \"hF\"\n[1] \"l3\"[1]\n";

static struct fab *fab;
static struct mc_data d;
static struct val_report r;
static const char *MGID = "ff12:401b:ffff::1";

static const struct fab_node *node(const char *desc)
{
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (!strcmp(fab->nodes[i]->desc, desc))
			return fab->nodes[i];
	ck_abort_msg("no node %s", desc);
	return NULL;
}

static void setup(void)
{
	char err[256] = "";

	fab = topo_file_parse("t.net", NET, strlen(NET), "ib0", err, sizeof(err));
	ck_assert_msg(fab != NULL, "%s", err);
	memset(&r, 0, sizeof(r));
	memset(&d, 0, sizeof(d));
	d.g = calloc(1, sizeof(*d.g));
	d.n_groups = 1;
	d.g->mgid[0] = 0xff;
	d.g->mgid[1] = 0x12;
	d.g->mgid[2] = 0x40;
	d.g->mgid[3] = 0x1b;
	d.g->mgid[4] = d.g->mgid[5] = 0xff;
	d.g->mgid[15] = 1;
	d.g->mlid = 0xc000;
	d.g->m = calloc(8, sizeof(*d.g->m));
	d.t = calloc(8, sizeof(*d.t));
}

static void teardown(void)
{
	mc_data_clear(&d);
	val_report_clear(&r);
	fab_free(fab);
}

static void member(const char *host, unsigned join_state)
{
	d.g->m[d.g->n++] = (struct mc_member){ fab_port(node(host), 1)->guid, (uint8_t)join_state };
}

/* switch sw forwards the group out of the ports listed (0-terminated) */
static void forwards(const char *sw, ...)
{
	struct mc_table *t = &d.t[d.n_tables++];
	va_list ap;
	unsigned p;

	t->guid = node(sw)->guid;
	t->n = 1;
	t->e = calloc(1, sizeof(*t->e));
	t->e->mlid = 0xc000;
	va_start(ap, sw);
	while ((p = va_arg(ap, unsigned)))
		mc_mask_set(&t->e->mask, p);
	va_end(ap);
}

/* The members of OpenSM's tree rooted at s1: hA, hB, hC, hD, hF. */
static void tree(void)
{
	member("hA", MC_JOIN_FULL);
	member("hB", MC_JOIN_FULL);
	member("hC", MC_JOIN_FULL);
	member("hD", MC_JOIN_FULL);
	member("hF", MC_JOIN_FULL);
}

static void run(void)
{
	struct mcast_opts o = { .fat_tree = -1 };

	ck_assert_int_eq(mcast_check(fab, &d, &o, &r), 0);
	for (size_t i = 0; i < r.n; i++)
		fprintf(stderr, "  %s %s (want %s, got %s)\n", val_code_name(r.f[i].code),
			r.f[i].subject, r.f[i].want, r.f[i].got);
}

static size_t count(enum val_code c, const char *subject)
{
	size_t n = 0;

	for (size_t i = 0; i < r.n; i++)
		n += r.f[i].code == c && (!subject || !strcmp(r.f[i].subject, subject));
	return n;
}

static const char *subj(const char *port)
{
	static char s[128];

	snprintf(s, sizeof(s), "%s %s", MGID, port);
	return s;
}

START_TEST(reached)
{
	tree();
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 2u, 3u, 0u);
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	run();
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

/* a second group of the same tree, judged apart from the first */
START_TEST(reached_two_groups)
{
	struct mc_group *g;

	tree();
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 2u, 3u, 0u);
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	ck_assert_ptr_nonnull(g = realloc(d.g, 2 * sizeof(*d.g)));
	d.g = g;
	d.g[1] = d.g[0];
	d.g[1].mgid[15] = 2;
	d.g[1].mlid = 0xc001;
	ck_assert_ptr_nonnull(d.g[1].m = malloc(d.g[0].n * sizeof(*d.g[1].m)));
	memcpy(d.g[1].m, d.g[0].m, d.g[0].n * sizeof(*d.g[1].m));
	d.n_groups = 2;
	for (size_t t = 0; t < d.n_tables; t++) {
		struct mc_entry *e = realloc(d.t[t].e, 2 * sizeof(*e));

		ck_assert_ptr_nonnull(e);
		e[1] = e[0];
		e[1].mlid = 0xc001;
		d.t[t].e = e;
		d.t[t].n = 2;
	}
	run();
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(unreached_port)
{
	tree();
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 3u, 0u);            /* hD's port dropped */
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	run();
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(count(VAL_MCAST_UNREACHED, subj("l2[2]")), 1);
}
END_TEST

START_TEST(unreached_cut_off)
{
	tree();
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 2u, 3u, 0u);
	forwards("l3", 1u, 0u);                /* l3 no longer sends up to s1 */
	forwards("s1", 1u, 2u, 3u, 0u);
	run();
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(count(VAL_MCAST_UNREACHED, subj("l3[1]")), 1);
	ck_assert_ptr_nonnull(strstr(r.f[0].got, "cut off"));
}
END_TEST

START_TEST(send_only_needs_no_port)
{
	tree();
	d.g->m[3].join_state = MC_JOIN_SEND_ONLY;  /* hD */
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 3u, 0u);
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	run();
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(loop)
{
	tree();
	forwards("l1", 1u, 2u, 3u, 4u, 0u);
	forwards("l2", 1u, 2u, 3u, 4u, 0u);
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	forwards("s2", 1u, 2u, 0u);            /* s2 - l2 - s1 - l1 - s2 */
	run();
	ck_assert_uint_eq(count(VAL_MCAST_LOOP, NULL), 1);
	ck_assert_uint_eq(count(VAL_MCAST_UNREACHED, NULL), 0);
}
END_TEST

START_TEST(not_updown)
{
	tree();
	/* l1 - s1 - l2 - s2 - l3: l2 takes it from s1 and sends it up to s2 */
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("s1", 1u, 2u, 0u);
	forwards("l2", 1u, 2u, 3u, 4u, 0u);
	forwards("s2", 2u, 3u, 0u);
	forwards("l3", 1u, 4u, 0u);
	run();
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(count(VAL_MCAST_NOT_UPDOWN, subj("l2[4]")), 1);
	ck_assert_uint_eq(count(VAL_MCAST_LOOP, NULL), 0);
}
END_TEST

START_TEST(leak)
{
	tree();
	forwards("l1", 1u, 2u, 3u, 0u);
	forwards("l2", 1u, 2u, 3u, 5u, 0u);    /* hE is no member */
	forwards("l3", 1u, 3u, 0u);
	forwards("s1", 1u, 2u, 3u, 0u);
	run();
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(count(VAL_MCAST_LEAK, subj("l2[5]")), 1);
	ck_assert_ptr_nonnull(strstr(r.f[0].got, "hE"));
}
END_TEST

START_TEST(capped_per_group)
{
	/* 12 members on l1's ports through a fabric of more hosts: the leaf
	 * forwards to none of them */
	struct fab *big;
	char net[8192], err[256] = "";
	size_t at = 0;

	at += (size_t)snprintf(net + at, sizeof(net) - at, "Switch 16 \"l1\"\n");
	for (unsigned h = 1; h <= 12; h++)
		at += (size_t)snprintf(net + at, sizeof(net) - at, "[%u] \"h%u\"[1]\n", h, h);
	for (unsigned h = 1; h <= 12; h++)
		at += (size_t)snprintf(net + at, sizeof(net) - at, "\nHca 1 \"h%u\"\n[1] \"l1\"[%u]\n",
				       h, h);
	big = topo_file_parse("big.net", net, at, "ib0", err, sizeof(err));
	ck_assert_msg(big != NULL, "%s", err);
	fab_free(fab);
	fab = big;
	d.g->m = realloc(d.g->m, 12 * sizeof(*d.g->m));
	for (unsigned h = 1; h <= 12; h++) {
		char name[8];

		snprintf(name, sizeof(name), "h%u", h);
		member(name, MC_JOIN_FULL);
	}
	forwards("l1", 1u, 0u);
	run();
	ck_assert_uint_eq(count(VAL_MCAST_UNREACHED, NULL), MCAST_PER_GROUP + 1);
	ck_assert_uint_eq(count(VAL_MCAST_UNREACHED, MGID), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_mcast");
	TCase *tc = tcase_create("trees");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reached);
	tcase_add_test(tc, reached_two_groups);
	tcase_add_test(tc, unreached_port);
	tcase_add_test(tc, unreached_cut_off);
	tcase_add_test(tc, send_only_needs_no_port);
	tcase_add_test(tc, loop);
	tcase_add_test(tc, not_updown);
	tcase_add_test(tc, leak);
	tcase_add_test(tc, capped_per_group);
	suite_add_tcase(s, tc);
	return check_run(s);
}
