/* plugins/lp_util.c: see lp_util.h. */
#include "lp_util.h"

#include <stdarg.h>
#include <stdio.h>

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
