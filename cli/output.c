/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/output.c: how loomctl prints: aligned tables (all rows are collected
 * first, so each column is as wide as its widest cell), "key: value" blocks,
 * JSON, and its errors (the dispatch in loomctl.c, the transports client.c
 * and local.c and every command report through these, so no transport
 * calls back into the dispatch). Under --json the first error is a JSON
 * object on stdout instead, {"error": {"code", "message"}}, the shape of
 * loomd's own errors; the exit status is the same. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct output_table {
	int failed;          /* a row could not be stored: flush reports it */
	int ncols;
	size_t nrows, cap;
	char **cells;        /* nrows * ncols, row-major; row 0 is the header */
};

/* Columns are measured in characters, not bytes: a node description may be
 * UTF-8, and counting its continuation bytes would misalign the columns. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void table_free(struct output_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

struct output_table *output_table_new(int ncols, const char *const *headers)
{
	struct output_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols;
	if (output_table_add(t, headers) < 0) {
		table_free(t);
		return NULL;
	}
	return t;
}


int output_table_add(struct output_table *t, const char *const *cells)
{
	size_t base;

	if (!t)
		return -ENOMEM;
	base = t->nrows * (size_t)t->ncols;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, cap * (size_t)t->ncols * sizeof(*c));

		if (!c) {
			t->failed = 1;
			return -ENOMEM;
		}
		t->cells = c;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++) {
		const char *v = cells[i] && cells[i][0] ? cells[i] : "-";
		char *copy = strdup(v);

		if (!copy) {
			while (i-- > 0)
				free(t->cells[base + (size_t)i]);
			t->failed = 1;
			return -ENOMEM;
		}
		/* A tab or newline in a node description would break the
		 * table's lines; the JSON output keeps the original. */
		for (char *c = copy; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		t->cells[base + (size_t)i] = copy;
	}
	t->nrows++;
	return 0;
}

static int table_print(const struct output_table *t, FILE *out)
{
	size_t *width = calloc((size_t)t->ncols, sizeof(*width));

	if (!width)
		return -ENOMEM;
	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t w = text_width(t->cells[r * (size_t)t->ncols + (size_t)c]);

			if (w > width[c])
				width[c] = w;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * (size_t)t->ncols + (size_t)c];

			fputs(v, out);
			/* No padding after the last column: it is free text
			 * (descriptions) and trailing blanks only get in the way. */
			if (c < t->ncols - 1)
				fprintf(out, "%*s", (int)(width[c] - text_width(v) + 2), "");
		}
		fputc('\n', out);
	}
	free(width);
	return 0;
}

int output_table_flush(struct output_table *t, FILE *out)
{
	/* A table with a row missing would be a lie: print nothing then. */
	int rc = !t || t->failed ? -ENOMEM : table_print(t, out);

	table_free(t);
	return rc;
}

int output_json(const json_t *v, FILE *out)
{
	/* ENCODE_ANY: a result may be a bare array (nodes, links, ...). */
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);

	if (!s)
		return -ENOMEM;
	fputs(s, out);
	fputc('\n', out);
	free(s);
	return 0;
}

void output_keyvals(FILE *out, const char *const *pairs, int n)
{
	size_t w = 0;

	for (int i = 0; i < n; i++)
		if (text_width(pairs[2 * i]) > w)
			w = text_width(pairs[2 * i]);
	for (int i = 0; i < n; i++) {
		const char *v = pairs[2 * i + 1];

		fprintf(out, "%s:%*s%s\n", pairs[2 * i], (int)(w - text_width(pairs[2 * i]) + 2), "",
			v && *v ? v : "-");
	}
}

const char *output_str(const json_t *obj, const char *key)
{
	const char *v = json_string_value(json_object_get(obj, key));

	return v ? v : "";
}

const char *output_count(const json_t *obj, const char *key, const char *none, char *buf,
			 size_t len)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		return none;
	snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	return buf;
}

long long output_int(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* ---- errors ---------------------------------------------------------------- */

/* --json: errors as one JSON object on stdout (loomctl(8) "ERRORS AS JSON"):
 * the first error of the run; any later one stays text on stderr. */
static int errors_json;
static int error_said;
/* the arguments the command's getopt read (for a usage error it reported
 * silently under --json, opterr 0) */
static int hint_argc;
static char **hint_argv;

void output_errors_json(int on)
{
	errors_json = on;
}

void output_errors_argv(int argc, char **argv)
{
	hint_argc = argc;
	hint_argv = argv;
}

/* One error: JSON {"error":{"code","message"}} on stdout under --json (the
 * first one), else "loomctl: [CODE: ]MESSAGE" on stderr. */
static void error_v(const char *prog, const char *code, int code_in_text, const char *fmt,
		    va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errors_json && !error_said++) {
		json_t *e = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);

		/* a message that is not UTF-8 (a node name typed so): as text */
		if (e && output_json(e, stdout) == 0) {
			json_decref(e);
			fflush(stdout);
			return;
		}
		json_decref(e);
	}
	if (code_in_text)
		fprintf(stderr, "%s: %s: %s\n", prog, code, msg);
	else
		fprintf(stderr, "%s: %s\n", prog, msg);
}

void loomctl_error(const struct loomctl *lc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_v(lc->prog, LOOMCTL_ERR_FAILED, 0, fmt, ap);
	va_end(ap);
}

void loomctl_error_code(const struct loomctl *lc, const char *code, int code_in_text,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_v(lc->prog, code, code_in_text, fmt, ap);
	va_end(ap);
}

int loomctl_usage_error(const struct loomctl *lc, const char *cmd, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	loomctl_error_code(lc, LOOMCTL_ERR_USAGE, 0, "%s%s%s", cmd ? cmd : "", cmd ? ": " : "",
			   msg);
	if (!errors_json)
		fprintf(stderr, "(loomctl --help lists the commands and their arguments)\n");
	return LOOMCTL_EXIT_USAGE;
}

/* The first "--x" of the command's arguments that none of its synopses
 * (words.c) lists, and the nearest that one does, if near: 1 when found. */
static int bad_option(char *bad, size_t len, char *near, size_t nearlen)
{
	const char *nearest;
	char w[WORDS_MAX][WORDS_LEN], *given[2];
	int n = 0, count;
	const char *cmd;

	near[0] = '\0';
	if (!hint_argv || hint_argc < 1 || !(cmd = strchr(hint_argv[0], ' ')))
		return 0;
	given[n++] = (char *)cmd + 1;
	count = words_next(1, given, w, WORDS_MAX);
	for (int i = 0; hint_argc > 1 && i < count; i++)
		if (!strcmp(w[i], hint_argv[1]))
			given[n++] = hint_argv[1];
	count = words_options(n, given, w, WORDS_MAX);
	for (int i = 1; i < hint_argc; i++) {
		const char *a = hint_argv[i];
		int known = !strncmp(a, "--help", 7) || !strcmp(a, "--");

		if (strncmp(a, "--", 2) || known)
			continue;
		snprintf(bad, len, "%.*s", (int)strcspn(a, "="), a);
		for (int k = 0; k < count && !known; k++)
			known = !strcmp(w[k], bad);
		if (known)
			continue;
		if ((nearest = words_nearest(bad, w, count)))
			snprintf(near, nearlen, "%s", nearest);
		return 1;
	}
	return 0;
}

int loomctl_usage_hint(void)
{
	const struct loomctl quiet = { .prog = "loomctl" };
	/* "loomctl nodes": the command, for messages */
	const char *cmd = hint_argv && strchr(hint_argv[0], ' ') ? strchr(hint_argv[0], ' ') + 1 :
			  NULL;
	char bad[WORDS_LEN + 8], near[WORDS_LEN];
	int found = bad_option(bad, sizeof(bad), near, sizeof(near));

	/* getopt has said what is wrong on stderr, unless --json made it
	 * quiet: then say it here, as well as getopt's variables tell. */
	if (errors_json) {
		if (found)
			return loomctl_usage_error(&quiet, cmd, "unknown option \"%s\"%s%s%s", bad,
						   *near ? "; did you mean \"" : "", near,
						   *near ? "\"?" : "");
		if (optopt && optopt != '?' && optopt < 0x80)
			return loomctl_usage_error(&quiet, cmd, "option -%c: unknown, or its value "
						   "is missing", optopt);
		return loomctl_usage_error(&quiet, cmd, "an option is unknown, or its value is "
					   "missing");
	}
	if (found && *near)
		fprintf(stderr, "loomctl%s%s: did you mean \"%s\"?\n", cmd ? " " : "", cmd ? cmd : "",
			near);
	fprintf(stderr, "(loomctl --help lists the commands and their arguments)\n");
	return LOOMCTL_EXIT_USAGE;
}

void output_words(const json_t *arr, long long total, char *buf, size_t len)
{
	const json_t *v;
	size_t i, at = 0;

	buf[0] = '\0';
	json_array_foreach(arr, i, v) {
		int w = snprintf(buf + at, len - at, "%s%s", at ? " " : "", json_string_value(v));

		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	if (total > (long long)json_array_size(arr) && at < len)
		snprintf(buf + at, len - at, " +%lld more", total - (long long)json_array_size(arr));
	if (!buf[0])
		snprintf(buf, len, "-");
}

void output_counts(const json_t *obj, char *buf, size_t len)
{
	const json_t *v;
	const char *name;
	size_t at = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)obj, name, v) {
		int w = snprintf(buf + at, len - at, "%s%s=%lld", at ? " " : "", name,
				 (long long)json_integer_value(v));

		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

const char *output_name(const json_t *obj, const char *name_key, const char *desc_key)
{
	const char *name = json_string_value(json_object_get(obj, name_key));

	return name && name[0] ? name : output_str(obj, desc_key);
}
