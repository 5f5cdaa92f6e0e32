#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/osm_standin.py: loomd's end of libloomosm's report socket,
# played by a test (osm_isolated.sh) to send the plugin requests that only
# loomd's socket may send, before loomd itself has a command that does.
#
#   osm_standin.py SOCKET DIR
# Binds the unix datagram socket SOCKET (where $LOOMOSM_SOCKET points the
# plugin), appends every report it receives, one JSON object a line, to
# DIR/reports.jsonl, and whenever a file DIR/ask appears sends its content
# as one request to the address the plugin last reported from, from SOCKET
# itself (what the plugin checks), then removes DIR/ask. Runs until killed.
import os
import socket
import sys
import time

path, d = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.1)
peer = None
with open(os.path.join(d, 'reports.jsonl'), 'a') as out:
    while True:
        try:
            data, addr = s.recvfrom(65536)
            if addr:
                peer = addr
            out.write(data.decode('utf-8', 'replace') + '\n')
            out.flush()
        except socket.timeout:
            pass
        ask = os.path.join(d, 'ask')
        if peer is not None and os.path.exists(ask):
            with open(ask, 'rb') as f:
                msg = f.read().strip()
            s.sendto(msg, peer)
            os.unlink(ask)
            with open(os.path.join(d, 'asked.log'), 'a') as f:
                f.write('%.3f %s\n' % (time.time(), msg.decode()))
