#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""tests/servers/eos_server.py: a small Arista eAPI (Command API) for the eos
plugin's tests. Python 3 standard library only; listens on 127.0.0.1 only.

    eos_server.py [--port N] [--user U --password P] [--cert PEM --key PEM]
                  [--model DCS-...]

prints "PORT <n>" on stdout once it listens (port 0 / no --port: a free one);
with --cert and --key it speaks HTTPS (as eAPI does by default). --model is
the platform it pretends to be (show version's modelName; default
DCS-7050CX3-32S-F, a Trident 3 leaf): it decides the queue keyword (below).

It answers POST /command-api with JSON-RPC 2.0 "runCmds" (params version 1,
cmds, format "json" or "text") for exactly the commands the plugin uses, with
the output EOS documents for them (the counters commands with the test's
values, show_counters), and keeps a small model of the running
config (hostname, QoS maps, per-interface QoS trust, PFC, tx-queue
scheduling and ECN, access VLANs, switchport mode access / trunk, "no
switchport"). Each command is matched whole against the syntax EOS gives it
(never by a keyword somewhere in the line), in the mode it belongs to, with
EOS's falling back to the enclosing mode for a command of that mode. The
vendor rules it enforces or models, each with its source at the code:
  - the queue keyword follows the platform: "uc-tx-queue N" on the VOQ
    (Jericho / DNX) families 7280, 75xx, 78xx, "tx-queue N" on the others;
    the other keyword is refused as EOS refuses a command the hardware
    lacks (PLATFORM_VOQ, config_line)
  - "random-detect ecn minimum-threshold N U maximum-threshold M U
    [max-mark-probability P] [weight W]": N, M 1..256000000, P 1..100, W
    0..15 (else 1002 "Invalid input"), N <= M in bytes (else 1000); the
    line is kept and shown as typed (ECN_RE)
  - QoS trust: a port without a "qos trust" line trusts DSCP when routed
    ("no switchport") and CoS when it is a switchport; the DSCP -> TC map
    classifies a port's traffic only when the port trusts DSCP, the no-drop
    priorities pause only with "priority-flow-control on" (Config.effective,
    GET /_test/state "effective", "show qos interfaces")
It refuses what eAPI refuses:
  - another path: 404; another method than POST: 405
  - missing or wrong basic auth: 401
  - a body that is not a JSON-RPC 2.0 runCmds request: error -32700 / -32600
    / -32601 / -32602
  - an unknown command, or a config command outside configure mode, or a
    privileged command before "enable": error 1002 "CLI command <i> of <n>
    '<cmd>' failed: invalid command", data = the results before it and
    {"errors": [...]} for it; the commands after it do not run
  - "interface EthernetN" or "show interfaces EthernetN switchport" for a
    port the switch does not have: the same, errors ["Interface does not
    exist"] (the words Ansible's eos_l2_interface looks for in the answer
    of that show command)
  - "commit" of a session in which a line failed (never reached here, as
    eAPI stops at the failing line) and of a session made to fail (below):
    error 1000, the session stays pending until "abort"

Test-only endpoints (no auth):
  POST /_test/config   {"cmds": [...]}  config lines run in "configure" mode,
                       behind loom's back (refused ones: HTTP 400 {"error"})
  POST /_test/counters {"port": "Ethernet1", "interfaceCounters": {...}, "pfc":
                       {"<p>": {"rxFrames", "txFrames"}}, "watchdog": {"<q>":
                       {"stuckCount", "recoveryCount"}}, "ecn": {"<q>": n}}: merged
                       into the port's counters (null removes); {"refuse": [cmd,
                       ...]}: show commands this platform refuses from now on
                       (answered as EOS answers a command it lacks)
  POST /_test/model    {"model": "DCS-7280CR3-32P4-F"} the platform from now
                       on (show version, queue keyword); the config stays
  POST /_test/fail     {"command": "commit"} the next runCmds command equal to
                       this fails with error 1000 ("could not run command");
                       {"http": 500} the next /command-api request gets HTTP 500;
                       {"stall": seconds} the next /command-api request is
                       answered that late;
                       {"lose_answer_of": "commit"} the next request with that
                       command runs, but its answer is lost (HTTP 502)
  GET  /_test/state    {"running_config": text, "sessions": [...pending],
                       "effective": {port: {"trust": "dscp"|"cos"|"untrusted",
                       "dscp_tc": [64 TCs the port gives IP packets by DSCP,
                       untagged], "pfc_nodrop": [priorities paused]}}}
  GET  /_test/log      {"requests": [{"path", "status", "cmds", "format",
                       "error", "refused"}]}; refused: answered with an HTTP
                       error or a JSON-RPC error
"""
import argparse
import base64
import copy
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

N_PORTS = 8


def default_dscp_tc(d):
    if d < 8:
        return 1
    if d < 16:
        return 0
    return d >> 3


class CmdError(Exception):
    def __init__(self, code, why, errors):
        super().__init__(why)
        self.code = code
        self.why = why
        self.errors = errors


def invalid(cmd, why="Invalid input"):
    return CmdError(1002, "invalid command", ["%s (at token 0: '%s')" % (why, cmd.split(" ")[0])])


class Txq:
    def __init__(self):
        self.priority = None      # None default (strict), "strict", "rr"
        self.bandwidth = None
        self.ecn = None           # the line after "random-detect ecn "


class Intf:
    def __init__(self):
        self.trust = None         # None: no line (the default of the port mode),
                                  # "dscp", "cos", "untrusted" ("no qos trust")
        self.pfc_on = False
        self.nodrop = set()
        self.vlan = None
        self.switchport = True    # False: "no switchport" (a routed port)
        self.mode = "access"      # "switchport mode access|trunk"
        self.txq = {q: Txq() for q in range(8)}

    def effective_trust(self):
        """The trust in force. Default per port mode as the EOS manual's QoS
        chapter gives it (and the brief of loom issue 17 restates): routed
        ports trust DSCP, switched ports trust CoS. Not confirmed from a
        retrieved Arista page (see docs/eos-qos-notes.md); the line forms
        are AVD's (aristanetworks/avd python-avd/pyavd/_eos_cli_config_gen/
        j2templates/eos/ethernet-interfaces.j2: "qos trust <dscp|cos>",
        "no qos trust" for trust disabled)."""
        if self.trust is not None:
            return self.trust
        return "cos" if self.switchport else "dscp"


# Show version modelName prefixes (after "DCS-"/"CCS-") of the VOQ (Broadcom
# Jericho / DNX) families: their per-port queues are "uc-tx-queue N" (and
# "mc-tx-queue N"), where the Trident / Tomahawk families (7050X, 7060X,
# 7260X, ...) have "tx-queue N". Sources: AVD's two templates
# (python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/ethernet-interface-
# tx-queues.j2 and ...-uc-tx-queues.j2, schema keys tx_queues / uc_tx_queues);
# which families take which: loom issue 17 (7280R / 7500R uc-tx-queue, 7050X
# / 7060X / 7260X tx-queue); 78xx (7800R3, Jericho2) by the same family rule.
PLATFORM_VOQ = ("7280", "75", "78")


def platform_voq(model):
    m = re.sub(r"^(DCS|CCS)-", "", model or "")
    return m.startswith(PLATFORM_VOQ)


UNAVAILABLE = "Unavailable command (not supported on this hardware platform)"


class Config:
    def __init__(self, model="DCS-7050CX3-32S-F"):
        self.hostname = "leaf1"
        self.model = model
        self.dscp = {}            # dscp -> tc, only lines
        self.tc_txq = {}
        self.intf = {"Ethernet%d" % (i + 1): Intf() for i in range(N_PORTS)}

    def queue_word(self):
        return "uc-tx-queue" if platform_voq(self.model) else "tx-queue"

    def effective(self):
        """Per port: the trust in force, the TC each DSCP gets (the DSCP map
        only where the port trusts DSCP; else the TC of the port's default
        CoS 0, EOS's default cos 0 -> tc 1, as eos_qos.c assumes), and the
        no-drop priorities that pause (only with "priority-flow-control on":
        the two are separate lines in AVD's ethernet-interfaces.j2, which
        renders "no priority-flow-control" and "priority-flow-control
        priority N no-drop" side by side; no source says EOS refuses the
        priority line without "on", so it is kept, inert)."""
        out = {}
        for name, x in self.intf.items():
            trust = x.effective_trust()
            if trust == "dscp":
                tcs = [self.dscp.get(d, default_dscp_tc(d)) for d in range(64)]
            else:
                tcs = [1] * 64
            out[name] = {"trust": trust, "dscp_tc": tcs,
                         "pfc_nodrop": sorted(x.nodrop) if x.pfc_on else []}
        return out

    def render(self):
        out = ["! Command: show running-config",
               "! device: %s (%s, EOS-4.30.1F)" % (self.hostname, self.model),
               "!", "hostname %s" % self.hostname, "!"]
        by_tc = {}
        for d in sorted(self.dscp):
            by_tc.setdefault(self.dscp[d], []).append(d)
        for tc in sorted(by_tc):
            out.append("qos map dscp %s to traffic-class %d" % (" ".join(map(str, by_tc[tc])), tc))
        for tc in sorted(self.tc_txq):
            out.append("qos map traffic-class %d to tx-queue %d" % (tc, self.tc_txq[tc]))
        out.append("!")
        for name in sorted(self.intf, key=lambda n: int(n[8:])):
            x = self.intf[name]
            out.append("interface %s" % name)
            if x.vlan is not None:
                out.append("   switchport access vlan %d" % x.vlan)
            if x.mode != "access":
                out.append("   switchport mode %s" % x.mode)
            if not x.switchport:
                out.append("   no switchport")
            if x.trust == "untrusted":
                out.append("   no qos trust")
            elif x.trust is not None:
                out.append("   qos trust %s" % x.trust)
            if x.pfc_on:
                out.append("   priority-flow-control on")
            for p in sorted(x.nodrop):
                out.append("   priority-flow-control priority %d no-drop" % p)
            for q in range(8):
                t = x.txq[q]
                body = []
                if t.bandwidth is not None:
                    body.append("      bandwidth percent %d" % t.bandwidth)
                if t.priority == "rr":
                    body.append("      no priority")
                elif t.priority == "strict":
                    body.append("      priority strict")
                if t.ecn is not None:
                    body.append("      random-detect ecn %s" % t.ecn)
                if body:
                    out.append("   !")
                    out.append("   %s %d" % (self.queue_word(), q))
                    out.extend(body)
            out.append("!")
        out.append("end")
        return "\n".join(out) + "\n"


def intf_name(word):
    """EthernetN for the forms EOS takes ("Ethernet1", "ethernet1", "Et1"), else
    None."""
    m = re.fullmatch(r"(?i)et(?:h(?:e(?:r(?:n(?:e(?:t)?)?)?)?)?)?(\d+)", word)
    return "Ethernet%d" % int(m.group(1)) if m else None


def vlan_information(x):
    """show interfaces status's vlanInformation of a port, as eAPI clients read
    it (netbox importers: interfaceForwardingModel "bridged" or not, vlanId of
    an access port). The routed and trunk forms are not confirmed; the plugin
    reads none of this."""
    if not x.switchport:
        return {"interfaceMode": "routed", "interfaceForwardingModel": "routed"}
    if x.mode == "trunk":
        return {"interfaceMode": "trunk", "interfaceForwardingModel": "bridged"}
    return {"interfaceMode": "bridged", "vlanId": x.vlan or 1,
            "interfaceForwardingModel": "bridged"}


def switchport_json(x):
    """One port of "show interfaces <port> switchport" in JSON: the names of
    the text form's lines ("Switchport: Enabled", "Administrative Mode",
    "Access Mode VLAN: 1 (default)", ...) as eAPI gives them (fake-switches'
    Arista eAPI model, internap/fake-switches). A routed port keeps its
    switchportInfo; "enabled" false says it is not in use."""
    vlan = x.vlan or 1
    return {"enabled": x.switchport,
            "switchportInfo": {
                "mode": x.mode, "accessVlanId": vlan,
                "accessVlanName": "default" if vlan == 1 else "VLAN%04d" % vlan,
                "trunkingNativeVlanId": 1, "trunkingNativeVlanName": "default",
                "trunkAllowedVlans": "ALL", "macLearning": True, "tpid": "0x8100",
                "tpidStatus": True, "dot1qVlanTagRequired": False,
                "dot1qVlanTagRequiredStatus": False, "staticTrunkGroups": [],
                "dynamicTrunkGroups": [], "dynamicAllowedVlans": {},
                "sourceportFilterMode": "enabled"}}


def switchport_text(name, x):
    short = "Et" + name[len("Ethernet"):]
    if not x.switchport:
        return "Name: %s\nSwitchport: Disabled\n\n" % short
    mode = "static access" if x.mode == "access" else x.mode
    vlan = x.vlan or 1
    return ("Name: %s\nSwitchport: Enabled\nAdministrative Mode: %s\n"
            "Operational Mode: %s\nAccess Mode VLAN: %d (%s)\n"
            "Trunking Native Mode VLAN: 1 (default)\nTrunking VLANs Enabled: ALL\n\n"
            % (short, mode, mode, vlan, "default" if vlan == 1 else "VLAN%04d" % vlan))


NUMS = r"(\d+(?:[ ,]\d+)*)"

# "random-detect ecn" in tx-queue mode, the whole line: the syntax and the
# ranges of AVD's schema and template (aristanetworks/avd python-avd/pyavd/
# _eos_cli_config_gen/schema/schema_fragments/ethernet_interfaces.schema.yml
# tx_queues / uc_tx_queues .random_detect.ecn.threshold: units segments |
# bytes | kbytes | mbytes | milliseconds, min and max 1..256000000,
# max_probability 1..100, weight 0..15; j2templates/eos/ethernet-interface-
# tx-queues.j2: max-mark-probability and weight optional, in that order).
# "milliseconds" (latency-based ECN, VOQ platforms only) is not modelled:
# refused. The line is kept as typed: AVD compares its rendered config with
# the running-config (CloudVision config compliance), which works only if
# EOS shows the unit the line was given in (an inference; its molecule
# configs keep "320 kbytes").
ECN_RE = re.compile(r"minimum-threshold (\d+) (segments|bytes|kbytes|mbytes) maximum-threshold (\d+) "
                    r"(segments|bytes|kbytes|mbytes)(?: max-mark-probability (\d+))?(?: weight (\d+))?")
ECN_MAX = 256000000
# Bytes per unit, only to compare minimum with maximum. The size of EOS's
# kbyte is not documented in any source found (docs/eos-qos-notes.md); 10^3
# here (the plugin writes bytes, and rewrites kbytes lines it finds).
UNIT = {"bytes": 1, "kbytes": 1000, "mbytes": 1000000}


def ecn_line(cmd, rest):
    m = ECN_RE.fullmatch(rest)
    if not m:
        raise invalid(cmd)
    mn, mx = int(m.group(1)), int(m.group(3))
    if not (1 <= mn <= ECN_MAX and 1 <= mx <= ECN_MAX):
        raise invalid(cmd)
    if m.group(5) is not None and not 1 <= int(m.group(5)) <= 100:
        raise invalid(cmd)
    if m.group(6) is not None and not 0 <= int(m.group(6)) <= 15:
        raise invalid(cmd)
    # minimum above maximum: refused (loom issue 17: min <= max); equal is
    # accepted (AVD's molecule qos.cfg: "minimum-threshold 320 kbytes
    # maximum-threshold 320 kbytes"). Compared in bytes where both units are
    # byte units; the size of a segment is the chip's, so segments are only
    # compared with segments. The words of the error are this fake's.
    u1, u2 = m.group(2), m.group(4)
    if (u1 == u2 and mn > mx) or (u1 in UNIT and u2 in UNIT and mn * UNIT[u1] > mx * UNIT[u2]):
        raise CmdError(1000, "could not run command",
                       ["random-detect ecn: minimum-threshold above maximum-threshold"])
    return rest


def txq_line(cfg, t, cmd):
    """One command of tx-queue mode on t; False when it is none."""
    if cmd == "priority strict":
        t.priority = "strict"
    elif cmd == "no priority":
        t.priority = "rr"
    elif re.fullmatch(r"bandwidth percent (\d+)", cmd):
        # AVD's schema gives no range; 1..100 as a percentage
        v = int(cmd.split()[-1])
        if not 1 <= v <= 100:
            raise invalid(cmd)
        t.bandwidth = v
    elif cmd == "no bandwidth percent":
        t.bandwidth = None
    elif cmd.startswith("random-detect ecn minimum-threshold "):
        t.ecn = ecn_line(cmd, cmd[len("random-detect ecn "):])
    elif cmd == "no random-detect ecn":
        t.ecn = None
    else:
        return False
    return True


def queue_cmd(cfg, cmd):
    """The queue of "tx-queue N" / "uc-tx-queue N", refusing the keyword the
    platform does not have; None when cmd is no queue command."""
    m = re.fullmatch(r"(uc-tx-queue|tx-queue|mc-tx-queue) (\d+)", cmd)
    if not m:
        return None
    if m.group(1) != cfg.queue_word():
        # a command the platform lacks: eAPI's 1002 (the words are those EOS
        # prints for such commands as far as known; not from a retrieved page)
        raise CmdError(1002, "invalid command", [UNAVAILABLE])
    if int(m.group(2)) > 7:
        raise invalid(cmd)
    return int(m.group(2))


def intf_line(cfg, name, cmd):
    """One command of interface mode on cfg.intf[name]; the new mode, or None
    when it is none."""
    x = cfg.intf[name]
    q = queue_cmd(cfg, cmd)
    if q is not None:
        return ("txq", name, q)
    if cmd in ("qos trust dscp", "qos trust cos"):
        x.trust = cmd.split()[-1]
    elif cmd == "no qos trust":
        x.trust = "untrusted"
    elif cmd == "default qos trust":
        x.trust = None
    elif cmd == "priority-flow-control on":
        x.pfc_on = True
    elif cmd == "no priority-flow-control":
        x.pfc_on = False
    elif re.fullmatch(r"priority-flow-control priority [0-7] no-drop", cmd):
        x.nodrop.add(int(cmd.split()[2]))
    elif re.fullmatch(r"no priority-flow-control priority [0-7]( no-drop)?", cmd):
        x.nodrop.discard(int(cmd.split()[3]))
    elif re.fullmatch(r"switchport access vlan (\d+)", cmd):
        v = int(cmd.split()[-1])
        if not 1 <= v <= 4094:
            raise invalid(cmd)
        x.vlan = v
    elif cmd == "no switchport access vlan":
        x.vlan = None
    elif cmd == "no switchport":
        x.switchport = False
    elif cmd == "switchport":
        x.switchport = True
    elif re.fullmatch(r"switchport mode (access|trunk)", cmd):
        x.mode = cmd.split()[-1]
    elif cmd == "no switchport mode":
        x.mode = "access"
    else:
        return None
    return ("if", name)


def global_line(cfg, cmd):
    """One command of global configuration mode; the new mode, or None when
    it is none."""
    m = re.fullmatch(r"interface (Ethernet\d+)", cmd)
    if m:
        if m.group(1) not in cfg.intf:
            raise CmdError(1002, "invalid command", ["Interface does not exist"])
        return ("if", m.group(1))
    m = re.fullmatch(r"qos map dscp %s to traffic-class (\d+)" % NUMS, cmd)
    if m:
        tc = int(m.group(2))
        ds = [int(v) for v in re.split("[ ,]", m.group(1))]
        # no limit on the number of DSCPs in one line: a DISA STIG for EOS
        # (Arista MLS EOS 4.2x router, V-256014 / ARST-RT-000320) configures
        # "qos map dscp 0 1 2 ... 63 to traffic-class 0" with 55 values
        if tc > 7 or any(d > 63 for d in ds):
            raise invalid(cmd)
        for d in ds:
            cfg.dscp[d] = tc
        return "config"
    m = re.fullmatch(r"no qos map dscp %s to traffic-class (\d+)" % NUMS, cmd)
    if m:
        for d in [int(v) for v in re.split("[ ,]", m.group(1))]:
            cfg.dscp.pop(d, None)
        return "config"
    m = re.fullmatch(r"qos map traffic-class %s to tx-queue (\d+)" % NUMS, cmd)
    if m:
        q = int(m.group(2))
        ts = [int(v) for v in re.split("[ ,]", m.group(1))]
        if q > 7 or any(t > 7 for t in ts):
            raise invalid(cmd)
        for t in ts:
            cfg.tc_txq[t] = q
        return "config"
    return None


def config_line(cfg, mode, cmd):
    """Run one config command in mode ("config", ("if", name), ("txq", name, q)) on
    cfg; the new mode. Raises CmdError for what EOS would refuse. A command
    the mode does not have is tried in the enclosing modes (tx-queue ->
    interface -> global), as EOS's CLI does (the mode then becomes that
    one); what no mode has is refused whole."""
    if cmd == "exit":
        if mode == "config":
            return "exec"
        if mode[0] == "txq":
            return ("if", mode[1])
        return "config"
    if cmd == "end":
        return "exec"
    if mode != "config" and mode[0] == "txq" and \
            txq_line(cfg, cfg.intf[mode[1]].txq[mode[2]], cmd):
        return mode
    if mode != "config":
        new = intf_line(cfg, mode[1], cmd)
        if new is not None:
            return new
    new = global_line(cfg, cmd)
    if new is not None:
        return new
    raise invalid(cmd)


# ---- counters: what the switch counts, in eAPI's JSON ------------------------------
# Values are the test's (POST /_test/counters), zero until it sets them. Sources
# (docs/eos-counters-notes.md):
#  [NAPALM] napalm's eos driver and its captured "show interfaces" (test/eos/mocked_data/
#           test_get_interfaces_counters/normal/show_interfaces.json): interfaces.<name>
#           .interfaceCounters {inOctets, outOctets, inUcastPkts, ..., inDiscards,
#           outDiscards, totalInErrors, totalOutErrors, inputErrorsDetail,
#           outputErrorsDetail, linkStatusChanges, counterRefreshTime}
#  [HC]     public health checks that read EOS's JSON: "show interfaces <if>
#           priority-flow-control counters detail" -> interfaces.<if>.priorities.<p>
#           {rxFrames, txFrames}; "show priority-flow-control counters watchdog" ->
#           interfaces.<if>.txQueues.<q> {stuckCount, recoveryCount}, a port listed
#           only once its watchdog acted ({"interfaces": {}} until then)
#  [NS]     AMD's node-scraper Arista collector: "show qos interfaces ecn counters
#           queue" -> intfQueueCounters.<if>.queueCounters.<q>: marked packets
CMD_PFC = "show priority-flow-control counters detail"
CMD_WD = "show priority-flow-control counters watchdog"
CMD_ECN = "show qos interfaces ecn counters queue"


def zero_interface_counters():
    c = {f: 0 for f in ("inOctets", "outOctets", "inUcastPkts", "outUcastPkts",
                        "inMulticastPkts", "outMulticastPkts", "inBroadcastPkts",
                        "outBroadcastPkts", "inDiscards", "outDiscards", "totalInErrors",
                        "totalOutErrors", "linkStatusChanges")}
    c["inputErrorsDetail"] = {f: 0 for f in ("runtFrames", "rxPause", "fcsErrors",
                                             "alignmentErrors", "giantFrames", "symbolErrors")}
    c["outputErrorsDetail"] = {f: 0 for f in ("deferredTransmissions", "txPause",
                                              "collisions", "lateCollisions")}
    c["counterRefreshTime"] = 1700000000.5
    return c


def merge_counters(target, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(target.get(k), dict):
            merge_counters(target[k], v)
        elif v is None:
            target.pop(k, None)
        else:
            target[k] = copy.deepcopy(v)


class Switch:
    def __init__(self, model="DCS-7050CX3-32S-F"):
        self.lock = threading.RLock()
        self.cfg = Config(model)
        self.sessions = {}        # name -> (Config copy, poisoned)
        self.fail_cmd = None
        self.fail_http = None
        self.lose_answer_of = None
        self.stall = 0
        self.log = []
        self.counters = {}        # port -> {"interfaceCounters", "pfc", "watchdog", "ecn"}
        self.refused = set()      # show commands this platform lacks (refused as EOS does)
        self.version = {
            "modelName": model, "internalVersion": "4.30.1F-32308478.4301F",
            "systemMacAddress": "00:1c:73:aa:bb:01", "serialNumber": "JPE00000001",
            "memTotal": 8099732, "bootupTimestamp": 1700000000.0, "memFree": 6000000,
            "version": "4.30.1F", "architecture": "i686", "isIntlVersion": False,
            "internalBuildId": "0d3b3b0b-0000-0000-0000-000000000000",
            "hardwareRevision": "11.00", "mfgName": "Arista", "uptime": 1000.0}
        self.lldp = {
            "Ethernet1": [{"systemName": "spine1", "chassisIdType": "macAddress",
                           "chassisId": "001c.7300.1000",
                           "neighborInterfaceInfo": {"interfaceIdType": "interfaceName",
                                                     "interfaceId": "\"Ethernet49/1\"",
                                                     "interfaceId_v2": "Ethernet49/1",
                                                     "interfaceDescription": "to-leaf1-Et1"},
                           "systemDescription": "Arista Networks EOS version 4.30.1F",
                           "ttl": 120}],
            "Ethernet2": [{"systemName": "spine2", "chassisIdType": "macAddress",
                           "chassisId": "001c.7300.2000",
                           "neighborInterfaceInfo": {"interfaceIdType": "interfaceName",
                                                     "interfaceId": "\"Ethernet50/1\""},
                           "ttl": 120}],
            "Ethernet3": [],
        }

    def set_model(self, model):
        """The platform from now on; sessions keep their own copy."""
        self.version["modelName"] = model
        self.cfg.model = model

    # ---- show commands ------------------------------------------------
    def show_qos_interfaces(self, cmd, fmt):
        """"show qos interfaces [EthernetN]", text only: the lines of the
        sample in DISA's STIG for EOS (V-256014: "Port-Channel33:" /
        "Trust Mode: DSCP" / "Default COS: 0" / "Default DSCP: 0"), the
        trust in force per port. Its JSON names were found nowhere: the
        json format is not modelled (refused)."""
        m = re.fullmatch(r"show qos interfaces(?: (\S+))?", cmd)
        if not m:
            return None
        cfg = self.cfg
        names = sorted(cfg.intf, key=lambda n: int(n[8:]))
        if m.group(1):
            name = intf_name(m.group(1))
            if name is None:
                raise invalid(cmd)
            if name not in cfg.intf:
                raise CmdError(1002, "invalid command", ["Interface does not exist"])
            names = [name]
        if fmt != "text":
            raise invalid(cmd, "Invalid input (json not modelled by this fake)")
        eff = cfg.effective()
        return {"output": "".join("%s:\n   Trust Mode: %s\n   Default COS: 0\n   Default DSCP: 0\n\n"
                                  % (n, eff[n]["trust"].upper()) for n in names)}

    def port_counters(self, name):
        return self.counters.setdefault(name, {
            "interfaceCounters": zero_interface_counters(),
            "pfc": {str(p): {"rxFrames": 0, "txFrames": 0} for p in range(8)},
            "watchdog": {}, "ecn": {}})

    def show_counters(self, cmd, fmt):
        """The counters commands counters_read runs, or None for another command."""
        if cmd not in ("show interfaces", CMD_PFC, CMD_WD, CMD_ECN):
            return None
        if cmd in self.refused:
            raise invalid(cmd)
        names = sorted(self.cfg.intf, key=lambda n: int(n[8:]))
        if fmt == "text":
            return {"output": "".join("%s\n" % n for n in names)}
        if cmd == "show interfaces":
            ifs = {}
            for i, n in enumerate(names):
                up = i < 6
                ifs[n] = {"name": n, "interfaceStatus": "connected" if up else "notconnect",
                          "lineProtocolStatus": "up" if up else "down", "hardware": "ethernet",
                          "mtu": 9214, "bandwidth": 100000000000, "duplex": "duplexFull",
                          "forwardingModel": "bridged", "description": "",
                          "physicalAddress": "00:1c:73:aa:bb:%02x" % (i + 2),
                          "interfaceStatistics": {"inBitsRate": 0.0, "outBitsRate": 0.0,
                                                  "updateInterval": 300.0},
                          "interfaceCounters": copy.deepcopy(
                              self.port_counters(n)["interfaceCounters"])}
            ifs["Management1"] = {"name": "Management1", "hardware": "ethernet",
                                  "interfaceStatus": "connected", "forwardingModel": "routed",
                                  "interfaceCounters": zero_interface_counters()}
            return {"interfaces": ifs}
        if cmd == CMD_PFC:
            return {"interfaces": {n: {"priorities": copy.deepcopy(self.port_counters(n)["pfc"])}
                                   for n in names}}
        if cmd == CMD_WD:
            return {"interfaces": {n: {"txQueues": copy.deepcopy(self.port_counters(n)["watchdog"])}
                                   for n in names if self.port_counters(n)["watchdog"]}}
        return {"intfQueueCounters": {
            n: {"queueCounters": copy.deepcopy(self.port_counters(n)["ecn"])}
            for n in names if self.port_counters(n)["ecn"]}}

    def show(self, cmd, fmt, privileged):
        cfg = self.cfg
        r = self.show_counters(cmd, fmt)
        if r is not None:
            return r
        if cmd.startswith("show qos interfaces"):
            return self.show_qos_interfaces(cmd, fmt)
        if cmd == "show version":
            if fmt == "text":
                return {"output": "Arista %s\nSoftware image version: %s\nSystem MAC address:  %s\n" % (
                    self.version["modelName"], self.version["version"], self.version["systemMacAddress"])}
            return self.version
        if cmd == "show hostname":
            if fmt == "text":
                return {"output": "Hostname: %s\nFQDN:     %s\n" % (cfg.hostname, cfg.hostname)}
            return {"hostname": cfg.hostname, "fqdn": cfg.hostname}
        if cmd == "show interfaces status":
            st = {}
            for i, name in enumerate(cfg.intf):
                link = "connected" if i < 6 else ("notconnect" if i == 6 else "disabled")
                x = cfg.intf[name]
                st[name] = {"description": "", "linkStatus": link, "interfaceType": "100GBASE-CR4",
                            "bandwidth": 100000000000, "duplex": "duplexFull",
                            "autoNegotiateActive": False, "lineProtocolStatus":
                            "up" if link == "connected" else "down",
                            "vlanInformation": vlan_information(x)}
            st["Management1"] = {"linkStatus": "connected", "bandwidth": 1000000000,
                                 "interfaceType": "10/100/1000", "description": ""}
            if fmt == "text":
                return {"output": "Port Name Status\n" + "".join(
                    "%s  %s\n" % (n, v["linkStatus"]) for n, v in st.items())}
            return {"interfaceStatuses": st}
        m = re.fullmatch(r"show interfaces (\S+) switchport", cmd)
        if m:
            name = intf_name(m.group(1))
            if name is None:
                raise invalid(cmd)
            if name not in cfg.intf:
                raise CmdError(1002, "invalid command", ["Interface does not exist"])
            x = cfg.intf[name]
            if fmt == "text":
                return {"output": switchport_text(name, x)}
            return {"switchports": {name: switchport_json(x)}}
        if cmd == "show lldp neighbors detail":
            if fmt == "text":
                return {"output": "".join("Interface %s detected %d LLDP neighbors\n" % (p, len(v))
                                          for p, v in self.lldp.items())}
            return {"lldpNeighbors": {p: {"lldpNeighborInfo": v} for p, v in self.lldp.items()}}
        if cmd == "show running-config":
            if not privileged:
                raise CmdError(1002, "invalid command", ["Invalid input (privileged mode required)"])
            if fmt == "json":
                raise CmdError(1003, "unconverted command",
                               ["This is an unconverted command"])
            return {"output": cfg.render()}
        return None

    # ---- runCmds --------------------------------------------------------
    def run(self, cmds, fmt):
        """(results, None) or (results so far, CmdError with .index)."""
        results = []
        privileged = False
        mode = "exec"
        session = None            # name of the session being edited
        target = None             # the Config being edited
        for i, cmd in enumerate(cmds):
            try:
                if not isinstance(cmd, str):
                    raise invalid(str(cmd))
                cmd = " ".join(cmd.split())
                if self.fail_cmd is not None and cmd == self.fail_cmd:
                    self.fail_cmd = None
                    if session:
                        self.sessions[session] = (self.sessions[session][0], True)
                    raise CmdError(1000, "could not run command", ["Error: injected failure of %s" % cmd])
                if cmd == "enable":
                    privileged = True
                    results.append({} if fmt == "json" else {"output": ""})
                    continue
                if mode == "exec":
                    r = self.show(cmd, fmt, privileged)
                    if r is not None:
                        results.append(r)
                        continue
                    if cmd == "configure" or cmd == "configure terminal":
                        if not privileged:
                            raise invalid(cmd, "Invalid input (privileged mode required)")
                        mode, target, session = "config", self.cfg, None
                    elif cmd.startswith("configure session "):
                        if not privileged:
                            raise invalid(cmd, "Invalid input (privileged mode required)")
                        session = cmd.split(" ", 2)[2]
                        if session not in self.sessions:
                            self.sessions[session] = (copy.deepcopy(self.cfg), False)
                        mode, target = "config", self.sessions[session][0]
                    else:
                        raise invalid(cmd)
                    results.append({} if fmt == "json" else {"output": ""})
                    continue
                # in a config mode
                if session is not None and cmd == "commit":
                    cfg, poisoned = self.sessions[session]
                    if poisoned:
                        raise CmdError(1000, "could not run command",
                                       ["Error: session %s has errors; abort it" % session])
                    self.cfg = cfg
                    del self.sessions[session]
                    mode, session, target = "exec", None, None
                elif session is not None and cmd == "abort":
                    del self.sessions[session]
                    mode, session, target = "exec", None, None
                elif cmd.startswith("show "):
                    r = self.show(cmd, fmt, privileged)
                    if r is None:
                        raise invalid(cmd)
                    results.append(r)
                    continue
                else:
                    try:
                        mode = config_line(target, mode, cmd)
                    except CmdError:
                        if session is not None:
                            self.sessions[session] = (self.sessions[session][0], True)
                        raise
                    if mode == "exec":
                        session, target = None, None
                results.append({} if fmt == "json" else {"output": ""})
            except CmdError as e:
                e.index = i
                return results, e
        return results, None


SW = Switch()
AUTH = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, obj, headers=()):
        body = (json.dumps(obj) + "\n").encode() if obj is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def record(self, status, cmds=None, fmt=None, error=None):
        with SW.lock:
            SW.log.append({"path": self.path, "method": self.command, "status": status,
                           "cmds": cmds, "format": fmt, "error": error,
                           "refused": status != 200 or error is not None})

    def do_GET(self):
        if self.path == "/_test/state":
            with SW.lock:
                return self.reply(200, {"running_config": SW.cfg.render(),
                                        "sessions": sorted(SW.sessions),
                                        "effective": SW.cfg.effective()})
        if self.path == "/_test/log":
            with SW.lock:
                return self.reply(200, {"requests": SW.log})
        status = 405 if self.path == "/command-api" else 404
        self.record(status)
        self.reply(status, {"error": "not found" if status == 404 else "method not allowed"})

    def do_PUT(self):
        self.body()
        status = 405 if self.path == "/command-api" else 404
        self.record(status)
        self.reply(status, None)

    def do_POST(self):
        raw = self.body()
        if self.path == "/_test/config":
            req = json.loads(raw)
            with SW.lock:
                mode = "config"
                try:
                    for c in req["cmds"]:
                        mode = config_line(SW.cfg, mode, c)
                except CmdError as e:
                    return self.reply(400, {"error": "%s: %s" % (c, "; ".join(e.errors))})
            return self.reply(200, {})
        if self.path == "/_test/counters":
            req = json.loads(raw)
            with SW.lock:
                if "refuse" in req:
                    SW.refused = set(req["refuse"])
                if "port" in req:
                    if req["port"] not in SW.cfg.intf:
                        return self.reply(400, {"error": "no port %s" % req["port"]})
                    c = SW.port_counters(req["port"])
                    for k in ("interfaceCounters", "pfc", "watchdog", "ecn"):
                        if isinstance(req.get(k), dict):
                            merge_counters(c[k], req[k])
            return self.reply(200, {})
        if self.path == "/_test/model":
            req = json.loads(raw)
            with SW.lock:
                SW.set_model(req["model"])
            return self.reply(200, {})
        if self.path == "/_test/fail":
            req = json.loads(raw)
            with SW.lock:
                SW.fail_cmd = req.get("command")
                SW.fail_http = req.get("http")
                SW.lose_answer_of = req.get("lose_answer_of")
                SW.stall = req.get("stall", 0)
            return self.reply(200, {})
        if self.path != "/command-api":
            self.record(404)
            return self.reply(404, {"error": "not found"})
        if AUTH is not None and self.headers.get("Authorization") != AUTH:
            self.record(401)
            return self.reply(401, {"error": "Unable to authenticate"},
                              [("WWW-Authenticate", 'Basic realm="eAPI"')])
        with SW.lock:
            stall, SW.stall = SW.stall, 0
        if stall:
            time.sleep(stall)
        with SW.lock:
            if SW.fail_http:
                status, SW.fail_http = SW.fail_http, None
                self.record(status)
                return self.reply(status, {"error": "injected"})
        try:
            req = json.loads(raw)
        except ValueError:
            self.record(200, error=-32700)
            return self.reply(200, {"jsonrpc": "2.0", "id": None,
                                    "error": {"code": -32700, "message": "Parse error"}})
        rid = req.get("id") if isinstance(req, dict) else None
        if not isinstance(req, dict) or req.get("jsonrpc") != "2.0" or "method" not in req \
                or "id" not in req:
            self.record(200, error=-32600)
            return self.reply(200, {"jsonrpc": "2.0", "id": rid,
                                    "error": {"code": -32600, "message": "Invalid request"}})
        if req["method"] != "runCmds":
            self.record(200, error=-32601)
            return self.reply(200, {"jsonrpc": "2.0", "id": rid,
                                    "error": {"code": -32601, "message": "Method not found"}})
        p = req.get("params")
        fmt = p.get("format", "json") if isinstance(p, dict) else None
        if not isinstance(p, dict) or p.get("version") not in (1, "latest") or \
                not isinstance(p.get("cmds"), list) or fmt not in ("json", "text"):
            self.record(200, error=-32602)
            return self.reply(200, {"jsonrpc": "2.0", "id": rid,
                                    "error": {"code": -32602, "message": "Invalid params"}})
        cmds = p["cmds"]
        with SW.lock:
            results, e = SW.run(cmds, fmt)
            if SW.lose_answer_of is not None and SW.lose_answer_of in cmds:
                SW.lose_answer_of = None
                self.record(502, cmds, fmt)
                return self.reply(502, {"error": "answer lost"})
        if e is None:
            self.record(200, cmds, fmt)
            return self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": results})
        self.record(200, cmds, fmt, e.code)
        msg = "CLI command %d of %d '%s' failed: %s" % (e.index + 1, len(cmds), cmds[e.index], e.why)
        self.reply(200, {"jsonrpc": "2.0", "id": rid, "error": {
            "code": e.code, "message": msg, "data": results + [{"errors": e.errors}]}})


def main():
    global AUTH, SW
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--user", default="admin")
    ap.add_argument("--password", default="arista")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--model", default="DCS-7050CX3-32S-F")
    a = ap.parse_args()
    SW = Switch(a.model)
    AUTH = "Basic " + base64.b64encode(("%s:%s" % (a.user, a.password)).encode()).decode()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    if a.cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
