#!/bin/sh
# loomd sees large fabrics exactly too: a 1152-host two-level fat tree of
# 48-port switches and a 1024-host three-level fat tree of 16-port switches
# with cut links, compared node by node and link by link with ibnetdiscover
# and iblinkinfo. (Speed is measured by bench/discovery.sh, not here.)
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft2 fattree --levels 2 --radix 48
loom_check_fabric "1152-host 2-level fat tree" "$work/ft2.net" "$(loom_subnet_conf ft2)"

if [ "${LOOM_TEST_QUICK:-}" != 1 ]; then
	loom_gen ft3 fattree --levels 3 --radix 16 --hosts 1024 --cut 5 --seed 3
	loom_check_fabric "1024-host 3-level fat tree, 5 cut links" "$work/ft3.net" "$(loom_subnet_conf ft3)"
fi
echo "discovery_large.sh: all ok"
