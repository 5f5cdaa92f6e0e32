/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/slurp.h: a whole file into memory (topology files, cabling
 * plans). */
#ifndef LOOM_UTIL_SLURP_H
#define LOOM_UTIL_SLURP_H

#include <stddef.h>

/* The file at path, whole, NUL-terminated (*len excludes the NUL); free()
 * it. NULL with "path: why" in err. */
char *slurp_file(const char *path, size_t *len, char *err, size_t errlen);

#endif
