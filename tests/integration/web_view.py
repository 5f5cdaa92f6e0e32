# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""web_view.py URL ARTDIR STEP TOKEN [...]: one step of web_view.sh in
headless chromium (chromedriver, selenium). Each step loads the page,
types the token, waits for the view to say it loaded (body data-loaded)
and checks the DOM; a screenshot of it goes to ARTDIR/STEP-N.png.
  fabric TOKEN SWITCHES LINKS DOWN: the drawing's counts
  tenants TOKEN NAME: the tenants table has a row named NAME
  denied TOKEN: the status says 401, nothing is drawn
  shot TOKEN [VIEW]: no check; prints the view's summary (tools/demo.sh;
      VIEW: fabric, the default, or health)
  scale TOKEN SWITCHES LINKS MAX: all counted, at most MAX SVG elements
      drawn and at most 16 boxes a level (web_view_scale.sh)
  tenants TOKEN NAME CREATOR: ... and its creator column says CREATOR
  issues TOKEN CODE SUBJECT N: the open issues table has N rows, one of
      them of CODE with SUBJECT in its subject (web_view.sh)
  routing TOKEN: the latest run's quality, the chart's points and the runs
      marked worse than the one before are what /api/v1/routing/runs (asked
      here with TOKEN) makes of them (web_view_routing.sh)
  switches TOKEN INSYNC [SWITCH PORT KEY FIELD ACTUAL POLICY]: the switches of
      INSYNC (comma separated) in sync with no port drifted; SWITCH drifted
      with exactly PORT marked, KEY FIELD its drift, ACTUAL -> POLICY shown
      (web_view_roce.sh)
  switches-failed TOKEN SWITCH: SWITCH's last push shown failed"""
import json
import math
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import chromium  # noqa: E402

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, art, step, token = sys.argv[1:5]
rest = sys.argv[5:]

# What makes a run worse than the one before it on its subnet: the rules
# of web/loom.js's runWorse, applied here to the API's answer.
RUN_RULES = [("unreachable", True, None), ("loops", True, None), ("max_hops", True, None),
             ("efi_max", True, None), ("shift_max_load", True, "shifts"),
             ("random_mean_load", True, "randoms"), ("ebb", False, "bisections")]


def run_worse(run, prev):
    if prev is None:
        return []
    if run["result"] != "ok":
        return ["result"] if prev["result"] == "ok" else []
    a, b = run.get("metrics"), prev.get("metrics")
    if not a or not b:
        return []
    worse = []
    for key, up, need in RUN_RULES:
        if key not in a or key not in b:
            continue
        if need and not (a[need] > 0 and b[need] > 0):
            continue
        # random permutations: apart by more than twice their combined error
        margin = (2 * math.hypot(a["random_mean_se"], b["random_mean_se"])
                  if key == "random_mean_load" else 0)
        if (a[key] > b[key] + margin) if up else (a[key] < b[key] - margin):
            worse.append(key)
    if "cdg_acyclic" in a and "cdg_acyclic" in b and b["cdg_acyclic"] and not a["cdg_acyclic"]:
        worse.append("cdg_acyclic")
    return worse


def check_routing(drv, url, token):
    errs = []
    req = urllib.request.Request(url + "/api/v1/routing/runs?limit=200",   # the page's
                                 headers={"Authorization": "Bearer " + token})
    runs = json.load(urllib.request.urlopen(req, timeout=30))
    prev, want = {}, {}
    for r in reversed(runs):   # oldest first
        key = r.get("subnet") or r["sm_guid"]
        want[r["id"]] = run_worse(r, prev.get(key))
        prev[key] = r
    latest = runs[0]
    m = latest["metrics"]
    box = drv.find_element(By.ID, "routing-latest")
    if box.get_attribute("data-run") != str(latest["id"]):
        errs.append("latest run shown %s, want %s" % (box.get_attribute("data-run"), latest["id"]))
    shown = {dd.get_attribute("data-key"): dd.text
             for dd in box.find_elements(By.CSS_SELECTOR, "dd[data-key]")}
    expect = {"delivered": "%d of %d" % (m["delivered"], m["pairs"]),
              "unreachable": str(m["unreachable"]), "max_hops": str(m["max_hops"]),
              "efi_max": str(m["efi_max"]), "duration_ms": "%.1f" % latest["duration_ms"]}
    if m["shifts"] > 0:
        expect["shift_max_load"] = str(m["shift_max_load"])
    if m["bisections"] > 0:
        expect["ebb"] = "%.3f" % m["ebb"]
    for k, v in expect.items():
        if shown.get(k) != v:
            errs.append("latest run's %s shown %r, want %r" % (k, shown.get(k), v))
    for dd in box.find_elements(By.CSS_SELECTOR, "dd.worse"):
        if dd.get_attribute("data-key") not in want[latest["id"]]:
            errs.append("latest run's %s marked worse" % dd.get_attribute("data-key"))
    rows = {tr.get_attribute("data-id"): tr.get_attribute("data-worse")
            for tr in drv.find_elements(By.CSS_SELECTOR, "#routing tr[data-id]")}
    want_rows = {str(i): ",".join(w) for i, w in want.items()}
    if rows != want_rows:
        errs.append("runs marked worse %s, want %s" % (rows, want_rows))
    chart = drv.find_element(By.ID, "routing-chart")
    points = chart.find_elements(By.CSS_SELECTOR, "circle.point.duration")
    if len(points) != min(len(runs), 60):
        errs.append("%d duration points drawn for %d runs" % (len(points), len(runs)))
    red = sorted({c.get_attribute("data-id") for c in
                  chart.find_elements(By.CSS_SELECTOR, "circle.point.worse")})
    want_red = sorted(str(i) for i, w in want.items() if w)
    if red != want_red:
        errs.append("chart marks runs %s worse, want %s" % (red, want_red))
    if not want_red or len(want_red) == len(runs):
        errs.append("the runs do not test the marking (worse: %s of %d)" % (want_red, len(runs)))
    print("routing: %d runs, latest #%s %s; worse: %s" %
          (len(runs), latest["id"], expect, {i: w for i, w in want.items() if w}))
    return errs


def check_switches(drv, step, rest):
    errs = []
    secs = {s.get_attribute("data-name"): s for s in
            drv.find_elements(By.CSS_SELECTOR, "#switches section.switch")}

    def drifted(sec):
        return [(tr.get_attribute("data-port"), tr.get_attribute("data-drift"), tr.text)
                for tr in sec.find_elements(By.CSS_SELECTOR, "tr.drifted")]
    if step == "switches-failed":
        sec = secs.get(rest[0])
        if sec is None or sec.get_attribute("data-failed-push") != "1":
            errs.append("%s not shown with a failed push: %s" %
                        (rest[0], sec.text if sec else sorted(secs)))
        print("switches-failed: %s" % (sec.find_element(By.TAG_NAME, "h3").text if sec else "-"))
        return errs
    for name in rest[0].split(","):
        sec = secs.get(name)
        if sec is None:
            errs.append("no switch %s on the page (%s)" % (name, sorted(secs)))
            continue
        if sec.get_attribute("data-state") != "in policy" or drifted(sec):
            errs.append("%s: state %s, drifted %s" % (name, sec.get_attribute("data-state"),
                                                     drifted(sec)))
        if "no apply" in sec.text:
            errs.append("%s: no apply shown: %s" % (name, sec.text))
    if len(rest) > 1:
        name, port, key, field, actual, policy = rest[1:7]
        sec = secs.get(name)
        if sec is None:
            errs.append("no switch %s on the page" % name)
            return errs
        if sec.get_attribute("data-state") != "drifted":
            errs.append("%s: state %s, not drifted" % (name, sec.get_attribute("data-state")))
        d = drifted(sec)
        if [x[0] for x in d] != [port]:
            errs.append("%s: ports marked drifted %s, want exactly %s" % (name, d, port))
        elif d[0][1] != key + " " + field:
            errs.append("%s %s: drift %r, want %r" % (name, port, d[0][1], key + " " + field))
        elif "%s \u2192 %s" % (actual, policy) not in d[0][2]:
            errs.append("%s %s: %r does not show %s -> %s" % (name, port, d[0][2], actual, policy))
        print("switches: %s drifted at %s" % (name, d))
    print("switches: %s" % {n: s.get_attribute("data-state") for n, s in secs.items()})
    return errs


drv = chromium()
errors = []
try:
    drv.set_page_load_timeout(60)
    view = {"tenants": "tenants", "issues": "issues", "routing": "routing",
            "switches": "switches",
            "switches-failed": "switches"}.get(step, "fabric")
    if step == "shot" and rest:
        view = rest[0]
    drv.get(url + "/#" + view)
    box = drv.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    drv.find_element(By.CSS_SELECTOR, "#login button").click()
    want = "error" if step == "denied" else view
    # the first load (no token) may end first: wait for ours
    # the switches: until the live read is in (after a 429, the page asks
    # again when Retry-After says)
    WebDriverWait(drv, 90).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == want
        and (want == "error") == ("401" in d.find_element(By.ID, "status").text)
        and (view != "switches" or
             d.find_element(By.ID, "switches").get_attribute("data-live") == "1"))
    n = len([f for f in os.listdir(art) if f.startswith(step)])
    drv.save_screenshot(os.path.join(art, "%s-%d.png" % (step, n + 1)))
    if step == "fabric":
        svg = drv.find_element(By.ID, "fabric")
        got = {k: svg.get_attribute("data-" + k) for k in ("switches", "links", "down")}
        want_counts = dict(zip(("switches", "links", "down"), rest))
        if got != want_counts:
            errors.append("drawn %s, want %s" % (got, want_counts))
        down = drv.find_elements(By.CSS_SELECTOR, "line.link.down")
        if len(down) != int(rest[2]):
            errors.append("%d lines drawn down, want %s" % (len(down), rest[2]))
        nodes = drv.find_elements(By.CSS_SELECTOR, "g.node")
        print("fabric: %s; %d boxes, %d lines" %
              (got, len(nodes), len(drv.find_elements(By.CSS_SELECTOR, "line.link"))))
        if nodes:
            nodes[0].click()
            WebDriverWait(drv, 30).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#detail h3"))
    elif step == "tenants":
        names = [td.text for td in
                 drv.find_elements(By.CSS_SELECTOR, "#tenants tr td:first-child")]
        if rest[0] not in names:
            errors.append("tenant %s not among %s" % (rest[0], names))
        elif len(rest) > 1:
            heads = [th.text for th in drv.find_elements(By.CSS_SELECTOR, "#tenants th")]
            row = names.index(rest[0]) + 2
            cell = drv.find_element(By.CSS_SELECTOR, "#tenants tr:nth-child(%d) td:nth-child(%d)"
                                    % (row, heads.index("creator") + 1)).text
            if cell != rest[1]:
                errors.append("tenant %s: creator %r, want %r" % (rest[0], cell, rest[1]))
        print("tenants: %s" % names)
    elif step == "issues":
        rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in drv.find_elements(By.CSS_SELECTOR, "#issues tr")[1:]]
        hits = [r for r in rows if r[1] == rest[0] and rest[1] in r[3]]
        if len(hits) != 1 or len(rows) != int(rest[2]):
            errors.append("issues %s: want one %s on %s among %s rows" % (rows, rest[0], rest[1],
                                                                         rest[2]))
        print("issues: %s" % rows)
    elif step == "routing":
        errors += check_routing(drv, url, token)
    elif step in ("switches", "switches-failed"):
        errors += check_switches(drv, step, rest)
    elif step == "shot":
        if view == "health":
            print("\n".join(h.text for h in drv.find_elements(By.CSS_SELECTOR, "#health h3")))
        else:
            print(drv.find_element(By.ID, "fabric-summary").text)
    elif step == "scale":
        # SWITCHES LINKS MAX_ELEMENTS: all counted, few drawn
        svg = drv.find_element(By.ID, "fabric")
        got = (svg.get_attribute("data-switches"), svg.get_attribute("data-links"))
        if got != (rest[0], rest[1]):
            errors.append("counted %s switches and %s links, want %s and %s" %
                          (got + tuple(rest[:2])))
        elements = len(svg.find_elements(By.CSS_SELECTOR, "*"))
        if elements > int(rest[2]):
            errors.append("%d SVG elements drawn, more than %s" % (elements, rest[2]))
        per_level = {}
        for g in svg.find_elements(By.CSS_SELECTOR, "g.node"):
            y = g.get_attribute("transform").split(",")[1]
            per_level[y] = per_level.get(y, 0) + 1
        if max(per_level.values()) > 16:
            errors.append("a level of %d boxes" % max(per_level.values()))
        print("scale: %s switches, %s links, %d SVG elements, boxes per level %s" %
              (got[0], got[1], elements, sorted(per_level.values())))
    elif step == "denied":
        status = drv.find_element(By.ID, "status").text
        if drv.find_elements(By.CSS_SELECTOR, "g.node"):
            errors.append("something drawn without a valid token")
        print("denied: %s" % status)
    for e in drv.get_log("browser") if hasattr(drv, "get_log") else []:
        # 401: the denied step; 429: the switches view's live read asked
        # again sooner than a read token may (the page waits and asks again)
        if e.get("level") == "SEVERE" and not any(
                c in e.get("message", "") for c in ("401", "429 (Too Many")):
            errors.append("browser console: %s" % e.get("message"))
finally:
    drv.quit()
if errors:
    print("\n".join(errors))
    sys.exit(1)
