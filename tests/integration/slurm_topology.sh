#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/slurm_topology.sh: slurm.topology_file (issue 24) read by
# a real slurmctld (Debian slurm-wlm 22.05, TopologyPlugin=topology/tree) with
# one slurmd per simulated host (-N NAME, a Port= each: several slurmds on one
# machine), against ibsim's 2-level fat tree of 4-port switches (7 hosts, 4
# leaves, 2 spines; leaf-3 has a free port). Facts: ../shared/slurm-testbed.md.
#
#  1. After the first sweep the file is there, and `scontrol show topology`
#     is the simulated fabric's shape: each leaf the hosts cabled to it in the
#     net file, each spine the leaves cabled to it (expanded by Slurm's own
#     `scontrol show hostnames`).
#     `loomctl slurm topology` prints the file; --json --format block.
#  2. A job with --switches=1 lands under one leaf: with host-0001 and
#     host-0002 busy, the two lowest free nodes (host-0000, host-0003) sit
#     under two leaves, so Slurm must skip to a free leaf.
#  3. A leaf's uplinks unlinked in ibsim: after the next sweep the leaf and
#     its hosts are beyond loomd's reach and out of the file, loomd ran
#     `scontrol reconfigure`, and `scontrol show topology` says the same;
#     one slurm_topology event names the leaf gone with its hosts and the
#     spines' new children. A sweep of the unchanged fabric writes nothing.
#  4. A host moved to another leaf in ibsim (Unlink, Link): the file, the
#     event ("host host-0001 moved from leaf-0 to leaf-3") and Slurm follow.
#  5. scontrol refusing (slurm.scontrol a script that fails): the uplinks
#     relinked, the file stays the previous one, and the slurm_topology_refused
#     event says why (the script's words).
#  6. A topology_file that cannot be written (a directory): one
#     slurm_topology_error event naming it, however many sweeps.
#  7. slurm.topology_format block: `loomctl slurm topology` without --format
#     prints the block file loomd keeps (loomd's format, not tree).
#  8. loomd -n refuses a topology_file in a directory that does not exist.
#  9. loomd not root (nobody, through setpriv), as the package runs it: the
#     file written in its own directory (what /var/lib/loom is) is what
#     slurmctld reads through a symlink topology.conf beside slurm.conf;
#     its own `scontrol reconfigure` is refused by Slurm (no slurmdbd: only
#     root and SlurmUser may), the slurm_topology_refused event says so and
#     the previous file is put back; with slurm.reconfigure false the
#     change is written and SlurmUser's `scontrol reconfigure` (what
#     etc/slurm/loom-slurm-reconfigure.service runs) makes Slurm follow.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_slurm_need
loom_work
chmod 755 "$work"
ip addr add 127.0.0.2/8 dev lo 2>/dev/null || :

"$B/loom-fabgen" fattree --levels 2 --radix 4 --hosts 7 -o "$work/f.net"
loom_ibsim "$work/f.net"
loom_opensm
conf_slurm() { # conf_slurm RECONFIGURE SCONTROL
	loom_config "slurm:" "  topology_file: $work/topology.conf" "  reconfigure: $1" \
		"  scontrol: $2"
}
conf_slurm false "$(command -v scontrol)"
# loomd's scontrol finds this test's slurmctld by SLURM_CONF, as the
# installed one finds /etc/slurm/slurm.conf.
SLURM_CONF="$work/slurm.conf"
export SLURM_CONF
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 50 test -s "$work/topology.conf" ||
	loom_fail "no topology.conf after the sweep: $(tail -5 "$work/loomd.log")"

# Slurm: 7 nodes, one slurmd each (a port of its own).
loom_munge
loom_slurm_conf "TopologyPlugin=topology/tree" "SlurmdSpoolDir=$work/spool/%n" \
	"SlurmdPidFile=$work/slurmd-%n.pid" "SlurmdLogFile=$work/slurmd-%n.log" \
	"PartitionName=debug Nodes=host-[0000-0006] Default=YES MaxTime=INFINITE State=UP"
i=0
while [ $i -lt 7 ]; do
	mkdir -p "$work/spool/$(printf 'host-%04d' $i)"
	printf 'NodeName=host-%04d NodeAddr=127.0.0.1 Port=%d CPUs=1 State=UNKNOWN\n' $i \
		$((17100 + i)) >>"$SLURM_CONF"
	i=$((i + 1))
done
loom_slurmctld
i=0
while [ $i -lt 7 ]; do loom_slurmd "$(printf 'host-%04d' $i)"; i=$((i + 1)); done
loom_until 300 sh -c '[ "$(sinfo -h -N -o %t | grep -c idle)" = 7 ]' ||
	loom_fail "Slurm did not come up: $(sinfo -N 2>&1); $(tail -5 "$work/slurmctld.log")"

# The fabric's shape from the net file: "leaf HOST..." per leaf, "spine LEAF..." per spine.
shape_of_net() { # shape_of_net NETFILE
	awk '
	/^Switch/ { split($0, q, "\""); sw = q[2]; next }
	/^Hca/ { sw = ""; next }
	sw != "" && /^\[/ { split($0, q, "\""); peer = q[2]
		if (peer ~ /^host-/) kids[sw] = kids[sw] " " peer
		else if (sw ~ /^spine/) kids[sw] = kids[sw] " " peer }
	END { for (s in kids) print s kids[s] }' "$1" | while read -r s rest; do
		# shellcheck disable=SC2086 # one word a line
		printf '%s %s\n' "$s" "$(printf '%s\n' $rest | sort | tr '\n' ' ')"
	done | sort
}
# Slurm's view, the same way: each switch's children expanded by Slurm.
shape_of_slurm() {
	scontrol show topology | while read -r line; do
		name=$(printf '%s\n' "$line" | sed -n 's/^SwitchName=\([^ ]*\).*/\1/p')
		case "$line" in
		*Level=0*) list=$(printf '%s\n' "$line" | sed -n 's/.* Nodes=\([^ ]*\).*/\1/p') ;;
		*) list=$(printf '%s\n' "$line" | sed -n 's/.* Switches=\([^ ]*\).*/\1/p') ;;
		esac
		printf '%s %s\n' "$name" "$(scontrol show hostnames "$list" | sort | tr '\n' ' ')"
	done | sort
}

# ---- 1. Slurm reads the fabric's shape ---------------------------------------------------
shape_of_net "$work/f.net" >"$work/want1"
shape_of_slurm >"$work/got1"
diff "$work/want1" "$work/got1" >"$work/diff1" ||
	loom_fail "scontrol show topology is not the fabric: $(cat "$work/diff1")"
loom_ok "scontrol show topology is the fabric: $(wc -l <"$work/got1") switches, $(grep -c '^SwitchName=leaf' "$work/topology.conf") leaves"
# loomctl prints what the file holds; --json the same text and the counts
loom_ctl slurm topology >"$work/ctl.conf" || loom_fail "loomctl slurm topology"
cmp -s "$work/ctl.conf" "$work/topology.conf" ||
	loom_fail "loomctl slurm topology differs from the file: $(diff "$work/ctl.conf" "$work/topology.conf")"
loom_ctl --json slurm topology --format block >"$work/ctl.json" || loom_fail "loomctl --json"
python3 - "$work/ctl.json" <<'EOP' || loom_fail "loomctl --json slurm topology: $(cat "$work/ctl.json")"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["format"] == "block" and t["nodes"] == 7 and t["leaves"] == 4, t
assert t["text"].count("BlockName=") == 4 and "BlockSizes=1\n" in t["text"], t["text"]
EOP
loom_ok "loomctl slurm topology prints the file; --json --format block its 4 blocks"

# ---- 2. --switches=1 under one leaf -------------------------------------------------------
leaf_of() { awk -v h="$1" '$1 ~ /^leaf/ { for (i = 2; i <= NF; i++) if ($i == h) print $1 }' "$work/want1"; }
B1=$(sbatch --parsable -N 2 -w host-0001,host-0002 -o /dev/null --wrap "sleep 20") ||
	loom_fail "sbatch failed"
loom_until 100 sh -c "squeue -h -j $B1 -o %T | grep -q RUNNING" || loom_fail "job $B1 did not run"
J=$(sbatch --parsable -N 2 --switches=1 -o /dev/null --wrap "sleep 1") || loom_fail "sbatch failed"
loom_until 150 sh -c "[ -n \"\$(squeue -h -j $J -o %N)\" ] || scontrol show job $J | grep -q 'NodeList=host'" ||
	loom_fail "job $J did not start: $(squeue 2>&1)"
got=$(scontrol show hostnames "$(scontrol show job "$J" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')" | tr '\n' ' ')
# shellcheck disable=SC2086 # the two host names
set -- $got
[ $# = 2 ] && [ "$(leaf_of "$1")" = "$(leaf_of "$2")" ] ||
	loom_fail "job $J with --switches=1 got $got: under $(leaf_of "$1") and $(leaf_of "$2")"
loom_ok "a job with --switches=1 landed on $got, all under $(leaf_of "$1")"

# ---- job impact of a Slurm job by its id: the hosts squeue gives it ----------------------
# (route check stores the tables OpenSM set; the job is still running)
loom_ctl route check >/dev/null || loom_fail "route check"
loom_ctl --json job --slurm "$B1" >"$work/job.json" || [ $? = 1 ] ||
	loom_fail "loomctl job --slurm $B1: $(cat "$work/job.json")"
want=$(scontrol show hostnames "$(squeue -h -j "$B1" -o %N)" | sort | tr '\n' ' ')
have=$(python3 -c 'import json,sys; print(" ".join(sorted({h["host"] for h in json.load(open(sys.argv[1]))["hosts"]})))' "$work/job.json")
[ "$have " = "$want" ] || loom_fail "loomctl job --slurm $B1 has hosts \"$have\", Slurm gives \"$want\""
loom_ctl job --slurm 999999 >/dev/null 2>"$work/job.err" && loom_fail "an unknown job id answered"
grep -q "999999" "$work/job.err" || loom_fail "the error does not name the job: $(cat "$work/job.err")"
loom_ctl job --slurm "1;id" >/dev/null 2>"$work/job.err" && loom_fail "a job id with ';' was run"
grep -q "is not a Slurm job id" "$work/job.err" || loom_fail "no refusal of '1;id': $(cat "$work/job.err")"
scancel "$B1" "$J" 2>/dev/null || :
loom_ok "loomctl job --slurm $B1: the hosts Slurm gives it ($have); an unknown or malformed id is an error naming it"

# ---- 3. a leaf's uplinks unlinked: the file and Slurm follow ------------------------------
conf_slurm true "$(command -v scontrol)"
kill -HUP "$LOOMD_PID"
sleep 0.5
before=$(stat -c %Y.%i "$work/topology.conf")
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
[ "$(stat -c %Y.%i "$work/topology.conf")" = "$before" ] ||
	loom_fail "a sweep of the unchanged fabric rewrote the file"
loom_ibsim_cmd 'Unlink "leaf-1"[3]'
loom_ibsim_cmd 'Unlink "leaf-1"[4]'
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 100 sh -c "! grep -q 'Switches=.*leaf-\\[0-3\\]' '$work/topology.conf'" ||
	loom_fail "the file still has leaf-1 under the spines: $(cat "$work/topology.conf")"
# leaf-1 and its hosts are beyond loomd's reach now: gone from the fabric
shape_of_net "$work/f.net" | awk '$1 == "leaf-1" { next } $1 ~ /^spine/ { o = $1;
	for (i = 2; i <= NF; i++) if ($i != "leaf-1") o = o " " $i; print o " "; next } { print }' \
	>"$work/want3"
loom_until 100 sh -c "scontrol show topology | grep -q 'SwitchName=spine-0 .*Switches=leaf-\\[0,2-3\\]'" ||
	loom_fail "slurmctld did not reread the file: $(scontrol show topology)"
shape_of_slurm >"$work/got3"
diff "$work/want3" "$work/got3" >"$work/diff3" ||
	loom_fail "scontrol show topology after the cut: $(cat "$work/diff3")"
# the event is recorded once scontrol has returned: after slurmctld reread the file
two_events() { [ "$(loom_ctl --json events --kind slurm_topology | grep -c '"kind"')" = 2 ]; }
loom_until 100 two_events || :
loom_ctl --json events --kind slurm_topology --limit 10 >"$work/ev3.json"
python3 - "$work/ev3.json" <<'EOP' || loom_fail "the event: $(cat "$work/ev3.json")"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["events"] if isinstance(ev, dict) else ev
# the first file, then this change: nothing for the unchanged sweep
assert len(ev) == 2 and ev[1]["new"].startswith("written: 7 nodes under 4 leaf"), ev
what = ev[0]["new"]
assert "leaf leaf-1 gone (host-[0002-0003])" in what, what
assert "switch spine-0: Switches=leaf-[0,2-3]" in what and "spine-1" in what, what
EOP
loom_ok "leaf-1's uplinks cut: the file, its event and scontrol show topology follow"

# ---- 4. a host moved to another leaf: the file and Slurm follow ----------------------------
loom_ibsim_cmd 'Unlink "host-0001"[1]'
loom_ibsim_cmd 'Link "host-0001"[1] "leaf-3"[2]'
loom_opensm
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 100 grep -q '^SwitchName=leaf-3 Nodes=host-\[0001,0006\]' "$work/topology.conf" ||
	loom_fail "host-0001 is not under leaf-3 in the file: $(cat "$work/topology.conf")"
loom_until 100 sh -c "scontrol show topology | grep -q 'SwitchName=leaf-3 .*Nodes=host-\[0001,0006\]'" ||
	loom_fail "slurmctld does not have host-0001 under leaf-3: $(scontrol show topology)"
# the event is recorded once scontrol has returned: after slurmctld reread the file
moved() { loom_ctl --json events --kind slurm_topology --limit 1 |
	grep -qF "host host-0001 moved from leaf-0 to leaf-3"; }
loom_until 100 moved ||
	loom_fail "the move's event: $(loom_ctl events --kind slurm_topology --limit 1)"
loom_ok "host-0001 moved to leaf-3 in ibsim: the file, its event and scontrol show topology follow"

# ---- 5. scontrol refusing: the previous file stays -----------------------------------------
printf '#!/bin/sh\necho "scontrol: error: Invalid topology (test)" >&2\nexit 1\n' >"$work/scontrol-no"
chmod 755 "$work/scontrol-no"
cp "$work/topology.conf" "$work/topology.cut"
conf_slurm true "$work/scontrol-no"
kill -HUP "$LOOMD_PID"
sleep 0.5
loom_ibsim_cmd 'ReLink "leaf-1"[3]'
loom_ibsim_cmd 'ReLink "leaf-1"[4]'
loom_opensm
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
refused() { loom_ctl --json events --kind slurm_topology_refused |
	grep 'Invalid topology (test)' | grep -qF 'leaf leaf-1 added (host-[0002-0003])'; }
loom_until 100 refused ||
	loom_fail "no slurm_topology_refused event: $(loom_ctl events --limit 5)"
cmp -s "$work/topology.cut" "$work/topology.conf" ||
	loom_fail "the refused file did not give the previous one back: $(cat "$work/topology.conf")"
loom_ok "scontrol refused: the previous file stays, the event says why"

# ---- 6. a path that cannot be written: one error event naming it ------------------------
mkdir "$work/adir"
conf_slurm false "$(command -v scontrol)"
sed -i "s|topology_file: .*|topology_file: $work/adir|" "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
sleep 0.5
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 100 sh -c "[ \"\$('$B/loomctl' -s '$work/loomd.sock' --json events --kind slurm_topology_error | grep -c adir)\" -ge 1 ]" ||
	loom_fail "no slurm_topology_error event naming $work/adir: $(loom_ctl events --limit 3)"
[ "$(loom_ctl --json events --kind slurm_topology_error | grep -c '"kind"')" = 1 ] ||
	loom_fail "the error was said more than once: $(loom_ctl events --kind slurm_topology_error)"
loom_ok "a topology_file that cannot be written: one slurm_topology_error event naming it"

# ---- 7. slurm.topology_format block: loomctl prints what the file holds ------------------
loom_config "slurm:" "  topology_file: $work/block.conf" "  topology_format: block"
kill -HUP "$LOOMD_PID"
sleep 0.5
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 100 grep -q '^BlockName=' "$work/block.conf" ||
	loom_fail "no block file after topology_format: block: $(tail -3 "$work/loomd.log")"
loom_ctl slurm topology >"$work/ctl-block.conf" || loom_fail "loomctl slurm topology"
cmp -s "$work/ctl-block.conf" "$work/block.conf" ||
	loom_fail "loomctl slurm topology is not the block file loomd keeps: $(diff "$work/ctl-block.conf" "$work/block.conf")"
loom_ok "topology_format block: loomctl slurm topology without --format prints the file loomd keeps"

# ---- 8. loomd -n: a file in no directory ---------------------------------------------------
loom_config "slurm:" "  topology_file: $work/no/such/dir/topology.conf"
if "$B/loomd" -n -c "$work/loom.yaml" >"$work/n.out" 2>&1; then
	loom_fail "loomd -n took a topology_file in a missing directory"
fi
grep -q "slurm.topology_file" "$work/n.out" || loom_fail "loomd -n: $(cat "$work/n.out")"
loom_ok "loomd -n refuses a topology_file whose directory does not exist"

# ---- 9. loomd not root: a symlink for Slurm, reconfigure by Slurm's rules ----------------
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
mkdir "$work/lib"                        # what /var/lib/loom is to the package
cp "$work/topology.conf" "$work/lib/topology.conf"
ln -sf "$work/lib/topology.conf" "$work/topology.conf"   # the operator's one step
chown nobody "$work" "$work/lib" "$work/lib/topology.conf" "$work"/loom.db*
conf_slurm true "$(command -v scontrol)"
sed -i "s|topology_file: .*|topology_file: $work/lib/topology.conf|" "$work/loom.yaml"
# The file Slurm holds, kept before loomd starts: loomd's first sweep may
# write the file too (Slurm refuses that one as well and loomd puts this
# back), and a copy taken later could catch that write half way.
cp "$work/lib/topology.conf" "$work/topology.before"
LD_PRELOAD=$PRELOAD setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd (as nobody) did not open its socket"
loom_ibsim_cmd 'Unlink "leaf-1"[3]'
loom_ibsim_cmd 'Unlink "leaf-1"[4]'
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
# Slurm refuses what loomd writes as nobody: its first sweep's write (the
# fabric then unlike the file), or this change's; either way the file is
# put back as it was before loomd started.
refused_uid() { loom_ctl --json events --kind slurm_topology_refused --limit 1 |
	grep -q 'reconfigure exited 1.*[Ii]nvalid user'; }
loom_until 100 refused_uid ||
	loom_fail "no refusal by Slurm of nobody's reconfigure: $(loom_ctl events --limit 3)"
# (the event may be told before the file is back: wait for it a little)
loom_until 50 cmp -s "$work/topology.before" "$work/lib/topology.conf" ||
	loom_fail "the refused file was not put back: $(cat "$work/lib/topology.conf")"
loom_ok "loomd as nobody: Slurm refuses its scontrol reconfigure (no slurmdbd: not an admin);" \
	"the event says so and the previous file is put back"
conf_slurm false "$(command -v scontrol)"
sed -i "s|topology_file: .*|topology_file: $work/lib/topology.conf|" "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
sleep 0.5
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
loom_until 100 sh -c "! grep -q 'Switches=.*leaf-\\[0-3\\]' '$work/lib/topology.conf'" ||
	loom_fail "the cut is not in the file: $(cat "$work/lib/topology.conf")"
[ "$(stat -c %U "$work/lib/topology.conf")" = nobody ] || loom_fail "the file is not loomd's user's"
setpriv --reuid=slurm --regid="$(id -g slurm)" --clear-groups scontrol reconfigure ||
	loom_fail "SlurmUser's scontrol reconfigure failed"
loom_until 100 sh -c "scontrol show topology | grep -q 'SwitchName=spine-0 .*Switches=leaf-\\[0,2-3\\]'" ||
	loom_fail "slurmctld did not read the file through the symlink: $(scontrol show topology)"
loom_ok "the file loomd (nobody) wrote in its directory is read by slurmctld through the" \
	"symlink, after SlurmUser's scontrol reconfigure (loom-slurm-reconfigure.service)"
echo "slurm_topology.sh: all ok"
