#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Clients of loomd's HTTPS listener for tests/integration/http_tls.sh.

  tls_client.py fingerprint PORT CA          the server certificate's SHA-256
  tls_client.py keepalive PORT CA GOFILE     GET /healthz, wait for GOFILE, GET
                                             again on the same connection
  tls_client.py latency PORT CA N           N GET /healthz on one connection:
                                             the mean time of one
  tls_client.py cap PORT CA N                N idle connections from 127.0.0.1;
                                             is the (N+1)th closed, is 127.0.0.2
                                             served?
  tls_client.py slowloris PORT CA            a request, one byte a second: when
                                             does loomd close it?
  tls_client.py noread PORT CA SECONDS       GET /metrics, never read, send
                                             bytes while loomd takes them

Each prints what it saw, one line a fact, for the shell to grep. Bounded in
time: nothing here waits longer than 60 s."""
import hashlib
import http.client
import os
import socket
import ssl
import sys
import time


def context(ca):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False     # the certificate's SAN is 127.0.0.1
    return ctx


def fp(sock):
    return hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()


def fingerprint(port, ca):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context(ca).wrap_socket(raw) as s:
            print(fp(s))


def keepalive(port, ca, gofile):
    c = http.client.HTTPSConnection("127.0.0.1", port, context=context(ca), timeout=20)
    c.request("GET", "/healthz")
    r = c.getresponse()
    print("first: %d %s fp=%s" % (r.status, r.read().decode().strip(), fp(c.sock)),
          flush=True)
    deadline = time.time() + 30
    while not os.path.exists(gofile) and time.time() < deadline:
        time.sleep(0.05)
    try:
        c.request("GET", "/healthz")
        r = c.getresponse()
        print("second: %d %s fp=%s" % (r.status, r.read().decode().strip(), fp(c.sock)),
              flush=True)
    except (OSError, http.client.HTTPException) as e:
        print("second: failed: %r" % e, flush=True)


def latency(port, ca, n):
    c = http.client.HTTPSConnection("127.0.0.1", port, context=context(ca), timeout=10)
    c.request("GET", "/healthz")
    c.getresponse().read()
    t0 = time.time()
    for _ in range(n):
        c.request("GET", "/healthz")
        c.getresponse().read()
    print("%.2f ms a request" % ((time.time() - t0) / n * 1000))


def closed_within(s, seconds):
    """True when the peer closes s (EOF or reset) within seconds."""
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def cap(port, ca, n):
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(n)]
    time.sleep(0.3)
    for i, s in enumerate(idle):
        if closed_within(s, 0.01):
            print("idle connection %d was closed" % i)
    extra = socket.create_connection(("127.0.0.1", port), timeout=10)
    print("extra from 127.0.0.1: %s" % ("closed" if closed_within(extra, 3) else "open"))
    other = socket.create_connection(("127.0.0.1", port), timeout=10,
                                      source_address=("127.0.0.2", 0))
    c = http.client.HTTPSConnection("127.0.0.1", port, context=context(ca), timeout=10)
    c.sock = context(ca).wrap_socket(other)
    c.request("GET", "/healthz")
    r = c.getresponse()
    print("from 127.0.0.2: %d %s" % (r.status, r.read().decode().strip()))
    for s in idle + [extra]:
        s.close()
    c.close()


def slowloris(port, ca):
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    s = context(ca).wrap_socket(raw)
    req = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100 + b"\r\n\r\n"
    t0 = time.time()
    sent = 0
    for b in req:
        try:
            s.sendall(bytes([b]))
        except OSError:
            break
        sent += 1
        if closed_within(s, 1.0):
            break
    else:
        print("not closed: the whole request went in %.1f s" % (time.time() - t0))
        return
    print("closed after %.1f s, %d bytes sent" % (time.time() - t0, sent))
    s.close()


def noread(port, ca, seconds):
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.settimeout(10)
    raw.connect(("127.0.0.1", port))
    s = context(ca).wrap_socket(raw)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    print("sent the request", flush=True)
    # Then more and more bytes, as fast as loomd takes them, for 5 s: what
    # loomd holds of them is what it reads while it cannot write.
    time.sleep(0.5)
    s.settimeout(1.0)
    junk = b"X" * 65536
    more = 0
    t_end = time.time() + 5
    while time.time() < t_end:
        try:
            more += s.send(junk)
        except (socket.timeout, ssl.SSLWantWriteError):
            break
        except OSError:
            break
    print("then %d bytes more" % more, flush=True)
    time.sleep(max(0.0, seconds - 5))
    s.close()


def main():
    cmd, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if cmd == "fingerprint":
        fingerprint(port, ca)
    elif cmd == "keepalive":
        keepalive(port, ca, sys.argv[4])
    elif cmd == "latency":
        latency(port, ca, int(sys.argv[4]))
    elif cmd == "cap":
        cap(port, ca, int(sys.argv[4]))
    elif cmd == "slowloris":
        slowloris(port, ca)
    elif cmd == "noread":
        noread(port, ca, float(sys.argv[4]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
