#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomd's life cycle without a fabric: config check (-n, including the
# database's directory and the sockets' places the start needs), startup,
# systemd notifications, SIGHUP reload (a bad file is refused and the running
# config stays; a good one is applied; the new subnet list wins, an emptied
# one means every local port), a failing sweep recorded, SIGTERM shutdown,
# kill -9 survival, loomctl --db on the stopped daemon's database, and the
# exit status 78 of a start that trying again cannot mend.
set -eu
B=${top_builddir:-$(pwd)}
work=$(mktemp -d /tmp/loom-daemon.XXXXXX)
pid=""; lpid=""
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- loomd log:"; cat "$work/loomd.log" 2>/dev/null || :; exit 1; }
ok() { echo "ok: $*"; }
ctl() { "$B/loomctl" -s "$work/sock" "$@"; }

write_conf() { # write_conf INTERVAL [EXTRA-LINE]
	cat > "$work/loom.yaml" <<EOC
log:
  level: debug
database:
  path: $work/loom.db
control:
  socket: $work/sock
opensm:
  report_socket: $work/osm.sock
discovery:
  interval: $1
  timeout_ms: 50
  retries: 0
  subnets:
    - name: nowhere
      ca: nosuch_hca
      port: 1
$2
EOC
}

# ---- -n: check and normalize --------------------------------------------------
write_conf 0 ""
"$B/loomd" -n -c "$work/loom.yaml" > "$work/norm.yaml" || fail "loomd -n refused a good config"
grep -q "nosuch_hca" "$work/norm.yaml" || fail "normalized config lost the subnet"
"$B/loomd" -n -c "$work/norm.yaml" > "$work/norm2.yaml" || fail "normalized output does not load"
cmp -s "$work/norm.yaml" "$work/norm2.yaml" || fail "normalizing is not stable"
ok "loomd -n prints a normalized config that loads again"

printf 'discovery:\n  interval: 300\n  bogus_key: 1\n' > "$work/bad.yaml"
if "$B/loomd" -n -c "$work/bad.yaml" 2> "$work/err"; then fail "loomd -n accepted an unknown key"; fi
grep -q "bad.yaml:3:.*bogus_key" "$work/err" || fail "error does not name file:line:key: $(cat "$work/err")"
ok "bad config: $(cat "$work/err")"

if "$B/loomd" -n -c "$work/missing.yaml" 2> "$work/err"; then fail "an explicit missing -c file was accepted"; fi
ok "explicit missing config refused: $(cat "$work/err")"

# -n checks what the start needs: the database's directory (the start creates
# one missing level only) and the sockets' places, naming file:line:key.
write_conf 0 ""
sed "s|path: $work/loom.db|path: $work/no/such/dir/loom.db|" "$work/loom.yaml" > "$work/nodb.yaml"
if "$B/loomd" -n -c "$work/nodb.yaml" > /dev/null 2> "$work/err"; then
	fail "loomd -n accepted a database in a directory that does not exist"; fi
grep -q "nodb.yaml:4: database.path: directory $work/no/such does not exist" "$work/err" ||
	fail "missing database directory: error does not name file:line:key: $(cat "$work/err")"
ok "database in a missing directory refused: $(cat "$work/err")"
sed "s|path: $work/loom.db|path: $work/newdir/loom.db|" "$work/loom.yaml" > "$work/newdb.yaml"
"$B/loomd" -n -c "$work/newdb.yaml" > /dev/null || fail "loomd -n refused a database whose one missing directory the start creates"
: > "$work/notasock"
sed "s|socket: $work/sock|socket: $work/notasock|" "$work/loom.yaml" > "$work/nosock.yaml"
if "$B/loomd" -n -c "$work/nosock.yaml" > /dev/null 2> "$work/err"; then
	fail "loomd -n accepted a control socket path that is a plain file"; fi
grep -q "nosock.yaml:6: control.socket: .*not a socket" "$work/err" ||
	fail "control socket on a file: $(cat "$work/err")"
ok "control socket on a plain file refused: $(cat "$work/err")"

# ---- start under a fake systemd ----------------------------------------------
python3 - "$work/notify" "$work/notify.log" <<'EOP' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        msg = s.recv(4096).decode()
        log.write(msg.replace("\n", " ") + "\n")
EOP
lpid=$!
i=0; until [ -S "$work/notify" ]; do i=$((i+1)); [ $i -lt 50 ] || fail "notify listener"; sleep 0.1; done

NOTIFY_SOCKET=$work/notify WATCHDOG_USEC=400000 "$B/loomd" -f -c "$work/loom.yaml" 2> "$work/loomd.log" &
pid=$!
i=0; until grep -q READY=1 "$work/notify.log" 2>/dev/null; do
	i=$((i+1)); [ $i -lt 100 ] || fail "no READY=1 from loomd"; sleep 0.1; done
ok "READY=1 sent"
sleep 0.5
grep -q WATCHDOG=1 "$work/notify.log" || fail "no WATCHDOG=1 although WATCHDOG_USEC is set"
ok "WATCHDOG=1 sent"

ctl status > "$work/status" || fail "loomctl status"
ctl --json status | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["sweep"]["interval"] == 0, s
assert [x["name"] for x in s["sweep"]["subnets"]] == ["nowhere"], s
' || fail "status JSON"
ok "loomctl status answers"

# ---- a sweep that fails is reported and recorded ------------------------------
ctl --json discover --wait > "$work/disc.json" || fail "discover --wait"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sweeps"][0]
assert s["subnet"] == "nowhere" and s["status"] == "failed" and s["error"], d
' "$work/disc.json" || fail "failed sweep not reported: $(cat "$work/disc.json")"
ctl --json events | grep -q sweep_failed || fail "failed sweep left no event"
ok "failed sweep reported and recorded as an event"

# ---- reload: bad file refused, old config stays -------------------------------
cp "$work/loom.yaml" "$work/good.yaml"
printf 'discovery:\n  interval: 1000000\n' > "$work/loom.yaml"
kill -HUP "$pid"
i=0; until grep -q "reload refused" "$work/loomd.log"; do
	i=$((i+1)); [ $i -lt 50 ] || fail "no 'reload refused' after a bad config"; sleep 0.1; done
kill -0 "$pid" || fail "loomd died on a bad reload"
grep -q "loom.yaml:2:.*interval" "$work/loomd.log" || fail "reload error does not name line and key"
ctl --json status | python3 -c '
import json, sys; s = json.load(sys.stdin); assert s["sweep"]["interval"] == 0, s' ||
	fail "running config changed after a refused reload"
grep -q RELOADING=1 "$work/notify.log" || fail "no RELOADING=1"
ok "bad reload refused, running config kept"

write_conf 3600 ""
kill -HUP "$pid"
i=0; until ctl --json status | grep -q '"interval": 3600'; do
	i=$((i+1)); [ $i -lt 50 ] || fail "good reload not applied"; sleep 0.1; done
ok "good reload applied (interval 3600)"

# ---- reload: the new subnet list wins -------------------------------------------
subnets_conf() { # subnets_conf YAML-FOR-discovery.subnets
	write_conf 3600 ""
	sed -i '/^  subnets:/,$d' "$work/loom.yaml"
	printf '  subnets: %s\n' "$1" >> "$work/loom.yaml"
}
sweep_names() { ctl --json status | python3 -c '
import json, sys; s = json.load(sys.stdin)["sweep"]
print(("auto " if s["autodetect"] else "") + ",".join(x["name"] for x in s["subnets"]))'; }
subnets_conf '[{name: elsewhere, ca: other_hca, port: 2}]'
kill -HUP "$pid"
i=0; until [ "$(sweep_names)" = elsewhere ]; do
	i=$((i+1)); [ $i -lt 50 ] || fail "reload to another subnet: sweeping $(sweep_names)"; sleep 0.1; done
ok "reload with another subnet: only it is swept"
# Emptied: as with no list at all, every local port (none here) and not the
# subnets of the file before.
subnets_conf '[]'
kill -HUP "$pid"
i=0; until sweep_names | grep -q '^auto'; do
	i=$((i+1)); [ $i -lt 50 ] || fail "reload with subnets: [] not applied"; sleep 0.1; done
case "$(sweep_names)" in *elsewhere*) fail "subnets emptied by a reload still swept: $(sweep_names)";; esac
ctl --json discover --wait > "$work/disc.json" 2>&1 || :
grep -q elsewhere "$work/disc.json" && fail "discover swept a subnet removed by the reload"
ok "reload with subnets emptied: old subnets no longer swept ($(sweep_names))"
write_conf 3600 ""
kill -HUP "$pid"
i=0; until [ "$(sweep_names)" = nowhere ]; do
	i=$((i+1)); [ $i -lt 50 ] || fail "reload back to a subnet list: sweeping $(sweep_names)"; sleep 0.1; done
ok "reload from no list back to a list: only the list is swept"

# ---- SIGTERM: clean shutdown ------------------------------------------------------
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=""
[ $rc -eq 0 ] || fail "loomd exited $rc on SIGTERM"
grep -q STOPPING=1 "$work/notify.log" || fail "no STOPPING=1"
[ ! -e "$work/sock" ] || fail "socket left behind"
ok "SIGTERM: exit 0, STOPPING=1, socket removed"

# ---- the database outlives the daemon -------------------------------------------
"$B/loomctl" --db "$work/loom.db" --json events | grep -q sweep_failed ||
	fail "loomctl --db cannot read the events"
ok "loomctl --db reads a stopped daemon's database"

# ---- kill -9 and restart ---------------------------------------------------------
"$B/loomd" -f -c "$work/loom.yaml" 2>> "$work/loomd.log" &
pid=$!
i=0; until [ -S "$work/sock" ]; do i=$((i+1)); [ $i -lt 100 ] || fail "restart"; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null || :
pid=""
"$B/loomd" -f -c "$work/loom.yaml" 2>> "$work/loomd.log" &
pid=$!
i=0; until ctl status >/dev/null 2>&1; do i=$((i+1)); [ $i -lt 100 ] || fail "no restart after kill -9 (stale socket?)"; sleep 0.1; done
[ "$(sqlite3 "$work/loom.db" 'PRAGMA integrity_check')" = ok ] || fail "database damaged by kill -9"
ok "restart after kill -9: stale socket replaced, database intact"

# ---- a second loomd on the same socket is refused --------------------------------
if "$B/loomd" -f -c "$work/loom.yaml" 2> "$work/second.log"; then fail "a second loomd started on a live socket"; fi
ok "second loomd refused: $(tail -n1 "$work/second.log")"
kill -TERM "$pid"; wait "$pid" || :
pid=""

# ---- starts that trying again cannot mend exit 78 (RestartPreventExitStatus=) ---
cp "$work/loom.db" "$work/newer.db"
sqlite3 "$work/newer.db" "PRAGMA user_version = 9999"
rc=0; "$B/loomd" -f -c "$work/loom.yaml" --db "$work/newer.db" 2> "$work/newer.log" || rc=$?
[ $rc -eq 78 ] || fail "a database newer than loomd: exit $rc, not 78"
[ "$(grep -c 'newer than this loomd' "$work/newer.log")" = 1 ] ||
	fail "not one line saying why: $(cat "$work/newer.log")"
printf 'discovery:\n  interval: 1\n' > "$work/bad.yaml"
rc=0; "$B/loomd" -f -c "$work/bad.yaml" 2> "$work/bad.log" || rc=$?
[ $rc -eq 78 ] || fail "a refused configuration at start: exit $rc, not 78"
ok "newer database and refused configuration: exit 78, one line why"
echo "daemon.sh: all ok"
