#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""tests/servers/syslog_receiver.py: a local syslog receiver for loomd's
events.forward tests: UDP (a message a datagram) and TCP (RFC 6587 octet
counting, "LEN SP MSG") on 127.0.0.1, their ports written to --port-file as
"UDP TCP". Every message is checked against RFC 5424's framing and written as
one JSON line in --out: transport, pri, facility, severity, version,
timestamp, hostname, app_name, procid, msgid, sd_id, sd (the params of the
first SD-ELEMENT), msg, and "errors" (what breaks the RFC; empty when none)."""
import argparse
import json
import os
import re
import socket
import threading

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--out", required=True)
args = ap.parse_args()
lock = threading.Lock()

HEADER = re.compile(r"<(\d{1,3})>(\d{1,2}) (\S+) (\S+) (\S+) (\S+) (\S+) ")
TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$")
PARAM = re.compile(r'([^\s=\]"]{1,32})="((?:[^"\\\]]|\\["\\\]])*)"')


def parse(text, transport):
    rec = {"transport": transport, "errors": []}
    err = rec["errors"]
    m = HEADER.match(text)
    if not m:
        err.append("no RFC 5424 header")
        rec["raw"] = text
        return rec
    pri = int(m.group(1))
    rec.update(pri=pri, facility=pri // 8, severity=pri % 8, version=int(m.group(2)),
               timestamp=m.group(3), hostname=m.group(4), app_name=m.group(5),
               procid=m.group(6), msgid=m.group(7))
    if pri > 191:
        err.append("PRI above 191")
    if m.group(2) != "1":
        err.append("VERSION is not 1")
    if not TS.match(m.group(3)):
        err.append("TIMESTAMP is not RFC 3339")
    for k in ("hostname", "app_name", "procid", "msgid"):
        v = rec[k]
        if not all(33 <= ord(c) <= 126 for c in v):
            err.append(k + " not PRINTUSASCII")
    if len(rec["msgid"]) > 32 or len(rec["app_name"]) > 48:
        err.append("MSGID or APP-NAME too long")
    rest = text[m.end():]
    if rest.startswith("-"):
        rec["sd_id"], rec["sd"], rest = None, {}, rest[1:]
    elif rest.startswith("["):
        end, i = None, 1
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
                continue
            if rest[i] == "]":
                end = i
                break
            i += 1
        if end is None:
            err.append("SD-ELEMENT not closed")
            return rec
        elem = rest[1:end]
        sd_id, _, params = elem.partition(" ")
        rec["sd_id"] = sd_id
        sd, pos = {}, 0
        for pm in PARAM.finditer(params):
            if params[pos:pm.start()].strip():
                err.append("bad SD-PARAM near " + params[pos:pm.start()][:20])
            pos = pm.end()
            sd[pm.group(1)] = re.sub(r'\\(["\\\]])', r"\1", pm.group(2))
        if params[pos:].strip():
            err.append("bad SD-PARAM at the end")
        rec["sd"] = sd
        rest = rest[end + 1:]
    else:
        err.append("no STRUCTURED-DATA")
    if rest and not rest.startswith(" "):
        err.append("no SP before MSG")
    rec["msg"] = rest[1:]
    return rec


def record(rec):
    with lock, open(args.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


def udp_loop(s):
    while True:
        data, _ = s.recvfrom(65536)
        record(parse(data.decode("utf-8", "replace"), "udp"))


def tcp_conn(c):
    buf = b""
    while True:
        d = c.recv(65536)
        if not d:
            return
        buf += d
        while True:
            m = re.match(rb"(\d+) ", buf)
            if not m:
                if buf and not buf[:1].isdigit():
                    record({"transport": "tcp", "errors": ["no octet count"],
                            "raw": buf.decode("utf-8", "replace")})
                    buf = b""
                break
            n = int(m.group(1))
            if len(buf) < m.end() + n:
                break
            record(parse(buf[m.end():m.end() + n].decode("utf-8", "replace"), "tcp"))
            buf = buf[m.end() + n:]


def tcp_loop(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=tcp_conn, args=(c,), daemon=True).start()


u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", 0))
t.listen(16)
threading.Thread(target=udp_loop, args=(u,), daemon=True).start()
with open(args.port_file + ".tmp", "w") as f:
    f.write("%d %d\n" % (u.getsockname()[1], t.getsockname()[1]))
os.rename(args.port_file + ".tmp", args.port_file)
try:
    tcp_loop(t)
except KeyboardInterrupt:
    pass
