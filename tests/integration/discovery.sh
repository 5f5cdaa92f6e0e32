#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomd sees the whole fabric exactly: on several simulated fabrics (hand-made,
# shipped, generated fat trees with cut and slow links, a torus, a dragonfly,
# a two-rail tree), after OpenSM has brought the subnet up, loom's nodes,
# port LIDs, links, widths, speeds and degraded flags equal what
# ibnetdiscover and iblinkinfo report; a second sweep of an unchanged fabric
# records no event; with no subnet configured loomd sweeps the local port it
# finds by itself.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

# No subnets in the configuration: loomd finds the local port itself.
loom_check_fabric "tiny (autodetected port)" "$S/tests/fabrics/tiny.net"
grep -q '"ibsim0/1"' "$work/disc.json" || loom_fail "autodetected subnet is not named ibsim0/1"

loom_check_fabric "demo fat tree" "$S/tests/fabrics/demo-ft2.net" "$(loom_subnet_conf demo)"

loom_gen ft3cut fattree --levels 3 --radix 6 --cut 3 --slow 2 --seed 11
loom_check_fabric "3-level fat tree, 3 cut and 2 slow links" "$work/ft3cut.net" "$(loom_subnet_conf ft3)"

loom_gen rails fattree --levels 2 --radix 8 --hosts 16 --rails 2
loom_check_fabric "two-rail fat tree (rail 0 seen from host-0000)" "$work/rails.net" "$(loom_subnet_conf rail0)"

if [ "${LOOM_TEST_QUICK:-}" != 1 ]; then
	loom_gen torus torus --dims 3,3,2 --hosts-per-switch 2
	loom_check_fabric "3x3x2 torus" "$work/torus.net" "$(loom_subnet_conf torus)"
	loom_gen dfly dragonfly --groups 4 --routers 3 --hosts-per-router 2 --global 1
	loom_check_fabric "dragonfly" "$work/dfly.net" "$(loom_subnet_conf dfly)"
fi
echo "discovery.sh: all ok"
