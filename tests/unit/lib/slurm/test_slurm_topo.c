/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/slurm/test_slurm_topo.c: Slurm's topology.conf from a fabric
 * (lib/slurm/slurm_topo.h) and the host list it writes
 * (lib/util/hostlist.h's hostlist_compress).
 *
 * Every expectation is derived from the fabric by a reference computed
 * here, independently of the generator: levels by a breadth-first search
 * over the fabric's own cables from the switches with CAs, each host under
 * the switch of its first CA port (GUID, port order), each upper switch
 * above its neighbours one level down that have nodes below them. The
 * file's text is read back with hostlist_expand and compared, line by
 * line, to that reference: on loom-fabgen's 2- and 3-level fat trees,
 * trees with cut cables, rails, and hand-written nets for names; tori and
 * dragonflies are refused. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/hostmap.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/topo_file.h"
#include "lib/slurm/slurm_topo.h"
#include "lib/util/hostlist.h"
#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_route.h"

/* ---- the host list ------------------------------------------------------------------------- */

/* compress then expand: the same set of names */
static void round_trip(char **names, size_t n)
{
	struct hostlist hl;
	char err[256], *s = hostlist_compress(names, n);
	size_t want = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_msg(hostlist_expand(s, &hl, err, sizeof(err)) == 0, "%s: %s", s, err);
	for (size_t i = 0; i < n; i++) {
		int seen = 0, dup = 0;

		for (size_t k = 0; k < i; k++)
			dup |= !strcmp(names[k], names[i]);
		want += !dup;
		for (size_t k = 0; k < hl.n; k++)
			seen |= !strcmp(hl.names[k], names[i]);
		ck_assert_msg(seen, "%s lost in \"%s\"", names[i], s);
	}
	ck_assert_msg(hl.n == want, "\"%s\" is %zu names, not %zu", s, hl.n, want);
	hostlist_clear(&hl);
	free(s);
}

START_TEST(host_lists_compress_to_what_expands_back)
{
	char *a[] = { "gpu003", "gpu001", "gpu002", "gpu020", "login1" };
	char *b[] = { "node9", "node10", "node11", "node09", "node" };
	char *c[] = { "r1n1", "r1n2", "r2n1", "x", "x", "12", "a-0001", "a-0002", "a-0004" };
	char *d[] = { "n0000000000", "n0000000001" };   /* 10 digits: no bracket */
	char *s;

	round_trip(a, 5);
	round_trip(b, 5);
	round_trip(c, 9);
	round_trip(d, 2);
	/* one bracket per prefix, runs as ranges, padded as the names are */
	s = hostlist_compress(a, 5);
	ck_assert_str_eq(s, "gpu[001-003,020],login1");
	free(s);
	/* the order of the input does not change the text */
	{
		char *a2[] = { "login1", "gpu020", "gpu002", "gpu001", "gpu003" };
		char *x = hostlist_compress(a, 5), *y = hostlist_compress(a2, 5);

		ck_assert_str_eq(x, y);
		free(x);
		free(y);
	}
}
END_TEST

START_TEST(host_lists_of_every_width_round_trip)
{
	char buf[200][16], *names[200];
	size_t n = 0;

	/* 1..120 unpadded, then 3-digit padded, gaps every 7 */
	for (int i = 1; i <= 120; i++)
		if (i % 7) {
			snprintf(buf[n], sizeof(buf[n]), "h%d", i);
			names[n] = buf[n];
			n++;
		}
	for (int i = 0; i < 60 && n < 200; i += 3) {
		snprintf(buf[n], sizeof(buf[n]), "p%03d", i);
		names[n] = buf[n];
		n++;
	}
	round_trip(names, n);
}
END_TEST

/* ---- the reference ------------------------------------------------------------------------- */

#define NO_LEVEL 0xFFFFu

struct ref {
	const struct fab *f;
	size_t n;                   /* switches */
	const struct fab_node **sw;
	unsigned *level;
	int *kept;
	size_t n_hosts;
	char (*host)[64];
	size_t *host_sw;            /* index into sw */
	size_t ports_unmapped, other_rails;
};

static size_t sw_index(const struct ref *r, uint64_t guid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->sw[i]->guid == guid)
			return i;
	return (size_t)-1;
}

/* `hosts`: how a CA description names its host (NULL: up to the first
 * space, the default pattern); returns 0 for no host. */
typedef int (*host_fn)(const char *desc, char *host);

static int first_word(const char *desc, char *host)
{
	size_t l = strcspn(desc, " ");

	memcpy(host, desc, l);
	host[l] = '\0';
	return l > 0;
}

static void ref_make(struct ref *r, const struct fab *f, host_fn hosts)
{
	size_t q_head = 0, q_tail = 0, *queue;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->sw = calloc(f->n_nodes, sizeof(*r->sw));
	for (size_t i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->type == IBT_NODE_SWITCH)
			r->sw[r->n++] = f->nodes[i];
	r->level = calloc(r->n + 1, sizeof(*r->level));
	r->kept = calloc(r->n + 1, sizeof(*r->kept));
	queue = calloc(r->n + 1, sizeof(*queue));
	r->host = calloc(fab_count_ports(f) + 1, sizeof(*r->host));
	r->host_sw = calloc(fab_count_ports(f) + 1, sizeof(*r->host_sw));
	for (size_t i = 0; i < r->n; i++)
		r->level[i] = NO_LEVEL;
	/* the hosts, by (GUID, port): the first port of a host places it */
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fab_node *n = f->nodes[i];

		if (n->type != IBT_NODE_CA)
			continue;
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *pt = fab_port(n, p);
			const struct fab_node *peer;
			char h[64];
			size_t k;

			if (!pt || !pt->has_peer || !(peer = fab_find(f, pt->peer_guid)) ||
			    peer->type != IBT_NODE_SWITCH)
				continue;
			if (!hosts(n->desc, h)) {
				r->ports_unmapped++;
				continue;
			}
			for (k = 0; k < r->n_hosts && strcmp(r->host[k], h); k++)
				;
			if (k < r->n_hosts) {
				r->other_rails++;
				continue;
			}
			snprintf(r->host[k], sizeof(r->host[k]), "%s", h);
			r->host_sw[k] = sw_index(r, peer->guid);
			r->n_hosts++;
		}
	}
	/* levels: hops from the switches with CA ports */
	for (size_t i = 0; i < r->n; i++)
		for (unsigned p = 1; p <= r->sw[i]->nports; p++) {
			const struct fab_port *pt = fab_port(r->sw[i], p);
			const struct fab_node *peer;

			if (pt && pt->has_peer && (peer = fab_find(f, pt->peer_guid)) &&
			    peer->type == IBT_NODE_CA && r->level[i] == NO_LEVEL) {
				r->level[i] = 0;
				queue[q_tail++] = i;
			}
		}
	while (q_head < q_tail) {
		size_t s = queue[q_head++];

		for (unsigned p = 1; p <= r->sw[s]->nports; p++) {
			const struct fab_port *pt = fab_port(r->sw[s], p);
			size_t k;

			if (!pt || !pt->has_peer || (k = sw_index(r, pt->peer_guid)) == (size_t)-1)
				continue;
			if (r->level[k] == NO_LEVEL) {
				r->level[k] = r->level[s] + 1;
				queue[q_tail++] = k;
			}
		}
	}
	/* kept: leaves with hosts, then those above a kept one */
	for (size_t h = 0; h < r->n_hosts; h++)
		r->kept[r->host_sw[h]] = 1;
	for (unsigned l = 1; l < 16; l++)
		for (size_t s = 0; s < r->n; s++) {
			if (r->level[s] != l)
				continue;
			for (unsigned p = 1; p <= r->sw[s]->nports; p++) {
				const struct fab_port *pt = fab_port(r->sw[s], p);
				size_t k;

				if (pt && pt->has_peer &&
				    (k = sw_index(r, pt->peer_guid)) != (size_t)-1 &&
				    r->level[k] + 1 == l && r->kept[k])
					r->kept[s] = 1;
			}
		}
	free(queue);
}

static void ref_free(struct ref *r)
{
	free(r->sw);
	free(r->level);
	free(r->kept);
	free(r->host);
	free(r->host_sw);
}

/* The switch the topology calls `name`, by its JSON's GUID. */
static size_t named_switch(const struct ref *r, const json_t *js, const char *name)
{
	size_t i;
	json_t *x;

	json_array_foreach(json_object_get(js, "switches"), i, x)
		if (!strcmp(json_string_value(json_object_get(x, "name")), name)) {
			uint64_t g;

			ck_assert_int_eq(ibt_guid_parse(json_string_value(json_object_get(x, "guid")),
							&g), 0);
			return sw_index(r, g);
		}
	ck_abort_msg("no switch %s in the JSON", name);
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s))
			return 0;
	return 1;
}

/* The text, read back as Slurm would, against the reference: every kept
 * switch one line, a leaf its hosts, an upper switch its kept neighbours
 * one level down; the counts. */
static void check_tree(const struct fab *f, host_fn hosts, const struct slurm_topo *t)
{
	char *text = slurm_topo_text(t, SLURM_TOPO_TREE), *save = NULL, *line;
	json_t *js = slurm_topo_json(t, SLURM_TOPO_TREE);
	size_t lines = 0, kept = 0, levels = 0, placed = 0;
	struct ref r;

	ref_make(&r, f, hosts);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(js);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], kind[16], list[8192];
		struct hostlist hl;
		char err[256];
		size_t s;

		ck_assert_msg(sscanf(line, "SwitchName=%127s %15[^=]=%8191s", name, kind, list) == 3,
			      "line \"%s\"", line);
		ck_assert_msg(valid_name(name), "switch name \"%s\"", name);
		s = named_switch(&r, js, name);
		ck_assert_msg(s != (size_t)-1 && r.kept[s], "%s is no switch to list", name);
		ck_assert_int_eq(hostlist_expand(list, &hl, err, sizeof(err)), 0);
		lines++;
		if (r.level[s] + 1 > levels)
			levels = r.level[s] + 1;
		if (r.level[s] == 0) {
			size_t want = 0;

			ck_assert_str_eq(kind, "Nodes");
			for (size_t h = 0; h < r.n_hosts; h++) {
				int seen = 0;

				if (r.host_sw[h] != s)
					continue;
				want++;
				for (size_t k = 0; k < hl.n; k++)
					seen |= !strcmp(hl.names[k], r.host[h]);
				ck_assert_msg(seen, "host %s is not under %s", r.host[h], name);
			}
			ck_assert_uint_eq(hl.n, want);
			placed += hl.n;
		} else {
			size_t want = 0;

			ck_assert_str_eq(kind, "Switches");
			/* each listed name is a kept neighbour one level down */
			for (size_t k = 0; k < hl.n; k++) {
				size_t c = named_switch(&r, js, hl.names[k]);
				int cabled = 0;

				for (unsigned p = 1; p <= r.sw[s]->nports; p++) {
					const struct fab_port *pt = fab_port(r.sw[s], p);

					cabled |= pt && pt->has_peer && pt->peer_guid == r.sw[c]->guid;
				}
				ck_assert_msg(cabled && r.kept[c] && r.level[c] + 1 == r.level[s],
					      "%s is no child of %s", hl.names[k], name);
			}
			/* and every kept neighbour one level down is listed */
			for (size_t c = 0; c < r.n; c++) {
				int cabled = 0;

				for (unsigned p = 1; p <= r.sw[s]->nports; p++) {
					const struct fab_port *pt = fab_port(r.sw[s], p);

					cabled |= pt && pt->has_peer && pt->peer_guid == r.sw[c]->guid;
				}
				want += cabled && r.kept[c] && r.level[c] + 1 == r.level[s];
			}
			ck_assert_uint_eq(hl.n, want);
		}
		hostlist_clear(&hl);
	}
	for (size_t s = 0; s < r.n; s++)
		kept += r.kept[s];
	ck_assert_uint_eq(lines, kept);
	ck_assert_uint_eq(placed, r.n_hosts);
	ck_assert_uint_eq(t->n_nodes, r.n_hosts);
	ck_assert_uint_eq(t->levels, levels);
	ck_assert_uint_eq(t->unmapped_ports, r.ports_unmapped);
	ck_assert_uint_eq(t->other_rail_ports, r.other_rails);
	json_decref(js);
	free(text);
	ref_free(&r);
}

static struct hostmap default_map(void)
{
	struct hostmap hm;
	char err[256];

	ck_assert_int_eq(hostmap_load(&hm, "^([^ ]+)", NULL, err, sizeof(err)), 0);
	return hm;
}

static struct fab *fattree(int levels, int radix, int rails, int cut)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
		.radix = radix, .hosts = levels == 2 ? radix * radix / 2 : radix * radix * radix / 4,
		.rails = rails }), 0);
	return fixture_fabgen(&fg, cut);
}

static void build_ok(const struct fab *f, const struct hostmap *hm, struct slurm_topo *t)
{
	char err[1024] = "";

	ck_assert_msg(slurm_topo_build(f, hm, NULL, t, err, sizeof(err)) == 0, "%s", err);
}

/* ---- trees --------------------------------------------------------------------------------- */

START_TEST(two_level_fat_trees)
{
	static const int radix[] = { 4, 8, 12 };

	for (size_t i = 0; i < 3; i++) {
		struct fab *f = fattree(2, radix[i], 1, 0);
		struct hostmap hm = default_map();
		struct slurm_topo t;

		build_ok(f, &hm, &t);
		check_tree(f, first_word, &t);
		ck_assert_uint_eq(t.levels, 2);
		ck_assert_uint_eq(t.n_leaves, (size_t)radix[i]);
		slurm_topo_clear(&t);
		hostmap_clear(&hm);
		fab_free(f);
	}
}
END_TEST

START_TEST(three_level_fat_trees)
{
	struct fab *f = fattree(3, 8, 1, 0);
	struct hostmap hm = default_map();
	struct slurm_topo t;

	build_ok(f, &hm, &t);
	check_tree(f, first_word, &t);
	ck_assert_uint_eq(t.levels, 3);
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

START_TEST(degraded_trees_follow_their_cables)
{
	static const int cuts[] = { 1, 5, 20 };

	for (size_t i = 0; i < 3; i++) {
		struct fab *f = fattree(i == 2 ? 3 : 2, 8, 1, cuts[i]);
		struct hostmap hm = default_map();
		struct slurm_topo t;

		build_ok(f, &hm, &t);
		check_tree(f, first_word, &t);
		slurm_topo_clear(&t);
		hostmap_clear(&hm);
		fab_free(f);
	}
}
END_TEST

START_TEST(a_leaf_without_uplinks_stands_alone)
{
	struct fab *f = fattree(2, 4, 1, 0);
	struct hostmap hm = default_map();
	struct slurm_topo t;
	const struct fab_node *leaf = NULL;
	char *text;

	for (size_t i = 0; i < f->n_nodes && !leaf; i++)
		if (f->nodes[i]->type == IBT_NODE_SWITCH && strstr(f->nodes[i]->desc, "leaf"))
			leaf = f->nodes[i];
	ck_assert_ptr_nonnull(leaf);
	for (unsigned p = 1; p <= leaf->nports; p++) {
		const struct fab_port *pt = fab_port(leaf, p);
		const struct fab_node *peer;

		if (pt && pt->has_peer && (peer = fab_find(f, pt->peer_guid)) &&
		    peer->type == IBT_NODE_SWITCH)
			ck_assert_int_eq(fab_unlink(f, leaf->guid, p), 0);
	}
	build_ok(f, &hm, &t);
	check_tree(f, first_word, &t);
	/* still a leaf with its nodes, in no Switches= line */
	text = slurm_topo_text(&t, SLURM_TOPO_TREE);
	{
		char pat[96];

		snprintf(pat, sizeof(pat), "SwitchName=%s Nodes=", leaf->desc);
		ck_assert_ptr_nonnull(strstr(text, pat));
		snprintf(pat, sizeof(pat), ",%s,", leaf->desc);
		for (char *l = strstr(text, "Switches="); l; l = strstr(l + 1, "Switches=")) {
			char list[512];
			struct hostlist hl;
			char err[128];

			sscanf(l, "Switches=%511s", list);
			ck_assert_int_eq(hostlist_expand(list, &hl, err, sizeof(err)), 0);
			for (size_t k = 0; k < hl.n; k++)
				ck_assert_str_ne(hl.names[k], leaf->desc);
			hostlist_clear(&hl);
		}
	}
	free(text);
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

/* Rails: one plane decides; the others' ports are counted, their switches left out. */
START_TEST(multi_rail_hosts_sit_under_their_first_rail)
{
	struct fab *f = fattree(2, 4, 2, 0);
	struct hostmap hm = default_map();
	struct slurm_topo t;

	build_ok(f, &hm, &t);
	check_tree(f, first_word, &t);
	ck_assert_uint_eq(t.other_rail_ports, t.n_nodes);   /* two rails: one port each left */
	for (size_t i = 0; i < t.n_sw; i++)
		ck_assert_msg(!strncmp(t.sw[i].desc, "r0/", 3), "%s from another rail",
			      t.sw[i].desc);
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

/* ---- what Slurm cannot say ----------------------------------------------------------------- */

START_TEST(tori_and_dragonflies_are_refused)
{
	struct fg_fabric fg;
	struct hostmap hm = default_map();
	struct slurm_topo t;
	struct fab *f;
	char err[1024];

	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2,
		.dims = { 4, 4 }, .hosts_per_switch = 2 }), 0);
	f = fixture_fabgen(&fg, 0);
	ck_assert_int_eq(slurm_topo_build(f, &hm, NULL, &t, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a tree"));
	ck_assert_ptr_nonnull(strstr(err, "topology/tree"));
	ck_assert_ptr_nonnull(strstr(err, "topology/block"));
	ck_assert_uint_eq(t.n_sw, 0);
	fab_free(f);

	fg_init(&fg);
	ck_assert_int_eq(fg_build_dragonfly(&fg, &(struct fg_dragonfly_opts){ .groups = 5,
		.routers = 4, .hosts_per_router = 2, .global = 1 }), 0);
	f = fixture_fabgen(&fg, 0);
	ck_assert_int_eq(slurm_topo_build(f, &hm, NULL, &t, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a tree"));
	fab_free(f);
	hostmap_clear(&hm);
}
END_TEST

static struct fab *net(const char *text)
{
	char err[512] = "";
	struct fab *f = topo_file_parse("t.net", text, strlen(text), "ib0", err, sizeof(err));

	ck_assert_msg(f != NULL, "%s", err);
	return f;
}

/* Two leaves described alike, one with Slurm's syntax in it, one with
 * nothing a name may hold. */
#define NAMES_NET \
	"Switch 8 \"top\"\n[1] \"a\"[5]\n[2] \"b\"[5]\n[3] \"c\"[5]\n[4] \"d\"[5]\n\n" \
	"Switch 8 \"a\" # \"edge 1;x\"\n[1] \"h1\"[1]\n[5] \"top\"[1]\n\n" \
	"Switch 8 \"b\" # \"edge 1;x\"\n[1] \"h2\"[1]\n[5] \"top\"[2]\n\n" \
	"Switch 8 \"c\" # \"[a=b],#\"\n[1] \"h3\"[1]\n[5] \"top\"[3]\n\n" \
	"Switch 8 \"d\" # \"//\"\n[1] \"h4\"[1]\n[5] \"top\"[4]\n\n" \
	"Hca 1 \"h1\"\n\nHca 1 \"h2\"\n\nHca 1 \"h3\"\n\nHca 1 \"h4\"\n"

START_TEST(switch_names_are_made_valid_and_unique)
{
	struct fab *f = net(NAMES_NET);
	struct hostmap hm = default_map();
	struct slurm_topo t;

	build_ok(f, &hm, &t);
	check_tree(f, first_word, &t);
	for (size_t i = 0; i < t.n_sw; i++) {
		ck_assert_msg(valid_name(t.sw[i].name), "\"%s\"", t.sw[i].name);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(t.sw[i].name, t.sw[k].name);
		if (!strcmp(t.sw[i].desc, "edge 1;x")) {
			char want[64];

			/* alike: each gets its GUID after the shared name */
			snprintf(want, sizeof(want), "edge_1_x-%016llx",
				 (unsigned long long)t.sw[i].guid);
			ck_assert_str_eq(t.sw[i].name, want);
		} else if (!strcmp(t.sw[i].desc, "[a=b],#")) {
			ck_assert_str_eq(t.sw[i].name, "a_b");
		} else if (!strcmp(t.sw[i].desc, "//")) {
			char want[64];

			/* nothing left of it: the GUID */
			snprintf(want, sizeof(want), "ibsw-%016llx", (unsigned long long)t.sw[i].guid);
			ck_assert_str_eq(t.sw[i].name, want);
		}
	}
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

/* A node description is set by root on its host: one that Slurm cannot take
 * as a name is left out and named, and every other host is still written. */
START_TEST(a_node_name_slurm_refuses_is_left_out_and_named_the_others_written)
{
	struct fab *f = net("Switch 8 \"a\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n\n"
			    "Hca 1 \"h1\" # \"n[1] mlx5_0\"\n\nHca 1 \"h2\"\n\nHca 1 \"h3\"\n");
	struct hostmap hm = default_map();
	struct slurm_topo t;
	char *text, *header;
	json_t *j;

	build_ok(f, &hm, &t);
	ck_assert_uint_eq(t.n_nodes, 2);
	ck_assert_uint_eq(t.bad_name_ports, 1);
	ck_assert_ptr_nonnull(strstr(t.bad_names[0], "\"n[1]\""));
	ck_assert_ptr_nonnull(strstr(t.bad_names[0], "n[1] mlx5_0"));
	text = slurm_topo_text(&t, SLURM_TOPO_TREE);
	ck_assert_ptr_nonnull(strstr(text, "Nodes=h[2-3]"));
	ck_assert_ptr_null(strstr(text, "n[1]"));
	header = slurm_topo_header(&t, SLURM_TOPO_TREE, "ib0");
	ck_assert_ptr_nonnull(strstr(header, "# Not a Slurm node name (left out): \"n[1]\""));
	j = slurm_topo_json(&t, SLURM_TOPO_TREE);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "bad_name_ports")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "bad_names")), 1);
	json_decref(j);
	free(text);
	free(header);
	slurm_topo_clear(&t);
	fab_free(f);
	hostmap_clear(&hm);
}
END_TEST

/* Only hosts Slurm cannot name: an error that says so, naming one. */
START_TEST(a_fabric_of_only_bad_names_is_an_error_naming_one)
{
	struct fab *f = net("Switch 8 \"a\"\n[1] \"h1\"[1]\n\n"
			    "Hca 1 \"h1\" # \"n[1] mlx5_0\"\n");
	struct hostmap hm = default_map();
	struct slurm_topo t;
	char err[1024];

	ck_assert_int_eq(slurm_topo_build(f, &hm, NULL, &t, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "\"n[1]\""));
	ck_assert_ptr_nonnull(strstr(err, "not Slurm node names"));
	fab_free(f);
	hostmap_clear(&hm);
}
END_TEST

/* hosts 0..3 only: the rest of the ports map to no node, and are counted */
static int first_four(const char *desc, char *host)
{
	return first_word(desc, host) && !strncmp(host, "host-000", 8) && host[8] >= '0' &&
	       host[8] <= '3' && !host[9];
}

START_TEST(unmapped_ports_are_left_out_and_counted)
{
	struct fab *f = fattree(2, 4, 1, 0);
	struct hostmap hm;
	struct slurm_topo t;
	char err[256];

	ck_assert_int_eq(hostmap_load(&hm, "^(host-000[0-3])$", NULL, err, sizeof(err)), 0);
	build_ok(f, &hm, &t);
	check_tree(f, first_four, &t);
	ck_assert_uint_eq(t.n_nodes, 4);
	ck_assert_uint_eq(t.unmapped_ports, fab_count_type(f, IBT_NODE_CA) - 4);
	/* and named, the first in GUID order first */
	for (size_t i = 0, k = 0; i < f->n_nodes && k < SLURM_UNMAPPED_SHOWN; i++) {
		char h[64], want[80];

		if (f->nodes[i]->type != IBT_NODE_CA || first_four(f->nodes[i]->desc, h))
			continue;
		snprintf(want, sizeof(want), "%s[1]", f->nodes[i]->desc);
		ck_assert_str_eq(t.unmapped[k], want);
		k++;
	}
	{
		char *head = slurm_topo_header(&t, SLURM_TOPO_TREE, "ib0");

		ck_assert_ptr_nonnull(strstr(head, t.unmapped[0]));
		free(head);
	}
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

/* ---- the host map, the block format, what changed ------------------------------------------ */

static const struct fab_node *ca_named(const struct fab *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->type == IBT_NODE_CA && !strcmp(f->nodes[i]->desc, desc))
			return f->nodes[i];
	ck_abort_msg("no CA %s", desc);
	return NULL;
}

START_TEST(a_host_moved_by_the_map_is_said)
{
	struct fab *f = fattree(2, 4, 1, 0);
	struct hostmap hm = default_map(), moved;
	struct slurm_topo a, b;
	char path[] = "/tmp/loom-test-hostmap.XXXXXX", err[256], what[1024], g[20];
	const struct fab_node *h7 = ca_named(f, "host-0007");
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");

	/* host-0000 is now the node behind host-0007's port (and its own port
	 * maps to no one: the map names host-0000) */
	fprintf(out, "# moved\nhost-0000 %s\n", ibt_guid_str(fab_port(h7, 1)->guid, g, sizeof(g)));
	fclose(out);
	ck_assert_int_eq(hostmap_load(&moved, "^([^ ]+)", path, err, sizeof(err)), 0);
	build_ok(f, &hm, &a);
	build_ok(f, &moved, &b);
	ck_assert_uint_gt(slurm_topo_diff(&a, &b, what, sizeof(what)), 0);
	ck_assert_msg(strstr(what, "host host-0000 moved from leaf-0 to leaf-3"), "%s", what);
	ck_assert_msg(strstr(what, "host host-0007 gone from leaf-3"), "%s", what);
	ck_assert_uint_eq(slurm_topo_diff(&a, &a, what, sizeof(what)), 0);
	ck_assert_str_eq(what, "");
	slurm_topo_clear(&a);
	slurm_topo_clear(&b);
	hostmap_clear(&hm);
	hostmap_clear(&moved);
	unlink(path);
	fab_free(f);
}
END_TEST

START_TEST(a_cut_cable_changes_what_slurm_reads_and_is_said)
{
	struct fab *f = fattree(2, 4, 1, 0), *g2 = fab_dup(f);
	struct hostmap hm = default_map();
	struct slurm_topo a, b;
	const struct fab_node *spine = NULL;
	char what[1024], *ta, *tb;

	for (size_t i = 0; i < g2->n_nodes && !spine; i++)
		if (!strcmp(g2->nodes[i]->desc, "spine-0"))
			spine = g2->nodes[i];
	ck_assert_ptr_nonnull(spine);
	ck_assert_int_eq(fab_unlink(g2, spine->guid, 1), 0);
	build_ok(f, &hm, &a);
	build_ok(g2, &hm, &b);
	check_tree(g2, first_word, &b);
	ta = slurm_topo_text(&a, SLURM_TOPO_TREE);
	tb = slurm_topo_text(&b, SLURM_TOPO_TREE);
	ck_assert_str_ne(ta, tb);
	ck_assert_uint_eq(slurm_topo_diff(&a, &b, what, sizeof(what)), 1);
	ck_assert_msg(!strncmp(what, "switch spine-0: Switches=", 25), "%s", what);
	free(ta);
	free(tb);
	slurm_topo_clear(&a);
	slurm_topo_clear(&b);
	hostmap_clear(&hm);
	fab_free(f);
	fab_free(g2);
}
END_TEST

/* A port the map gives to two hosts, a line that is not one: refused naming
 * the file and line (or the port). */
START_TEST(a_host_map_that_contradicts_itself_is_refused)
{
	char path[] = "/tmp/loom-test-hostmap.XXXXXX", err[256];
	struct hostmap hm;
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");

	fprintf(out, "a 0x0000000000100001\nb 0x0000000000100001\n");
	fclose(out);
	ck_assert_int_eq(hostmap_load(&hm, "^([^ ]+)", path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "0x0000000000100001 is given to two hosts, a and b"), "%s", err);
	out = fopen(path, "w");
	fprintf(out, "# fine\na 0x0000000000100001\nb 0x12\n");
	fclose(out);
	ck_assert_int_eq(hostmap_load(&hm, "^([^ ]+)", path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, ":3: a port GUID is 0x and 16 hex digits"), "%s", err);
	ck_assert_int_eq(hostmap_load(&hm, "^[^ ]+", NULL, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "needs a group"), "%s", err);
	unlink(path);
}
END_TEST

/* A name longer than a host's 63 bytes (a long FQDN) is refused naming the
 * line: never cut into two fields (an Ethernet switch and port out of
 * "HOST PORT_GUID"), nor cut short to another host's name; so is a line
 * longer than the reader takes. */
START_TEST(a_host_map_name_over_63_bytes_is_refused_not_cut)
{
	char path[] = "/tmp/loom-test-hostmap.XXXXXX", err[256], name[80];
	struct hostmap hm;
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");

	memset(name, 'n', HOSTMAP_NAME_LEN + 6);
	name[HOSTMAP_NAME_LEN + 6] = '\0';
	fprintf(out, "a 0x0000000000100001\n%s 0x0000000000100002\n", name);
	fclose(out);
	ck_assert_int_eq(hostmap_load(&hm, "^([^ ]+)", path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, ":2: ") && strstr(err, "63"), "%s", err);
	/* a line past the reader's 511 bytes (a long comment) is refused, its
	 * tail never read as a line of its own ("0..0 tail words" as a host on
	 * an Ethernet switch port) */
	out = fopen(path, "w");
	fprintf(out, "a 0x0000000000100001\n# %0540d tail words\n", 0);
	fclose(out);
	ck_assert_int_eq(hostmap_load(&hm, "^([^ ]+)", path, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, ":2: ") && strstr(err, "511"), "%s", err);
	/* 63 bytes is a name */
	name[HOSTMAP_NAME_LEN - 1] = '\0';
	out = fopen(path, "w");
	fprintf(out, "%s 0x0000000000100002\n%s leaf1 Ethernet0\n", name, name);
	fclose(out);
	ck_assert_msg(hostmap_load(&hm, "^([^ ]+)", path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(hm.n, 1);
	ck_assert_str_eq(hm.ports[0].host, name);
	hostmap_clear(&hm);
	unlink(path);
}
END_TEST

START_TEST(block_format_has_a_block_per_leaf)
{
	struct fab *f = fattree(3, 4, 1, 0);
	struct hostmap hm = default_map();
	struct slurm_topo t;
	char *text = NULL, *save = NULL, *line;
	size_t blocks = 0, nodes = 0, min = 0, sizes = 0;

	build_ok(f, &hm, &t);
	text = slurm_topo_text(&t, SLURM_TOPO_BLOCK);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], list[4096], err[128];
		struct hostlist hl;

		if (sscanf(line, "BlockSizes=%zu", &sizes) == 1)
			continue;
		ck_assert_int_eq(sscanf(line, "BlockName=%127s Nodes=%4095s", name, list), 2);
		ck_assert_int_eq(hostlist_expand(list, &hl, err, sizeof(err)), 0);
		blocks++;
		nodes += hl.n;
		if (!min || hl.n < min)
			min = hl.n;
		hostlist_clear(&hl);
	}
	ck_assert_uint_eq(blocks, t.n_leaves);
	ck_assert_uint_eq(nodes, t.n_nodes);
	ck_assert_uint_eq(sizes, min);
	free(text);
	slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(f);
}
END_TEST

START_TEST(the_same_fabric_gives_the_same_text)
{
	struct fab *f = fattree(2, 8, 1, 3), *g2 = fab_dup(f);
	struct hostmap hm = default_map();
	struct slurm_topo a, b;
	char *ta, *tb;

	/* the same nodes in another order */
	for (size_t i = 0; i < g2->n_nodes / 2; i++) {
		struct fab_node *x = g2->nodes[i];

		g2->nodes[i] = g2->nodes[g2->n_nodes - 1 - i];
		g2->nodes[g2->n_nodes - 1 - i] = x;
	}
	build_ok(f, &hm, &a);
	build_ok(g2, &hm, &b);
	ta = slurm_topo_text(&a, SLURM_TOPO_TREE);
	tb = slurm_topo_text(&b, SLURM_TOPO_TREE);
	ck_assert_str_eq(ta, tb);
	free(ta);
	free(tb);
	slurm_topo_clear(&a);
	slurm_topo_clear(&b);
	hostmap_clear(&hm);
	fab_free(f);
	fab_free(g2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slurm_topo");
	TCase *tc = tcase_create("slurm_topo");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, host_lists_compress_to_what_expands_back);
	tcase_add_test(tc, host_lists_of_every_width_round_trip);
	tcase_add_test(tc, two_level_fat_trees);
	tcase_add_test(tc, three_level_fat_trees);
	tcase_add_test(tc, degraded_trees_follow_their_cables);
	tcase_add_test(tc, a_leaf_without_uplinks_stands_alone);
	tcase_add_test(tc, multi_rail_hosts_sit_under_their_first_rail);
	tcase_add_test(tc, tori_and_dragonflies_are_refused);
	tcase_add_test(tc, switch_names_are_made_valid_and_unique);
	tcase_add_test(tc, a_node_name_slurm_refuses_is_left_out_and_named_the_others_written);
	tcase_add_test(tc, a_fabric_of_only_bad_names_is_an_error_naming_one);
	tcase_add_test(tc, unmapped_ports_are_left_out_and_counted);
	tcase_add_test(tc, a_host_moved_by_the_map_is_said);
	tcase_add_test(tc, a_cut_cable_changes_what_slurm_reads_and_is_said);
	tcase_add_test(tc, a_host_map_that_contradicts_itself_is_refused);
	tcase_add_test(tc, a_host_map_name_over_63_bytes_is_refused_not_cut);
	tcase_add_test(tc, block_format_has_a_block_per_leaf);
	tcase_add_test(tc, the_same_fabric_gives_the_same_text);
	suite_add_tcase(s, tc);
	return check_run(s);
}
