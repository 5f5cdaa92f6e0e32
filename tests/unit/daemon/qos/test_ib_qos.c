/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/qos/test_ib_qos.c: the InfiniBand QoS policy: loom.yaml's ib_qos
 * section (daemon/qos/config_ibqos.c), its checks and OpenSM options
 * (lib/qos/ib_qos.c), the partition flag sl= (lib/fabric/partitions.c), loom's block in
 * OpenSM's options file (daemon/qos/qos_ib.c), classes combined with a routing's
 * VL layers (deadlock freedom judged on a routed torus). That OpenSM programs the ports
 * from these options is tests/integration/ib_qos.sh's. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config.h"
#include "daemon/loomd.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/qos/ib_qos.h"
#include "lib/fabric/partitions.h"
#include "daemon/qos/qos_ib.h"
#include "tests/unit/fixtures/check_run.h"
#include "daemon/qos/config_qos_ib.h"

static struct loom_config conf;
static char err[512];

static int load(const char *text)
{
	config_defaults(&conf);
	return config_load_string("t.yaml", text, strlen(text), &conf, err, sizeof(err));
}

static const char good[] =
	"ib_qos:\n"
	"  classes:\n"
	"    compute: 0\n"
	"    storage: 1\n"
	"    management: 2\n"
	"  sl2vl: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15]\n"
	"  vlarb_high: [{vl: 2, weight: 32}]\n"
	"  vlarb_low: [{vl: 0, weight: 64}, {vl: 1, weight: 128}, {vl: 3, weight: 8}]\n"
	"  high_limit: 10\n"
	"  max_vls: 4\n"
	"  opensm_config: /etc/opensm/opensm.conf\n";

START_TEST(a_policy_is_read_with_its_classes_maps_and_tables)
{
	ck_assert_msg(load(good) == 0, "%s", err);
	ck_assert(ib_qos_conf_get(&conf)->ib_qos.set);
	ck_assert_int_eq(ibqos_class_sl(&ib_qos_conf_get(&conf)->ib_qos, "storage"), 1);
	ck_assert_int_eq(ibqos_class_sl(&ib_qos_conf_get(&conf)->ib_qos, "management"), 2);
	ck_assert_int_eq(ibqos_class_sl(&ib_qos_conf_get(&conf)->ib_qos, "backup"), -1);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.sl2vl[15], 15);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.sl2vl[6], 2);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.n_low, 3);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.low[1].weight, 128);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.high[0].vl, 2);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.high_limit, 10);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.max_vls, 4);
	ck_assert_str_eq(ib_qos_conf_get(&conf)->ib_qos_opensm_config, "/etc/opensm/opensm.conf");
}
END_TEST

START_TEST(no_section_means_loom_leaves_qos_alone_and_prints_nothing)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(load("log:\n  level: info\n") == 0, "%s", err);
	ck_assert(!ib_qos_conf_get(&conf)->ib_qos.set);
	f = open_memstream(&text, &len);
	config_print(&conf, f);
	fclose(f);
	ck_assert_ptr_null(strstr(text, "ib_qos"));
	free(text);
}
END_TEST

START_TEST(an_empty_section_takes_opensms_own_defaults)
{
	struct ibqos_policy d;

	ck_assert_msg(load("ib_qos:\n") == 0, "%s", err);
	ibqos_defaults(&d);
	ck_assert(ib_qos_conf_get(&conf)->ib_qos.set);
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.max_vls, d.max_vls);
	ck_assert_mem_eq(ib_qos_conf_get(&conf)->ib_qos.sl2vl, d.sl2vl, sizeof(d.sl2vl));
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.n_low, d.n_low);
	ck_assert_int_eq(ibqos_check(&d, NULL, err, sizeof(err)), 0);
}
END_TEST

START_TEST(the_printed_policy_reads_back_the_same)
{
	struct loom_config first;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(load(good) == 0, "%s", err);
	first = conf;
	f = open_memstream(&text, &len);
	ck_assert_int_eq(config_print(&first, f), 0);
	fclose(f);
	ck_assert_msg(load(text) == 0, "%s\n%s", err, text);
	ck_assert_msg(!memcmp(&ib_qos_conf_get(&first)->ib_qos, &ib_qos_conf_get(&conf)->ib_qos, sizeof(ib_qos_conf_get(&conf)->ib_qos)), "%s", text);
	ck_assert_str_eq(ib_qos_conf_get(&first)->ib_qos_opensm_config, ib_qos_conf_get(&conf)->ib_qos_opensm_config);
	free(text);
}
END_TEST

/* Without opensm_config the printer writes `opensm_config: ""`, which must
 * read back as "not set" (found by tests/fuzz/fuzz_config: `loomd -n -v`
 * printed a file that loomd refused). */
START_TEST(a_policy_without_opensm_config_prints_and_reads_back)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(load("ib_qos:\n  high_limit: 4\n") == 0, "%s", err);
	ck_assert_str_eq(ib_qos_conf_get(&conf)->ib_qos_opensm_config, "");
	f = open_memstream(&text, &len);
	ck_assert_int_eq(config_print(&conf, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "  opensm_config: \"\"\n"));
	ck_assert_msg(load(text) == 0, "%s\n%s", err, text);
	ck_assert_str_eq(ib_qos_conf_get(&conf)->ib_qos_opensm_config, "");
	ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.high_limit, 4);
	free(text);
}
END_TEST

/* Each bad policy with the line and key the error must name. */
START_TEST(bad_policies_are_refused_with_file_line_and_key)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "ib_qos:\n  classes: {storage: 1}\n  max_vls: 2\n"
		  "  sl2vl: [0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n",
		  "t.yaml:2: ib_qos.classes.storage: SL 1 is mapped to VL15" },
		{ "ib_qos:\n  max_vls: 2\n\n"
		  "  sl2vl: [0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n",
		  "t.yaml:4: ib_qos.sl2vl: SL 2 goes to VL 2, not below max_vls 2" },
		{ "ib_qos:\n  max_vls: 4\n  sl2vl: [0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
		  "  vlarb_high: []\n  vlarb_low: [{vl: 0, weight: 1}, {vl: 1, weight: 1}, "
		  "{vl: 2, weight: 0}, {vl: 3, weight: 1}]\n",
		  "t.yaml:5: ib_qos.vlarb_low: VL 2 carries SL 2" },
		{ "ib_qos:\n  max_vls: 2\n  sl2vl: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
		  "  vlarb_high: [{vl: 4, weight: 9}]\n",
		  "t.yaml:4: ib_qos.vlarb_high[0]: VL 4 is not below max_vls 2" },
		{ "ib_qos:\n  sl2vl: [0, 1]\n", "t.yaml:2: ib_qos.sl2vl: 2 entries" },
		{ "ib_qos:\n  max_vls: 3\n", "t.yaml:2: ib_qos.max_vls: 3: ports offer 1, 2, 4, 8" },
		{ "ib_qos:\n  classes: {storage: 16}\n", "t.yaml:2: ib_qos.classes.storage" },
		{ "ib_qos:\n  vlarb_low: [{vl: 1}]\n", "t.yaml:2: ib_qos.vlarb_low[0]: needs both" },
		{ "ib_qos:\n  vlarb_low: [{vl: 1, weight: 256}]\n",
		  "t.yaml:2: ib_qos.vlarb_low[0].weight" },
		{ "ib_qos:\n  colour: red\n", "t.yaml:2: ib_qos.colour: unknown key" },
		{ "ib_qos:\n  opensm_config: opensm.conf\n",
		  "t.yaml:2: ib_qos.opensm_config: \"opensm.conf\" is not an absolute path" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(load(cases[i].yaml) == -EINVAL, "case %zu accepted", i);
		ck_assert_msg(!strncmp(err, cases[i].want, strlen(cases[i].want)),
			      "case %zu: \"%s\", want \"%s...\"", i, err, cases[i].want);
	}
}
END_TEST

START_TEST(a_vlarb_table_holds_at_most_64_entries)
{
	char yaml[8192];
	size_t n = (size_t)snprintf(yaml, sizeof(yaml), "ib_qos:\n  vlarb_low:\n");

	for (int i = 0; i < 65; i++)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "    - {vl: 0, weight: 1}\n");
	ck_assert_int_eq(load(yaml), -EINVAL);
	ck_assert_msg(strstr(err, "t.yaml:67: ib_qos.vlarb_low[64]: more than 64"), "%s", err);
}
END_TEST

START_TEST(opensm_options_use_opensms_names_and_formats)
{
	char buf[1024];

	ck_assert_msg(load(good) == 0, "%s", err);
	ck_assert_int_lt(ibqos_opensm_options(&ib_qos_conf_get(&conf)->ib_qos, buf, sizeof(buf)), (int)sizeof(buf));
	ck_assert_str_eq(buf, "qos TRUE\n"
			      "qos_max_vls 4\n"
			      "qos_high_limit 10\n"
			      "qos_vlarb_high 2:32\n"
			      "qos_vlarb_low 0:64,1:128,3:8\n"
			      "qos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,15\n");
	/* Too small a buffer: the length it needs, and a terminated prefix. */
	ck_assert_int_eq(ibqos_opensm_options(&ib_qos_conf_get(&conf)->ib_qos, buf, 10), (int)strlen(
		"qos TRUE\nqos_max_vls 4\nqos_high_limit 10\nqos_vlarb_high 2:32\n"
		"qos_vlarb_low 0:64,1:128,3:8\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,15\n"));
	ck_assert_uint_eq(strlen(buf), 9);
}
END_TEST

/* Classes on SLs 0 and 1, VLs 0 and 1 (V = 2), SL 2 shares VL 0. */
static const char layered_policy[] =
	"ib_qos:\n"
	"  classes: {compute: 0, storage: 1, management: 2}\n"
	"  sl2vl: [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 15]\n"
	"  vlarb_high: [{vl: 1, weight: 32}]\n"
	"  vlarb_low: [{vl: 0, weight: 64}, {vl: 1, weight: 0}, {vl: 3, weight: 8}]\n"
	"  max_vls: 4\n";

START_TEST(classes_and_vl_layers_combine_when_the_sls_and_vls_hold_both)
{
	ck_assert_msg(load(layered_policy) == 0, "%s", err);
	ck_assert_int_eq(ibqos_combine(&ib_qos_conf_get(&conf)->ib_qos, 1, err, sizeof(err)), 0);
	/* 2 layers: K = 8 SLs each, 2 class VLs x 2 layers = 4 = max_vls. */
	ck_assert_msg(ibqos_combine(&ib_qos_conf_get(&conf)->ib_qos, 2, err, sizeof(err)) == 0, "%s", err);
	/* 3 layers need 6 VLs: refused, with the numbers. */
	ck_assert_int_eq(ibqos_combine(&ib_qos_conf_get(&conf)->ib_qos, 3, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "3 VL layers") && strstr(err, "6 in all") &&
		      strstr(err, "max_vls is 4"), "%s", err);
	/* 6 layers leave each layer SLs 0-1: management on SL 2 is named. */
	((struct ib_qos_conf *)config_section_edit(&conf, &qos_ib_config))->ib_qos.max_vls = 15;
	ck_assert_int_eq(ibqos_combine(&ib_qos_conf_get(&conf)->ib_qos, 6, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "SLs 0-1") && strstr(err, "classes.management") &&
		      strstr(err, "SL 2"), "%s", err);
	((struct ib_qos_conf *)config_section_edit(&conf, &qos_ib_config))->ib_qos.set = 0;  /* no policy: nothing to refuse */
	ck_assert_int_eq(ibqos_combine(&ib_qos_conf_get(&conf)->ib_qos, 6, err, sizeof(err)), 0);
}
END_TEST

START_TEST(layered_tables_put_each_layer_on_its_own_vls)
{
	struct ibqos_policy eff;
	static const uint8_t want_sl2vl[IBQOS_SLS] = {
		0, 1, 0, 1, 0, 1, 0, 1,   /* layer 0: SLs 0-7, VLs 0-1 */
		2, 3, 2, 3, 2, 3, 2, 3,   /* layer 1: SLs 8-15, VLs 2-3 */
	};

	ck_assert_msg(load(layered_policy) == 0, "%s", err);
	ck_assert_msg(ibqos_layered(&ib_qos_conf_get(&conf)->ib_qos, 2, &eff, err, sizeof(err)) == 0, "%s", err);
	ck_assert_mem_eq(eff.sl2vl, want_sl2vl, IBQOS_SLS);
	/* Weighted entries once per layer, entry-major; weight 0 and VL 3
	 * (no class SL goes there) dropped. */
	ck_assert_uint_eq(eff.n_low, 2);
	ck_assert_uint_eq(eff.low[0].vl, 0);
	ck_assert_uint_eq(eff.low[0].weight, 64);
	ck_assert_uint_eq(eff.low[1].vl, 2);
	ck_assert_uint_eq(eff.low[1].weight, 64);
	ck_assert_uint_eq(eff.n_high, 2);
	ck_assert_uint_eq(eff.high[0].vl, 1);
	ck_assert_uint_eq(eff.high[1].vl, 3);
	ck_assert_uint_eq(eff.high[1].weight, 32);
	/* The path SL: layer * K + class SL; a hint that is no class SL of a
	 * layer goes to SL 0's. */
	ck_assert_uint_eq(ibqos_layered_sl(1, 2, 1), 9);
	ck_assert_uint_eq(ibqos_layered_sl(0, 2, 2), 2);
	ck_assert_uint_eq(ibqos_layered_sl(1, 3, 7), 5);
	/* One layer: the policy as written. */
	ck_assert_int_eq(ibqos_layered(&ib_qos_conf_get(&conf)->ib_qos, 1, &eff, err, sizeof(err)), 0);
	ck_assert_mem_eq(eff.sl2vl, ib_qos_conf_get(&conf)->ib_qos.sl2vl, IBQOS_SLS);
	ck_assert_uint_eq(eff.n_low, ib_qos_conf_get(&conf)->ib_qos.n_low);
	/* Expanded from a table cut at a port's capacity, the entries are
	 * the first ones of the full expansion (what libloomosm does with one
	 * block): 2 of 4. */
	{
		struct ibqos_entry cut[2];
		struct ibqos_entry in[2] = { { 0, 5 }, { 1, 6 } };

		ck_assert_uint_eq(ibqos_layered_vlarb(in, 2, 2, 2, cut, 2), 4);
		ck_assert_uint_eq(cut[0].vl, 0);
		ck_assert_uint_eq(cut[1].vl, 2);
		ck_assert_uint_eq(cut[1].weight, 5);
	}
}
END_TEST

/* Route a 2-D torus with dfsssp (it needs VL layers), give every path of
 * class SL s the SL libloomosm's path_sl would, map it through the layered
 * SL2VL, and judge the channel dependencies per VL: acyclic for every
 * class. The same classes without the layers (every layer on the class's
 * VL) deadlock: the check can fail. */
static void set_class_vls(struct routed *r, const uint8_t *layers, size_t cells,
			  const uint8_t sl2vl[IBQOS_SLS], unsigned n_layers, uint8_t class_sl,
			  int layered)
{
	for (size_t i = 0; i < cells; i++)
		r->l->sl[i] = layered ? sl2vl[ibqos_layered_sl(layers[i], n_layers, class_sl)]
				      : sl2vl[class_sl];
}

START_TEST(layered_classes_keep_a_torus_deadlock_free)
{
	struct fg_fabric fg;
	struct routed r;
	struct ibqos_policy eff;
	const struct rt_metrics_opts opts = { .max_shifts = 1 };
	uint8_t *layers;
	size_t cells;
	unsigned n;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_torus(&fg, &(struct fg_torus_opts){ .ndims = 2,
		.dims = { 6, 5 }, .hosts_per_switch = 1 }), 0);
	r = fixture_route(fixture_fabgen(&fg, 0), rt_route_dfsssp, &opts);
	ck_assert_msg(r.rc == 0, "%s", r.err);
	n = r.l->n_vls;
	ck_assert_uint_ge(n, 2);  /* else the test proves nothing */
	ck_assert_msg(load(layered_policy) == 0, "%s", err);
	((struct ib_qos_conf *)config_section_edit(&conf, &qos_ib_config))->ib_qos.max_vls = 15;
	ck_assert_msg(ibqos_layered(&ib_qos_conf_get(&conf)->ib_qos, n, &eff, err, sizeof(err)) == 0, "%s", err);
	cells = r.g->n_sw * ((size_t)r.g->max_lid + 1);
	layers = malloc(cells);
	ck_assert_ptr_nonnull(layers);
	memcpy(layers, r.l->sl, cells);
	for (unsigned i = 0; i < ib_qos_conf_get(&conf)->ib_qos.n_classes; i++) {
		uint8_t sl = ib_qos_conf_get(&conf)->ib_qos.classes[i].sl;
		struct rt_metrics m;

		set_class_vls(&r, layers, cells, eff.sl2vl, n, sl, 1);
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &m), 0);
		ck_assert_msg(m.cdg_acyclic, "class %s: a cycle with layers",
			      ib_qos_conf_get(&conf)->ib_qos.classes[i].name);
		ck_assert_uint_eq(m.cdg_vls, n);
		set_class_vls(&r, layers, cells, ib_qos_conf_get(&conf)->ib_qos.sl2vl, n, sl, 0);
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, &opts, &m), 0);
		ck_assert_msg(!m.cdg_acyclic, "class %s: no cycle even without layers",
			      ib_qos_conf_get(&conf)->ib_qos.classes[i].name);
	}
	/* A VL holds one layer and one class VL: two classes meet on a VL only
	 * where the policy put them on the same one, so each class's graph
	 * above is all that VL carries. */
	for (unsigned a = 0; a < IBQOS_SLS; a++)
		for (unsigned b = 0; b < IBQOS_SLS; b++) {
			unsigned k = ibqos_layer_sls(n);

			if (a / k >= n || b / k >= n || eff.sl2vl[a] != eff.sl2vl[b])
				continue;
			ck_assert_uint_eq(a / k, b / k);
			ck_assert_uint_eq(ib_qos_conf_get(&conf)->ib_qos.sl2vl[a % k], ib_qos_conf_get(&conf)->ib_qos.sl2vl[b % k]);
		}
	free(layers);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(read_back_names_the_first_differing_entry)
{
	uint8_t m[IBQOS_SLS], data[8];
	struct ibqos_entry got[8] = { { 0, 64 }, { 1, 128 }, { 3, 8 } };

	ck_assert_msg(load(good) == 0, "%s", err);
	memcpy(m, ib_qos_conf_get(&conf)->ib_qos.sl2vl, sizeof(m));
	ck_assert_int_eq(ibqos_diff_sl2vl(&ib_qos_conf_get(&conf)->ib_qos, m), -1);
	m[9] = 0;
	ck_assert_int_eq(ibqos_diff_sl2vl(&ib_qos_conf_get(&conf)->ib_qos, m), 9);
	/* The SMP's nibbles: SL 0 in the high one. */
	ibqos_sl2vl_encode(ib_qos_conf_get(&conf)->ib_qos.sl2vl, data);
	ck_assert_uint_eq(data[0], 0x01);
	ck_assert_uint_eq(data[7], 0x2f);
	ibqos_sl2vl_decode(data, m);
	ck_assert_mem_eq(m, ib_qos_conf_get(&conf)->ib_qos.sl2vl, sizeof(m));
	/* Past the policy's entries the port holds {0, 0}; past cap, anything. */
	ck_assert_int_eq(ibqos_diff_vlarb(&ib_qos_conf_get(&conf)->ib_qos, 0, got, 8), -1);
	got[6] = (struct ibqos_entry){ 2, 1 };
	ck_assert_int_eq(ibqos_diff_vlarb(&ib_qos_conf_get(&conf)->ib_qos, 0, got, 8), 6);
	ck_assert_int_eq(ibqos_diff_vlarb(&ib_qos_conf_get(&conf)->ib_qos, 0, got, 6), -1);
	ck_assert_int_eq(ibqos_diff_vlarb(&ib_qos_conf_get(&conf)->ib_qos, 1, got, 8), 0);
}
END_TEST

START_TEST(a_tenants_class_sl_is_a_partition_flag)
{
	const uint64_t a[] = { 0x0002c90300a1b2c4ULL };
	struct part_tenant t[] = {
		{ "42", 0x1001, 0, a, 1, 1, 2 },
		{ "43", 0x1002, 0, a, 1, 0, 0 },
	};
	char *f = part_file_new(NULL, t, 2);

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f, "loom_42=0x1001,sl=2 : 0x0002c90300a1b2c4=full ;\n"), "%s", f);
	ck_assert_msg(strstr(f, "loom_43=0x1002 : 0x0002c90300a1b2c4=full ;\n"), "%s", f);
	free(f);
}
END_TEST

/* The largest policy the checks accept (64 entries in each table, two-digit
 * VLs, three-digit weights) fits the buffer loomd gives the options. */
START_TEST(the_largest_policy_fits_the_options_buffer)
{
	struct ibqos_policy p;
	char buf[IBQOS_OPTIONS_MAX];
	int n;

	ibqos_defaults(&p);
	p.set = 1;
	p.max_vls = 15;
	p.high_limit = 255;
	p.n_high = p.n_low = IBQOS_VLARB_MAX;
	for (unsigned i = 0; i < IBQOS_VLARB_MAX; i++)
		p.high[i] = p.low[i] = (struct ibqos_entry){ 14, 255 };
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		p.sl2vl[sl] = 14;
	n = ibqos_opensm_options(&p, buf, sizeof(buf));
	ck_assert_int_lt(n, (int)sizeof(buf));
	ck_assert_msg(strstr(buf, "qos_sl2vl 14,14,14,14,14,14,14,14,14,14,14,14,14,14,14,14\n"),
		      "%s", buf);
}
END_TEST

/* A weighted policy entry past the port's table is a difference (OpenSM
 * cannot program it), an unweighted one is not. */
START_TEST(a_weighted_entry_past_the_ports_capacity_differs)
{
	struct ibqos_policy p;
	struct ibqos_entry got[IBQOS_VLARB_MAX] = { { 0, 64 }, { 1, 128 } };

	ibqos_defaults(&p);
	p.n_low = 3;
	p.low[0] = (struct ibqos_entry){ 0, 64 };
	p.low[1] = (struct ibqos_entry){ 1, 128 };
	p.low[2] = (struct ibqos_entry){ 3, 0 };
	ck_assert_int_eq(ibqos_diff_vlarb(&p, 0, got, 2), -1);
	p.low[2].weight = 8;
	ck_assert_int_eq(ibqos_diff_vlarb(&p, 0, got, 2), 2);
}
END_TEST

START_TEST(looms_block_in_opensms_file_is_replaced_and_the_rest_kept)
{
	char *a = qos_ib_options_file("routing_engine minhop\nlog_flags 0x03", "qos TRUE\n");
	char *b, *c;

	ck_assert_ptr_nonnull(a);
	ck_assert_msg(!strncmp(a, "routing_engine minhop\nlog_flags 0x03\n# ---- loom ib_qos begin",
			       55), "%s", a);
	b = qos_ib_options_file(a, "qos TRUE\nqos_max_vls 2\n");
	ck_assert_ptr_nonnull(b);
	ck_assert_msg(strstr(b, "qos_max_vls 2\n# ---- loom ib_qos end\n"), "%s", b);
	ck_assert_ptr_null(strstr(strstr(b, "begin") + 1, "begin"));  /* one block */
	ck_assert_uint_eq(strlen(b), strlen(a) + strlen("qos_max_vls 2\n"));
	c = qos_ib_options_file(NULL, "qos TRUE\n");
	ck_assert_ptr_nonnull(c);
	ck_assert_msg(!strncmp(c, "# ---- loom ib_qos begin", 24), "%s", c);
	free(a);
	free(b);
	free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ib_qos");
	TCase *tc = tcase_create("core");

	if (loomd_config_init() < 0)  /* every module's section of loom.yaml */
		return 1;
	tcase_add_test(tc, a_policy_is_read_with_its_classes_maps_and_tables);
	tcase_add_test(tc, no_section_means_loom_leaves_qos_alone_and_prints_nothing);
	tcase_add_test(tc, an_empty_section_takes_opensms_own_defaults);
	tcase_add_test(tc, the_printed_policy_reads_back_the_same);
	tcase_add_test(tc, a_policy_without_opensm_config_prints_and_reads_back);
	tcase_add_test(tc, bad_policies_are_refused_with_file_line_and_key);
	tcase_add_test(tc, a_vlarb_table_holds_at_most_64_entries);
	tcase_add_test(tc, opensm_options_use_opensms_names_and_formats);
	tcase_add_test(tc, classes_and_vl_layers_combine_when_the_sls_and_vls_hold_both);
	tcase_add_test(tc, layered_tables_put_each_layer_on_its_own_vls);
	tcase_add_test(tc, layered_classes_keep_a_torus_deadlock_free);
	tcase_add_test(tc, read_back_names_the_first_differing_entry);
	tcase_add_test(tc, a_tenants_class_sl_is_a_partition_flag);
	tcase_add_test(tc, looms_block_in_opensms_file_is_replaced_and_the_rest_kept);
	tcase_add_test(tc, the_largest_policy_fits_the_options_buffer);
	tcase_add_test(tc, a_weighted_entry_past_the_ports_capacity_differs);
	suite_add_tcase(s, tc);
	return check_run(s);
}
