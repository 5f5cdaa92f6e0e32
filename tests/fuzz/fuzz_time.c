/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_time.c: arbitrary text into the time parser of loomctl's
 * --since (dbq_time_parse, lib/db/db_query.c): unix seconds, "N[smhd]" ago,
 * or a UTC date "YYYY-MM-DD[( |T)HH:MM:SS[Z]]".
 *
 * Invariants: 0 or -EINVAL; on success the time is a finite number (loomctl
 * sends it as a JSON real, and jansson has no non-finite reals); a relative
 * time is relative: the same text parsed against another "now" moves by
 * exactly the difference, or not at all for an absolute one.
 *
 * By hand (BUILD is a configured build directory where `make fuzz` has
 * compiled libloom.a with the sanitizers; db_query.c needs all of it):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_time.c BUILD/tests/fuzz/bin/obj/libloom.a \
 *       -ljansson -lsqlite3 -lm -o fuzz_time
 *   cp -r tests/fuzz/corpus/time work && ./fuzz_time work */
#include "autoconf.h"

#include <errno.h>
#include <math.h>

#include "tests/fuzz/fuzz.h"
#include "lib/db/db_query.h"

const char fuzz_name[] = "fuzz_time";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const double now = 1700000000.0, later = now + 1000.0;
	double t = -1.0, t2 = -1.0;
	char *s = fuzz_cstr(data, size);
	int rc, rc2;

	if (!s)
		return 0;
	rc = dbq_time_parse(s, now, &t);
	rc2 = dbq_time_parse(s, later, &t2);
	if (rc != rc2)
		fuzz_bug("\"%s\": %d at one time, %d at another", s, rc, rc2);
	if (rc < 0 && rc != -EINVAL)
		fuzz_bug("\"%s\": returned %d", s, rc);
	if (rc == 0) {
		if (!isfinite(t) || !isfinite(t2))
			fuzz_bug("\"%s\": not a finite time (%g)", s, t);
		/* Relative times move with now, absolute ones do not (allowing
		 * for rounding at large magnitudes). */
		double d = t2 - t;

		if (d != 0.0 && fabs(d - 1000.0) > 1e-6 * fmax(1.0, fabs(t)))
			fuzz_bug("\"%s\": moved by %g when now moved by 1000", s, d);
	}
	free(s);
	return 0;
}
