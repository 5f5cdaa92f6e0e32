/* cli/loomctl.c: loomctl's command line: global options, the command table
 * and dispatch. The commands themselves are in cmd_*.c. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/nodename.h"

static const struct {
	const char *name;
	loomctl_cmd_fn fn;
	int writes;   /* changes loomd: needs the daemon, refused with --db */
} commands[] = {
	{ "status", cmd_status, 0 },
	{ "discover", cmd_discover, 1 },
	{ "nodes", cmd_nodes, 0 },
	{ "node", cmd_node, 0 },
	{ "ports", cmd_ports, 0 },
	{ "links", cmd_links, 0 },
	{ "events", cmd_events, 0 },
	{ "fabric", cmd_fabric, 0 },
	{ "route", cmd_route, 0 },
	{ "qos", cmd_qos, 0 },
	{ "switches", cmd_switches, 0 },
	{ "tenant", cmd_tenant, 0 },
	{ "ar", cmd_ar, 0 },
	{ "counters", cmd_counters, 0 },
	{ "health", cmd_health, 0 },
	{ "job", cmd_job, 0 },
	{ "top", cmd_top, 0 },
	{ "slurm", cmd_slurm, 0 },
	{ "token", cmd_token, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: loomctl [-s SOCKET | --server URL [--token-file F] [--cacert F]]\n"
		"               [--db PATH] [--json] COMMAND [ARGS]\n"
		"  -s, --socket SOCKET  loomd's control socket (default $LOOM_SOCKET,\n"
		"                       else " LOOMCTL_DEFAULT_SOCKET ")\n"
		"      --server URL     loomd's REST API instead (https://HOST:PORT);\n"
		"                       the token from --token-file F or $LOOM_TOKEN,\n"
		"                       the server's CA from --cacert F; URL,URL,...:\n"
		"                       loomd in HA, tried in turn, again for up to\n"
		"                       --failover-wait S seconds (default 30) while\n"
		"                       none leads\n"
		"      --db PATH        read this database directly, without loomd\n"
		"      --json           print the result as JSON\n"
		"  -h, --help           this help\n"
		"  -V, --version        print the version\n"
		"commands:\n"
		"  status                         daemon and subnets at a glance\n"
		"  discover [--wait]              sweep now (--wait: until it is done)\n"
		"  nodes [--type switch|ca|router]\n"
		"  node GUID|DESC                 one node and its ports\n"
		"  ports [GUID|DESC]              ports of one node, or all\n"
		"  links                          links between ports\n"
		"  events [--since TIME] [--kind K[,K...]] [--limit N]\n"
		"                                 newest first; TIME: unix seconds,\n"
		"                                 2026-11-22T15:00:00Z, 2026-11-22 or an\n"
		"                                 age such as 90s, 15m, 2h, 7d\n"
		"  fabric validate [--expected FILE] [--subnet S] [--summary]\n"
		"                                 check the last swept fabric now: the\n"
		"                                 cabling plan (validation.expected, or\n"
		"                                 FILE: a CSV node,port,peer,peer_port[,\n"
		"                                 width[,speed]] or a topology file) and\n"
		"                                 the fabric's rules; exit 0 clean, 4\n"
		"                                 warnings, 5 errors\n"
		"  fabric validate --topology FILE [--expected PLAN]\n"
		"                                 the same on a topology file, no loomd\n"
		"  fabric plan [--topology FILE] [--subnet S]\n"
		"                                 the cabling CSV of the fabric as it is\n"
		"                                 (the last sweep's, or FILE's): the plan\n"
		"                                 to keep as validation.expected\n"
		"  fabric issues [--subnet S] [--summary]\n"
		"                                 what the checks after the sweeps found\n"
		"                                 and is still there, since when\n"
		"  slurm topology [--format tree|block] [--subnet S]\n"
		"                                 Slurm's topology.conf from the last sweep\n"
		"  slurm topology --topology FILE [--format tree|block]\n"
		"        [--host-pattern RE] [--host-map FILE]\n"
		"                                 the same from a topology file, no loomd\n"
		"  route compute --topology FILE [--engine loom|ftree|dfsssp|minhop]\n"
		"        [--lfts DUMP] [--dump FILE] [--shifts N] [--random N] [--seed S]\n"
		"        [--bisections N] [--ar [tree|lag]] [--ar-cap N] [--ar-plan PATH]\n"
		"        [--threads N] [--reroute-cut N]\n"
		"                                 route an ibsim net file or ibnetdiscover\n"
		"                                 output offline (or judge the tables of a\n"
		"                                 dump_fts DUMP); print time and metrics;\n"
		"                                 --ar: adaptive routing groups too (at most\n"
		"                                 N per switch, default 2048), their\n"
		"                                 deadlock check and EBB; --ar-plan: the\n"
		"                                 SMPs that would program them (ARInfo, group\n"
		"                                 table, AR LFT) per switch, as text to PATH\n"
		"                                 (-: stdout); loom sends none of them;\n"
		"                                 --threads: default the cores, same tables;\n"
		"                                 --reroute-cut: then cut N switch cables and\n"
		"                                 reroute incrementally, timed against a\n"
		"                                 full run; the metrics judge the result\n"
		"  route check [--subnet NAME] [--cached] [--shifts N] [--random N] [--seed S]\n"
		"        [--bisections N]\n"
		"                                 read every switch's forwarding table now\n"
		"                                 and print the same metrics; exit 1 when\n"
		"                                 pairs are lost or loop\n"
		"  route trace [--subnet NAME] [--cached] SRC DST\n"
		"                                 the path the tables give, hop by hop;\n"
		"                                 SRC, DST: host name, node description,\n"
		"                                 GUID 0x... or LID\n"
		"  route runs [--limit N]         OpenSM's routing runs with loom's engines,\n"
		"                                 newest first, with the metrics of each\n"
		"  ar status [--subnet NAME] [--cached]\n"
		"                                 probe every switch for adaptive routing\n"
		"                                 (ARInfo): supported, enabled, groups used\n"
		"                                 and capacity, or why not (static routing)\n"
		"  ar program [--subnet NAME] [--dry-run]\n"
		"                                 program AR where switches support it (needs\n"
		"                                 ar.program: true; --dry-run sends no Set)\n"
		"  counters [NODE[:PORT]] [--subnet NAME] [--now] [--top N]\n"
		"           [--sort data|wait|errors] [--since-reset|--delta]\n"
		"                                 every cabled port's PMA counters as last\n"
		"                                 read: data rates, PortXmitWait/s, errors\n"
		"                                 since the read before, and the error\n"
		"                                 counters' values as the PMA holds them\n"
		"                                 (--now: read first; --top: only the N\n"
		"                                 busiest ports; --since-reset: only the\n"
		"                                 values, ports with errors; --delta: no values)\n"
		"  health [--subnet NAME] [--top N] [--window SECONDS]\n"
		"                                 the alarms the counters raised, the worst\n"
		"                                 links by errors (last read, then within\n"
		"                                 telemetry.window_s) and by congestion, stale\n"
		"                                 ports, the jobs on each; exit 1 when an\n"
		"                                 alarm is raised\n"
		"  job JOBID|--hosts LIST [--slurm] [--subnet NAME] [--top N] [--seed S]\n"
		"      [--host-pattern RE] [--host-map FILE]\n"
		"                                 the links a job's pairs cross under the\n"
		"                                 last read tables (a sample of sources\n"
		"                                 above 2^20 pairs), the worst of them by\n"
		"                                 alarms, state, errors and congestion, and\n"
		"                                 the other jobs sharing them; exit 1 when\n"
		"                                 one is bad or a pair is lost\n"
		"  top [--interval S] [--count N] [--sort data|wait|errors] [--top N]\n"
		"                                 the busiest ports, refreshed like top(1)\n"
		"                                 (plain snapshots when not on a terminal)\n"
		"  counters --eth [SWITCH[:PORT]] [--now]\n"
		"                                 the Ethernet switches' counters: octet rates,\n"
		"                                 PFC pauses, ECN marks, drops, PFC watchdog\n"
		"                                 storms, errors since the read before\n"
		"  switches [NAME]                the Ethernet switches as last read (model, OS,\n"
		"                                 ports up, neighbours, QoS state); NAME: its\n"
		"                                 ports and LLDP neighbours\n"
		"  qos plan [--switch NAME]       what applying the roce: policy would change\n"
		"                                 on the switches, key by key\n"
		"  qos status [--switch NAME]     each switch in policy, drifted or\n"
		"                                 unreachable; exit 1 unless all in policy\n"
		"  qos apply [--switch NAME]      apply the policy, then read it back;\n"
		"                                 exit 1 unless all in policy\n"
		"  qos status --ib                every IB port's SL2VL and VLArb tables read\n"
		"                                 back against ib_qos; exit 1 unless all match\n"
		"  qos apply --ib                 ib_qos written as OpenSM options, OpenSM\n"
		"                                 signalled (it programs the ports)\n"
		"  qos apply --ib-cc              ib_cc (congestion control) written as OpenSM\n"
		"                                 options, OpenSM signalled\n"
		"  qos status --ib-cc             OpenSM's options file against ib_cc; exit 1\n"
		"                                 when it drifted\n"
		"  tenant create NAME --hosts LIST [--pkey P] [--limited] [--class C]\n"
		"                                 the hosts' HCA ports in a partition of their\n"
		"                                 own; returns once the fabric shows it\n"
		"  tenant add-hosts|remove-hosts NAME LIST\n"
		"  tenant delete|verify|show NAME, tenant list\n"
		"  tenant hosts [--map]           each port's host by the host identity\n"
		"                                 rule and the one it claims; --map: a\n"
		"                                 tenants.host_map to check and keep\n"
		"                                 LIST: Slurm hostlist, node[001-064,070]\n"
		"  token hash NAME ROLE [--stdin]  a line for loomd's tokens file (ROLE:\n"
		"                                 read, tenant, admin, metrics); the token\n"
		"                                 is made and shown once on stderr, or\n"
		"                                 read from stdin (32+ characters)\n");
}

int loomctl_parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out > max ? -EINVAL : 0;
}

int loomctl_names(const struct loomctl *lc, struct nodename_map **out)
{
	char err[1024];
	int rc;

	*out = NULL;
	if (!lc->node_name_map)
		return 0;
	if ((rc = nodename_map_read(lc->node_name_map, out, err, sizeof(err))) < 0)
		loomctl_error(lc, "%s", err);
	return rc;
}

int loomctl_call(struct loomctl *lc, const char *cmd, json_t *args, json_t **result)
{
	int rc;

	if (lc->db_path)
		return local_call(lc, cmd, args, result);
	if (lc->server)
		rc = remote_call(lc, cmd, args, result);
	else
		rc = client_call(lc, cmd, args, result);
	/* loomd not there, as opposed to there and saying no: the exit status
	 * tells them apart (the Slurm hooks' failure policy needs it). */
	if (rc == -ENOENT || rc == -ECONNREFUSED || rc == -EHOSTUNREACH || rc == -ETIMEDOUT)
		lc->unreachable = 1;
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'D' },
		{ "node-name-map", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ "server", required_argument, NULL, 'S' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "failover-wait", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct loomctl lc = { .prog = "loomctl", .failover_wait_s = -1 };
	char *end;
	const char *env = getenv("LOOM_SOCKET");
	int c;

	lc.socket_path = env && *env ? env : LOOMCTL_DEFAULT_SOCKET;
	/* "+": stop at the command, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's': lc.socket_path = optarg; break;
		case 'D': lc.db_path = optarg; break;
		case 'N': lc.node_name_map = optarg; break;
		case 'j': lc.json = 1; break;
		case 'S': lc.server = optarg; break;
		case 'T': lc.token_file = optarg; break;
		case 'C': lc.cacert = optarg; break;
		case 'W':
			lc.failover_wait_s = strtod(optarg, &end);
			if (end == optarg || *end || lc.failover_wait_s < 0 ||
			    lc.failover_wait_s > 3600) {
				fprintf(stderr, "%s: --failover-wait wants seconds, 0 to 3600, not "
					"\"%s\"\n", lc.prog, optarg);
				return LOOMCTL_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return LOOMCTL_EXIT_OK;
		case 'V': printf("loomctl %s\n", PACKAGE_VERSION); return LOOMCTL_EXIT_OK;
		default: usage(stderr); return LOOMCTL_EXIT_USAGE;
		}
	}
	if (lc.node_name_map && (lc.server || !lc.db_path) && optind < argc &&
	    strcmp(argv[optind], "slurm") && strcmp(argv[optind], "fabric")) {
		fprintf(stderr, "%s: --node-name-map is for --db and offline commands: loomd "
			"names nodes by names.node_name_map\n", lc.prog);
		return LOOMCTL_EXIT_USAGE;
	}
	if (lc.server && lc.db_path) {
		fprintf(stderr, "%s: --server and --db exclude each other\n", lc.prog);
		return LOOMCTL_EXIT_USAGE;
	}
	if (lc.server && strncmp(lc.server, "https://", 8) && strncmp(lc.server, "http://", 7)) {
		fprintf(stderr, "%s: --server wants a URL, https://HOST:PORT\n", lc.prog);
		return LOOMCTL_EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no command given\n", lc.prog);
		usage(stderr);
		return LOOMCTL_EXIT_USAGE;
	}

	const char *name = argv[optind];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, name) != 0)
			continue;
		if (commands[i].writes && lc.db_path)
			return loomctl_usage_error(&lc, name,
						   "needs a running loomd; it cannot run on a "
						   "database (--db)");
		/* The command parses argv[optind..] with getopt again;
		 * optind = 0 makes glibc start over on the new vector, and
		 * getopt's own messages then start with "loomctl CMD:". */
		char prog[64];
		int cargc = argc - optind;
		char **cargv = argv + optind;

		snprintf(prog, sizeof(prog), "%s %s", lc.prog, name);
		cargv[0] = prog;
		optind = 0;
		int rc = commands[i].fn(&lc, cargc, cargv);

		return rc == LOOMCTL_EXIT_FAILED && lc.unreachable ? LOOMCTL_EXIT_UNREACHABLE : rc;
	}
	fprintf(stderr, "%s: unknown command \"%s\"\n", lc.prog, name);
	usage(stderr);
	return LOOMCTL_EXIT_USAGE;
}
