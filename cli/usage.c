/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/usage.c: loomctl's usage and help, printed from the one list of
 * commands (lib/util/commands.h): the global options, then every entry's
 * synopsis with its paragraph of help wrapped beside it; `loomctl help
 * WORDS` and `loomctl WORDS --help` only the entries whose synopsis starts
 * with those words. */
#include "autoconf.h"
#include "loomctl.h"

#include <stdio.h>
#include <string.h>

#include "lib/util/commands.h"

#define HELP_COL 33     /* where the help starts */
#define LINE_MAX_COLS 79

static const char options[] =
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
	"      --node-name-map F  name nodes by F (OpenSM's node-name-map format)\n"
	"                       with --db and the offline commands; loomd names\n"
	"                       them by names.node_name_map\n"
	"      --json           print the result as JSON\n"
	"  -h, --help           this help\n"
	"  -V, --version        print the version\n"
	"commands:\n";

/* The help paragraph from column HELP_COL, wrapped; `col` is where the
 * line stands now. */
static void print_help(FILE *out, const char *help, int col)
{
	const char *p = help;

	while (*p) {
		size_t word = strcspn(p, " ");

		if (col > HELP_COL && col + 1 + (int)word > LINE_MAX_COLS) {
			fputc('\n', out);
			col = 0;
		}
		if (col < HELP_COL) {
			fprintf(out, "%*s", HELP_COL - col, "");
			col = HELP_COL;
		} else {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)word, p);
		col += (int)word;
		p += word;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

/* One entry: its synopsis lines, the help beside the last one (or below
 * it when that line is too long). */
static void print_entry(FILE *out, const struct cmds_decl *d)
{
	const char *line = d->usage;
	int col = 0;

	for (;;) {
		size_t n = strcspn(line, "\n");

		fprintf(out, "  %.*s", (int)n, line);
		col = 2 + (int)n;
		if (!line[n])
			break;
		fputc('\n', out);
		line += n + 1;
	}
	if (!*d->help) {
		fputc('\n', out);
		return;
	}
	if (col > HELP_COL - 2) {
		fputc('\n', out);
		col = 0;
	}
	print_help(out, d->help, col);
}

/* Does the synopsis start with the n words? */
static int starts_with(const char *usage, int n, char **words)
{
	const char *p = usage;

	for (int i = 0; i < n; i++) {
		size_t len = strlen(words[i]);

		if (strncmp(p, words[i], len) || (p[len] && p[len] != ' ' && p[len] != '\n'))
			return 0;
		p += len;
		p += strspn(p, " ");
	}
	return 1;
}

void usage_print(FILE *out)
{
	fputs(options, out);
	for (const struct cmds_decl *d = cmds_table(); d->name; d++)
		print_entry(out, d);
}

int usage_command(FILE *out, int n, char **words)
{
	int found = 0;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++)
		if (starts_with(d->usage, n, words)) {
			if (!found++)
				fputs("usage: loomctl [OPTIONS]\n", out);
			print_entry(out, d);
		}
	return found;
}
