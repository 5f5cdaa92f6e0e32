#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomd.service as built keeps its promises (issue 40, docs/privileges.md):
# `systemd-analyze security --offline=true` rates its exposure 2.5 or below
# ("OK"); it runs loomd as loom with no capability; its system call filter
# still allows what loomd needs (execve of its own children, their prctl()
# seccomp() and Landlock calls, setrlimit for the open-files limit); it still reaches the
# MAD devices and the address families loomd talks over; and it may write
# exactly /var/lib/loom and /run/loom.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${top_builddir:-$S/build}
unit=${1:-$B/etc/loomd.service}
fail() { echo "service_hardening.sh: FAIL: $*"; exit 1; }
command -v systemd-analyze >/dev/null 2>&1 || { echo "SKIP: no systemd-analyze"; exit 77; }
systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
	{ echo "SKIP: systemd-analyze security has no --offline (systemd < 250)"; exit 77; }
[ -f "$unit" ] || fail "$unit is not built"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The exposure: --threshold takes tenths (0..100) and makes the exit status
# non-zero above it (systemd 252).
rc=0
systemd-analyze security --offline=true --threshold=25 "$unit" >"$out" 2>&1 || rc=$?
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$out")
[ -n "$score" ] || { cat "$out"; fail "no overall exposure level in systemd-analyze's output"; }
[ "$rc" -eq 0 ] || { grep '✗' "$out"; fail "exposure $score is above 2.5"; }
echo "ok: systemd-analyze security --offline: exposure $score (at most 2.5)"

# The value of a unit option (the last line that sets it; empty if none).
opt() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
[ "$(opt User)" = loom ] || fail "User= is '$(opt User)', not loom"
[ "$(opt Group)" = loom ] || fail "Group= is '$(opt Group)', not loom"
[ "$(opt SupplementaryGroups)" = loom-umad ] || fail "the group of the MAD devices (loom-umad) is not loomd's"
grep -qx 'CapabilityBoundingSet=' "$unit" || fail "the capability bounding set is not empty"
[ -z "$(opt AmbientCapabilities)" ] || fail "ambient capabilities: $(opt AmbientCapabilities)"
echo "ok: User=loom, Group=loom, SupplementaryGroups=loom-umad, no capability"

# The system calls the filter allows: its groups expanded by systemd itself.
filter=$(sed -n 's/^SystemCallFilter=//p' "$unit")
case $filter in "" | *"~"*) fail "SystemCallFilter= is not one allow list: '$filter'" ;; esac
# A group lists its calls and the groups it includes (@default...).
expand() {
	for _f; do
		case $_f in
		@*) expand $(systemd-analyze syscall-filter "$_f" | sed -n '2,$s/^ *\([@a-z_0-9-]*\)$/\1/p') ;;
		*) echo "$_f" ;;
		esac
	done
}
allowed=$(expand $filter | sort -u)
for sc in execve prctl seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self \
	setrlimit socket connect bind sendmsg ioctl; do
	echo "$allowed" | grep -qx "$sc" || fail "SystemCallFilter=$filter does not allow $sc()"
done
echo "ok: SystemCallFilter=$filter allows execve, prctl, seccomp, Landlock, setrlimit, sockets, ioctl"

for af in AF_UNIX AF_NETLINK AF_INET AF_INET6; do
	opt RestrictAddressFamilies | tr ' ' '\n' | grep -qx "$af" || fail "$af is not allowed"
done
grep -qx 'DeviceAllow=char-infiniband_mad rw' "$unit" || fail "no rw access to the MAD devices (char-infiniband_mad)"
grep -q '^PrivateDevices=yes' "$unit" && fail "PrivateDevices=yes hides /dev/infiniband"
grep -q '^PrivateUsers=yes' "$unit" && fail "PrivateUsers=yes loses the loom-umad group"
[ "$(opt ReadWritePaths)" = "/var/lib/loom /run/loom" ] ||
	fail "ReadWritePaths= is '$(opt ReadWritePaths)', not what loom writes (/var/lib/loom /run/loom)"
[ "$(opt StateDirectory)" = loom ] && [ "$(opt RuntimeDirectory)" = loom ] ||
	fail "StateDirectory=/RuntimeDirectory= no longer make /var/lib/loom and /run/loom"
echo "ok: MAD devices, AF_UNIX/NETLINK/INET/INET6, writes only /var/lib/loom and /run/loom"
echo "service_hardening.sh: all ok"
