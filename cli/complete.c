/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/complete.c: `loomctl __complete WORDS... CUR` (hidden): the
 * candidates for the word CUR of the command line WORDS CUR, one a line,
 * for etc/bash-completion/loomctl: the command words and sub-words, the
 * options of the command and the values an option lists (words.c, from
 * lib/util/commands.c's synopses, so the table stays the one source), the
 * line "@file" where a file goes, and for an argument that takes a node the
 * names and GUIDs of the fabric's nodes, asked of loomd (`nodes`) with a
 * short timeout: nothing when it is not reachable. Never an error message:
 * a completion prints candidates or nothing. */
#include "autoconf.h"
#include "loomctl.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* how long a completion waits for loomd's node list */
#define COMPLETE_TIMEOUT_S 2

static const char *const globals[] = {
	"--socket", "--server", "--token-file", "--cacert", "--failover-wait", "--db",
	"--node-name-map", "--json", "--help", "--version", NULL,
};

/* A global option that takes a value: 1 a file, 0 another value; -1 none. */
static int global_value(const char *w)
{
	static const char *const files[] = {
		"-s", "--socket", "--db", "--token-file", "--cacert", "--node-name-map", NULL,
	};

	for (int i = 0; files[i]; i++)
		if (!strcmp(w, files[i]))
			return 1;
	return !strcmp(w, "--server") || !strcmp(w, "--failover-wait") ? 0 : -1;
}

static void put(const char *cand, const char *cur)
{
	if (!strncmp(cand, cur, strlen(cur)))
		printf("%s\n", cand);
}

static void put_words(char w[][WORDS_LEN], int n, const char *cur)
{
	for (int i = 0; i < n; i++)
		put(w[i], cur);
}

/* The options of the command (the n given words), and those every command
 * takes. */
static void put_options(int n, char **given, const char *cur)
{
	char w[WORDS_MAX][WORDS_LEN];

	put_words(w, words_options(n, given, w, WORDS_MAX), cur);
	put("--help", cur);
	put("--json", cur);
}

/* The nodes' names and GUIDs from loomd (or --db), quietly. */
static void put_nodes(struct loomctl *lc, const char *cur)
{
	json_t *nodes = NULL, *n;
	size_t i;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (lc->server || null < 0) {
		if (null >= 0)
			close(null);
		return;
	}
	/* a completion says nothing on the terminal: loomctl_call's errors go
	 * nowhere */
	dup2(null, STDERR_FILENO);
	close(null);
	/* the transports themselves (not loomctl_call, the dispatch's) */
	if ((lc->db_path ? local_call(lc, "nodes", json_object(), &nodes) :
	     client_call(lc, "nodes", json_object(), &nodes)) < 0)
		return;
	json_array_foreach(nodes, i, n) {
		const char *name = output_name(n, "name", "desc");

		if (*name)
			put(name, cur);
		if (*output_str(n, "guid"))
			put(output_str(n, "guid"), cur);
	}
	json_decref(nodes);
}

int complete_main(int argc, char **argv)
{
	struct loomctl lc = { .prog = "loomctl", .failover_wait_s = -1,
			      .call_timeout_s = COMPLETE_TIMEOUT_S };
	const char *env = getenv("LOOM_SOCKET");
	const char *cur, *prev;
	char *given[2], w[WORDS_MAX][WORDS_LEN], choices[256];
	int nw, ngiven = 0, cmd_at = -1, nsub = 0, v;

	if (argc < 1)
		return LOOMCTL_EXIT_OK;
	cur = argv[argc - 1];
	nw = argc - 1;
	prev = nw ? argv[nw - 1] : "";
	lc.socket_path = env && *env ? env : LOOMCTL_DEFAULT_SOCKET;
	/* the global options before the command (the socket to ask), then the
	 * command and its sub-word */
	for (int i = 0; i < nw; i++) {
		const char *a = argv[i];

		if (ngiven == 0 && global_value(a) >= 0 && i + 1 < nw) {
			const char *val = argv[++i];

			if (!strcmp(a, "-s") || !strcmp(a, "--socket"))
				lc.socket_path = val;
			else if (!strcmp(a, "--db"))
				lc.db_path = val;
			else if (!strcmp(a, "--server"))
				lc.server = val;
			continue;
		}
		if (a[0] == '-')
			continue;
		if (ngiven == 0) {
			given[ngiven++] = argv[i];
			cmd_at = i;
			nsub = words_next(1, given, w, WORDS_MAX);
		} else if (ngiven == 1 && i == cmd_at + 1 && nsub) {
			given[ngiven++] = argv[i];
		}
	}
	if ((v = global_value(prev)) >= 0 && ngiven == 0) {
		if (v == 1)
			printf("@file\n");
		return LOOMCTL_EXIT_OK;
	}
	if (ngiven == 0) {
		if (cur[0] == '-')
			for (int i = 0; globals[i]; i++)
				put(globals[i], cur);
		else
			put_words(w, words_next(0, NULL, w, WORDS_MAX), cur);
		return LOOMCTL_EXIT_OK;
	}
	if (ngiven == 1 && nsub && nw == cmd_at + 1) {
		if (cur[0] == '-')
			put_options(1, given, cur);
		else
			put_words(w, words_next(1, given, w, WORDS_MAX), cur);
		return LOOMCTL_EXIT_OK;
	}
	if (!strncmp(prev, "--", 2) && nw > cmd_at + 1) {
		v = words_option_value(ngiven, given, prev, choices, sizeof(choices));
		if (v == 1) {
			printf("@file\n");
			return LOOMCTL_EXIT_OK;
		}
		if (v == 2) {
			for (char *save = NULL, *c = strtok_r(choices, "|", &save); c;
			     c = strtok_r(NULL, "|", &save))
				put(c, cur);
			return LOOMCTL_EXIT_OK;
		}
		if (v == 0)   /* a free value: nothing to offer */
			return LOOMCTL_EXIT_OK;
	}
	if (cur[0] == '-')
		put_options(ngiven, given, cur);
	else if (words_takes_node(ngiven, given))
		put_nodes(&lc, cur);
	return LOOMCTL_EXIT_OK;
}
