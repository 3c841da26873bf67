"""The helpers every test folder shares, imported by name (`from testkit import make_vault, page`); the
fixtures of tests/conftest.py bind them to a test's tmp_path.

- `make_vault(tmp_path, files)` writes a vault from a dict, with the README's SCHEMA.md; `page(title, ...)`
  writes a page with valid frontmatter; `index_text(paths)` an index.md listing them.
- `init_wiki(root, ...)` makes a vault as `wikic init` does (the packaged template), with the thresholds, tags
  and wikic.toml a test asks for; `llm_toml(...)` writes the `[llm]` table, the stand-in model's by default.
- `test_seed()` is a randomised test's seed; `live_endpoint()` the live tier's endpoint.
"""

from __future__ import annotations

import gc
import os
import posixpath
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

# Read before any fixture clears WIKIC_*: `WIKIC_TEST_SEED=N` replays a randomised test's choices.
_TEST_SEED = os.environ.get("WIKIC_TEST_SEED")
# The live tier's endpoint, read before the fixtures clear it for every other test.
_LIVE_ENV = {
    name: os.environ.get(name, "")
    for name in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_API_KEY")
}

# The Hypothesis profile (tests/conftest.py registers them), read here for `test_seed`.
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")

def test_seed() -> int:
    """The seed of a randomised test: `WIKIC_TEST_SEED` when set (a replay); under the `ci` profile one fixed
    by the test's name, as Hypothesis derandomizes there, so CI makes the same choices on every run; else a
    new one. Tests put it in their failure messages, so a failing run can be replayed exactly."""
    if _TEST_SEED is not None:
        return int(_TEST_SEED)
    if PROFILE == "ci":
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


def init_wiki(
    root: Path,
    *,
    min_references: int | None = None,
    tags: Iterable[str] = (),
    schema: Mapping[str, str] | None = None,
    toml: str | None = None,
) -> Path:
    """A vault as `wikic init` makes it at `root` (its SCHEMA.md, index.md and folders), shaped for a test.

    `min_references` sets the template's `entity_min_references: 2`; `tags` are added to its taxonomy after
    `#tool`; `schema` maps other text of SCHEMA.md to what replaces it; `toml` is written as wikic.toml
    (`llm_toml` writes its `[llm]` table).
    """
    from wikic.vault.init import init_vault

    init_vault(root)
    edits = dict(schema or {})
    if min_references is not None:
        edits["entity_min_references: 2"] = f"entity_min_references: {min_references}"
    added = "".join(f"- #{tag}\n" for tag in tags)
    if added:
        edits["- #tool\n"] = "- #tool\n" + added
    if edits:
        path = root / "SCHEMA.md"
        text = path.read_text(encoding="utf-8")
        for old, new in edits.items():
            assert old in text, f"the SCHEMA.md of `wikic init` has no {old!r}"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    if toml is not None:
        (root / "wikic.toml").write_text(toml, encoding="utf-8")
    return root


def llm_toml(standin: str | None = None, **fields: str | int | bool) -> str:
    """wikic.toml's `[llm]` table: with `standin` (a base URL), the stand-in model there (`standin-model`, a 5 s
    timeout, no retries), then `fields` in their order (each overriding those), as TOML values."""
    table: dict[str, str | int | bool] = {}
    if standin is not None:
        table = {"base_url": standin, "model": "standin-model", "timeout": 5, "max_retries": 0}
    table.update(fields)
    lines = ["[llm]"]
    for key, value in table.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key} = {value}")
        else:
            lines.append(f'{key} = "{value}"')
    return "\n".join(lines) + "\n"


def growth(small: Callable[[], object], large: Callable[[], object], reps: int = 5) -> float:
    """How many times the CPU time of `large` is that of `small`: the least of `reps` runs of each, the runs
    taken in turn and the garbage collector off while one runs. On two shared cores a run's CPU time doubles
    while the other hyperthread of its core is busy, and a collection walks every object the whole test
    session holds: both come and go, so the two sizes are measured under the same conditions, side by side."""
    best_small = best_large = float("inf")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(reps):
            for fn, which in ((small, "small"), (large, "large")):
                started = time.process_time()
                fn()
                took = time.process_time() - started
                if which == "small":
                    best_small = min(best_small, took)
                else:
                    best_large = min(best_large, took)
    finally:
        if enabled:
            gc.enable()
    return best_large / max(best_small, 1e-4)


class TimedVault:
    """A vault changed file by file, each write with an mtime of its own (two writes within one clock tick
    would otherwise look alike), linted as of `today` with its caches kept and without."""

    def __init__(self, root: Path, today: Any) -> None:
        self.root = root
        self.today = today
        self.clock = 1_800_000_000_000_000_000

    def write(self, path: str, text: str) -> None:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        self.clock += 1_000_000_000
        os.utime(file, ns=(self.clock, self.clock))

    def remove(self, path: str) -> None:
        (self.root / path).unlink(missing_ok=True)

    def read(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def lint(self, *, cache: bool) -> list[dict[str, object]]:
        from library import run_lint

        from wikic.lint.run import LintOptions

        return [f.to_dict() for f in run_lint(self.root, LintOptions(use_cache=cache, today=self.today)).findings]

    def same_as_cold(self) -> list[dict[str, object]]:
        """The findings of a lint with the caches kept, asserted to be a cold lint's."""
        warm = self.lint(cache=True)
        assert warm == self.lint(cache=False)
        return warm
