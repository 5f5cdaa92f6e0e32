#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Slow clients against loomd's HTTP listener (issue 37), for
tests/integration/http_slow.sh and bench/http_slow.sh.

  http_slow.py attack PORT CA|- CONNS ADDRS SECONDS
      CONNS connections from ADDRS addresses (127.0.0.2, 127.0.0.3, ...),
      held open as long as loomd lets them: over plain HTTP (CA "-") each
      sends the start of a request, then one byte every 3 s; over TLS half
      send the first half of a ClientHello and then one byte of the rest
      every 3 s, half send nothing. A connection loomd closes is opened
      again 1 s later. Prints what it saw at the end ("attack: ...").
  http_slow.py poll PORT CA|- TOKEN SECONDS INTERVAL [OUT]
      The legitimate client, from 127.0.0.1: a new connection every
      INTERVAL s, GET /api/v1/status with the bearer token, the time from
      the connect to the whole answer. Prints one line a poll into OUT (or
      stdout) and then "poll: N answered A p50 X p99 Y max Z" (seconds; an
      unanswered poll counts 10 s).
  http_slow.py ready PORT CA|- CONNS ADDRS
      (internal) how many attack connections must be open before polling.

Bounded: nothing runs longer than SECONDS + 15 s; at most CONNS sockets."""
import asyncio
import http.client
import resource
import socket
import ssl
import sys
import time

HOST = "127.0.0.1"


def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, n + 256))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def client_hello():
    """The bytes of a real TLS ClientHello (what a browser's first flight
    looks like), made with a memory BIO."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="loomd")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


class Stats:
    def __init__(self):
        self.opened = self.closed = self.failed = self.open_now = self.max_open = 0
        self.answered = 0
        self.held = []


async def slot(i, port, tls, addrs, end, st, hello):
    src = addrs[i % len(addrs)]
    while time.time() < end:
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection(HOST, port, local_addr=(src, 0)),
                timeout=max(0.1, min(5, end - time.time())))
        except (OSError, asyncio.TimeoutError):
            st.failed += 1
            await asyncio.sleep(1)
            continue
        st.opened += 1
        st.open_now += 1
        st.max_open = max(st.max_open, st.open_now)
        t0 = time.time()
        if tls:
            rest = hello[len(hello) // 2:] if i % 2 == 0 else b""
            if i % 2 == 0:
                w.write(hello[:len(hello) // 2])
        else:
            w.write(b"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            rest = b"X-Slow: " + b"a" * 4096
        try:
            while time.time() < end:
                try:
                    d = await asyncio.wait_for(r.read(4096), timeout=min(3, end - time.time()))
                    if d:
                        st.answered += 1
                    break           # closed by loomd (or answered: a 4xx)
                except asyncio.TimeoutError:
                    if rest:
                        w.write(rest[:1])
                        rest = rest[1:]
                        await w.drain()
        except OSError:
            pass
        st.open_now -= 1
        if time.time() < end:
            st.closed += 1
            st.held.append(time.time() - t0)
        w.close()
        if time.time() < end:
            await asyncio.sleep(1)


async def attack_main(port, tls, conns, naddrs, seconds):
    st = Stats()
    end = time.time() + seconds
    addrs = ["127.0.0.%d" % (2 + k) for k in range(naddrs)]
    hello = client_hello() if tls else b""

    async def report():
        while time.time() < end:
            print("open %d" % st.open_now, flush=True)
            await asyncio.sleep(0.5)
    tasks = [asyncio.ensure_future(slot(i, port, tls, addrs, end, st, hello))
             for i in range(conns)]
    rep = asyncio.ensure_future(report())
    await asyncio.wait(tasks, timeout=seconds + 10)
    rep.cancel()
    held = sorted(st.held)
    med = held[len(held) // 2] if held else 0
    print("attack: %d connections from %d addresses, %s: opened %d, closed by loomd %d "
          "(median held %.1f s), max open at once %d, connect failures %d" %
          (conns, naddrs, "TLS" if tls else "plain HTTP", st.opened, st.closed, med,
           st.max_open, st.failed), flush=True)


def pct(v, p):
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def poll(port, ca, token, seconds, interval, out):
    ctx = None
    if ca != "-":
        ctx = ssl.create_default_context(cafile=ca)
        ctx.check_hostname = False
    f = open(out, "w") if out else sys.stdout
    lat, answered, hsts = [], 0, 0
    end = time.time() + seconds
    while time.time() < end:
        t0 = time.time()
        status = "none"
        try:
            if ctx:
                c = http.client.HTTPSConnection(HOST, port, context=ctx, timeout=10,
                                                source_address=(HOST, 0))
            else:
                c = http.client.HTTPConnection(HOST, port, timeout=10,
                                               source_address=(HOST, 0))
            c.request("GET", "/api/v1/status", headers={"Authorization": "Bearer " + token})
            r = c.getresponse()
            r.read()
            status = str(r.status)
            if r.status == 200:
                answered += 1
            if r.getheader("Strict-Transport-Security"):
                hsts += 1
            c.close()
            dt = time.time() - t0
        except (OSError, http.client.HTTPException) as e:
            status = "failed: %r" % e
            dt = 10.0
        lat.append(dt)
        print("%.3f %s" % (dt, status), file=f, flush=True)
        time.sleep(max(0, interval - (time.time() - t0)))
    lat.sort()
    print("poll: %d answered %d p50 %.3f p99 %.3f max %.3f hsts %d" %
          (len(lat), answered, pct(lat, 50), pct(lat, 99), lat[-1], hsts), flush=True)


def main():
    cmd = sys.argv[1]
    if cmd == "attack":
        port, ca, conns, naddrs, seconds = sys.argv[2:7]
        raise_nofile(int(conns))
        asyncio.run(attack_main(int(port), ca != "-", int(conns), int(naddrs),
                                float(seconds)))
    elif cmd == "poll":
        port, ca, token, seconds, interval = sys.argv[2:7]
        poll(int(port), ca, token, float(seconds), float(interval),
             sys.argv[7] if len(sys.argv) > 7 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
