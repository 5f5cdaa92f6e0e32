# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""web_view_isolation.py URL ARTDIR ADMIN VIEWER SWITCH PORT: the web view's
isolation (issue 42) in headless chromium against loomd, as web_view_isolation.sh
sets it up (SWITCH[PORT] a switch-to-switch cable, nothing isolated yet):
  1. admin token, the map: SWITCH's panel, the PORT row, its port panel's
     Isolate... with a reason: /api/v1/isolation/links (asked here) lists the
     cable, by the admin token, with that reason; the map draws one line
     isolated (dashed) and says so; the port panel says isolated, offers Restore;
  2. the Isolation view lists it (state, by, rules, since, probation);
  3. a read token's Restore is refused (403 shown), the cable stays isolated;
  4. admin's Restore in the Isolation view: the API lists nothing, the
     view says nothing is isolated, the map draws no line isolated.
Screenshots in ARTDIR."""
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import chromium  # noqa: E402

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, art, admin, viewer, switch, port = sys.argv[1:7]
REASON = "optics swap planned (web test)"
shots = [0]


def isolated():
    req = urllib.request.Request(url + "/api/v1/isolation/links",
                                 headers={"Authorization": "Bearer " + viewer})
    return json.load(urllib.request.urlopen(req, timeout=30))


def shot(drv, name):
    shots[0] += 1
    drv.save_screenshot(os.path.join(art, "%d-%s.png" % (shots[0], name)))


def wait(drv, what, secs=60):
    WebDriverWait(drv, secs).until(what)


def login(drv, view, token):
    # a fresh page without the last token: nothing loads before ours
    drv.get(url + "/#" + view)
    drv.execute_script("sessionStorage.clear();")
    drv.refresh()
    wait(drv, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") ==
         "login")
    box = drv.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    drv.find_element(By.CSS_SELECTOR, "#login button").click()
    wait(drv, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == view)


def fail(drv, msg):
    shot(drv, "failed")
    print("FAIL: " + msg)
    sys.exit(1)


drv = chromium()
try:
    # 1. the port panel's Isolate...
    login(drv, "fabric", admin)
    box = drv.execute_script(
        "return [...document.querySelectorAll('g.node')].find(g => g.dataset.guid && "
        "g.querySelector('title').textContent === arguments[0]);", switch)
    if not box:
        fail(drv, "no box of %s on the map" % switch)
    guid = box.get_attribute("data-guid")
    box.click()
    row = "#detail-ports tr[data-port='%s']" % port
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, row))
    drv.find_element(By.CSS_SELECTOR, row).click()
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#port-isolation .iso-open"))
    if drv.find_elements(By.CSS_SELECTOR, "line.link.isolated"):
        fail(drv, "a line drawn isolated before any isolation")
    drv.find_element(By.CSS_SELECTOR, "#port-isolation .iso-open").click()
    drv.find_element(By.CSS_SELECTOR, "#port-isolation .iso-reason").send_keys(REASON)
    shot(drv, "isolate-form")
    drv.find_element(By.CSS_SELECTOR, "#port-isolation .iso-go").click()
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#port-isolation .iso-restore"))
    links = isolated()["links"]
    ends = {(links[0]["guid"], str(links[0]["port"])),
            (links[0]["peer_guid"], str(links[0]["peer_port"]))} if links else set()
    if len(links) != 1 or (guid, port) not in ends:
        fail(drv, "the API after Isolate: %s, want %s[%s]" % (links, guid, port))
    x = links[0]
    if x["by"] != "admin" or x["reason"] != REASON or x["state"] != "isolated" or \
            x["kind"] != "link":
        fail(drv, "the API's row: %s" % x)
    text = drv.find_element(By.CSS_SELECTOR, "#port-isolation").text
    if "Isolated: out of the routes (isolated)" not in text or REASON not in text:
        fail(drv, "the port panel says %r" % text)
    svg = drv.find_element(By.ID, "fabric")
    drawn = drv.find_elements(By.CSS_SELECTOR, "line.link.isolated")
    if len(drawn) != 1 or svg.get_attribute("data-isolated") != "1":
        fail(drv, "%d lines drawn isolated, data-isolated %s" %
             (len(drawn), svg.get_attribute("data-isolated")))
    dash = drv.execute_script("return getComputedStyle(arguments[0]).strokeDasharray;", drawn[0])
    if not dash or dash == "none":
        fail(drv, "the isolated line is not dashed")
    if "isolated" not in drv.find_element(By.CSS_SELECTOR, "#fabric-legend .legend-isolated").text:
        fail(drv, "the legend does not name isolated cables")
    if "1 cable(s) isolated" not in drv.find_element(By.ID, "fabric-summary").text:
        fail(drv, "the summary: %s" % drv.find_element(By.ID, "fabric-summary").text)
    shot(drv, "isolated-map")
    print("isolated through the port panel: %s[%s] <-> %s[%s] by %s; drawn dashed (%s)" %
          (x["guid"], x["port"], x["peer_guid"], x["peer_port"], x["by"], dash))

    # 2. the Isolation view
    drv.get(url + "/#isolation")
    wait(drv, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") ==
         "isolation")
    heads = [th.text for th in drv.find_elements(By.CSS_SELECTOR, "#isolation-links th")]
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in drv.find_elements(By.CSS_SELECTOR, "#isolation-links tr")[1:]]
    if len(rows) != 1:
        fail(drv, "the Isolation view: %s" % rows)
    r = dict(zip(heads, rows[0]))
    if "%s[%s]" % (switch, port) not in r["cable"] or r["state"] != "isolated" or \
            r["by"] != "admin" or r["rules"] != "operator" or not r["since"] or \
            r["probation left"] != "until restored" or r["reason"] != REASON:
        fail(drv, "the Isolation view's row: %s" % r)
    summary = drv.find_element(By.ID, "isolation-summary").text
    if "version %d" % isolated()["version"] not in summary:
        fail(drv, "the summary does not give the set's version: %s" % summary)
    shot(drv, "isolation-view")
    print("the Isolation view: %s; %s" % (r, summary))

    # 3. a read token may not restore
    login(drv, "isolation", viewer)
    drv.find_element(By.CSS_SELECTOR, "#isolation-links .iso-restore").click()
    wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, "#isolation .iso-out")
         .get_attribute("data-result") == "error")
    said = drv.find_element(By.CSS_SELECTOR, "#isolation .iso-out").text
    if "403" not in said or len(isolated()["links"]) != 1:
        fail(drv, "a read token's Restore: %r, the API %s" % (said, isolated()["links"]))
    shot(drv, "read-refused")
    print("a read token's Restore: %s" % said)

    # 4. admin restores in the Isolation view
    login(drv, "isolation", admin)
    drv.find_element(By.CSS_SELECTOR, "#isolation-links .iso-restore").click()
    wait(drv, lambda d: "restored" in d.find_element(By.ID, "status").text)
    if isolated()["links"]:
        fail(drv, "the API after Restore: %s" % isolated()["links"])
    if drv.find_elements(By.CSS_SELECTOR, "#isolation-links tr")[1:] or \
            "Nothing isolated" not in drv.find_element(By.ID, "isolation").text:
        fail(drv, "the Isolation view after Restore: %s" %
             drv.find_element(By.ID, "isolation").text)
    shot(drv, "restored")
    drv.get(url + "/#fabric")
    wait(drv, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") ==
         "fabric")
    if drv.find_elements(By.CSS_SELECTOR, "line.link.isolated") or \
            drv.find_element(By.ID, "fabric").get_attribute("data-isolated") != "0":
        fail(drv, "a line still drawn isolated after Restore")
    print("restored through the Isolation view: the API and the map have nothing isolated")
    errors = [e.get("message", "") for e in drv.get_log("browser")
              if e.get("level") == "SEVERE" and "403" not in e.get("message", "")]
    if errors:
        fail(drv, "browser console: %s" % errors)
except Exception:
    shot(drv, "failed")
    print("status: %r; loaded: %r; console: %s" % (
        drv.find_element(By.ID, "status").text,
        drv.find_element(By.TAG_NAME, "body").get_attribute("data-loaded"),
        [e.get("message") for e in drv.get_log("browser")]))
    raise
finally:
    drv.quit()
