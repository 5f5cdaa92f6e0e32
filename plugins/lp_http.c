/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/lp_http.c: see lp_http.h. */
#include "lp_http.h"

#include <stdlib.h>
#include <string.h>

size_t lp_buf_write(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct lp_buf *b = ctx;
	size_t len = size * nmemb;
	char *p;

	if (b->n + len > (64u << 20) || !(p = realloc(b->p, b->n + len + 1))) {
		b->oom = 1;
		return 0;
	}
	memcpy(p + b->n, data, len);
	b->n += len;
	p[b->n] = '\0';
	b->p = p;
	return len;
}
