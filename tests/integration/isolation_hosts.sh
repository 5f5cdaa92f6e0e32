#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A host whose only cable is bad is drained in a real Slurm, never cut off
# the fabric, and resumed after the probation; a node an operator drained
# is never resumed by loom (issue 42, isolation.drain_hosts). ibsim with
# OpenSM's LIDs, loomd reading the counters every second, slurmctld and
# two slurmd (Debian slurm-wlm, ../shared/slurm-testbed.md).
#
#  1. symbol errors raised on host-0003's HCA port: host_drained; Slurm
#     shows host-0003 DRAIN with "loom: ..." as its reason; `link isolated`
#     lists the cable as a drained host's, and no isolated links file is
#     written (a host's cable stays in the routes).
#  2. host-0004, drained by an operator ("maintenance"), gets errors too:
#     host_drain_refused, its reason untouched.
#  3. the errors stop: after the probation host-0003 is resumed (no DRAIN);
#     host-0004 is not (host_resume_refused), still "maintenance".
set -eu
. "$(dirname "$0")/lib.sh"
loom_slurm_need
loom_netns "$@"
ip addr add 127.0.0.2/8 dev lo 2>/dev/null || :
loom_work
chmod 755 "$work"

loom_gen ft2 fattree --levels 2 --radix 8
loom_ibsim "$work/ft2.net"
loom_opensm
loom_munge
loom_slurm_conf "NodeName=host-0003,host-0004 NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" \
	"PartitionName=debug Nodes=host-0003,host-0004 Default=YES MaxTime=INFINITE State=UP"
loom_slurmctld
loom_slurmd host-0003
loom_slurmd host-0004
idle() { sinfo -h -n "$1" -o %t 2>/dev/null | grep -q idle; }
loom_until 300 idle host-0003 && loom_until 300 idle host-0004 ||
	loom_fail "Slurm did not come up: $(tail -5 "$work/slurmctld.log")"
scontrol update nodename=host-0004 state=drain reason="maintenance" ||
	loom_fail "the operator's drain"

state() { scontrol show node -o "$1" | grep -o ' State=[^ ]*' | cut -d= -f2; }
reason() { scontrol show node -o "$1" | sed -n 's/.* Reason=//p'; }
events() { loom_ctl --json events --kind "$1"; }
has_event() { events "$1" | grep -q "$2"; }

loom_config 'telemetry:' '  interval_s: 1' 'isolation:' '  mode: on' \
	"  file: $work/isolated-links" '  errors: 50' '  clean_for_s: 6' '  drain_hosts: true'
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"
loom_ctl counters --now >/dev/null
loom_ctl counters --now >/dev/null

# ---- 1. a host's bad cable: drained --------------------------------------------------
loom_ibsim_cmd 'PerformanceSet "host-0003"[1] PortCounters.SymbolErrorCounter=200'
loom_until 300 has_event host_drained host-0003 ||
	{ events host_drain_refused,link_isolation_refused; tail -n 20 "$work/loomd.log"
	  loom_fail "host-0003 was not drained"; }
case $(state host-0003) in *DRAIN*) ;; *) loom_fail "Slurm: host-0003 is $(state host-0003)" ;; esac
case $(reason host-0003) in "loom: cable to leaf-"*"]: errors"*) ;;
*) loom_fail "host-0003's reason: $(reason host-0003)" ;; esac
loom_ctl --json link isolated >"$work/iso.json"
python3 - "$work/iso.json" <<'EOP' || { cat "$work/iso.json"; loom_fail "link isolated"; }
import json, sys
links = json.load(open(sys.argv[1]))['links']
assert [(l['kind'], l['state'], l['host']) for l in links] == [('host', 'drained', 'host-0003')], links
EOP
[ ! -e "$work/isolated-links" ] || loom_fail "a host's cable went into the isolated links file"
loom_ok "host-0003 drained: $(reason host-0003 | cut -c1-100)"

# ---- 2. an operator's drain stays the operator's ---------------------------------------
loom_ibsim_cmd 'PerformanceSet "host-0004"[1] PortCounters.SymbolErrorCounter=200'
loom_until 300 has_event host_drain_refused host-0004 ||
	{ events host_drained; loom_fail "no host_drain_refused for host-0004"; }
case $(reason host-0004) in "maintenance ["*) ;; *) loom_fail "host-0004's reason: $(reason host-0004)" ;; esac
loom_ok "host-0004, drained by an operator: not drained over ($(reason host-0004))"

# ---- 3. probation: resumed, the operator's not ------------------------------------------
loom_until 600 has_event host_resumed host-0003 ||
	{ loom_ctl link isolated; loom_fail "host-0003 was not resumed"; }
case $(state host-0003) in *DRAIN*) loom_fail "host-0003 still $(state host-0003)" ;; esac
loom_until 300 has_event host_resume_refused host-0004 || loom_fail "no host_resume_refused for host-0004"
case $(state host-0004) in *DRAIN*) ;; *) loom_fail "host-0004 was resumed: $(state host-0004)" ;; esac
case $(reason host-0004) in "maintenance ["*) ;; *) loom_fail "host-0004's reason: $(reason host-0004)" ;; esac
loom_ok "after the probation: host-0003 $(state host-0003); host-0004 still $(state host-0004), $(reason host-0004)"

echo "isolation_hosts.sh: all ok"
