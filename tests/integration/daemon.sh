#!/bin/sh
# loomd's life cycle without a fabric: config check (-n), startup, systemd
# notifications, SIGHUP reload (a bad file is refused and the running config
# stays; a good one is applied), a failing sweep recorded, SIGTERM shutdown,
# kill -9 survival, and loomctl --db on the stopped daemon's database.
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
echo "daemon.sh: all ok"
