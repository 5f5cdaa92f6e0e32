/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/partitions.c: see partitions.h. */
#include "autoconf.h"
#include "lib/fabric/partitions.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void part_static_pkeys(const char *text, uint8_t *used)
{
	const char *p = text;

	memset(used, 0, 0x8000 / 8);
	while (p && *p) {
		/* One statement: up to ';'. Comments run to the end of the line. */
		const char *end = p;
		const char *colon = NULL, *eq = NULL;

		for (; *end && *end != ';'; end++) {
			if (*end == '#') {
				while (*end && *end != '\n')
					end++;
				if (!*end)
					break;
				continue;
			}
			if (*end == ':' && !colon)
				colon = end;
			if (*end == '=' && !colon && !eq)
				eq = end;
		}
		if (eq && colon) {
			char *after;
			unsigned long v = strtoul(eq + 1, &after, 0);

			if (after != eq + 1)
				used[(v & 0x7fff) / 8] |= (uint8_t)(1u << ((v & 0x7fff) % 8));
		}
		p = *end ? end + 1 : end;
	}
}

void part_name(const char *tenant, char *buf, size_t len)
{
	size_t i = 0;
	int n = snprintf(buf, len, "loom_");

	if (n < 0 || (size_t)n >= len)
		return;
	for (; tenant[i] && (size_t)n + i + 1 < len && i < 72; i++) {
		char c = tenant[i];

		buf[n + i] = isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' ? c : '_';
	}
	buf[n + i] = '\0';
}

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

char *part_file_new(const char *static_text, const struct part_tenant *t, size_t n)
{
	struct sbuf b = { malloc(4096), 0, 4096, 0 };

	if (!b.s)
		return NULL;
	b.s[0] = '\0';
	sbuf_printf(&b, "# OpenSM partitions, written by loomd: the operator's partitions, then one\n"
		"# per loom tenant. Do not edit: loomd rewrites it on every tenant change.\n");
	if (static_text && *static_text) {
		size_t sl = strlen(static_text);

		sbuf_printf(&b, "\n# ---- the operator's partitions (loom.yaml tenants.static_partitions)\n");
		sbuf_printf(&b, "%s%s", static_text, static_text[sl - 1] == '\n' ? "" : "\n");
	}
	sbuf_printf(&b, "\n# ---- loom tenants (%zu)\n", n);
	for (size_t i = 0; i < n; i++) {
		char name[80];

		part_name(t[i].name, name, sizeof(name));
		sbuf_printf(&b, "%s=0x%04x", name, t[i].pkey & 0x7fff);
		if (t[i].has_sl)
			sbuf_printf(&b, ",sl=%u", t[i].sl & 0xf);
		sbuf_printf(&b, " :");
		for (size_t g = 0; g < t[i].n_guids; g++)
			sbuf_printf(&b, "%s 0x%016" PRIx64 "=%s", g ? "," : "", t[i].guids[g],
				    t[i].limited ? "limited" : "full");
		sbuf_printf(&b, " ;\n");
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
