/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/validate_bench.c: the library side of a validation after a sweep
 * (issue 22), timed on one fabric: read a net file (topo_file), give it
 * LIDs as an SM would, make the plan from it (plan_from_fab) and write it as
 * a cabling CSV, then ROUNDS times: plan_read of that CSV, cabling_check,
 * health_check (with a symbol-error row, no errors, for every linked port:
 * the BER rule runs on every link). Prints the median and the worst of each, the findings
 * (a clean fabric: 0) and the peak RSS. Not installed; bench/validate.sh
 * runs it.
 *
 *   validate_bench NETFILE CSV [ROUNDS]
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"
#include "bench/validate_bench_mcast.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/cabling.h"
#include "lib/validate/health.h"
#include "lib/validate/plan.h"

#define MAX_ROUNDS 99

/* As an SM leaves it: a LID per CA port and per switch (its ports share it).
 * A file with LIDs (ibnetdiscover output of a subnet an SM brought up) keeps
 * its own. */
static void sm_up(struct fab *f)
{
	unsigned lid = 1;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->nports; p++)
			if (f->nodes[i]->ports[p].lid)
				return;
	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fab_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].present)
				n->ports[p].lid = (uint16_t)(n->type == IBT_NODE_SWITCH || !p ? lid : lid++);
		if (n->type == IBT_NODE_SWITCH)
			lid++;
	}
}

static int write_csv(const struct plan *p, const char *path)
{
	FILE *out = fopen(path, "w");

	if (!out)
		return -errno;
	fprintf(out, "node,port,peer,peer_port,width,speed\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *c = &p->cables[i];

		fprintf(out, "%s,%u,%s,%u,%s,%s\n", c->a, c->a_port, c->b, c->b_port,
			c->width ? ibt_width_name(c->width) : "", c->speed ? ibt_speed_name(c->speed) : "");
	}
	return fclose(out) ? -errno : 0;
}

int main(int argc, char **argv)
{
	double t_read[MAX_ROUNDS], t_cab[MAX_ROUNDS], t_health[MAX_ROUNDS], t_all[MAX_ROUNDS], t0;
	double w_read = 0, w_cab = 0, w_health = 0, w_all = 0;
	struct health_port_errors *errs;
	struct plan *p;
	struct fab *f;
	struct rusage ru;
	double mc_median = 0, mc_worst = 0;   /* the multicast entry (issue 43) */
	size_t mc_findings = 0, mc_members = 0;
	char err[512] = "";
	size_t n_errs = 0, findings = 0, cables = 0, by_code[VAL_CODE_COUNT] = { 0 };
	int rounds = argc > 3 ? atoi(argv[3]) : 5;

	if (argc < 3 || argc > 5 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: validate_bench NETFILE CSV [ROUNDS 1..%d [CHECKED]]\n",
			MAX_ROUNDS);
		return 2;
	}
	t0 = clock_mono();
	if (!(f = topo_file_read(argv[1], "ib0", err, sizeof(err)))) {
		fprintf(stderr, "validate_bench: %s\n", err);
		return 1;
	}
	printf("fabric: %zu nodes (%zu switches), %zu links, read in %.3f s\n", f->n_nodes,
	       fab_count_type(f, IBT_NODE_SWITCH), fab_count_links(f), clock_mono() - t0);
	sm_up(f);
	if (!(p = plan_from_fab(f, NULL, argv[1], err, sizeof(err))) || write_csv(p, argv[2]) < 0) {
		fprintf(stderr, "validate_bench: the plan: %s\n", p ? argv[2] : err);
		return 1;
	}
	cables = p->n;
	plan_free(p);
	if (argc > 4) {
		fab_free(f);
		if (!(f = topo_file_read(argv[4], "ib0", err, sizeof(err)))) {
			fprintf(stderr, "validate_bench: %s\n", err);
			return 1;
		}
		sm_up(f);
		printf("checked: %s, %zu links\n", argv[4], fab_count_links(f));
	}
	errs = calloc(fab_count_ports(f) + 1, sizeof(*errs));
	if (!errs)
		return 1;
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned q = 1; q <= f->nodes[i]->nports; q++)
			if (f->nodes[i]->ports[q].has_peer)
				errs[n_errs++] = (struct health_port_errors){ f->nodes[i]->guid, (uint8_t)q,
									      0, 60.0 };
	for (int k = 0; k < rounds; k++) {
		struct health_opts o = { .fat_tree = -1, .sm_active = 1,
					 .ber_threshold = HEALTH_BER_DEFAULT, .errs = errs,
					 .n_errs = n_errs };
		struct val_report r = { 0 };
		double a = clock_mono(), b, c, d;

		if (!(p = plan_read(argv[2], err, sizeof(err)))) {
			fprintf(stderr, "validate_bench: %s\n", err);
			return 1;
		}
		b = clock_mono();
		if (cabling_check(p, f, NULL, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "validate_bench: cabling_check: %s\n", err);
			return 1;
		}
		c = clock_mono();
		if (health_check(f, &o, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "validate_bench: health_check: %s\n", err);
			return 1;
		}
		d = clock_mono();
		t_read[k] = b - a;
		t_cab[k] = c - b;
		t_health[k] = d - c;
		t_all[k] = d - a;
#define WORST(w, t) ((w) = (t) > (w) ? (t) : (w))
		WORST(w_read, t_read[k]);
		WORST(w_cab, t_cab[k]);
		WORST(w_health, t_health[k]);
		WORST(w_all, t_all[k]);
		findings = r.n;
		memset(by_code, 0, sizeof(by_code));
		for (size_t i = 0; i < r.n; i++)
			by_code[r.f[i].code]++;
		for (size_t i = 0; i < r.n && i < 20 && k == 0; i++)
			fprintf(stderr, "finding: %s %s (want %s, got %s)\n", val_code_name(r.f[i].code),
				r.f[i].subject, r.f[i].want, r.f[i].got);
		val_report_clear(&r);
		plan_free(p);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("plan: %zu cables in %s; %zu symbol-error rows (BER rule on every link)\n", cables,
	       argv[2], n_errs);
	printf("rounds: %d; findings: %zu", rounds, findings);
	for (unsigned k = 0; k < VAL_CODE_COUNT; k++)
		if (by_code[k])
			printf(" %s=%zu", val_code_name((enum val_code)k), by_code[k]);
	printf("\n");
	printf("step           median-s  worst-s\n");
	printf("plan_read      %8.3f  %7.3f\n", bench_median(t_read, rounds), w_read);
	printf("cabling_check  %8.3f  %7.3f\n", bench_median(t_cab, rounds), w_cab);
	printf("health_check   %8.3f  %7.3f\n", bench_median(t_health, rounds), w_health);
	printf("all three      %8.3f  %7.3f\n", bench_median(t_all, rounds), w_all);
	if (bench_mcast(f, rounds, &mc_median, &mc_worst, &mc_findings, &mc_members) < 0)
		return 1;
	printf("mcast_check    %8.3f  %7.3f   (64 groups, %zu members, %zu findings)\n", mc_median,
	       mc_worst, mc_members, mc_findings);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld MiB\n", ru.ru_maxrss / 1024);
	free(errs);
	fab_free(f);
	return (findings || mc_findings) && argc <= 4 ? 3 : 0;
}
