/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/validate_bench.c: the library side of a validation after a sweep
 * (issue 22), timed on one fabric: read a net file (topo_file), give it
 * LIDs as an SM would, make the plan from it (plan_from_fab) and write it as
 * a cabling CSV, then ROUNDS times: plan_read of that CSV, cabling_check,
 * health_check (with a symbol-error row, no errors, for every linked port:
 * the BER rule runs on every link), then issue 43's rules, each over the
 * data a sweep or its readers would hand it: the subnet-manager and M_Key
 * rules (a MASTER and a STANDBY whose counts moved since the previous list,
 * every port keyed with protect bits 2; then once more with every key zero:
 * the one m-key-unset finding for the subnet), partitions over PKey tables
 * synthesised as `--read-pkeys` hands them (every host a limited member of
 * 0x7fff, PARTS_TENANTS tenants of PARTS_EACH hosts), rails, the Ethernet
 * plan rows against LLDP, multicast over 64 groups of every host
 * (validate_bench_mcast.c). Prints the median and the worst of each, their
 * sum (every rule together), the findings
 * (a clean fabric: 0) and the peak RSS. Not installed; bench/validate.sh
 * runs it.
 *
 *   validate_bench NETFILE CSV [ROUNDS]
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"
#include "bench/validate_bench_mcast.h"

#include <errno.h>
#include <inttypes.h>
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
#include "lib/validate/partitions.h"
#include "lib/validate/keys.h"
#include "lib/validate/sm.h"
#include "lib/validate/plan.h"
#include "lib/validate/eth_cabling.h"
#include "lib/validate/rails.h"

#define MAX_ROUNDS 99
#define WORST(w, t) ((w) = (t) > (w) ? (t) : (w))

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

/* issue 43: the SMs and keys a sweep of this fabric would hand validation
 * (a MASTER and a STANDBY on the first two CAs; every port's M_Key set with
 * protect bits 2), and the previous sweep's SM list in prev. */
static void sms_up(struct fab *f, struct fab_sm prev[2])
{
	unsigned k = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fab_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			n->ports[p].m_key = 0x5eed000000000000ULL | n->guid;
			n->ports[p].m_key_protect = 2;
			n->ports[p].m_key_lease = 60;
		}
		if (n->type == IBT_NODE_CA && k < 2 && n->ports[1].present) {
			struct fab_sm sm = { .node_guid = n->guid, .port = 1, .answered = 1,
					     .priority = (uint8_t)(k ? 1 : 15),
					     .state = k ? FAB_SM_STANDBY : FAB_SM_MASTER,
					     .act_count = 1000, .guid = n->ports[1].guid };

			n->ports[1].capmask |= FAB_CAP_IS_SM;
			prev[k] = sm;
			sm.act_count += 100;
			fab_add_sm(f, &sm);
			k++;
		}
	}
	f->sm_read = FAB_SM_READ;
}

static void keys_protect(struct fab *f, uint8_t bits)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->nports; p++)
			f->nodes[i]->ports[p].m_key_protect = bits;
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

/* ---- issue 43: the partitions rule's input, as the reader hands it ---- */
#define PARTS_TENANTS 16
#define PARTS_EACH 512

struct parts_input {
	json_t *tables;             /* {"0x<guid>": [...], "0x<guid>/sw": [...]} */
	struct partitions_tenant t[PARTS_TENANTS];
	uint64_t *guids;
	char names[PARTS_TENANTS][16];
};

static int parts_make(const struct fab *f, struct parts_input *in)
{
	size_t hosts = 0, k = 0;

	in->tables = json_object();
	if (!(in->guids = calloc(PARTS_TENANTS * PARTS_EACH + 1, sizeof(*in->guids))))
		return -ENOMEM;
	for (size_t i = 0; i < PARTS_TENANTS; i++) {
		snprintf(in->names[i], sizeof(in->names[i]), "job%zu", i);
		in->t[i] = (struct partitions_tenant){ .name = in->names[i], .pkey = 0x1001 + i,
						       .guids = in->guids + i * PARTS_EACH };
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fab_node *n = f->nodes[i];

		for (unsigned p = 1; n->type == IBT_NODE_CA && p <= n->nports; p++, hosts++) {
			const struct fab_port *pt = fab_port(n, p);
			size_t ti = hosts / PARTS_EACH;
			json_t *ca = json_pack("[i]", 0x7fff), *sw = json_pack("[i]", 0xffff);
			char name[40];

			if (!pt || !pt->present)
				continue;
			if (ti < PARTS_TENANTS) {
				json_array_append_new(ca, json_integer(0x8000 | in->t[ti].pkey));
				json_array_append_new(sw, json_integer(in->t[ti].pkey));
				in->guids[k++] = pt->guid;
				in->t[ti].n_guids++;
			}
			snprintf(name, sizeof(name), "0x%016" PRIx64, pt->guid);
			json_object_set_new(in->tables, name, ca);
			strcat(name, "/sw");
			json_object_set_new(in->tables, name, sw);
		}
	}
	return 0;
}

/* One round: the reader's object to the findings. */
static int parts_round(const struct fab *f, const struct parts_input *in, struct val_report *r)
{
	struct partitions_opts o = { .default_policy = PARTITIONS_DEFAULT_LIMITED, .enforce = 1 };
	struct partitions_tables t;
	char err[256] = "";
	int rc;

	if ((rc = partitions_tables_from_json(in->tables, &t, err, sizeof(err))) == 0)
		rc = partitions_check(f, &t, in->t, PARTS_TENANTS, &o, r, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "validate_bench: partitions: %s\n", err);
	partitions_tables_clear(&t);
	return rc;
}

/* ---- issue 43: rails and Ethernet cabling, each its own entry ------------------------ */

#define BENCH_RAILS 8

/* rails_check on a copy of f whose every HCA is "<desc> mlx5_R", R its
 * leaf's rail (leaf GUID mod 8: every leaf one rail, as a clean
 * rail-optimized fabric): its median and worst, and the findings (0). */
static int bench_rails(const struct fab *f, int rounds, double *median)
{
	struct fab *g = fab_dup(f);
	double t[MAX_ROUNDS], worst = 0;
	size_t hcas = 0, findings = 0;
	char err[256] = "";

	if (!g)
		return -1;
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct fab_node *n = g->nodes[i];
		char d[FAB_DESC_LEN + 1];

		if (n->type != IBT_NODE_CA || !n->nports || !n->ports[1].has_peer)
			continue;
		snprintf(d, sizeof(d), "%.50s mlx5_%u", n->desc,
			 (unsigned)(n->ports[1].peer_guid % BENCH_RAILS));
		memcpy(n->desc, d, sizeof(d));
		hcas++;
	}
	for (int k = 0; k < rounds; k++) {
		struct val_report r = { 0 };
		double a = clock_mono();

		if (rails_check(g, RAILS_DEVICE, NULL, NULL, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "validate_bench: rails_check: %s\n", err);
			fab_free(g);
			return -1;
		}
		t[k] = clock_mono() - a;
		worst = t[k] > worst ? t[k] : worst;
		findings = r.n;
		val_report_clear(&r);
	}
	*median = bench_median(t, rounds);
	printf("rails_check    %8.3f  %7.3f   (%zu HCAs in %d rails, by device index; %zu findings)\n",
	       *median, worst, hcas, BENCH_RAILS, findings);
	fab_free(g);
	return findings ? -1 : 0;
}

/* eth_cabling_check of a leaf-spine's LLDP, as the switches' reads leave
 * it, against its plan: SPINES x LEAVES switch links (both ends' LLDP) and
 * HOSTS hosts a leaf whose NICs speak LLDP. */
#define ETH_SPINES 8
#define ETH_LEAVES 32
#define ETH_HOSTS 16
#define ETH_NAME 24

static int bench_eth(int rounds, double *median)
{
	enum { N_SW = ETH_SPINES + ETH_LEAVES,
	       N_PORTS = 2 * ETH_SPINES * ETH_LEAVES + ETH_LEAVES * ETH_HOSTS };
	static char names[N_PORTS][4][ETH_NAME];   /* switch, port, peer, peer port */
	static struct eth_switch_seen sw[N_SW];
	static struct eth_port_seen ports[N_PORTS];
	static char sw_names[N_SW][ETH_NAME];
	double t[MAX_ROUNDS], worst = 0;
	size_t n = 0, len = 0, cap = 64 * N_PORTS, findings = 0, not_seen = 0;
	char *csv = malloc(cap), err[256] = "";
	struct plan *p;

	if (!csv)
		return -1;
	len += (size_t)snprintf(csv, cap, "node,port,peer,peer_port\n");
	for (int i = 0; i < N_SW; i++) {
		snprintf(sw_names[i], ETH_NAME, i < ETH_SPINES ? "spine-%d" : "leaf-%d",
			 i < ETH_SPINES ? i : i - ETH_SPINES);
		sw[i] = (struct eth_switch_seen){ sw_names[i], sw_names[i] };
	}
#define ETH_PORT(a, ap, b, bp) do { \
	snprintf(names[n][0], ETH_NAME, "%s", a); \
	snprintf(names[n][1], ETH_NAME, "Ethernet%d", 4 * (ap)); \
	snprintf(names[n][2], ETH_NAME, "%s", b); \
	snprintf(names[n][3], ETH_NAME, "%s%d", (bp) < 0 ? "eth" : "Ethernet", \
		 (bp) < 0 ? -(bp) - 1 : 4 * (bp)); \
	ports[n] = (struct eth_port_seen){ names[n][0], names[n][1], "", 1, names[n][2], \
					   names[n][3], "" }; \
	n++; } while (0)
	for (int s = 0; s < ETH_SPINES; s++)
		for (int l = 0; l < ETH_LEAVES; l++) {
			ETH_PORT(sw_names[s], l, sw_names[ETH_SPINES + l], ETH_HOSTS + s);
			ETH_PORT(sw_names[ETH_SPINES + l], ETH_HOSTS + s, sw_names[s], l);
			len += (size_t)snprintf(csv + len, cap - len, "%s,%s,%s,%s\n", names[n - 1][0],
						names[n - 1][1], names[n - 1][2], names[n - 1][3]);
		}
	for (int l = 0; l < ETH_LEAVES; l++)
		for (int h = 0; h < ETH_HOSTS; h++) {
			char host[ETH_NAME];

			snprintf(host, sizeof(host), "host-%04d", l * ETH_HOSTS + h);
			ETH_PORT(sw_names[ETH_SPINES + l], h, host, -1);
			len += (size_t)snprintf(csv + len, cap - len, "%s,%s,%s,%s\n", names[n - 1][0],
						names[n - 1][1], names[n - 1][2], names[n - 1][3]);
		}
#undef ETH_PORT
	if (!(p = plan_parse("eth.csv", csv, len, err, sizeof(err)))) {
		fprintf(stderr, "validate_bench: the Ethernet plan: %s\n", err);
		free(csv);
		return -1;
	}
	free(csv);
	for (int k = 0; k < rounds; k++) {
		struct eth_seen seen = { sw, N_SW, ports, n };
		struct val_report r = { 0 };
		double a = clock_mono();

		if (eth_cabling_check(p, &seen, &r, &not_seen, err, sizeof(err)) < 0) {
			fprintf(stderr, "validate_bench: eth_cabling_check: %s\n", err);
			plan_free(p);
			return -1;
		}
		t[k] = clock_mono() - a;
		worst = t[k] > worst ? t[k] : worst;
		findings = r.n;
		val_report_clear(&r);
	}
	*median = bench_median(t, rounds);
	printf("eth_cabling    %8.3f  %7.3f   (%d switches, %zu planned links, %zu LLDP ports; %zu "
	       "findings)\n", *median, worst, N_SW, p->n, n, findings);
	plan_free(p);
	return findings || not_seen ? -1 : 0;
}

int main(int argc, char **argv)
{
	double t_read[MAX_ROUNDS], t_cab[MAX_ROUNDS], t_health[MAX_ROUNDS], t_all[MAX_ROUNDS], t0;
	double w_read = 0, w_cab = 0, w_health = 0, w_all = 0;
	double t_parts[MAX_ROUNDS], w_parts = 0;
	struct parts_input parts = { 0 };
	double t_sm[MAX_ROUNDS], t_zero[MAX_ROUNDS], w_sm = 0, w_zero = 0;
	struct fab_sm sm_prev[2];
	struct health_port_errors *errs;
	struct plan *p;
	struct fab *f;
	struct rusage ru;
	double mc_median = 0, mc_worst = 0;   /* the multicast entry (issue 43) */
	double rails_median = 0, eth_median = 0;
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
	sms_up(f, sm_prev);
	errs = calloc(fab_count_ports(f) + 1, sizeof(*errs));
	if (!errs)
		return 1;
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned q = 1; q <= f->nodes[i]->nports; q++)
			if (f->nodes[i]->ports[q].has_peer)
				errs[n_errs++] = (struct health_port_errors){ f->nodes[i]->guid, (uint8_t)q,
									      0, 60.0 };
	if (parts_make(f, &parts) < 0)
		return 1;
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
		if (parts_round(f, &parts, &r) < 0)
			return 1;
		t_parts[k] = clock_mono() - d;
		{
			struct sm_opts so = { NULL, 0, sm_prev, 2, NULL };
			struct val_report z = { 0 };
			double e, g;

			e = clock_mono();
			if (sm_check(f, &so, &r) < 0 || keys_check(f, KEYS_REQUIRED, NULL, &r) < 0)
				return 1;
			t_sm[k] = clock_mono() - e;
			keys_protect(f, 0);   /* every key zero: one finding, not one per port */
			for (size_t i = 0; i < f->n_nodes; i++)
				for (unsigned q = 0; q <= f->nodes[i]->nports; q++)
					f->nodes[i]->ports[q].m_key = 0;
			g = clock_mono();
			if (keys_check(f, KEYS_REQUIRED, NULL, &z) < 0 || z.n != 1) {
				fprintf(stderr, "validate_bench: zero keys: %zu findings, not 1\n", z.n);
				return 1;
			}
			t_zero[k] = clock_mono() - g;
			val_report_clear(&z);
			keys_protect(f, 2);
			WORST(w_sm, t_sm[k]);
			WORST(w_zero, t_zero[k]);
		}
		t_read[k] = b - a;
		t_cab[k] = c - b;
		t_health[k] = d - c;
		t_all[k] = d - a;
		WORST(w_read, t_read[k]);
		WORST(w_cab, t_cab[k]);
		WORST(w_health, t_health[k]);
		WORST(w_all, t_all[k]);
		WORST(w_parts, t_parts[k]);
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
	/* issue 43's rules, each over its own data */
	printf("sm_keys_check  %8.3f  %7.3f   (2 SMs, every port keyed)\n",
	       bench_median(t_sm, rounds), w_sm);
	printf("keys, all zero %8.3f  %7.3f   (one m-key-unset for the subnet; not in the sum)\n",
	       bench_median(t_zero, rounds), w_zero);
	printf("partitions     %8.3f  %7.3f   (%d tenants of %d hosts)\n",
	       bench_median(t_parts, rounds), w_parts, PARTS_TENANTS, PARTS_EACH);
	if (bench_rails(f, rounds, &rails_median) < 0 || bench_eth(rounds, &eth_median) < 0)
		return 1;
	if (bench_mcast(f, rounds, &mc_median, &mc_worst, &mc_findings, &mc_members) < 0)
		return 1;
	printf("mcast_check    %8.3f  %7.3f   (64 groups, %zu members, %zu findings)\n", mc_median,
	       mc_worst, mc_members, mc_findings);
	printf("every rule     %8.3f            (the sum of the medians: the check after a sweep)\n",
	       bench_median(t_all, rounds) + bench_median(t_sm, rounds) +
	       bench_median(t_parts, rounds) + rails_median + eth_median + mc_median);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld MiB\n", ru.ru_maxrss / 1024);
	free(errs);
	json_decref(parts.tables);
	free(parts.guids);
	fab_free(f);
	return (findings || mc_findings) && argc <= 4 ? 3 : 0;
}
