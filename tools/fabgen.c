/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen.c: loom-fabgen's command line. It validates the options,
 * builds the fabric (fabgen_fattree.c, fabgen_torus.c, fabgen_dragonfly.c),
 * damages it if asked (fabgen_damage.c) and writes an ibsim net file with a
 * header that says how it was made, what it holds and how to start ibsim
 * on it (fabgen_graph.c). `--stats` prints only the counts, for tests. */
#include "autoconf.h"
#include "fabgen.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A unicast LID is 1..0xBFFF; a plane needing more cannot be one subnet. */
#define FG_MAX_UNICAST_LIDS 49151

enum fg_kind { K_FATTREE, K_TORUS, K_DRAGONFLY };

struct fg_args {
	enum fg_kind kind;
	struct fg_fattree_opts ft;
	struct fg_torus_opts torus;
	struct fg_dragonfly_opts df;
	int cut, slow, stats, help;
	uint64_t seed;
	const char *out;
};

/* Thrown by the parsers: main prints it and exits 2. */
static char errbuf[256];

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void usage(FILE *to)
{
	fputs("usage: loom-fabgen TOPOLOGY [OPTIONS]   (writes an ibsim net file)\n"
	      "  fattree --levels 2|3 --radix K [--hosts N] [--rails R]\n"
	      "      k-ary fat tree of K-port switches (K even, 4..254); at most\n"
	      "      K*K/2 hosts (2 levels) or K*K*K/4 (3 levels); R planes (rails),\n"
	      "      each host has one port per plane\n"
	      "  torus --dims X,Y[,Z] [--hosts-per-switch H]\n"
	      "      wraparound torus, each dimension 2..256, H hosts per switch\n"
	      "  dragonfly --groups G --routers A --hosts-per-router P --global H\n"
	      "      all-to-all groups of A routers, H global links per router\n"
	      "      spread evenly between groups (needs A*H >= G-1)\n"
	      "options for every topology:\n"
	      "  --cut N       remove N random switch-to-switch links, never\n"
	      "                disconnecting a switch (seeded by --seed)\n"
	      "  --slow N      narrow N random switch-to-switch links to 1x (w=1)\n"
	      "  --seed S      seed of --cut and --slow (default 1); same seed,\n"
	      "                same file\n"
	      "  --stats       print only the counts, as key=value lines\n"
	      "  -o FILE       write to FILE instead of standard output\n"
	      "  -h, --help    this help\n", to);
}

enum {
	O_LEVELS = 256, O_RADIX, O_HOSTS, O_RAILS, O_DIMS, O_HPS, O_GROUPS,
	O_ROUTERS, O_HPR, O_GLOBAL, O_CUT, O_SLOW, O_SEED, O_STATS
};

static const struct option long_opts[] = {
	{ "levels", required_argument, NULL, O_LEVELS },
	{ "radix", required_argument, NULL, O_RADIX },
	{ "hosts", required_argument, NULL, O_HOSTS },
	{ "rails", required_argument, NULL, O_RAILS },
	{ "dims", required_argument, NULL, O_DIMS },
	{ "hosts-per-switch", required_argument, NULL, O_HPS },
	{ "groups", required_argument, NULL, O_GROUPS },
	{ "routers", required_argument, NULL, O_ROUTERS },
	{ "hosts-per-router", required_argument, NULL, O_HPR },
	{ "global", required_argument, NULL, O_GLOBAL },
	{ "cut", required_argument, NULL, O_CUT },
	{ "slow", required_argument, NULL, O_SLOW },
	{ "seed", required_argument, NULL, O_SEED },
	{ "stats", no_argument, NULL, O_STATS },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Which topology each long option belongs to; -1 means every topology. */
static int option_kind(int opt)
{
	switch (opt) {
	case O_LEVELS: case O_RADIX: case O_HOSTS: case O_RAILS:
		return K_FATTREE;
	case O_DIMS: case O_HPS:
		return K_TORUS;
	case O_GROUPS: case O_ROUTERS: case O_HPR: case O_GLOBAL:
		return K_DRAGONFLY;
	default:
		return -1;
	}
}

static const char *option_name(int val)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "";
}

static const char *kind_name(int k)
{
	return k == K_FATTREE ? "fattree" : k == K_TORUS ? "torus" : "dragonfly";
}

static int parse_int(const char *opt, const char *s, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return bad("%s: '%s' is not a number", opt, s);
	if (v < lo || v > hi)
		return bad("%s must be %ld..%ld (got %ld)", opt, lo, hi, v);
	*out = (int)v;
	return 0;
}

static int parse_dims(const char *s, struct fg_torus_opts *t)
{
	char buf[64], *save = NULL, *tok;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return bad("--dims: '%s' is too long", s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == 3)
			return bad("--dims takes 2 or 3 sizes (X,Y or X,Y,Z), got '%s'", s);
		int r = parse_int("--dims", tok, 2, 256, &t->dims[n]);
		if (r < 0)
			return bad("--dims: each size must be 2..256 (got '%s')", tok);
		n++;
	}
	if (n < 2)
		return bad("--dims takes 2 or 3 sizes (X,Y or X,Y,Z), got '%s'", s);
	t->ndims = n;
	return 0;
}

static int parse_args(int argc, char **argv, struct fg_args *a)
{
	memset(a, 0, sizeof(*a));
	a->seed = 1;
	a->ft.levels = 2;
	a->torus.hosts_per_switch = 1;
	a->ft.rails = 1;
	a->ft.radix = a->df.groups = a->df.routers = -1;
	a->ft.hosts = a->df.hosts_per_router = a->df.global = -1;

	if (argc < 2)
		return bad("a topology is required: fattree, torus or dragonfly");
	const char *topo = argv[1];
	if (!strcmp(topo, "-h") || !strcmp(topo, "--help")) {
		a->help = 1;
		return 0;
	}
	if (!strcmp(topo, "fattree"))
		a->kind = K_FATTREE;
	else if (!strcmp(topo, "torus"))
		a->kind = K_TORUS;
	else if (!strcmp(topo, "dragonfly"))
		a->kind = K_DRAGONFLY;
	else
		return bad("unknown topology '%s' (fattree, torus or dragonfly)", topo);

	opterr = 0;
	optind = 2;
	int c, r = 0;
	while ((c = getopt_long(argc, argv, ":ho:", long_opts, NULL)) != -1) {
		const char *name = option_name(c);
		int k = option_kind(c);
		if (k >= 0 && k != (int)a->kind)
			return bad("--%s does not apply to %s", name, kind_name(a->kind));
		char optname[40];
		snprintf(optname, sizeof(optname), "--%s", name);
		switch (c) {
		case O_LEVELS:
			if (strcmp(optarg, "2") && strcmp(optarg, "3"))
				return bad("--levels must be 2 or 3 (got '%s')", optarg);
			a->ft.levels = optarg[0] - '0';
			break;
		case O_RADIX:
			r = parse_int(optname, optarg, 4, FG_MAX_SWITCH_PORTS, &a->ft.radix);
			if (r == 0 && a->ft.radix % 2)
				r = -EINVAL;
			if (r < 0)
				return bad("--radix must be even and 4..%d (got '%s')",
					   FG_MAX_SWITCH_PORTS, optarg);
			break;
		case O_HOSTS:
			r = parse_int(optname, optarg, 1, FG_MAX_UNICAST_LIDS, &a->ft.hosts);
			break;
		case O_RAILS:
			r = parse_int(optname, optarg, 1, 16, &a->ft.rails);
			break;
		case O_DIMS:
			r = parse_dims(optarg, &a->torus);
			break;
		case O_HPS:
			r = parse_int(optname, optarg, 1, FG_MAX_SWITCH_PORTS - 6,
				      &a->torus.hosts_per_switch);
			break;
		case O_GROUPS:
			r = parse_int(optname, optarg, 2, 4096, &a->df.groups);
			break;
		case O_ROUTERS:
			r = parse_int(optname, optarg, 1, FG_MAX_SWITCH_PORTS - 1,
				      &a->df.routers);
			break;
		case O_HPR:
			r = parse_int(optname, optarg, 1, FG_MAX_SWITCH_PORTS - 1,
				      &a->df.hosts_per_router);
			break;
		case O_GLOBAL:
			r = parse_int(optname, optarg, 1, FG_MAX_SWITCH_PORTS - 1,
				      &a->df.global);
			break;
		case O_CUT:
			r = parse_int(optname, optarg, 0, INT_MAX / 2, &a->cut);
			break;
		case O_SLOW:
			r = parse_int(optname, optarg, 0, INT_MAX / 2, &a->slow);
			break;
		case O_SEED: {
			char *end;
			errno = 0;
			a->seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return bad("--seed: '%s' is not an unsigned number", optarg);
			break;
		}
		case O_STATS:
			a->stats = 1;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'h':
			a->help = 1;
			return 0;
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
		if (r < 0)
			return r;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Checks that need several options at once. */
static int check_args(struct fg_args *a)
{
	if (a->kind == K_FATTREE) {
		struct fg_fattree_opts *o = &a->ft;
		if (o->radix < 0)
			return bad("fattree needs --radix K (even, 4..%d)",
				   FG_MAX_SWITCH_PORTS);
		long half = o->radix / 2;
		long max = o->levels == 2 ? 2 * half * half : 2 * half * half * half;
		if (max > INT_MAX / 2)
			max = INT_MAX / 2;
		if (o->hosts < 0)
			o->hosts = (int)max;
		if (o->hosts > max)
			return bad("--hosts must be 1..%ld for a %d-level radix-%d fat tree",
				   max, o->levels, o->radix);
		/* Refuse early what check_lids() would refuse after building. */
		if (o->hosts > FG_MAX_UNICAST_LIDS)
			return bad("--hosts: %d hosts need more than the %d unicast "
				   "LIDs of a subnet; give --hosts %d or fewer",
				   o->hosts, FG_MAX_UNICAST_LIDS,
				   FG_MAX_UNICAST_LIDS);
	} else if (a->kind == K_TORUS) {
		struct fg_torus_opts *o = &a->torus;
		if (o->ndims == 0)
			return bad("torus needs --dims X,Y[,Z]");
		long nsw = 1;
		for (int d = 0; d < o->ndims; d++)
			nsw *= o->dims[d];
		if (nsw > 65536)
			return bad("--dims: %ld switches, at most 65536", nsw);
		if (o->hosts_per_switch + 2 * o->ndims > FG_MAX_SWITCH_PORTS)
			return bad("--hosts-per-switch must be 1..%d for a %d-dimensional torus",
				   FG_MAX_SWITCH_PORTS - 2 * o->ndims, o->ndims);
	} else {
		struct fg_dragonfly_opts *o = &a->df;
		if (o->groups < 0)
			return bad("dragonfly needs --groups G (2..4096)");
		if (o->routers < 0)
			return bad("dragonfly needs --routers A (routers per group)");
		if (o->hosts_per_router < 0)
			return bad("dragonfly needs --hosts-per-router P");
		if (o->global < 0)
			return bad("dragonfly needs --global H (global links per router)");
		if ((long)o->hosts_per_router + o->routers - 1 + o->global >
		    FG_MAX_SWITCH_PORTS)
			return bad("--hosts-per-router + --routers - 1 + --global must be "
				   "<= %d (router ports)", FG_MAX_SWITCH_PORTS);
		if ((long)o->routers * o->global < o->groups - 1)
			return bad("--routers * --global must be >= --groups - 1 (%d), so "
				   "that every pair of groups has a global link",
				   o->groups - 1);
		if ((long)o->groups * o->routers * o->hosts_per_router > 4L * 1024 * 1024)
			return bad("dragonfly too large: --groups * --routers * "
				   "--hosts-per-router must be <= %ld", 4L * 1024 * 1024);
	}
	return 0;
}

static void print_command(FILE *out, int argc, char **argv)
{
	fputs("loom-fabgen", out);
	for (int i = 1; i < argc; i++) {
		/* -o FILE is left out: the file is the same wherever it goes. */
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "-o", 2) || !strncmp(argv[i], "--output=", 9))
			continue;
		const char *s = argv[i];
		int plain = *s != 0;
		for (const char *p = s; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789,._/:=+-", *p))
				plain = 0;
		if (plain) {
			fprintf(out, " %s", s);
			continue;
		}
		fputs(" '", out);
		for (const char *p = s; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", out);
			else
				fputc(*p, out);
		}
		fputc('\'', out);
	}
	fputc('\n', out);
}

static void print_header(FILE *out, const struct fg_fabric *f,
			 const struct fg_args *a, const struct fg_counts *c,
			 const char *flags, int argc, char **argv)
{
	fprintf(out, "# ibsim net file: %s\n", f->kind);
	fputs("# command: ", out);
	print_command(out, argc, argv);
	fprintf(out, "# hosts=%ld switches=%ld links=%ld (host links %ld, switch "
		"links %ld) cut=%ld slow=%ld", c->hosts, c->switches, c->links,
		c->host_links, c->switch_links, c->cut, c->slow);
	if (a->cut || a->slow)
		fprintf(out, " seed=%" PRIu64, a->seed);
	fputc('\n', out);
	if (f->planes > 1)
		fprintf(out, "# %d planes (rails) joined only at the hosts: each is "
			"its own subnet; ibsim clients attach to host port 1 (plane 0)\n",
			f->planes);
	if (*flags)
		fprintf(out, "# ibsim flags: %s\n", flags);
	else
		fprintf(out, "# ibsim defaults suffice (%d nodes, %d switches, %d ports)\n",
			FG_IBSIM_NODES, FG_IBSIM_SWITCHES, FG_IBSIM_PORTS);
	fputc('\n', out);
}

static void print_stats(FILE *out, const struct fg_fabric *f,
			const struct fg_counts *c)
{
	fprintf(out, "hosts=%ld\nswitches=%ld\nnodes=%ld\nlinks=%ld\n"
		"host_links=%ld\nswitch_links=%ld\ncut=%ld\nslow=%ld\n"
		"ibsim_ports=%ld\nlids=%ld\nrails=%d\n",
		c->hosts, c->switches, c->nodes, c->links, c->host_links,
		c->switch_links, c->cut, c->slow, c->ibsim_ports, c->lids,
		f->planes);
	if (f->planes > 1) {
		for (int p = 0; p < f->planes; p++) {
			struct fg_counts pc;
			fg_count(f, p, &pc);
			fprintf(out, "rail%d_switches=%ld\nrail%d_links=%ld\n"
				"rail%d_switch_links=%ld\nrail%d_slow=%ld\n",
				p, pc.switches, p, pc.links, p, pc.switch_links,
				p, pc.slow);
		}
	}
}

static int build(struct fg_fabric *f, struct fg_args *a)
{
	int r;

	switch (a->kind) {
	case K_FATTREE:
		r = fg_build_fattree(f, &a->ft);
		break;
	case K_TORUS:
		r = fg_build_torus(f, &a->torus);
		break;
	default:
		r = fg_build_dragonfly(f, &a->df);
		break;
	}
	if (r < 0) {
		snprintf(errbuf, sizeof(errbuf), "building the fabric failed: %s",
			 strerror(-r));
		return r;
	}
	struct fg_rng rng;
	fg_rng_seed(&rng, a->seed);
	if (a->cut && (r = fg_cut_links(f, a->cut, &rng)) < 0) {
		if (r == -ENOSPC)
			return bad("--cut %d: that many switch-to-switch links cannot be "
				   "cut without disconnecting a switch", a->cut);
		return r;
	}
	/* Slow links draw from the same stream after the cuts, so that adding
	 * --slow never changes which links are cut. */
	if (a->slow && (r = fg_slow_links(f, a->slow, &rng)) < 0) {
		if (r == -ENOSPC)
			return bad("--slow %d: the fabric has fewer uncut "
				   "switch-to-switch links", a->slow);
		return r;
	}
	return 0;
}

static int check_lids(const struct fg_fabric *f)
{
	for (int p = 0; p < f->planes; p++) {
		struct fg_counts pc;
		fg_count(f, p, &pc);
		/* One LID per switch of the plane and one per host port on it. */
		long lids = pc.switches + pc.hosts;
		if (lids > FG_MAX_UNICAST_LIDS)
			return bad("the fabric needs %ld LIDs per subnet, more than the "
				   "%d unicast LIDs", lids, FG_MAX_UNICAST_LIDS);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fg_args a;
	struct fg_fabric f;
	struct fg_counts c;
	char flags[96];
	FILE *out = stdout;
	int r;

	if (parse_args(argc, argv, &a) < 0 || (!a.help && check_args(&a) < 0)) {
		fprintf(stderr, "loom-fabgen: %s\n(loom-fabgen -h for help)\n", errbuf);
		return 2;
	}
	if (a.help) {
		usage(stdout);
		return 0;
	}
	fg_init(&f);
	errbuf[0] = 0;
	r = build(&f, &a);
	if (r == 0)
		r = check_lids(&f);
	if (r < 0) {
		fprintf(stderr, "loom-fabgen: %s\n", errbuf[0] ? errbuf : strerror(-r));
		fg_free(&f);
		return r == -EINVAL ? 2 : 1;
	}
	fg_count(&f, -1, &c);
	if (fg_ibsim_flags(&c, flags, sizeof(flags)) < 0)
		flags[0] = 0;
	if (a.out && !(out = fopen(a.out, "w"))) {
		fprintf(stderr, "loom-fabgen: %s: %s\n", a.out, strerror(errno));
		fg_free(&f);
		return 1;
	}
	if (a.stats) {
		print_stats(out, &f, &c);
	} else {
		print_header(out, &f, &a, &c, flags, argc, argv);
		r = fg_write(&f, out);
	}
	if (fflush(out) == EOF || ferror(out))
		r = -EIO;
	if (out != stdout && fclose(out) == EOF)
		r = -EIO;
	fg_free(&f);
	if (r < 0) {
		fprintf(stderr, "loom-fabgen: writing %s failed: %s\n",
			a.out ? a.out : "standard output", strerror(-r));
		if (a.out)
			unlink(a.out);
		return 1;
	}
	return 0;
}
