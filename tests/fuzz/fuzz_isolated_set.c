/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_isolated_set.c: arbitrary bytes into the isolated links file's
 * parser (lib/fabric/isolated_set.c), which libloomosm runs inside OpenSM
 * (root) at each routing run on a file loomd writes.
 *
 * Invariants: 0, or -EINVAL with an error "line N: ..." (N within the
 * input's lines) or -ENOMEM, and an empty set on failure; on success at
 * most ISO_SET_MAX entries, strictly ascending by (guid, port), no GUID 0,
 * ports 1..254, each found by iso_set_has; the text iso_set_format writes
 * of it parses to the same version and entries.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_isolated_set.c lib/fabric/isolated_set.c \
 *       lib/fabric/fabric.c lib/fabric/ibtypes.c -o fuzz_isolated_set
 *   cp -r tests/fuzz/corpus/isolated_set work && ./fuzz_isolated_set work */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/fabric/isolated_set.h"

const char fuzz_name[] = "fuzz_isolated_set";

static int before(const struct iso_port *a, const struct iso_port *b)
{
	return a->guid < b->guid || (a->guid == b->guid && a->port < b->port);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iso_set s, back;
	char err[256] = "", *text;
	unsigned long line;
	size_t lines = 1;
	int rc = iso_set_parse((const char *)data, size, &s, err, sizeof(err));

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (rc < 0) {
		if (rc != -EINVAL && rc != -ENOMEM)
			fuzz_bug("returned %d", rc);
		if (rc == -EINVAL && (sscanf(err, "line %lu: ", &line) != 1 || line < 1 ||
				      line > lines))
			fuzz_bug("error \"%s\" names no line of the %zu", err, lines);
		if (s.v || s.n || s.version)
			fuzz_bug("a refused file left a set");
		return 0;
	}
	if (s.n > ISO_SET_MAX || (s.n && !s.v))
		fuzz_bug("%zu entries", s.n);
	for (size_t i = 0; i < s.n; i++) {
		if (!s.v[i].guid || s.v[i].port < 1 || s.v[i].port > 254)
			fuzz_bug("entry %zu: 0x%llx %u", i, (unsigned long long)s.v[i].guid,
				 s.v[i].port);
		if (i && !before(&s.v[i - 1], &s.v[i]))
			fuzz_bug("entries %zu and %zu out of order or repeated", i - 1, i);
		if (!iso_set_has(&s, s.v[i].guid, s.v[i].port))
			fuzz_bug("entry %zu not found", i);
	}
	if (!(text = iso_set_format(&s, NULL))) {
		iso_set_free(&s);
		return 0;
	}
	if (iso_set_parse(text, strlen(text), &back, err, sizeof(err)) < 0)
		fuzz_bug("the written set does not parse: %s", err);
	if (back.version != s.version || back.n != s.n)
		fuzz_bug("the written set reads back otherwise");
	for (size_t i = 0; i < s.n; i++)   /* field by field: the struct has padding */
		if (back.v[i].guid != s.v[i].guid || back.v[i].port != s.v[i].port)
			fuzz_bug("written entry %zu reads back otherwise", i);
	iso_set_free(&back);
	free(text);
	iso_set_free(&s);
	return 0;
}
