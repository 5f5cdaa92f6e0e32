#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""tests/servers/sonic_db.py: a SONiC switch's CONFIG_DB for loom's tests, and
a checker that refuses what SONiC refuses.

  sonic_db.py seed SOCK [--ports N] [--version V]
                                        CONFIG_DB as `config qos reload` and
                                        `pfcwd start_default` leave a 100G leaf;
                                        V is VERSIONS|DATABASE VERSION
                                        (version_202311_03; version_3_0_1 for a
                                        202106 switch, [TABLE|name] references)
  sonic_db.py snapshot SOCK > FILE      every hash of CONFIG_DB, as JSON
  sonic_db.py check SOCK [--before FILE --managed P1,P2,...]
                                        exit 0, or 1 with one line per fault
  sonic_db.py lookup > FILE             the leaf SKU's pg_profile_lookup.ini
  sonic_db.py buffermgrd SOCK [--before FILE]
                                        what buffermgrd (traditional model)
                                        does on the PORT_QOS_MAP pfc_enable
                                        changes since FILE (every port's
                                        without it); prints its error lines

SOCK is a redis-server's unix socket (the test's own, see fixture_redis.h).
The facts, and the SONiC sources they come from, are in
docs/sonic-qos-notes.md; each rule below names its section there (§N).

What the checker enforces on CONFIG_DB as a whole:
  - references name objects that exist: QUEUE.scheduler/wred_profile,
    PORT_QOS_MAP's maps, BUFFER_PG.profile (YANG leafrefs; orchagent retries
    for ever, §4), in the form the schema version takes: [TABLE|name] up to
    VERSIONS|DATABASE version_3_0_2 (orchagent requires it there), plain
    names after (orchagent rejects brackets), §2;
  - SCHEDULER type DWRR|WRR|STRICT, weight 1..100 (§5, YANG sonic-scheduler);
  - WRED_PROFILE ecn enumeration, booleans, min <= max, probabilities
    0..100 (§5, YANG sonic-wred-profile; orchagent WredMapHandler);
  - maps: DSCP 0..63 and classes 0..7 as keys, 0..7 as values (§3);
  - PORT_QOS_MAP keys are ports or "global"; pfc_enable and pfcwd_sw_enable
    match ([0-7](,[0-7])*)? (§4, YANG sonic-port-qos-map);
  - QUEUE keys are <port>|<0..7> of a port that exists (§5, YANG sonic-queue);
  - PFC_WD|<port>: detection_time present, 100..5000; restoration_time
    100..60000; action drop|forward|alert; both >= PFC_WD|GLOBAL
    POLL_INTERVAL, itself 100..1000 (§6, YANG sonic-pfcwd);
  - CABLE_LENGTH fields are ports, values [0-9]+m (§7, YANG
    sonic-cable-length);
  - traditional buffer model: every port with lossless priorities
    (pfc_enable) has a cable length whose (speed, cable) pair has a row in
    the SKU's pg_profile_lookup.ini (LOOKUP below); without one buffermgrd
    logs "No PG profile configured for speed .. and cable length .." and
    PFC runs without headroom (SW:cfgmgr/buffermgr.cpp doSpeedUpdateTask,
    §7);
  - no priority group is in two BUFFER_PG entries of a port, and a
    buffermgrd-made lossless entry (profile pg_lossless_*) covers only
    priorities of the port's pfc_enable: buffermgrd never deletes one, so
    an entry left behind when pfc_enable narrowed keeps headroom on a lossy
    priority (SW:cfgmgr/buffermgr.cpp writes, never deletes, §7).
And, given the CONFIG_DB from before an apply and the ports it manages:
  - a SCHEDULER that existed keeps its type and weight: orchagent would
    change it in place under every queue that uses it (SONiC itself allows
    the change: no YANG or config-patching create-only marking);
  - every key that is not a managed port's own (its QUEUE, PORT_QOS_MAP,
    PFC_WD, BUFFER_PG, BUFFER_QUEUE entries) and existed before is byte for
    byte what it was, except CABLE_LENGTH, where only managed ports' fields
    may change: no object that another port uses is touched.
"""
import json
import re
import socket
import sys

CONFIG_DB = 4


class Redis:
    """The few commands needed, over redis' own protocol (RESP)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise IOError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise IOError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(65536)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data.decode()
        if kind == b"*":
            return [self._reply() for _ in range(int(rest))]
        raise IOError("bad reply %r" % line)

    def pipeline(self, cmds):
        out = b""
        for c in cmds:
            out += b"*%d\r\n" % len(c)
            for a in c:
                a = str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return [self._reply() for _ in cmds]

    def cmd(self, *args):
        return self.pipeline([args])[0]


def load(r):
    r.cmd("SELECT", CONFIG_DB)
    keys = sorted(r.cmd("KEYS", "*"))
    replies = r.pipeline([("HGETALL", k) for k in keys])
    return {k: dict(zip(v[0::2], v[1::2])) for k, v in zip(keys, replies)}


# ---- the SKU's pg_profile_lookup.ini and buffermgrd (§7) ------------------

# (speed, cable) -> (size, xon, xoff, threshold): the form of
# BI:device/<vendor>/<platform>/<sku>/pg_profile_lookup.ini (columns speed
# cable size xon xoff threshold [xon_offset]; rows for 5m, 40m and 300m per
# speed, as the SKUs ship them). The 100000 5m row is ACS-MSN2700's
# (docs/sonic-qos-notes.md §7); the other figures are this fake's own.
LOOKUP = {}
for _speed, _xoff in (("10000", 9728), ("25000", 10752), ("40000", 17408),
                      ("50000", 19456), ("100000", 30720)):
    for _i, _cable in enumerate(("5m", "40m", "300m")):
        _x = _xoff * (1, 3, 9)[_i]  # headroom grows with the cable
        LOOKUP[(_speed, _cable)] = (str(19456 + _x), "19456", str(_x), "0")


def lookup_ini():
    lines = ["# PG lossless profiles.",
             "# speed cable size    xon  xoff threshold"]
    for (speed, cable), (size, xon, xoff, th) in sorted(
            LOOKUP.items(), key=lambda kv: (int(kv[0][0]), int(kv[0][1][:-1]))):
        lines.append("  %-6s %-4s %-7s %-6s %-6s %s" % (speed, cable, size, xon, xoff, th))
    return "\n".join(lines) + "\n"


def pg_runs(pfc_enable):
    """buffermgrd's BUFFER_PG ranges for pfc_enable "3,4" -> ["3-4"]; "3,6"
    -> ["3", "6"] (SW:cfgmgr/buffermgr.cpp generateIdListFromMap)."""
    prios = sorted({int(p) for p in pfc_enable.split(",") if p})
    runs = []
    for p in prios:
        if runs and runs[-1][1] == p - 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ["%d" % a if a == b else "%d-%d" % (a, b) for a, b in runs]


def pg_set(rng):
    a, _, b = rng.partition("-")
    return set(range(int(a), int(b or a) + 1))


def buffermgrd(r, before=None):
    """doPortQosTableTask -> doSpeedUpdateTask for each port whose pfc_enable
    changed (SW:cfgmgr/buffermgr.cpp, traditional model): the profile
    pg_lossless_<speed>_<cable>_profile from LOOKUP if absent, and
    BUFFER_PG|<port>|<run> for each run; nothing when (speed, cable) has no
    row (its error line is returned); it never deletes an entry."""
    db = load(r)
    if db.get("DEVICE_METADATA|localhost", {}).get("buffer_model") == "dynamic":
        return []
    cable = db.get("CABLE_LENGTH|AZURE", {})
    errors, cmds = [], [("SELECT", CONFIG_DB)]
    for key, fv in sorted(db.items()):
        if not key.startswith("PORT_QOS_MAP|") or "pfc_enable" not in fv:
            continue
        port = key.split("|", 1)[1]
        if port == "global" or "PORT|" + port not in db:
            continue
        if before is not None and before.get(key, {}).get("pfc_enable") == fv["pfc_enable"]:
            continue
        speed, length = db["PORT|" + port].get("speed"), cable.get(port)
        if length is None or length == "0m" or speed is None:
            continue
        if (speed, length) not in LOOKUP:
            errors.append("buffermgrd: Unable to create/update PG profile for port %s. No PG "
                          "profile configured for speed %s and cable length %s"
                          % (port, speed, length))
            continue
        name = "pg_lossless_%s_%s_profile" % (speed, length)
        size, xon, xoff, th = LOOKUP[(speed, length)]
        if "BUFFER_PROFILE|" + name not in db:
            mode = db.get("BUFFER_POOL|ingress_lossless_pool", {}).get("mode", "dynamic")
            cmds.append(["HSET", "BUFFER_PROFILE|" + name, "pool", "ingress_lossless_pool",
                         "xon", xon, "xoff", xoff, "size", size, mode + "_th", th])
        ref = "[BUFFER_PROFILE|%s]" % name if bracket_refs(
            db.get("VERSIONS|DATABASE", {}).get("VERSION")) else name
        for run in pg_runs(fv["pfc_enable"]):
            cmds.append(["DEL", "BUFFER_PG|%s|%s" % (port, run)])
            cmds.append(["HSET", "BUFFER_PG|%s|%s" % (port, run), "profile", ref])
    r.pipeline(cmds)
    return errors


# ---- seed: a 100G leaf after `config qos reload` (traditional buffers) ----

def bracket_refs(version):
    """Does the CONFIG_DB schema `version` take [TABLE|name] references?"""
    m = re.fullmatch(r"version_([0-9]+)_([0-9]+)_([0-9]+)", version or "")
    return bool(m) and tuple(int(x) for x in m.groups()) <= (3, 0, 2)


def seed(r, n_ports, version="version_202311_03"):
    ports = ["Ethernet%d" % (4 * i) for i in range(n_ports)]
    br = bracket_refs(version)

    def ref(table, name):
        return "[%s|%s]" % (table, name) if br else name

    db = {}
    db["VERSIONS|DATABASE"] = {"VERSION": version}
    db["DEVICE_METADATA|localhost"] = {
        "hostname": "leaf1", "hwsku": "Arista-7050CX3-32S-C32",
        "platform": "x86_64-arista_7050cx3_32s", "mac": "0c:42:a1:00:00:01",
        "type": "LeafRouter", "bgp_asn": "65100", "buffer_model": "traditional",
        "default_pfcwd_status": "enable"}
    for i, p in enumerate(ports):
        db["PORT|" + p] = {"alias": "etp%d" % (i + 1), "speed": "100000",
                           "lanes": ",".join(str(4 * i + k) for k in range(1, 5)),
                           "mtu": "9100", "admin_status": "up", "index": str(i + 1),
                           "fec": "rs"}
    # qos_config.j2 (§3-§5)
    dscp = {str(d): "1" for d in range(64)}
    dscp.update({"3": "3", "4": "4", "8": "0", "5": "2", "46": "5", "48": "6"})
    db["DSCP_TO_TC_MAP|AZURE"] = dscp
    db["TC_TO_PRIORITY_GROUP_MAP|AZURE"] = {str(t): {3: "3", 4: "4", 7: "7"}.get(t, "0")
                                            for t in range(8)}
    db["TC_TO_QUEUE_MAP|AZURE"] = {str(t): str(t) for t in range(8)}
    db["MAP_PFC_PRIORITY_TO_QUEUE|AZURE"] = {str(t): str(t) for t in range(8)}
    db["SCHEDULER|scheduler.0"] = {"type": "DWRR", "weight": "14"}
    db["SCHEDULER|scheduler.1"] = {"type": "DWRR", "weight": "15"}
    wred = {"wred_green_enable": "true", "wred_yellow_enable": "true",
            "wred_red_enable": "true", "ecn": "ecn_all"}
    for c in ("green", "yellow", "red"):
        wred.update({c + "_min_threshold": "1048576", c + "_max_threshold": "2097152",
                     c + "_drop_probability": "5"})
    db["WRED_PROFILE|AZURE_LOSSLESS"] = wred
    if not br:  # 202205 and later (§4)
        db["PORT_QOS_MAP|global"] = {"dscp_to_tc_map": "AZURE"}
    for p in ports:
        db["PORT_QOS_MAP|" + p] = {"dscp_to_tc_map": ref("DSCP_TO_TC_MAP", "AZURE"),
                                   "tc_to_queue_map": ref("TC_TO_QUEUE_MAP", "AZURE"),
                                   "tc_to_pg_map": ref("TC_TO_PRIORITY_GROUP_MAP", "AZURE"),
                                   "pfc_to_queue_map": ref("MAP_PFC_PRIORITY_TO_QUEUE",
                                                           "AZURE"),
                                   "pfc_enable": "3,4"}
        if not br:
            db["PORT_QOS_MAP|" + p]["pfcwd_sw_enable"] = "3,4"
        for q in range(7):
            db["QUEUE|%s|%d" % (p, q)] = (
                {"scheduler": ref("SCHEDULER", "scheduler.1"),
                 "wred_profile": ref("WRED_PROFILE", "AZURE_LOSSLESS")}
                if q in (3, 4) else {"scheduler": ref("SCHEDULER", "scheduler.0")})
    # buffers_config.j2 and buffermgrd's lossless PGs (§7)
    db["CABLE_LENGTH|AZURE"] = {p: "5m" for p in ports}
    db["BUFFER_POOL|ingress_lossless_pool"] = {"type": "ingress", "mode": "dynamic",
                                               "size": "10875072", "xoff": "4194112"}
    db["BUFFER_POOL|egress_lossless_pool"] = {"type": "egress", "mode": "static",
                                              "size": "15982720"}
    db["BUFFER_POOL|egress_lossy_pool"] = {"type": "egress", "mode": "dynamic",
                                           "size": "9243812"}
    db["BUFFER_PROFILE|ingress_lossy_profile"] = {"pool": "ingress_lossless_pool",
                                                  "size": "0", "dynamic_th": "3"}
    db["BUFFER_PROFILE|egress_lossless_profile"] = {"pool": "egress_lossless_pool",
                                                    "size": "0", "static_th": "15982720"}
    db["BUFFER_PROFILE|egress_lossy_profile"] = {"pool": "egress_lossy_pool",
                                                 "size": "1518", "dynamic_th": "3"}
    db["BUFFER_PROFILE|pg_lossless_100000_5m_profile"] = {
        "pool": "ingress_lossless_pool", "size": "50176", "xon": "19456", "xoff": "30720",
        "dynamic_th": "0"}
    for p in ports:
        db["BUFFER_PG|%s|0" % p] = {"profile": ref("BUFFER_PROFILE", "ingress_lossy_profile")}
        db["BUFFER_PG|%s|3-4" % p] = {"profile": ref("BUFFER_PROFILE",
                                                     "pg_lossless_100000_5m_profile")}
        db["BUFFER_QUEUE|%s|3-4" % p] = {"profile": ref("BUFFER_PROFILE",
                                                        "egress_lossless_profile")}
        db["BUFFER_QUEUE|%s|0-2" % p] = {"profile": ref("BUFFER_PROFILE",
                                                        "egress_lossy_profile")}
        db["BUFFER_QUEUE|%s|5-6" % p] = {"profile": ref("BUFFER_PROFILE",
                                                        "egress_lossy_profile")}
    # pfcwd start_default: 200 ms per started group of 32 ports (§6)
    m = (n_ports + 31) // 32
    for p in ports:
        db["PFC_WD|" + p] = {"action": "drop", "detection_time": str(200 * m),
                             "restoration_time": str(200 * m),
                             "pfc_stat_history": "disable"}
    db["PFC_WD|GLOBAL"] = {"POLL_INTERVAL": str(min(200 * m, 1000))}
    cmds = [("SELECT", CONFIG_DB)]
    for k, fv in db.items():
        args = ["HSET", k]
        for f, v in fv.items():
            args += [f, v]
        cmds.append(args)
    r.pipeline(cmds)


# ---- the checker ----------------------------------------------------------

def ival(s):
    return int(s) if re.fullmatch(r"-?[0-9]+", s or "") else None


def check(db, before=None, managed=()):
    faults = []

    def fault(key, what):
        faults.append("%s: %s" % (key, what))

    ports = {k.split("|", 1)[1] for k in db if k.startswith("PORT|")}
    version = db.get("VERSIONS|DATABASE", {}).get("VERSION")
    br = bracket_refs(version)

    def table(name):
        return {k.split("|", 1)[1]: v for k, v in db.items() if k.startswith(name + "|")}

    def ref(key, field, target):
        v = db[key].get(field)
        if v is None:
            return
        if br:
            m = re.fullmatch(r"\[%s\|(.+)\]" % re.escape(target), v)
            if not m:
                fault(key, "%s = %s: schema %s takes [%s|name] references"
                      % (field, v, version, target))
                return
            v = m.group(1)
        elif v.startswith("["):
            fault(key, "%s = %s: schema %s (202111 and later) takes plain names, not "
                  "[TABLE|name]" % (field, v, version))
            return
        if "%s|%s" % (target, v) not in db:
            fault(key, "%s = %s: no %s|%s" % (field, v, target, v))

    for name, fv in table("SCHEDULER").items():
        key = "SCHEDULER|" + name
        if fv.get("type", "WRR") not in ("DWRR", "WRR", "STRICT"):
            fault(key, "type %s is not DWRR, WRR or STRICT" % fv.get("type"))
        if "weight" in fv and not 1 <= (ival(fv["weight"]) or 0) <= 100:
            fault(key, "weight %s is not 1..100" % fv["weight"])
    ecns = ("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow",
            "ecn_green_red", "ecn_yellow_red", "ecn_all")
    for name, fv in table("WRED_PROFILE").items():
        key = "WRED_PROFILE|" + name
        if fv.get("ecn", "ecn_none") not in ecns:
            fault(key, "ecn %s is not one of %s" % (fv["ecn"], ", ".join(ecns)))
        for c in ("green", "yellow", "red"):
            if fv.get("wred_%s_enable" % c, "false") not in ("true", "false"):
                fault(key, "wred_%s_enable is not true or false" % c)
            lo, hi = ival(fv.get(c + "_min_threshold")), ival(fv.get(c + "_max_threshold"))
            if lo is not None and hi is not None and lo > hi:
                fault(key, "%s_min_threshold %d above %s_max_threshold %d" % (c, lo, c, hi))
            p = fv.get(c + "_drop_probability")
            if p is not None and not 0 <= (ival(p) if ival(p) is not None else -1) <= 100:
                fault(key, "%s_drop_probability %s is not 0..100" % (c, p))
    for tab, top in (("DSCP_TO_TC_MAP", 63), ("TC_TO_QUEUE_MAP", 7),
                     ("TC_TO_PRIORITY_GROUP_MAP", 7), ("MAP_PFC_PRIORITY_TO_QUEUE", 7)):
        for name, fv in table(tab).items():
            for f, v in fv.items():
                if not 0 <= (ival(f) if ival(f) is not None else -1) <= top:
                    fault(tab + "|" + name, "key %s is not 0..%d" % (f, top))
                if not 0 <= (ival(v) if ival(v) is not None else -1) <= 7:
                    fault(tab + "|" + name, "%s -> %s: not 0..7" % (f, v))
    maps = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_queue_map": "TC_TO_QUEUE_MAP",
            "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
            "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE"}
    for name, fv in table("PORT_QOS_MAP").items():
        key = "PORT_QOS_MAP|" + name
        if name != "global" and name not in ports:
            fault(key, "no PORT|%s" % name)
        for f, t in maps.items():
            ref(key, f, t)
        for f in ("pfc_enable", "pfcwd_sw_enable"):
            if f in fv and not re.fullmatch(r"([0-7](,[0-7])*)?", fv[f]):
                fault(key, "%s %r does not match ([0-7](,[0-7])*)?" % (f, fv[f]))
    for name in table("QUEUE"):
        key = "QUEUE|" + name
        port, _, q = name.rpartition("|")
        if port not in ports:
            fault(key, "no PORT|%s" % port)
        if not re.fullmatch(r"[0-7]", q):
            fault(key, "queue %s is not 0..7" % q)
        ref(key, "scheduler", "SCHEDULER")
        ref(key, "wred_profile", "WRED_PROFILE")
    for name in table("BUFFER_PG"):
        key = "BUFFER_PG|" + name
        if db[key].get("profile") not in (None, "NULL"):
            ref(key, "profile", "BUFFER_PROFILE")
    wd = table("PFC_WD")
    poll = ival(wd.get("GLOBAL", {}).get("POLL_INTERVAL"))
    if poll is not None and not 100 <= poll <= 1000:
        fault("PFC_WD|GLOBAL", "POLL_INTERVAL %d is not 100..1000" % poll)
    for name, fv in wd.items():
        if name == "GLOBAL":
            continue
        key = "PFC_WD|" + name
        if name not in ports:
            fault(key, "no PORT|%s" % name)
        if fv.get("action", "drop") not in ("drop", "forward", "alert"):
            fault(key, "action %s is not drop, forward or alert" % fv["action"])
        det, res = ival(fv.get("detection_time")), ival(fv.get("restoration_time"))
        if det is None:
            fault(key, "detection_time missing: the entry is invalid")
        elif not 100 <= det <= 5000:
            fault(key, "detection_time %d is not 100..5000" % det)
        if "restoration_time" in fv and (res is None or not 100 <= res <= 60000):
            fault(key, "restoration_time %s is not 100..60000" % fv["restoration_time"])
        for what, v in (("detection_time", det), ("restoration_time", res)):
            if poll is not None and v is not None and v < poll:
                fault(key, "%s %d below PFC_WD|GLOBAL POLL_INTERVAL %d" % (what, v, poll))
    for name, fv in table("CABLE_LENGTH").items():
        for p, v in fv.items():
            if p not in ports:
                fault("CABLE_LENGTH|" + name, "field %s is no port" % p)
            if not re.fullmatch(r"[0-9]+m", v):
                fault("CABLE_LENGTH|" + name, "%s = %r does not match [0-9]+m" % (p, v))
    if db.get("DEVICE_METADATA|localhost", {}).get("buffer_model") != "dynamic":
        cable = db.get("CABLE_LENGTH|AZURE", {})
        for name, fv in sorted(table("PORT_QOS_MAP").items()):
            if name not in ports or not fv.get("pfc_enable"):
                continue
            speed, length = db["PORT|" + name].get("speed"), cable.get(name)
            if speed and length and length != "0m" and (speed, length) not in LOOKUP:
                fault("CABLE_LENGTH|AZURE", "%s = %s at speed %s: no pg_profile_lookup.ini "
                      "row, buffermgrd logs 'No PG profile configured' and PFC runs without "
                      "headroom" % (name, length, speed))
    pgs = {}
    for name, fv in table("BUFFER_PG").items():
        port, _, rng = name.rpartition("|")
        if not re.fullmatch(r"[0-7](-[0-7])?", rng):
            fault("BUFFER_PG|" + name, "pg_num %s does not match [0-7](-[0-7])?" % rng)
            continue
        pgs.setdefault(port, []).append((rng, fv))
    for port, entries in sorted(pgs.items()):
        seen = {}
        lossless = {int(p) for p in db.get("PORT_QOS_MAP|" + port, {})
                    .get("pfc_enable", "").split(",") if p}
        for rng, fv in sorted(entries, key=lambda e: e[0]):
            for pg in sorted(pg_set(rng)):
                if pg in seen:
                    fault("BUFFER_PG|%s|%s" % (port, rng), "priority group %d is in "
                          "BUFFER_PG|%s|%s too" % (pg, port, seen[pg]))
                seen[pg] = rng
            profile = fv.get("profile", "").strip("[]").rpartition("|")[2]
            if profile.startswith("pg_lossless_") and not pg_set(rng) <= lossless:
                fault("BUFFER_PG|%s|%s" % (port, rng), "lossless headroom (%s) on "
                      "priorities %s, not in pfc_enable %r: left behind when it narrowed"
                      % (profile, ",".join(str(p) for p in sorted(pg_set(rng) - lossless)),
                         ",".join(str(p) for p in sorted(lossless))))
    if before is not None:
        own = re.compile(r"(QUEUE|PORT_QOS_MAP|PFC_WD|BUFFER_PG|BUFFER_QUEUE)\|(%s)(\||$)"
                         % "|".join(re.escape(p) for p in managed)) if managed else None
        for key, old in sorted(before.items()):
            new = db.get(key)
            if key.startswith("SCHEDULER|") and new is not None:
                for f in ("type", "weight"):
                    if old.get(f) != new.get(f):
                        fault(key, "%s changed from %s to %s: an existing scheduler, "
                              "under every queue that uses it"
                              % (f, old.get(f), new.get(f)))
            if own and own.match(key):
                continue
            if key.startswith("CABLE_LENGTH|") and new is not None:
                for p in sorted(set(old) | set(new)):
                    if p not in managed and old.get(p) != new.get(p):
                        fault(key, "%s changed (%s -> %s): not a managed port"
                              % (p, old.get(p), new.get(p)))
                continue
            if new != old:
                fault(key, "changed, though it is not the managed ports' own: %s -> %s"
                      % (json.dumps(old, sort_keys=True), json.dumps(new, sort_keys=True)))
    return faults


def main(argv):
    if len(argv) == 2 and argv[1] == "lookup":
        sys.stdout.write(lookup_ini())
        return 0
    if len(argv) < 3 or argv[1] not in ("seed", "snapshot", "check", "buffermgrd"):
        sys.stderr.write(__doc__)
        return 2
    r = Redis(argv[2])
    opts = dict(zip(argv[3::2], argv[4::2]))
    if argv[1] == "seed":
        seed(r, int(opts.get("--ports", "32")), opts.get("--version", "version_202311_03"))
        return 0
    if argv[1] == "snapshot":
        json.dump(load(r), sys.stdout, sort_keys=True)
        return 0
    before = None
    if "--before" in opts:
        with open(opts["--before"]) as f:
            before = json.load(f)
    if argv[1] == "buffermgrd":
        errors = buffermgrd(r, before)
        for e in errors:
            print(e)
        return 0
    managed = tuple(p for p in opts.get("--managed", "").split(",") if p)
    faults = check(load(r), before, managed)
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
