#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/osm_log.py: OpenSM's routing step in its log (log_flags 0x04 or
# more): from "building routing with" to "ENGINE tables configured on all
# switches", and the engine that really routed (OpenSM falls back to minhop
# when an engine refuses the fabric). bench/routing.sh and
# bench/latency_reads.sh read it.
#
#   osm_log.py OPENSM.LOG    prints "MS ENGINE", or fails when the log has
#                            no routing step
import datetime
import re
import sys


def stamp(line):
    m = re.match(r'(\w+ +\d+ [\d:]+) (\d+)', line)
    t = datetime.datetime.strptime(m.group(1), '%b %d %H:%M:%S')
    return t.timestamp() + int(m.group(2)) / 1e6


def routing_step(path):
    """(start, end, engine) of the last routing step; start or end None when absent."""
    start = end = None
    used = '?'
    for line in open(path, errors='replace'):
        if 'building routing with' in line:
            start = stamp(line)
        m = re.search(r"osm_ucast_mgr_process: (\S+) tables configured on all switches", line)
        if m:
            end, used = stamp(line), m.group(1)
    return start, end, used


if __name__ == '__main__':
    start, end, used = routing_step(sys.argv[1])
    if start is None or end is None:
        sys.exit('no routing step in ' + sys.argv[1])
    print('%d %s' % ((end - start) * 1000, used))
