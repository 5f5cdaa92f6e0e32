/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/nodename.c: see nodename.h. A map is a GUID-sorted array of
 * (guid, name) with one reference count; lookups are a binary search. */
#include "autoconf.h"
#include "lib/fabric/nodename.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/slurp.h"

struct nodename_ent {
	uint64_t guid;
	char *name;
	unsigned long line;        /* in the file (0: added) */
};

struct nodename_map {
	size_t n, cap;
	struct nodename_ent *v;
	int refs;                  /* atomically */
};

struct nodename_map *nodename_map_new(void)
{
	struct nodename_map *m = calloc(1, sizeof(*m));

	if (m)
		m->refs = 1;
	return m;
}

static int add_line(struct nodename_map *m, uint64_t guid, const char *name, size_t len,
		    unsigned long line)
{
	if (!len || len >= NODENAME_LEN)
		return -EINVAL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct nodename_ent *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	if (!(m->v[m->n].name = strndup(name, len)))
		return -ENOMEM;
	m->v[m->n].guid = guid;
	m->v[m->n].line = line;
	m->n++;
	return 0;
}

static int ent_cmp(const void *x, const void *y)
{
	const struct nodename_ent *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Sorted by GUID; the first pair of equal GUIDs in *dup (NULL: none). */
static void sort(struct nodename_map *m, const struct nodename_ent **dup)
{
	*dup = NULL;
	if (m->n > 1)
		qsort(m->v, m->n, sizeof(*m->v), ent_cmp);
	for (size_t i = 1; i < m->n && !*dup; i++)
		if (m->v[i].guid == m->v[i - 1].guid)
			*dup = &m->v[i];
}

int nodename_map_add(struct nodename_map *m, uint64_t guid, const char *name)
{
	return add_line(m, guid, name, strlen(name), m->n + 1);
}

void nodename_map_seal(struct nodename_map *m)
{
	const struct nodename_ent *dup;
	size_t k = 0;

	sort(m, &dup);
	for (size_t i = 0; i < m->n; i++)
		if (k && m->v[k - 1].guid == m->v[i].guid)
			free(m->v[i].name);       /* the later line of a GUID */
		else
			m->v[k++] = m->v[i];
	m->n = k;
}

/* One line (NUL-terminated, no newline): 0 (a name added, or a blank or
 * comment line), or -EINVAL with *why. */
static int parse_line(struct nodename_map *m, char *p, unsigned long line, const char **why)
{
	unsigned long long guid;
	char *e, *name;
	size_t len;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	errno = 0;
	if (*p == '-' || *p == '+' || (guid = strtoull(p, &e, 0), e == p) || errno ||
	    (*e && !isspace((unsigned char)*e) && *e != '#')) {
		*why = "expected a node GUID (0x and hex digits) then its name";
		return -EINVAL;
	}
	p = e;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '"') {
		name = ++p;
		if (!(e = strchr(p, '"'))) {
			*why = "the name's quote is not closed";
			return -EINVAL;
		}
		len = (size_t)(e - name);
		for (p = e + 1; isspace((unsigned char)*p); p++)
			;
		if (*p && *p != '#') {
			*why = "text after the quoted name (a comment starts with #)";
			return -EINVAL;
		}
	} else {
		name = p;
		len = strcspn(p, "#");
		while (len && isspace((unsigned char)name[len - 1]))
			len--;
	}
	if (!len) {
		*why = "a GUID without a name";
		return -EINVAL;
	}
	if (len >= NODENAME_LEN) {
		*why = "a name is at most 255 bytes";
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)name[i])) {
			*why = "a control character in the name";
			return -EINVAL;
		}
	if (add_line(m, guid, name, len, line) < 0) {
		*why = "out of memory";
		return -ENOMEM;
	}
	return 0;
}

int nodename_map_parse(const char *text, size_t len, const char *source,
		       struct nodename_map **out, char *err, size_t errlen)
{
	struct nodename_map *m = nodename_map_new();
	const struct nodename_ent *dup;
	const char *p = text, *end = text + len;
	unsigned long line = 0;
	char buf[1024];

	*out = NULL;
	if (!m) {
		snprintf(err, errlen, "%s: out of memory", source);
		return -ENOMEM;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *why = NULL;
		int rc;

		line++;
		if (n >= sizeof(buf) || memchr(p, '\0', n)) {
			why = n >= sizeof(buf) ? "a line is at most 1023 bytes" : "a NUL byte";
			rc = -EINVAL;
		} else {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (n && buf[n - 1] == '\r')
				buf[n - 1] = '\0';
			rc = parse_line(m, buf, line, &why);
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s:%lu: %s", source, line, why);
			nodename_map_free(m);
			return rc;
		}
		p = nl ? nl + 1 : end;
	}
	sort(m, &dup);
	if (dup) {
		snprintf(err, errlen, "%s:%lu: GUID 0x%016llx is named already on line %lu",
			 source, dup->line, (unsigned long long)dup->guid, dup[-1].line);
		nodename_map_free(m);
		return -EINVAL;
	}
	*out = m;
	return 0;
}

int nodename_map_read(const char *path, struct nodename_map **out, char *err, size_t errlen)
{
	size_t len;
	char *text = slurp_file(path, &len, err, errlen);
	int rc;

	*out = NULL;
	if (!text)
		return errno ? -errno : -EIO;
	rc = nodename_map_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}

struct nodename_map *nodename_map_hold(struct nodename_map *m)
{
	if (m)
		__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void nodename_map_free(struct nodename_map *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}

size_t nodename_map_count(const struct nodename_map *m)
{
	return m ? m->n : 0;
}

void nodename_map_entry(const struct nodename_map *m, size_t i, uint64_t *guid,
			const char **name)
{
	*guid = m->v[i].guid;
	*name = m->v[i].name;
}

const char *nodename_get(const struct nodename_map *m, uint64_t guid)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].guid == guid)
			return m->v[mid].name;
		if (m->v[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *nodename_of(const struct nodename_map *m, uint64_t guid, const char *desc)
{
	const char *name = nodename_get(m, guid);

	return name ? name : desc;
}
