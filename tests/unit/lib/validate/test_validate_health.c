/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_health.c: the rules of a healthy fabric
 * (lib/validate/health.h). A small two-level tree (3 spines, 3 leaves, 6
 * hosts) as ibsim would run it, after an SM gave it LIDs, has no finding;
 * each test breaks exactly one rule (through the net file, or by editing
 * the fields the net syntax cannot say) and finds it exactly once, with its
 * code. Generated fat trees (with rails too) have no finding, a tree with
 * two slow cables exactly two, tori and dragonflies are no fat trees. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/health.h"
#include "lib/fabric/nodename.h"
#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_route.h"

#define SPINES "Switch 8 \"s1\"\n\nSwitch 8 \"s2\"\n\nSwitch 8 \"s3\"\n\n"
#define L1 "Switch 8 \"l1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n[5] \"s1\"[1]\n[6] \"s2\"[1]\n[7] \"s3\"[1]\n"
#define L2 "Switch 8 \"l2\"\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n[5] \"s1\"[2]\n[6] \"s2\"[2]\n[7] \"s3\"[2]\n"
#define L3 "Switch 8 \"l3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n[5] \"s1\"[3]\n[6] \"s2\"[3]\n[7] \"s3\"[3]\n"
#define HOSTS "Hca 2 \"h1\"\n\nHca 2 \"h2\"\n\nHca 2 \"h3\"\n\nHca 2 \"h4\"\n\n" \
	"Hca 2 \"h5\"\n\nHca 2 \"h6\"\n"
#define TREE SPINES L1 L2 L3 HOSTS

/* As an SM leaves it: every CA port and switch port 0 with a LID of its own
 * (8 apart, room for an LMC), a switch's ports with port 0's. */
static void sm_up(struct fab *f)
{
	unsigned lid = 8;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fab_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			if (!n->ports[p].present)
				continue;
			if (n->type == IBT_NODE_SWITCH) {
				n->ports[p].lid = (uint16_t)lid;
			} else if (p) {
				n->ports[p].lid = (uint16_t)lid;
				lid += 8;
			}
		}
		if (n->type == IBT_NODE_SWITCH)
			lid += 8;
	}
}

static struct fab *net(const char *text)
{
	char err[512] = "";
	struct fab *f = topo_file_parse("t.net", text, strlen(text), "ib0", err, sizeof(err));

	ck_assert_msg(f != NULL, "%s", err);
	sm_up(f);
	return f;
}

static struct fab_node *named(struct fab *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i]->desc, desc))
			return f->nodes[i];
	ck_abort_msg("no node %s", desc);
	return NULL;
}

static void dump(const struct val_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "  finding %zu: %s \"%s\" (want %s, got %s)\n", i,
			val_code_name(r->f[i].code), r->f[i].subject, r->f[i].want, r->f[i].got);
}

static void run(const struct fab *f, const struct health_opts *o, struct val_report *r)
{
	struct health_opts def = { .fat_tree = -1, .sm_active = 1 };
	char err[256] = "";

	ck_assert_msg(health_check(f, o ? o : &def, r, err, sizeof(err)) == 0, "%s", err);
}

/* The one finding of r, of code k. */
static const struct val_finding *only(const struct val_report *r, enum val_code k)
{
	if (r->n != 1)
		dump(r);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_str_eq(val_code_name(r->f[0].code), val_code_name(k));
	ck_assert_int_eq(r->f[0].sev, val_code_severity(k));
	return &r->f[0];
}

static void none(const struct val_report *r)
{
	if (r->n)
		dump(r);
	ck_assert_uint_eq(r->n, 0);
}

START_TEST(the_clean_tree_has_no_finding)
{
	struct val_report r = { 0 };
	struct fab *f = net(TREE);

	run(f, NULL, &r);
	none(&r);
	ck_assert_uint_eq(r.nodes, 12);
	ck_assert_uint_eq(r.links, 15);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_cable_trained_at_1x_is_degraded)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(SPINES L1 L2
			    "Switch 8 \"l3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n[5] \"s1\"[3]\n"
			    "[6] \"s2\"[3] w=1\n[7] \"s3\"[3]\n" HOSTS);

	run(f, NULL, &r);
	v = only(&r, VAL_DEGRADED);
	ck_assert_str_eq(v->subject, "s2[3] - l3[6]");   /* from its smaller end: s2's GUID */
	ck_assert_str_eq(v->want, "4x SDR");
	ck_assert_str_eq(v->got, "1x SDR");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

/* With the site's node-name-map (opts->names), the findings name the nodes
 * it names by it: the degraded link's end and the fat tree's leaf; a
 * description stays for the nodes it does not name. */
START_TEST(findings_name_nodes_by_the_site_names)
{
	struct val_report r = { 0 };
	struct nodename_map *m = nodename_map_new();
	struct health_opts o = { .fat_tree = -1, .sm_active = 1 };
	struct fab *f = net(SPINES L1 L2
			    "Switch 8 \"l3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n[5] \"s1\"[3]\n"
			    "[6] \"s2\"[3] w=1\n" HOSTS);

	ck_assert_int_eq(nodename_map_add(m, named(f, "l3")->guid, "rack 3 leaf"), 0);
	nodename_map_seal(m);
	o.names = m;
	run(f, &o, &r);
	if (r.n != 2)
		dump(&r);
	ck_assert_uint_eq(r.n, 2);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_str_eq(r.f[i].subject, r.f[i].code == VAL_DEGRADED ? "s2[3] - rack 3 leaf[6]"
										: "rack 3 leaf");
	nodename_map_free(m);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(duplicate_guids_name_both_sightings)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);

	ck_assert_int_eq(fab_add_dup(f, named(f, "h1")->guid, 0, "h1", "h7"), 0);
	run(f, NULL, &r);
	v = only(&r, VAL_DUP_NODE_GUID);
	ck_assert_str_eq(v->subject, "GUID 0x0000000000100000 on h1 and h7");
	val_report_clear(&r);
	/* one port GUID on two ports of the graph */
	named(f, "h2")->ports[1].guid = named(f, "h1")->ports[1].guid;
	f->n_dups = 0;
	run(f, NULL, &r);
	v = only(&r, VAL_DUP_PORT_GUID);
	ck_assert_str_eq(v->subject, "GUID 0x0000000000100001 on h1[1] and h2[1]");
	val_report_clear(&r);
	/* discovery saw it too: said once */
	ck_assert_int_eq(fab_add_dup(f, named(f, "h1")->ports[1].guid, 1, "h1[1]", "h2[1]"), 0);
	run(f, NULL, &r);
	only(&r, VAL_DUP_PORT_GUID);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(descriptions_twice_or_empty)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);

	strcpy(named(f, "h2")->desc, "h1");
	run(f, NULL, &r);
	v = only(&r, VAL_DUP_DESC);
	ck_assert_str_eq(v->subject, "h1");
	ck_assert_str_eq(v->got, "2 nodes: 0x0000000000100000 0x0000000000100003");
	val_report_clear(&r);
	strcpy(named(f, "h1")->desc, "h2");   /* both renamed: now h2 twice */
	named(f, "s3")->desc[0] = '\0';
	strcpy(named(f, "h2")->desc, "h2-real");
	run(f, NULL, &r);
	v = only(&r, VAL_EMPTY_DESC);
	ck_assert_str_eq(v->subject, "switch 0x0000000000200002");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(lid_conflicts_and_ranges)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);
	struct fab_port *p1 = &named(f, "h1")->ports[1], *p2 = &named(f, "h2")->ports[1];

	p2->lid = p1->lid;
	run(f, NULL, &r);
	v = only(&r, VAL_LID_CONFLICT);
	ck_assert_str_eq(v->subject, "LID 8: h1[1] and h2[1]");
	val_report_clear(&r);
	/* lmc 2: h1 owns 8..11; h2 at 10 overlaps, at 12 does not */
	p1->lmc = 2;
	p2->lid = 10;
	run(f, NULL, &r);
	only(&r, VAL_LID_CONFLICT);
	val_report_clear(&r);
	p2->lid = 12;
	run(f, NULL, &r);
	none(&r);
	/* a port not ACTIVE: its LID is no one's yet */
	p2->lid = p1->lid;
	p2->state = 2;
	run(f, &(struct health_opts){ .fat_tree = -1 }, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(an_active_port_without_a_lid)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);

	named(f, "h3")->ports[1].lid = 0;
	run(f, NULL, &r);
	v = only(&r, VAL_LID_UNASSIGNED);
	ck_assert_str_eq(v->subject, "h3[1]");
	val_report_clear(&r);
	named(f, "h3")->ports[1].lid = 200;
	named(f, "l2")->ports[0].lid = 0;   /* a switch: its port 0 */
	run(f, NULL, &r);
	v = only(&r, VAL_LID_UNASSIGNED);
	ck_assert_str_eq(v->subject, "l2[0]");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_port_stuck_in_init_only_under_an_sm)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);

	named(f, "h4")->ports[1].state = 3;   /* armed */
	run(f, NULL, &r);
	v = only(&r, VAL_PORT_STUCK);
	ck_assert_str_eq(v->subject, "h4[1] - l2[2]");
	ck_assert_str_eq(v->got, "h4[1] armed, l2[2] active");
	val_report_clear(&r);
	/* both ends stuck: one link, one finding */
	named(f, "l2")->ports[2].state = 2;
	run(f, NULL, &r);
	v = only(&r, VAL_PORT_STUCK);
	ck_assert_str_eq(v->got, "h4[1] armed, l2[2] init");
	val_report_clear(&r);
	/* before the SM brought the subnet up every port is INIT: no fault */
	run(f, &(struct health_opts){ .fat_tree = -1, .sm_active = 0 }, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(mtu_and_vl_mismatches_across_a_link)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);

	named(f, "h1")->ports[1].mtu = 5;
	run(f, NULL, &r);
	v = only(&r, VAL_MTU_MISMATCH);
	ck_assert_str_eq(v->subject, "h1[1] - l1[1]");
	ck_assert_str_eq(v->got, "4096 and 2048 bytes");
	val_report_clear(&r);
	named(f, "h1")->ports[1].mtu = 4;
	named(f, "s1")->ports[2].vls = 4;
	run(f, NULL, &r);
	v = only(&r, VAL_VL_MISMATCH);
	ck_assert_str_eq(v->subject, "s1[2] - l2[5]");
	/* an end without the field (0: unknown) is no mismatch */
	named(f, "s1")->ports[2].vls = 0;
	/* an HCA with fewer VLs than its switch: normal (ConnectX: 4, switches 8) */
	named(f, "h1")->ports[1].vls = 4;
	val_report_clear(&r);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_switch_with_another_port_count_than_its_level)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net("Switch 8 \"s1\"\n\nSwitch 12 \"s2\"\n\nSwitch 8 \"s3\"\n\n" L1 L2 L3 HOSTS);

	run(f, NULL, &r);
	v = only(&r, VAL_PORT_COUNT);
	ck_assert_str_eq(v->subject, "s2");
	ck_assert_str_eq(v->want, "8 ports (as 2 of 3 switches of level 2)");
	ck_assert_str_eq(v->got, "12 ports");
	val_report_clear(&r);
	run(f, &(struct health_opts){ .fat_tree = 0, .sm_active = 1 }, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_leaf_with_fewer_uplinks)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(SPINES L1 L2 "Switch 8 \"l3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n"
			    "[5] \"s1\"[3]\n[6] \"s2\"[3]\n" HOSTS);

	run(f, NULL, &r);
	v = only(&r, VAL_LEAF_UPLINKS);
	ck_assert_str_eq(v->subject, "l3");
	ck_assert_str_eq(v->want, "3 up links (as 2 of 3 leaves)");
	ck_assert_str_eq(v->got, "2 up links");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

/* A leaf that lost every up link (still found: its host has a second port
 * on another leaf) is the worst fault of a fat tree, not a fabric that is
 * no fat tree: one finding. */
START_TEST(a_leaf_without_any_uplink)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(SPINES L1 L2 "Switch 8 \"l3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n"
			    "Switch 8 \"l2b\"\n[5] \"s1\"[4]\n[6] \"s2\"[4]\n[7] \"s3\"[4]\n"
			    "[1] \"h5\"[2]\n" HOSTS);

	run(f, NULL, &r);
	v = only(&r, VAL_LEAF_UPLINKS);
	ck_assert_str_eq(v->subject, "l3");
	ck_assert_str_eq(v->got, "0 up links");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(two_leaves_cabled_to_each_other)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(SPINES L1 "[8] \"l2\"[8]\n" L2 L3 HOSTS);

	run(f, NULL, &r);
	v = only(&r, VAL_LEAF_LINK);
	ck_assert_str_eq(v->subject, "l1[8] - l2[8]");
	val_report_clear(&r);
	run(f, &(struct health_opts){ .fat_tree = 0, .sm_active = 1 }, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

/* l1 and l3 meet only through l2 (up s1, down l2, up s2, down l3): every
 * leaf has two up links, every spine 8 ports, and yet not up-down. */
START_TEST(two_leaves_that_meet_only_down_then_up)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net("Switch 8 \"s1\"\n\nSwitch 8 \"s2\"\n\n"
			    "Switch 8 \"l1\"\n[1] \"h1\"[1]\n[5] \"s1\"[1]\n[6] \"s1\"[2]\n"
			    "Switch 8 \"l2\"\n[1] \"h2\"[1]\n[5] \"s1\"[3]\n[6] \"s2\"[3]\n"
			    "Switch 8 \"l3\"\n[1] \"h3\"[1]\n[5] \"s2\"[1]\n[6] \"s2\"[2]\n"
			    "Hca 2 \"h1\"\n\nHca 2 \"h2\"\n\nHca 2 \"h3\"\n");

	run(f, NULL, &r);
	v = only(&r, VAL_UNREACHABLE);
	ck_assert_str_eq(v->subject, "l1");
	ck_assert_str_eq(v->got, "1 leaves not up-down: l3");
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(symbol_errors_above_the_ber_threshold)
{
	struct val_report r = { 0 };
	const struct val_finding *v;
	struct fab *f = net(TREE);
	/* 4x SDR: 10 Gb/s; 100 errors in 10 s is 1e-9 */
	struct health_port_errors e[2] = {
		{ named(f, "h1")->guid, 1, 100, 10.0 },
		{ named(f, "l1")->guid, 1, 50, 10.0 },
	};
	struct health_opts o = { .fat_tree = -1, .sm_active = 1, .ber_threshold = HEALTH_BER_DEFAULT,
				 .errs = e, .n_errs = 2 };

	run(f, &o, &r);
	v = only(&r, VAL_BER);   /* both ends saw errors: one link, one finding */
	ck_assert_str_eq(v->subject, "h1[1] - l1[1]");
	ck_assert_str_eq(v->got, "1.00e-09 (h1[1]: 100 symbol errors in 10 s)");
	val_report_clear(&r);
	o.ber_threshold = 1e-8;
	run(f, &o, &r);
	none(&r);
	o.ber_threshold = 0;   /* no BER check */
	o.ber_threshold = 0;
	e[0].symbol_errors = 1000000;
	run(f, &o, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

static struct fab *tree(int levels, int radix, int rails, int slow)
{
	struct fg_fabric fg;
	struct fg_rng rng;
	struct fab *f;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
		.radix = radix, .hosts = levels == 2 ? radix * radix / 2 : radix * radix * radix / 4,
		.rails = rails }), 0);
	fg_rng_seed(&rng, 1);
	if (slow)
		ck_assert_int_eq(fg_slow_links(&fg, slow, &rng), 0);
	f = fixture_fabgen(&fg, 0);
	sm_up(f);
	return f;
}

START_TEST(generated_fat_trees_have_no_finding)
{
	struct val_report r = { 0 };
	struct fab *f;

	f = tree(2, 8, 1, 0);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	f = tree(3, 8, 1, 0);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	/* two rails: two trees, joined only by the hosts */
	f = tree(2, 8, 2, 0);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(two_slow_cables_are_two_degraded_links)
{
	struct val_report r = { 0 };
	struct fab *f = tree(3, 8, 1, 2);

	run(f, NULL, &r);
	if (r.n != 2)
		dump(&r);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_int_eq(r.f[0].code, VAL_DEGRADED);
	ck_assert_int_eq(r.f[1].code, VAL_DEGRADED);
	ck_assert_str_ne(r.f[0].subject, r.f[1].subject);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_cut_leaf_uplink_in_a_generated_tree)
{
	struct val_report r = { 0 };
	struct fab *f = tree(2, 8, 1, 0);
	struct fab_node *leaf = NULL;

	/* unplug a leaf's first up link (both ends) */
	for (size_t i = 0; i < f->n_nodes && !leaf; i++)
		if (f->nodes[i]->type == IBT_NODE_SWITCH && strstr(f->nodes[i]->desc, "leaf"))
			leaf = f->nodes[i];
	ck_assert_ptr_nonnull(leaf);
	for (unsigned p = 1; p <= leaf->nports; p++) {
		const struct fab_node *pn;
		struct fab_port *peer = (struct fab_port *)fab_peer(f, &leaf->ports[p], &pn);

		if (peer && pn->type == IBT_NODE_SWITCH) {
			peer->has_peer = leaf->ports[p].has_peer = 0;
			peer->state = leaf->ports[p].state = 1;
			break;
		}
	}
	run(f, NULL, &r);
	/* the leaf, and the spine now one link short of its level's port use,
	 * are not port-count (its ports are there): one finding */
	only(&r, VAL_LEAF_UPLINKS);
	ck_assert_str_eq(r.f[0].subject, leaf->desc);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(tori_and_dragonflies_are_no_fat_trees)
{
	struct val_report r = { 0 };
	struct fg_fabric fg;
	struct fab *f;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2, .dims = { 4, 4 },
		.hosts_per_switch = 2 }), 0);
	f = fixture_fabgen(&fg, 0);
	sm_up(f);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 3,
		.dims = { 4, 4, 3 }, .hosts_per_switch = 1 }), 0);
	f = fixture_fabgen(&fg, 0);
	sm_up(f);
	run(f, NULL, &r);
	none(&r);
	fab_free(f);
	fg_init(&fg);
	ck_assert_int_eq(fg_build_dragonfly(&fg, &(struct fg_dragonfly_opts){ .groups = 9,
		.routers = 4, .hosts_per_router = 2, .global = 2 }), 0);
	f = fixture_fabgen(&fg, 0);
	sm_up(f);
	run(f, NULL, &r);
	none(&r);
	/* told it is one, the torus-like dragonfly shows leaf links: the rules ran */
	run(f, &(struct health_opts){ .fat_tree = 1, .sm_active = 1 }, &r);
	ck_assert_uint_gt(r.n, 0);
	ck_assert_int_eq(r.f[0].code, VAL_LEAF_LINK);
	fab_free(f);
	val_report_clear(&r);
}
END_TEST

START_TEST(lane_rates)
{
	ck_assert(ibt_lane_gbps(IBT_SPEED_SDR) == 2.5);
	ck_assert(ibt_lane_gbps(IBT_SPEED_HDR) == 53.125);
	ck_assert(ibt_lane_gbps(IBT_SPEED_SDR | IBT_SPEED_DDR) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_health");
	TCase *tc = tcase_create("health");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_clean_tree_has_no_finding);
	tcase_add_test(tc, a_cable_trained_at_1x_is_degraded);
	tcase_add_test(tc, findings_name_nodes_by_the_site_names);
	tcase_add_test(tc, duplicate_guids_name_both_sightings);
	tcase_add_test(tc, descriptions_twice_or_empty);
	tcase_add_test(tc, lid_conflicts_and_ranges);
	tcase_add_test(tc, an_active_port_without_a_lid);
	tcase_add_test(tc, a_port_stuck_in_init_only_under_an_sm);
	tcase_add_test(tc, mtu_and_vl_mismatches_across_a_link);
	tcase_add_test(tc, a_switch_with_another_port_count_than_its_level);
	tcase_add_test(tc, a_leaf_with_fewer_uplinks);
	tcase_add_test(tc, a_leaf_without_any_uplink);
	tcase_add_test(tc, two_leaves_cabled_to_each_other);
	tcase_add_test(tc, two_leaves_that_meet_only_down_then_up);
	tcase_add_test(tc, symbol_errors_above_the_ber_threshold);
	tcase_add_test(tc, generated_fat_trees_have_no_finding);
	tcase_add_test(tc, two_slow_cables_are_two_degraded_links);
	tcase_add_test(tc, a_cut_leaf_uplink_in_a_generated_tree);
	tcase_add_test(tc, tori_and_dragonflies_are_no_fat_trees);
	tcase_add_test(tc, lane_rates);
	suite_add_tcase(s, tc);
	return check_run(s);
}
