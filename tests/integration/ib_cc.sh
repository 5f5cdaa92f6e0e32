#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/ib_cc.sh: loom.yaml's ib_cc (InfiniBand congestion control)
# through a running OpenSM on ibsim. What is checked, with the real parts:
#
#  1. Before any apply, `loomctl qos status --ib-cc` says loom's block is
#     missing and exits 1.
#  2. `loomctl qos apply --ib-cc` writes loom's block after the operator's own
#     lines (one of which sets a cc_ option that loom's block must override)
#     and signals OpenSM. OpenSM's own parser (`opensm -F FILE -c DUMP`, which
#     dumps the options it would run with) reads every congestion-control
#     option back to the values computed here from the settings below.
#  3. The running OpenSM re-read them on SIGHUP and its congestion-control
#     manager ran with them: its log shows CACongestionSetting (attr 22) and
#     CongestionControlTable (attr 23) Sets to the CAs answered with status 0.
#     ibsim has no congestion-control agent (docs/ib-cc-notes.md): its
#     switches answer SwitchCongestionSetting (attr 20) "unsupported method"
#     and a CA answers a Get with zeros, so the ports are not read back; the
#     test says what ibccquery reads.
#  4. Drift behind loom's back: an edit inside loom's block, then a line after
#     it that OpenSM would take instead, are named by status (exit 1) and
#     recorded as ib_cc_drift (apply warns of the later line: it still wins);
#     apply (or removing the line) brings it back: ib_cc_in_policy.
#  5. A bad ib_cc is refused by `loomd -n` naming the key; `loomd -n`'s
#     printed configuration is accepted again and prints the same.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

# The settings, once: the YAML and every expectation below come from these.
SW_MAP=0x1D; VICTIM=0x1E; THRESH=13; PKT=8; CS_THRESH=2; CS_DELAY=1:100; MARK=10
CA_MAP=0x0005; CA_PC=1
SL0="150 1 2 1"   # ccti_timer ccti_increase trigger_threshold ccti_min
SL2="32 2 0 0"
CCT="0:0 1:10 2:20"

"$B/loom-fabgen" fattree --levels 2 --radix 4 --hosts 4 -o "$work/f.net"
loom_ibsim "$work/f.net"
# The operator's own options, before loom's block: log_flags 0x07 shows the
# congestion-control manager's MADs (VERBOSE), and a threshold of their own.
printf 'force_log_flush TRUE\nlog_flags 0x07\ncc_sw_cong_setting_threshold 0x01\n' \
	>"$work/opensm.conf"
loom_opensm_bg
set -- $SL0; S0="{sl: 0, ccti_timer: $1, ccti_increase: $2, trigger_threshold: $3, ccti_min: $4}"
set -- $SL2; S2="{sl: 2, ccti_timer: $1, ccti_increase: $2, trigger_threshold: $3, ccti_min: $4}"
loom_config "tenants:" "  host_identity: description" "  opensm_pid_file: $work/opensm.pid" \
	"ib_cc:" "  enable: true" "  max_outstanding_mads: 64" "  switch:" \
	"    control_map: $SW_MAP" "    victim_mask: $VICTIM" "    threshold: $THRESH" \
	"    packet_size: $PKT" "    credit_starvation_threshold: $CS_THRESH" \
	"    credit_starvation_return_delay: \"$CS_DELAY\"" "    marking_rate: $MARK" \
	"  ca:" "    port_control: $CA_PC" "    control_map: $CA_MAP" "    sls:" \
	"      - $S0" "      - $S2" \
	"  cct: [$(for e in $CCT; do printf '"%s", ' "$e"; done | sed 's/, $//')]" \
	"  opensm_config: $work/opensm.conf"
loom_loomd "$work/loom.yaml"
cc_status() { "$B/loomctl" -s "$work/loomd.sock" qos status --ib-cc >"$work/status.out" 2>&1; }

# ---- 1. before apply -------------------------------------------------------------------
cc_status && loom_fail "in policy before any apply: $(cat "$work/status.out")"
grep -q "drifted: loom's ib_cc block is missing" "$work/status.out" ||
	loom_fail "status: $(cat "$work/status.out")"
loom_ok "before apply: status says loom's block is missing (exit 1)"

# ---- 2. apply; OpenSM's own parser reads the values back -------------------------------
loom_ctl qos apply --ib-cc >"$work/apply.out" || loom_fail "apply: $(cat "$work/apply.out")"
grep -q "OpenSM re-reads it (signalled OpenSM pid $OSM_PID)" "$work/apply.out" || loom_fail "not signalled: $(cat "$work/apply.out")"
[ "$(head -n 3 "$work/opensm.conf" | tail -n 1)" = "cc_sw_cong_setting_threshold 0x01" ] ||
	loom_fail "the operator's lines were not kept first: $(head -n 5 "$work/opensm.conf")"
opensm -F "$work/opensm.conf" -c "$work/dump.conf" >"$work/dump.out" 2>&1 ||
	loom_fail "opensm -c: $(cat "$work/dump.out")"
grep -q "Unrecognized\|invalid" "$work/dump.out" && loom_fail "OpenSM: $(cat "$work/dump.out")"
# What OpenSM's dump prints for these settings (its own formats, osm_subnet.c).
hex64() { printf '0x%064X' "$(($1))"; }
{
	echo "congestion_control TRUE"
	echo "cc_key 0x0000000000000000"
	echo "cc_max_outstanding_mads 64"
	printf 'cc_sw_cong_setting_control_map 0x%X\n' "$((SW_MAP))"
	echo "cc_sw_cong_setting_victim_mask $(hex64 "$VICTIM")"
	echo "cc_sw_cong_setting_credit_mask $(hex64 0)"
	printf 'cc_sw_cong_setting_threshold 0x%02X\n' "$THRESH"
	echo "cc_sw_cong_setting_packet_size $PKT"
	printf 'cc_sw_cong_setting_credit_starvation_threshold 0x%02X\n' "$CS_THRESH"
	echo "cc_sw_cong_setting_credit_starvation_return_delay $CS_DELAY"
	echo "cc_sw_cong_setting_marking_rate $MARK"
	printf 'cc_ca_cong_setting_port_control 0x%04X\n' "$CA_PC"
	printf 'cc_ca_cong_setting_control_map 0x%04X\n' "$((CA_MAP))"
	for sl in 0 2; do
		eval "set -- \$SL$sl"
		echo "cc_ca_cong_setting_ccti_timer $sl $1"
		echo "cc_ca_cong_setting_ccti_increase $sl $2"
		echo "cc_ca_cong_setting_trigger_threshold $sl $3"
		echo "cc_ca_cong_setting_ccti_min $sl $4"
	done
	echo "cc_cct $(echo $CCT | tr ' ' ,)"
} >"$work/want.conf"
grep -E '^(congestion_control|cc_)' "$work/dump.conf" >"$work/got.conf"
diff "$work/want.conf" "$work/got.conf" >"$work/diff.out" ||
	loom_fail "OpenSM reads other values than loom.yaml's: $(cat "$work/diff.out")"
loom_ok "apply: OpenSM's parser (opensm -c) reads all $(wc -l <"$work/want.conf") congestion-control options back as loom.yaml has them, over the operator's own threshold"

# ---- 3. the running OpenSM's congestion-control manager used them ------------------------
osm_cc() { grep -c "cc_rcv_mad: Processing received MAD status $1 for attr ID $2 " \
	"$work/opensm.log" || :; }
loom_until 300 sh -c "grep -q 'cc_rcv_mad: Processing received MAD status 0x0 for attr ID 23 ' \
	'$work/opensm.log'" || loom_osm_fail "OpenSM's CC manager sent no CongestionControlTable"
grep -q "Loading Cached Option:congestion_control = TRUE" "$work/opensm.out" ||
	loom_osm_fail "OpenSM did not re-read congestion_control on SIGHUP"
NCA=$(loom_ibnetdiscover -p | awk '$1 == "CA"' | wc -l)
[ "$(osm_cc 0x0 22)" -ge "$NCA" ] ||
	loom_osm_fail "CACongestionSetting accepted by $(osm_cc 0x0 22) CA ports, $NCA CAs"
loom_ok "OpenSM re-read the options on SIGHUP; its CC manager set CACongestionSetting on" \
	"$(osm_cc 0x0 22) CA ports and the CCT (status 0); ibsim's switches answered" \
	"SwitchCongestionSetting $(osm_cc 0x8 20) times with 0x8 (no CC agent in ibsim)"
if command -v ibccquery >/dev/null 2>&1; then
	CA_LID=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2; exit }')
	got=$(LD_PRELOAD=$PRELOAD ibccquery CACongestionSetting "$CA_LID" 2>/dev/null |
		sed -n 's/^Control_Map:\.*//p')
	echo "info: ibccquery CACongestionSetting of LID $CA_LID reads Control_Map $got (set: $CA_MAP):" \
		"ibsim answers class 0x21 with its SMA handlers and stores nothing"
fi

# ---- 4. drift behind loom's back -----------------------------------------------------------
loom_until 50 cc_status || loom_fail "not in policy after apply: $(cat "$work/status.out")"
sed -i '/loom ib_cc begin/,/loom ib_cc end/s/^cc_sw_cong_setting_marking_rate .*/cc_sw_cong_setting_marking_rate 3/' \
	"$work/opensm.conf"
cc_status && loom_fail "in policy after an edit of loom's block"
grep -q "drifted: cc_sw_cong_setting_marking_rate: file has 3, loom.yaml $MARK" "$work/status.out" ||
	loom_fail "the drift is not named: $(cat "$work/status.out")"
loom_ctl events --limit 50 >"$work/events.out"
grep -q "ib_cc_drift.*marking_rate: file has 3" "$work/events.out" ||
	loom_fail "no ib_cc_drift event: $(cat "$work/events.out")"
loom_ctl qos apply --ib-cc >/dev/null || loom_fail "second apply"
cc_status || loom_fail "not back in policy after apply: $(cat "$work/status.out")"
echo "cc_cct 0:1" >>"$work/opensm.conf"
line=$(wc -l <"$work/opensm.conf")
cc_status && loom_fail "in policy with a cc_cct line after loom's block"
grep -q "line $line sets cc_cct again after loom's block" "$work/status.out" ||
	loom_fail "the overriding line is not named: $(cat "$work/status.out")"
loom_ctl qos apply --ib-cc >"$work/apply.out" || loom_fail "apply: $(cat "$work/apply.out")"
grep -q "^warning: line $line sets cc_cct again after loom's block" "$work/apply.out" ||
	loom_fail "apply does not warn of the overriding line: $(cat "$work/apply.out")"
sed -i '$d' "$work/opensm.conf"
cc_status || loom_fail "not in policy once the line went: $(cat "$work/status.out")"
loom_ctl events --limit 50 >"$work/events.out"
[ "$(grep -c ib_cc_in_policy "$work/events.out")" -ge 2 ] ||
	loom_fail "ib_cc_in_policy not recorded twice: $(cat "$work/events.out")"
loom_ok "drift (an edit in loom's block; a later cc_cct line) named by status and recorded; apply and removal brought ib_cc_in_policy"

# ---- 5. refused and round-tripped configurations -----------------------------------------
sed 's/^    threshold: .*/    threshold: 16/' "$work/loom.yaml" >"$work/bad.yaml"
"$B/loomd" -n -c "$work/bad.yaml" >"$work/bad.out" 2>&1 && loom_fail "threshold 16 accepted"
grep -q "bad.yaml:[0-9]*: ib_cc.switch.threshold: 16 is past 15" "$work/bad.out" ||
	loom_fail "unclear refusal: $(cat "$work/bad.out")"
"$B/loomd" -n -c "$work/loom.yaml" >"$work/printed.yaml" 2>"$work/n.err" ||
	loom_fail "loomd -n: $(cat "$work/n.err")"
grep -q "^ib_cc:" "$work/printed.yaml" || loom_fail "no ib_cc in loomd -n: $(cat "$work/printed.yaml")"
"$B/loomd" -n -c "$work/printed.yaml" >"$work/printed2.yaml" 2>"$work/n.err" ||
	loom_fail "the printed configuration is refused: $(cat "$work/n.err")"
cmp -s "$work/printed.yaml" "$work/printed2.yaml" || loom_fail "printed twice differently"
loom_ok "a bad ib_cc is refused naming ib_cc.switch.threshold; loomd -n's text is accepted again and prints the same"
