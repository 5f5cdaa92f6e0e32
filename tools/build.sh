#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Configure and build loom out of tree in ./build (after tools/deps.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ -f Makefile.in ] && [ Makefile.in -nt Makefile.am ] ||
	autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --prefix=/usr --sysconfdir=/etc --localstatedir=/var --runstatedir=/run
make -j"$(nproc)" >/dev/null
