#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loom's database holds the fabric's whole history: it is the operators'.
# Proves that
#  - a database loomd creates, and the -wal and -shm files SQLite makes
#    beside it, are mode 0640 and in control.admin_group;
#  - a database an older loomd left world-readable (0644) is tightened the
#    same way at start, and nothing in it is lost;
#  - a user outside the group cannot read it with loomctl --db; a member can.
# loomd runs without a fabric (no simulator): the database is all it needs.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need setpriv
loom_need sqlite3
group=users
gid=$(getent group "$group" | cut -d: -f3) || loom_skip "no group $group"
loom_work
chmod 755 "$work"  # the unprivileged users below reach the files by name

start() {
	loom_config
	sed -i "s|^control:\$|control:\n  admin_group: $group|" "$work/loom.yaml"
	"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
	LOOM_PIDS="$LOOM_PIDS $!"
	LOOMD_PID=$!
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not start: $(tail -n 5 "$work/loomd.log")"
}
stop() { kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :; }
modes() { stat -c '%a %G' "$@" | sort -u | tr '\n' ' '; }
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_member() { setpriv --reuid=65534 --regid=65534 --groups "$gid" "$@"; }

# ---- a new database --------------------------------------------------------------
start
loom_until 50 test -e "$work/loom.db-wal" || loom_fail "no -wal file beside the database"
[ "$(modes "$work/loom.db" "$work/loom.db-wal" "$work/loom.db-shm")" = "640 $group " ] ||
	loom_fail "new database: $(stat -c '%n %a %G' "$work"/loom.db*)"
if as_user "$B/loomctl" --db "$work/loom.db" events >"$work/user.out" 2>&1; then
	loom_fail "a user outside $group read the database: $(cat "$work/user.out")"
fi
as_member "$B/loomctl" --db "$work/loom.db" events >"$work/member.out" 2>&1 ||
	loom_fail "a member of $group cannot read the database: $(cat "$work/member.out")"
loom_ok "a new database and its -wal and -shm are 0640, group $group; only members read them"

# ---- a database an older loomd left world-readable ----------------------------------
stop
sqlite3 "$work/loom.db" "INSERT INTO events (time, severity, kind, subject) VALUES (1, 'notice', 'db_access_test', 'kept')"
chmod 644 "$work"/loom.db*
chgrp root "$work"/loom.db*
start
[ "$(modes "$work"/loom.db*)" = "640 $group " ] ||
	loom_fail "old database after start: $(stat -c '%n %a %G' "$work"/loom.db*)"
loom_ctl events --limit 50 | grep -q db_access_test || loom_fail "the old database's events are gone"
loom_ok "a world-readable database from before is 0640, group $group, at start, its history kept"
