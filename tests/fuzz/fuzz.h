/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz.h: what every fuzz target of tests/fuzz/ shares.
 *
 * A target is one file, fuzz_<name>.c, that defines LLVMFuzzerTestOneInput:
 * it hands the bytes to one of loom's real decoders (linked from the same
 * libraries loomd is made of) and checks what is cheap to check about the
 * result (round trips, bounds). A violated invariant calls fuzz_bug(), which
 * aborts, so that libFuzzer and the replay driver both see a crash.
 *
 * Built two ways (docs/fuzzing.md):
 *  - `make fuzz`: clang -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER,
 *    libFuzzer's own main; binaries in tests/fuzz/bin/.
 *  - `make check`: any compiler, no sanitizer, with tests/fuzz/fuzz_main.c as
 *    main: every file of the target's seed corpus (FUZZ_CORPUS, a directory,
 *    set by Makefile.am), then a fixed number of pseudo-random mutations of
 *    them. */
#ifndef LOOM_FUZZ_H
#define LOOM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's name, for messages (each target defines it). */
extern const char fuzz_name[];

__attribute__((noreturn, format(printf, 1, 2))) static inline void fuzz_bug(const char *fmt,
									    ...);

#include <stdarg.h>

static inline void fuzz_bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: invariant violated: ", fuzz_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A decoder's string field s (an array of len bytes) must end within it. */
static inline void fuzz_check_terminated(const char *s, size_t len, const char *what)
{
	if (!memchr(s, '\0', len))
		fuzz_bug("%s is not terminated within its %zu bytes", what, len);
}

/* A decoder's return: 0 or -errno, and an error message with every failure. */
static inline void fuzz_check_rc(int rc, const char *err, const char *what)
{
	if (rc > 0 || rc < -4095)
		fuzz_bug("%s returned %d", what, rc);
	if (rc && !err[0])
		fuzz_bug("%s failed (%d) without a message", what, rc);
}

/* data[0..size) as a new NUL-terminated string (NULs inside are kept: the
 * decoder sees a C string that ends at the first one). NULL: out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return NULL;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Where the build put the source tree's test data (Makefile.am passes
 * -DFUZZ_SRCDIR to both builds); "." when built by hand without it. */
#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "."
#endif

#endif
