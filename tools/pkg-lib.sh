# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# shellcheck shell=sh disable=SC2154
# tools/pkg-lib.sh: what tools/pkg-test.sh and tools/pkg-upgrade.sh share
# (sourced, with $me naming the script): the conditions they run under, a
# tree's .debs built, apt-get as they call it, and the purge at the end.
# The packages, in the order they are installed.
PKGS="loomd loomctl opensm-plugin-loom loom-switch-plugins loom-slurm-hooks loom-plugin-dev"

skip() { echo "$me: SKIP: $*"; exit 77; }
fail() { echo "$me: FAIL: $*"; exit 1; }
ok() { echo "$me: ok: $*"; }

# Skip (exit 77) unless this is root with dpkg-buildpackage, no loom package
# installed, and no /etc/loom or /var/lib/loom that the purge would delete.
# One such script at a time on a machine: each holds /run/lock/loom-pkg.lock
# (fd 8) until it exits, and a second one waits for it (up to 30 min)
# instead of installing over the first one's packages. What they start in
# the background gets `8>&-`: a simulator left behind must not hold it.
pkg_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (installs the packages)"
	command -v dpkg-buildpackage >/dev/null 2>&1 || skip "no dpkg-buildpackage"
	if command -v flock >/dev/null 2>&1; then
		exec 8>/run/lock/loom-pkg.lock
		flock -n 8 || { echo "$me: waiting for another package test (/run/lock/loom-pkg.lock)"
			flock -w 1800 8 || skip "another package test held /run/lock/loom-pkg.lock for 30 min"; }
	fi
	# shellcheck disable=SC2086
	if dpkg-query -W -f='${Status}\n' $PKGS 2>/dev/null | grep -q ' installed'; then
		skip "loom packages are installed here: this test would replace and purge them"
	fi
	for d in /etc/loom /var/lib/loom; do
		[ ! -e "$d" ] || skip "$d exists: the purge at the end would delete it"
	done
}

# pkg_copy_tree TOP DEST: the tree at TOP as git tracks it (new files not
# ignored included), or without a git checkout all but the build folders.
pkg_copy_tree() {
	mkdir -p "$2"
	if command -v git >/dev/null 2>&1 && git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$1" ls-files -co --exclude-standard -z | (cd "$1" && tar --null -T - -cf -) |
			tar -x -C "$2"
	else
		(cd "$1" && tar --exclude=./build --exclude=./build-asan --exclude=./debian/build \
			-cf - .) | tar -x -C "$2"
	fi
}

# pkg_build SRC: `dpkg-buildpackage -us -uc -b` in SRC (nocheck: make check
# ran before; 2 jobs, CI's cores); the .debs land in SRC/..; a failure ends
# the script with the log's tail.
pkg_build() {
	_start=$(date +%s)
	(cd "$1" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
		>"$1.build.log" 2>&1 || { tail -n 60 "$1.build.log"; fail "dpkg-buildpackage in $1"; }
	ok "dpkg-buildpackage -us -uc -b of $(basename "$1") ($(($(date +%s) - _start)) s)"
}

# pkg_debs DIR VERSION: the .debs of $PKGS at VERSION in DIR, in order.
pkg_debs() {
	_debs=""
	for _p in $PKGS; do
		_f=$(ls "$1/${_p}_${2}_"*.deb 2>/dev/null) ||
			{ echo "$me: FAIL: no ${_p}_${2} .deb in $1" >&2; exit 1; }
		_debs="$_debs $_f"
	done
	echo "$_debs"
}

# apt-get as these scripts run it: no question, the dpkg lock waited for.
pkg_apt() {
	DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o DPkg::Lock::Timeout=300 "$@"
}

# Purge whatever of $PKGS is installed (the scripts' exit trap).
pkg_purge() {
	# shellcheck disable=SC2086
	if dpkg-query -W $PKGS >/dev/null 2>&1; then
		pkg_apt purge $PKGS >/dev/null 2>&1 || :
	fi
}
