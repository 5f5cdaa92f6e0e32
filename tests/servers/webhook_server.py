#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""tests/servers/webhook_server.py: a local webhook receiver for loomd's
events.forward tests. Listens on 127.0.0.1, writes its port to --port-file,
and records every POST as one JSON line in --out: the status it answered, the
Authorization header, and the body as parsed JSON (or the raw text when it
is not JSON). --fail-first N answers 500 to the first N requests (retries
are then seen as several lines with the same body); --hang accepts
connections and never answers (a dead sink)."""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--fail-first", type=int, default=0)
ap.add_argument("--hang", action="store_true")
args = ap.parse_args()
lock = threading.Lock()
seen = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        if args.hang:
            time.sleep(3600)
            return
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode("utf-8", "replace")
        with lock:
            seen[0] += 1
            status = 500 if seen[0] <= args.fail_first else 200
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
            rec = {"n": seen[0], "status": status, "path": self.path,
                   "content_type": self.headers.get("Content-Type"),
                   "authorization": self.headers.get("Authorization"),
                   "time": time.time(), "body": body}
            with open(args.out, "a") as f:
                f.write(json.dumps(rec) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(args.port_file + ".tmp", args.port_file)
try:
    srv.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
