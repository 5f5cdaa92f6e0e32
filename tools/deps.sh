#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Install every Debian 12 package loom needs to build, test and run its demo.
# clang and libclang-rt-14-dev (libFuzzer) are for `make fuzz` only;
# dpkg-dev, debhelper, lintian, fakeroot, rpm and rpmlint build and check the
# packages (tools/pkg-test.sh).
# Run as root on a fresh machine (CI does). Safe to run again.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config check
 libevent-dev libyaml-dev libsqlite3-dev sqlite3 libjansson-dev
 libibumad-dev libibmad-dev libibnetdisc-dev libopensm-dev opensm ibsim-utils
 infiniband-diags iproute2 util-linux python3 man-db groff-base procps
 libhiredis-dev redis-server libmnl-dev libcurl4-openssl-dev libssl-dev openssl
 zlib1g-dev
 python3-yaml python3-jsonschema
 slurm-wlm munge prometheus curl etcd-server etcd-client
 chromium chromium-driver python3-selenium
 clang libclang-rt-14-dev
 dpkg-dev debhelper lintian fakeroot rpm rpmlint"
if [ "${1:-}" = --list ]; then
	echo $PKGS
	exit 0
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 $missing >/dev/null
fi
