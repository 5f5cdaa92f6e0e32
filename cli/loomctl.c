/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/loomctl.c: loomctl's command line: global options, the table of its
 * command words and dispatch, and `help` (the usage is usage.c's, from the
 * one list of commands). The commands themselves are in cmd_*.c. A word
 * that names no command gets the nearest that does (words.c); --json may
 * stand anywhere on the line; `__complete` is bash completion's. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/commands.h"

static const struct {
	const char *name;
	loomctl_cmd_fn fn;
} commands[] = {
	{ "status", cmd_status },
	{ "discover", cmd_discover },
	{ "nodes", cmd_nodes },
	{ "node", cmd_node },
	{ "ports", cmd_ports },
	{ "links", cmd_links },
	{ "link", cmd_link },
	{ "find", cmd_find },
	{ "port-history", cmd_port_history },
	{ "events", cmd_events },
	{ "fabric", cmd_fabric },
	{ "route", cmd_route },
	{ "qos", cmd_qos },
	{ "switches", cmd_switches },
	{ "tenant", cmd_tenant },
	{ "ar", cmd_ar },
	{ "counters", cmd_counters },
	{ "health", cmd_health },
	{ "job", cmd_job },
	{ "top", cmd_top },
	{ "slurm", cmd_slurm },
	{ "token", cmd_token },
};

/* words[n - 1] is not a word that may follow words[0..n-2]: say so, with
 * the nearest that may (a typo), rather than the whole usage. */
static int unknown(const struct loomctl *lc, int n, char **words)
{
	char w[WORDS_MAX][WORDS_LEN];
	const char *near = words_nearest(words[n - 1], w, words_next(n - 1, words, w, WORDS_MAX));
	const char *before = n > 1 ? words[0] : "", *sep = n > 1 ? " " : "";

	if (near)
		return loomctl_usage_error(lc, NULL, "unknown command \"%s%s%s\"; did you mean "
					   "\"%s%s%s\"?", before, sep, words[n - 1], before, sep,
					   near);
	return loomctl_usage_error(lc, NULL, "unknown command \"%s%s%s\"", before, sep,
				   words[n - 1]);
}

/* A command with sub-words ("tenant create"): is the word after it one of
 * them? 1 when it is not (a typo), 0 when it is or is an option, or none. */
static int bad_sub_word(int n, char **words)
{
	char w[WORDS_MAX][WORDS_LEN];
	int count = words_next(1, words, w, WORDS_MAX);

	if (!count || n < 2 || words[1][0] == '-')
		return 0;
	for (int i = 0; i < count; i++)
		if (!strcmp(w[i], words[1]))
			return 0;
	return 1;
}

/* --json may stand anywhere on the line (before a "--"): take it out of
 * argv, so that no command's getopt sees it. Was it there? */
static int take_json(int *argc, char **argv)
{
	int found = 0, j = 1, i;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--json"))
			found = 1;
		else
			argv[j++] = argv[i];
	}
	while (i < *argc)
		argv[j++] = argv[i++];
	*argc = j;
	argv[j] = NULL;
	return found;
}

/* `loomctl help [WORDS]`, `loomctl WORDS... --help`: the usage of the
 * commands the longest run of words names (from the one list of commands,
 * usage.c). An exit status. */
static int help(const struct loomctl *lc, int n, char **words)
{
	int k = 0;

	while (k < n && words[k][0] != '-')
		k++;
	if (k == 0) {
		usage_print(stdout);
		return LOOMCTL_EXIT_OK;
	}
	for (int m = k; m > 0; m--)
		if (usage_command(stdout, m, words))
			return LOOMCTL_EXIT_OK;
	return unknown(lc, 1, words);
}

int loomctl_parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out > max ? -EINVAL : 0;
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

	/* bash completion's (etc/bash-completion/loomctl): the words as typed */
	if (argc > 1 && !strcmp(argv[1], "__complete"))
		return complete_main(argc - 2, argv + 2);
	lc.socket_path = env && *env ? env : LOOMCTL_DEFAULT_SOCKET;
	lc.json = take_json(&argc, argv);
	if (lc.json) {
		/* usage errors said as JSON by loomctl_usage_hint, not by getopt */
		opterr = 0;
		output_errors_json(1);
	}
	output_errors_argv(argc, argv);
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
				return loomctl_usage_error(&lc, NULL, "--failover-wait wants "
							   "seconds, 0 to 3600, not \"%s\"",
							   optarg);
			}
			break;
		case 'h': usage_print(stdout); return LOOMCTL_EXIT_OK;
		case 'V': printf("loomctl %s\n", PACKAGE_VERSION); return LOOMCTL_EXIT_OK;
		default: return loomctl_usage_hint();
		}
	}
	if (lc.node_name_map && (lc.server || !lc.db_path) && optind < argc &&
	    strcmp(argv[optind], "slurm") && strcmp(argv[optind], "fabric")) {
		return loomctl_usage_error(&lc, NULL, "--node-name-map is for --db and offline "
					   "commands: loomd names nodes by names.node_name_map");
	}
	if (lc.server && lc.db_path) {
		return loomctl_usage_error(&lc, NULL, "--server and --db exclude each other");
	}
	if (lc.server && strncmp(lc.server, "https://", 8) && strncmp(lc.server, "http://", 7)) {
		return loomctl_usage_error(&lc, NULL, "--server wants a URL, https://HOST:PORT");
	}
	if (optind >= argc) {
		if (!lc.json) {
			fprintf(stderr, "%s: no command given\n", lc.prog);
			usage_print(stderr);
			return LOOMCTL_EXIT_USAGE;
		}
		return loomctl_usage_error(&lc, NULL, "no command given");
	}

	const char *name = argv[optind];

	/* --help first: `help --help` is help's own usage */
	for (int i = optind + 1; i < argc; i++)
		if (!strcmp(argv[i], "--help"))
			return help(&lc, argc - optind, argv + optind);
	if (!strcmp(name, "help"))
		return help(&lc, argc - optind - 1, argv + optind + 1);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, name) != 0)
			continue;
		if (bad_sub_word(argc - optind, argv + optind))
			return unknown(&lc, 2, argv + optind);
		/* a command of loomd's that --db does not answer (lib/util/commands.c) */
		const struct cmds_decl *d = cmds_find(cmds_table(), name);

		if (d && (d->flags & CMDS_LOOMD) && !(d->flags & CMDS_DB) && lc.db_path)
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
		output_errors_argv(cargc, cargv);
		int rc = commands[i].fn(&lc, cargc, cargv);

		return rc == LOOMCTL_EXIT_FAILED && lc.unreachable ? LOOMCTL_EXIT_UNREACHABLE : rc;
	}
	return unknown(&lc, 1, argv + optind);
}
