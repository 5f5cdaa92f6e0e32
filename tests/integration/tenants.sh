#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/tenants.sh: tenant isolation on ibsim + a running OpenSM
# that reads loom's partitions file. Every PKey is checked with smpquery
# (the real tool reading each HCA port's PKeyTable), never with loom's view.
#
#  1. Two tenants on disjoint hosts (Slurm hostlists): each host's port holds
#     its own tenant's key (full member) and not the other's; no other host
#     holds either; the switch port a member is cabled to holds it, another
#     host's does not; the pool skipped the operator's own key; audit events;
#     the tenant shows its creator (uid 0).
#  2. Refused, nothing changed: an unknown host; a key in use; a user who is
#     neither root nor in the admin group.
#  2b. A local user's fabric reads are rate-limited, root's never (issue 37):
#     four loops of `counters --now` as nobody get "busy" with the seconds to
#     wait after nobody's one read, while root's own `counters --now` and
#     `tenant verify` answer every time.
#  3. Idempotent: the same create again succeeds at once; add-hosts and
#     remove-hosts move exactly those hosts' ports.
#  4. Delete: the key leaves its hosts; deleting again is fine.
#  5. loomd and OpenSM restarted: the remaining tenant is still enforced and
#     verifies.
#  6. OpenSM gone: a create cannot be confirmed, fails within tenants.timeout_s
#     and is rolled back (no tenant, partitions file as before).
#  7. loomd killed (-9) while a create waits for OpenSM: at its next start it
#     finds the tenant half applied and confirms it once OpenSM is back.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work
loom_need smpquery setpriv
chmod 755 "$work"  # the unprivileged user of section 2 reaches the socket

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x1001 : ALL_CAS=full ;\n' >"$work/static.conf"

printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  pkey_min: 4097" "  timeout_s: 30"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"

# Each CA port: "GUID LID DESC" from ibnetdiscover (ground truth for LIDs).
ports() { loom_ibnetdiscover -p | awk '$1 == "CA" { d = $0; sub(/.*\( ./, "", d);
	sub(/. - .*/, "", d); print $4, $2, d }'; }
# The PKeyTable of a host's first port, as smpquery prints it (hex words).
pkeys_of() { # HOST
	_lid=$(ports | awk -v h="$1" '$3 == h { print $2; exit }')
	[ -n "$_lid" ] || loom_fail "no LID for $1"
	LD_PRELOAD=$PRELOAD smpquery pkeys "$_lid" 1 2>/dev/null | sed 's/^ *[0-9]*://'
}
# The PKeyTable of the switch port HOST's first port is cabled to.
sw_pkeys_of() { # HOST
	_at=$(loom_ibnetdiscover -p | awk -v h="'$1'" '$1 == "SW" && $8 == "CA" && $0 ~ h {
		print $2, $3; exit }')
	[ -n "$_at" ] || loom_fail "no switch port faces $1"
	LD_PRELOAD=$PRELOAD smpquery pkeys $_at 2>/dev/null | sed 's/^ *[0-9]*://'
}
# Hosts whose table holds KEY (0x9001 form) by smpquery, space separated.
holders() { # KEY
	_out=""
	for _h in $(ports | awk '{ print $3 }' | sort -u); do
		pkeys_of "$_h" | grep -qw "$1" && _out="$_out $_h"
	done
	echo "$_out" | sed 's/^ //'
}
expand() { # host-[0000-0003] style: just for this test's lists
	python3 -c "import sys; a,b=sys.argv[1],sys.argv[2]; print(' '.join('host-%04d'%i for i in range(int(a),int(b)+1)))" "$@"
}

# ---- 1. two tenants on disjoint hosts -----------------------------------------------
loom_ctl tenant create jobA --hosts 'host-[0000-0003]' >"$work/a.out" ||
	loom_fail "create jobA: $(cat "$work/a.out")"
loom_ctl tenant create jobB --hosts 'host-[0004-0005],host-0006' >"$work/b.out" ||
	loom_fail "create jobB: $(cat "$work/b.out")"
KA=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/a.out")
KB=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/b.out")
[ "$KA" = 1002 ] && [ "$KB" = 1003 ] ||
	loom_fail "keys $KA, $KB: the pool from 0x1001 should skip the operator's 0x1001"
FA=0x$(printf '%x' $((0x$KA | 0x8000)))
FB=0x$(printf '%x' $((0x$KB | 0x8000)))
[ "$(holders "$FA")" = "$(expand 0 3)" ] || loom_fail "$FA is on: $(holders "$FA")"
[ "$(holders "$FB")" = "$(expand 4 6)" ] || loom_fail "$FB is on: $(holders "$FB")"
sw_pkeys_of host-0000 | grep -qiw "$FA" || loom_fail "host-0000's switch port lacks $FA: $(sw_pkeys_of host-0000)"
sw_pkeys_of host-0004 | grep -qiw "$FA" && loom_fail "host-0004's switch port holds $FA"
loom_ctl events --limit 10 | grep -q "tenant_created .*tenant jobA .*PKey 0x$KA .*(uid 0)" ||
	loom_fail "no audit event: $(loom_ctl events --limit 10)"
loom_ctl tenant show jobA | grep -q "^by: *uid 0$" ||
	loom_fail "tenant show does not say who created jobA: $(loom_ctl tenant show jobA)"
loom_ok "jobA 0x$KA on host-0000..0003 only, jobB 0x$KB on host-0004..0006 only, and on the switch ports facing them (smpquery); audited"

# ---- 2. refusals that change nothing ------------------------------------------------
cp "$work/partitions.conf" "$work/before.conf"
loom_ctl tenant create jobC --hosts 'host-0007,host-9999' >"$work/c.out" 2>&1 &&
	loom_fail "a create with an unknown host succeeded"
grep -q "unknown host.*host-9999" "$work/c.out" || loom_fail "unclear error: $(cat "$work/c.out")"
loom_ctl tenant create jobC --hosts host-0007 --pkey "0x$KB" >"$work/c2.out" 2>&1 &&
	loom_fail "a create with jobB's key succeeded"
grep -q "in use" "$work/c2.out" || loom_fail "unclear error: $(cat "$work/c2.out")"
setpriv --reuid=65534 --regid=65534 --clear-groups "$B/loomctl" -s "$work/loomd.sock" \
	tenant create jobC --hosts host-0007 >"$work/c3.out" 2>&1 &&
	loom_fail "an unprivileged user created a tenant"
grep -q "permission" "$work/c3.out" || loom_fail "unclear error: $(cat "$work/c3.out")"
loom_ctl tenant show jobC >/dev/null 2>&1 && loom_fail "jobC exists"
cmp -s "$work/before.conf" "$work/partitions.conf" || loom_fail "a refusal changed the partitions"
loom_ok "refused with the reason, nothing changed: unknown host, key in use, uid 65534"

# ---- 2b. local users' fabric reads: one per uid per 10 s, root's never ----------------
nob() { timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups "$B/loomctl" -s "$work/loomd.sock" "$@"; }
nob counters --now >/dev/null 2>"$work/nob.err" || loom_fail "nobody's first counters --now: $(cat "$work/nob.err")"
t0=$(date +%s)
loops=""
for i in 1 2 3 4; do
	# bounded: 3 s and 100 calls each
	(n=0; while [ $n -lt 100 ] && [ $(($(date +%s) - t0)) -lt 3 ]; do
		if nob counters --now >/dev/null 2>>"$work/nob.$i.err"; then echo ok; fi
		n=$((n + 1))
	done >"$work/nob.$i.ok") &
	loops="$loops $!"
done
r=0
while [ $r -lt 6 ]; do
	loom_ctl counters --now >/dev/null 2>"$work/root.err" ||
		loom_fail "root's counters --now $r failed while nobody loops: $(cat "$work/root.err")"
	r=$((r + 1))
done
loom_ctl tenant verify jobA >/dev/null 2>"$work/root.err" ||
	loom_fail "root's tenant verify failed while nobody loops: $(cat "$work/root.err")"
# shellcheck disable=SC2086
wait $loops
[ $(($(date +%s) - t0)) -lt 10 ] || loom_fail "the loops outlasted control.read_rate_s: nothing shown"
[ -z "$(cat "$work"/nob.*.ok)" ] || loom_fail "nobody's reads ran again within 10 s: $(cat "$work"/nob.*.ok | wc -l)"
busy=$(cat "$work"/nob.*.err | grep -c "busy: .*uid 65534 may run such a command once every 10 s.*try again in [0-9]* s" || :)
[ "$busy" -ge 4 ] || loom_fail "nobody was not told to wait: $(head -c 300 "$work/nob.1.err")"
loom_ok "nobody's 4 loops of counters --now: $busy refused \"busy ... try again in N s\"; root's 6 counters --now and a verify all answered"

# ---- 3. idempotent, add and remove hosts ---------------------------------------------
loom_ctl tenant create jobA --hosts 'host-[0000-0003]' >/dev/null ||
	loom_fail "the same create again failed"
loom_ctl tenant add-hosts jobA host-0007 >/dev/null || loom_fail "add-hosts failed"
loom_ctl tenant remove-hosts jobA 'host-[0000-0001]' >/dev/null || loom_fail "remove-hosts failed"
[ "$(holders "$FA")" = "host-0002 host-0003 host-0007" ] || loom_fail "$FA is on: $(holders "$FA")"
loom_ok "a repeated create is fine; add-hosts/remove-hosts moved exactly those ports"

# ---- 4. delete -------------------------------------------------------------------------
loom_ctl tenant delete jobA >/dev/null || loom_fail "delete failed"
[ -z "$(holders "$FA")" ] || loom_fail "after delete $FA is still on: $(holders "$FA")"
loom_ctl tenant delete jobA >/dev/null || loom_fail "a second delete failed"
loom_ok "deleted: 0x$KA is on no host; deleting again is fine"

# ---- 5. restarts -----------------------------------------------------------------------
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
kill "$OSM_PID"; wait "$OSM_PID" 2>/dev/null || :
rm -f "$work/opensm.log"
loom_opensm_bg
loom_loomd "$work/loom.yaml"
loom_ctl tenant verify jobB >/dev/null || loom_fail "jobB does not verify after restarts"
[ "$(holders "$FB")" = "$(expand 4 6)" ] || loom_fail "$FB is on: $(holders "$FB")"
loom_ctl tenant list | grep -q "^jobB .*0x$KB .*active" || loom_fail "list: $(loom_ctl tenant list)"
loom_ok "after loomd and OpenSM restarts jobB is still enforced and verifies"

# ---- 6. nothing confirms: rolled back ------------------------------------------------
sed -i 's/^  timeout_s: 30$/  timeout_s: 4/' "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "configuration reloaded" "$work/loomd.log" || loom_fail "no reload"
kill "$OSM_PID"; wait "$OSM_PID" 2>/dev/null || :
cp "$work/partitions.conf" "$work/before.conf"
loom_ctl tenant create jobD --hosts host-0007 >"$work/d.out" 2>&1 &&
	loom_fail "a create that OpenSM never applied succeeded"
grep -q "not confirmed within 4 s, rolled back: PKey 0x.*1 member port without it" "$work/d.out" ||
	loom_fail "unclear error: $(cat "$work/d.out")"
loom_ctl tenant show jobD >/dev/null 2>&1 && loom_fail "jobD was not rolled back"
cmp -s "$work/before.conf" "$work/partitions.conf" || loom_fail "the partitions file was not restored"
loom_ok "OpenSM gone: the create failed after 4 s and was rolled back: $(cut -c1-90 "$work/d.out")"

# ---- 7. loomd killed mid-change --------------------------------------------------------
loom_ctl tenant create jobE --hosts host-0007 >/dev/null 2>&1 &
loom_until 50 grep -q "loom_jobE=" "$work/partitions.conf" || loom_fail "jobE never reached the file"
kill -9 "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
loom_opensm_bg
loom_loomd "$work/loom.yaml"
loom_until 300 sh -c "'$B/loomctl' -s '$work/loomd.sock' tenant show jobE | grep -q '^state: *active'" ||
	loom_fail "jobE after the restart: $(loom_ctl tenant show jobE 2>&1)"
grep -q "tenant jobE: was being applied when loomd stopped" "$work/loomd.log" ||
	loom_fail "loomd did not say it resumed jobE"
KE=$(loom_ctl tenant show jobE | sed -n 's/^pkey: *0x\(....\)$/\1/p')
[ "$(holders "0x$(printf '%x' $((0x$KE | 0x8000)))")" = host-0007 ] || loom_fail "jobE is not on host-0007"
loom_ok "loomd killed -9 mid-create: its next start confirmed jobE on the fabric"
