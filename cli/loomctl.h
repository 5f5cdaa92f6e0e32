/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/loomctl.h: what the parts of loomctl share.
 *
 *   loomctl.c     main: global options, the command table, dispatch
 *   client.c      one request/response over loomd's control socket
 *   words.c       the command words of the one table: next words, options, nearest
 *   complete.c    `loomctl __complete WORDS...` (bash completion's candidates)
 *   remote.c      the same through loomd's REST API (--server URL)
 *   cmd_token.c   token hash (a line of loomd's tokens file)
 *   local.c       the same read commands answered from a database (--db)
 *   output.c      aligned tables and JSON printing
 *   cmd_fabric.c  nodes, node, ports, links, events
 *   cmd_daemon.c  status, discover
 *   cmd_route.c   route compute (offline, on a topology file)
 *   cmd_route_live.c  route check, route trace (the tables in the switches)
 *   cmd_route_runs.c  route runs (OpenSM's routing runs with loom's engines)
 *   route_print.c the metrics block both print, the adaptive routing block
 *   route_ar_plan.c  route compute --ar-plan (the SMPs that would program AR)
 *   cmd_qos.c     qos plan, status, apply (the RoCE policy on the switches)
 *   cmd_switches.c  switches [NAME] (the Ethernet switches as last read)
 *   cmd_tenant.c  tenant create, add-hosts, remove-hosts, delete, verify, show, list
 *   cmd_ar.c      ar status (adaptive routing capability of the switches)
 *   cmd_counters.c  counters [NODE[:PORT]] (the ports' PMA counters, rates, errors)
 *   cmd_health.c    health (alarms, worst links, stale ports, the jobs on them)
 *   cmd_job.c       job (the links a job's traffic crosses, the bad ones)
 *   cmd_top.c       top (the busiest ports, refreshed)
 *   cmd_slurm.c     slurm topology (Slurm's topology.conf from the fabric)
 */
#ifndef LOOMCTL_H
#define LOOMCTL_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

/* loomd's default socket. The same value as LOOM_DEFAULT_SOCKET in
 * daemon/core/config.h: repeated here so that loomctl does not depend on the
 * daemon's headers; keep the two equal. */
#define LOOMCTL_DEFAULT_SOCKET "/run/loom/loomd.sock"
/* loomd's default database.path (loom.yaml(5)), for messages */
#define LOOMCTL_DEFAULT_DB "/var/lib/loom/loom.db"

/* Exit statuses (documented in loomctl(8)). */
enum loomctl_exit {
	LOOMCTL_EXIT_OK = 0,
	LOOMCTL_EXIT_FAILED = 1,  /* the command failed, or loomd said no */
	LOOMCTL_EXIT_USAGE = 2,   /* bad command line */
	LOOMCTL_EXIT_UNREACHABLE = 3, /* loomd could not be reached (no socket, no
				       * connection, no answer in time) */
};

/* --server with several URLs (HA): how long the list is tried again while
 * none of them leads (a takeover takes about the lease's TTL, 5 s). */
#define LOOMCTL_FAILOVER_WAIT_S 30

struct loomctl {
	const char *prog;         /* "loomctl", for messages */
	const char *socket_path;  /* -s, $LOOM_SOCKET or the default */
	const char *db_path;      /* --db: answer from this database, no daemon */
	const char *node_name_map; /* --node-name-map: with --db and offline commands,
	                            * nodes named by this map (else the stored one) */
	int json;                 /* --json */
	const char *server;       /* --server URL: through loomd's REST API */
	const char *token_file;   /* --token-file (else $LOOM_TOKEN) */
	const char *cacert;       /* --cacert: the CA of the server's certificate */
	double failover_wait_s;   /* --failover-wait (-1: the default, remote.c) */
	int unreachable;          /* a call could not reach loomd (set by loomctl_call) */
	int call_timeout_s;       /* >0: the socket's call gives up after this (completion) */
};

/* The codes of loomctl's own errors under --json (loomd's errors keep
 * loomd's codes, lib/util/proto.h): {"error": {"code", "message"}}. */
#define LOOMCTL_ERR_USAGE "usage"             /* exit status 2 */
#define LOOMCTL_ERR_UNREACHABLE "unreachable" /* exit status 3: no loomd there */
#define LOOMCTL_ERR_DENIED "permission-denied" /* the socket refused us (exit 1) */
#define LOOMCTL_ERR_FAILED "failed"           /* any other failure of loomctl's (exit 1) */

/* A command: parses its own arguments (argv[0] is its name) and returns the
 * process exit status; it has reported any failure on stderr itself. */
typedef int (*loomctl_cmd_fn)(struct loomctl *lc, int argc, char **argv);

/* ---- loomctl.c, output.c ---- */
/* "loomctl: <message>" on stderr (--json: the error object on stdout, code
 * LOOMCTL_ERR_FAILED). */
void loomctl_error(const struct loomctl *lc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a code: "loomctl: CODE: message" when code_in_text (loomd's
 * errors), else "loomctl: message"; --json: {"error": {"code", "message"}}. */
void loomctl_error_code(const struct loomctl *lc, const char *code, int code_in_text,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* --json given: errors as JSON on stdout from now on. */
void output_errors_json(int on);
/* The command's argument vector, for the usage errors getopt leaves to
 * loomctl_usage_hint() under --json. */
void output_errors_argv(int argc, char **argv);
/* A usage error in command `cmd`: the message and a hint; returns
 * LOOMCTL_EXIT_USAGE for the caller to return. */
int loomctl_usage_error(const struct loomctl *lc, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* After getopt has complained: the hint; returns LOOMCTL_EXIT_USAGE. */
int loomctl_usage_hint(void);
/* A decimal count 0..max (an option's argument) into *out: 0, or -EINVAL
 * when s is not one. */
int loomctl_parse_count(const char *s, unsigned long max, unsigned long *out);
/* Run `cmd` with `args` (stolen) on the daemon, or on the database with
 * --db. 0 and a new reference in *result, or -errno after the failure was
 * reported. */
int loomctl_call(struct loomctl *lc, const char *cmd, json_t *args, json_t **result);

/* ---- usage.c ---- */
/* loomctl's usage: the global options and every command (lib/util/commands.h). */
void usage_print(FILE *out);
/* The usage and help of the commands whose synopsis starts with the n
 * words ("route", "qos apply"): how many were printed (0: none, nothing
 * printed). */
int usage_command(FILE *out, int n, char **words);

/* ---- words.c: the command words of lib/util/commands.c's synopses ---- */
#define WORDS_MAX 64
#define WORDS_LEN 40
/* The distinct plain words (a-z and "-") that follow the n given words in
 * the synopses (n 0: the command words, "nodes", "route"...; n 1: a
 * command's sub-words, "create", "list"...), in the table's order, into
 * out: how many. */
int words_next(int n, char **given, char out[][WORDS_LEN], int max);
/* The candidate nearest to w by edit distance (a swap of two neighbours
 * counts one), if near enough to be a typo of it; else NULL. */
const char *words_nearest(const char *w, char cand[][WORDS_LEN], int ncand);
/* The options (--x) of the synopses that start with the n given words. */
int words_options(int n, char **given, char out[][WORDS_LEN], int max);
/* What option opt (--x) of those synopses takes: -1 nothing (or no such
 * option), 0 a free value, 1 a file, 2 one of the words copied into
 * choices ("a|b|c"). */
int words_option_value(int n, char **given, const char *opt, char *choices, size_t len);
/* Do those synopses take a node (GUID|DESC, NODE, SRC, DST) as an argument? */
int words_takes_node(int n, char **given);

/* ---- complete.c ---- */
/* `loomctl __complete WORDS... CUR`: the candidates for CUR, one a line. */
int complete_main(int argc, char **argv);

/* ---- client.c ---- */
/* Send one request to the daemon at `socket_path` and wait for its answer.
 * 0: *result holds the result (new reference). -errno: the failure has been
 * reported on stderr ("cannot connect ...", or "<code>: <message>" for an
 * error answer: then -EREMOTEIO, or -EMSGSIZE when loomd's answer was over
 * the protocol's limit; -ECONNRESET when loomd closed the connection before
 * its answer was whole, as it does with a client that has not read its
 * answer for control.stall_timeout_s). */
int client_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result);
/* ---- remote.c ---- */
/* The same through POST lc->server/api/v1/call (libcurl); steals args. */
int remote_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result);
/* ---- cmd_token.c ---- */
int cmd_token(struct loomctl *lc, int argc, char **argv);

/* ---- local.c ---- */
/* The read commands (nodes, node, ports, links, events, status) on the
 * database at lc->db_path; arguments and results as the daemon's. -ENOTSUP
 * for other commands. Failures are reported like client_call's. */
int local_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result);

/* ---- output.c ---- */
struct output_table;

/* A table with `ncols` columns and these headers; NULL if out of memory.
 * Rows are added without checking each time: a table remembers a row it
 * could not store, and output_table_flush() then fails instead of printing
 * an incomplete table. Both accept the NULL of a failed output_table_new(). */
struct output_table *output_table_new(int ncols, const char *const *headers);
/* Append a row of ncols cells (copied); NULL or "" cells print as "-" so
 * that every row has the same number of words for awk. 0 or -ENOMEM. */
int output_table_add(struct output_table *t, const char *const *cells);
/* Print the header line and the rows, columns padded to their widest cell,
 * and free the table. 0, or -ENOMEM (nothing printed) if a row was lost. */
int output_table_flush(struct output_table *t, FILE *out);
/* A JSON value as loomctl --json prints it (two-space indent). 0 or -errno. */
int output_json(const json_t *v, FILE *out);
/* "key:  value" lines with the values aligned; pairs[2*i] is a key. */
void output_keyvals(FILE *out, const char *const *pairs, int n);

/* A node's display name in a result: obj's name_key (the site's name), else
 * its desc_key (the description; results of an older loomd). */
const char *output_name(const json_t *obj, const char *name_key, const char *desc_key);
/* --node-name-map's map (NULL without the option): 0 with *out, or -errno
 * with the error said (file:line). */
struct nodename_map;
int loomctl_names(const struct loomctl *lc, struct nodename_map **out);

/* Shorthands for reading result objects: "" / -1 when missing. */
const char *output_str(const json_t *obj, const char *key);
/* An integer member as text in buf, or `none` when it is absent or null (a
 * count that was not kept). */
const char *output_count(const json_t *obj, const char *key, const char *none, char *buf,
			 size_t len);
long long output_int(const json_t *obj, const char *key);
/* "a b c" of a JSON array of strings into buf, " +N more" when total (0:
 * the array's size) counts more than it holds, "-" when empty. */
void output_words(const json_t *arr, long long total, char *buf, size_t len);
/* "Name=n Name2=m" of a JSON object of integers into buf ("-" when empty):
 * counters as the PMA holds them. */
void output_counts(const json_t *obj, char *buf, size_t len);

/* ---- cmd_job.c ---- */
int cmd_job(struct loomctl *lc, int argc, char **argv);
/* ---- cmd_fabric.c ---- */
int cmd_nodes(struct loomctl *lc, int argc, char **argv);
int cmd_node(struct loomctl *lc, int argc, char **argv);
int cmd_ports(struct loomctl *lc, int argc, char **argv);
int cmd_links(struct loomctl *lc, int argc, char **argv);
int cmd_find(struct loomctl *lc, int argc, char **argv);
int cmd_link(struct loomctl *lc, int argc, char **argv);
int cmd_port_history(struct loomctl *lc, int argc, char **argv);
int cmd_events(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_validate.c: argv[0] is "fabric" (validate, issues) ---- */
int cmd_fabric(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_daemon.c ---- */
int cmd_status(struct loomctl *lc, int argc, char **argv);
int cmd_discover(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_route.c ---- */
int cmd_route(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_route_live.c: argv[0] is "check" / "trace" ---- */
int cmd_route_check(struct loomctl *lc, int argc, char **argv);
int cmd_route_trace(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_route_runs.c: argv[0] is "runs" ---- */
int cmd_route_runs(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_switches.c ---- */
int cmd_switches(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_tenant.c: argv[0] is "tenant" ---- */
int cmd_tenant(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_ar.c: argv[0] is "ar" ---- */
int cmd_ar(struct loomctl *lc, int argc, char **argv);
/* ---- cmd_counters.c: argv[0] is "counters" ---- */
int cmd_counters(struct loomctl *lc, int argc, char **argv);
/* ---- cmd_health.c: argv[0] is "health" ---- */
int cmd_health(struct loomctl *lc, int argc, char **argv);
/* ---- cmd_top.c: argv[0] is "top" ---- */
int cmd_top(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_slurm.c: argv[0] is "slurm" (topology) ---- */
int cmd_slurm(struct loomctl *lc, int argc, char **argv);

/* ---- cmd_qos.c: argv[0] is "qos" ---- */
int cmd_qos(struct loomctl *lc, int argc, char **argv);
/* ---- cmd_qos_ib.c: `qos status|apply --ib` (what: "status" or "apply") ---- */
int cmd_qos_ib(struct loomctl *lc, const char *what);
/* `qos status|apply --ib-cc`: loom.yaml's ib_cc in OpenSM's options file */
int cmd_qos_ibcc(struct loomctl *lc, const char *what);

/* ---- route_print.c ---- */
/* The pairs, EFI, shift, random, deadlock and EBB lines of a "metrics"
 * JSON object. */
void route_print_metrics(FILE *out, const json_t *metrics);
/* The adaptive routing block of `route compute --ar`, from its
 * "adaptive_routing" JSON object. */
void route_print_ar(FILE *out, const json_t *ar);

/* ---- route_ar_plan.c ---- */
struct rt_graph;
struct rt_ar;
/* The AR plan (lib/ar/ar_plan.h) of every switch of ar with groups, as text
 * (header lines "# ...", then "Set 0xATTR am 0xMOD HEX" per SMP), each made
 * for a switch whose ARInfo says group_cap and by_sl_cap 1. 0, or -errno
 * with the switch and reason in err. */
int route_ar_plan_write(FILE *out, const char *topo, const struct rt_graph *g,
			const struct rt_ar *ar, uint16_t group_cap, char *err, size_t errlen);

#endif
