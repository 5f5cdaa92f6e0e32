#!/usr/bin/env python3
"""tests/servers/nvue_server.py: a stand-in for a Cumulus Linux switch's NVUE
REST API, for tests/unit/test_nvue.c (python3 standard library only).

Listens on 127.0.0.1 only: `nvue_server.py [--port N] [--user U]
[--password P] [--tls-cert PEM --tls-key PEM]` (HTTPS with the latter, as
the switch's nginx serves it); port 0 (the default) picks a free one. It prints
"PORT <n>" on stdout once it listens.

Keeps what a switch keeps: the applied tree and revisions, each with its
candidate tree and state. Implements the documented flow (base /nvue_v1/,
HTTP basic auth):
  GET    /nvue_v1/<path>[?rev=applied|operational|<id>]
  POST   /nvue_v1/revision                 -> {"<id>": {"state": "pending"}}
  PATCH  /nvue_v1/[<path>]?rev=<id>        merge (RFC 7386: null unsets)
  PATCH  /nvue_v1/revision/<id>            {"state": "apply",
                                            "auto-prompt": {"ays": "ays_yes"}}
  GET    /nvue_v1/revision/<id>            "applying", then "applied"
and refuses what the real API refuses: no or wrong basic auth (401), an
unknown top-level object or path (404), a method the path does not take
(405), PATCH without ?rev= or of a revision not pending (400), an unknown
revision (404), applying a revision twice (409), a body that is not JSON
or values outside the qos schema (400).

Test-only endpoints (no auth, not logged):
  GET  /test/log        every /nvue_v1 request: [{method, path, status}]
  GET  /test/state      {"applied": tree, "revisions": {id: state}}
  POST /test/applied    {"path": "qos/...", "value": v}: change the applied
                        tree behind the client's back (null removes)
  POST /test/fail       {"mode": "none" | "apply_500" | "apply_fail" | "die" |
                        "stuck"}: what the next revision apply does (stuck:
                        it stays "applying" for ever)
"""
import argparse
import base64
import copy
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote

TOP = {"acl", "bridge", "evpn", "interface", "mlag", "nve", "platform", "qos", "revision",
       "router", "service", "system", "vrf"}
CONFIG_TOP = TOP - {"revision"}


def neighbor(chassis, name, port, desc):
    return {"chassis": {"chassis-id": chassis, "system-name": name},
            "port": {"name": port, "description": desc, "type": "ifname"}}


def port(speed, up, oper, nbrs=None):
    p = {"type": "swp",
         "link": {"speed": speed, "mtu": 9216, "state": {"up" if up else "down": {}},
                  "oper-status": "up" if oper else "down"}}
    if nbrs is not None:
        p["lldp"] = {"neighbor": nbrs}
    return p


def initial_tree():
    return {
        "system": {"hostname": "leaf1", "build": "Cumulus Linux 5.9.1",
                   "version": {"image": "5.9.1"}},
        "platform": {"product-name": "MSN4600C", "base-mac": "1c:34:da:aa:bb:00"},
        "interface": {
            "eth0": {"type": "eth", "link": {"speed": "1G", "state": {"up": {}}}},
            "lo": {"type": "loopback"},
            "swp1": port("100G", True, True,
                         {"spine1": neighbor("1c:34:da:00:00:01", "spine1", "swp31",
                                             "to leaf1")}),
            "swp2": port("100G", True, True,
                         {"host7": neighbor("b8:ce:f6:12:34:56", "host7", "enp1s0f0",
                                            "ConnectX-6 port 0")}),
            "swp3": port("25G", True, False, {}),
            "swp4": port("400G", False, False, {}),
        },
        "bridge": {"domain": {"br_default": {"type": "vlan-aware"}}},
        "qos": {},
    }


ENUMS = {"mode": {"lossy", "lossless", "dwrr", "strict"}, "trust": {"l2", "l3", "port", "both"},
         "ecn": {"enable", "disable"}, "red": {"enable", "disable"},
         "tx": {"enable", "disable"}, "rx": {"enable", "disable"},
         "state": {"enable", "disable"}, "enable": {"on", "off"}}
RANGES = {"switch-priority": (0, 7), "traffic-class": (0, 7), "bw-percent": (0, 100),
          "probability": (0, 100), "min-threshold": (1, 1 << 30),
          "max-threshold": (1, 1 << 30), "cable-length": (1, 100000),
          "polling-interval": (100, 5000), "robustness": (1, 1000), "access": (1, 4094)}


def check_values(tree, where=""):
    """The schema checks the real API makes on the values loom sends."""
    if not isinstance(tree, dict):
        return None
    for k, v in tree.items():
        path = where + "/" + k
        if v is None or isinstance(v, dict):
            err = check_values(v, path) if isinstance(v, dict) else None
            if err:
                return err
            continue
        if k in RANGES:
            lo, hi = RANGES[k]
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                return "%s: %r is not an integer in %d..%d" % (path, v, lo, hi)
        elif k in ENUMS:
            if v not in ENUMS[k]:
                return "%s: %r is not one of %s" % (path, v, sorted(ENUMS[k]))
    return None


def merge(target, patch):
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        elif isinstance(v, dict):
            if not isinstance(target.get(k), dict):
                target[k] = {}
            merge(target[k], v)
        else:
            target[k] = v


class State:
    def __init__(self, user, password):
        self.lock = threading.Lock()
        self.user, self.password = user, password
        self.applied = initial_tree()
        self.revisions = {}
        self.n = 0
        self.log = []
        self.fail = "none"


STATE = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj=None, extra=None):
        body = b"" if obj is None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        if self.logged:
            STATE.log.append({"method": self.command, "path": self.path, "status": status})

    def problem(self, status, title, detail):
        self.reply(status, {"status": status, "title": title, "detail": detail})

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None, True
        try:
            return json.loads(raw), True
        except ValueError:
            return None, False

    def authorised(self):
        h = self.headers.get("Authorization", "")
        if not h.startswith("Basic "):
            return False
        try:
            user, _, pw = base64.b64decode(h[6:]).decode().partition(":")
        except ValueError:
            return False
        return user == STATE.user and pw == STATE.password

    def handle_any(self):
        self.logged = False
        raw, _, query = self.path.partition("?")
        with STATE.lock:
            if raw.startswith("/test/"):
                return self.test_endpoint(raw[6:])
            self.logged = True
            body, ok = self.body()
            if raw != "/nvue_v1" and not raw.startswith("/nvue_v1/"):
                return self.problem(404, "Not Found", "no such endpoint %s" % raw)
            if not self.authorised():
                return self.reply(401, {"status": 401, "title": "Unauthorized",
                                        "detail": "Invalid username or password"},
                                  {"WWW-Authenticate": 'Basic realm="nvue"'})
            comps = [unquote(c) for c in raw[len("/nvue_v1"):].split("/") if c]
            qs = parse_qs(query, keep_blank_values=True)
            rev = qs.get("rev", [None])[0]
            if comps and comps[0] not in TOP:
                return self.problem(404, "Not Found", "%s is not in the NVUE schema" % comps[0])
            if not ok:
                return self.problem(400, "Bad Request", "the body is not JSON")
            if comps[:1] == ["revision"]:
                return self.revision(comps[1:], rev, body)
            if self.command == "GET":
                return self.get(comps, rev)
            if self.command == "PATCH":
                return self.patch(comps, rev, body)
            return self.problem(405, "Method Not Allowed",
                                "%s is not allowed on /%s" % (self.command, "/".join(comps)))

    def tree_for(self, rev):
        if rev in (None, "", "applied", "operational", "startup"):
            return STATE.applied
        r = STATE.revisions.get(rev)
        return None if r is None else r["candidate"]

    def get(self, comps, rev):
        tree = self.tree_for(rev)
        if tree is None:
            return self.problem(404, "Not Found", "no revision %s" % rev)
        node = tree
        for c in comps:
            if not isinstance(node, dict) or c not in node:
                return self.problem(404, "Not Found", "/%s does not exist" % "/".join(comps))
            node = node[c]
        return self.reply(200, node)

    def patch(self, comps, rev, body):
        if rev is None or rev == "":
            return self.problem(400, "Bad Request", "PATCH needs ?rev=<revision>")
        r = STATE.revisions.get(rev)
        if r is None:
            return self.problem(404, "Not Found", "no revision %s" % rev)
        if r["state"] != "pending":
            return self.problem(400, "Bad Request", "revision %s is %s, not pending" %
                                (rev, r["state"]))
        if not isinstance(body, dict):
            return self.problem(400, "Bad Request", "the body must be a JSON object")
        if not comps:
            bad = [k for k in body if k not in CONFIG_TOP]
            if bad:
                return self.problem(400, "Bad Request", "%s is not in the NVUE schema" % bad[0])
        err = check_values(body, "/" + "/".join(comps))
        if err:
            return self.problem(400, "Bad Request", err)
        node = r["candidate"]
        for c in comps:
            if not isinstance(node.get(c), dict):
                node[c] = {}
            node = node[c]
        merge(node, body)
        return self.reply(200, body)

    def revision(self, rest, rev, body):
        if not rest:
            if self.command == "POST":
                STATE.n += 1
                rid = "changeset/%s/2026-11-23_13.00.%02d_%04X" % (STATE.user, STATE.n % 60,
                                                                   STATE.n)
                STATE.revisions[rid] = {"state": "pending",
                                        "candidate": copy.deepcopy(STATE.applied),
                                        "transition": {"issue": {}, "progress": ""}}
                return self.reply(200, {rid: self.public(rid)})
            if self.command == "GET":
                return self.reply(200, {k: self.public(k) for k in STATE.revisions})
            return self.problem(405, "Method Not Allowed", "%s /revision" % self.command)
        if len(rest) != 1:
            return self.problem(404, "Not Found", "no such revision path")
        rid = rest[0]
        r = STATE.revisions.get(rid)
        if r is None:
            return self.problem(404, "Not Found", "no revision %s" % rid)
        if self.command == "GET":
            if r["state"] == "applying" and not r.get("stuck"):  # takes a poll or two
                r["polls"] = r.get("polls", 0) + 1
                if r["polls"] >= 2:
                    STATE.applied = copy.deepcopy(r["candidate"])
                    r["state"] = "applied"
            return self.reply(200, self.public(rid))
        if self.command != "PATCH":
            return self.problem(405, "Method Not Allowed", "%s /revision/<id>" % self.command)
        if rev is not None:
            return self.problem(400, "Bad Request", "?rev= makes no sense on a revision")
        if not isinstance(body, dict) or body.get("state") != "apply":
            return self.problem(400, "Bad Request", 'the body must be {"state": "apply", ...}')
        if r["state"] != "pending":
            return self.problem(409, "Conflict", "revision %s is already %s" % (rid, r["state"]))
        mode, STATE.fail = STATE.fail, "none"
        if mode == "die":
            os._exit(3)
        if mode == "apply_500":
            return self.problem(500, "Internal Server Error",
                                "nvued: could not start the apply of %s" % rid)
        ays = (body.get("auto-prompt") or {}).get("ays")
        if ays != "ays_yes":
            r["state"] = "ays_fail"
            r["transition"]["issue"] = {"0": {"message": "the apply needs confirmation",
                                              "severity": "error"}}
        elif mode == "apply_fail":
            r["state"] = "apply_fail"
            r["transition"]["issue"] = {"0": {"message": "switchd: buffer configuration "
                                              "rejected by the ASIC", "severity": "error"}}
        else:
            r["state"] = "applying"
            r["stuck"] = mode == "stuck"
        return self.reply(200, self.public(rid))

    @staticmethod
    def public(rid):
        r = STATE.revisions[rid]
        return {"state": r["state"], "transition": r["transition"]}

    def test_endpoint(self, what):
        body, ok = self.body()
        if what == "log" and self.command == "GET":
            return self.reply(200, STATE.log)
        if what == "state" and self.command == "GET":
            return self.reply(200, {"applied": STATE.applied,
                                    "revisions": {k: v["state"]
                                                  for k, v in STATE.revisions.items()}})
        if what == "applied" and self.command == "POST" and ok and isinstance(body, dict):
            parts = [p for p in body.get("path", "").split("/") if p]
            if not parts:
                return self.reply(400, {"detail": "no path"})
            node = STATE.applied
            for p in parts[:-1]:
                if not isinstance(node.get(p), dict):
                    node[p] = {}
                node = node[p]
            if body.get("value") is None:
                node.pop(parts[-1], None)
            else:
                node[parts[-1]] = body["value"]
            return self.reply(200, {})
        if what == "fail" and self.command == "POST" and ok and isinstance(body, dict):
            STATE.fail = body.get("mode", "none")
            return self.reply(200, {})
        return self.reply(404, {"detail": "no test endpoint %s" % what})

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


def main():
    global STATE
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--user", default="cumulus")
    ap.add_argument("--password", default="CumulusLinux!")
    ap.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    ap.add_argument("--tls-key", help="... and this key")
    a = ap.parse_args()
    STATE = State(a.user, a.password)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    if a.tls_cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
