/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/err.c: how a function that returns -errno gives its reason, one
 * line of text into the caller's buffer ("what", or "FILE:LINE: what" for a
 * reader of a file). Pure formatting, no I/O: it is part of the routing
 * code's sources (LIB_UTIL_PURE) that the OpenSM plugin links, which must
 * need no symbol OpenSM lacks (it is loaded with every symbol bound). */
#include "autoconf.h"
#include "lib/util/err.h"

#include <stdio.h>

int err_vfmt(char *err, size_t errlen, int rc, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return rc;
}

int err_fmt(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vfmt(err, errlen, rc, fmt, ap);
	va_end(ap);
	return rc;
}

int err_vat(char *err, size_t errlen, int rc, const char *file, unsigned long line,
	    const char *fmt, va_list ap)
{
	char msg[512];

	if (!err || !errlen)
		return rc;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line)
		snprintf(err, errlen, "%s:%lu: %s", file, line, msg);
	else
		snprintf(err, errlen, "%s: %s", file, msg);
	return rc;
}

int err_at(char *err, size_t errlen, int rc, const char *file, unsigned long line,
	   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vat(err, errlen, rc, file, line, fmt, ap);
	va_end(ap);
	return rc;
}
