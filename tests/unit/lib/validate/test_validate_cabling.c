/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/validate/test_validate_cabling.c: a fabric against its cabling plan
 * (lib/validate): each fault of a small two-switch fabric found exactly
 * once (two swapped cables are one finding), nothing on the fabric as
 * planned, a plan for another fabric refused as a whole, and a CSV's
 * mistakes named by file and line; with the site's node-name-map, a plan
 * in its names matched by them and findings naming nodes by them. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/nodename.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/cabling.h"
#include "lib/validate/plan.h"
#include "tests/unit/fixtures/check_run.h"

/* The plan: two switches, four hosts, two cables between the switches. */
static const char *const PLAN_CSV =
	"node,port,peer,peer_port,width,speed\n"
	"# leaf 1\n"
	"sw1,1,hA,1,4x,SDR\n"
	"sw1,2,hB,1\n"
	"sw1,3,sw2,3\n"
	"\"sw1\" , 4 , sw2 , 4\n"
	"sw2,1,hC,1\n"
	"sw2,2,hD,1,,SDR\n";

/* The fabric as ibsim would have it; `cables` replaces the switches' lines. */
static struct fab *fabric(const char *sw1, const char *sw2)
{
	char text[2048], err[512] = "";
	struct fab *f;

	snprintf(text, sizeof(text),
		 "Switch 8 \"sw1\"\n%s\n"
		 "Switch 8 \"sw2\"\n%s\n"
		 "Hca 2 \"hA\"\n\nHca 2 \"hB\"\n\nHca 2 \"hC\"\n\nHca 2 \"hD\"\n\nHca 2 \"hE\"\n",
		 sw1, sw2);
	f = topo_file_parse("f.net", text, strlen(text), "ib0", err, sizeof(err));
	ck_assert_msg(f != NULL, "%s", err);
	return f;
}

#define SW1_OK "[1] \"hA\"[1]\n[2] \"hB\"[1]\n[3] \"sw2\"[3]\n[4] \"sw2\"[4]\n"
#define SW2_OK "[1] \"hC\"[1]\n[2] \"hD\"[1]\n"

static struct plan *plan_csv(const char *text)
{
	char err[512] = "";
	struct plan *p = plan_parse("plan.csv", text, strlen(text), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

static void check(const char *sw1, const char *sw2, struct val_report *r)
{
	struct plan *p = plan_csv(PLAN_CSV);
	struct fab *f = fabric(sw1, sw2);
	char err[512] = "";

	ck_assert_msg(cabling_check(p, f, NULL, r, err, sizeof(err)) == 0, "%s", err);
	plan_free(p);
	fab_free(f);
}

/* The one finding of r, of kind k. */
static const struct val_finding *only(const struct val_report *r, enum val_code k)
{
	if (r->n != 1) {
		for (size_t i = 0; i < r->n; i++)
			fprintf(stderr, "finding %zu: %s %s (want %s, got %s)\n", i,
				val_code_name(r->f[i].code), r->f[i].subject, r->f[i].want,
				r->f[i].got);
	}
	ck_assert_uint_eq(r->n, 1);
	ck_assert_str_eq(val_code_name(r->f[0].code), val_code_name(k));
	return &r->f[0];
}

START_TEST(the_fabric_as_planned_has_no_finding)
{
	struct val_report r = { 0 };

	check(SW1_OK, SW2_OK, &r);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.cables, 6);
	ck_assert_uint_eq(r.cables_ok, 6);
	ck_assert_uint_eq(r.plan_nodes, 6);
	ck_assert_uint_eq(r.nodes_matched, 6);
	val_report_clear(&r);
}
END_TEST

START_TEST(two_swapped_cables_are_one_finding)
{
	struct val_report r = { 0 };
	const struct val_finding *f;

	check("[1] \"hB\"[1]\n[2] \"hA\"[1]\n[3] \"sw2\"[3]\n[4] \"sw2\"[4]\n", SW2_OK, &r);
	f = only(&r, VAL_SWAPPED);
	ck_assert_int_eq(f->sev, VAL_ERROR);
	ck_assert_str_eq(f->subject, "sw1[1] and sw1[2]");
	ck_assert_str_eq(f->want, "sw1[1] - hA[1], sw1[2] - hB[1]");
	ck_assert_str_eq(f->got, "sw1[1] - hB[1], sw1[2] - hA[1]");
	ck_assert_uint_eq(r.cables_ok, 4);
	val_report_clear(&r);
	/* the inter-switch pair crosswise: sw1[3]-sw2[4], sw1[4]-sw2[3] */
	check("[1] \"hA\"[1]\n[2] \"hB\"[1]\n[3] \"sw2\"[4]\n[4] \"sw2\"[3]\n", SW2_OK, &r);
	only(&r, VAL_SWAPPED);
	val_report_clear(&r);
}
END_TEST

START_TEST(a_missing_cable)
{
	struct val_report r = { 0 };
	const struct val_finding *f;

	check(SW1_OK, "[1] \"hC\"[1]\n", &r);
	f = only(&r, VAL_MISSING);
	ck_assert_str_eq(f->subject, "sw2[2] - hD[1]");
	ck_assert_uint_eq(f->line, 8);   /* the plan's line */
	val_report_clear(&r);
}
END_TEST

START_TEST(right_nodes_wrong_port_is_miswired)
{
	struct val_report r = { 0 };
	const struct val_finding *f;

	/* hB's cable in sw1 port 5 instead of 2 */
	check("[1] \"hA\"[1]\n[5] \"hB\"[1]\n[3] \"sw2\"[3]\n[4] \"sw2\"[4]\n", SW2_OK, &r);
	f = only(&r, VAL_MISWIRED);
	ck_assert_str_eq(f->want, "sw1[2] - hB[1]");
	ck_assert_str_eq(f->got, "hB[1] - sw1[5]");
	val_report_clear(&r);
}
END_TEST

START_TEST(another_node_is_wrong_peer_and_a_new_link_extra)
{
	struct val_report r = { 0 };
	const struct val_finding *f;

	/* hE (not in the plan) where hD should be */
	check(SW1_OK, "[1] \"hC\"[1]\n[2] \"hE\"[1]\n", &r);
	f = only(&r, VAL_WRONG_PEER);
	ck_assert_str_eq(f->got, "sw2[2] - hE[1]");
	val_report_clear(&r);
	/* an unplanned cable on a planned switch */
	check(SW1_OK, SW2_OK "[6] \"hE\"[2]\n", &r);
	f = only(&r, VAL_EXTRA);
	ck_assert_msg(strstr(f->subject, "sw2[6]") != NULL, "%s", f->subject);
	val_report_clear(&r);
}
END_TEST

START_TEST(below_the_planned_speed_is_a_warning)
{
	struct val_report r = { 0 };
	const struct val_finding *f;
	struct plan *p = plan_csv("sw1,1,hA,1,4x,HDR\nsw1,2,hB,1,4x\nsw1,3,sw2,3,,SDR\n"
				  "sw1,4,sw2,4\nsw2,1,hC,1\nsw2,2,hD,1\n");
	struct fab *fb = fabric(SW1_OK, SW2_OK);   /* ibsim: 4x SDR */
	char err[256];

	ck_assert_int_eq(cabling_check(p, fb, NULL, &r, err, sizeof(err)), 0);
	f = only(&r, VAL_SLOW);   /* only the HDR one: 4x and SDR are met */
	ck_assert_int_eq(f->sev, VAL_WARNING);
	ck_assert_str_eq(f->subject, "sw1[1] - hA[1]");
	ck_assert_msg(strstr(f->want, "HDR") && strstr(f->got, "SDR"), "%s / %s", f->want, f->got);
	val_report_clear(&r);
	plan_free(p);
	fab_free(fb);
}
END_TEST

START_TEST(unknown_nodes_and_a_plan_for_another_fabric)
{
	struct val_report r = { 0 };
	struct plan *p = plan_csv("sw1,1,hA,1\nsw1,2,hB,1\nsw1,3,sw2,3\nsw1,4,sw2,4\n"
				  "sw2,1,hC,1\nsw2,2,hD,1\nsw1,6,hZ,1\n");
	struct fab *fb = fabric(SW1_OK, SW2_OK);
	char err[256] = "";

	ck_assert_int_eq(cabling_check(p, fb, NULL, &r, err, sizeof(err)), 0);
	ck_assert_str_eq(only(&r, VAL_UNKNOWN_NODE)->subject, "hZ");
	val_report_clear(&r);
	plan_free(p);
	p = plan_csv("x1,1,y1,1\nx2,1,y2,1\nx3,1,y3,1\nsw1,1,hA,1\n");
	ck_assert_int_eq(cabling_check(p, fb, NULL, &r, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "plan.csv: 6 of the plan's 8 nodes are not in the fabric") &&
		      strstr(err, "another fabric"), "%s", err);
	ck_assert_uint_eq(r.n, 0);
	val_report_clear(&r);   /* refused: nothing in it, but its array stays r's */
	plan_free(p);
	fab_free(fb);
}
END_TEST

START_TEST(a_plan_from_a_topology_file_is_every_link)
{
	const char *net = "Switch 8 \"sw1\"\n" SW1_OK "\nSwitch 8 \"sw2\"\n" SW2_OK
			  "\nHca 2 \"hA\"\n\nHca 2 \"hB\"\n\nHca 2 \"hC\"\n\nHca 2 \"hD\"\n";
	struct plan *p = plan_csv(net);
	struct fab *fb = fabric(SW1_OK, SW2_OK);
	struct val_report r = { 0 };
	char err[256];

	ck_assert_uint_eq(p->n, 6);
	ck_assert_uint_eq(p->cables[0].width, IBT_WIDTH_4X);
	ck_assert_int_eq(cabling_check(p, fb, NULL, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 0);
	val_report_clear(&r);
	plan_free(p);
	fab_free(fb);
}
END_TEST

static void csv_fails(const char *text, const char *want)
{
	char err[512] = "";
	struct plan *p = plan_parse("plan.csv", text, strlen(text), err, sizeof(err));

	ck_assert_msg(p == NULL, "accepted: %s", text);
	ck_assert_msg(strstr(err, want) != NULL, "want \"%s\", got \"%s\"", want, err);
}

START_TEST(csv_mistakes_name_file_and_line)
{
	csv_fails("sw1,1,hA,1\nsw1,-1,hB,1\n", "plan.csv:2: field 2 (port): \"-1\" is not a port");
	/* issue 43: a port is numbered (InfiniBand) or named (Ethernet) at both ends */
	csv_fails("sw1,1,hA,1\nsw1,x,hB,1\n", "plan.csv:2: field 4 (peer_port): \"1\" is a port "
		  "number and field 2 a name");
	csv_fails("sw1,Ethernet0,sw2,Ethernet4\nsw1,Ethernet0,sw3,Ethernet4\n",
		  "plan.csv:2: sw1[Ethernet0] is cabled to sw3[Ethernet4] here and to sw2[Ethernet4] "
		  "on line 1");
	csv_fails("sw1,Ethernet0,sw1,Ethernet0\n", "plan.csv:1: a cable from sw1[Ethernet0] to itself");
	csv_fails("sw1,1,hA\n", "plan.csv:1: 3 fields");
	csv_fails("sw1,1,hA,1,5x\n", "plan.csv:1: field 5 (width): \"5x\"");
	csv_fails("sw1,1,hA,1,4x,FAST\n", "plan.csv:1: field 6 (speed): \"FAST\"");
	csv_fails("sw1,1,sw1,1\n", "plan.csv:1: a cable from sw1[1] to itself");
	csv_fails("sw1,1,hA,1\n\nhA,1,sw1,1\n", "plan.csv:3: the cable hA[1] - sw1[1] again (line 1");
	csv_fails("sw1,1,hA,1\nsw1,1,hB,1\n", "plan.csv:2: sw1[1] is cabled to hB[1] here and to "
		  "hA[1] on line 1");
	csv_fails("\"sw1,1,hA,1\n", "plan.csv:1: an unclosed quote");
	csv_fails("# nothing\n\n", "plan.csv: no cables");
	csv_fails("sw1,0,hA,1\n", "plan.csv:1: field 2 (port): \"0\"");
}
END_TEST

/* A plan with GUIDs (made from a fabric, as from ibnetdiscover's output)
 * finds a node by its GUID under another description (renamed, one
 * finding, its cables checked), and two nodes of one description are no
 * ambiguity; a GUID the fabric lacks (a replaced card) falls back to the
 * description. */
START_TEST(a_plan_with_guids_matches_them_before_descriptions)
{
	struct fab *built = fabric(SW1_OK, SW2_OK), *now = fabric(SW1_OK, SW2_OK);
	struct val_report r = { 0 };
	char err[512] = "";
	struct plan *p = plan_from_fab(built, NULL, "built.topo", err, sizeof(err));
	struct fab_node *hb = NULL, *hc = NULL;

	ck_assert_msg(p != NULL, "%s", err);
	for (size_t i = 0; i < now->n_nodes; i++) {
		if (!strcmp(now->nodes[i]->desc, "hB"))
			hb = now->nodes[i];
		if (!strcmp(now->nodes[i]->desc, "hC"))
			hc = now->nodes[i];
	}
	ck_assert(hb && hc);
	snprintf(hb->desc, sizeof(hb->desc), "hA");   /* two "hA" now */
	ck_assert_msg(cabling_check(p, now, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(only(&r, VAL_RENAMED)->want, "hB");
	ck_assert_str_eq(r.f[0].got, "hA");
	ck_assert_uint_eq(r.cables_ok, r.cables);
	val_report_clear(&r);
	/* hC's card replaced: another GUID, the same description */
	for (size_t i = 0; i < p->n; i++) {
		if (!strcmp(p->cables[i].a, "hC"))
			p->cables[i].a_guid ^= 0xff00;
		if (!strcmp(p->cables[i].b, "hC"))
			p->cables[i].b_guid ^= 0xff00;
	}
	snprintf(hb->desc, sizeof(hb->desc), "hB");
	ck_assert_msg(cabling_check(p, now, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.n, 0);
	val_report_clear(&r);
	plan_free(p);
	fab_free(built);
	fab_free(now);
}
END_TEST

/* plan_write_csv reads back the same cables, names with commas, quotes
 * and edge spaces included, and with the widths and speeds. */
START_TEST(a_plan_written_as_csv_reads_back)
{
	struct plan *p = plan_csv("node,port,peer,peer_port,width,speed\n"
				  "\"rack 1, sw\",1,\"say \"\"hi\"\"\",2,4x,HDR\n"
				  "\" edge \",3,plain,4,,\n");
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct plan *q;

	ck_assert(mem != NULL);
	ck_assert_int_eq(plan_write_csv(p, mem, err, sizeof(err)), 0);
	fclose(mem);
	q = plan_parse("again.csv", buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s: %s", err, buf);
	ck_assert_uint_eq(q->n, 2);
	ck_assert_str_eq(q->cables[0].a, "rack 1, sw");
	ck_assert_str_eq(q->cables[0].b, "say \"hi\"");
	ck_assert_uint_eq(q->cables[0].b_port, 2);
	ck_assert_uint_eq(q->cables[0].width, IBT_WIDTH_4X);
	ck_assert_uint_eq(q->cables[0].speed, IBT_SPEED_HDR);
	ck_assert_str_eq(q->cables[1].a, " edge ");
	ck_assert_uint_eq(q->cables[1].width, 0);
	plan_free(q);
	plan_free(p);
	free(buf);
}
END_TEST

/* One fault, one finding: the fat tree's leaf-uplinks of a leaf that a
 * missing cable names goes, another leaf's stays; a link's degraded goes
 * when the plan's slow names the same link (either way round). */
START_TEST(settle_keeps_one_finding_per_fault)
{
	struct val_report r = { 0 };

	ck_assert_int_eq(val_add(&r, VAL_LEAF_UPLINKS, 0, "4", "3", "leaf-1"), 0);
	ck_assert_int_eq(val_add(&r, VAL_MISSING, 7, "", "", "leaf-1[5] - spine-0[2]"), 0);
	ck_assert_int_eq(val_add(&r, VAL_LEAF_UPLINKS, 0, "4", "3", "leaf-2"), 0);
	ck_assert_int_eq(val_add(&r, VAL_SLOW, 3, "4x", "1x", "a[1] - b[2]"), 0);
	ck_assert_int_eq(val_add(&r, VAL_DEGRADED, 0, "4x", "1x", "b[2] - a[1]"), 0);
	ck_assert_int_eq(val_add(&r, VAL_DEGRADED, 0, "4x", "1x", "c[1] - d[1]"), 0);
	val_report_settle(&r);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_int_eq(r.f[0].code, VAL_MISSING);   /* errors first, by subject */
	ck_assert_int_eq(r.f[1].code, VAL_LEAF_UPLINKS);
	ck_assert_str_eq(r.f[1].subject, "leaf-2");
	ck_assert_int_eq(r.f[2].code, VAL_SLOW);
	ck_assert_str_eq(r.f[3].subject, "c[1] - d[1]");
	val_report_clear(&r);
}
END_TEST

/* ---- the site's names (issue 39) ------------------------------------------------ */

/* The map of f's nodes: sw1 "core A", hA "gpu-a" (by their GUIDs). */
static struct nodename_map *site_names(const struct fab *f)
{
	struct nodename_map *m = nodename_map_new();

	ck_assert(m != NULL);
	for (size_t i = 0; i < f->n_nodes; i++) {
		if (!strcmp(f->nodes[i]->desc, "sw1"))
			ck_assert_int_eq(nodename_map_add(m, f->nodes[i]->guid, "core A"), 0);
		if (!strcmp(f->nodes[i]->desc, "hA"))
			ck_assert_int_eq(nodename_map_add(m, f->nodes[i]->guid, "gpu-a"), 0);
	}
	nodename_map_seal(m);
	ck_assert_uint_eq(nodename_map_count(m), 2);
	return m;
}

/* PLAN_CSV with sw1 and hA written as the site names them. */
static const char *const PLAN_NAMES_CSV =
	"node,port,peer,peer_port,width,speed\n"
	"core A,1,gpu-a,1,4x,SDR\n"
	"core A,2,hB,1\n"
	"core A,3,sw2,3\n"
	"core A,4,sw2,4\n"
	"sw2,1,hC,1\n"
	"sw2,2,hD,1,,SDR\n";

static void check_named(const char *plan, const char *sw1, struct val_report *r)
{
	struct plan *p = plan_csv(plan);
	struct fab *f = fabric(sw1, SW2_OK);
	struct nodename_map *m = site_names(f);
	char err[512] = "";

	ck_assert_msg(cabling_check(p, f, m, r, err, sizeof(err)) == 0, "%s", err);
	nodename_map_free(m);
	plan_free(p);
	fab_free(f);
}

/* A plan's node is matched by the map's name, else by description: a plan
 * in the site's names is clean, and so is one in descriptions; without
 * the map the names are unknown nodes. */
START_TEST(a_plan_in_the_site_names_matches_by_them)
{
	struct val_report r = { 0 };
	struct plan *p;
	struct fab *f;
	char err[512] = "";

	check_named(PLAN_NAMES_CSV, SW1_OK, &r);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.cables_ok, 6);
	ck_assert_uint_eq(r.nodes_matched, 6);
	val_report_clear(&r);
	check_named(PLAN_CSV, SW1_OK, &r);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.cables_ok, 6);
	val_report_clear(&r);
	/* no map: "core A" and "gpu-a" are no node */
	p = plan_csv(PLAN_NAMES_CSV);
	f = fabric(SW1_OK, SW2_OK);
	ck_assert_int_eq(cabling_check(p, f, NULL, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nodes_matched, 4);
	ck_assert_uint_eq(val_count(&r, VAL_ERROR), 2);
	ck_assert_str_eq(r.f[0].got, "no node has this description");
	val_report_clear(&r);
	plan_free(p);
	fab_free(f);
}
END_TEST

/* Findings name the nodes the map names by the map's name, whichever way
 * the plan wrote them; the others by description. */
START_TEST(findings_name_nodes_by_the_site_names)
{
	struct val_report r = { 0 };
	const struct val_finding *f;

	check_named(PLAN_CSV, "[1] \"hB\"[1]\n[2] \"hA\"[1]\n[3] \"sw2\"[3]\n[4] \"sw2\"[4]\n", &r);
	f = only(&r, VAL_SWAPPED);
	ck_assert_str_eq(f->subject, "core A[1] and core A[2]");
	ck_assert_str_eq(f->got, "core A[1] - hB[1], core A[2] - gpu-a[1]");
	val_report_clear(&r);
	check_named(PLAN_NAMES_CSV, "[1] \"hA\"[1]\n[2] \"hB\"[1]\n[3] \"sw2\"[3]\n", &r);
	f = only(&r, VAL_MISSING);
	ck_assert_str_eq(f->subject, "core A[4] - sw2[4]");
	val_report_clear(&r);
	check_named(PLAN_CSV, SW1_OK "[5] \"hE\"[1]\n", &r);
	f = only(&r, VAL_EXTRA);
	ck_assert_str_eq(f->subject, "hE[1] - core A[5]");   /* by GUID, as fab_link */
	val_report_clear(&r);
}
END_TEST

/* plan_from_fab with the map writes its names; the CSV reads back and is
 * clean against the same fabric and map. */
START_TEST(a_plan_of_the_fabric_in_the_site_names_reads_back_clean)
{
	struct fab *f = fabric(SW1_OK, SW2_OK);
	struct nodename_map *m = site_names(f);
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct plan *p = plan_from_fab(f, m, "ib0", err, sizeof(err)), *q;
	struct val_report r = { 0 };

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert(mem != NULL);
	ck_assert_int_eq(plan_write_csv(p, mem, err, sizeof(err)), 0);
	fclose(mem);
	ck_assert_msg(strstr(buf, "core A,") && strstr(buf, "gpu-a,") && !strstr(buf, "sw1") &&
		      !strstr(buf, "hA"), "%s", buf);
	q = plan_parse("again.csv", buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	ck_assert_int_eq(cabling_check(q, f, m, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.cables_ok, q->n);
	val_report_clear(&r);
	plan_free(q);
	plan_free(p);
	nodename_map_free(m);
	fab_free(f);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate_cabling");
	TCase *tc = tcase_create("cabling");

	tcase_add_test(tc, the_fabric_as_planned_has_no_finding);
	tcase_add_test(tc, two_swapped_cables_are_one_finding);
	tcase_add_test(tc, a_missing_cable);
	tcase_add_test(tc, right_nodes_wrong_port_is_miswired);
	tcase_add_test(tc, another_node_is_wrong_peer_and_a_new_link_extra);
	tcase_add_test(tc, below_the_planned_speed_is_a_warning);
	tcase_add_test(tc, unknown_nodes_and_a_plan_for_another_fabric);
	tcase_add_test(tc, a_plan_from_a_topology_file_is_every_link);
	tcase_add_test(tc, csv_mistakes_name_file_and_line);
	tcase_add_test(tc, a_plan_with_guids_matches_them_before_descriptions);
	tcase_add_test(tc, a_plan_written_as_csv_reads_back);
	tcase_add_test(tc, settle_keeps_one_finding_per_fault);
	tcase_add_test(tc, a_plan_in_the_site_names_matches_by_them);
	tcase_add_test(tc, findings_name_nodes_by_the_site_names);
	tcase_add_test(tc, a_plan_of_the_fabric_in_the_site_names_reads_back_clean);
	suite_add_tcase(s, tc);
	return check_run(s);
}
