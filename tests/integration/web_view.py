"""web_view.py URL ARTDIR STEP TOKEN [...]: one step of web_view.sh in
headless chromium (chromedriver, selenium). Each step loads the page,
types the token, waits for the view to say it loaded (body data-loaded)
and checks the DOM; a screenshot of it goes to ARTDIR/STEP-N.png.
  fabric TOKEN SWITCHES LINKS DOWN: the drawing's counts
  tenants TOKEN NAME: the tenants table has a row named NAME
  denied TOKEN: the status says 401, nothing is drawn
  shot TOKEN: no check; prints the drawing's summary (tools/demo.sh)
  scale TOKEN SWITCHES LINKS MAX: all counted, at most MAX SVG elements
      drawn and at most 16 boxes a level (web_view_scale.sh)"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, art, step, token = sys.argv[1:5]
rest = sys.argv[5:]

opts = webdriver.ChromeOptions()
opts.binary_location = "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--window-size=1400,900", "--no-first-run", "--disable-extensions"):
    opts.add_argument(a)
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
errors = []
try:
    drv.set_page_load_timeout(60)
    view = "tenants" if step == "tenants" else "fabric"
    drv.get(url + "/#" + view)
    box = drv.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    drv.find_element(By.CSS_SELECTOR, "#login button").click()
    want = "error" if step == "denied" else view
    # the first load (no token) may end first: wait for ours
    WebDriverWait(drv, 60).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == want
        and (want == "error") == ("401" in d.find_element(By.ID, "status").text))
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
        print("tenants: %s" % names)
    elif step == "shot":
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
        if e.get("level") == "SEVERE" and "401" not in e.get("message", ""):
            errors.append("browser console: %s" % e.get("message"))
finally:
    drv.quit()
if errors:
    print("\n".join(errors))
    sys.exit(1)
