/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config_yaml.c: the YAML walking helpers every section of
 * loom.yaml is written with (see config_parse.h): one-line errors with file,
 * line and key; scalars, integers in bounds, booleans; the typed keys of a
 * table (parse, print, default); strings printed so that they read back
 * byte for byte. */
#include "autoconf.h"
#include "daemon/core/config_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

static const char *const target_names[] = { "stderr", "syslog" };

/* Messages are one line: a key or value that contains a line break (it can,
 * quoted) must not split it. */
static void err_one_line(char *err)
{
	for (unsigned char *s = (unsigned char *)err; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Record "FILE:LINE: KEY: message" and return -EINVAL. `key` may be NULL
 * for problems that belong to no key (the top level). */
int cfg_fail(struct parse *p, unsigned long line, const char *key,
		      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return -EINVAL;
	n = key ? snprintf(p->err, p->errlen, "%s:%lu: %s: ", p->name, line, key)
		: snprintf(p->err, p->errlen, "%s:%lu: ", p->name, line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	err_one_line(p->err);
	return -EINVAL;
}

/* libyaml marks count lines from 0; people count from 1. */
unsigned long cfg_line(const yaml_node_t *n)
{
	return (unsigned long)n->start_mark.line + 1;
}

const char *cfg_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* YAML's spellings of "nothing": `key:` with no value, `~`, `null`. Only a
 * plain scalar can be null; a quoted "null" is the string. */
int cfg_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(cfg_scalar(n), nulls[i]) == 0)
			return 1;
	return 0;
}

/* "got ..." for type errors: the scalar itself helps find the mistake. */
const char *cfg_node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a sequence";
	default: return "a scalar";
	}
}

int cfg_expect(struct parse *p, const yaml_node_t *n, const char *key,
		       yaml_node_type_t want)
{
	const char *what = want == YAML_MAPPING_NODE ? "a mapping"
			 : want == YAML_SEQUENCE_NODE ? "a sequence" : "a scalar";

	if (n->type == want)
		return 0;
	if (n->type == YAML_SCALAR_NODE)
		return cfg_fail(p, cfg_line(n), key, "expected %s, got the scalar \"%.40s\"",
				  what, cfg_scalar(n));
	return cfg_fail(p, cfg_line(n), key, "expected %s, got %s", what, cfg_node_kind(n));
}

/* A mapping key must be a scalar: its text, or NULL with the error set. */
const char *cfg_key_text(struct parse *p, const yaml_node_t *k, const char *where)
{
	if (k->type != YAML_SCALAR_NODE) {
		cfg_fail(p, cfg_line(k), where, "keys must be scalars, got %s", cfg_node_kind(k));
		return NULL;
	}
	return cfg_scalar(k);
}

const char *cfg_member_key(struct parse *p, const yaml_node_t *map, const yaml_node_pair_t *pr,
			   const char *section, char *key, size_t keylen)
{
	const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
	const char *name = cfg_key_text(p, k, section);

	if (!name)
		return NULL;
	snprintf(key, keylen, "%s.%.40s", section, name);
	for (const yaml_node_pair_t *o = map->data.mapping.pairs.start; o < pr; o++) {
		const yaml_node_t *k2 = yaml_document_get_node(p->doc, o->key);

		if (k2->type == YAML_SCALAR_NODE && !strcmp(cfg_scalar(k2), name)) {
			cfg_fail(p, cfg_line(k), key, "duplicate key (first on line %lu)",
				 cfg_line(k2));
			return NULL;
		}
	}
	return name;
}

static int parse_string(struct parse *p, const yaml_node_t *v, const char *key,
			const struct cfg_key *d, char *dst)
{
	const char *s;
	size_t len;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	s = cfg_is_null(v) ? "" : cfg_scalar(v);
	len = cfg_is_null(v) ? 0 : v->data.scalar.length;
	/* Control characters (a quoted "\n", "\0", ...) have no business in a
	 * path or a name, and refusing them keeps config_print() simple. */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return cfg_fail(p, cfg_line(v), key, "contains a control character");
	if (len >= d->size)
		return cfg_fail(p, cfg_line(v), key, "longer than %zu bytes", d->size - 1);
	if ((d->kind == CFG_PATH || d->kind == CFG_SOCKET || (d->kind == CFG_OPT_PATH && s[0])) &&
	    s[0] != '/')
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an absolute path", s);
	if (d->kind == CFG_SOCKET) {
		struct sockaddr_un sa;

		/* Caught here, the mistake names its line; at bind() time it
		 * would only be "name too long". */
		if (len >= sizeof(sa.sun_path))
			return cfg_fail(p, cfg_line(v), key,
					  "longer than %zu bytes (the limit of a unix socket path)",
					  sizeof(sa.sun_path) - 1);
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

static void range_text(long long min, long long max, int zero_ok, char *buf, size_t len)
{
	if (zero_ok)
		snprintf(buf, len, "0 or %lld..%lld", min, max);
	else
		snprintf(buf, len, "%lld..%lld", min, max);
}

int cfg_bool(struct parse *p, const yaml_node_t *v, const char *key, int *dst)
{
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(cfg_scalar(v), "true")) {
			*dst = 1;
			return 0;
		}
		if (!strcmp(cfg_scalar(v), "false")) {
			*dst = 0;
			return 0;
		}
	}
	return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not true or false", cfg_scalar(v));
}

int cfg_int(struct parse *p, const yaml_node_t *v, const char *key, long long min,
	    long long max, int zero_ok, long long *dst)
{
	const char *s, *digits;
	char range[64];
	long long x;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	s = cfg_scalar(v);
	range_text(min, max, zero_ok, range, sizeof(range));
	if (v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cfg_fail(p, cfg_line(v), key,
				"expected an integer (%s), got the quoted string \"%.40s\"",
				range, s);
	/* Decimal digits only: strtoll() alone would take " 30", "+30", "30s"
	 * (with endptr) or "0x1e"; a leading zero reads as octal to YAML 1.1
	 * tools, so "010" is refused rather than guessed. */
	digits = s[0] == '-' ? s + 1 : s;
	if (!digits[0] || strspn(digits, "0123456789") != strlen(digits) ||
	    (digits[0] == '0' && digits[1]) || strlen(s) != v->data.scalar.length)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not a decimal integer (%s)",
				s, range);
	errno = 0;
	x = strtoll(s, NULL, 10);
	if (errno == ERANGE || !((x >= min && x <= max) || (zero_ok && x == 0)))
		return cfg_fail(p, cfg_line(v), key, "%.40s is out of range (%s)", s, range);
	*dst = x;
	return 0;
}

static int parse_int(struct parse *p, const yaml_node_t *v, const char *key,
		     const struct cfg_key *d, int *dst)
{
	long long x;
	int rc = cfg_int(p, v, key, d->min, d->max, d->zero_ok, &x);

	if (rc == 0)
		*dst = (int)x;
	return rc;
}

static int parse_enum(struct parse *p, const yaml_node_t *v, const char *key,
		      const struct cfg_key *d, void *dst)
{
	int rc, x = -1;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (d->kind == CFG_LEVEL) {
		x = log_level_from_name(cfg_scalar(v));
		if (x < 0)
			return cfg_fail(p, cfg_line(v), key,
					  "\"%.40s\" is not one of error, warning, notice, info, debug",
					  cfg_scalar(v));
		*(enum log_level *)dst = (enum log_level)x;
		return 0;
	}
	for (size_t i = 0; i < sizeof(target_names) / sizeof(target_names[0]); i++)
		if (strcmp(cfg_scalar(v), target_names[i]) == 0)
			x = (int)i;
	if (x < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not one of stderr, syslog",
				  cfg_scalar(v));
	*(enum log_target *)dst = (enum log_target)x;
	return 0;
}

/* One scalar-valued key into base + d->off. */
int cfg_parse_value(struct parse *p, const yaml_node_t *v, const char *key,
		    const struct cfg_key *d, void *base)
{
	char *dst = (char *)base + d->off;

	switch (d->kind) {
	case CFG_LEVEL:
	case CFG_TARGET:
		return parse_enum(p, v, key, d, dst);
	case CFG_PATH:
	case CFG_OPT_PATH:
	case CFG_SOCKET:
	case CFG_STRING:
		return parse_string(p, v, key, d, dst);
	case CFG_INT:
		return parse_int(p, v, key, d, (int *)(void *)dst);
	case CFG_BOOL:
		return cfg_bool(p, v, key, (int *)(void *)dst);
	case CFG_CUSTOM:
		return d->parse(p, v, key, base);
	}
	return -EINVAL; /* not reached */
}

/* Index of `name` in tab[0..n), or -1. */
int cfg_find_key(const struct cfg_key *tab, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Length of the UTF-8 sequence starting with byte b and its code point bits;
 * the input passed libyaml's UTF-8 check, so it is well formed. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
	uint32_t x = n == 1 ? s[0] : s[0] & (0x7f >> n);

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return *cp = s[0], 1; /* not UTF-8 after all: the byte alone */
		x = (x << 6) | (s[i] & 0x3f);
	}
	*cp = x;
	return n;
}

void cfg_print_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', out);
	while (*u) {
		uint32_t cp;
		size_t n = utf8_decode(u, &cp);

		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (int)cp);
		else if (cp >= 0x20 && cp < 0x7f)
			fputc((int)cp, out);
		else if (cp <= 0xffff)
			fprintf(out, "\\u%04X", (unsigned)cp);
		else
			fprintf(out, "\\U%08X", (unsigned)cp);
		u += n;
	}
	fputc('"', out);
}

void cfg_print_value(FILE *out, const struct cfg_key *d, const void *base)
{
	const char *src = (const char *)base + d->off;

	switch (d->kind) {
	case CFG_LEVEL:
		fputs(log_level_name(*(const enum log_level *)(const void *)src), out);
		break;
	case CFG_TARGET: {
		unsigned t = (unsigned)*(const enum log_target *)(const void *)src;

		fputs(t < sizeof(target_names) / sizeof(target_names[0]) ? target_names[t] : "?",
		      out);
		break;
	}
	case CFG_PATH:
	case CFG_OPT_PATH:
	case CFG_SOCKET:
	case CFG_STRING:
		cfg_print_string(out, src);
		break;
	case CFG_INT:
		fprintf(out, "%d", *(const int *)(const void *)src);
		break;
	case CFG_BOOL:
		fputs(*(const int *)(const void *)src ? "true" : "false", out);
		break;
	case CFG_CUSTOM:
		break;  /* d->print, called by the section's printer */
	}
}

void cfg_default_value(const struct cfg_key *d, void *base)
{
	char *dst = (char *)base + d->off;

	switch (d->kind) {
	case CFG_LEVEL:
		*(enum log_level *)(void *)dst = (enum log_level)d->def;
		break;
	case CFG_TARGET:
		*(enum log_target *)(void *)dst = (enum log_target)d->def;
		break;
	case CFG_PATH:
	case CFG_OPT_PATH:
	case CFG_SOCKET:
	case CFG_STRING:
		snprintf(dst, d->size, "%s", d->def_str ? d->def_str : "");
		break;
	case CFG_INT:
	case CFG_BOOL:
		*(int *)(void *)dst = (int)d->def;
		break;
	case CFG_CUSTOM:
		break;
	}
}

int cfg_parse_table(struct parse *p, const yaml_node_t *map, const char *where,
		    const struct cfg_key *tab, size_t n, void *base, const yaml_node_t **seen)
{
	char key[128];
	int rc;

	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *name;
		int i;

		if (!(name = cfg_key_text(p, k, where)))
			return -EINVAL;
		snprintf(key, sizeof(key), "%s.%s", where, name);
		if ((i = cfg_find_key(tab, n, name)) < 0) {
			char known[512] = "";

			for (size_t j = 0; j < n; j++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", j ? ", " : "", tab[j].name);
			return cfg_fail(p, cfg_line(k), key, "unknown key (%s)", known);
		}
		if (seen[i])
			return cfg_fail(p, cfg_line(k), key, "duplicate key (first on line %lu)",
					cfg_line(seen[i]));
		seen[i] = k;
		if ((rc = cfg_parse_value(p, v, key, &tab[i], base)) < 0)
			return rc;
	}
	return 0;
}

int cfg_parse_subtable(struct parse *p, const yaml_node_t *v, const char *key,
		       const struct cfg_key *tab, size_t n, void *base)
{
	const yaml_node_t *seen[CFG_SUBTABLE_MAX] = { NULL };
	int rc;

	if (cfg_is_null(v))
		return 0;
	if (n > CFG_SUBTABLE_MAX)
		return -EINVAL;
	if ((rc = cfg_expect(p, v, key, YAML_MAPPING_NODE)) < 0)
		return rc;
	return cfg_parse_table(p, v, key, tab, n, base, seen);
}

void cfg_print_subtable(FILE *out, const struct cfg_key *tab, size_t n, const void *base)
{
	fputc('\n', out);
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "    %s: ", tab[k].name);
		if (tab[k].kind == CFG_CUSTOM)
			tab[k].print(out, base);
		else
			cfg_print_value(out, &tab[k], base);
		fputc('\n', out);
	}
}
