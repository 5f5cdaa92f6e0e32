#!/bin/sh
# Everything CI runs: install dependencies, build, run every test (unit and
# integration, the latter on ibsim/OpenSM in private network namespaces), then
# `make distcheck`. Run as root on Debian 12.
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
# distcheck rebuilds from the tarball and runs the quick tests again there.
if ! make -j"$(nproc)" distcheck LOOM_TEST_QUICK=1 DISTCHECK_CONFIGURE_FLAGS= >distcheck.log 2>&1; then
	tail -n 150 distcheck.log
	echo "distcheck: FAILED (log: $top/build/distcheck.log)"
	exit 1
fi
echo "distcheck: ok"
