#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The control socket's bounds (daemon/core/ctl_limits.h) on a running loomd
# (no fabric): a local user who opens connections in a loop is refused
# past the caps, loomd's descriptors stay bounded and root's loomctl still
# gets in; a client that sends requests and never reads its answers leaves
# loomd's memory bounded and is dropped after the stall timeout
# (control.stall_timeout_s, 5 s here: the key takes effect). loomd runs with
# the descriptor limit of etc/loomd.service.in (LimitNOFILE).
set -eu
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || loom_skip "needs root (acts as nobody)"
loom_need setpriv
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# A python3 that nobody may run (root's may be a shim in /root).
PY=""
for p in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3 || :)"; do
	[ -x "$p" ] && as_nobody "$p" -c "" 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || loom_skip "no python3 that nobody may run"
loom_work
chmod 755 "$work"
mkdir -m 777 "$work/nobody"   # what nobody's clients write
ctl() { timeout 10 "$B/loomctl" -s "$work/loomd.sock" "$@"; }
vmrss() { awk '/^VmRSS:/ { print $2 }' "/proc/$LOOMD_PID/status"; }
nfd() { ls "/proc/$LOOMD_PID/fd" | wc -l; }

nofile=$(sed -n 's/^LimitNOFILE=//p' "$S/etc/loomd.service.in")
[ -n "$nofile" ] || loom_fail "etc/loomd.service.in sets no LimitNOFILE"
loom_config
sed -i 's|^control:$|control:\n  stall_timeout_s: 5|' "$work/loom.yaml"
# The memory bound below is loomd's, not ASan's quarantine (sanitizer lane).
(ulimit -n "$nofile"; loom_asan_no_quarantine; exec "$B/loomd" -f -c "$work/loom.yaml") \
	2>>"$work/loomd.log" &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
ctl status >/dev/null || loom_fail "loomctl status before the tests"
fd0=$(nfd); rss0=$(vmrss)
loom_ok "loomd up: $fd0 descriptors, VmRSS $rss0 kB, LimitNOFILE $nofile"

# ---- connections in a loop, as nobody -----------------------------------------
# Non-blocking connects (a full backlog answers EAGAIN instead of blocking);
# a refused connection reads loomd's "busy" answer, an accepted one nothing.
cat >"$work/flood.py" <<'EOP'
import errno, select, socket, sys, time
path, ready, most = sys.argv[1], sys.argv[2], int(sys.argv[3])
held, refused, msg = [], 0, ""
for i in range(most):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
    except OSError as e:
        s.close()
        if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
            time.sleep(0.05)
            continue
        raise
    held.append(s)
    if i % 8 == 7:
        time.sleep(0.05)
        r, _, _ = select.select(held, [], [], 0)
        for c in r:
            try:
                data = c.recv(4096)
            except OSError:
                data = b""
            if data and not msg:
                msg = data[4:].decode(errors="replace")
            refused += 1
            held.remove(c)
            c.close()
with open(ready, "w") as f:
    f.write("%d %d %s\n" % (len(held), refused, msg))
time.sleep(600)
EOP
(ulimit -n 4096; exec setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PY" "$work/flood.py" "$work/loomd.sock" "$work/nobody/flood.ready" 1500) &
flood=$!
LOOM_PIDS="$LOOM_PIDS $flood"
loom_until 600 test -s "$work/nobody/flood.ready" || loom_fail "the connection loop did not finish"
read -r held refused msg <"$work/nobody/flood.ready"
loom_ok "nobody's loop: $held connections kept, $refused refused ($msg)"
[ "$refused" -gt 0 ] || loom_fail "none of 1500 connections of one user was refused"
ctl status >/dev/null || loom_fail "root's loomctl status failed while nobody holds $held connections"
loom_ok "root's loomctl status answered"
fd1=$(nfd)
[ "$fd1" -le $((fd0 + 64)) ] || loom_fail "loomd holds $fd1 descriptors (started with $fd0)"
loom_ok "loomd's descriptors bounded: $fd1"
n=$(grep -c "refused a connection" "$work/loomd.log" || :)
[ "$n" -le 2 ] || loom_fail "$n log lines for refused connections: not rate-limited"
loom_ok "refusals logged $n time(s)"
kill "$flood"; wait "$flood" 2>/dev/null || :

# ---- a client that never reads ------------------------------------------------
cat >"$work/noread.py" <<'EOP'
import errno, json, socket, struct, sys, time
path, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
s.setblocking(False)
body = json.dumps({"v": 1, "id": 1, "cmd": "status", "args": {}}).encode()
frame = struct.pack(">I", len(body)) + body
buf, sent, start, last = b"", 0, time.time(), time.time()
while True:
    if not buf:
        buf = frame
    try:
        n = s.send(buf)
        buf = buf[n:]
        if not buf:
            sent += 1
        last = time.time()
        continue
    except BlockingIOError:
        pass
    except OSError as e:   # dropped by loomd
        print("dropped after %.0f s, %d requests sent, %s" %
              (time.time() - start, sent, errno.errorcode.get(e.errno, e.errno)))
        sys.exit(0)
    if time.time() - start > secs:
        print("still connected after %.0f s, %d requests sent" % (time.time() - start, sent))
        sys.exit(1)
    time.sleep(0.01)
EOP
as_nobody "$PY" "$work/noread.py" "$work/loomd.sock" 60 >"$work/noread.out" 2>&1 &
noread=$!
LOOM_PIDS="$LOOM_PIDS $noread"
sleep 3
rss1=$(vmrss)
loom_ok "VmRSS after 3 s of a client that never reads: $rss1 kB (was $rss0)"
[ "$rss1" -le $((rss0 + 65536)) ] || loom_fail "VmRSS grew from $rss0 to $rss1 kB"
ctl status >/dev/null || loom_fail "loomctl status while a client does not read"
wait "$noread" || loom_fail "the client that never reads was not dropped: $(cat "$work/noread.out")"
loom_ok "$(cat "$work/noread.out")"
grep -q "has not read its answers for 5 s" "$work/loomd.log" ||
	loom_fail "no log line names the dropped client"
loom_ok "$(grep -o 'control: uid .* dropping it' "$work/loomd.log" | head -n 1)"
