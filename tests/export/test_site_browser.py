"""The static site in a real browser: the example vault exported (`wikic export site`) and opened, from disk and
from a static server on loopback, in headless Chromium (`tools/browser.py`: Debian's chromium and
chromium-driver, which .ci/run installs; without them these tests fail, saying so). Every link of every page
leads to a file of the site, and a link's `#fragment` to an element of that page; hovering a citation shows
the raw lines it cites, and following it opens the source at those lines, highlighted; the graph draws its
nodes; the search box finds a page by an alias; no page logs an error or loads anything from outside the
site."""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit
from urllib.request import url2pathname

import pytest

from tools.browser import console_errors, headless_chromium
from wikic.context import VaultContext
from wikic.export.site import export_site

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "example-vault"
ALIAS = "Elephant tusk"  # given to entities/pgvector.md in the copy: no word of it is in its title, lead or text
WAIT = 10.0  # seconds a page's script gets to show what is asked (it takes milliseconds)

_PAGE_FACTS = """
return {
  links: Array.from(document.querySelectorAll('a[href]'), a => a.href),
  ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
  loaded: performance.getEntriesByType('resource').map(r => r.name),
};
"""


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser") / "example-vault"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".wikic"))
    page = root / "entities" / "pgvector.md"
    text = page.read_text(encoding="utf-8")
    assert not [word for word in ALIAS.casefold().split() if word in text.casefold()]
    page.write_text(text.replace("\ntitle: pgvector\n", f"\ntitle: pgvector\naliases: [{ALIAS}]\n", 1),
                    encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def site(vault: Path) -> Path:
    out = vault.parent / "site"
    with VaultContext(vault) as context:
        export_site(context, out)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


def _until(driver: Any, shown: Callable[[Any], Any]) -> Any:
    """What `shown` returns once it is truthy, within WAIT seconds (an element a script redrew meanwhile is
    looked for again)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(shown)


def _open(driver: Any, page: Path) -> None:
    driver.get(page.as_uri())
    _until(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def _file_of(url: str) -> Path:
    return Path(url2pathname(unquote(urlsplit(url).path)))


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site on a static web server on loopback, for the time of the module: its address."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _in_site(site: Path, base: str, url: str) -> Path | None:
    """The file of the site at `url`, when `url` is one of the site's (served from `base`)."""
    parts, home = urlsplit(url), urlsplit(base)
    folder = unquote(home.path).rstrip("/") + "/"
    path = unquote(parts.path)
    if (parts.scheme, parts.netloc) != (home.scheme, home.netloc) or not path.startswith(folder):
        return None
    return site / path[len(folder):]


@pytest.mark.parametrize("over", ["file", "http"])
def test_every_link_of_every_page_resolves_and_no_page_logs_an_error(
    site: Path, browser: Any, request: pytest.FixtureRequest, over: str
) -> None:
    base = site.as_uri() if over == "file" else request.getfixturevalue("served")
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 19 + 5 + 2  # the example vault's pages, its raw sources, index and graph at least
    ids: dict[Path, set[str]] = {}
    links: list[tuple[Path, str]] = []
    errors: list[str] = []
    outside: list[str] = []
    console_errors(browser)  # what an earlier page left
    for page in pages:
        name = page.relative_to(site).as_posix()
        browser.get(f"{base}/{quote(name)}")
        _until(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        facts = browser.execute_script(_PAGE_FACTS)
        ids[page] = set(facts["ids"])
        links += [(page, href) for href in facts["links"]]
        # every page names its icon: the browser asks the server for no /favicon.ico of its own
        errors += [f"{name}: {message}" for message in console_errors(browser)]
        outside += [f"{name} loads {url}" for url in facts["loaded"] if _in_site(site, base, url) is None]
    assert errors == []
    assert outside == []  # every asset is in the site: nothing from the network, nothing from elsewhere on disk
    assert len(links) > 200
    broken: list[str] = []
    for page, href in links:
        parts = urlsplit(href)
        target = _in_site(site, base, href)
        if target is None and parts.scheme in ("http", "https", "mailto"):
            continue  # a page's own link to the web (the example vault has none to follow)
        where = f"{page.relative_to(site)} -> {href}"
        if target is None or not target.is_file():
            broken.append(f"{where}: no such file in the site")
        elif parts.fragment and unquote(parts.fragment) not in ids.get(target, set()):
            broken.append(f"{where}: no element with that id")
    assert broken == []


def _raw_lines(vault: Path, source: str, lines: str) -> list[str]:
    first, _, last = lines.partition("-")
    text = (vault / source).read_text(encoding="utf-8").split("\n")
    return text[int(first) - 1 : int(last or first)]


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text)).casefold()


def _shows_its_lines(driver: Any, vault: Path, cite: Any) -> None:
    """Hovering `cite` shows a popup holding every word of the raw lines it cites."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    source, lines = cite.get_attribute("data-source"), cite.get_attribute("data-lines")
    assert source and source.startswith("raw/") and re.fullmatch(r"\d+(?:-\d+)?", lines or "")
    assert not [e for e in driver.find_elements(By.CSS_SELECTOR, ".evidence") if e.is_displayed()]
    ActionChains(driver).move_to_element(cite).perform()
    shown = _until(driver, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".evidence") if e.is_displayed()])
    said = _words(" ".join(e.text for e in shown))
    quoted = [_words(line) for line in _raw_lines(vault, source, lines) if _words(line)]
    assert quoted and all(line in said for line in quoted), (said, quoted)
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()  # away: it goes
    _until(driver, lambda d: not [e for e in d.find_elements(By.CSS_SELECTOR, ".evidence") if e.is_displayed()])


@pytest.mark.parametrize("page", ["entities/chroma.html", "concepts/vector-search.html"])
def test_hovering_a_citation_shows_the_lines_it_cites(site: Path, vault: Path, browser: Any, page: str) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, site / page)
    cites = [c for c in browser.find_elements(By.CSS_SELECTOR, "a.cite") if c.is_displayed()]
    assert cites, f"{page} shows no citation"
    _shows_its_lines(browser, vault, cites[-1])  # one further down the page than the lead's
    assert console_errors(browser) == []


def test_a_claim_in_the_folded_claims_callout_shows_its_lines_once_unfolded(
    site: Path, vault: Path, browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, site / "entities" / "chroma.html")
    callout = browser.find_element(By.CSS_SELECTOR, "details.callout")
    cite = callout.find_element(By.CSS_SELECTOR, "a.cite")
    assert callout.get_attribute("open") is None and not cite.is_displayed()  # folded, as Obsidian shows it
    callout.find_element(By.CSS_SELECTOR, "summary").click()
    _until(browser, lambda d: cite.is_displayed())
    _shows_its_lines(browser, vault, cite)
    assert console_errors(browser) == []


def test_a_citation_opens_its_source_at_those_lines_highlighted(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, site / "entities" / "chroma.html")
    cite = next(c for c in browser.find_elements(By.CSS_SELECTOR, "a.cite")
                if c.is_displayed() and "-" in (c.get_attribute("data-lines") or ""))
    first, last = (int(n) for n in cite.get_attribute("data-lines").split("-"))
    raw = site / (cite.get_attribute("data-source")[: -len(".md")] + ".html")
    cite.click()
    _until(browser, lambda d: _file_of(d.current_url) == raw)
    lit = _until(browser, lambda d: [e.get_attribute("id") for e in d.find_elements(By.CSS_SELECTOR, ".line.hit")])
    assert lit == [f"L{n}" for n in range(first, last + 1)]
    assert browser.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight;", f"L{first}")
    assert console_errors(browser) == []


def test_the_graph_draws_every_page(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, site / "graph.html")
    painted = _until(browser, lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('#graph canvas')).some(c => {"
        "  if (!c.width || !c.height) return false;"
        "  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "  for (let i = 3; i < px.length; i += 4) if (px[i]) return true;"
        "  return false; })"))
    assert painted
    drawn, nodes = browser.execute_script(
        "return [document.getElementById('graph').getAttribute('data-drawn'), window.WIKIC_GRAPH.nodes.length]")
    assert int(drawn) == nodes >= 19  # every page of the example vault a node
    # no page is around the whole graph: no sidebar of empty lists, the graph as wide as the page
    assert not browser.find_element(By.CSS_SELECTOR, "aside.around").is_displayed()
    assert browser.execute_script("return document.getElementById('graph').getBoundingClientRect().width "
                                  "> 0.9 * document.documentElement.clientWidth")
    _open(browser, site / "entities" / "chroma.html")  # and a page's own neighbourhood
    assert int(_until(browser, lambda d: d.find_element(By.ID, "neighbourhood").get_attribute("data-drawn"))) >= 2
    assert console_errors(browser) == []


def test_search_finds_a_page_by_its_alias(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    target = site / "entities" / "pgvector.html"

    def to_target(d: Any) -> list[Any]:
        return [a for a in d.find_elements(By.CSS_SELECTOR, "a[href]")
                if a.is_displayed() and _file_of(a.get_attribute("href")) == target]

    _open(browser, site / "entities" / "chroma.html")  # it links pgvector itself: a result is a link it had not
    before = {a.id for a in to_target(browser)}
    box = browser.find_element(By.CSS_SELECTOR, "input[type=search]")
    box.send_keys(ALIAS)
    found = _until(browser, lambda d: [a for a in to_target(d) if a.id not in before])
    found[0].click()
    _until(browser, lambda d: _file_of(d.current_url) == target)
    assert console_errors(browser) == []
