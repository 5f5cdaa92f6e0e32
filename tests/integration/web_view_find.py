# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""web_view_find.py URL ARTDIR TOKEN HOST HOSTGUID FIRST ROOT JOB WORST: the issue
41 views in one headless chromium page (web_view_find.sh says what each
step proves). HOST has an injected SymbolErrorCounter=77 on its cable;
FIRST (GUID:PORT) is what `loomctl health` lists first under errors, ROOT
its first congestion root; WORST
what `loomctl job JOB` lists first. A screenshot of each view goes to
ARTDIR."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import chromium  # noqa: E402

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

url, art, token, host, hguid, first, root, job, worst = sys.argv[1:10]
errors = []


def css(sel):
    return drv.find_elements(By.CSS_SELECTOR, sel)


def shot(name):
    drv.save_screenshot(os.path.join(art, name + ".png"))


def loaded(view, timeout=90):
    try:
        WebDriverWait(drv, timeout).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == view)
    except Exception:
        shot("timeout-" + view)
        raise RuntimeError("%s not loaded: body data-loaded %r, status %r" % (
            view, drv.find_element(By.TAG_NAME, "body").get_attribute("data-loaded"),
            drv.find_element(By.ID, "status").text))


def go(view):
    drv.execute_script("document.body.dataset.loaded = ''; location.hash = arguments[0]",
                       "#" + view)
    loaded(view)


def marked_host(what):
    """the open panel marks HOST's cable and shows its errors"""
    WebDriverWait(drv, 30).until(lambda d: css("#detail-hosts tr.marked"))
    row = css("#detail-hosts tr.marked")[0]
    if row.get_attribute("data-host") != hguid:
        errors.append("%s: the marked cable is %s's, not %s's" %
                      (what, row.get_attribute("data-host"), hguid))
    if "SymbolErrorCounter=77" not in row.text:
        errors.append("%s: %s's cable row does not show SymbolErrorCounter=77: %r" %
                      (what, host, row.text))
    if not css("g.node.found"):
        errors.append("%s: no box marked found on the map" % what)
    print("%s: %s" % (what, row.text))


def find(q, what):
    box = drv.find_element(By.ID, "find")
    box.clear()
    box.send_keys(q)
    WebDriverWait(drv, 30).until(lambda d: any(
        li.get_attribute("data-guid") == hguid and li.is_displayed()
        for li in css("#find-suggest li")))
    print("%s suggests: %s" % (what, [li.text for li in css("#find-suggest li")][:3]))
    box.send_keys(Keys.ENTER)
    marked_host(what)


drv = chromium()
try:
    drv.set_window_size(1600, 1000)
    drv.set_page_load_timeout(60)
    drv.get(url + "/#fabric")
    box = drv.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    drv.find_element(By.CSS_SELECTOR, "#login button").click()
    loaded("fabric")
    shot("1-fabric")

    # the legend hides a state (the most common of up and degraded: on
    # ibsim every link is 4x SDR), the marks of the host cables' errors stay
    def shown(sel):
        return [x for x in css(sel) if drv.execute_script(
            "return getComputedStyle(arguments[0]).display", x) != "none"]
    st = max(("up", "degraded"), key=lambda s: len(css("#fabric line.link." + s)))
    lines = css("#fabric line.link." + st)
    if not lines or len(shown("#fabric line.link." + st)) != len(lines):
        errors.append("before: %d %s lines, not all shown" % (len(lines), st))
    bad = css("g.node.host-errors")
    if not bad:
        errors.append("no box marked with a host cable in errors")
    css("#fabric-legend input[data-state=%s]" % st)[0].click()
    if shown("#fabric line.link." + st):
        errors.append("%d %s lines still shown with %s unticked" %
                      (len(shown("#fabric line.link." + st)), st, st))
    if len(shown("g.node.host-errors circle.mark")) != len(bad):
        errors.append("the errors marks hid with %s" % st)
    shot("2-legend-hidden")
    print("legend: %d %s lines hidden, %d boxes with a host cable in errors" %
          (len(lines), st, len(bad)))
    css("#fabric-legend input[data-state=%s]" % st)[0].click()

    find(host, "find by name")
    shot("3-find-host")
    # the marked cable's row opens its port's panel (a chart when loomd
    # keeps the port's history, none on 404)
    port = css("#detail-hosts tr.marked")[0].get_attribute("data-port")
    css("#detail-hosts tr.marked")[0].click()
    WebDriverWait(drv, 30).until(lambda d: d.find_element(By.ID, "detail").get_attribute(
        "data-port") == port and css("#detail a.back"))
    print("port panel: %s, chart: %s" % (css("#detail h3")[0].text,
                                         [c.get_attribute("data-points") for c in
                                          css("#port-chart")]))
    find(hguid, "find by guid")

    go("health")
    rows = css("#health-errors tr[data-guid]")
    got = "%s:%s" % (rows[0].get_attribute("data-guid"), rows[0].get_attribute("data-port")) \
        if rows else None
    if got != first:
        errors.append("health's first errors row is %s, loomctl health's %s" % (got, first))
    roots = ["%s:%s" % (r.get_attribute("data-guid"), r.get_attribute("data-port"))
             for r in css("#health-roots tr[data-guid]")]
    if roots[:1] != [root]:
        errors.append("health's congestion roots %s, loomctl health's first %s" % (roots, root))
    print("health: %d alarms, errors first %s, congestion roots %s" %
          (len(css("#health-alarms tr[data-guid]")), got, roots))
    shot("4-health")
    if rows:
        drv.execute_script("document.body.dataset.loaded = ''")
        rows[0].click()
        loaded("fabric")
        marked_host("health's row on the map")

    go("events")
    n0 = int(drv.find_element(By.ID, "events").get_attribute("data-events"))
    subjects = [td.text for td in css("#events tr td:nth-child(6)")]
    text = next((t for t in (job, host, "leaf") if any(t in s for s in subjects) and
                 not all(t in s for s in subjects)), None)
    if text is None:
        errors.append("no filter text narrows %s" % subjects[:20])
    else:
        f = drv.find_element(By.ID, "ev-node")
        f.send_keys(text)
        WebDriverWait(drv, 30).until(lambda d: int(d.find_element(
            By.ID, "events").get_attribute("data-events")) < n0)
        subj = [td.text for td in css("#events tr td:nth-child(6)")]
        if not subj or not all(text in s for s in subj):
            errors.append("filter %r shows %s" % (text, subj))
        print("events: %d, filtered by %r: %d rows" % (n0, text, len(subj)))
        shot("5-events-filtered")

    go("jobs")
    box = drv.find_element(By.ID, "job-name")
    box.clear()
    box.send_keys(job, Keys.ENTER)
    WebDriverWait(drv, 60).until(lambda d: css("#job-worst tr[data-from]"))
    got = css("#job-worst tr[data-from]")[0].get_attribute("data-from")
    if got != worst:
        errors.append("the job view's worst link is from %s, loomctl job's from %s" % (got, worst))
    print("job: worst from %s; %s" % (got, drv.find_element(By.ID, "job-summary").text))
    shot("6-job")
    for e in drv.get_log("browser") if hasattr(drv, "get_log") else []:
        # 404: a loomd without /find or port history (the page does without)
        if e.get("level") == "SEVERE" and "404" not in e.get("message", ""):
            errors.append("browser console: %s" % e.get("message"))
finally:
    drv.quit()
if errors:
    print("\n".join(errors))
    sys.exit(1)
