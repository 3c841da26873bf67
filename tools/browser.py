"""Headless Chromium from the distribution's packages (Debian's `chromium` and `chromium-driver`), driven by
selenium through that chromedriver: with both paths given, selenium never runs Selenium Manager, so nothing
is downloaded and no network is needed. The static site's browser test and the docs' screenshots use it."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL = "apt-get install -y --no-install-recommends chromium chromium-driver"
# Headless as root on a machine with no network: no sandbox (root has none), no GPU, and nothing that calls
# home (updates, sync, QUIC probes), so a page's own requests are the only ones.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")


class BrowserMissing(RuntimeError):
    """Chromium or its driver is not installed."""


@contextmanager
def headless_chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A selenium WebDriver of a fresh headless Chromium (its own profile in a temporary folder, removed
    after), its console kept for `console_errors`. BrowserMissing naming the install command without it."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.is_file()]
    if missing:
        raise BrowserMissing(f"{' and '.join(missing)} not found: install them with `{INSTALL}` "
                             "(.ci/run does) to run the browser tests")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="wikic-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The console's errors (uncaught exceptions, failed loads, `console.error`) since it was last asked."""
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
