# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""http_head.py PORT PATH HDR OUT [TOKEN]: HEAD PATH on 127.0.0.1:PORT on a
socket of its own, read to the close (curl would not read a body sent after
the headers, which is what a HEAD must not get). Prints the status; the
header lines go to HDR, any byte after them to OUT. TOKEN: sent as a
bearer token (api.sh, web_static.sh)."""
import socket
import sys

port, path, hdr, out = sys.argv[1:5]
token = sys.argv[5] if len(sys.argv) > 5 else None
s = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
s.sendall(("HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n" %
           (path, "Authorization: Bearer %s\r\n" % token if token else "")).encode())
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
head, _, rest = data.partition(b"\r\n\r\n")
open(hdr, "wb").write(head + b"\r\n")
open(out, "wb").write(rest)
print(head.split(b" ")[1].decode() if b" " in head else "none")
