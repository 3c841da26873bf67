"""Fixtures and helpers shared by every test folder.

- An autouse fixture gives each test its own HOME and removes WIKIC_* and OPENAI_* variables, so a
  developer's settings, keys or endpoints never leak into a test.
- `make_vault(tmp_path, files)` writes a vault from a dict; `page(title, ...)` writes a page with valid
  frontmatter. Test modules use them as fixtures (`make_vault`, `page`) or, for module-level tables,
  import them: `from testkit import make_vault, page` (conftest modules cannot be imported by name, so
  this module registers itself as `testkit`).
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import typer.testing
import yaml
from hypothesis import HealthCheck, settings

# Read before any fixture clears WIKIC_*: `WIKIC_TEST_SEED=N` replays a randomised test's choices.
_TEST_SEED = os.environ.get("WIKIC_TEST_SEED")
# The live tier's endpoint, read before the fixtures clear it for every other test.
_LIVE_ENV = {
    name: os.environ.get(name, "")
    for name in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_API_KEY")
}

# Hypothesis: `ci` (what .ci/run uses) is derandomized (which also means no example database), so CI never
# fails on an example no one can replay; `dev` (the default) explores new examples each run and replays the
# ones that failed before; `long` is for a thorough local run.
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile(
    "long", max_examples=20_000, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(_PROFILE)


# typer's CliRunner turns the app into a click command on every invoke, reading every command's signature
# again (about 50 ms for wikic's); the suite invokes the CLI hundreds of times, so each app is turned once.
# A click command holds no state between runs, as when `wikic` itself runs once per process.
typer.testing._get_command = functools.cache(typer.testing._get_command)


def test_seed() -> int:
    """The seed of a randomised test: `WIKIC_TEST_SEED` when set (a replay); under the `ci` profile one fixed
    by the test's name, as Hypothesis derandomizes there, so CI makes the same choices on every run; else a
    new one. Tests put it in their failure messages, so a failing run can be replayed exactly."""
    if _TEST_SEED is not None:
        return int(_TEST_SEED)
    if _PROFILE == "ci":
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]  # "path::name (call)"
        return zlib.crc32(test.encode("utf-8")) % 100_000
    return time.time_ns() % 100_000


test_seed.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test

PAGE_FOLDERS = {"entities": "entity", "concepts": "concept", "comparisons": "comparison", "queries": "query"}
SECTION_TITLES = {"entity": "Entities", "concept": "Concepts", "comparison": "Comparisons", "query": "Queries"}

# The SCHEMA.md format the README describes.
DEFAULT_SCHEMA = """\
# Wiki Schema
## Domain
AI Engineering & Knowledge Management
## Taxonomy Tags
- #architecture
- #rag
- #tooling
## Page Thresholds
- entity_min_references: 2
- concept_min_sections: 3
- comparison_min_axes: 3
- query_max_age_days: 90
## Naming Convention
- lowercase-with-hyphens.md
"""

# Two raw sources every vault made with `make_vault` holds (unless `raw=False`); `page()` cites them.
DEFAULT_SOURCES = ("raw/articles/source-a.md", "raw/articles/source-b.md")
DEFAULT_RAW = {
    "raw/articles/source-a.md": "---\ntitle: Source A\ncaptured: 2026-01-01\n---\n\n# Source A\n\nFirst source.\n",
    "raw/articles/source-b.md": "---\ntitle: Source B\ncaptured: 2026-01-01\n---\n\n# Source B\n\nSecond source.\n",
}

_DEFAULT_BODIES = {
    "concept": "## One\n\nText.\n\n## Two\n\nText.\n\n## Three\n\nText.\n",
    "comparison": (
        "| Axis | A | B |\n|---|---|---|\n| speed | fast | slow |\n| cost | low | high |\n| setup | easy | hard |\n"
    ),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The live tier talks to a real model: it runs when a `-m` expression asks for it (`-m live`) and is
    deselected, not skipped, in every other run (the default one, `-m "not slow"`, ...)."""
    if re.search(r"(?<!not )\blive\b", config.getoption("markexpr") or ""):
        return
    live = [item for item in items if item.get_closest_marker("live")]
    if live:
        items[:] = [item for item in items if not item.get_closest_marker("live")]
        config.hook.pytest_deselected(items=live)


def live_endpoint() -> dict[str, str]:
    """The real endpoint's settings (`WIKIC_LLM_*`, `OPENAI_API_KEY`) for a live test; with none set the test
    fails and says what to set."""
    if not _LIVE_ENV["WIKIC_LLM_BASE_URL"]:
        pytest.fail(
            "the live tests need a real OpenAI-compatible endpoint: set WIKIC_LLM_BASE_URL (and WIKIC_LLM_MODEL, "
            "and WIKIC_LLM_API_KEY when it needs a key), e.g. WIKIC_LLM_BASE_URL=http://localhost:11434/v1 "
            "WIKIC_LLM_MODEL=qwen2.5 python -m pytest -m live",
            pytrace=False,
        )
    return {name: value for name, value in _LIVE_ENV.items() if value}


@pytest.fixture(autouse=True)
def _isolated_env(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    _no_certificates: Path,
) -> None:
    """A fresh HOME and no WIKIC_*/OPENAI_* settings for every test; no trusted certificates but in the live
    tier."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name in list(os.environ):
        if name.startswith(("WIKIC_", "OPENAI_")):
            monkeypatch.delenv(name, raising=False)
    # Every server a test talks to is on loopback, over plain HTTP: a test trusts no certificate, so one that
    # reached for the network over TLS would fail. It also spares each HTTP client (the openai SDK makes one
    # per LLM) reading the machine's whole CA bundle, which costs the suite seconds. The live tier talks to a
    # real endpoint, perhaps over https, and keeps the machine's certificates.
    if request.node.get_closest_marker("live") is None:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.setenv("SSL_CERT_DIR", str(_no_certificates))


@pytest.fixture(scope="session")
def _no_certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty certificate folder: the trust store of every test but the live ones."""
    return tmp_path_factory.mktemp("no-certificates")


def page(
    title: str | None,
    type: str | None = "entity",
    tags: Iterable[str] | None = ("architecture",),
    sources: Iterable[str] | None = DEFAULT_SOURCES,
    body: str | None = None,
    *,
    created: str | None = "2026-01-01",
    updated: str | None = "2026-01-02",
    **extra: Any,
) -> str:
    """The text of a wiki page with valid frontmatter (docs/vault-format.md). A field given as None is left out.

    Extra keyword arguments become more frontmatter keys (`summary=`, `aliases=[...]`, `contested=True`,
    `contradictions=["[[x]]"]`). Without `body`, the body is a heading plus what the page type needs to
    meet the default thresholds (three `##` sections for a concept, a three-row table for a comparison).
    """
    fields: dict[str, Any] = {"title": title, "created": created, "updated": updated, "type": type}
    fields["tags"] = tags if tags is None or isinstance(tags, str) else list(tags)
    fields["sources"] = sources if sources is None or isinstance(sources, str) else list(sources)
    fields.update(extra)
    lines = ["---"]
    for key, value in fields.items():
        if value is None:
            continue
        if key in ("created", "updated") and isinstance(value, str):
            lines.append(f"{key}: {value}")  # unquoted, so YAML reads a date
        else:
            dumped = yaml.safe_dump(
                {key: value}, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
            )
            lines.append(dumped.rstrip("\n"))
    lines.append("---")
    if body is None:
        body = f"# {title or 'Untitled'}\n\n" + _DEFAULT_BODIES.get(type or "", "Some text.\n")
    return "\n".join(lines) + "\n\n" + body


def index_text(paths: Iterable[str]) -> str:
    """index.md (docs/vault-format.md) listing the given pages, each by its bare name when that is unique."""
    pages = sorted(p for p in paths if p.endswith(".md") and p.split("/", 1)[0] in PAGE_FOLDERS and "/" in p)
    stems = [posixpath.basename(p)[:-3].lower() for p in pages]
    out = ["# Wiki Index", ""]
    for folder, kind in PAGE_FOLDERS.items():
        out.append(f"## {SECTION_TITLES[kind]}")
        for p in pages:
            if p.split("/", 1)[0] == folder:
                stem = posixpath.basename(p)[:-3]
                link = stem if stems.count(stem.lower()) == 1 else p[:-3]
                out.append(f"- [[{link}]] — {stem}")
    return "\n".join(out) + "\n"


def make_vault(
    tmp_path: Path,
    files: Mapping[str, str | bytes],
    schema: bool | str = True,
    *,
    index: bool | str = True,
    raw: bool = True,
    name: str = "vault",
) -> Path:
    """Write a vault under `tmp_path/name` and return its folder.

    `files` maps vault-relative paths to text (written as UTF-8) or bytes (written as they are).
    `schema`: True writes DEFAULT_SCHEMA, a string writes that text, False writes no SCHEMA.md (a plain
    Obsidian vault; then no index.md or raw sources are added either). `index`: True writes an index.md
    listing every page in `files` (unless `files` has one), a string writes that text, False none.
    `raw`: add the DEFAULT_RAW sources that `page()` cites.
    """
    root = tmp_path / name
    n = 1
    while root.exists():
        n += 1
        root = tmp_path / f"{name}{n}"
    root.mkdir(parents=True)
    everything: dict[str, str | bytes] = {}
    if schema is not False:
        everything["SCHEMA.md"] = DEFAULT_SCHEMA if schema is True else schema
        if raw:
            everything.update(DEFAULT_RAW)
        if index is True:
            everything["index.md"] = index_text(files)
        elif isinstance(index, str):
            everything["index.md"] = index
    everything.update(files)
    for rel, content in everything.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
    return root


def palace_drawer_problems(palace: Any) -> list[str]:
    """Where an open palace's drawers differ from those its vault's files cut into now: both stores must hold
    exactly these, each file's and no other (what a palace indexed from scratch would hold)."""
    from wikic.palace.chunking import chunk_document
    from wikic.palace.sources import read_document, scan

    expected = {
        d.id
        for source in scan(palace.vault)
        for d in chunk_document(read_document(source, source.abspath.read_bytes()), palace._budget(),
                                palace.embedder.count_tokens)
    }
    problems = []
    for name, held in (("manifest", palace.manifest.drawer_ids()), ("chroma", palace.store.all_ids())):
        if held != expected:
            problems.append(f"the {name} holds {len(held - expected)} drawers too many, {len(expected - held)} too few")
    return problems


@pytest.fixture(name="make_vault")
def make_vault_fixture(tmp_path: Path) -> Callable[..., Path]:
    """`make_vault(files, schema=True, ...)` bound to this test's tmp_path."""

    def make(files: Mapping[str, str | bytes], schema: bool | str = True, **kwargs: Any) -> Path:
        return make_vault(tmp_path, files, schema, **kwargs)

    return make


@pytest.fixture(name="page")
def page_fixture() -> Callable[..., str]:
    return page


sys.modules.setdefault("testkit", sys.modules[__name__])
