#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate_partitions.sh: partitions checked against the
# guidelines after each sweep (issue 43), on ibsim + a running OpenSM that
# reads loom's partitions file; loomd reads the PKey tables itself (a
# `loomd --read-pkeys` child handed the swept fabric), and the test's
# faults are made with OpenSM's own partitions file:
#  1. OpenSM's default (`Default=0x7fff, ipoib : ALL=full`) makes every host
#     a full member of the default partition: with default_partition:
#     limited that is one default-partition finding for the subnet, with
#     the count, not one per host.
#  2. The file as NVIDIA's guidance wants it (ALL=limited, the SM's host
#     full and in validation.default_full): it clears after the next sweep.
#  3. A tenant made by `loomctl tenant create`: no partition finding.
#  4. A host's port added by hand to the tenant's line in OpenSM's file
#     (applied after SIGHUP): a partition-intruder error naming the port
#     and the tenant; while the PKey tables cannot be read (ibsim drops
#     that port's PKeyTable SMPs) it stays open and validate says why;
#     the line put back: it clears.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work
loom_need smpquery

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
# host-0000, the first node of the file, is where OpenSM and loomd attach.
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
cp "$work/static.conf" "$work/partitions.conf"
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  timeout_s: 30" \
	"validation:" "  default_partition: limited" "  default_full: [host-0000]"
loom_loomd "$work/loom.yaml"

# A sweep, then the check after it has recorded (the log line of that
# sweep's validation); the open issues in $work/i.txt.
swept() {
	_n=$(grep -c 'validated [0-9]* nodes' "$work/loomd.log" || :)
	loom_ctl discover --wait >/dev/null || return 1
	loom_until 100 sh -c "[ \$(grep -c 'validated [0-9]* nodes' '$work/loomd.log') -gt $_n ]" ||
		return 1
	loom_ctl fabric issues >"$work/i.txt" 2>&1 || :
}
has() { swept && grep -q "$1" "$work/i.txt"; }
gone() { swept && ! grep -q "$1" "$work/i.txt"; }
hup() { kill -HUP "$OSM_PID"; }
# "GUID DESC" of every CA port (ibnetdiscover: the ground truth).
ports() { loom_ibnetdiscover -p | awk '$1 == "CA" { d = $0; sub(/.*\( ./, "", d);
	sub(/. - .*/, "", d); print $4, d }'; }

# ---- 1. every host full: one finding for the subnet ---------------------------------------
loom_until 300 has "default-partition" ||
	loom_fail "no default-partition finding with every host full: $(cat "$work/i.txt")"
n=$(grep -c "default-partition" "$work/i.txt")
[ "$n" = 1 ] || loom_fail "$n default-partition findings, not one: $(cat "$work/i.txt")"
loom_ctl --json fabric validate >"$work/v.json" || :
python3 - "$work/v.json" <<'EOF' || loom_fail "fabric validate: $(cat "$work/v.json")"
import json, sys
s = json.load(open(sys.argv[1]))["subnets"][0]
f = [x for x in s["findings"] if x["code"] == "default-partition"]
assert len(f) == 1 and f[0]["subject"] == "default partition 0x7fff", f
assert f[0]["got"].startswith("15 of 15 host ports are full members, e.g."), f[0]["got"]
assert "warning" not in s, s.get("warning")
EOF
loom_ok "OpenSM's default partitions: one default-partition finding, 15 of 15 hosts full (host-0000 allowed)"

# ---- 2. hosts limited, the SM's host full: it clears -------------------------------------
printf 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n' >"$work/static.conf"
cp "$work/static.conf" "$work/partitions.conf"
hup
loom_until 300 gone "default-partition" ||
	loom_fail "the default-partition finding stays with ALL=limited: $(cat "$work/i.txt")"
grep -q "partition" "$work/i.txt" && loom_fail "partition findings: $(cat "$work/i.txt")"
loom_ok "ALL=limited, SELF=full: the default-partition finding clears after the next sweep"

# ---- 3. a tenant made by loom: no finding --------------------------------------------------
loom_ctl tenant create jobA --hosts 'host-[0001-0003]' >"$work/a.out" ||
	loom_fail "create jobA: $(cat "$work/a.out")"
K=$(sed -n 's/^pkey: *\(0x....\)$/\1/p' "$work/a.out")
[ -n "$K" ] || loom_fail "no PKey in: $(cat "$work/a.out")"
swept || loom_fail "sweep after the tenant"
grep -q "partition" "$work/i.txt" && loom_fail "partition findings with jobA: $(cat "$work/i.txt")"
loom_ok "tenant jobA ($K on host-0001..0003): no partition finding"

# ---- 4. a port added by hand to jobA's partition: the intruder -----------------------------
g9=$(ports | awk '$2 == "host-0009" { print $1; exit }')
[ -n "$g9" ] || loom_fail "no port GUID for host-0009"
cp "$work/partitions.conf" "$work/loom-written.conf"
sed "/^loom_jobA=/s/ ;\$/, $g9=full ;/" "$work/loom-written.conf" >"$work/partitions.conf"
grep -q "$g9" "$work/partitions.conf" || loom_fail "the hand edit did not take: $(cat "$work/partitions.conf")"
hup
want="partition-intruder .*host-0009\[1\] $K (tenant jobA)"
loom_until 300 has "$want" || loom_fail "no intruder finding for host-0009: $(cat "$work/i.txt")"
sed -n '/^ERRORS/,/^WARNINGS/p' "$work/i.txt" | grep -q "$want" ||
	loom_fail "the intruder is not an error: $(cat "$work/i.txt")"
loom_ctl events --kind validation_issue --limit 20 | grep -q "partition-intruder host-0009\[1\]" ||
	loom_fail "no validation_issue event: $(loom_ctl events --kind validation_issue --limit 20)"
loom_ok "host-0009 added by hand to jobA's line: partition-intruder host-0009[1] $K (tenant jobA), an error, with its event"

# No data, no judgement: host-0009 drops the PKeyTable SMPs (attribute
# 0x16); the sweep still works, the read does not: the finding stays.
loom_ibsim_cmd 'Error "host-0009"[1] 100 0x16'
swept || loom_fail "sweep with host-0009 dropping PKeyTable"
swept || loom_fail "sweep with host-0009 dropping PKeyTable"
grep -q "PKey tables could not be read" "$work/loomd.log" ||
	loom_fail "the read did not fail: $(grep -i pkey "$work/loomd.log" | tail -3)"
grep -q "$want" "$work/i.txt" || loom_fail "a failed read cleared the intruder: $(cat "$work/i.txt")"
loom_ctl --json fabric validate >"$work/v.json" || :
grep -q '"warning": *"partitions not checked: the PKey tables could not be read' "$work/v.json" ||
	loom_fail "validate does not say the partitions were not checked: $(cat "$work/v.json")"
loom_ctl fabric validate >"$work/v.txt" 2>&1 || :
grep -q "^warning: partitions not checked: the PKey tables could not be read" "$work/v.txt" ||
	loom_fail "loomctl fabric validate does not print the warning: $(cat "$work/v.txt")"
loom_ibsim_cmd 'Error "host-0009"[1] 0 0x16'
loom_ok "the PKey read failing: the intruder stays open, validate warns that partitions were not checked"

cp "$work/loom-written.conf" "$work/partitions.conf"
hup
loom_until 300 gone "partition-intruder" ||
	loom_fail "the intruder finding stays after the line is put back: $(cat "$work/i.txt")"
loom_ok "the line put back: the intruder finding clears"
