/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_topo_file.c: arbitrary text into the topology file reader
 * (lib/fabric/topo_file.c, topo_file_parse): ibsim .net files and
 * ibnetdiscover output, told apart by content, as loom-fabgen, loomctl and
 * the routing tests read them.
 *
 * Invariants: a fabric, or NULL with a "name:line: what" message; a fabric
 * passes fab_check, is sorted by GUID without repeats, and survives a trip
 * through the walker's wire format unchanged (fuzz_wire_util.h).
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_topo_file.c lib/fabric/topo_file.c \
 *       lib/fabric/fabric.c lib/fabric/fabric_wire.c lib/fabric/ibtypes.c \
 *       lib/util/log.c lib/util/err.c lib/util/clock.c -lm -o fuzz_topo_file
 *   cp -r tests/fuzz/corpus/topo_file work && ./fuzz_topo_file work */
#include "autoconf.h"

#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_wire_util.h"
#include "lib/fabric/topo_file.h"

const char fuzz_name[] = "fuzz_topo_file";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	struct fab *fab = topo_file_parse("fuzz.net", (const char *)data, size, "fuzz", err,
					  sizeof(err));

	if (!fab) {
		if (strncmp(err, "fuzz.net", 8) != 0)
			fuzz_bug("refused without naming the file: \"%s\"", err);
		return 0;
	}
	if (strcmp(fab->subnet, "fuzz"))
		fuzz_bug("subnet \"%s\"", fab->subnet);
	fuzz_check_fabric(fab);
	fab_free(fab);
	return 0;
}
