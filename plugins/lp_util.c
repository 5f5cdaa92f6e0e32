/* plugins/lp_util.c: see lp_util.h. */
#include "lp_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lp_logf(const struct lp_host *host, const char *switch_name, enum lp_log_level level,
	     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!host || !host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->log(level, switch_name, "%s", msg);
}

void lp_copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int lp_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	void *p, *old;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : first;
	memcpy(&old, v, sizeof(old));
	if (!(p = realloc(old, c * size)))
		return -ENOMEM;
	memcpy(v, &p, sizeof(p));
	*cap = c;
	return 0;
}
