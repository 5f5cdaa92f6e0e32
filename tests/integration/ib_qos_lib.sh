# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/ib_qos_lib.sh: what ib_qos.sh and ib_qos_layers.sh share
# (sourced after lib.sh, with $PRELOAD set): the policy as loom.yaml text,
# and the SL2VL and VLArbitration tables of a port as smpquery reads them.

# "0 1 2" -> "0, 1, 2"; "0:64 1:32" -> "{vl: 0, weight: 64}, {vl: 1, weight: 32}"
yaml_list() { echo "$1" | sed 's/ /, /g'; }
yaml_arb() { for e in $1; do printf '{vl: %s, weight: %s}, ' "${e%%:*}" "${e##*:}"; done |
	sed 's/, $//'; }

smp() { LD_PRELOAD=$PRELOAD smpquery "$@" 2>/dev/null; }
# smpquery's SL2VL rows of LID [PORT...] as "VL VL ..." (one line per row).
sl2vl_rows() { smp sl2vl "$@" | sed -n 's/^ports: in *[0-9]*, out *[0-9]*: *|//p' |
	tr -d ' ' | tr '|' ' ' | sed 's/ *$//'; }
# One VLArb table of smpquery's output as "VL:WEIGHT ..." (decimal): low or high.
vlarb_of() { # WHICH LID [PORT]
	_w=$1; shift
	smp vlarb "$@" | awk -v w="$_w" '
		function h(s, i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0
			for (i = 1; i <= length(s); i++)
				n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		/Low priority/ { t = "low" } /High priority/ { t = "high" }
		t == w && /^VL / { n = split($0, v, "|") }
		t == w && /^WEIGHT/ { split($0, g, "|");
			for (i = 2; i < n; i++) { gsub(/ /, "", v[i]); gsub(/ /, "", g[i]);
				printf "%s%d:%d", (i > 2 ? " " : ""), h(v[i]), h(g[i]) }
			print "" }'
}
# A table as a port holds it: the entries, then 0:0 up to CAP.
want_arb() { # ENTRIES CAP
	_n=0; _out=""
	for e in $1; do _out="$_out $e"; _n=$((_n + 1)); done
	while [ $_n -lt "$2" ]; do _out="$_out 0:0"; _n=$((_n + 1)); done
	echo "$_out" | sed 's/^ //'
}
# PortInfo's VLArbLowCap / VLArbHighCap of LID [PORT]: cap_of Low|High LID [PORT]
cap_of() { _c=$1; shift; smp portinfo "$@" | sed -n "s/^VLArb${_c}Cap:\.*//p"; }
