/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/body.c: see body.h. */
#include "autoconf.h"
#include "lib/util/body.h"

#include <stdlib.h>
#include <string.h>

size_t body_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n > b->max) {
		b->over = 1;
		return 0;
	}
	if (!(p = realloc(b->p, b->len + n + 1)))
		return 0;
	memcpy(p + b->len, data, n);
	b->len += n;
	p[b->len] = '\0';
	b->p = p;
	return n;
}
