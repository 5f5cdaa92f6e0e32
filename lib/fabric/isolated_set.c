/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/isolated_set.c: the isolated set's file, parsed and written, and
 * its links removed from a fabric graph (see isolated_set.h). The parser is
 * strict: a line it cannot read is an error naming it, never skipped, since
 * the plugin would otherwise route over a link loomd meant to keep out. */
#include "autoconf.h"
#include "lib/fabric/isolated_set.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"

#define ISO_HEADER "# loom: links taken out of the routes (written by loomd, read by " \
		   "libloomosm at each routing run)\n"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next whitespace-separated word of [*p, end): its start and length,
 * 0 when none is left. */
static size_t next_word(const char **p, const char *end, const char **w)
{
	const char *s = *p;

	while (s < end && is_space(*s))
		s++;
	*w = s;
	while (s < end && !is_space(*s))
		s++;
	*p = s;
	return (size_t)(s - *w);
}

/* An unsigned decimal of base 10 or (hex = 1) hex digits, all of the word,
 * no more than `max`. 0, or -ERANGE (too big), -EINVAL (not a number). */
static int word_number(const char *w, size_t n, int hex, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = hex ? 16 : 10;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = w[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (hex && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > (max - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static int word_is(const char *w, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(w, s, n) == 0;
}

/* One line without its comment: nothing, "version N" or "GUID PORT". */
static int parse_line(const char *p, const char *end, struct iso_set *out, size_t *cap,
		      int *had_version, char *why, size_t whylen)
{
	const char *w, *w2;
	size_t n = next_word(&p, end, &w), n2;
	uint64_t guid, port;
	int rc;

	if (n == 0)
		return 0;
	if (word_is(w, n, "version")) {
		if (*had_version) {
			snprintf(why, whylen, "version given twice");
			return -EINVAL;
		}
		n2 = next_word(&p, end, &w2);
		rc = word_number(w2, n2, 0, UINT64_MAX, &out->version);
		if (rc < 0) {
			snprintf(why, whylen, n2 ? "version \"%.*s\" is not an unsigned 64-bit number"
				 : "version without a number", (int)(n2 > 24 ? 24 : n2), w2);
			return -EINVAL;
		}
		if ((n2 = next_word(&p, end, &w2))) {
			snprintf(why, whylen, "\"%.*s\" after the version", (int)(n2 > 24 ? 24 : n2),
				 w2);
			return -EINVAL;
		}
		*had_version = 1;
		return 0;
	}
	if (n < 3 || w[0] != '0' || (w[1] != 'x' && w[1] != 'X') ||
	    word_number(w + 2, n - 2, 1, UINT64_MAX, &guid) < 0) {
		snprintf(why, whylen, "\"%.*s\" is neither \"version N\" nor a node GUID "
			 "(hex with 0x)", (int)(n > 24 ? 24 : n), w);
		return -EINVAL;
	}
	if (guid == 0) {
		snprintf(why, whylen, "node GUID 0");
		return -EINVAL;
	}
	n2 = next_word(&p, end, &w2);
	if (n2 == 0) {
		snprintf(why, whylen, "no port number after the GUID");
		return -EINVAL;
	}
	rc = word_number(w2, n2, 0, UINT64_MAX, &port);
	if (rc == -EINVAL) {
		snprintf(why, whylen, "port \"%.*s\" is not a number", (int)(n2 > 24 ? 24 : n2), w2);
		return -EINVAL;
	}
	if (rc < 0 || port < 1 || port > 254) {
		snprintf(why, whylen, "port %.*s out of range (1..254)", (int)(n2 > 24 ? 24 : n2),
			 w2);
		return -EINVAL;
	}
	if ((n = next_word(&p, end, &w))) {
		snprintf(why, whylen, "\"%.*s\" after the port (a comment starts with #)",
			 (int)(n > 24 ? 24 : n), w);
		return -EINVAL;
	}
	if (out->n == ISO_SET_MAX) {
		snprintf(why, whylen, "more than %d entries", ISO_SET_MAX);
		return -EINVAL;
	}
	if (out->n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct iso_port *v = realloc(out->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		out->v = v;
		*cap = c;
	}
	out->v[out->n++] = (struct iso_port){ guid, (uint8_t)port };
	return 0;
}

int iso_set_parse(const char *text, size_t len, struct iso_set *out, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	size_t cap = 0;
	unsigned long line = 0;
	int had_version = 0, rc = 0;
	char why[160];

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop, *hash, *nul;

		line++;
		if (!eol)
			eol = end;
		if ((nul = memchr(p, '\0', (size_t)(eol - p)))) {
			snprintf(why, sizeof(why), "a NUL byte");
			rc = -EINVAL;
		} else {
			hash = memchr(p, '#', (size_t)(eol - p));
			stop = hash ? hash : eol;
			rc = parse_line(p, stop, out, &cap, &had_version, why, sizeof(why));
		}
		if (rc < 0) {
			if (rc == -ENOMEM)
				snprintf(err, errlen, "out of memory");
			else
				snprintf(err, errlen, "line %lu: %s", line, why);
			iso_set_free(out);
			return rc;
		}
		p = eol + 1;
	}
	iso_set_sort(out);
	return 0;
}

/* The comment, on one line and without '#' (which would not matter) or
 * control characters (which would). */
static void put_comment(char *dst, const char *c)
{
	size_t n = 0;

	for (; *c; c++)
		dst[n++] = (*c == '#' || (unsigned char)*c < ' ' || *c == 0x7f) ? ' ' : *c;
	dst[n] = '\0';
}

char *iso_set_format(const struct iso_set *s, const char *const *comments)
{
	size_t cap = sizeof(ISO_HEADER) + 40, len;
	char *buf, *q;

	for (size_t i = 0; i < s->n; i++)
		cap += 24 + (comments && comments[i] ? strlen(comments[i]) + 3 : 0);
	if (!(buf = malloc(cap)))
		return NULL;
	len = (size_t)snprintf(buf, cap, "%sversion %" PRIu64 "\n", ISO_HEADER, s->version);
	for (size_t i = 0; i < s->n; i++) {
		q = buf + len;
		len += (size_t)snprintf(q, cap - len, "0x%016" PRIx64 " %u", s->v[i].guid,
					(unsigned)s->v[i].port);
		if (comments && comments[i] && comments[i][0]) {
			memcpy(buf + len, " # ", 3);
			len += 3;
			put_comment(buf + len, comments[i]);
			len += strlen(buf + len);
		}
		buf[len++] = '\n';
		buf[len] = '\0';
	}
	return buf;
}

static int cmp_port(const void *a, const void *b)
{
	const struct iso_port *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

void iso_set_sort(struct iso_set *s)
{
	size_t k = 0;

	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_port);
	for (size_t i = 1; i < s->n; i++)
		if (cmp_port(&s->v[k], &s->v[i]) != 0)
			s->v[++k] = s->v[i];
	s->n = k + 1;
}

int iso_set_has(const struct iso_set *s, uint64_t guid, uint8_t port)
{
	struct iso_port key = { guid, port };

	return s->n && bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_port) != NULL;
}

void iso_set_free(struct iso_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

size_t iso_set_apply(const struct iso_set *s, struct fab *fab)
{
	size_t removed = 0;

	if (!s->n)
		return 0;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct fab_node *node = fab->nodes[i];

		for (unsigned p = 1; p <= node->nports; p++) {
			const struct fab_port *port = &node->ports[p];
			const struct fab_node *peer;

			if (!port->present || !port->has_peer)
				continue;
			/* This end named, or the other (whose node comes later or
			 * came before: either way the link goes once). */
			if (!iso_set_has(s, node->guid, (uint8_t)p) &&
			    !(fab_peer(fab, port, &peer) && iso_set_has(s, peer->guid, port->peer_port)))
				continue;
			if (fab_unlink(fab, node->guid, p) == 0)
				removed++;
		}
	}
	return removed;
}
