/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_topo_file.c: topology files (ibsim net, ibnetdiscover) read
 * into the fabric graph; GUIDs as ibsim assigns them, the same fabric from
 * both formats, and errors that name file and line. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/fabric/topo_file.h"
#include "tests/unit/fixtures/check_run.h"


static struct fab *read_ok(const char *name)
{
	char err[512] = "";
	struct fab *f = topo_file_read(fixture_path(name), "ib0", err, sizeof(err));

	ck_assert_msg(f != NULL, "%s: %s", name, err);
	ck_assert_int_eq(fab_check(f, err, sizeof(err)), 0);
	for (size_t i = 1; i < f->n_nodes; i++)
		ck_assert(f->nodes[i - 1]->guid < f->nodes[i]->guid);   /* sorted */
	return f;
}

static struct fab *parse_ok(const char *text)
{
	char err[512] = "";
	struct fab *f = topo_file_parse("t.net", text, strlen(text), "ib0", err, sizeof(err));

	ck_assert_msg(f != NULL, "%s", err);
	return f;
}

static void parse_fails(const char *text, const char *want)
{
	char err[512] = "";
	struct fab *f = topo_file_parse("t.net", text, strlen(text), "ib0", err, sizeof(err));

	ck_assert_msg(f == NULL, "parsed what should fail with %s", want);
	ck_assert_msg(strstr(err, want) != NULL, "error \"%s\" lacks \"%s\"", err, want);
}

START_TEST(tiny_net_gets_ibsim_guids_and_attributes)
{
	struct fab *f = read_ok("tiny.net");
	struct fab_node *a, *b, *sw;
	struct fab_port *p;

	ck_assert_uint_eq(f->n_nodes, 3);
	ck_assert_uint_eq(fab_count_links(f), 3);
	ck_assert_str_eq(f->subnet, "ib0");
	a = fab_find(f, 0x100000);
	b = fab_find(f, 0x100003);
	sw = fab_find(f, 0x200000);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(sw);
	ck_assert_int_eq(a->type, IBT_NODE_CA);
	ck_assert_int_eq(sw->type, IBT_NODE_SWITCH);
	ck_assert_str_eq(a->desc, "Hca-A");
	ck_assert_str_eq(sw->desc, "Switch-1");
	ck_assert_uint_eq(a->nports, 2);
	ck_assert_uint_eq(sw->nports, 8);
	ck_assert_uint_eq(a->sysimg_guid, 0x100000);

	/* CA port GUIDs are node GUID + port; a switch's are its node GUID. */
	ck_assert_uint_eq(fab_port(a, 1)->guid, 0x100001);
	ck_assert_uint_eq(fab_port(a, 2)->guid, 0x100002);
	ck_assert_uint_eq(fab_port(b, 1)->guid, 0x100004);
	ck_assert_uint_eq(fab_port(sw, 0)->guid, 0x200000);
	ck_assert_uint_eq(fab_port(sw, 3)->guid, 0x200000);

	/* Hca-A port 2 <-> Switch-1 port 3 is the 1x cable. */
	p = fab_port(a, 2);
	ck_assert(p->has_peer);
	ck_assert_uint_eq(p->peer_guid, 0x200000);
	ck_assert_uint_eq(p->peer_port, 3);
	ck_assert_uint_eq(p->width_active, IBT_WIDTH_1X);
	ck_assert_uint_eq(fab_port(sw, 3)->width_active, IBT_WIDTH_1X);
	ck_assert_uint_eq(p->speed_active, IBT_SPEED_SDR);
	ck_assert_uint_eq(p->state, 4);
	ck_assert_uint_eq(p->phys_state, 5);
	ck_assert_uint_eq(p->lid, 0);
	p = fab_port(a, 1);
	ck_assert_uint_eq(p->width_active, IBT_WIDTH_4X);
	ck_assert_uint_eq(p->width_supported, 0x1f);
	ck_assert_uint_eq(p->speed_supported, IBT_SPEED_SDR | IBT_SPEED_DDR | IBT_SPEED_QDR);
	ck_assert_uint_eq(p->speed_enabled, IBT_SPEED_SDR);

	/* Unused switch ports exist and are down; unused CA ports do not. */
	p = fab_port(sw, 5);
	ck_assert_ptr_nonnull(p);
	ck_assert(!p->has_peer);
	ck_assert_uint_eq(p->state, 1);
	ck_assert_uint_eq(p->phys_state, 2);
	ck_assert_uint_eq(fab_port(sw, 0)->state, 4);
	ck_assert_uint_eq(fab_count_ports(f), 9 + 2 + 1);
	fab_free(f);
}
END_TEST

START_TEST(demo_fat_tree_counts)
{
	struct fab *f = read_ok("demo-ft2.net");

	ck_assert_uint_eq(f->n_nodes, 44);
	ck_assert_uint_eq(fab_count_type(f, IBT_NODE_CA), 32);
	ck_assert_uint_eq(fab_count_type(f, IBT_NODE_SWITCH), 12);
	ck_assert_uint_eq(fab_count_links(f), 64);
	/* host-0031 is the 32nd single-port HCA: 0x100000 + 31 * 2. */
	ck_assert_str_eq(fab_find(f, 0x10003e)->desc, "host-0031");
	ck_assert_str_eq(fab_find(f, 0x20000b)->desc, "spine-3");
	fab_free(f);
}
END_TEST

struct same_arg {
	const struct fab *other;
	size_t seen;
};

static int link_in_other(const struct fab_link *l, void *arg)
{
	struct same_arg *sa = arg;
	const struct fab_node *on = fab_find(sa->other, l->a_node->guid), *pn;
	const struct fab_port *op = on ? fab_port(on, l->a->num) : NULL;
	const struct fab_port *peer = op ? fab_peer(sa->other, op, &pn) : NULL;

	ck_assert_msg(peer != NULL, "link from 0x%llx[%u] missing",
		      (unsigned long long)l->a_node->guid, l->a->num);
	ck_assert_uint_eq(pn->guid, l->b_node->guid);
	ck_assert_uint_eq(peer->num, l->b->num);
	ck_assert_uint_eq(op->width_active, l->a->width_active);
	ck_assert_uint_eq(op->speed_active, l->a->speed_active);
	sa->seen++;
	return 0;
}

/* The net file and ibnetdiscover's view of the simulated fabric agree on
 * nodes, GUIDs, port GUIDs and links (LIDs differ: the net file has none). */
static void same_fabric(const char *net, const char *ibnd)
{
	struct fab *n = read_ok(net), *d = read_ok(ibnd);
	struct same_arg sa = { .other = d };

	ck_assert_uint_eq(n->n_nodes, d->n_nodes);
	ck_assert_uint_eq(fab_count_ports(n), fab_count_ports(d));
	for (size_t i = 0; i < n->n_nodes; i++) {
		const struct fab_node *a = n->nodes[i], *b = d->nodes[i];

		ck_assert_uint_eq(a->guid, b->guid);
		ck_assert_int_eq(a->type, b->type);
		ck_assert_uint_eq(a->nports, b->nports);
		ck_assert_str_eq(a->desc, b->desc);
		ck_assert_uint_eq(a->sysimg_guid, b->sysimg_guid);
		for (unsigned p = 0; p <= a->nports; p++) {
			ck_assert_uint_eq(a->ports[p].present, b->ports[p].present);
			ck_assert_uint_eq(a->ports[p].guid, b->ports[p].guid);
		}
	}
	fab_foreach_link(n, link_in_other, &sa);
	ck_assert_uint_eq(sa.seen, fab_count_links(d));
	fab_free(n);
	fab_free(d);
}

START_TEST(ibnetdiscover_capture_matches_net_file)
{
	struct fab *d;

	same_fabric("tiny.net", "tiny.ibnd");
	same_fabric("demo-ft2.net", "demo-ft2.ibnd");

	d = read_ok("tiny.ibnd");
	ck_assert_uint_eq(fab_port(fab_find(d, 0x200000), 0)->lid, 2);
	ck_assert_uint_eq(fab_port(fab_find(d, 0x200000), 7)->lid, 2);
	ck_assert_uint_eq(fab_port(fab_find(d, 0x100000), 2)->lid, 3);
	ck_assert_uint_eq(fab_port(fab_find(d, 0x100003), 1)->lid, 4);
	fab_free(d);
}
END_TEST

START_TEST(one_sided_cables_are_completed)
{
	struct fab *f = parse_ok("Switch 4 \"sw\"\n[1] \"h\"[1] w=1\n[2] \"h\"[2] s=3\n\n"
				 "Hca 2 \"h\"\n");
	struct fab_node *h = fab_find(f, 0x100000);

	ck_assert_uint_eq(fab_count_links(f), 2);
	ck_assert_uint_eq(fab_port(h, 1)->width_active, IBT_WIDTH_1X);
	ck_assert_uint_eq(fab_port(h, 1)->peer_guid, 0x200000);
	ck_assert_uint_eq(fab_port(h, 2)->speed_active, IBT_SPEED_DDR);
	fab_free(f);
}
END_TEST

/* Answers of ibsim 0.10 to the same text (ibnetdiscover under ibsim):
 * routers count their GUIDs from 0, apart from CAs; a `# "desc"` trailer is
 * the node description. */
START_TEST(net_routers_and_descriptions_as_ibsim)
{
	struct fab *f = parse_ok("Rt 2 \"R1\"\n[1] \"SW\"[2]\n\nHca 1 \"A\" # \"A mlx5_0\"\n"
				 "[1] \"SW\"[1]\n\nRt 3 \"R2\"\n[1] \"SW\"[3]\n\n"
				 "Switch 4 \"SW\" # \"sw desc\"\n[1] \"A\"[1]\n[2] \"R1\"[1]\n"
				 "[3] \"R2\"[1] w=3\n");
	struct fab_node *r1 = fab_find(f, 0x0), *r2 = fab_find(f, 0x3), *a = fab_find(f, 0x100000);

	ck_assert_ptr_nonnull(r1);
	ck_assert_ptr_nonnull(r2);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(r1->type, IBT_NODE_ROUTER);
	ck_assert_uint_eq(fab_port(r1, 1)->guid, 0x1);
	ck_assert_uint_eq(fab_port(r2, 1)->guid, 0x4);
	ck_assert_str_eq(a->desc, "A mlx5_0");
	ck_assert_str_eq(fab_find(f, 0x200000)->desc, "sw desc");
	ck_assert_str_eq(r2->desc, "R2");
	/* w=3 on one end, 4x enabled on the other: 4x, as ibsim shows it. */
	ck_assert_uint_eq(fab_port(r2, 1)->width_active, IBT_WIDTH_4X);
	ck_assert_uint_eq(fab_count_links(f), 3);
	fab_free(f);

	/* A net file whose names merely look like ibnetdiscover's stays a net file. */
	f = parse_ok("Switch 2 \"S-1\"\n[1] \"H-1\"[1]\n\nHca 1 \"H-1\"\n");
	ck_assert_ptr_nonnull(fab_find(f, 0x200000));
	fab_free(f);
}
END_TEST

START_TEST(errors_name_file_and_line)
{
	char err[256];

	parse_fails("Switch 8 \"leaf-0\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"leaf-0\"[9]\n",
		    "t.net:5: port 9 of \"leaf-0\" does not exist (8 ports)");
	parse_fails("Hca 1 \"h\"\n# c\n[1] \"nobody\"[1]\n", "t.net:3: unknown peer \"nobody\"");
	parse_fails("Hca 1 \"h\"\n\nHca 2 \"h\"\n", "t.net:3: duplicate node \"h\" (first on line 1)");
	parse_fails("Hca x \"h\"\n", "t.net:1: bad header");
	parse_fails("Switch 300 \"s\"\n", "t.net:1: bad header");
	parse_fails("Bridge 2 \"b\"\n", "t.net:1: bad line");
	parse_fails("[1] \"h\"[1]\n", "t.net:1: cable before any node header");
	parse_fails("Switch 4 \"s\"\n[1] \"h\"[1]\n\nHca 2 \"h\"\n[1] \"s\"[2]\n",
		    "t.net:5: port 1 of \"h\" cabled to \"s\"[2], but line 2 cables it to \"s\"[1]");
	parse_fails("Switch 4 \"s\"\n[1] \"s\"[2]\n[1] \"s\"[2]\n", "t.net:3: port 1 of \"s\" cabled twice");
	parse_fails("Switch 4 \"s\"\n[1] \"s\"[1]\n", "t.net:2: port 1 of \"s\" cabled to itself");
	parse_fails("Switch 4 \"s\"\n[1] \"h\"[1] w=1\n\nHca 1 \"h\"\n[1] \"s\"[1] w=2\n",
		    "no common width");
	parse_fails("Switch 4 \"s\"\n[1] \"h\"[1] q=1\n", "t.net:2: unknown option");
	parse_fails("# nothing\n\n", "t.net: no nodes");
	/* ibnetdiscover format */
	parse_fails("switchguid=0x10\nSwitch 4 \"S-0000000000000010\" # \"s\" base port 0 lid 1 lmc 0\n"
		    "[1] \"H-0000000000000099\"[1](9a) # \"h\" lid 3 4xSDR\n",
		    "t.net:3: unknown peer 0x0000000000000099");
	parse_fails("caguid=0x20\nCa 1 \"H-0000000000000020\" # \"h\"\n"
		    "[1](21) \"S-0000000000000010\"[1] # lid 3 lmc 0 \"s\" lid 1 4xWHAT\n",
		    "t.net:3: unknown speed \"WHAT\"");
	ck_assert_ptr_null(topo_file_read("/nonexistent/x.net", "ib0", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.net: "));
}
END_TEST

START_TEST(ibnetdiscover_rates_and_lids)
{
	const char *t =
		"switchguid=0x10(10)\n"
		"Switch 4 \"S-0000000000000010\" # \"s\" enhanced port 0 lid 7 lmc 0\n"
		"[1] \"H-0000000000000020\"[1](21) # \"h\" lid 3 4xHDR\n"
		"[2] \"H-0000000000000020\"[2](22) # \"h\" lid 3 1xFDR10\n"
		"\n"
		"vendid=0x2c9\ndevid=0x1017\nsysimgguid=0x20\ncaguid=0x20\n"
		"Ca 2 \"H-0000000000000020\" # \"h mlx5_0\"\n"
		"[1](21) \"S-0000000000000010\"[1] # lid 3 lmc 1 \"s\" lid 7 4xHDR\n";
	struct fab *f = parse_ok(t);
	struct fab_node *h = fab_find(f, 0x20), *s = fab_find(f, 0x10);

	ck_assert_uint_eq(fab_count_links(f), 2);
	ck_assert_uint_eq(s->type, IBT_NODE_SWITCH);
	ck_assert_str_eq(h->desc, "h mlx5_0");
	ck_assert_uint_eq(h->vendor_id, 0x2c9);
	ck_assert_uint_eq(h->device_id, 0x1017);
	ck_assert_uint_eq(fab_port(h, 1)->lid, 3);
	ck_assert_uint_eq(fab_port(h, 1)->lmc, 1);
	ck_assert_uint_eq(fab_port(h, 1)->speed_active, IBT_SPEED_HDR);
	ck_assert_uint_eq(fab_port(h, 2)->guid, 0x22);   /* completed end */
	ck_assert_uint_eq(fab_port(h, 2)->width_active, IBT_WIDTH_1X);
	ck_assert_uint_eq(fab_port(h, 2)->speed_active, IBT_SPEED_FDR10);
	ck_assert_uint_eq(fab_port(s, 2)->lid, 7);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topo_file");
	TCase *tc = tcase_create("topo_file");

	tcase_add_test(tc, tiny_net_gets_ibsim_guids_and_attributes);
	tcase_add_test(tc, demo_fat_tree_counts);
	tcase_add_test(tc, ibnetdiscover_capture_matches_net_file);
	tcase_add_test(tc, one_sided_cables_are_completed);
	tcase_add_test(tc, net_routers_and_descriptions_as_ibsim);
	tcase_add_test(tc, errors_name_file_and_line);
	tcase_add_test(tc, ibnetdiscover_rates_and_lids);
	suite_add_tcase(s, tc);
	return check_run(s);
}
