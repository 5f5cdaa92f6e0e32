#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/fuzz/fuzz_build.sh SRCDIR OUTDIR: what `make fuzz` runs in the build
# directory; Makefile.am passes the rest in the environment (FUZZ_CC,
# FUZZ_CFLAGS, FUZZ_SANITIZE, FUZZ_JOBS, FUZZ_BUILDDIR, FUZZ_CPPFLAGS: the
# libraries' -I flags, FUZZ_LIBS, the source lists, FUZZ_TARGETS).
# Compiles every C file of lib/libloom.a, daemon/libloomd.a and the switch
# plugins' decoders (FUZZ_PLUGIN_SOURCES: linuxdcb, sonic, nvue, eos; headers
# in the lists are skipped) once with $FUZZ_CC and the sanitizers
# (-fsanitize=fuzzer-no-link plus $FUZZ_SANITIZE) into OUTDIR/obj/, archives them as OUTDIR/obj/
# libloom.a, libloomd.a and libplugins.a (a target links only what it uses),
# then links OUTDIR/fuzz_NAME from tests/fuzz/fuzz_NAME.c with
# -DLOOM_LIBFUZZER and -fsanitize=fuzzer. An object is rebuilt when its
# source is newer (headers are not tracked: `make clean-fuzz` after changing
# one).
set -eu
src=$1
out=$2
: "${FUZZ_CC:=clang}" "${FUZZ_CFLAGS:=-g -O1}" "${FUZZ_SANITIZE:=-fsanitize=address,undefined}"
: "${FUZZ_JOBS:=2}" "${FUZZ_CPPFLAGS:=}" "${FUZZ_LIBS:=}" "${FUZZ_BUILDDIR:=$(pwd)}"
# As Makefile.am's AM_CPPFLAGS, plus the plugins' folders; FUZZ_SRCDIR (for
# the targets) is added where they are linked, as it holds quotes.
FUZZ_CPPFLAGS="-DHAVE_CONFIG_H -D_GNU_SOURCE=1 -I$FUZZ_BUILDDIR -I$src -I$src/include \
 -I$src/plugins/linuxdcb -I$src/plugins/sonic -I$src/plugins/nvue -I$src/plugins/eos \
 $FUZZ_CPPFLAGS"
export FUZZ_CC FUZZ_CPPFLAGS
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "make fuzz: $FUZZ_CC not found (install clang, see tools/deps.sh, or set FUZZ_CC)" >&2
	exit 1
fi
# libFuzzer comes with clang's runtime (Debian: libclang-rt-N-dev).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	>"$probe/p.c"
# shellcheck disable=SC2086
if ! $FUZZ_CC -fsanitize=fuzzer $FUZZ_SANITIZE "$probe/p.c" -o "$probe/p" 2>"$probe/err"; then
	echo "make fuzz: $FUZZ_CC cannot link a libFuzzer program (install libclang-rt-N-dev):" >&2
	cat "$probe/err" >&2
	exit 1
fi
mkdir -p "$out/obj"
FUZZ_OBJ_CFLAGS="$FUZZ_CFLAGS -fsanitize=fuzzer-no-link $FUZZ_SANITIZE"
export FUZZ_OBJ_CFLAGS

# Compile a list of sources (paths under ROOT) into $out/obj/<path with / as
# _>.o, FUZZ_JOBS at a time; print the objects.
compile() {
	root=$1
	shift
	list=$out/obj/.todo.$$
	: >"$list"
	objs=""
	for s in "$@"; do
		case $s in *.c) ;; *) continue ;; esac
		o=$out/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
		objs="$objs $o"
		if [ ! -f "$o" ] || [ -n "$(find "$root/$s" -newer "$o")" ]; then
			printf '%s %s\n' "$root/$s" "$o" >>"$list"
		fi
	done
	if [ -s "$list" ]; then
		# shellcheck disable=SC2086
		# shellcheck disable=SC2016
		xargs -P "$FUZZ_JOBS" -n 2 sh -c 'echo "  FUZZCC   $1" >&2; exec $FUZZ_CC \
			$FUZZ_OBJ_CFLAGS $FUZZ_CPPFLAGS -c "$0" -o "$1"' <"$list" >&2 ||
			{ rm -f "$list"; return 1; }
	fi
	rm -f "$list"
	echo "$objs"
}

archive() {
	name=$1
	shift
	# shellcheck disable=SC2068
	objs=$(compile "$src" $@) || exit 1
	if [ "$name" = libloomd ] && [ -n "${FUZZ_DAEMON_BUILT:-}" ]; then
		# shellcheck disable=SC2086
		more=$(compile "$FUZZ_BUILDDIR" $FUZZ_DAEMON_BUILT) || exit 1
		objs="$objs $more"
	fi
	rm -f "$out/obj/$name.a"
	# shellcheck disable=SC2086
	ar rcs "$out/obj/$name.a" $objs
}

# shellcheck disable=SC2086
archive libloom ${FUZZ_LIB_SOURCES:-}
# shellcheck disable=SC2086
archive libloomd ${FUZZ_DAEMON_SOURCES:-}
# shellcheck disable=SC2086
archive libplugins ${FUZZ_PLUGIN_SOURCES:-}

for t in ${FUZZ_TARGETS:-}; do
	echo "  FUZZLD   $out/fuzz_$t" >&2
	# shellcheck disable=SC2086
	$FUZZ_CC $FUZZ_CFLAGS -fsanitize=fuzzer $FUZZ_SANITIZE -DLOOM_LIBFUZZER $FUZZ_CPPFLAGS \
		"-DFUZZ_SRCDIR=\"$src\"" "$src/tests/fuzz/fuzz_$t.c" "$out/obj/libloomd.a" "$out/obj/libloom.a" \
		"$out/obj/libplugins.a" $FUZZ_LIBS -o "$out/fuzz_$t"
done
echo "make fuzz: built $(echo "${FUZZ_TARGETS:-}" | wc -w) targets in $out/"
