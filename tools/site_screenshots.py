#!/usr/bin/env python3
"""Regenerate the static site's screenshots in docs/img/ from the example vault:

    python tools/site_screenshots.py            # docs/img/site-page.png, site-raw.png, site-graph.png
    python tools/site_screenshots.py --out DIR  # elsewhere

The example vault is copied to a temporary folder and exported there (`wikic export site`), then opened from
disk in headless Chromium (`tools/browser.py`): a page with a citation hovered, so its evidence shows; the raw
source that citation opens, its lines highlighted; and the graph.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.browser import console_errors, headless_chromium  # noqa: E402
from wikic.context import VaultContext  # noqa: E402
from wikic.export.site import export_site  # noqa: E402

PAGE = "entities/chroma.html"
SETTLE = 1.0  # seconds for a layout or a popup to finish moving before the picture is taken


def _open(driver: Any, page: Path) -> None:
    driver.get(page.as_uri())
    for _ in range(100):
        if driver.execute_script("return document.readyState") == "complete":
            break
        time.sleep(0.05)
    time.sleep(SETTLE)


def shoot(out: Path) -> list[Path]:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="wikic-shots-") as scratch:
        vault = Path(scratch) / "example-vault"
        shutil.copytree(REPO / "example-vault", vault, ignore=shutil.ignore_patterns(".wikic"))
        site = Path(scratch) / "site"
        with VaultContext(vault) as context:
            export_site(context, site)
        with headless_chromium(1280, 860) as driver:
            _open(driver, site / PAGE)
            cite = next(c for c in driver.find_elements(By.CSS_SELECTOR, "a.cite")
                        if c.is_displayed() and "-" in (c.get_attribute("data-lines") or ""))
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cite)
            ActionChains(driver).move_to_element(cite).perform()
            time.sleep(SETTLE)
            written.append(out / "site-page.png")
            driver.save_screenshot(str(written[-1]))
            cite.click()  # the site's own script opens the source at the cited lines, highlighted
            time.sleep(SETTLE)
            written.append(out / "site-raw.png")
            driver.save_screenshot(str(written[-1]))
            _open(driver, site / "graph.html")
            written.append(out / "site-graph.png")
            driver.save_screenshot(str(written[-1]))
            errors = console_errors(driver)
            if errors:
                raise SystemExit("the site logged errors:\n" + "\n".join(errors))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img", help="where the PNG files go")
    args = parser.parse_args(argv)
    for path in shoot(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
