/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_lft.c: arbitrary text into the LFT dump reader
 * (lib/route/route_lft.c, rt_lfts_read_dump): what dump_fts or ibroute print
 * and OpenSM's opensm-lfts.dump, read against a routing graph of
 * tests/fabrics/demo-ft2.net (8 switches, 16 hosts; read once, at the first
 * input).
 *
 * Invariants: tables or NULL with a "name:line: reason" message; tables have
 * the graph's shape, each entry RT_NO_PORT or a port the switch has; the
 * missing switches and the routed/unreachable counts add up; and writing the
 * tables (rt_lfts_write_dump) and reading that back gives the same entries
 * for LIDs 1..max_lid.
 *
 * By hand (BUILD is a configured build directory, SRC the source tree; the
 * graph is read from SRC/tests/fabrics/demo-ft2.net):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -DFUZZ_SRCDIR='"SRC"' -I BUILD -I SRC -I SRC/include tests/fuzz/fuzz_lft.c \
 *       BUILD/tests/fuzz/bin/obj/libloom.a -ljansson -lsqlite3 -lm -o fuzz_lft
 *   (libloom.a as `make fuzz` compiles it, with the sanitizers)
 *   cp -r tests/fuzz/corpus/lft work && ./fuzz_lft work */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"

const char fuzz_name[] = "fuzz_lft";

static struct rt_graph *graph(void)
{
	static struct rt_graph *g;
	char err[512];
	struct fab *fab;

	if (g)
		return g;
	fab = topo_file_read(FUZZ_SRCDIR "/tests/fabrics/demo-ft2.net", "fuzz", err, sizeof(err));
	if (!fab || !(g = rt_graph_new(fab, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", fuzz_name, err);
		exit(99);
	}
	fab_free(fab);
	return g;
}

static void check(const struct rt_graph *g, const struct rt_lfts *l, size_t missing)
{
	size_t held = 0;

	if (l->n_sw != g->n_sw || l->max_lid != g->max_lid)
		fuzz_bug("tables of %zu switches and max LID %u for a graph of %zu and %u",
			 l->n_sw, l->max_lid, g->n_sw, g->max_lid);
	if (missing > g->n_sw)
		fuzz_bug("%zu of %zu switches missing", missing, g->n_sw);
	for (size_t s = 0; s < g->n_sw; s++)
		for (unsigned lid = 0; lid <= g->max_lid; lid++) {
			uint8_t p = rt_lfts_get(l, s, lid);

			if (p != RT_NO_PORT && p > g->sw[s].nports)
				fuzz_bug("switch %zu, LID %u: port %u of %u", s, lid, p,
					 g->sw[s].nports);
			if (lid && (rt_graph_lid_switch(g, lid) >= 0 || rt_graph_lid_ca(g, lid) >= 0))
				held++;
		}
	if (l->n_routed + l->n_unreachable != held)
		fuzz_bug("%zu routed + %zu unreachable entries, %zu held LIDs", l->n_routed,
			 l->n_unreachable, held);
}

static struct rt_lfts *read_mem(const struct rt_graph *g, const void *data, size_t size,
				size_t *missing, char *err, size_t errlen)
{
	/* fmemopen refuses an empty buffer in some C libraries. */
	static const char nothing[1];
	FILE *f = fmemopen(size ? (void *)data : (void *)nothing, size ? size : 1, "r");
	struct rt_lfts *l;

	if (!f)
		return NULL;
	if (!size)
		fgetc(f);
	l = rt_lfts_read_dump(g, f, "fuzz.dump", missing, err, errlen);
	fclose(f);
	return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rt_graph *g = graph();
	char err[512] = "", *text = NULL;
	size_t missing = (size_t)-1, missing2 = 0, len = 0;
	struct rt_lfts *l, *back;
	FILE *out;

	l = read_mem(g, data, size, &missing, err, sizeof(err));
	if (!l) {
		if (strncmp(err, "fuzz.dump", 9) != 0)
			fuzz_bug("refused without naming the file: \"%s\"", err);
		return 0;
	}
	check(g, l, missing);
	if (!(out = open_memstream(&text, &len)))
		goto out;
	if (rt_lfts_write_dump(g, l, out) < 0)
		fuzz_bug("tables that were read do not write");
	fclose(out);
	if (!(back = read_mem(g, text, len, &missing2, err, sizeof(err))))
		fuzz_bug("tables written do not read back: %s", err);
	check(g, back, missing2);
	if (missing2)
		fuzz_bug("%zu switches missing from a dump of all", missing2);
	for (size_t s = 0; s < g->n_sw; s++)
		for (unsigned lid = 1; lid <= g->max_lid; lid++)
			if (rt_lfts_get(l, s, lid) != rt_lfts_get(back, s, lid))
				fuzz_bug("switch %zu, LID %u: port %u read back as %u", s, lid,
					 rt_lfts_get(l, s, lid), rt_lfts_get(back, s, lid));
	rt_lfts_free(back);
	free(text);
out:
	rt_lfts_free(l);
	return 0;
}
