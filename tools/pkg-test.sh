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
# lacks, `loomctl --version`; 60-loom-umad.rules installed and loom in
# the group loom-umad, the installed unit's exposure at most 2.5
# (tests/integration/service_hardening.sh), `loomd -n -u loom` silent on
# the shipped loom.yaml; loomd started as the unit would start it (systemctl
# where systemd runs, else setpriv to loom) sweeps an ibsim fabric as loom
# (loomctl shows its nodes; /proc/PID/status: loom's uid and gid, loom-umad,
# no capability, no_new_privs) and makes its database, loom's; a
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
	[ -n "$loomd_pid" ] && kill "$loomd_pid" 2>/dev/null && wait "$loomd_pid" 2>/dev/null || :
	# The simulator and the systemd drop-in of the sweep as loom, if it failed.
	[ -f "$tmp/sim/ibsim.pid" ] && kill "$(cat "$tmp/sim/ibsim.pid")" ${sim_pid:-} 2>/dev/null || :
	if [ -f /run/systemd/system/loomd.service.d/pkg-test-ibsim.conf ]; then
		systemctl stop loomd.service 2>/dev/null || :
		rm -f /run/systemd/system/loomd.service.d/pkg-test-ibsim.conf
		systemctl daemon-reload 2>/dev/null || :
	fi
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

# ---- loomd without root: the udev rule, the loom-umad group, the unit's
# exposure, and `loomd -n -u loom` on the shipped configuration
[ -f /lib/udev/rules.d/60-loom-umad.rules ] || fail "60-loom-umad.rules is not installed"
grep -q 'KERNEL=="umad\*", GROUP="loom-umad", MODE="0660"' /lib/udev/rules.d/60-loom-umad.rules ||
	fail "60-loom-umad.rules does not give umad* to loom-umad"
umad_gid=$(getent group loom-umad | cut -d: -f3)
[ -n "$umad_gid" ] || fail "no loom-umad group after installation"
id -nG loom | tr ' ' '\n' | grep -qx loom-umad || fail "loom is not in the group loom-umad"
ok "60-loom-umad.rules installed; the loom-umad group (gid $umad_gid) holds loom"
if systemd-analyze security --help 2>&1 | grep -q -- '--offline'; then
	sh "$src/tests/integration/service_hardening.sh" "$unit" >"$tmp/hardening.out" 2>&1 ||
		{ cat "$tmp/hardening.out"; fail "the installed loomd.service is not hardened enough"; }
	ok "installed loomd.service: $(grep -o 'exposure [0-9.]*' "$tmp/hardening.out" | head -n 1) (systemd-analyze security)"
fi
/usr/sbin/loomd -n -u loom -c /etc/loom/loom.yaml >/dev/null 2>"$tmp/loomd-n-u.err" ||
	{ cat "$tmp/loomd-n-u.err"; fail "loomd -n -u loom refuses the shipped configuration"; }
[ ! -s "$tmp/loomd-n-u.err" ] ||
	{ cat "$tmp/loomd-n-u.err"; fail "loomd -n -u loom warns about the shipped configuration"; }
ok "loomd -n -u loom: the shipped configuration writes only where loom may"

# ---- loomd as the unit starts it, as loom, sweeping an ibsim fabric.
# umad2sim (LD_PRELOAD) stands in for the MAD devices; it reaches ibsim on
# an abstract socket (so: the same network namespace) and makes a sys-PID
# directory where its client runs: /var/lib/loom, loom's own. Where systemd
# runs: `systemctl start loomd` with a drop-in adding only the preload and
# that directory. Elsewhere: the unit's ExecStart= under its User=, Group=,
# SupplementaryGroups= and NoNewPrivileges= through setpriv, with the
# directories systemd would make (StateDirectory=, RuntimeDirectory=), in a
# network namespace of its own with ibsim (no stray simulator can answer).
preload=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
command -v ibsim >/dev/null 2>&1 && command -v opensm >/dev/null 2>&1 && [ -e "$preload" ] ||
	fail "ibsim, opensm and umad2sim (ibsim-utils, opensm) are needed to sweep as loom"
mkdir -p "$tmp/sim"
# What the installed unit says, not what this test assumes: its user, group
# and command (the checks below then want loom).
u_user=$(sed -n 's/^User=//p' "$unit")
u_group=$(sed -n 's/^Group=//p' "$unit")
u_exec=$(sed -n 's/^ExecStart=//p' "$unit")
u_nnp=""
grep -qx 'NoNewPrivileges=yes' "$unit" && u_nnp=--no-new-privs
[ -n "$u_user" ] && [ -n "$u_group" ] || fail "$unit sets no User= or Group=: loomd would run as root"
install -d -o "$u_user" -g "$u_group" -m 0755 /var/lib/loom /run/loom
# An HTTP listener, so that the front end (a process apart: no MAD device,
# no database, sandboxed) runs too, under the unit's user.
sed -i 's/^  listen: \[\] /  listen: ["127.0.0.1:9477"] /' /etc/loom/loom.yaml
grep -q '^  listen: \["127.0.0.1:9477"\]' /etc/loom/loom.yaml || fail "cannot set http.listen in loom.yaml"
# fabric.sh [ibsim-only]: ibsim on tiny.net and one OpenSM sweep (LIDs),
# as root, then loomd as loom (or, for systemd, only wait).
{
	echo 'set -e'
	echo "cd '$tmp/sim'"
	echo 'ip link set lo up 2>/dev/null || :'
	echo 'mkfifo ibsim.in'
	echo "ibsim -s '$src/tests/fabrics/tiny.net' <ibsim.in >ibsim.log 2>&1 &"
	echo 'echo $! >ibsim.pid'
	echo 'exec 9>ibsim.in'
	echo 'i=0; until grep -q "simulator ready" ibsim.log; do i=$((i + 1)); [ $i -lt 100 ]; sleep 0.1; done'
	echo "OSM_CACHE_DIR='$tmp/sim' LD_PRELOAD=$preload opensm -o -f '$tmp/sim/opensm.log' >/dev/null 2>&1 || :"
	echo 'cd /var/lib/loom'
	echo '[ "${1:-}" != ibsim-only ] || exec sleep 3600'
	echo "exec setpriv --reuid=$u_user --regid=$u_group --init-groups $u_nnp \\"
	echo "	env LD_PRELOAD=$preload $u_exec -c /etc/loom/loom.yaml"
} >"$tmp/sim/fabric.sh"
if [ -d /run/systemd/system ]; then
	sh "$tmp/sim/fabric.sh" ibsim-only >"$tmp/loomd.log" 2>&1 8>&- &
	sim_pid=$!
	i=0
	until grep -q "SUBNET UP" "$tmp/sim/opensm.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "OpenSM did not bring the ibsim fabric up"
		sleep 0.1
	done
	mkdir -p /run/systemd/system/loomd.service.d
	printf '[Service]\nEnvironment=LD_PRELOAD=%s\nWorkingDirectory=/var/lib/loom\n' "$preload" \
		>/run/systemd/system/loomd.service.d/pkg-test-ibsim.conf
	systemctl daemon-reload
	systemctl start loomd.service ||
		{ journalctl -u loomd -n 40 --no-pager; fail "systemctl start loomd"; }
	loomd_pid=$(systemctl show -p MainPID --value loomd.service)
	how="systemctl start loomd"
else
	unshare -n sh "$tmp/sim/fabric.sh" >"$tmp/loomd.log" 2>&1 8>&- &
	loomd_pid=$!
	how="setpriv --reuid=$u_user --regid=$u_group --init-groups $u_nnp $u_exec"
fi
i=0
until loomctl status >"$tmp/status.out" 2>&1; do
	i=$((i + 1))
	kill -0 "$loomd_pid" 2>/dev/null || { cat "$tmp/loomd.log"; fail "loomd exited"; }
	[ $i -lt 300 ] || { cat "$tmp/loomd.log" "$tmp/status.out"; fail "loomctl status: no answer in 30 s"; }
	sleep 0.1
done
loomctl discover --wait >"$tmp/discover.out" 2>&1 ||
	{ cat "$tmp/discover.out" "$tmp/loomd.log"; fail "loomctl discover --wait (loomd as loom, on ibsim)"; }
loomctl nodes >"$tmp/nodes.out" 2>&1 || { cat "$tmp/nodes.out"; fail "loomctl nodes"; }
for n in Hca-A Hca-B Switch-1; do
	grep -q " $n\$" "$tmp/nodes.out" || { cat "$tmp/nodes.out"; fail "loomctl nodes: no $n after the sweep"; }
done
loom_uid=$(id -u loom)
loom_gid=$(id -g loom)
st=/proc/$loomd_pid/status
[ "$(readlink "/proc/$loomd_pid/exe")" = /usr/sbin/loomd ] || fail "pid $loomd_pid is not /usr/sbin/loomd"
grep -Eq "^Uid:[[:space:]]+$loom_uid[[:space:]]+$loom_uid[[:space:]]+$loom_uid[[:space:]]+$loom_uid\$" "$st" ||
	{ grep '^Uid' "$st"; fail "loomd does not run as loom ($loom_uid)"; }
grep -Eq "^Gid:[[:space:]]+$loom_gid[[:space:]]+$loom_gid[[:space:]]+$loom_gid[[:space:]]+$loom_gid\$" "$st" ||
	{ grep '^Gid' "$st"; fail "loomd does not run with the group loom ($loom_gid)"; }
grep '^Groups:' "$st" | tr ' \t' '\n\n' | grep -qx "$umad_gid" ||
	{ grep '^Groups' "$st"; fail "loomd is not in loom-umad ($umad_gid)"; }
grep -Eq '^CapEff:[[:space:]]+0+$' "$st" || { grep '^Cap' "$st"; fail "loomd holds capabilities"; }
grep -Eq '^NoNewPrivs:[[:space:]]+1$' "$st" || fail "loomd may gain privileges (NoNewPrivs is not 1)"
# The HTTP front end: loomd's child `loomd --http-front`, loom too, with
# no_new_privs and seccomp, no MAD device or database descriptor, and its
# own proof that it cannot open them; it answers in loomd's namespace.
fp=""
for p in /proc/[0-9]*; do
	[ "$(awk '/^PPid:/ { print $2 }' "$p/status" 2>/dev/null)" = "$loomd_pid" ] || continue
	tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q -- '--http-front' && fp=${p#/proc/}
done
[ -n "$fp" ] || { cat "$tmp/loomd.log"; fail "no HTTP front end process under loomd"; }
grep -Eq "^Uid:[[:space:]]+$loom_uid[[:space:]]" "/proc/$fp/status" || fail "the front end is not loom"
grep -Eq '^NoNewPrivs:[[:space:]]+1$' "/proc/$fp/status" || fail "the front end has no no_new_privs"
grep -Eq '^Seccomp:[[:space:]]+2$' "/proc/$fp/status" || fail "the front end has no seccomp filter"
for f in /proc/"$fp"/fd/*; do
	case $(readlink "$f") in *loom.db* | /dev/infiniband/*) fail "the front end holds $(readlink "$f")" ;; esac
done
if [ -d /run/systemd/system ]; then
	journalctl -u loomd --no-pager >"$tmp/journal.out" 2>&1 || :
	flog=$tmp/journal.out
else
	flog=$tmp/loomd.log
fi
grep -q "sandbox: none of the .* paths checked opens" "$flog" ||
	fail "the front end did not prove its sandbox: $(grep loomd-http "$flog" | tail -n 3)"
[ "$(nsenter -t "$loomd_pid" -n curl -s --max-time 5 http://127.0.0.1:9477/healthz)" = ok ] ||
	fail "the front end does not answer /healthz"
ok "the HTTP front end (pid $fp): loom, no_new_privs, seccomp, no MAD or database descriptor, cannot open them; /healthz ok"
ok "$how: loomd (pid $loomd_pid: Uid $loom_uid loom, groups loom and loom-umad, CapEff 0, NoNewPrivs) swept ibsim: $(head -n 1 "$tmp/discover.out")"
if [ -d /run/systemd/system ]; then
	systemctl stop loomd.service
	rm -f /run/systemd/system/loomd.service.d/pkg-test-ibsim.conf
	systemctl daemon-reload
	kill "$(cat "$tmp/sim/ibsim.pid")" "$sim_pid" 2>/dev/null || :
	wait "$sim_pid" 2>/dev/null || :
else
	kill "$loomd_pid"
	wait "$loomd_pid" || :
	kill "$(cat "$tmp/sim/ibsim.pid")" 2>/dev/null || :
fi
loomd_pid=""
[ -s /var/lib/loom/loom.db ] || fail "loomd made no /var/lib/loom/loom.db"
[ "$(stat -c %U /var/lib/loom/loom.db)" = loom ] || fail "/var/lib/loom/loom.db is not loom's"
ok "loomd -f with the shipped config answers loomctl status, database in /var/lib/loom, loom's"

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
