#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/counters_too_large.sh: what `loomctl counters` tells the
# operator when the counters of a whole large fabric cannot come back as one
# answer (cli/cmd_counters.c), against a stand-in for loomd's control socket
# that answers as loomd does in those cases:
#
#  1. an answer over the protocol's limit: loomd sends the error "too-large"
#     (daemon/core/ctl.c); loomctl prints it and how to ask for less (one
#     node, one subnet, --top, --db);
#  2. an answer loomd gave up sending (a client dropped after
#     control.stall_timeout_s): the frame ends early; loomctl says so, and
#     how to ask for less;
#  3. the same failures for one node's counters get no such advice (asking
#     for less is not the way out there);
#  4. --top N [--sort KEY] asks loomd for the busiest ports (the "counters"
#     command with "sort" and "top", as `loomctl top`), and its usage errors.
# loomd itself is covered by test_ctl (a large answer is sent whole once
# queued) and counters.sh.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need python3
loom_work

# The stand-in: one connection per mode in argv, in order; each request is
# saved as req.N.json. Modes: too-large, cut (a frame announced at 1 MB
# that ends after 100 bytes), ok (an empty counters answer).
python3 - "$work/loomd.sock" "$work" too-large cut too-large cut ok ok <<'EOF' &
import json, os, socket, struct, sys
path, work, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
def frame(obj):
    b = json.dumps(obj).encode()
    return struct.pack(">I", len(b)) + b
for n, mode in enumerate(modes):
    c, _ = s.accept()
    f = c.makefile("rb")
    size = struct.unpack(">I", f.read(4))[0]
    req = json.loads(f.read(size))
    open(os.path.join(work, "req.%d.json" % n), "w").write(json.dumps(req))
    if mode == "too-large":
        c.sendall(frame({"v": 1, "id": req["id"], "ok": False, "error": {
            "code": "too-large", "message": "the answer is over the control protocol's "
            "limit of 268435456 bytes: ask for less, or read the database itself "
            "(loomctl --db)"}}))
    elif mode == "cut":
        c.sendall(struct.pack(">I", 1000000) + b"{" + b" " * 99)
    else:
        c.sendall(frame({"v": 1, "id": req["id"], "ok": True, "result": {
            "subnet": "big", "read": {"ports": 0, "answered": 0}, "ports": []}}))
    f.close()
    c.shutdown(socket.SHUT_RDWR)
    c.close()
EOF
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 50 test -S "$work/loomd.sock" || loom_fail "the stand-in did not start"

# ---- 1. over the protocol's limit ------------------------------------------------
loom_ctl counters >"$work/1.out" 2>"$work/1.err" && loom_fail "counters succeeded: $(cat "$work/1.out")"
grep -q "too-large: the answer is over the control protocol's limit" "$work/1.err" &&
	grep -q "too large an answer for loomd's control socket; ask for less: one node or port (loomctl counters NODE\[:PORT\]), one subnet (--subnet NAME), the busiest ports (loomctl counters --top 100" "$work/1.err" &&
	grep -q "loomctl --db /var/lib/loom/loom.db counters" "$work/1.err" ||
	loom_fail "no advice after too-large: $(cat "$work/1.err")"
loom_ok "an answer over the limit: $(sed -n 2p "$work/1.err" | cut -c1-120)..."

# ---- 2. an answer cut short ----------------------------------------------------------
loom_ctl counters >"$work/2.out" 2>"$work/2.err" && loom_fail "counters succeeded: $(cat "$work/2.out")"
grep -q "no answer from loomd on .*: it closed the connection" "$work/2.err" &&
	grep -q "loomd may have given up sending the counters of every port (its log says why: control.stall_timeout_s); ask for less" "$work/2.err" ||
	loom_fail "no advice after an answer cut short: $(cat "$work/2.err")"
loom_ok "an answer cut short: $(sed -n 2p "$work/2.err" | cut -c1-110)..."

# ---- 3. one node: no such advice ------------------------------------------------------
for n in 3 4; do
	loom_ctl counters node001:1 >"$work/$n.out" 2>"$work/$n.err" && loom_fail "counters node001:1 succeeded"
	grep -q "ask for less: one node or port" "$work/$n.err" && loom_fail "advice for one port: $(cat "$work/$n.err")"
	[ -s "$work/$n.err" ] || loom_fail "counters node001:1 failed without a word"
done
loom_ok "one port's counters failing the same ways get no advice to ask for less"

# ---- 4. --top, --sort ---------------------------------------------------------------------
loom_ctl counters --top 7 --sort wait >"$work/5.out" 2>&1 || loom_fail "counters --top: $(cat "$work/5.out")"
loom_ctl counters --sort errors >"$work/6.out" 2>&1 || loom_fail "counters --sort: $(cat "$work/6.out")"
python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["cmd"] == "counters" and a["args"] == {"sort": "wait", "top": 7}, a
assert b["cmd"] == "counters" and b["args"] == {"sort": "errors"}, b' "$work/req.4.json" "$work/req.5.json" ||
	loom_fail "--top/--sort did not ask for the busiest ports: $(cat "$work/req.4.json" "$work/req.5.json")"
for bad in "--top 0" "--top x" "--sort fast" "--eth --top 3" "--now --top 3" "node001 --top 3"; do
	# shellcheck disable=SC2086
	if loom_ctl counters $bad >"$work/bad.out" 2>&1; then loom_fail "counters $bad was accepted"; fi
	grep -q "^loomctl: counters: " "$work/bad.out" || loom_fail "counters $bad: $(cat "$work/bad.out")"
done
loom_ok "--top N --sort KEY asks for the busiest ports; bad combinations are usage errors"
echo "counters_too_large.sh: all ok"
