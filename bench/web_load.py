# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""bench/web_load.py URL TOKEN RUNS [HOST]: the web view's load time in
headless chromium (bench/api.sh, bench/web.sh): from navigating to URL
until the view says it has drawn the fabric (body data-loaded="fabric"),
token typed, RUNS times. Prints the first load and the median of the
others, in ms, and what was drawn. Then a click's time, RUNS times each
(issue 41): a leaf group clicked until its panel's title is drawn; a
switch of it clicked (a row of the group's panel, when the page has one)
until its ports are listed (the API's answers included); with HOST, Find:
the host's name put in the box (its input event, as the last key gives)
until its suggestion is shown (the 150 ms wait after the last key included). And the page's own
memory (JS heap used). Needs chromium, chromium-driver and
python3-selenium."""
import os
import statistics
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "integration"))
from browser import chromium  # noqa: E402

url, token, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
host = sys.argv[4] if len(sys.argv) > 4 else None


def timed(drv, act, done):
    t0 = time.monotonic()
    act()
    WebDriverWait(drv, 60, poll_frequency=0.005).until(lambda d: done(d))
    return (time.monotonic() - t0) * 1000


# a leaf group clicked (the lowest row of switch groups), by index; in the
# page itself, so that a redraw (the 30 s refresh) leaves nothing stale
CLICK_LEAF = """
const gs = [...document.querySelectorAll('g.node.group[data-type=switch]')];
const y = g => parseFloat(g.getAttribute('transform').split(',')[1]);
const low = Math.max(...gs.map(y)), leaves = gs.filter(g => y(g) === low);
document.getElementById('detail').replaceChildren();
leaves[arguments[0] % leaves.length].dispatchEvent(new MouseEvent('click'));
"""
TYPE = """
const b = document.getElementById('find'), ul = document.getElementById('find-suggest');
ul.replaceChildren();
b.value = arguments[0];
b.dispatchEvent(new Event('input'));
"""
CLICK_SWITCH = """
const rows = document.querySelectorAll('#detail-members tr.link-row');
if (!rows.length) return false;
rows[arguments[0] % rows.length].click();
return true;
"""


def clicks(drv):
    """median ms of: a leaf group's panel, a switch's ports, Find's suggestion"""
    out = {}
    group, switch, find = [], [], []
    for i in range(runs):
        group.append(timed(drv, lambda: drv.execute_script(CLICK_LEAF, i),
                           lambda d: d.find_elements(By.CSS_SELECTOR, "#detail h3")))
        t0 = time.monotonic()
        if drv.execute_script(CLICK_SWITCH, i):
            WebDriverWait(drv, 60, poll_frequency=0.005).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#detail-ports"))
            switch.append((time.monotonic() - t0) * 1000)
        if host and drv.find_elements(By.ID, "find"):
            # from the last key (the box's input event) to the suggestion
            find.append(timed(drv, lambda: drv.execute_script(TYPE, host), lambda d: any(
                host in li.text for li in d.find_elements(By.CSS_SELECTOR, "#find-suggest li"))))
    for k, v in (("group", group), ("switch", switch), ("find", find)):
        out[k] = "%.0f ms (max %.0f)" % (statistics.median(v), max(v)) if v else "n/a"
    return out


drv = chromium()
times = []
try:
    drv.set_page_load_timeout(120)
    for i in range(runs):
        t0 = time.monotonic()
        drv.get(url + "/#fabric")
        box = drv.find_element(By.ID, "token")
        box.clear()
        box.send_keys(token)
        drv.find_element(By.CSS_SELECTOR, "#login button").click()
        WebDriverWait(drv, 120, poll_frequency=0.02).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded")
            == "fabric")
        times.append((time.monotonic() - t0) * 1000)
        # the next run starts from a fresh page: forget the token
        drv.execute_script("sessionStorage.clear()")
    svg = drv.find_element(By.ID, "fabric")
    drawn = {k: svg.get_attribute("data-" + k) for k in ("switches", "links", "down")}
    elems = drv.execute_script("return document.querySelectorAll('svg *').length")
    click = clicks(drv)
    heap = drv.execute_script("return performance.memory ? "
                              "performance.memory.usedJSHeapSize : 0") / 1e6
finally:
    drv.quit()
rest = times[1:] or times
print("web view: first load %.0f ms, then median %.0f ms over %d loads (max %.0f); drawn %s, "
      "%d SVG elements" % (times[0], statistics.median(rest), len(rest), max(rest), drawn,
                           elems))
print("web view clicks (median of %d): leaf group -> its panel %s; a switch of it -> its "
      "ports %s; Find %s -> suggestion %s; JS heap used %.1f MB" %
      (runs, click["group"], click["switch"], host or "-", click["find"], heap))
