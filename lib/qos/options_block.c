/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/options_block.c: loom's block in a shared file (options_block.h). */
#include "autoconf.h"
#include "lib/qos/options_block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *options_block_set(const char *old_text, const char *begin, const char *end,
			const char *options)
{
	const char *b = old_text ? strstr(old_text, begin) : NULL;
	const char *e = b ? strstr(b, end) : NULL;
	size_t head = b && e ? (size_t)(b - old_text) : old_text ? strlen(old_text) : 0;
	const char *tail = b && e ? e + strlen(end) : "";
	const char *sep = head && old_text[head - 1] != '\n' ? "\n" : "";
	size_t len = head + strlen(sep) + strlen(begin) + strlen(options) + strlen(end) +
		     strlen(tail) + 1;
	char *out = malloc(len);

	if (out)
		snprintf(out, len, "%.*s%s%s%s%s%s", (int)head, old_text ? old_text : "", sep,
			 begin, options, end, tail);
	return out;
}
