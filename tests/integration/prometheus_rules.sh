#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The shipped Prometheus rules (etc/prometheus/loom-rules.yml) pass
# `promtool check rules`, and `promtool test rules` proves every alert in
# them fires on the series that should raise it and not before
# (tests/prometheus/loom-rules.test.yml); an alert without a unit test is
# a failure. The Grafana dashboard (etc/grafana/loom-fabric.json) is valid
# JSON whose every panel has an expression. Needs promtool (else skipped).
set -eu
. "$(dirname "$0")/lib.sh"
loom_need promtool python3
loom_work

rules=$S/etc/prometheus/loom-rules.yml
promtool check rules "$rules" >"$work/check.out" 2>&1 ||
	loom_fail "promtool check rules: $(cat "$work/check.out")"
loom_ok "promtool check rules: $(grep -o '[0-9]* rules found' "$work/check.out")"

# promtool resolves rule_files against the test file's folder: run on a
# copy that names the rules file by its absolute path (out-of-tree builds).
sed "s|^  - \.\./\.\./etc/prometheus/loom-rules.yml|  - $rules|" \
	"$S/tests/prometheus/loom-rules.test.yml" >"$work/loom-rules.test.yml"
promtool test rules "$work/loom-rules.test.yml" >"$work/test.out" 2>&1 ||
	loom_fail "promtool test rules: $(tail -n 40 "$work/test.out")"
untested=$(python3 - "$rules" "$work/loom-rules.test.yml" <<'EOP'
import sys, yaml
alerts = {r["alert"] for g in yaml.safe_load(open(sys.argv[1]))["groups"]
          for r in g["rules"] if "alert" in r}
tested = {t["alertname"] for c in yaml.safe_load(open(sys.argv[2]))["tests"]
          for t in c.get("alert_rule_test", []) if t.get("exp_alerts")}
print(" ".join(sorted(alerts - tested)))
EOP
)
[ -z "$untested" ] || loom_fail "alerts without a unit test that fires them: $untested"
loom_ok "promtool test rules: every alert fires in its unit test"

python3 - "$S/etc/grafana/loom-fabric.json" <<'EOP' || loom_fail "the Grafana dashboard"
import json, sys
d = json.load(open(sys.argv[1]))
panels = [p for p in d["panels"] if p.get("type") != "row"]
for p in panels:
    assert p.get("targets") and all(t.get("expr") for t in p["targets"]), p["title"]
names = {v["name"] for v in d["templating"]["list"]}
assert {"subnet", "node", "port"} <= names, names
print("dashboard: %d panels, variables %s" % (len(panels), sorted(names)))
EOP
loom_ok "the Grafana dashboard is JSON with an expression in every panel"
echo "prometheus_rules.sh: all ok"
