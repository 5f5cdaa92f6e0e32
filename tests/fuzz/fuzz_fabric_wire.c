/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_fabric_wire.c: arbitrary bytes into the decoder of the
 * walker child's pipe (lib/fabric/fabric_wire.c, fab_wire_read): loomd reads
 * a sweep's fabric from a process it forked, which may die halfway or be of
 * another build.
 *
 * Invariants: a fabric, or NULL with a message; a fabric passes fab_check,
 * is sorted by GUID without repeats, and encoding it, decoding that and
 * encoding again gives the same bytes (fuzz_wire_util.h).
 *
 * The seeds are fab_wire_write's output for tests/fabrics' fabrics from a
 * gcc x86_64 build (docs/fuzzing.md): a build whose struct layout differs
 * refuses them at the header, and they are only a start.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_fabric_wire.c lib/fabric/fabric.c \
 *       lib/fabric/fabric_wire.c lib/fabric/ibtypes.c lib/util/log.c lib/util/err.c lib/util/clock.c \
 *       -lm -o fuzz_fabric_wire
 *   cp -r tests/fuzz/corpus/fabric_wire work && ./fuzz_fabric_wire work */
#include "autoconf.h"

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_wire_util.h"

const char fuzz_name[] = "fuzz_fabric_wire";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	struct fab *fab = fab_wire_read(data, size, err, sizeof(err));

	if (!fab) {
		if (!err[0])
			fuzz_bug("refused without a reason");
		return 0;
	}
	fuzz_check_fabric(fab);
	fab_free(fab);
	return 0;
}
