/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/hostlist.c: see hostlist.h. */
#include "autoconf.h"
#include "lib/util/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/log.h"


static int add(struct hostlist *hl, const char *name, char *err, size_t errlen)
{
	char **grown;

	if (hl->n >= HOSTLIST_MAX)
		return err_fmt(err, errlen, -E2BIG, "more than %d hosts", HOSTLIST_MAX);
	if (!(hl->n & (hl->n + 1)) || hl->n == 0) {
		/* Grow at 0, 1, 3, 7, ...: doubling. */
		grown = realloc(hl->names, (2 * hl->n + 2) * sizeof(*grown));
		if (!grown)
			return err_fmt(err, errlen, -ENOMEM, "out of memory");
		hl->names = grown;
	}
	if (!(hl->names[hl->n] = strdup(name)))
		return err_fmt(err, errlen, -ENOMEM, "out of memory");
	hl->n++;
	return 0;
}

/* A number of at most 9 digits at *s; its digit count in *width. */
static int number(const char **s, unsigned long *v, int *width)
{
	const char *p = *s;

	while (isdigit((unsigned char)*p) && p - *s < 10)
		p++;
	if (p == *s || p - *s > 9)
		return -1;
	*v = strtoul(*s, NULL, 10);
	*width = (int)(p - *s);
	*s = p;
	return 0;
}

/* Expand `tok` (one name, maybe with brackets) after `prefix`. */
static int expand(struct hostlist *hl, const char *prefix, const char *tok, const char *whole,
		  char *err, size_t errlen)
{
	const char *open = strchr(tok, '['), *close, *p;
	char name[HOSTLIST_NAME_MAX + 2];
	int rc;

	if (!open) {
		if (strchr(tok, ']'))
			return err_fmt(err, errlen, -EINVAL, "\"%s\": ']' without '['", whole);
		if (snprintf(name, sizeof(name), "%s%s", prefix, tok) > HOSTLIST_NAME_MAX)
			return err_fmt(err, errlen, -EINVAL, "\"%s\": a name longer than %d bytes",
				    whole, HOSTLIST_NAME_MAX);
		return add(hl, name, err, errlen);
	}
	if (!(close = strchr(open, ']')) || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return err_fmt(err, errlen, -EINVAL, "\"%s\": '[' without its ']'", whole);
	if (strchr(tok, ']') < open)
		return err_fmt(err, errlen, -EINVAL, "\"%s\": ']' without '['", whole);
	for (p = open + 1; p < close;) {
		unsigned long lo, hi;
		int w, w2;

		if (number(&p, &lo, &w) < 0)
			return err_fmt(err, errlen, -EINVAL, "\"%s\": expected a number in [...]",
				    whole);
		hi = lo;
		if (*p == '-') {
			p++;
			if (number(&p, &hi, &w2) < 0 || hi < lo)
				return err_fmt(err, errlen, -EINVAL, "\"%s\": a range must be LOW-HIGH "
					    "with LOW <= HIGH", whole);
		}
		if (p < close && *p++ != ',')
			return err_fmt(err, errlen, -EINVAL, "\"%s\": expected ',' or ']' in [...]",
				    whole);
		if (p == close && p[-1] == ',')
			return err_fmt(err, errlen, -EINVAL, "\"%s\": empty entry in [...]", whole);
		if (hi - lo >= HOSTLIST_MAX)
			return err_fmt(err, errlen, -E2BIG, "\"%s\": more than %d hosts", whole,
				    HOSTLIST_MAX);
		for (unsigned long v = lo; v <= hi; v++) {
			char next[HOSTLIST_NAME_MAX + 2];

			if (snprintf(next, sizeof(next), "%s%.*s%0*lu", prefix, (int)(open - tok),
				     tok, w, v) > HOSTLIST_NAME_MAX)
				return err_fmt(err, errlen, -EINVAL, "\"%s\": a name longer than %d "
					    "bytes", whole, HOSTLIST_NAME_MAX);
			if ((rc = expand(hl, next, close + 1, whole, err, errlen)) < 0)
				return rc;
		}
	}
	if (open + 1 == close)
		return err_fmt(err, errlen, -EINVAL, "\"%s\": empty []", whole);
	return 0;
}

struct ranked {
	const char *name;
	size_t at;
};

static int by_name(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Drop the repeats of a name, keeping its first place. */
static int dedupe(struct hostlist *hl, char *err, size_t errlen)
{
	struct ranked *r = malloc((hl->n ? hl->n : 1) * sizeof(*r));
	size_t kept = 0;

	if (!r)
		return err_fmt(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < hl->n; i++)
		r[i] = (struct ranked){ hl->names[i], i };
	qsort(r, hl->n, sizeof(*r), by_name);
	/* Compared with the first of its run (k), which is kept: the one just
	 * before may have been freed already (a name listed three times). */
	for (size_t i = 1, k = 0; i < hl->n; i++)
		if (!strcmp(r[i].name, r[k].name)) {
			free(hl->names[r[i].at]);
			hl->names[r[i].at] = NULL;
		} else {
			k = i;
		}
	free(r);
	for (size_t i = 0; i < hl->n; i++)
		if (hl->names[i])
			hl->names[kept++] = hl->names[i];
	hl->n = kept;
	return 0;
}

int hostlist_expand(const char *list, struct hostlist *hl, char *err, size_t errlen)
{
	const char *p = list;
	int rc = 0;

	hl->names = NULL;
	hl->n = 0;
	while (rc == 0 && *p) {
		/* One name: up to a comma outside brackets. */
		const char *q = p;
		int depth = 0;
		char *tok;

		for (; *q && (*q != ',' || depth); q++) {
			if (*q == '[')
				depth++;
			else if (*q == ']')
				depth--;
			if (isspace((unsigned char)*q) || *q == '"' || *q == '\'' || depth < 0 ||
			    depth > 1)
				break;
		}
		if (*q && *q != ',')
			rc = err_fmt(err, errlen, -EINVAL, "\"%.*s\": '%c' is not allowed in a host "
				  "list", (int)(q - p + 1), p, *q);
		else if (q == p)
			rc = err_fmt(err, errlen, -EINVAL, "\"%s\": empty name", list);
		else if (!(tok = strndup(p, (size_t)(q - p))))
			rc = err_fmt(err, errlen, -ENOMEM, "out of memory");
		else {
			rc = expand(hl, "", tok, tok, err, errlen);
			free(tok);
		}
		p = *q ? q + 1 : q;
		if (rc == 0 && q[0] == ',' && !q[1])
			rc = err_fmt(err, errlen, -EINVAL, "\"%s\": ends with ','", list);
	}
	if (rc == 0 && hl->n == 0)
		rc = err_fmt(err, errlen, -EINVAL, "empty host list");
	if (rc == 0)
		rc = dedupe(hl, err, errlen);
	if (rc < 0)
		hostlist_clear(hl);
	return rc;
}

void hostlist_clear(struct hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->names[i]);
	free(hl->names);
	hl->names = NULL;
	hl->n = 0;
}

/* ---- compression ---------------------------------------------------------------------- */

/* One name cut before its trailing number: prefix length, the number, and
 * its digits (0 when the name has no trailing number of 1..9 digits). */
struct cut {
	const char *name;
	size_t plen;
	unsigned long v;
	int digits;
};

static int by_cut(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	size_t l = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->name, y->name, l);

	if (c)
		return c;
	if (x->plen != y->plen)
		return (x->plen > y->plen) - (x->plen < y->plen);
	if (x->digits != y->digits && (!x->digits || !y->digits))
		return x->digits - y->digits;   /* the bare prefix first */
	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return x->digits - y->digits;
}

static int same_prefix(const struct cut *x, const struct cut *y)
{
	return x->plen == y->plen && x->digits && y->digits &&
	       !memcmp(x->name, y->name, x->plen);
}

/* The name of number v written at a range's width `w` is y's own. */
static int continues(const struct cut *y, unsigned long v, int w)
{
	char buf[16];

	return y->v == v && snprintf(buf, sizeof(buf), "%0*lu", w, v) == y->digits;
}

char *hostlist_compress(char *const *names, size_t n)
{
	struct cut *c;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!n || !(c = malloc(n * sizeof(*c))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]), d = 0;

		while (d < l && isdigit((unsigned char)names[i][l - 1 - d]))
			d++;
		c[i] = (struct cut){ names[i], l, 0, 0 };
		if (d >= 1 && d <= 9 && d < l) {
			c[i].plen = l - d;
			c[i].digits = (int)d;
			c[i].v = strtoul(names[i] + l - d, NULL, 10);
		}
	}
	qsort(c, n, sizeof(*c), by_cut);
	if (!(f = open_memstream(&out, &len))) {
		free(c);
		return NULL;
	}
	for (size_t i = 0, first = 1; i < n;) {
		size_t j = i + 1;

		/* a name listed twice is one name */
		if (!first && !strcmp(c[i].name, c[i - 1].name)) {
			i++;
			continue;
		}
		fputs(first ? "" : ",", f);
		first = 0;
		while (j < n && same_prefix(&c[i], &c[j]))
			j++;
		if (j == i + 1 || !c[i].digits) {
			fputs(c[i].name, f);
			i++;
			continue;
		}
		fprintf(f, "%.*s[", (int)c[i].plen, c[i].name);
		for (size_t k = i, firstr = 1; k < j;) {
			size_t e = k;

			while (e + 1 < j && !strcmp(c[e + 1].name, c[e].name))
				e++;   /* repeats */
			while (e + 1 < j && continues(&c[e + 1], c[e].v + 1, c[k].digits))
				e++;
			if (!firstr)
				fputc(',', f);
			firstr = 0;
			if (e == k)
				fprintf(f, "%0*lu", c[k].digits, c[k].v);
			else
				fprintf(f, "%0*lu-%0*lu", c[k].digits, c[k].v, c[k].digits, c[e].v);
			k = e + 1;
			while (k < j && !strcmp(c[k].name, c[e].name))
				k++;
		}
		fputc(']', f);
		i = j;
	}
	free(c);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
