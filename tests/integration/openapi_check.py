#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Validate loomd's real REST answers against schemas/openapi.yaml (issue 20).

usage: openapi_check.py OPENAPI.yaml BASE-URL  (tokens in $API_READ, $API_ADMIN)

Every request below is sent to the running loomd; its status must be one
the document lists for that path and method, and its JSON body must
validate against that response's schema. Every GET path of the document
must be exercised. Prints one line per request; exits 1 on any failure."""
import json
import os
import re
import sys
import urllib.error
import urllib.request

import jsonschema
import yaml

doc_path, base = sys.argv[1], sys.argv[2].rstrip("/")
doc = yaml.safe_load(open(doc_path))
READ, ADMIN = os.environ["API_READ"], os.environ["API_ADMIN"]
node = os.environ.get("API_NODE", "Switch-1")

# (method, path with query, token, body)
REQUESTS = [
    ("GET", "/status", READ, None),
    ("GET", "/nodes", READ, None),
    ("GET", "/nodes?type=switch&limit=1", READ, None),
    ("GET", "/nodes?type=bogus", READ, None),
    ("GET", "/nodes/" + node, READ, None),
    ("GET", "/nodes/no-such-node", READ, None),
    ("GET", "/nodes/" + node + "/ports", READ, None),
    ("GET", "/ports", READ, None),
    ("GET", "/ports?node=" + node + "&limit=2&offset=1", READ, None),
    ("GET", "/links", READ, None),
    ("GET", "/events", READ, None),
    ("GET", "/find?q=" + node, READ, None),
    ("GET", "/find?q=Hca&limit=1", READ, None),
    ("GET", "/find?q=x&limit=500", READ, None),
    ("GET", "/ports/" + node + "/history?port=1", READ, None),
    ("GET", "/ports/no-such-node/history?port=1", READ, None),
    ("GET", "/events?since=0&limit=2", READ, None),
    ("GET", "/routing/runs", READ, None),
    ("GET", "/routing/check?cached=true", READ, None),
    ("GET", "/routing/check", ADMIN, None),
    ("GET", "/routing/trace?src=Hca-A&dst=Hca-B", READ, None),
    ("GET", "/routing/trace", READ, None),  # a second spend within 10 s: 429
    ("GET", "/impact/no-such-job", READ, None),
    ("GET", "/impact/no-such-job/history?from=0", READ, None),
    ("GET", "/impact?hosts=Hca-A,Hca-B", READ, None),
    ("GET", "/impact?hosts=no-such-host", READ, None),
    ("GET", "/tenants", READ, None),
    ("GET", "/tenants/no-such-tenant", READ, None),
    ("GET", "/tenants/no-such-tenant/verify", ADMIN, None),
    ("GET", "/qos/plan", READ, None),
    ("GET", "/qos/status", ADMIN, None),
    ("GET", "/qos/ib/status", ADMIN, None),
    ("GET", "/qos/ib-cc/status", ADMIN, None),
    ("GET", "/ar/status", ADMIN, None),
    ("GET", "/switches", READ, None),
    ("GET", "/switches/no-such-switch", READ, None),
    ("GET", "/counters?now=true", ADMIN, None),
    ("GET", "/counters", READ, None),
    ("GET", "/eth-counters", READ, None),
    ("GET", "/health", READ, None),
    ("GET", "/fabric/validate", READ, None),
    ("GET", "/fabric/validate?subnet=no-such-subnet", READ, None),
    ("GET", "/fabric/issues", READ, None),
    ("GET", "/isolation/links", READ, None),
    ("POST", "/isolation/links", READ, {"port": "no-such-node:1", "reason": "test"}),
    ("POST", "/isolation/links", ADMIN, {"port": "no-such-node:1", "reason": "test"}),
    ("DELETE", "/isolation/links", ADMIN, {"port": "no-such-node:1"}),
    ("GET", "/slurm/topology", READ, None),
    ("GET", "/slurm/topology?format=block", READ, None),
    ("GET", "/slurm/topology?format=torus", READ, None),
    ("GET", "/status", "wrong-token", None),
    ("POST", "/call", READ, {"cmd": "nodes"}),
    ("POST", "/call", READ, {"cmd": "nosuch"}),
    ("POST", "/call", READ, {"cmd": "discover"}),
    ("POST", "/call", READ, {"cmd": "nodes", "extra": 1}),
    ("DELETE", "/tenants/no-such-tenant", READ, None),
    ("DELETE", "/tenants/no-such-tenant", ADMIN, None),
    ("POST", "/discover", READ, None),
    ("POST", "/discover", ADMIN, None),
]


def template_of(path):
    for tmpl in doc["paths"]:
        rx = "^" + re.sub(r"\\\{[a-z]+\\\}", "[^/]+", re.escape(tmpl)) + "$"
        if re.match(rx, path):
            return tmpl
    return None


def resolve(obj):
    while isinstance(obj, dict) and "$ref" in obj:
        cur = doc
        for part in obj["$ref"][2:].split("/"):
            cur = cur[part]
        obj = cur
    return obj


failed = 0
seen = set()
jobs = []


def check(method, path, token, body, expect_tmpl=None):
    global failed
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, raw, hdr = r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        status, raw, hdr = e.code, e.read(), e.headers
    p = path.split("?")[0]
    tmpl = template_of(p)
    what = "%s %s -> %d" % (method, path, status)
    op = doc["paths"].get(tmpl, {}).get(method.lower()) if tmpl else None
    if not op:
        print("FAIL: %s: not in the document" % what)
        failed += 1
        return None
    seen.add((method, tmpl))
    resp = op.get("responses", {}).get(str(status))
    if resp is None and status == 401:
        resp = resolve(doc["components"]["responses"]["Unauthorized"])
    if resp is None:
        print("FAIL: %s: status %d not documented (%s)" % (what, status, raw[:200]))
        failed += 1
        return None
    resp = resolve(resp)
    schema = resp.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        print("ok: %s (no schema)" % what)
        return None
    try:
        v = json.loads(raw)
    except ValueError:
        print("FAIL: %s: not JSON: %r" % (what, raw[:200]))
        failed += 1
        return None
    root = dict(schema)
    root["components"] = doc["components"]
    try:
        jsonschema.validate(v, root, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as e:
        print("FAIL: %s: %s at %s" % (what, e.message[:300], list(e.absolute_path)))
        failed += 1
        return None
    print("ok: %s valid" % what)
    if status == 202 and hdr.get("Location"):
        jobs.append(hdr["Location"])
    return v


for m, path, tok, body in REQUESTS:
    check(m, path, tok, body)
for loc in jobs:
    check("GET", loc.replace("/api/v1", "", 1), ADMIN, None)
check("GET", "/jobs/999999", ADMIN, None)

missing = [(m, p) for p, ops in doc["paths"].items() for m in ("GET",)
           if m.lower() in ops and (m, p) not in seen]
for m, p in missing:
    print("FAIL: %s %s of the document was not exercised" % (m, p))
    failed += 1
print("%d requests, %d failed, %d documented GET paths exercised" %
      (len(REQUESTS) + len(jobs) + 1, failed,
       len([1 for m, p in seen if m == "GET"])))
sys.exit(1 if failed else 0)
