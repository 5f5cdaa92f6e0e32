/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_wire.h: a fabric graph as bytes, to hand a sweep's result from
 * the short-lived walker process to loomd over a pipe (daemon/ib/walker.c).
 * Both ends are the same executable, so the encoding is the structs' own
 * memory layout behind a header that names the layout; anything else (a
 * truncated stream, another build) is refused. */
#ifndef LOOM_FABRIC_WIRE_H
#define LOOM_FABRIC_WIRE_H

#include <stddef.h>
#include <stdio.h>

#include "lib/fabric/fabric.h"

/* Write `fab` to out. 0 or -errno. */
int fab_wire_write(const struct fab *fab, FILE *out);
/* Decode buf[0..len) into a new fabric (sorted, checked), or NULL with err. */
struct fab *fab_wire_read(const void *buf, size_t len, char *err, size_t errlen);
/* The same for a fabric stream followed by other bytes: *used is where
 * they begin. */
struct fab *fab_wire_read_prefix(const void *buf, size_t len, size_t *used, char *err,
				 size_t errlen);

#endif
