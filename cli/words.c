/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/words.c: the words of loomctl's command lines as the one list of
 * commands declares them (lib/util/commands.c's synopses): the command
 * words and sub-words, each command's options and what they take, and the
 * nearest word to a mistyped one. The dispatch (a typo's suggestion) and
 * `loomctl __complete` (bash completion) read them here, so the table stays
 * the one source. */
#include "autoconf.h"
#include "loomctl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/commands.h"

#define TOKENS_MAX 48

/* A synopsis split at blanks and newlines: how many tokens (pointers into
 * buf). */
static int tokens(const char *usage, char *buf, size_t len, char **tok)
{
	int n = 0;

	snprintf(buf, len, "%s", usage);
	for (char *save = NULL, *t = strtok_r(buf, " \n", &save); t && n < TOKENS_MAX;
	     t = strtok_r(NULL, " \n", &save))
		tok[n++] = t;
	return n;
}

/* Does the entry's synopsis start with the n given words? Its tokens then. */
static int matches(const struct cmds_decl *d, int n, char **given, char *buf, size_t len,
		   char **tok, int *ntok)
{
	*ntok = tokens(d->usage, buf, len, tok);
	if (*ntok < n)
		return 0;
	for (int i = 0; i < n; i++)
		if (strcmp(tok[i], given[i]))
			return 0;
	return 1;
}

static int plain(const char *w)
{
	if (!islower((unsigned char)*w))
		return 0;
	for (; *w; w++)
		if (!islower((unsigned char)*w) && *w != '-')
			return 0;
	return 1;
}

/* Append w (its first wlen bytes) to out unless there: the new count. */
static int add(char out[][WORDS_LEN], int count, int max, const char *w, size_t wlen)
{
	if (wlen >= WORDS_LEN || count >= max)
		return count;
	for (int i = 0; i < count; i++)
		if (strlen(out[i]) == wlen && !strncmp(out[i], w, wlen))
			return count;
	memcpy(out[count], w, wlen);
	out[count][wlen] = '\0';
	return count + 1;
}

int words_next(int n, char **given, char out[][WORDS_LEN], int max)
{
	char buf[1024], *tok[TOKENS_MAX];
	int count = 0, ntok;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++)
		if (matches(d, n, given, buf, sizeof(buf), tok, &ntok) && ntok > n &&
		    plain(tok[n]))
			count = add(out, count, max, tok[n], strlen(tok[n]));
	return count;
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of two neighbours count one each ("nodse" is 1 from "nodes"). */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int d[WORDS_LEN + 1][WORDS_LEN + 1];

	if (la > WORDS_LEN || lb > WORDS_LEN)
		return WORDS_LEN;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *words_nearest(const char *w, char cand[][WORDS_LEN], int ncand)
{
	/* a typo, not another word: one edit in a short word, two in a longer */
	int limit = strlen(w) <= 4 ? 1 : 2, best = limit + 1;
	const char *near = NULL;

	for (int i = 0; i < ncand; i++) {
		int dist = distance(w, cand[i]);

		if (dist < best) {
			best = dist;
			near = cand[i];
		}
	}
	return near;
}

/* Where option opt (--x) is in token t: its end, or NULL. */
static const char *find_option(const char *t, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = strstr(t, opt); p; p = strstr(p + 1, opt))
		if ((p == t || p[-1] == '[' || p[-1] == '|') &&
		    !islower((unsigned char)p[len]) && p[len] != '-')
			return p + len;
	return NULL;
}

int words_options(int n, char **given, char out[][WORDS_LEN], int max)
{
	char buf[1024], *tok[TOKENS_MAX];
	int count = 0, ntok;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++) {
		if (!matches(d, n, given, buf, sizeof(buf), tok, &ntok))
			continue;
		for (int i = n; i < ntok; i++)
			for (const char *p = strstr(tok[i], "--"); p; p = strstr(p + 2, "--")) {
				size_t len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");

				if ((p == tok[i] || p[-1] == '[' || p[-1] == '|') && len > 2)
					count = add(out, count, max, p, len);
			}
	}
	return count;
}

int words_option_value(int n, char **given, const char *opt, char *choices, size_t len)
{
	char buf[1024], *tok[TOKENS_MAX];
	int ntok;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++) {
		if (!matches(d, n, given, buf, sizeof(buf), tok, &ntok))
			continue;
		for (int i = n; i < ntok; i++) {
			const char *end = find_option(tok[i], opt);
			char *v = i + 1 < ntok ? tok[i + 1] : "";

			if (!end)
				continue;
			if (*end || !*v) /* "[--now]", "[--since-reset|--delta]": no value */
				return -1;
			v += strspn(v, "[");
			v[strcspn(v, "]")] = '\0';
			if (*v == '-')
				return -1;
			if (strstr(v, "FILE") || strstr(v, "PATH") || strstr(v, "DUMP") ||
			    strstr(v, "PLAN"))
				return 1;
			if (strchr(v, '|') && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-|") ==
			    strlen(v)) {
				snprintf(choices, len, "%s", v);
				return 2;
			}
			return 0;
		}
	}
	return -1;
}

int words_takes_node(int n, char **given)
{
	char buf[1024], *tok[TOKENS_MAX];
	int ntok;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++) {
		int value = 0;   /* the token is an option's value */

		if (!matches(d, n, given, buf, sizeof(buf), tok, &ntok))
			continue;
		for (int i = n; i < ntok; i++) {
			const char *t = tok[i];
			const char *opt = NULL;

			if (!value && (strstr(t, "GUID") || strstr(t, "NODE") || strstr(t, "SRC") ||
				       strstr(t, "DST")))
				return 1;
			/* the next token is a value when this one ends with an option */
			for (const char *p = strstr(t, "--"); p; p = strstr(p + 2, "--"))
				opt = p;
			value = opt && opt[2 + strspn(opt + 2, "abcdefghijklmnopqrstuvwxyz-")] == '\0';
		}
	}
	return 0;
}
