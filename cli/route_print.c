/* cli/route_print.c: the block of routing metrics that `route compute` and
 * `route check` both print, from the "metrics" object of their JSON (the
 * keys of lib/route_live.h's rl_metrics_json), so that tables computed
 * offline and tables read from the switches read the same. Tables read
 * from switches carry no SLs: their dependencies are all on VL 0. */
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
	fprintf(out, "random:    worst link load %lld (mean %.2f) over %lld permutations\n",
		mint(m, "random_max_load"),
		json_real_value(json_object_get(m, "random_mean_load")), mint(m, "randoms"));
	fprintf(out, "deadlock:  channel dependencies %s on %lld VL%s (%lld dependencies)\n",
		json_is_true(json_object_get(m, "cdg_acyclic")) ? "acyclic, deadlock-free," :
		"CYCLIC, may deadlock,", mint(m, "cdg_vls"), mint(m, "cdg_vls") == 1 ? "" : "s",
		mint(m, "cdg_edges"));
	fprintf(out, "EBB:       %.3f effective bisection bandwidth over %lld random bisections\n",
		json_real_value(json_object_get(m, "ebb")), mint(m, "bisections"));
}
