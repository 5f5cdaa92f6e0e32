/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_wire_util.h: helpers of fuzz_topo_file.c and
 * fuzz_fabric_wire.c: a fabric as fabric_wire bytes in memory, and the
 * checks every fabric that a decoder returns must pass. */
#ifndef LOOM_FUZZ_WIRE_UTIL_H
#define LOOM_FUZZ_WIRE_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_wire.h"

/* fab as fabric_wire bytes (malloc'd, *len bytes); NULL if it cannot. */
static inline char *fuzz_wire_bytes(const struct fab *fab, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (fab_wire_write(fab, f) < 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* What a decoded fabric must be: consistent (fab_check), sorted by GUID
 * without repeats, and the same after a trip through fabric_wire. */
static inline void fuzz_check_fabric(const struct fab *fab)
{
	char err[512];
	size_t len = 0, len2 = 0;
	char *bytes, *bytes2;
	struct fab *back;

	if (fab_check(fab, err, sizeof(err)) < 0)
		fuzz_bug("a decoded fabric fails fab_check: %s", err);
	for (size_t i = 1; i < fab->n_nodes; i++)
		if (fab->nodes[i - 1]->guid >= fab->nodes[i]->guid)
			fuzz_bug("nodes %zu and %zu not sorted by GUID", i - 1, i);
	if (!(bytes = fuzz_wire_bytes(fab, &len)))
		fuzz_bug("a decoded fabric does not encode");
	if (!(back = fab_wire_read(bytes, len, err, sizeof(err))))
		fuzz_bug("an encoded fabric does not decode: %s", err);
	if (back->n_nodes != fab->n_nodes)
		fuzz_bug("%zu nodes came back as %zu", fab->n_nodes, back->n_nodes);
	if (!(bytes2 = fuzz_wire_bytes(back, &len2)))
		fuzz_bug("a decoded fabric does not encode");
	if (len != len2 || memcmp(bytes, bytes2, len))
		fuzz_bug("encode(decode(encode(x))) != encode(x)");
	fab_free(back);
	free(bytes);
	free(bytes2);
}

#endif
