# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The counters reader's answer (daemon/telemetry/counters_wire.h) as Python
dicts, for the tests and the bench: read_answer(path) -> (ports, done).
Each port: guid, port, lid, type ("switch"/"CA"), tries, node, answered,
reason (not answered), ext_error, cleared and clear_failed (names),
counters and bits (answered), same (answered with PortCountersExtended
only, behind its switch's unchanged sum), details and details_bits (the
PMA detail attributes, when the read asked them: {name: value}, names as
lib/telemetry/pma_details.h). The pma lines (a PMA's ClassPortInfo masks and
the detail attributes it refused) go to the list `pmas` when one is given, the sum lines
(guid, lid, ports mark, {counter: value}) to `sums`. Independent of loomd's parser on purpose:
a line that does not follow the header's format fails here too."""

NAMES = ["SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
         "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
         "PortXmitDiscards", "PortXmitConstraintErrors", "PortRcvConstraintErrors",
         "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
         "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortXmitWait"]


DETAILS = (["PortLocalPhysicalErrors", "PortMalformedPacketErrors", "PortBufferOverrunErrors",
            "PortDLIDMappingErrors", "PortVLMappingErrors", "PortLoopingErrors",
            "PortInactiveDiscards", "PortNeighborMTUDiscards", "PortSwLifetimeLimitDiscards",
            "PortSwHOQLifetimeLimitDiscards"] +
           ["PortVLXmitWait%d" % vl for vl in range(16)] +
           ["PortVLXmitFlowCtlUpdateErrors%d" % vl for vl in range(16)])


def _text(t):
    out, i = bytearray(), 0
    b = t.encode()
    while i < len(b):
        if b[i:i + 1] == b"%":
            c = int(b[i + 1:i + 3], 16)
            if c:
                out.append(c)
            i += 3
        else:
            out.append(b[i])
            i += 1
    return out.decode("utf-8", "replace")


def _names(mask):
    return [n for i, n in enumerate(NAMES) if mask & (1 << i)]


def _counters(mask, fields, line, all_names=NAMES):
    names = [n for i, n in enumerate(all_names) if int(mask, 16) & (1 << i)]
    assert len(names) == len(fields), line
    counters, bits = {}, {}
    for n, bv in zip(names, fields):
        b, v = bv.split(":")
        counters[n], bits[n] = int(v), int(b)
    return counters, bits


def read_answer(path, pmas=None, sums=None):
    """pmas: a list to append the pma lines' (guid, lid, cap_mask, cap_mask2,
    no_details) to;
    sums: one for the sum lines'."""
    ports, done = [], None
    for line in open(path):
        f = line.rstrip("\n").split(" ")
        if f[0] == "pma":
            assert len(f) == 6, line
            if pmas is not None:
                pmas.append((f[1], int(f[2]), int(f[3], 16), int(f[4], 16), int(f[5], 16)))
            continue
        if f[0] == "sum":
            counters, _ = _counters(f[4], f[5:], line)
            if sums is not None:
                sums.append((f[1], int(f[2]), int(f[3], 16), counters))
            continue
        if f[0] == "done":
            keys = ["started", "finished", "ports", "answered", "mads", "in_flight",
                    "timeout_ms", "retries", "detail_mads"]
            done = {k: (float(v) if k in ("started", "finished") else int(v))
                    for k, v in zip(keys, f[1:])}
            continue
        assert f[0] == "port", line
        p = {"guid": f[1], "port": int(f[2]), "lid": int(f[3]),
             "type": "switch" if f[4] == "S" else "CA", "tries": int(f[5]),
             "node": _text(f[6]), "answered": f[7] in ("1", "2"), "same": f[7] == "2"}
        if not p["answered"]:
            p["reason"] = _text(f[8])
        else:
            p["ext_error"] = int(f[8])
            p["cleared"] = _names(int(f[9], 16))
            p["clear_failed"] = _names(int(f[10], 16))
            rest = f[12:]
            d = rest.index("d") if "d" in rest else len(rest)
            p["counters"], p["bits"] = _counters(f[11], rest[:d], line)
            p["details"], p["details_bits"] = ({}, {}) if d == len(rest) else \
                _counters(rest[d + 1], rest[d + 2:], line, DETAILS)
        ports.append(p)
    assert done is not None and done["ports"] == len(ports), (done, len(ports))
    return ports, done
