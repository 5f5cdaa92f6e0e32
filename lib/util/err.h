/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/err.h: the reason of a -errno, written into the caller's buffer
 * (lib/util/err.c). log.h includes it. */
#ifndef LOOM_ERR_H
#define LOOM_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* The way a function that returns -errno gives its reason: one line of
 * text into err (when err is not NULL), and rc returned. */
int err_fmt(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int err_vfmt(char *err, size_t errlen, int rc, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
/* The same for a place in a file, the one form every reader of a file
 * uses: "FILE:LINE: what" (line > 0) or "FILE: what" (line 0). */
int err_at(char *err, size_t errlen, int rc, const char *file, unsigned long line,
	   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int err_vat(char *err, size_t errlen, int rc, const char *file, unsigned long line,
	    const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

#endif
