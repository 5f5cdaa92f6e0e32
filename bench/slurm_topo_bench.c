/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/slurm_topo_bench.c: what loomd does with a swept fabric for Slurm's
 * topology.conf (issue 24), timed on one fabric: read a net file
 * (topo_file, not timed), then ROUNDS times: slurm_topo_build (the levels,
 * the hosts by tenants.host_pattern's default rule, names, lists),
 * slurm_topo_text (the file's lines, hostlists compressed) and
 * slurm_topo_diff against the previous round's (what loomd says when the
 * shape changed; here nothing did). Prints the median and the worst of
 * each, the counts, and the peak RSS. Not installed; bench/slurm_topology.sh
 * runs it.
 *
 *   slurm_topo_bench NETFILE [ROUNDS]
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/hostmap.h"
#include "lib/fabric/topo_file.h"
#include "lib/slurm/slurm_topo.h"

#define MAX_ROUNDS 99

static void report(const char *what, double *t, int n)
{
	bench_median(t, n);
	printf("%-22s median %8.1f ms   worst %8.1f ms\n", what, t[n / 2] * 1e3, t[n - 1] * 1e3);
}

int main(int argc, char **argv)
{
	double tb[MAX_ROUNDS], tt[MAX_ROUNDS], td[MAX_ROUNDS], t0;
	struct slurm_topo prev = { 0 }, cur;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	char err[1024], what[1024];
	size_t text_len = 0, changes = 0;
	struct hostmap hm;
	struct rusage ru;
	struct fab *fab;

	if (argc < 2 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: slurm_topo_bench NETFILE [ROUNDS 1..%d]\n", MAX_ROUNDS);
		return 2;
	}
	if (!(fab = topo_file_read(argv[1], "bench", err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (hostmap_load(&hm, HOSTMAP_DEFAULT_PATTERN, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		char *text;

		t0 = clock_mono();
		if (slurm_topo_build(fab, &hm, NULL, &cur, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		tb[r] = clock_mono() - t0;
		t0 = clock_mono();
		if (!(text = slurm_topo_text(&cur, SLURM_TOPO_TREE)))
			return 1;
		tt[r] = clock_mono() - t0;
		text_len = strlen(text);
		free(text);
		t0 = clock_mono();
		changes += slurm_topo_diff(r ? &prev : &cur, &cur, what, sizeof(what));
		td[r] = clock_mono() - t0;
		slurm_topo_clear(&prev);
		prev = cur;
	}
	printf("%zu nodes under %zu leaves, %zu switches, %zu levels; the file %zu bytes; "
	       "%zu changes said between identical rounds\n", prev.n_nodes, prev.n_leaves,
	       prev.n_sw, prev.levels, text_len, changes);
	report("slurm_topo_build", tb, rounds);
	report("slurm_topo_text", tt, rounds);
	report("slurm_topo_diff", td, rounds);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %ld MB (the fabric read from the net file included)\n", ru.ru_maxrss / 1024);
	slurm_topo_clear(&prev);
	hostmap_clear(&hm);
	fab_free(fab);
	return changes ? 3 : 0;
}
