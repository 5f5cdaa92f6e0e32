# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""browser.py: Debian's chromium, headless, driven through chromedriver by
selenium: what web_view.py (the tests) and bench/web_load.py (the web
view's load time) both start."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium():
    """A headless chromium of 1400x900, sandbox off (tests run as root)."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,900", "--no-first-run", "--disable-extensions"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
