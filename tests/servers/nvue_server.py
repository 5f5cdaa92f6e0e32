#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""tests/servers/nvue_server.py: a stand-in for a Cumulus Linux switch's NVUE
REST API, for tests/unit/plugins/nvue/test_nvue.c (python3 standard library only).

Listens on 127.0.0.1 only: `nvue_server.py [--port N] [--user U]
[--password P] [--tls-cert PEM --tls-key PEM]` (HTTPS with the latter, as
the switch's nginx serves it); port 0 (the default) picks a free one. It prints
"PORT <n>" on stdout once it listens.

Keeps what a switch keeps: the applied tree and revisions, each with its
candidate tree and state. Implements the documented flow (base /nvue_v1/,
HTTP basic auth):
  GET    /nvue_v1/<path>[?rev=applied|operational|<id>]  (no rev, or operational:
                                           the applied tree with the switch's defaults
                                           where it leaves QoS unset, see effective())
  POST   /nvue_v1/revision                 -> {"<id>": {"state": "pending"}}
  PATCH  /nvue_v1/[<path>]?rev=<id>        merge (RFC 7386: null unsets)
  PATCH  /nvue_v1/revision/<id>            {"state": "apply",
                                            "auto-prompt": {"ays": "ays_yes"}}
  GET    /nvue_v1/revision/<id>            "applying", then "applied"
and refuses what the real API refuses: no or wrong basic auth (401), an
unknown top-level object or path (404), a method the path does not take
(405), PATCH without ?rev= or of a revision not pending (400), an unknown
revision (404), applying a revision twice (409), a body that is not JSON
(400), a PATCH whose objects or values the NVUE schema does not take at
their FULL path (400: SCHEMA, each rule with its source), and a PATCH of
operational state (the counters, 400). GET without ?rev= (operational) shows
each swp port's counters (with_counters); the applied tree has none. At apply time, on
the candidate with the switch's defaults filled in, the rules across fields
(check_rules): the dwrr bw-percent of a profile's traffic classes sum to at
most 100 (unset classes of default-global count with their default 12/13 %),
ECN min-threshold not above max-threshold, the PFC watchdog only on a swp
port that has PFC (or link pause); a revision breaking one goes "invalid"
with each issue in its transition.

Test-only endpoints (no auth, not logged):
  GET  /test/log        every /nvue_v1 request: [{method, path, status}]
  GET  /test/state      {"applied": tree, "revisions": {id: state}}
  POST /test/applied    {"path": "qos/...", "value": v}: change the applied
                        tree behind the client's back (null removes)
  POST /test/counters   {"port": "swp1", "stats": {...}, "qos": {...}, "pfcwd":
                        {"<tc>": {...}}}: merged into the port's counters (null
                        removes a member: a release without it), shown by GET;
                        {"release": "5.4" | "5.5" | "5.9"}: where they are shown
                        (qos/counters up to 5.4, no pfc-watchdog status before 5.6);
                        {"collection": true}: GET interface shows each port's QoS
                        counters and watchdog status too (by default only the
                        port's own GETs do, and GET interface its link stats:
                        whether NVUE's collection GET has them is not documented)
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


# ---- the schema, by full path ----------------------------------------------------
# Every value a PATCH sets is checked against the object and field at its FULL
# path (qos/egress-scheduler/<profile>/traffic-class/<tc>/bw-percent), never by
# its leaf name alone. The sources of each rule, as cited below:
#  [UG]   Cumulus Linux 5.9 user guide, "Quality of Service"
#         (docs.nvidia.com/networking-ethernet-software/cumulus-linux-59/Layer-1-and-
#         Switch-Ports/Quality-of-Service/; GitHub CumulusNetworks/docs, content/
#         cumulus-linux-59/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md)
#  [ROCE] the same guide, "RDMA over Converged Ethernet - RoCE" (.../Quality-of-Service/
#         RDMA-over-Converged-Ethernet-RoCE.md)
#  [REF]  NVUE command reference, "Set and Unset Commands / QoS" (docs.nvidia.com/
#         networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/QoS/;
#         CumulusNetworks/docs, content/nvue-reference/Set-and-Unset-Commands/QoS.md)
#  [UG44] Cumulus Linux 4.x "Quality of Service": "traffic.packet_priority_source_set =
#         [802.1p] (the default)", i.e. NVUE's trust l2
#  [LOOM] no range in those pages: the bound loom has used so far, kept until a switch
#         shows otherwise (docs/nvue-qos-notes.md lists these)


class Enum:
    def __init__(self, *values):
        self.values = values

    def check(self, v):
        return None if v in self.values else "%r is not one of %s" % (v, ", ".join(self.values))


class Int:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def check(self, v):
        if not isinstance(v, int) or isinstance(v, bool) or not self.lo <= v <= self.hi:
            return "%r is not an integer in %d..%d" % (v, self.lo, self.hi)
        return None


class Name:
    def check(self, v):
        ok = isinstance(v, str) and v and all(c.isalnum() or c in "-_." for c in v)
        return None if ok else "%r is not a name" % (v,)


class Each:
    """A collection: members named by `key` (a check of the name), each `sub`."""
    def __init__(self, key, sub):
        self.key, self.sub = key, sub


ANY = "<not modelled>"      # a subtree the fake does not check (not QoS)
OPER = "<operational>"     # operational state (counters): GET shows it, PATCH refuses it
NAME = Name()
ONOFF = Enum("enable", "disable")                    # [UG] pfc tx/rx, ecn, red, watchdog state
BYTES = Int(1, 4294967295)  # [REF] gives 0..4294967295 for the byte counts it bounds
SP = Int(0, 7)              # [UG] switch priorities 0..7
TC = Int(0, 7)              # [UG] eight egress queues (traffic classes) 0..7


def key_int(lo, hi):
    return lambda k: None if k.isdigit() and lo <= int(k) <= hi else \
        "%r is not in %d..%d" % (k, lo, hi)


def key_name(k):
    return NAME.check(k)


def key_default_global(k):
    # [UG] "Egress Queues": "NVUE only supports the default-global profile"
    return None if k == "default-global" else "%r: NVUE only supports default-global" % k


PFC_FIELDS = {"cable-length": Int(1, 100000),     # [REF] pfc/link-pause cable-length 1..100000
              "port-buffer": BYTES, "xoff-threshold": BYTES, "xon-threshold": BYTES,
              "tx": ONOFF, "rx": ONOFF}           # [REF] tx/rx turn pause frames on and off
IF_PROFILE = {"profile": NAME}                    # [REF] interface <id> qos <feature> profile

SCHEMA = {
    "qos": {
        # [REF] qos roce: "enable on|off" in 5.14 and earlier, mode lossy|lossless
        # (lossless-single-ipool only from 5.12; this stand-in is 5.9.1), cable-length
        "roce": {"enable": Enum("on", "off"), "mode": Enum("lossy", "lossless"),
                 "cable-length": Int(1, 100000)},
        # [REF] qos mapping <profile> trust l2|l3|port|both; dscp <0..63>, pcp <0..7>
        # switch-priority; [UG] port-default-sp (trust port)
        "mapping": Each(key_name, {
            "trust": Enum("l2", "l3", "port", "both"), "port-default-sp": SP,
            "dscp": Each(key_int(0, 63), {"switch-priority": SP}),
            "pcp": Each(key_int(0, 7), {"switch-priority": SP})}),
        # [REF] egress-queue-mapping <profile> switch-priority <sp> traffic-class
        "egress-queue-mapping": Each(key_default_global, {
            "switch-priority": Each(key_int(0, 7), {"traffic-class": TC})}),
        # [REF] qos pfc <profile> ... switch-priority <sp> (a collection of priorities)
        "pfc": Each(key_name, dict(PFC_FIELDS, **{"switch-priority": Each(key_int(0, 7), {})})),
        "link-pause": Each(key_name, dict(PFC_FIELDS)),
        # [REF] congestion-control <profile> traffic-class <tc>: ecn, red, min-threshold,
        # max-threshold (bytes; no range given), probability 1..100
        "congestion-control": Each(key_name, {"traffic-class": Each(key_int(0, 7), {
            "ecn": ONOFF, "red": ONOFF, "min-threshold": BYTES, "max-threshold": BYTES,
            "probability": Int(1, 100)})}),
        # [REF] egress-scheduler <profile> traffic-class <tc>: mode dwrr|strict,
        # bw-percent "between 1 and 100"
        "egress-scheduler": Each(key_name, {"traffic-class": Each(key_int(0, 7), {
            "mode": Enum("dwrr", "strict"), "bw-percent": Int(1, 100)})}),
        # [REF] qos pfc-watchdog polling-interval (ms), robustness (polling intervals);
        # the ranges are [LOOM]
        "pfc-watchdog": {"polling-interval": Int(100, 5000), "robustness": Int(1, 1000)},
        # [REF] traffic-pool <id> memory-percent, switch-priority <sp>
        "traffic-pool": Each(key_name, {"memory-percent": Int(0, 100),
                                        "switch-priority": Each(key_int(0, 7), {})}),
    },
    "interface": Each(key_name, {
        # operational state, shown by GET and never set: link stats, the QoS counters
        # (counters/qos from 5.5, qos/counters up to 5.4) and the watchdog's status
        "counters": OPER, "link": {"stats": OPER, "*": ANY},
        # [REF] interface <id> qos pfc-watchdog state; qos <feature> profile <name>
        "qos": {"pfc-watchdog": {"state": ONOFF, "status": OPER}, "counters": OPER,
                "mapping": IF_PROFILE, "pfc": IF_PROFILE,
                "congestion-control": IF_PROFILE, "egress-scheduler": IF_PROFILE,
                "egress-shaper": IF_PROFILE, "link-pause": IF_PROFILE, "remark": IF_PROFILE},
        # [REF] "Interface": bridge domain <id> access <vlan> (1..4094)
        "bridge": {"domain": Each(key_name, {"access": Int(1, 4094), "*": ANY}), "*": ANY},
        "*": ANY}),
    "*": ANY,
}


def schema_step(node, key, where):
    """The schema of member `key` of the object whose schema is `node`."""
    if node is ANY:
        return ANY, None
    if node is OPER:
        return None, "%s is operational state: it cannot be set" % where
    if isinstance(node, Each):
        err = node.key(key)
        return (None, "%s/%s: %s" % (where, key, err)) if err else (node.sub, None)
    if isinstance(node, dict):
        if key in node:
            return node[key], None
        if "*" in node:
            return ANY, None
        return None, "%s/%s is not in the NVUE schema" % (where, key)
    return None, "%s is a value, not an object" % where


def check_tree(node, value, where):
    """The first schema violation in `value` (an object at `where`), or None."""
    for k, v in value.items():
        sub, err = schema_step(node, k, where)
        if err:
            return err
        path = "%s/%s" % (where, k)
        if sub is OPER:
            return "%s is operational state: it cannot be set" % path
        if sub is ANY or v is None:          # not modelled, or unset
            continue
        if isinstance(sub, (dict, Each)):
            if not isinstance(v, dict):
                return "%s is an object, not %r" % (path, v)
            err = check_tree(sub, v, path)
            if err:
                return err
        elif isinstance(v, (dict, list)):
            return "%s is a value, not %s" % (path, json.dumps(v))
        else:
            err = sub.check(v)
            if err:
                return "%s: %s" % (path, err)
    return None


def check_patch(comps, body):
    """The schema checks the real API makes on a PATCH of `body` at /comps."""
    node, where = SCHEMA, ""
    for c in comps:
        node, err = schema_step(node, c, where)
        if err:
            return err
        where += "/" + c
    if node is OPER:
        return "%s is operational state: it cannot be set" % where
    if node is ANY:
        return None
    if not isinstance(node, (dict, Each)):
        return "%s is a value: PATCH its object" % where
    return check_tree(node, body, where)


# ---- defaults and the rules across fields ------------------------------------------
# What the switch holds for what the configuration leaves unset (shown by GET without
# ?rev=, the operational state, and what the rules at apply time see):
#  [UG] "Egress Scheduler": the default egress scheduler gives queues 0,2,4,6 12 % and
#       1,3,5,7 13 % (DWRR); unsetting a traffic class of default-global brings its
#       default back, so 50 + 50 on two classes with the others unset is 163 %
DEFAULT_SCHED = {str(t): {"mode": "dwrr", "bw-percent": 12 if t % 2 == 0 else 13}
                 for t in range(8)}
#  [UG] "Congestion Control (ECN)": default-global enables ECN on egress queue 0, min
#       150000 B, max 1500000 B, probability 100, RED disabled
DEFAULT_ECN = {"ecn": "enable", "red": "disable", "min-threshold": 150000,
               "max-threshold": 1500000, "probability": 100}
#  [UG]/[REF] "PFC Watchdog": polling interval 100 ms, robustness 3
DEFAULT_PFCWD = {"polling-interval": 100, "robustness": 3}
#  [UG44] trust l2 (802.1p) by default; [ROCE] with qos roce, the port trust is
#       pcp,dscp (NVUE's both)


def effective(tree):
    """`tree` with the switch's defaults where it leaves QoS unset."""
    t = copy.deepcopy(tree)
    qos = t.setdefault("qos", {})
    roce = qos.get("roce")
    mp = qos.setdefault("mapping", {}).setdefault("default-global", {})
    mp.setdefault("trust", "both" if roce is not None and roce.get("enable") != "off" else "l2")
    mp.setdefault("port-default-sp", 0)
    # [UG] "Trust DSCP": with no mapping set, DSCP 0-7 -> switch priority 0, 8-15 -> 1, ...
    for d in range(64):
        mp.setdefault("dscp", {}).setdefault(str(d), {}).setdefault("switch-priority", d >> 3)
    eqm = qos.setdefault("egress-queue-mapping", {}).setdefault("default-global", {})
    for p in range(8):
        eqm.setdefault("switch-priority", {}).setdefault(str(p), {}).setdefault(
            "traffic-class", p)
    tcs = qos.setdefault("egress-scheduler", {}).setdefault(
        "default-global", {}).setdefault("traffic-class", {})
    for k, dflt in DEFAULT_SCHED.items():
        e = tcs.setdefault(k, {})
        for f, v in dflt.items():
            if f not in e and not (f == "bw-percent" and e.get("mode") == "strict"):
                e[f] = v
    cc = qos.setdefault("congestion-control", {}).setdefault(
        "default-global", {}).setdefault("traffic-class", {})
    cc.setdefault("0", {})
    for k, e in cc.items():
        for f, v in DEFAULT_ECN.items():
            if f != "ecn" or k == "0":
                e.setdefault(f, v)
    wd = qos.setdefault("pfc-watchdog", {})
    for f, v in DEFAULT_PFCWD.items():
        wd.setdefault(f, v)
    return t


def check_rules(t):
    """What NVUE refuses at apply time, across fields, in the effective tree `t`."""
    issues = []
    qos = t.get("qos", {})
    # [UG]/[REF] bw-percent: "The combined total of values you assign must be less than
    # or equal to 100"; "In dwrr mode, you must define a bandwidth percent value"
    for prof, es in sorted(qos.get("egress-scheduler", {}).items()):
        total, parts = 0, []
        for tc, e in sorted(es.get("traffic-class", {}).items()):
            if e.get("mode", "dwrr") != "dwrr":
                continue
            if "bw-percent" not in e:
                issues.append("qos egress-scheduler %s traffic-class %s: mode dwrr needs a "
                              "bw-percent" % (prof, tc))
                continue
            total += e["bw-percent"]
            parts.append("%s:%d" % (tc, e["bw-percent"]))
        if total > 100:
            issues.append("qos egress-scheduler %s: the dwrr bw-percent of the traffic "
                          "classes (%s) sum to %d, more than 100" %
                          (prof, " ".join(parts), total))
    # [REF] min-threshold: random marking starts there; max-threshold: all are marked
    for prof, cc in sorted(qos.get("congestion-control", {}).items()):
        for tc, e in sorted(cc.get("traffic-class", {}).items()):
            lo = e.get("min-threshold", DEFAULT_ECN["min-threshold"])
            hi = e.get("max-threshold", DEFAULT_ECN["max-threshold"])
            if lo > hi:
                issues.append("qos congestion-control %s traffic-class %s: min-threshold %d "
                              "is above max-threshold %d" % (prof, tc, lo, hi))
    # [UG]/[REF] "You can only configure PFC watchdog on a port with PFC (or link pause)
    # configuration"; "only on a physical interface (swp)"; the default-global PFC
    # profile applies to every port that names no other
    for name, ifc in sorted(t.get("interface", {}).items()):
        iq = ifc.get("qos") or {}
        wd = iq.get("pfc-watchdog")
        if wd is None or wd.get("state", "enable") != "enable":
            continue
        if ifc.get("type", "swp" if name.startswith("swp") else "") != "swp":
            issues.append("interface %s qos pfc-watchdog: only a swp port takes the PFC "
                          "watchdog" % name)
            continue
        prof = (iq.get("pfc") or {}).get("profile", "default-global")
        lp = (iq.get("link-pause") or {}).get("profile")
        if not (qos.get("pfc", {}).get(prof) or {}).get("switch-priority") and \
                not (lp and lp in qos.get("link-pause", {})):
            issues.append("interface %s qos pfc-watchdog: %s has no PFC (qos pfc %s has no "
                          "switch-priority) and no link pause" % (name, name, prof))
    return issues


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


# ---- counters: the operational state the switch counts -------------------------------
# What GET (operational) shows of a swp port's counters, in NVUE's names; the
# values are the test's (POST /test/counters), zero until it sets them, as a
# port that carried nothing. Sources (docs/nvue-counters-notes.md):
#  [API]  "NVUE API" (Cumulus Linux 5.x user guide): GET interface gives each
#         interface's link.stats {carrier-transitions, in-bytes, in-drops,
#         in-errors, in-pkts, out-bytes, out-drops, out-errors, out-pkts}
#  [CREF] NVUE command reference, "Show Commands / Interface": "nv show interface
#         <id> counters qos" (5.5 and later; "nv show interface <id> qos counters"
#         up to 5.4) with pfc-stats per switch priority {rx-pause-frames,
#         rx-pause-duration, tx-pause-frames, tx-pause-duration},
#         egress-queue-stats per traffic class {tx-frames, tx-bytes,
#         tx-uc-buffer-discards, wred-discards}, port-stats; ecn-marked-frames per
#         traffic class as `nv show ... counters qos -o json` gives it on an SN5600
#         (public lab scripts that read it); "nv show interface <id> qos
#         pfc-watchdog" (5.6 and later): status per traffic class {status OK |
#         DEADLOCK, deadlock-count}
RELEASES = ("5.4", "5.5", "5.9")


def zero_stats():
    return {f: 0 for f in ("carrier-transitions", "in-bytes", "in-drops", "in-errors", "in-pkts",
                           "out-bytes", "out-drops", "out-errors", "out-pkts")}


def zero_qos():
    return {
        "pfc-stats": {str(p): {"rx-pause-frames": 0, "rx-pause-duration": 0,
                               "tx-pause-frames": 0, "tx-pause-duration": 0} for p in range(8)},
        "egress-queue-stats": {str(t): {"tx-frames": 0, "tx-bytes": 0,
                                        "tx-uc-buffer-discards": 0, "wred-discards": 0,
                                        "ecn-marked-frames": 0} for t in range(8)},
        "ingress-buffer-stats": {str(g): {"rx-frames": 0, "rx-buffer-discards": 0,
                                          "rx-shared-buffer-discards": 0} for g in range(8)},
        "port-stats": {"rx-stats": {"pause-frames": 0},
                       "tx-stats": {"ecn-marked-packets": 0, "mc-buffer-discards": 0,
                                    "pause-frames": 0}},
    }


def deep_merge(target, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(target.get(k), dict):
            deep_merge(target[k], v)
        elif v is None:
            target.pop(k, None)
        else:
            target[k] = copy.deepcopy(v)


def with_counters(tree):
    """The operational tree `tree` (a copy) with each swp port's counters, as the
    release STATE.release shows them."""
    rel = STATE.release
    for name, ifc in tree.get("interface", {}).items():
        if not isinstance(ifc, dict) or ifc.get("type") != "swp":
            continue
        c = STATE.counters.setdefault(name, {"stats": zero_stats(), "qos": zero_qos(),
                                             "pfcwd": {}})
        link = ifc.setdefault("link", {})
        if isinstance(link, dict):
            link["stats"] = copy.deepcopy(c["stats"])
        qos = ifc.setdefault("qos", {})
        if rel >= "5.5":
            ifc["counters"] = {"qos": copy.deepcopy(c["qos"])}
        else:
            qos["counters"] = copy.deepcopy(c["qos"])
        wd = qos.get("pfc-watchdog")
        on = isinstance(wd, dict) and wd.get("state") == "enable"
        if rel >= "5.6" and not isinstance(wd, dict):
            qos["pfc-watchdog"] = {"state": "disable"}     # shown off, not 404
        if rel >= "5.6" and (on or c["pfcwd"]):
            status = {str(t): {"status": "OK", "deadlock-count": 0} for t in range(8)} \
                if on else {}
            deep_merge(status, c["pfcwd"])
            qos.setdefault("pfc-watchdog", {})["status"] = status
    return tree


class State:
    def __init__(self, user, password):
        self.lock = threading.Lock()
        self.user, self.password = user, password
        self.applied = initial_tree()
        self.revisions = {}
        self.n = 0
        self.log = []
        self.fail = "none"
        self.counters = {}        # port -> {"stats", "qos", "pfcwd"}: with_counters
        self.release = "5.9"
        self.collection_counters = False   # GET interface shows them too


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
        if rev in (None, "", "operational"):     # what the switch runs: with its defaults
            return with_counters(effective(STATE.applied))
        if rev in ("applied", "startup"):
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
        if comps == ["interface"] and rev in (None, "", "operational") and \
                not STATE.collection_counters:
            for ifc in node.values():         # counters only in each port's own GETs
                if isinstance(ifc, dict):
                    ifc.pop("counters", None)
                    q = ifc.get("qos")
                    if isinstance(q, dict):
                        q.pop("counters", None)
                        if isinstance(q.get("pfc-watchdog"), dict):
                            q["pfc-watchdog"].pop("status", None)
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
        err = check_patch(comps, body)
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
        elif check_rules(effective(r["candidate"])):
            r["state"] = "invalid"
            r["transition"]["issue"] = {
                str(i): {"message": m, "severity": "error"}
                for i, m in enumerate(check_rules(effective(r["candidate"])))}
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
        if what == "counters" and self.command == "POST" and ok and isinstance(body, dict):
            if "collection" in body:
                STATE.collection_counters = bool(body["collection"])
            if "release" in body:
                if body["release"] not in RELEASES:
                    return self.reply(400, {"detail": "release one of %s" % (RELEASES,)})
                STATE.release = body["release"]
            if "port" in body:
                ifc = STATE.applied.get("interface", {}).get(body["port"])
                if not isinstance(ifc, dict) or ifc.get("type") != "swp":
                    return self.reply(400, {"detail": "no swp port %s" % body["port"]})
                c = STATE.counters.setdefault(body["port"], {
                    "stats": zero_stats(), "qos": zero_qos(), "pfcwd": {}})
                for k in ("stats", "qos", "pfcwd"):
                    if isinstance(body.get(k), dict):
                        deep_merge(c[k], body[k])
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
