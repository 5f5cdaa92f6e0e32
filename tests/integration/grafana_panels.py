#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Evaluate every panel expression of a Grafana dashboard through a real
Prometheus' HTTP API (tests/integration/metrics_fabric.sh, issue 39).

Usage: grafana_panels.py DASHBOARD PROM_URL VAR=VALUE... [--may-be-empty TITLE]...

Template variables ($subnet, $node, $port, $__rate_interval, ...) are
substituted, then each expression is sent to /api/v1/query: every one must
parse and evaluate ("status": "success"), and every panel not named by
--may-be-empty must return at least one sample. Prints one line a panel;
exits 1 on the first panel that fails (after printing them all)."""
import json
import sys
import urllib.parse
import urllib.request


def main():
    dash, url = sys.argv[1], sys.argv[2].rstrip("/")
    subst, may_be_empty = {"__rate_interval": "1m", "__interval": "15s"}, set()
    args = sys.argv[3:]
    while args:
        a = args.pop(0)
        if a == "--may-be-empty":
            may_be_empty.add(args.pop(0))
        else:
            k, v = a.split("=", 1)
            subst[k] = v
    d = json.load(open(dash))
    bad = 0
    for p in d["panels"]:
        if p.get("type") == "row":
            continue
        samples = 0
        for t in p["targets"]:
            expr = t["expr"]
            # Longest names first: $node must not eat $node_x.
            for k in sorted(subst, key=len, reverse=True):
                expr = expr.replace("${%s}" % k, subst[k]).replace("$" + k, subst[k])
            q = url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
            try:
                r = json.load(urllib.request.urlopen(q, timeout=10))
            except urllib.error.HTTPError as e:
                r = json.load(e)
            if r.get("status") != "success":
                print("FAIL %s: %s: %s" % (p["title"], expr, r.get("error")))
                bad += 1
                continue
            samples += len(r["data"]["result"])
        if samples == 0 and p["title"] not in may_be_empty:
            print("FAIL %s: no data" % p["title"])
            bad += 1
        else:
            print("ok   %s: %d series" % (p["title"], samples))
    sys.exit(1 if bad else 0)


main()
