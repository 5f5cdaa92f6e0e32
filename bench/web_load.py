# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""bench/web_load.py URL TOKEN RUNS: the web view's load time in headless
chromium (bench/api.sh): from navigating to URL until the view says it has
drawn the fabric (body data-loaded="fabric"), token typed, RUNS times.
Prints the first load and the median of the others, in ms, and what was
drawn. Needs chromium, chromium-driver and python3-selenium."""
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
finally:
    drv.quit()
rest = times[1:] or times
print("web view: first load %.0f ms, then median %.0f ms over %d loads (max %.0f); drawn %s, "
      "%d SVG elements" % (times[0], statistics.median(rest), len(rest), max(rest), drawn,
                           elems))
