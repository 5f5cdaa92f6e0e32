/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/commands.c: the table of commands (see commands.h). An entry's
 * arguments are its protocol's, as the handler reads them; a route's query
 * names a subset of them; loomctl's usage is printed in this order. */
#include "autoconf.h"
#include "lib/util/commands.h"

#include <limits.h>
#include <string.h>

#define ARGS(...) ((const struct cmds_arg[]){ __VA_ARGS__, CMDS_ARG_END })
#define NO_ARGS ((const struct cmds_arg[]){ CMDS_ARG_END })
#define GET(path, seg, query, flags) { CMDS_HTTP_GET, (path), (seg), (query), (flags), NULL }
#define POST(path, seg, flags) { CMDS_HTTP_POST, (path), (seg), NULL, (flags), NULL }
#define DELETE(path, seg, flags) { CMDS_HTTP_DELETE, (path), (seg), NULL, (flags), NULL }

#define LOOMD CMDS_LOOMD
#define DB (CMDS_LOOMD | CMDS_DB)
#define LOOMCTL CMDS_LOOMCTL
#define R_LIST CMDS_R_LIST
#define R_BODY CMDS_R_BODY

/* a count: the most any list is asked for */
#define MAX_COUNT 1000000000
#define SUBNET CMDS_ARG_S("subnet")

static const struct cmds_decl table[] = {
	{ "status", DB, CMDS_READ, NO_ARGS, "status",
	  "daemon and subnets at a glance",
	  { GET("status", NULL, NULL, 0) } },
	{ "discover", LOOMD, CMDS_WRITE, ARGS(CMDS_ARG_B("wait")), "discover [--wait]",
	  "sweep now (--wait: until it is done)",
	  { { CMDS_HTTP_POST, "discover", NULL, NULL, CMDS_R_JOB, "{\"wait\": true}" } } },
	{ "nodes", DB, CMDS_READ, ARGS(CMDS_ARG_S("type")), "nodes [--type switch|ca|router]",
	  "the nodes of the fabric",
	  { GET("nodes", NULL, "type", R_LIST) } },
	{ "node", DB, CMDS_READ, ARGS(CMDS_ARG_S("id")), "node GUID|DESC",
	  "one node and its ports",
	  { GET("nodes/{}", "id", NULL, 0) } },
	{ "ports", DB, CMDS_READ, ARGS(CMDS_ARG_S("node")), "ports [GUID|DESC]",
	  "ports of one node, or all",
	  { GET("nodes/{}/ports", "node", NULL, R_LIST), GET("ports", NULL, "node", R_LIST) } },
	{ "links", DB, CMDS_READ, NO_ARGS, "links",
	  "links between ports",
	  { GET("links", NULL, NULL, R_LIST) } },
	{ "find", DB, CMDS_READ, ARGS(CMDS_ARG_S("q"), CMDS_ARG_I("limit", 1, 200)),
	  "find TEXT [--limit N]",
	  "what TEXT names, best first (exact, prefix, substring): a node's name or description, "
	  "a node or port GUID (6 hex digits or more), a LID, NAME:PORT or GUID:PORT, a host, "
	  "a Slurm job or a tenant; at most N (20, at most 200)",
	  { GET("find", NULL, "q limit", 0) } },
	{ "events", DB, CMDS_READ,
	  ARGS(CMDS_ARG_N("since", 0, 1LL << 40), CMDS_ARG_S("kind"),
	       CMDS_ARG_I("limit", 0, MAX_COUNT)),
	  "events [--since TIME] [--kind K[,K...]] [--limit N]",
	  "newest first; TIME: unix seconds, 2026-11-22T15:00:00Z, 2026-11-22 or an age such as "
	  "90s, 15m, 2h, 7d",
	  { GET("events", NULL, "since kind", R_LIST) } },
	{ "fabric-validate", LOOMD, CMDS_READ,
	  ARGS(SUBNET, CMDS_ARG_B("plan"), CMDS_ARG_B("fabric")),
	  "fabric validate [--expected FILE] [--subnet S] [--summary]",
	  "check the last swept fabric now: the cabling plan (validation.expected, or FILE: a CSV "
	  "node,port,peer,peer_port[,width[,speed]] or a topology file) and the fabric's rules; "
	  "exit 0 clean, 4 warnings, 5 errors",
	  { GET("fabric/validate", NULL, "subnet plan fabric", 0) } },
	{ "fabric-validate-topology", LOOMCTL, CMDS_READ, NO_ARGS,
	  "fabric validate --topology FILE [--expected PLAN]",
	  "the same on a topology file, no loomd", { { 0 } } },
	{ "fabric-plan", LOOMCTL, CMDS_READ, NO_ARGS,
	  "fabric plan [--topology FILE] [--subnet S]",
	  "the cabling CSV of the fabric as it is (the last sweep's, or "
	  "FILE's): the plan to keep as validation.expected", { { 0 } } },
	{ "link-isolated", LOOMD, CMDS_READ, ARGS(SUBNET),
	  "link isolated [--subnet S]",
	  "the cables loom took out of the routes (and the hosts it drained): why, since when, "
	  "the evidence, what the routes lost, the jobs that crossed them, the probation left "
	  "(issue 42, isolation: in loom.yaml)",
	  { GET("isolation/links", NULL, "subnet", 0) } },
	{ "link-isolate", LOOMD, CMDS_WRITE,
	  ARGS(CMDS_ARG_S("port"), CMDS_ARG_S("reason"), CMDS_ARG_B("force"), SUBNET),
	  "link isolate NODE:PORT --reason TEXT [--force] [--subnet S]",
	  "take a switch cable out of the routes while it stays up (OpenSM reroutes); refused "
	  "when the routes would lose a pair or cross isolation.min_paths or ebb_floor_pct, "
	  "unless --force; it stays out until `link restore`",
	  { POST("isolation/links", NULL, R_BODY) } },
	{ "link-restore", LOOMD, CMDS_WRITE, ARGS(CMDS_ARG_S("port"), SUBNET),
	  "link restore NODE:PORT [--subnet S]",
	  "put an isolated cable back into the routes now (its past returns forgotten)",
	  { DELETE("isolation/links", NULL, R_BODY) } },
	{ "fabric-issues", DB, CMDS_READ, ARGS(SUBNET),
	  "fabric issues [--subnet S] [--summary]",
	  "what the checks after the sweeps found and is still there, since when",
	  { GET("fabric/issues", NULL, "subnet", 0) } },
	{ "slurm-topology", LOOMD, CMDS_READ, ARGS(SUBNET, CMDS_ARG_S("format")),
	  "slurm topology [--format tree|block] [--subnet S]",
	  "Slurm's topology.conf from the last sweep",
	  { GET("slurm/topology", NULL, "format subnet", 0) } },
	{ "slurm-topology-file", LOOMCTL, CMDS_READ, NO_ARGS,
	  "slurm topology --topology FILE [--format tree|block]\n"
	  "      [--host-pattern RE] [--host-map FILE]",
	  "the same from a topology file, no loomd", { { 0 } } },
	{ "route-compute", LOOMCTL, CMDS_READ, NO_ARGS,
	  "route compute --topology FILE [--engine loom|ftree|dfsssp|minhop]\n"
	  "      [--lfts DUMP] [--dump FILE] [--shifts N] [--random N] [--seed S]\n"
	  "      [--bisections N] [--ar [tree|lag]] [--ar-cap N] [--ar-plan PATH]\n"
	  "      [--threads N] [--reroute-cut N]",
	  "route an ibsim net file or ibnetdiscover output offline (or judge the tables of a "
	  "dump_fts DUMP); print time and metrics; --ar: adaptive routing groups too (at most N "
	  "per switch, default 2048), their deadlock check and EBB; --ar-plan: the SMPs that "
	  "would program them (ARInfo, group table, AR LFT) per switch, as text to PATH (-: "
	  "stdout); loom sends none of them; --threads: default the cores, same tables; "
	  "--reroute-cut: then cut N switch cables and reroute incrementally, timed against a "
	  "full run; the metrics judge the result", { { 0 } } },
	{ "route-check", DB, CMDS_WRITE,
	  ARGS(SUBNET, CMDS_ARG_B("cached"), CMDS_ARG_I("shifts", 0, 1000000),
	       CMDS_ARG_I("random", 0, 100000), CMDS_ARG_I("seed", 0, LLONG_MAX),
	       CMDS_ARG_I("bisections", 0, 100000)),
	  "route check [--subnet NAME] [--cached] [--shifts N] [--random N] [--seed S]\n"
	  "      [--bisections N]",
	  "read every switch's forwarding table now and print the same metrics; exit 1 when "
	  "pairs are lost or loop",
	  { GET("routing/check", NULL, "subnet cached shifts random seed bisections", 0) } },
	{ "route-trace", DB, CMDS_READ,
	  ARGS(SUBNET, CMDS_ARG_B("cached"), CMDS_ARG_S("src"), CMDS_ARG_S("dst")),
	  "route trace [--subnet NAME] [--cached] SRC DST",
	  "the path the tables give, hop by hop; SRC, DST: host name, node name or description, "
	  "GUID 0x... or LID",
	  { GET("routing/trace", NULL, "subnet cached src dst", 0) } },
	{ "route-runs", DB, CMDS_READ, ARGS(CMDS_ARG_I("limit", 0, MAX_COUNT)),
	  "route runs [--limit N]",
	  "OpenSM's routing runs with loom's engines, newest first, with the metrics of each",
	  { GET("routing/runs", NULL, NULL, R_LIST) } },
	{ "ar-status", DB, CMDS_READ, ARGS(CMDS_ARG_B("cached"), SUBNET),
	  "ar status [--subnet NAME] [--cached]",
	  "probe every switch for adaptive routing (ARInfo): supported, enabled, groups used and "
	  "capacity, or why not (static routing)",
	  { GET("ar/status", NULL, "subnet cached", 0) } },
	{ "ar-program", LOOMD, CMDS_WRITE, ARGS(CMDS_ARG_B("dry_run"), SUBNET),
	  "ar program [--subnet NAME] [--dry-run]",
	  "program AR where switches support it (needs ar.program: true; --dry-run sends no Set)",
	  { POST("ar/program", NULL, R_BODY) } },
	{ "counters", DB, CMDS_READ,
	  ARGS(CMDS_ARG_B("now"), SUBNET, CMDS_ARG_S("node"), CMDS_ARG_I("port", 0, 254),
	       CMDS_ARG_S("sort"), CMDS_ARG_I("top", 0, 1000000)),
	  "counters [NODE[:PORT]] [--subnet NAME] [--now] [--top N]\n"
	  "         [--sort data|wait|errors] [--since-reset|--delta]",
	  "every cabled port's PMA counters as last read: data rates, PortXmitWait/s, errors "
	  "since the read before, and the error counters' values as the PMA holds them (--now: "
	  "read first; --top: only the N busiest ports; --since-reset: only the values, ports "
	  "with errors; --delta: no values)",
	  { GET("counters", NULL, "node port subnet top sort now", 0) } },
	{ "health", DB, CMDS_READ,
	  ARGS(SUBNET, CMDS_ARG_I("top", 0, 10000), CMDS_ARG_I("window_s", 0, 31 * 86400)),
	  "health [--subnet NAME] [--top N] [--window SECONDS]",
	  "the alarms the counters raised, the worst links by errors (last read, then within "
	  "telemetry.window_s) and by congestion, stale ports, the jobs on each; exit 1 when an "
	  "alarm is raised",
	  { GET("health", NULL, "subnet top window_s", 0) } },
	{ "port-history", LOOMD, CMDS_READ,
	  ARGS(CMDS_ARG_S("node"), CMDS_ARG_I("port", 0, 255), CMDS_ARG_N("since", 0, 1LL << 40)),
	  "port-history NODE PORT [--since TIME]",
	  "the last reads of one port, oldest first: rx/tx bytes/s, PortXmitWait/s, each error "
	  "counter's delta; from Prometheus (http.prometheus_url, the last hour by default) or "
	  "loomd's memory (telemetry.history_reads per port); TIME as for events",
	  { GET("ports/{}/history", "node", "port since", 0) } },
	/* host_pattern only to be refused with the reason (daemon/telemetry/job_impact.c) */
	{ "job", DB, CMDS_READ,
	  ARGS(CMDS_ARG_S("job"), CMDS_ARG_S("hosts"), SUBNET, CMDS_ARG_S("host_pattern"),
	       CMDS_ARG_I("top", 0, 10000), CMDS_ARG_I("seed", 0, 0x7fffffff)),
	  "job JOBID|--hosts LIST [--slurm] [--subnet NAME] [--top N] [--seed S]\n"
	  "    [--host-pattern RE] [--host-map FILE]",
	  "the links a job's pairs cross under the last read tables (a sample of sources above "
	  "2^20 pairs), the worst of them by alarms, state, errors and congestion, and the other "
	  "jobs sharing them; exit 1 when one is bad or a pair is lost",
	  { GET("impact/{}", "job", "subnet top", 0), GET("impact", NULL, "hosts subnet top seed", 0) } },
	/* loomctl job JOB --from T1 --to T2 (issue 42's post-mortem: history.c) */
	{ "job-history", DB, CMDS_READ,
	  ARGS(CMDS_ARG_S("job"), SUBNET, CMDS_ARG_N("from", 0, 1LL << 40),
	       CMDS_ARG_N("to", 0, 1LL << 40)),
	  "job JOBID --from T1 [--to T2] [--subnet NAME]",
	  "what happened to a job (a tenant, running or ended) between T1 and T2 (default now): "
	  "each forwarding tables version in force then with the links its pairs crossed and "
	  "those that moved, the events on those links, reroutes and isolations, and their "
	  "counters (Prometheus or loomd's memory); T: now, -2h, unix seconds, "
	  "2026-11-29T14:05:00Z (UTC) or \"2026-11-29 14:05[:SS]\" (local time)",
	  { GET("impact/{}/history", "job", "subnet from to", 0) } },
	{ "top", LOOMCTL, CMDS_READ, NO_ARGS,
	  "top [--interval S] [--count N] [--sort data|wait|errors] [--top N]",
	  "the busiest ports, refreshed like top(1) (plain snapshots when not "
	  "on a terminal)", { { 0 } } },
	{ "switch_counters", DB, CMDS_READ,
	  ARGS(CMDS_ARG_B("now"), CMDS_ARG_S("switch"), CMDS_ARG_S("port")),
	  "counters --eth [SWITCH[:PORT]] [--now]",
	  "the Ethernet switches' counters: octet rates, PFC pauses, ECN marks, drops, PFC "
	  "watchdog storms, errors since the read before",
	  { GET("eth-counters", NULL, "switch port now", 0) } },
	{ "switches", DB, CMDS_READ, ARGS(CMDS_ARG_S("name")), "switches [NAME]",
	  "the Ethernet switches as last read (model, OS, ports up, neighbours, QoS state); NAME: "
	  "its ports and LLDP neighbours",
	  { GET("switches", NULL, NULL, R_LIST), GET("switches/{}", "name", NULL, 0) } },
	{ "qos-plan", LOOMD, CMDS_READ, ARGS(CMDS_ARG_S("switch")), "qos plan [--switch NAME]",
	  "what applying the roce: policy would change on the switches, key by key",
	  { GET("qos/plan", NULL, "switch", 0) } },
	{ "qos-status", LOOMD, CMDS_READ, ARGS(CMDS_ARG_S("switch")), "qos status [--switch NAME]",
	  "each switch in policy, drifted or unreachable; exit 1 unless all in policy",
	  { GET("qos/status", NULL, "switch", 0) } },
	{ "qos-apply", LOOMD, CMDS_WRITE, ARGS(CMDS_ARG_S("switch")), "qos apply [--switch NAME]",
	  "apply the policy, then read it back; exit 1 unless all in policy",
	  { POST("qos/apply", NULL, R_BODY) } },
	{ "qos-ib-status", LOOMD, CMDS_READ, NO_ARGS, "qos status --ib",
	  "every IB port's SL2VL and VLArb tables read back against ib_qos; exit 1 unless all "
	  "match",
	  { GET("qos/ib/status", NULL, NULL, 0) } },
	{ "qos-ib-apply", LOOMD, CMDS_WRITE, NO_ARGS, "qos apply --ib",
	  "ib_qos written as OpenSM options, OpenSM signalled (it programs the ports)",
	  { POST("qos/ib/apply", NULL, 0) } },
	{ "qos-ib-cc-apply", LOOMD, CMDS_WRITE, NO_ARGS, "qos apply --ib-cc",
	  "ib_cc (congestion control) written as OpenSM options, OpenSM signalled",
	  { POST("qos/ib-cc/apply", NULL, 0) } },
	{ "qos-ib-cc-status", LOOMD, CMDS_READ, NO_ARGS, "qos status --ib-cc",
	  "OpenSM's options file against ib_cc; exit 1 when it drifted",
	  { GET("qos/ib-cc/status", NULL, NULL, 0) } },
	/* docs/api.md's bodies: a PKey 1..0x7ffe (0: the pool's next), a
	 * membership true/false, a class name */
	{ "tenant-create", LOOMD, CMDS_TENANT,
	  ARGS(CMDS_ARG_S("name"), CMDS_ARG_S("hosts"), CMDS_ARG_I("pkey", 0, 0x7ffe),
	       CMDS_ARG_B("limited"), CMDS_ARG_S("class")),
	  "tenant create NAME --hosts LIST [--pkey P] [--limited] [--class C]",
	  "the hosts' HCA ports in a partition of their own; returns once the fabric shows it; "
	  "LIST: Slurm hostlist, node[001-064,070]",
	  { POST("tenants", NULL, R_BODY) } },
	{ "tenant-add-hosts", LOOMD, CMDS_TENANT, ARGS(CMDS_ARG_S("name"), CMDS_ARG_S("hosts")),
	  "tenant add-hosts NAME LIST", "",
	  { POST("tenants/{}/hosts", "name", R_BODY) } },
	{ "tenant-remove-hosts", LOOMD, CMDS_TENANT, ARGS(CMDS_ARG_S("name"), CMDS_ARG_S("hosts")),
	  "tenant remove-hosts NAME LIST", "",
	  { DELETE("tenants/{}/hosts", "name", R_BODY) } },
	{ "tenant-delete", LOOMD, CMDS_TENANT, ARGS(CMDS_ARG_S("name")), "tenant delete NAME", "",
	  { DELETE("tenants/{}", "name", 0) } },
	{ "tenant-verify", LOOMD, CMDS_READ, ARGS(CMDS_ARG_S("name")), "tenant verify NAME", "",
	  { GET("tenants/{}/verify", "name", NULL, 0) } },
	{ "tenant-show", LOOMD, CMDS_READ, ARGS(CMDS_ARG_S("name")), "tenant show NAME", "",
	  { GET("tenants/{}", "name", NULL, 0) } },
	{ "tenant-list", LOOMD, CMDS_READ, NO_ARGS, "tenant list", "",
	  { GET("tenants", NULL, NULL, R_LIST) } },
	{ "tenant-hosts", LOOMD, CMDS_READ, NO_ARGS, "tenant hosts [--map]",
	  "each port's host by the host identity rule and the one it claims; --map: a "
	  "tenants.host_map to check and keep", { { 0 } } },
	{ "token-hash", LOOMCTL, CMDS_READ, NO_ARGS, "token hash NAME ROLE [--stdin]",
	  "a line for loomd's tokens file (ROLE: read, tenant, admin, metrics); the token is made "
	  "and shown once on stderr, or read from stdin (32+ characters)", { { 0 } } },
	{ "help", LOOMCTL, CMDS_READ, NO_ARGS, "help [COMMAND...]",
	  "the usage and help of the commands that start with those words (as COMMAND ... "
	  "--help)", { { 0 } } },
	{ NULL, 0, CMDS_READ, NULL, NULL, NULL, { { 0 } } },
};

const struct cmds_decl *cmds_table(void)
{
	return table;
}

const struct cmds_decl *cmds_find(const struct cmds_decl *t, const char *name)
{
	for (; t && t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}
