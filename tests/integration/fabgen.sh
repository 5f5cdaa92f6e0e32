#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/fabgen.sh: loom-fabgen's fabrics are what they claim.
#
# Every fabric is written, checked on its own (first node an HCA, names
# ibsim accepts, each cable on both ends with the same ports, port numbers in
# range), then run for real: ibsim on it with the flags from its header,
# one OpenSM sweep to SUBNET UP, and ibnetdiscover, whose switches, CAs and
# cables (ends, ports and widths) must be exactly those of the file and of
# `loom-fabgen --stats`. Seeds must reproduce files byte for byte, cuts must
# remove exactly the links asked for, and the committed demo fabric must be
# what its header's command makes today.
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

gen="$B/loom-fabgen"
[ -x "$gen" ] || loom_fail "$gen is not built"
quick=${LOOM_TEST_QUICK:-}
t0=$(date +%s)

# Value of KEY in a --stats file.
stat_of() { sed -n "s/^$2=//p" "$1"; }

# Canonical cable list of a net file, one line per cable end:
# "a[pa] b[pb] width" with the two ends in sorted order.
net_ends() {
	awk '
	/^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); node = q[2]; next }
	/^\[/ {
		split($0, q, "\"")
		lp = substr($0, 2, index($0, "]") - 2)
		rp = substr(q[3], 2, index(q[3], "]") - 2)
		w = ($0 ~ /[ \t]w=1/) ? "1x" : "4x"
		a = node "[" lp "]"; b = q[2] "[" rp "]"
		if (a < b) print a, b, w; else print b, a, w
	}' "$1" | sort
}

# The same list from ibnetdiscover's output, by node description (which
# ibsim takes from the node's name in the net file).
ibnd_ends() {
	awk '
	/^(Switch|Ca)[ \t]/ {
		n = $0; sub(/^[^#]*#[ \t]*"/, "", n); sub(/".*/, "", n); node = n; next
	}
	/^\[/ {
		lp = substr($0, 2, index($0, "]") - 2)
		s = $0; sub(/^[^"]*"[^"]*"/, "", s)
		rp = substr(s, 2, index(s, "]") - 2)
		c = $0; sub(/^[^#]*#/, "", c)
		pn = c; sub(/^[^"]*"/, "", pn); sub(/".*/, "", pn)
		w = $NF; sub(/[A-Z].*/, "", w)	# "4xSDR" -> "4x"
		a = node "[" lp "]"; b = pn "[" rp "]"
		if (a < b) print a, b, w; else print b, a, w
	}' "$1" | sort
}

# Checks of a net file that need no simulator. $2: ports per host (rails).
check_file() {
	cf=$1 cf_rails=$2
	first=$(grep -v -e '^#' -e '^$' "$cf" | head -n 1)
	case $first in
	"Hca $cf_rails \""*) ;;
	*) loom_fail "$cf: first node is not a $cf_rails-port HCA: $first" ;;
	esac
	grep -E '^(Hca|Switch) ' "$cf" | cut -d'"' -f2 >"$work/names"
	dup=$(sort "$work/names" | uniq -d | head -n 3)
	[ -z "$dup" ] || loom_fail "$cf: duplicate node names: $dup"
	bad=$(grep -v -E '^[A-Za-z0-9/_.-]{1,40}$' "$work/names" | head -n 3)
	[ -z "$bad" ] || loom_fail "$cf: names ibsim may dislike: $bad"
	# Declared port counts bound the port numbers on both ends.
	err=$(awk '
		/^(Switch|Hca) / { split($0, q, "\""); n = q[2]; np[n] = $2 + 0
			if ($1 == "Switch" && $2 > 254) print "switch " n " has " $2 " ports"
			if ($1 == "Hca" && $2 != '"$cf_rails"') print "hca " n " has " $2 " ports"
			next }
		/^\[/ { split($0, q, "\""); lp = substr($0, 2, index($0, "]") - 2) + 0
			rp = substr(q[3], 2, index(q[3], "]") - 2) + 0
			use[n "|" lp]++; peer[++k] = q[2]; pp[k] = rp; from[k] = n }
		END {
			for (i = 1; i <= k; i++) {
				if (!(peer[i] in np)) print from[i] " cables unknown node " peer[i]
				else if (pp[i] < 1 || pp[i] > np[peer[i]])
					print from[i] " cables " peer[i] " port " pp[i] " out of range"
			}
			for (u in use) if (use[u] > 1) print "port " u " used twice"
		}' "$cf" | head -n 3)
	[ -z "$err" ] || loom_fail "$cf: $err"
	net_ends "$cf" >"$work/ends"
	asym=$(uniq -c "$work/ends" | awk '$1 != 2' | head -n 3)
	[ -z "$asym" ] || loom_fail "$cf: cables not listed on both ends alike: $asym"
}

# Start ibsim on a net file with the flags its header asks for.
sim_start() {
	rm -f "$work/opensm.log" "$work/guid2lid" "$work/guid2mkey" "$work/neighbors"
	# shellcheck disable=SC2046 # the flags are words
	loom_ibsim "$1" $(sed -n 's/^# ibsim flags: //p' "$1")
}

# Stop the simulator loom_ibsim started last, keep its log as ibsim-$1.log.
sim_stop() {
	pid=${LOOM_PIDS##* }
	kill "$pid" 2>/dev/null || :
	wait "$pid" 2>/dev/null || :
	LOOM_PIDS=${LOOM_PIDS% *}
	exec 9>&-
	rm -f "$work/ibsim.in"
	mv "$work/ibsim.log" "$work/ibsim-$1.log"
}

# One plane as OpenSM and ibnetdiscover see it from the attachment point
# (SIM_HOST, or the first node): compare with the file and the stats.
# $1 name, $2 net file, $3 expected switches, $4 expected cables, $5 plane
# prefix for rails ("" for the whole file), $6 --stats file.
check_plane() {
	pl=$1 pl_net=$2 want_sw=$3 want_links=$4 pfx=$5 stats=$6
	rm -f "$work/opensm.log"
	loom_opensm
	loom_ibnetdiscover >"$work/$pl.ibnd" || loom_fail "$pl: ibnetdiscover failed"
	sw=$(grep -c '^Switch' "$work/$pl.ibnd")
	ca=$(grep -c '^Ca' "$work/$pl.ibnd")
	hosts=$(stat_of "$stats" hosts)
	[ "$sw" = "$want_sw" ] || loom_fail "$pl: ibnetdiscover found $sw switches, expected $want_sw"
	[ "$ca" = "$hosts" ] || loom_fail "$pl: ibnetdiscover found $ca CAs, expected $hosts"
	ibnd_ends "$work/$pl.ibnd" | sort -u >"$work/$pl.seen"
	net_ends "$pl_net" | sort -u |
		awk -v p="$pfx" 'p == "" || index($1, p) == 1 || index($2, p) == 1' \
			>"$work/$pl.want"
	links=$(wc -l <"$work/$pl.seen")
	[ "$links" -eq "$want_links" ] ||
		loom_fail "$pl: ibnetdiscover found $links cables, --stats says $want_links"
	if ! cmp -s "$work/$pl.want" "$work/$pl.seen"; then
		diff "$work/$pl.want" "$work/$pl.seen" | head -n 10
		loom_fail "$pl: the cables ibnetdiscover sees differ from the file"
	fi
}

# Generate, check statically, run on ibsim, compare. $1 name, rest: args.
fabric() {
	name=$1; shift
	net=$work/$name.net
	"$gen" "$@" -o "$net" || loom_fail "loom-fabgen $* failed"
	"$gen" "$@" --stats >"$work/$name.stats" || loom_fail "loom-fabgen $* --stats failed"
	rails=$(stat_of "$work/$name.stats" rails)
	check_file "$net" "$rails"
	ends=$(wc -l <"$work/ends")
	[ "$ends" -eq $(( 2 * $(stat_of "$work/$name.stats" links) )) ] ||
		loom_fail "$name: file has $ends cable ends, --stats says $(stat_of "$work/$name.stats" links) cables"
	sim_start "$net"
	if [ "$rails" -eq 1 ]; then
		check_plane "$name" "$net" "$(stat_of "$work/$name.stats" switches)" \
			"$(stat_of "$work/$name.stats" links)" "" "$work/$name.stats"
	else
		# Subnet management packets do not cross an HCA: every rail is its
		# own subnet, reached here through one of its spines.
		r=0
		while [ $r -lt "$rails" ]; do
			[ $r -eq 0 ] || { SIM_HOST="r$r/spine-0"; export SIM_HOST; }
			check_plane "$name-r$r" "$net" "$(stat_of "$work/$name.stats" rail${r}_switches)" \
				"$(stat_of "$work/$name.stats" rail${r}_links)" "r$r/" "$work/$name.stats"
			r=$((r + 1))
		done
		unset SIM_HOST
	fi
	sim_stop "$name"
	loom_ok "$name: $(stat_of "$work/$name.stats" hosts) hosts, $(stat_of "$work/$name.stats" switches) switches, $(stat_of "$work/$name.stats" links) cables as ibnetdiscover sees them"
}

# ---- the command line ---------------------------------------------------------
"$gen" -h | grep -q '^usage: loom-fabgen' || loom_fail "-h prints no usage"
bad_arg() {
	want=$1; shift
	"$gen" "$@" >/dev/null 2>"$work/err" && loom_fail "loom-fabgen $* succeeded"
	rc=$?
	[ $rc -eq 2 ] || loom_fail "loom-fabgen $*: exit $rc, expected 2"
	grep -q -e "$want" "$work/err" || loom_fail "loom-fabgen $*: no '$want' in: $(cat "$work/err")"
}
bad_arg "--radix must be even and 4..254" fattree --levels 2 --radix 7
bad_arg "--radix must be even and 4..254" fattree --levels 3 --radix 256
bad_arg "--levels must be 2 or 3" fattree --levels 4 --radix 8
bad_arg "--hosts must be 1..32" fattree --levels 2 --radix 8 --hosts 33
bad_arg "--rails must be" fattree --radix 8 --rails 0
bad_arg "--dims" torus --dims 4
bad_arg "--dims" torus --dims 1,4
bad_arg "--radix does not apply to torus" torus --dims 2,2 --radix 8
bad_arg "--routers \* --global" dragonfly --groups 9 --routers 2 --hosts-per-router 1 --global 3
bad_arg "--cut 40" fattree --levels 2 --radix 8 --cut 40
bad_arg "unknown topology" mesh
loom_ok "command line: usage, bad options exit 2 naming the option and its bound"

# ---- reproducibility and cuts, on files ---------------------------------------------
ft="fattree --levels 2 --radix 8"
# shellcheck disable=SC2086
{
	"$gen" $ft -o "$work/full.net"
	"$gen" $ft --cut 3 --seed 7 -o "$work/cut7.net"
	"$gen" $ft --cut 3 --seed 7 -o "$work/cut7b.net"
	"$gen" $ft --cut 3 --seed 8 -o "$work/cut8.net"
	"$gen" $ft --cut 3 --seed 7 --slow 2 -o "$work/cut7s.net"
} || loom_fail "loom-fabgen failed"
cmp -s "$work/cut7.net" "$work/cut7b.net" || loom_fail "--seed 7 twice gave two different files"
for f in full cut7 cut8 cut7s; do net_ends "$work/$f.net" | sort -u | cut -d' ' -f1,2 >"$work/$f.cables"; done
comm -23 "$work/full.cables" "$work/cut7.cables" >"$work/gone7"
comm -23 "$work/full.cables" "$work/cut8.cables" >"$work/gone8"
[ "$(wc -l <"$work/gone7")" -eq 3 ] || loom_fail "--cut 3 removed $(wc -l <"$work/gone7") cables"
[ -z "$(comm -13 "$work/full.cables" "$work/cut7.cables")" ] || loom_fail "--cut added cables"
! grep -q host- "$work/gone7" || loom_fail "--cut removed a host cable: $(cat "$work/gone7")"
! cmp -s "$work/gone7" "$work/gone8" || loom_fail "--seed 7 and --seed 8 cut the same cables"
cmp -s "$work/cut7.cables" "$work/cut7s.cables" || loom_fail "adding --slow changed the cuts"
loom_ok "same seed, same file; other seed, other cuts; --cut 3 removes exactly 3 switch cables"

# Tori: a dimension of 2 is one cable per pair, never two.
for dims in 2,2 3,3,2 2,2,2; do
	"$gen" torus --dims $dims -o "$work/t.net" || loom_fail "torus --dims $dims failed"
	check_file "$work/t.net" 1
	par=$(sort -u "$work/ends" | sed 's/\[[0-9]*\]//g' | cut -d' ' -f1,2 | uniq -d | head -n 3)
	[ -z "$par" ] || loom_fail "torus --dims $dims cables a pair twice: $par"
done
loom_ok "tori: no doubled cables in dimensions of size 2"

# The shipped demo fabric is what the command in its header makes today.
demo=$S/tests/fabrics/demo-ft2.net
cmd=$(sed -n 's/^# command: loom-fabgen //p' "$demo")
[ -n "$cmd" ] || loom_fail "$demo has no '# command:' header"
# shellcheck disable=SC2086
"$gen" $cmd -o "$work/demo.net" || loom_fail "loom-fabgen $cmd failed"
cmp -s "$demo" "$work/demo.net" || loom_fail "$demo differs from: loom-fabgen $cmd"
loom_ok "demo-ft2.net is regenerated by its header's command"

# Beyond ibsim's default limits the header names the flags.
"$gen" fattree --levels 3 --radix 16 -o "$work/big.net"
grep -q '^# ibsim flags: -N 2048 -S 320 -P 13312$' "$work/big.net" ||
	loom_fail "3-level radix-16 tree: wrong ibsim flags: $(grep '^# ibsim' "$work/big.net")"
loom_ok "ibsim flags in the header when the defaults do not suffice"

# ---- the real tools ------------------------------------------------------------------
fabric ft2 fattree --levels 2 --radix 8
if [ -n "$quick" ]; then
	fabric ft3 fattree --levels 3 --radix 4
else
	fabric ft3 fattree --levels 3 --radix 6
fi
fabric ft2-rails fattree --levels 2 --radix 8 --hosts 24 --rails 2
fabric torus torus --dims 3,3,2 --hosts-per-switch 2
fabric dragonfly dragonfly --groups 5 --routers 3 --hosts-per-router 2 --global 2
fabric ft2-cut fattree --levels 2 --radix 8 --cut 3 --seed 7
fabric ft2-slow fattree --levels 2 --radix 8 --hosts 28 --slow 4 --seed 5

full=$(wc -l <"$work/ft2.seen")
cut=$(wc -l <"$work/ft2-cut.seen")
[ $((full - cut)) -eq 3 ] || loom_fail "ibnetdiscover: cut tree has $cut cables, full one $full"
slow=$(awk '$3 == "1x"' "$work/ft2-slow.seen" | wc -l)
[ "$slow" -eq 4 ] || loom_fail "ibnetdiscover shows $slow 1x cables, --slow 4 asked for 4"
loom_ok "ibnetdiscover: the cut tree has 3 cables fewer, --slow 4 shows 4 cables at 1x"

if [ -z "$quick" ]; then
	# Past ibsim's default switch count: the header's flags must work.
	fabric ft3-big fattree --levels 3 --radix 16 --hosts 1024
fi
echo "fabgen: $(( $(date +%s) - t0 )) s"
