/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_hostlist.c: arbitrary text into the Slurm hostlist expander
 * (lib/util/hostlist.c), which reads SLURM_JOB_NODELIST-style lists that come
 * from Slurm (the prolog/epilog) and from loomctl's arguments.
 *
 * Invariants: 0 or -EINVAL/-E2BIG/-ENOMEM, with a message on failure; on
 * success at most HOSTLIST_MAX names, none empty or longer than
 * HOSTLIST_NAME_MAX, none holding a comma or bracket; and (for lists of at
 * most 2000 names) the names joined with commas expand to the same names in
 * the same order, without duplicates.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_hostlist.c lib/util/hostlist.c \
 *       lib/util/log.c lib/util/err.c lib/util/clock.c -o fuzz_hostlist
 *   cp -r tests/fuzz/corpus/hostlist work && ./fuzz_hostlist work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/util/hostlist.h"

const char fuzz_name[] = "fuzz_hostlist";

#define ROUND_TRIP_MAX 2000

static void round_trip(const struct hostlist *hl)
{
	struct hostlist again = { 0 };
	char err[256];
	size_t len = 1;
	char *joined, *p;

	for (size_t i = 0; i < hl->n; i++)
		len += strlen(hl->names[i]) + 1;
	if (!(p = joined = malloc(len)))
		return;
	for (size_t i = 0; i < hl->n; i++) {
		size_t k = strlen(hl->names[i]);

		if (i)
			*p++ = ',';
		memcpy(p, hl->names[i], k);
		p += k;
	}
	*p = '\0';
	if (hostlist_expand(joined, &again, err, sizeof(err)) < 0)
		fuzz_bug("the expanded names do not expand again: %s", err);
	if (again.n != hl->n)
		fuzz_bug("%zu names expand to %zu (duplicates?)", hl->n, again.n);
	for (size_t i = 0; i < hl->n; i++)
		if (strcmp(hl->names[i], again.names[i]))
			fuzz_bug("name %zu: \"%s\" became \"%s\"", i, hl->names[i], again.names[i]);
	hostlist_clear(&again);
	free(joined);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostlist hl = { 0 };
	char err[256] = "";
	char *s = fuzz_cstr(data, size);
	int rc;

	if (!s)
		return 0;
	rc = hostlist_expand(s, &hl, err, sizeof(err));
	if (rc < 0) {
		if (rc != -EINVAL && rc != -E2BIG && rc != -ENOMEM)
			fuzz_bug("returned %d", rc);
		if (!err[0])
			fuzz_bug("refused without a reason");
	} else {
		if (hl.n > HOSTLIST_MAX || (hl.n && !hl.names))
			fuzz_bug("%zu names", hl.n);
		for (size_t i = 0; i < hl.n; i++) {
			size_t k = strlen(hl.names[i]);

			if (!k || k > HOSTLIST_NAME_MAX || strpbrk(hl.names[i], ",[]"))
				fuzz_bug("name %zu: \"%s\"", i, hl.names[i]);
		}
		if (hl.n <= ROUND_TRIP_MAX)
			round_trip(&hl);
	}
	hostlist_clear(&hl);
	free(s);
	return 0;
}
