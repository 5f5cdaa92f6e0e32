#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tools/pkg-upgrade.sh: an upgrade from the previous package to this one
# keeps everything (issue 40). The previous version is debian/changelog's
# second entry; its tree is the newest git commit whose debian/changelog
# starts with that version (git archive of it). tools/check.sh runs this
# right after tools/pkg-test.sh, under the same conditions (root,
# dpkg-buildpackage, no loom package installed, no /etc/loom or
# /var/lib/loom), and hands it that script's .debs in LOOM_PKG_DEBS (else
# this tree's are built here).
#
# Checked: the previous packages installed with apt-get; loomd (as their
# unit runs it) sweeps an ibsim fabric (tests/fabrics/tiny.net, in a
# network namespace of its own) so the database has subnets, sweeps, nodes,
# ports, links and events; an operator's edit to /etc/loom/loom.yaml; this
# version installed over them with apt-get (the conffile kept as edited, as
# a site upgrades unattended); every table has as many rows as before or
# more, and every old row's key (PRIMARY KEY, else rowid) is still there; a
# schema change made the copy PATH.schema-N.bak; loomd of this
# version starts on the database, sweeps and answers loomctl, the old
# history still there. Where systemd runs: loomd.service started before the
# upgrade is restarted by it (dh_installsystemd --restart-after-upgrade).
# The packages are purged at the end, also when a check fails.
# Exit 0, 1 on a failure, 77 when it cannot run here (said why).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=pkg-upgrade
. "$top/tools/pkg-lib.sh"
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
UNIT=/lib/systemd/system/loomd.service
DB=/var/lib/loom/loom.db

# ---- in a network namespace of its own (unshare -n): ibsim on WORK's
# fabric and loomd as the installed unit runs it (its User=), swept once
# more, while COMMAND... runs (its output in WORK/out); then both stopped.
if [ "${1:-}" = --fabric ]; then
	work=$2; shift 2
	cd "$work"  # umad2sim leaves a sys-PID directory where its clients run
	ip link set lo up
	pids=""
	trap 'for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || :; done' EXIT
	ibsim -n -s "$top/tests/fabrics/tiny.net" >ibsim.log 2>&1 </dev/null &
	pids=$!
	i=0
	until grep -qs "simulator ready" ibsim.log; do
		i=$((i + 1)); [ $i -lt 300 ] || { cat ibsim.log; fail "ibsim did not start"; }
		sleep 0.1
	done
	user=$(sed -n 's/^User=//p' "$UNIT" | tail -n 1)
	runas=""
	install -d -m 0755 /run/loom /var/lib/loom
	if [ -n "$user" ]; then  # what systemd does for RuntimeDirectory=, StateDirectory=
		chown "$user:" /run/loom
		chown -R "$user:" /var/lib/loom
		runas="setpriv --reuid=$user --regid=$(id -g "$user") --init-groups --"
	fi
	# From a directory loomd's user may write: umad2sim makes its sys-PID
	# directory where its client runs (/var/lib/loom, as pkg-test.sh does).
	# shellcheck disable=SC2086
	(cd /var/lib/loom && LD_PRELOAD=$PRELOAD exec $runas /usr/sbin/loomd -f \
		-c /etc/loom/loom.yaml) >>loomd.log 2>&1 &
	pids="$! $pids"
	i=0
	until loomctl status >status.out 2>&1; do
		i=$((i + 1)); [ $i -lt 150 ] || { cat loomd.log status.out; fail "loomctl status: no answer"; }
		sleep 0.1
	done
	loomctl discover --wait >discover.out 2>&1 || { cat loomd.log discover.out; fail "loomctl discover"; }
	"$@" >out 2>&1 || { cat loomd.log out; fail "with loomd running: $*"; }
	exit 0
fi

pkg_require
began=$(date +%s)
if ! command -v git >/dev/null 2>&1 || ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	skip "not a git checkout: the previous version is built from git history"
fi
for t in ibsim unshare ip sqlite3 setpriv; do
	command -v "$t" >/dev/null 2>&1 || skip "no $t"
done
[ -e "$PRELOAD" ] || skip "$PRELOAD is missing (ibsim-utils)"
unshare -n true 2>/dev/null || skip "cannot create a network namespace"
new=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
old=$(dpkg-parsechangelog -l "$top/debian/changelog" -o 1 -c 1 -S Version)
[ -n "$old" ] || skip "debian/changelog has no version before $new"

# The version at the top of COMMIT's debian/changelog ('' if none).
top_version() {
	git -C "$top" show "$1:debian/changelog" 2>/dev/null | sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p'
}
# The newest commit whose debian/changelog starts with $old: a parent of the
# newest commit that changed the file away from it (HEAD if none did).
old_commit() {
	[ "$(top_version HEAD)" != "$old" ] || { git -C "$top" rev-parse HEAD; return; }
	for c in $(git -C "$top" log --format=%H -- debian/changelog); do
		[ "$(top_version "$c")" != "$old" ] || continue
		for p in $(git -C "$top" log -1 --format=%P "$c"); do
			[ "$(top_version "$p")" != "$old" ] || { echo "$p"; return; }
		done
	done
}
commit=$(old_commit)
[ -n "$commit" ] ||
	skip "git history has no commit whose debian/changelog starts with $old (a shallow clone?)"
ok "the previous version: $old, commit $(git -C "$top" log -1 --format='%h %cs' "$commit")"

tmp=$(mktemp -d /tmp/pkg-upgrade.XXXXXX)
cleanup() {
	[ -d /run/systemd/system ] && systemctl stop loomd.service 2>/dev/null
	pkg_purge
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the two versions' packages
mkdir -p "$tmp/old" "$tmp/new"
git -C "$top" archive --prefix="loom-$old/" "$commit" | tar -x -C "$tmp/old"
pkg_build "$tmp/old/loom-$old"
olddebs=$(pkg_debs "$tmp/old" "$old")
if [ -n "${LOOM_PKG_DEBS:-}" ] && newdebs=$(pkg_debs "$LOOM_PKG_DEBS" "$new" 2>/dev/null); then
	ok "$new's .debs from tools/pkg-test.sh ($LOOM_PKG_DEBS)"
else
	pkg_copy_tree "$top" "$tmp/new/loom-$new"
	pkg_build "$tmp/new/loom-$new"
	newdebs=$(pkg_debs "$tmp/new" "$new")
fi

# ---- the previous version installed and used
# shellcheck disable=SC2086
pkg_apt install $olddebs >"$tmp/apt-old.log" 2>&1 ||
	{ tail -n 40 "$tmp/apt-old.log"; fail "apt-get install of $old"; }
[ "$(loomctl --version)" = "loomctl $old" ] || fail "loomctl --version: $(loomctl --version)"
ok "apt-get install of $old"
# Is discovery.interval in /etc/loom/loom.yaml 240 (the site's edit)?
edited() { sed -n '/^discovery:$/,/^[^ ]/p' /etc/loom/loom.yaml | grep -qx '  interval: 240'; }
sed -i '/^discovery:$/,/^[^ ]/s/^  interval: 300$/  interval: 240/' /etc/loom/loom.yaml
edited || fail "cannot edit discovery.interval in /etc/loom/loom.yaml"
unshare -n sh "$0" --fabric "$tmp" loomctl events --limit 1 8>&- ||
	fail "loomd $old on ibsim"
# Each table's rows, "name count" a line.
rows() {
	for t in $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE type = 'table' AND
			       name NOT LIKE 'sqlite_%' ORDER BY name"); do
		echo "$t $(sqlite3 "$DB" "SELECT count(*) FROM \"$t\"")"
	done
}
rows >"$tmp/rows-old"
for t in subnets sweeps nodes ports links events; do
	grep -q "^$t [1-9]" "$tmp/rows-old" || fail "loomd $old left no rows in $t"
done
schema_old=$(sqlite3 "$DB" "PRAGMA user_version")
sqlite3 "$DB" ".backup '$tmp/old.db'"
ok "loomd $old swept ibsim: $(tr '\n' ' ' <"$tmp/rows-old" | sed 's/ $//') (schema $schema_old)"

pid_old=""
if [ -d /run/systemd/system ]; then
	systemctl start loomd.service || fail "systemctl start loomd ($old)"
	pid_old=$(systemctl show -p MainPID --value loomd.service)
	[ "${pid_old:-0}" != 0 ] || fail "loomd.service ($old) has no main process"
fi

# ---- this version over it, unattended: a conffile edited by the site kept
# shellcheck disable=SC2086
pkg_apt -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	install $newdebs >"$tmp/apt-new.log" 2>&1 ||
	{ tail -n 40 "$tmp/apt-new.log"; fail "apt-get install of $new over $old"; }
[ "$(loomctl --version)" = "loomctl $new" ] || fail "loomctl --version: $(loomctl --version)"
ok "apt-get install of $new over $old"
edited || fail "the upgrade lost the edit to /etc/loom/loom.yaml"
ok "/etc/loom/loom.yaml keeps the operator's edit (discovery.interval: 240)"
if [ -n "$pid_old" ]; then
	[ "$(systemctl is-active loomd.service)" = active ] || fail "loomd.service is not active after the upgrade"
	pid_new=$(systemctl show -p MainPID --value loomd.service)
	[ "$pid_new" != "$pid_old" ] || fail "the upgrade did not restart loomd.service (pid $pid_old)"
	i=0
	until loomctl status >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || fail "loomd.service after the upgrade: no answer to loomctl status"
		sleep 0.1
	done
	ok "the package restarted loomd.service (pid $pid_old -> $pid_new), it answers loomctl"
	systemctl stop loomd.service
else
	grep -q "try-restart 'loomd.service'" /var/lib/dpkg/info/loomd.postinst ||
		fail "loomd's postinst restarts no running loomd"
	ok "no systemd here: loomd's postinst has the restart after upgrade, not exercised"
fi

# ---- loomd of this version on the database: migrated if the schema moved,
# every row kept, the old history read
unshare -n sh "$0" --fabric "$tmp" loomctl events --limit 100000 8>&- ||
	fail "loomd $new on ibsim after the upgrade"
schema_new=$(sqlite3 "$DB" "PRAGMA user_version")
if [ "$schema_new" != "$schema_old" ]; then
	[ -s "$DB.schema-$schema_old.bak" ] ||
		fail "schema $schema_old -> $schema_new without the copy $DB.schema-$schema_old.bak"
	ok "database migrated from schema $schema_old to $schema_new, the copy before kept"
else
	ok "database schema $schema_new in both versions: no migration"
fi
rows >"$tmp/rows-new"
while read -r t n; do
	m=$(sed -n "s/^$t //p" "$tmp/rows-new")
	[ -n "$m" ] || fail "table $t is gone after the upgrade"
	[ "$m" -ge "$n" ] || fail "table $t: $m rows after the upgrade, $n before"
done <"$tmp/rows-old"
# Every row of the old database is still there: each table's key (its
# PRIMARY KEY columns, else its rowid) found in the new one.
while read -r t n; do
	k=$(sqlite3 "$tmp/old.db" "SELECT group_concat('\"' || name || '\"', ', ') FROM
				   (SELECT name FROM pragma_table_info('$t') WHERE pk > 0 ORDER BY pk)")
	lost=$(sqlite3 "$DB" "ATTACH '$tmp/old.db' AS old; SELECT count(*) FROM
			      (SELECT ${k:-rowid} FROM old.\"$t\" EXCEPT SELECT ${k:-rowid} FROM main.\"$t\")")
	[ "$lost" = 0 ] || fail "table $t: $lost rows of $old are gone (by ${k:-rowid})"
done <"$tmp/rows-old"
grep -q . "$tmp/out" || fail "loomctl events after the upgrade: nothing"
ok "every table has its rows or more, every old row's key is there; loomd $new swept and answered loomctl"
echo "pkg-upgrade: all checks passed ($old -> $new, $(($(date +%s) - began)) s)"
