/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/route_print.c: the block of routing metrics that `route compute` and
 * `route check` both print, from the "metrics" object of their JSON (the
 * keys of lib/route/route_live.h's rl_metrics_json), so that tables computed
 * offline and tables read from the switches read the same (route check
 * adds where its VLs came from: cmd_route_live.c). Also the
 * adaptive routing block of `route compute --ar`, likewise from its JSON. */
#include "autoconf.h"
#include "loomctl.h"

#include <jansson.h>

static long long mint(const json_t *m, const char *key)
{
	return (long long)json_integer_value(json_object_get(m, key));
}

void route_print_metrics(FILE *out, const json_t *m)
{
	fprintf(out, "pairs:     %lld of %lld delivered, %lld unreachable, %lld loops; longest "
		"path %lld switch hops\n", mint(m, "delivered"), mint(m, "pairs"),
		mint(m, "unreachable"), mint(m, "loops"), mint(m, "max_hops"));
	fprintf(out, "EFI:       max %lld, mean %.1f routes per link (%lld links)\n",
		mint(m, "efi_max"), json_real_value(json_object_get(m, "efi_mean")),
		mint(m, "efi_links"));
	fprintf(out, "shift:     worst link load %lld over %lld shifts (first at k=%lld)\n",
		mint(m, "shift_max_load"), mint(m, "shifts"), mint(m, "shift_worst_k"));
	/* A sample says what it is, and how much it can miss. */
	if (json_is_true(json_object_get(m, "shifts_sampled")))
		fprintf(out, "           sampled: %lld of the %lld shifts, drawn at random; at 95%% "
			"confidence fewer than %.2f%% of all shifts have a worse link\n",
			mint(m, "shifts"), mint(m, "shifts_total"),
			100 * json_real_value(json_object_get(m, "shift_bound95")));
	fprintf(out, "random:    worst link load %lld (mean %.3f, standard error %.3f) over %lld "
		"permutations\n", mint(m, "random_max_load"),
		json_real_value(json_object_get(m, "random_mean_load")),
		json_real_value(json_object_get(m, "random_mean_se")), mint(m, "randoms"));
	fprintf(out, "deadlock:  channel dependencies %s on %lld VL%s (%lld dependencies)\n",
		json_is_true(json_object_get(m, "cdg_acyclic")) ? "acyclic, deadlock-free," :
		"CYCLIC, may deadlock,", mint(m, "cdg_vls"), mint(m, "cdg_vls") == 1 ? "" : "s",
		mint(m, "cdg_edges"));
	fprintf(out, "EBB:       %.3f effective bisection bandwidth over %lld random bisections\n",
		json_real_value(json_object_get(m, "ebb")), mint(m, "bisections"));
}

/* The "adaptive_routing" object of `route compute --ar`: the groups, the
 * dependency graph with every member, the EBB with them against the
 * static tables'. */
void route_print_ar(FILE *out, const json_t *a)
{
	const json_t *cycle = json_object_get(a, "cdg_cycle");

	fprintf(out, "adaptive routing: %s mode: groups %.3f s, CDG %.3f s, EBB %.3f s\n",
		json_string_value(json_object_get(a, "mode")),
		json_real_value(json_object_get(a, "groups_s")),
		json_real_value(json_object_get(a, "cdg_s")),
		json_real_value(json_object_get(a, "ebb_s")));
	fprintf(out, "AR groups: max %lld, mean %.2f per switch (capacity %lld), %lld in all\n",
		mint(a, "groups_max"), json_real_value(json_object_get(a, "groups_mean")),
		mint(a, "capacity"), mint(a, "groups"));
	fprintf(out, "AR LIDs:   %lld of %lld (switch, CA LID) entries with alternatives, %lld "
		"dropped for capacity, %lld static ports off the shortest paths\n",
		mint(a, "entries_ar"), mint(a, "entries"), mint(a, "entries_dropped"),
		mint(a, "entries_longer"));
	if (json_is_true(json_object_get(a, "cdg_acyclic")))
		fprintf(out, "AR CDG:    every member together acyclic, deadlock-free, on %lld "
			"VL%s (%lld dependencies)\n", mint(a, "cdg_vls"),
			mint(a, "cdg_vls") == 1 ? "" : "s", mint(a, "cdg_edges"));
	else
		fprintf(out, "AR CDG:    CYCLIC with every member, may deadlock: %s\n",
			json_is_string(cycle) ? json_string_value(cycle) : "?");
	fprintf(out, "AR EBB:    %.3f with AR, %.3f static: x%.2f, over %lld random bisections\n",
		json_real_value(json_object_get(a, "ebb")),
		json_real_value(json_object_get(a, "ebb_static")),
		json_real_value(json_object_get(a, "ebb_gain")), mint(a, "bisections"));
}
