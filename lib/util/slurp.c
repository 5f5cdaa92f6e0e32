/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/slurp.c: a whole file into memory (slurp.h). */
#include "autoconf.h"
#include "lib/util/slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLURP_STEP (1u << 20)

char *slurp_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap + SLURP_STEP);

			if (!nb) {
				snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
				goto fail;
			}
			buf = nb;
			cap += SLURP_STEP;
		}
		if (!(got = fread(buf + n, 1, cap - n - 1, f)))
			break;
		n += got;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}
