#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tools/pkg-test.sh: the Debian packages build, are lintian-clean, install on
# this machine and do what debian/README.source says, then are purged.
# tools/check.sh runs it (so CI does) where dpkg-buildpackage is. Needs root
# and a machine where no loom package is installed (CI's is fresh); it
# installs the .debs with apt-get (their Depends resolved by apt) and purges
# them at the end, also when a check fails.
#
# Checked: `dpkg-buildpackage -us -uc -b` from a copy of the tree (nocheck:
# make check ran before), lintian with no error or warning (overrides say
# why), the loom user and group made by sysusers.d, loomd.service installed
# with this build's /usr/sbin/loomd, enabled and not started, loom.yaml a
# conffile that `loomd -n` accepts, no .la file, libloomosm.so in the loader
# cache (OpenSM dlopen()s it by name) and needing no symbol that opensm
# lacks, `loomctl --version`; loomd started
# as the unit would start it answers loomctl and makes its database; a
# remove keeps the database and loom.yaml, a purge removes them and keeps
# the loom user. With rpmbuild: loom.spec makes a source RPM, and rpmlint
# (if installed) finds no error in it.
# With LOOM_PKG_DEBS set to a directory, the .debs built are copied there
# (tools/check.sh hands them to tools/pkg-upgrade.sh).
# Exit 0, 1 on a failure, 77 when it cannot run here.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=pkg-test
. "$top/tools/pkg-lib.sh"
pkg_require
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
tmp=$(mktemp -d /tmp/pkg-test.XXXXXX)
loomd_pid=""
cleanup() {
	[ -n "$loomd_pid" ] && kill "$loomd_pid" 2>/dev/null && wait "$loomd_pid" 2>/dev/null
	pkg_purge
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- build from a copy of the tree (what git tracks, or the tarball's tree)
src=$tmp/loom-$version
pkg_copy_tree "$top" "$src"
if command -v rpmbuild >/dev/null 2>&1; then   # the RPM's sources, before the build below
	mkdir -p "$tmp/rpm/SOURCES"
	tar -C "$tmp" -czf "$tmp/rpm/SOURCES/loom-$version.tar.gz" "loom-$version"
	cp "$src/etc/sysusers.d/loom.conf" "$tmp/rpm/SOURCES/"
fi
pkg_build "$src"
changes=$tmp/loom_${version}_$(dpkg --print-architecture).changes
lintian --fail-on error,warning "$changes" >"$tmp/lintian.log" 2>&1 ||
	{ cat "$tmp/lintian.log"; fail "lintian reports errors or warnings"; }
ok "lintian: no error, no warning"
debs=$(pkg_debs "$tmp" "$version")
if [ -n "${LOOM_PKG_DEBS:-}" ]; then  # kept for tools/pkg-upgrade.sh (tools/check.sh)
	# shellcheck disable=SC2086
	cp $debs "$LOOM_PKG_DEBS/"
fi

# ---- install with apt (it resolves the Depends)
# shellcheck disable=SC2086
pkg_apt install $debs >"$tmp/apt.log" 2>&1 || { tail -n 40 "$tmp/apt.log"; fail "apt-get install"; }
ok "apt-get install ./*.deb"

getent passwd loom >/dev/null || fail "no loom user after installation"
getent group loom >/dev/null || fail "no loom group after installation"
[ "$(getent passwd loom | cut -d: -f7)" = /usr/sbin/nologin ] || fail "the loom user has a login shell"
ok "the loom system user and group exist (sysusers.d)"

unit=/lib/systemd/system/loomd.service
[ -f "$unit" ] || fail "$unit is not installed"
grep -qx 'ExecStart=/usr/sbin/loomd -f' "$unit" || fail "$unit: ExecStart is not /usr/sbin/loomd -f"
[ -L /etc/systemd/system/multi-user.target.wants/loomd.service ] ||
	fail "loomd.service is not enabled (no multi-user.target.wants link)"
enabled=$(systemctl is-enabled loomd.service 2>/dev/null || :)
[ "$enabled" = enabled ] || fail "systemctl is-enabled loomd.service: '$enabled'"
running=""
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2>/dev/null)" = /usr/sbin/loomd ] && running="$running ${p#/proc/}"
done
[ -z "$running" ] || fail "/usr/sbin/loomd runs after installation (pid$running)"
if [ -d /run/systemd/system ]; then
	[ "$(systemctl is-active loomd.service || :)" != active ] || fail "loomd.service is active"
	ok "loomd.service installed, enabled, not started (systemctl)"
else
	ok "loomd.service installed, enabled (wants link; no systemd runs here), no loomd process"
fi

dpkg-query -W -f='${Conffiles}\n' loomd | grep -q '^ /etc/loom/loom.yaml ' ||
	fail "/etc/loom/loom.yaml is not a conffile of loomd"
/usr/sbin/loomd -n -c /etc/loom/loom.yaml >"$tmp/loomd-n.out" 2>&1 ||
	{ cat "$tmp/loomd-n.out"; fail "loomd -n refuses the shipped /etc/loom/loom.yaml"; }
ok "/etc/loom/loom.yaml is a conffile and loomd -n accepts it"
# shellcheck disable=SC2086
la=$(dpkg -L $PKGS | grep '\.la$' || :)
[ -z "$la" ] || fail "libtool archives installed: $la"
ldconfig -p | grep -q 'libloomosm\.so ' || fail "libloomosm.so is not in the loader cache"
ok "no .la files; libloomosm.so in the loader cache"
# The package links with BIND_NOW (Debian's hardening): OpenSM's dlopen() of
# libloomosm.so fails unless every symbol it needs is in the opensm
# executable or one of its libraries, also those of code OpenSM never calls.
so=$(dpkg -L opensm-plugin-loom | grep '/libloomosm\.so$')
nm -D --undefined-only "$so" | awk '$1 == "U" && $2 !~ /@/ { print $2 }' | sort -u >"$tmp/need"
{
	nm -D --defined-only /usr/sbin/opensm
	for l in $(ldd /usr/sbin/opensm | awk '/=>/ { print $3 }'); do nm -D --defined-only "$l"; done
} | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$tmp/have"
missing=$(comm -23 "$tmp/need" "$tmp/have" | tr '\n' ' ')
[ -z "$missing" ] || fail "libloomosm.so needs symbols opensm does not have: $missing"
ok "libloomosm.so: its $(wc -l <"$tmp/need") undefined symbols are all opensm's"
v=$(loomctl --version)
[ "$v" = "loomctl $version" ] || fail "loomctl --version: '$v', not 'loomctl $version'"
ok "loomctl --version: $v"

# ---- loomd as the unit starts it (root; systemd would make /run/loom and
# /var/lib/loom: RuntimeDirectory=, StateDirectory=)
install -d -m 0755 /run/loom /var/lib/loom
/usr/sbin/loomd -f -c /etc/loom/loom.yaml >"$tmp/loomd.log" 2>&1 &
loomd_pid=$!
i=0
until loomctl status >"$tmp/status.out" 2>&1; do
	i=$((i + 1))
	kill -0 "$loomd_pid" 2>/dev/null || { cat "$tmp/loomd.log"; fail "loomd exited"; }
	[ $i -lt 100 ] || { cat "$tmp/loomd.log" "$tmp/status.out"; fail "loomctl status: no answer in 10 s"; }
	sleep 0.1
done
kill "$loomd_pid"
wait "$loomd_pid" || :
loomd_pid=""
[ -s /var/lib/loom/loom.db ] || fail "loomd made no /var/lib/loom/loom.db"
ok "loomd -f with the shipped config answers loomctl status, database in /var/lib/loom"

# ---- remove keeps the data and the configuration, purge removes them
pkg_apt remove loomd loom-switch-plugins >/dev/null 2>&1 || fail "apt-get remove loomd"
[ ! -e /usr/sbin/loomd ] || fail "/usr/sbin/loomd is left after remove"
[ -s /var/lib/loom/loom.db ] || fail "remove deleted the database"
[ -f /etc/loom/loom.yaml ] || fail "remove deleted /etc/loom/loom.yaml (a conffile)"
ok "apt-get remove loomd: the database and /etc/loom/loom.yaml stay"
# shellcheck disable=SC2086
pkg_apt purge $PKGS >/dev/null 2>&1 || fail "apt-get purge"
[ ! -e /var/lib/loom ] || fail "purge left /var/lib/loom"
[ ! -e /etc/loom ] || fail "purge left /etc/loom"
[ ! -e /etc/systemd/system/multi-user.target.wants/loomd.service ] || fail "purge left the wants link"
[ ! -e /usr/bin/loomctl ] || fail "purge left /usr/bin/loomctl"
getent passwd loom >/dev/null || fail "purge removed the loom user (policy: system users stay)"
ok "apt-get purge: /var/lib/loom, /etc/loom and the enablement gone, the loom user kept"

# ---- the RPM spec (EL9): a source RPM, and rpmlint where installed
if command -v rpmbuild >/dev/null 2>&1; then
	rpmbuild --define "_topdir $tmp/rpm" -bs "$src/loom.spec" >"$tmp/rpm.log" 2>&1 ||
		{ cat "$tmp/rpm.log"; fail "rpmbuild -bs loom.spec"; }
	ok "rpmbuild -bs loom.spec: $(basename "$tmp"/rpm/SRPMS/*.src.rpm)"
	if command -v rpmlint >/dev/null 2>&1; then
		rpmlint -r "$src/loom.rpmlintrc" "$src/loom.spec" "$tmp"/rpm/SRPMS/*.src.rpm \
			>"$tmp/rpmlint.log" 2>&1 || :
		grep -q ' [EW]: ' "$tmp/rpmlint.log" &&
			{ cat "$tmp/rpmlint.log"; fail "rpmlint reports errors or warnings"; }
		ok "rpmlint: no error, no warning ($(grep -o '[0-9]* errors.*badness' "$tmp/rpmlint.log"))"
	fi
fi
echo "pkg-test: all checks passed"
