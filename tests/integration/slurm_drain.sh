#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/slurm_drain.sh: daemon/slurm/slurm_drain.h (issue 42: a
# host whose only cable is bad is drained in Slurm, and resumed after the
# probation, only if nothing else drained it) against a real slurmctld +
# slurmd (Debian slurm-wlm 22.05, ../shared/slurm-testbed.md), through
# slurm_drain_drive (the isolation module's calls, from an event loop; no
# topology file). nodea has a slurmd; nodeb is configured only. Every
# result is checked against `scontrol show node` itself.
#
#  1. drain nodea: State=IDLE+DRAIN, Reason="loom: WHY" (brackets kept);
#     again: 0, "already drained by loom", the reason untouched.
#  2. resume nodea: no DRAIN, no Reason; again: 0, nothing to do.
#  3. nodeb drained by an operator (reason "maintenance"): loom neither
#     resumes it nor drains it over (-EPERM), the reason and its
#     [user@time] unchanged.
#  4. loom's reason rewritten by an operator: not resumed (-EPERM).
#  5. a down node (an operator's "dead PSU"): loom does not drain it over.
#  6. a node Slurm does not know: -ENOENT; a host list: refused at once
#     (-EINVAL); slurm.scontrol "": -ENOTSUP.
#  7. 300 requests at once: 256 queued, 44 -EBUSY; the module freed after
#     the first result (loomd's shutdown): every other one -ECANCELED.
#  8. slurmctld stopped: -EIO naming scontrol's words.
set -eu
. "$(dirname "$0")/lib.sh"
loom_slurm_need
# Slurm's fixed ports (6817, 6818): a network namespace of its own.
if [ "${LOOM_IN_NETNS:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || loom_skip "needs root (slurmd, a network namespace)"
	unshare -n true 2>/dev/null || loom_skip "cannot create a network namespace"
	LOOM_IN_NETNS=1 exec unshare -n sh "$0" "$@"
fi
ip link set lo up
# slurmd and slurmctld need an address besides 127.0.0.1 in a namespace.
ip addr add 127.0.0.2/8 dev lo 2>/dev/null || :
D="$B/tests/integration/slurm_drain_drive"
[ -x "$D" ] || loom_fail "$D is not built (make check builds it)"
loom_work
chmod 755 "$work"
loom_munge
loom_slurm_conf "NodeName=nodea,nodeb NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" \
	"PartitionName=debug Nodes=nodea,nodeb Default=YES MaxTime=INFINITE State=UP"
loom_slurmctld
loom_slurmd nodea
loom_until 300 sh -c "sinfo -h -n nodea -o %t 2>/dev/null | grep -q idle" ||
	loom_fail "Slurm did not come up: $(tail -5 "$work/slurmctld.log")"

# field NAME LINE: the value of NAME= in a tab-separated driver line
field() { printf '%s\n' "$2" | tr '\t' '\n' | sed -n "s/^$1=//p"; }
# state NODE / reason NODE: what scontrol itself shows
state() { scontrol show node -o "$1" | grep -o ' State=[^ ]*' | cut -d= -f2; }
reason() { scontrol show node -o "$1" | sed -n 's/.* Reason=//p'; }
drive() { "$D" "$@" 2>>"$work/drive.err"; }
expect_rc() { # LINE RC WHAT
	[ "$(field rc "$1")" = "$2" ] || loom_fail "$3: rc $(field rc "$1"), not $2: $1"
}

# ---- 1. drain ------------------------------------------------------------------------
out=$(drive "drain:nodea:port leaf-1[3] errors 12/s [BER 1e-9]")
expect_rc "$out" 0 "drain nodea"
case $(state nodea) in *DRAIN*) ;; *) loom_fail "nodea not drained: $(state nodea)" ;; esac
case $(reason nodea) in
"loom: port leaf-1[3] errors 12/s [BER 1e-9] ["*@*"]") ;;
*) loom_fail "nodea's reason: $(reason nodea)" ;;
esac
[ "$(field state "$out")" = "$(state nodea)" ] || loom_fail "reported state: $out"
[ "$(field reason "$out")" = "loom: port leaf-1[3] errors 12/s [BER 1e-9]" ] ||
	loom_fail "reported reason: $out"
r1=$(reason nodea)
sleep 1   # a new drain would show a new [user@time]
out=$(drive "drain:nodea:another cause")
expect_rc "$out" 0 "drain nodea again"
case $(field msg "$out") in *"already drained by loom"*) ;; *) loom_fail "again: $out" ;; esac
[ "$(reason nodea)" = "$r1" ] || loom_fail "loom's own drain rewritten: $(reason nodea), was $r1"
loom_ok "drain: nodea $(state nodea), Reason=$r1; asked again, left as it is"

# ---- 2. resume -----------------------------------------------------------------------
out=$(drive resume:nodea resume:nodea)
first=$(printf '%s\n' "$out" | sed -n 1p)
second=$(printf '%s\n' "$out" | sed -n 2p)
expect_rc "$first" 0 "resume nodea"
case $(state nodea) in *DRAIN*) loom_fail "nodea still drained: $(state nodea)" ;; esac
[ -z "$(reason nodea)" ] || loom_fail "nodea's reason left: $(reason nodea)"
expect_rc "$second" 0 "resume nodea again"
case $(field msg "$second") in *"nothing to do"*) ;; *) loom_fail "again: $second" ;; esac
loom_ok "resume: nodea $(state nodea), no reason; again: nothing to do"

# ---- 3. drained by an operator -------------------------------------------------------
scontrol update nodename=nodeb state=drain reason="maintenance"
r0=$(reason nodeb)
s0=$(state nodeb)
out=$(drive resume:nodeb "drain:nodeb:cable")
first=$(printf '%s\n' "$out" | sed -n 1p)
second=$(printf '%s\n' "$out" | sed -n 2p)
expect_rc "$first" EPERM "resume of an operator's drain"
expect_rc "$second" EPERM "drain over an operator's drain"
[ "$(field reason "$first")" = "maintenance" ] || loom_fail "reported reason: $first"
[ "$(reason nodeb)" = "$r0" ] && [ "$(state nodeb)" = "$s0" ] ||
	loom_fail "nodeb touched: $(state nodeb) $(reason nodeb), was $s0 $r0"
loom_ok "nodeb drained by an operator ($s0, $r0): not resumed, not drained over (EPERM)"

# ---- 4. loom's reason rewritten by an operator ---------------------------------------
expect_rc "$(drive "drain:nodea:flapping")" 0 "drain nodea"
scontrol update nodename=nodea state=drain reason="cable swap"
r0=$(reason nodea)
out=$(drive resume:nodea)
expect_rc "$out" EPERM "resume after the operator's reason"
[ "$(reason nodea)" = "$r0" ] || loom_fail "nodea touched: $(reason nodea)"
case $(state nodea) in *DRAIN*) ;; *) loom_fail "nodea resumed: $(state nodea)" ;; esac
loom_ok "loom's reason rewritten ($r0): not resumed (EPERM)"
scontrol update nodename=nodea state=undrain || loom_fail "undrain nodea: $(state nodea)"

# ---- 5. down ---------------------------------------------------------------------------
# (22.05 says "Invalid node state specified" for an UNKNOWN node it undrains)
scontrol update nodename=nodeb state=undrain 2>/dev/null || :
scontrol update nodename=nodeb state=down reason="dead PSU" || loom_fail "down nodeb: $(state nodeb)"
r0=$(reason nodeb)
out=$(drive "drain:nodeb:errors")
expect_rc "$out" EPERM "drain of a down node"
[ "$(reason nodeb)" = "$r0" ] || loom_fail "nodeb's reason overwritten: $(reason nodeb)"
loom_ok "nodeb down ($(state nodeb), $r0): not drained over (EPERM)"

# ---- 6. no such node, a host list, no scontrol ----------------------------------------
out=$(drive "drain:nosuch:x")
expect_rc "$out" ENOENT "drain of an unknown node"
case $(field msg "$out") in *"Node nosuch not found"*) ;; *) loom_fail "$out" ;; esac
out=$(drive "drain:nodea,nodeb:x")
case $out in *refused*rc=EINVAL*) ;; *) loom_fail "a host list: $out" ;; esac
out=$("$D" --scontrol "" resume:nodea 2>&1)
case $out in *refused*rc=ENOTSUP*) ;; *) loom_fail "no scontrol: $out" ;; esac
loom_ok "unknown node: ENOENT ($(field msg "$(drive drain:nosuch:x)")); host list: EINVAL; no scontrol: ENOTSUP"

# ---- 7. bounded queue, shutdown ---------------------------------------------------------
out=$(drive burst:300:nodea)
printf '%s\n' "$out" | grep -qx "burst queued=256 refused_busy=44" || loom_fail "burst: $out"
res=$(printf '%s\n' "$out" | sed -n 's/^burst results=\([0-9]*\) canceled=\([0-9]*\) other=\([0-9]*\)$/\1 \2 \3/p')
set -- $res
[ $# -eq 3 ] && [ $(($1 + $2)) -eq 256 ] && [ "$2" -ge 250 ] && [ "$3" -eq 0 ] ||
	loom_fail "burst: $out"
loom_ok "300 at once: 256 queued, 44 EBUSY; freed after the first: $1 done, $2 canceled"

# ---- 8. slurmctld stopped ---------------------------------------------------------------
kill "$SLURMCTLD_PID"; wait "$SLURMCTLD_PID" 2>/dev/null || :
out=$(drive "drain:nodea:x")
case $(field rc "$out") in EIO | ETIMEDOUT) ;; *) loom_fail "slurmctld stopped: $out" ;; esac
case $(field msg "$out") in *"scontrol show node -o nodea exited"*controller*) ;;
*) loom_fail "slurmctld stopped, the message: $out" ;; esac
loom_ok "slurmctld stopped: $(field rc "$out"): $(field msg "$out")"
