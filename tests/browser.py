"""Headless Chromium for the browser checks (report_browser.py,
console_browser.py, view3d_browser.py): Debian's chromium and
chromium-driver through python3-selenium. Whatever is missing calls
skip(why), which the caller's check turns into SKIPPED (exit 77)."""
import os
import shutil

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
HEADLESS = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars")


def start_chromium(skip, args=(), browser_log=False):
    """A Chrome driver with the headless arguments and args; browser_log:
    keep the page's console messages (driver.get_log("browser"))."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        skip("python3-selenium is not installed")
    for path in (CHROMIUM, DRIVER):
        if not (os.access(path, os.X_OK) or shutil.which(os.path.basename(path))):
            skip(path + " is not installed (Debian chromium, chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    for arg in HEADLESS + tuple(args):
        opts.add_argument(arg)
    if browser_log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = DRIVER if os.access(DRIVER, os.X_OK) else shutil.which("chromedriver")
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts)
