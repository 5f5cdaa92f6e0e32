#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Everything CI runs: install dependencies, build, run every test (unit and
# integration, the latter on ibsim/OpenSM in private network namespaces),
# `make distcheck`, the packages (tools/pkg-test.sh: .deb build, lintian,
# install test; loom.spec's source RPM; tools/pkg-upgrade.sh: from the previous version), then the sanitizer lane: the same tests on an
# AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
# (tools/check-asan.sh, docs/sanitizers.md; LOOM_CHECK_ASAN=0 skips it).
# Run as root on Debian 12.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/deps.sh"
sh "$top/tools/build.sh"
cd "$top/build"
status=0
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
	for f in $(grep -l -E '^:test-result: (FAIL|ERROR)' $(find tests -name '*.trs')); do
		log=${f%.trs}.log
		echo "===== $log"; tail -n 80 "$log"
	done
	exit $status
fi
# distcheck builds the tarball, builds and installs from it, and runs the
# unit and fuzz-corpus tests there; the integration tests ran above on the
# same code, and that the tarball holds every file they read is checked
# against git's list (tools/dist-files.sh). Without git to list the tree,
# distcheck runs every test again instead.
if command -v git >/dev/null 2>&1 && git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	units=$(make -s print-unit-tests)
	set -- TESTS="$units"
else
	units=""
	set --
fi
if ! make -j"$(nproc)" distcheck LOOM_TEST_QUICK=1 DISTCHECK_CONFIGURE_FLAGS= "$@" \
	>distcheck.log 2>&1; then
	tail -n 150 distcheck.log
	echo "distcheck: FAILED (log: $top/build/distcheck.log)"
	exit 1
fi
if [ -n "$units" ]; then
	sh "$top/tools/dist-files.sh" loom-*.tar.gz || exit 1
fi
echo "distcheck: ok"
# The packages (tools/pkg-test.sh): the .debs built from the tree,
# lintian-clean, installed, checked and purged, and loom.spec's source RPM;
# then the upgrade from the previous version's packages to those .debs
# (tools/pkg-upgrade.sh: the previous version built from git). Two more
# builds on 2 cores. LOOM_CHECK_PKG=0 skips them.
if [ "${LOOM_CHECK_PKG:-1}" != 0 ] && command -v dpkg-buildpackage >/dev/null 2>&1; then
	LOOM_PKG_DEBS=$(mktemp -d /tmp/loom-debs.XXXXXX)
	export LOOM_PKG_DEBS
	for t in pkg-test pkg-upgrade; do
		rc=0
		sh "$top/tools/$t.sh" || rc=$?
		[ $rc -eq 0 ] || [ $rc -eq 77 ] || { rm -rf "$LOOM_PKG_DEBS"; exit $rc; }
	done
	rm -rf "$LOOM_PKG_DEBS"
else
	echo "packages: skipped"
fi
[ "${LOOM_CHECK_ASAN:-1}" = 0 ] && { echo "sanitizer lane: skipped (LOOM_CHECK_ASAN=0)"; exit 0; }
sh "$top/tools/check-asan.sh" "$top/build-asan"
