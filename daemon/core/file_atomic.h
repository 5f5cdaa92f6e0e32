/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/file_atomic.h: the files loomd writes for other programs
 * (OpenSM's partitions file and options file), written whole or not at
 * all, and read back whole. */
#ifndef LOOMD_FILE_ATOMIC_H
#define LOOMD_FILE_ATOMIC_H

#include <stddef.h>

/* Write `text` to `path` through a temporary file beside it, synced and
 * renamed over it: a reader (or a crash) sees the old file or the new one.
 * 0, or -errno with err naming the file. */
int file_write_atomic(const char *path, const char *text, char *err, size_t errlen);

/* The whole file as a new string (free it), or NULL with err naming the
 * file (errno kept: ENOENT when it does not exist). */
char *file_read_text(const char *path, char *err, size_t errlen);

#endif
