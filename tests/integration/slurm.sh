#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/slurm.sh: loom's Slurm hooks (etc/slurm/) in a real
# slurmctld + slurmd (Debian slurm-wlm, munge) on this machine, against
# ibsim, a running OpenSM and loomd. The Slurm node is host-0000 of the
# simulated fabric. Facts this relies on: ../shared/slurm-testbed.md.
#
#  1. A batch job: while it runs its tenant (named by the job id) exists, is
#     active, and host-0000's HCA port holds its key (smpquery); after the
#     job the tenant is gone and so is the key. The hooks ran as SlurmUser
#     (slurm), allowed by loom.yaml's tenants.users.
#  2. loomd down: the prolog fails, and the job does not run (Slurm requeues it).
# Run as slurm_remote.sh (LOOM_SLURM_VIA=https): loomd listens on another
# address (127.0.0.3) over TLS with a test CA, and the hooks reach it with
# `loomctl --server https://... --token-file --cacert` and a token of role
# tenant: the controller needs no loomd (issue 20). Then also:
#  3. LOOM_ON_UNREACHABLE=allow and loomd down: the job starts, unisolated,
#     and the prolog said so.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_slurm_need
loom_need smpquery
loom_work
chmod 755 "$work"
# slurmd and slurmctld need an address besides 127.0.0.1 in a namespace.
ip addr add 127.0.0.2/8 dev lo 2>/dev/null || :
via=${LOOM_SLURM_VIA:-socket}
http_conf=""
if [ "$via" = https ]; then
	ip addr add 127.0.0.3/8 dev lo 2>/dev/null || :
	# A test CA and loomd's certificate for 127.0.0.3.
	pki="$work/pki"
	loom_pki "$pki" 127.0.0.3
	python3 -c 'import secrets; print(secrets.token_hex(16))' >"$work/slurm.token"
	loom_tokens "$work/tokens" "slurm:tenant:$(cat "$work/slurm.token")"
	hport=$(loom_free_port 127.0.0.3)
	http_conf="http:
  listen: 127.0.0.3:$hport
  tokens_file: $work/tokens
  tls:
    cert: $pki/srv.crt
    key: $pki/srv.key"
fi

"$B/loom-fabgen" fattree --levels 2 --radix 4 --hosts 8 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
loom_config "tenants:" "  host_identity: description" \
	"  partitions_file: $work/partitions.conf" "  static_partitions: $work/static.conf" \
	"  opensm_pid_file: $work/opensm.pid" "  timeout_s: 20" "  users: slurm" \
	${http_conf:+"$http_conf"}
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"

# The hooks as `make install` writes them, with this test's paths; loomctl
# copied where SlurmUser can run it.
loom_slurm_hooks
if [ "$via" = https ]; then
	# SlurmUser's own copy of the token; no socket path at all.
	install -o slurm -m 600 "$work/slurm.token" "$work/etc/loom/slurm.token"
	cp "$pki/ca.crt" "$work/etc/loom/ca.pem"
	printf 'LOOMCTL_ARGS="--server https://127.0.0.3:%s --token-file %s --cacert %s"\n' \
		"$hport" "$work/etc/loom/slurm.token" "$work/etc/loom/ca.pem" \
		>"$work/etc/loom/slurm-hooks.conf"
else
	printf 'LOOMCTL_ARGS="-s %s/loomd.sock"\n' "$work" >"$work/etc/loom/slurm-hooks.conf"
fi

# munge and Slurm, as plain background processes.
loom_munge
loom_slurm_conf "PrologFlags=Alloc" "PrologSlurmctld=$work/loom-prolog" \
	"EpilogSlurmctld=$work/loom-epilog" \
	"NodeName=host-0000 NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" \
	"PartitionName=debug Nodes=host-0000 Default=YES MaxTime=INFINITE State=UP"
loom_slurmctld
loom_slurmd host-0000
loom_until 300 sh -c "sinfo -h -o %t 2>/dev/null | grep -q idle" ||
	loom_fail "Slurm did not come up: $(tail -5 "$work/slurmctld.log")"

lid=$(loom_ibnetdiscover -p | awk '$1 == "CA" && /host-0000/ { print $2; exit }')
holds() { LD_PRELOAD=$PRELOAD smpquery pkeys "$lid" 1 2>/dev/null | grep -qw "$1"; }
# The tenant's record goes before OpenSM has taken the key off the port (its
# sweep after loomd's SIGHUP): give that sweep a few seconds.
released() { ! holds "$1"; }

# ---- 1. a job in its own partition --------------------------------------------------
J=$(sbatch --parsable -o /dev/null --wrap "touch $work/job1.started; sleep 6") ||
	loom_fail "sbatch failed"
loom_until 300 test -e "$work/job1.started" ||
	loom_fail "job $J did not start: $(squeue 2>&1); $(tail -5 "$work/slurmctld.log")"
loom_ctl tenant show "$J" >"$work/t1.out" || loom_fail "no tenant $J during the job"
grep -q "^state: *active" "$work/t1.out" && grep -q "^hosts: *host-0000$" "$work/t1.out" ||
	loom_fail "tenant $J: $(cat "$work/t1.out")"
K=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/t1.out")
F=0x$(printf '%x' $((0x$K | 0x8000)))
holds "$F" || loom_fail "host-0000 does not hold $F during job $J"
if [ "$via" = https ]; then
	who="(token slurm)"
else
	who="(uid $(id -u slurm))"
fi
loom_ctl events --limit 20 | grep -qF "$who" ||
	loom_fail "the prolog did not run as $who: $(loom_ctl events --limit 20)"
loom_until 300 sh -c "! '$work/bin/loomctl' -s '$work/loomd.sock' tenant show $J >/dev/null 2>&1" ||
	loom_fail "tenant $J still there after the job"
loom_until 100 released "$F" || loom_fail "host-0000 still holds $F after job $J"
loom_ok "job $J ran in tenant $J (0x$K on host-0000, by smpquery), created by slurm; gone after the job"

# ---- 2. no loomd, no job -----------------------------------------------------------
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
J2=$(sbatch --parsable -o /dev/null --wrap "touch $work/job2.started") || loom_fail "sbatch failed"
# A failed PrologSlurmctld requeues a batch job (its restart count goes up).
loom_until 300 sh -c "scontrol show job $J2 2>/dev/null | grep -q 'Restarts=[1-9]'" ||
	loom_fail "job $J2 was not requeued: $(scontrol show job "$J2" 2>&1 | head -5)"
sleep 1
[ -e "$work/job2.started" ] && loom_fail "job $J2 ran without isolation"
# loomctl's exit status 3: loomd could not be reached (LOOM_ON_UNREACHABLE=fail)
grep -q "JobId=$J2 PrologSlurmctld exit status 3" "$work/slurmctld.log" ||
	loom_fail "slurmctld did not log the prolog's failure (unreachable: 3)"
loom_ok "loomd down: the prolog failed, job $J2 was requeued and did not run"

# ---- 3. (https) LOOM_ON_UNREACHABLE=allow -------------------------------------------------
if [ "$via" = https ]; then
	scancel "$J2" 2>/dev/null || :
	printf 'LOOM_ON_UNREACHABLE=allow\n' >>"$work/etc/loom/slurm-hooks.conf"
	J3=$(sbatch --parsable -o /dev/null --wrap "touch $work/job3.started") || loom_fail "sbatch failed"
	loom_until 300 test -e "$work/job3.started" ||
		loom_fail "job $J3 did not start with LOOM_ON_UNREACHABLE=allow: $(scontrol show job "$J3" 2>&1 | head -5)"
	loom_ok "LOOM_ON_UNREACHABLE=allow, loomd unreachable: job $J3 started without isolation"
fi
echo "slurm.sh ($via): all ok"
