"""The prompt does not grow with the wiki, and --max-tokens stops cleanly.

The model is told about a capped list of relevant existing pages (`MAX_CONTEXT_PAGES`), never the whole
wiki: the same source costs about the same prompt in a 10-page wiki and in a 300-page one, however many
of the wiki's pages it names. A token budget stops scheduling sources once it is spent; the sources it
did not reach are reported `over-budget`, nothing is written for them, and a later run compiles them.

Token counts are wikic's offline estimate of the request the stand-in server received.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from library import ingest
from scripted import entity, fact, plan
from standin_openai import StandinServer
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app
from wikic.ingest.pipeline import MAX_CONTEXT_PAGES, IngestOptions
from wikic.text.tokens import estimate_messages

# Pages the source names (and so should be told about), and what it says about them.
NAMED = ["Acorn DB", "Kestrel Router", "Harbor Labs", "Mira Okafor"]
SOURCE = """# Pilot notes

Acorn DB handled 1,240 requests per second in the pilot.
Kestrel Router sent 31% of traffic to the small model.
Harbor Labs staffed four engineers on the pilot.
Mira Okafor reviewed the rollout plan in week two.
The pilot ended with a decision to keep both systems.
"""

BRANDS = [
    "alder", "amber", "anvil", "apex", "aria", "aster", "atlas", "basalt", "beacon", "birch", "bolt", "cairn", "calyx",
    "cedar", "cinder", "cobalt", "comet", "copper", "coral", "crest",
]
KINDS = [
    "store", "embedder", "agent", "server", "planner", "notebook", "graph", "engine", "pipeline", "loader", "retriever",
    "scheduler", "monitor", "proxy", "linter",
]


def _fillers(count: int) -> list[str]:
    """Titles of pages the source does not name."""
    titles = [f"{b.title()} {k.title()}" for b in BRANDS for k in KINDS]
    assert count <= len(titles)
    return titles[:count]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _vault(root: Path, server: StandinServer, titles: list[str]) -> Path:
    """A vault holding one valid entity page per title, all listed in index.md."""
    # strategy single: one request per source, so what the model is told is what is tested; compose = false: no
    # page composed after, so the extraction requests are the ones counted
    llm = llm_toml(server.base_url, timeout=10, concurrency=2, strategy="single", compose=False)
    init_wiki(root, toml=llm + '\n[embedding]\nprovider = "static"\n')
    (root / "raw/articles/seed.md").write_text("# Seed\n\nThe pages below cite this file.\n", encoding="utf-8")
    entries = []
    for title in titles:
        slug = _slug(title)
        summary = f"{title}, a system used by the platform team."
        (root / f"entities/{slug}.md").write_text(
            f"---\ntitle: {title}\ncreated: 2026-09-01\nupdated: 2026-09-02\ntype: entity\ntags: [tool]\n"
            f"sources:\n  - raw/articles/seed.md\nsummary: {summary}\n---\n\n"
            f"# {title}\n\n{summary} ^[raw/articles/seed.md:L3]\n",
            encoding="utf-8",
        )
        entries.append(f"- [[{slug}]] — {summary}")
    index = (root / "index.md").read_text(encoding="utf-8")
    (root / "index.md").write_text(
        index.replace("## Entities\n", "## Entities\n" + "\n".join(entries) + "\n", 1), encoding="utf-8"
    )
    return root


def _source_text(body: dict[str, Any]) -> str:
    match = re.search(r"<<<SOURCE (\w+)>>>\n(.*?)<<<END SOURCE \1>>>", body["messages"][-1]["content"], re.DOTALL)
    assert match, "the request carries the source between its markers"
    return match.group(2)


def route(body: dict[str, Any]) -> dict[str, Any]:
    """A faithful plan: one entity per line that starts with a capitalised name, quoting that line."""
    entities = []
    for line in _source_text(body).splitlines():
        m = re.match(r"((?:[A-Z][\w-]*\s){1,2})(?:handled|sent|staffed|reviewed|is|was)\b", line)
        if m:
            name = m.group(1).strip()
            entities.append(entity(name, "product", f"{name} in the pilot.", [fact(line, line)]))
    return plan("Pilot notes.", entities[:12])


def _listed(body: dict[str, Any]) -> list[str]:
    """The existing-page titles a request told the model about."""
    user = body["messages"][-1]["content"]
    _, _, rest = user.partition("(use these exact names when you mean the same thing):\n")
    return [line[2:] for line in rest.split("\n\n", 1)[0].splitlines() if line.startswith("- ")]


def _ingest_once(
    tmp_path: Path, name: str, titles: list[str], source: str, use_palace: bool, pages: dict[str, str] | None = None
) -> tuple[dict[str, Any], Any]:
    """Ingest `source` into a fresh vault holding `titles` (and `pages`, path -> text); the one request the
    server got, and the report."""
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path / name, server, titles)
        for path, text in (pages or {}).items():
            (root / path).write_text(text, encoding="utf-8")
        if use_palace:
            from library import sync

            sync(root)
        src = tmp_path / f"{name}-source.md"
        src.write_text(source, encoding="utf-8")
        report = ingest(root, IngestOptions(inputs=[str(src)], use_palace=use_palace, lint_after=False))
        requests = server.chat_requests()
    assert report.sources[0].status == "compiled", report.sources[0].error
    assert len(requests) == 1
    return requests[0].body, report


@pytest.mark.parametrize(("use_palace", "large"), [(False, 300), (True, 40)], ids=["names", "palace"])
def test_prompt_does_not_grow_with_the_wiki(tmp_path: Path, use_palace: bool, large: int) -> None:
    # The palace answers at most MAX_CONTEXT_PAGES // 2 hits, so 40 pages already saturate it.
    small_body, small = _ingest_once(tmp_path, "small", NAMED + _fillers(10 - len(NAMED)), SOURCE, use_palace)
    large_body, big = _ingest_once(tmp_path, "large", NAMED + _fillers(large - len(NAMED)), SOURCE, use_palace)

    small_tokens = estimate_messages(small_body["messages"])
    large_tokens = estimate_messages(large_body["messages"])
    assert large_tokens <= 1.2 * small_tokens, (small_tokens, large_tokens)
    for body, report in ((small_body, small), (large_body, big)):
        listed = _listed(body)
        assert set(NAMED) <= set(listed)  # the pages the source names are always there
        assert len(listed) == report.sources[0].context_pages <= MAX_CONTEXT_PAGES
    # the pages the source names are updated in both wikis, nothing else is touched
    assert (
        sorted(small.sources[0].updated)
        == sorted(big.sources[0].updated)
        == sorted(f"entities/{_slug(n)}.md" for n in NAMED)
    )


@pytest.mark.parametrize("use_palace", [False, True], ids=["names", "palace"])
def test_listed_pages_are_capped_when_the_source_names_many(tmp_path: Path, use_palace: bool) -> None:
    titles = _fillers(MAX_CONTEXT_PAGES + 30)
    source = "# Inventory\n\n" + "".join(f"{t} is one of the systems in the inventory.\n" for t in titles)
    body, report = _ingest_once(tmp_path, "many", titles, source, use_palace)
    listed = _listed(body)
    assert 0 < len(listed) <= MAX_CONTEXT_PAGES
    assert len(set(listed)) == len(listed) and set(listed) <= set(titles)
    assert report.sources[0].context_pages == len(listed)


def test_a_page_named_and_a_page_close_in_meaning_are_listed_with_the_search_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source's palace search reads the postings of its rarest terms only (`SEARCH_POSTINGS`, so that its
    cost does not grow with the wiki). Bounded far below what its common words' postings hold here, the
    prompt still lists the pages the source names and a page close to it in meaning that it does not name."""
    from wikic.ingest import pipeline
    from wikic.palace.manifest import Manifest

    monkeypatch.setattr(pipeline, "SEARCH_POSTINGS", 24)
    bounds: list[int | None] = []
    lexical = Manifest.lexical

    def spy(self: Manifest, query: str, allowed: Any = None, *, postings: int | None = None) -> Any:
        bounds.append(postings)
        return lexical(self, query, allowed, postings=postings)

    monkeypatch.setattr(Manifest, "lexical", spy)
    close = (
        "---\ntitle: Lumen Fabric\ncreated: 2026-09-01\nupdated: 2026-09-02\ntype: entity\ntags: [tool]\n"
        "sources:\n  - raw/articles/seed.md\nsummary: A photonic interconnect.\n---\n\n# Lumen Fabric\n\n"
        "Lumen Fabric is a photonic interconnect whose wafers are bonded at a high yield. ^[raw/articles/seed.md:L3]\n"
    )
    source = SOURCE + "The photonic interconnect bonded its wafers at a record yield, as the systems team hoped.\n"
    body, report = _ingest_once(tmp_path, "bounded", NAMED + _fillers(60), source, True,
                                {"entities/lumen-fabric.md": close})
    listed = _listed(body)
    assert bounds == [24]  # the search was bounded: "system", on every page, is not read
    assert {*NAMED, "Lumen Fabric"} <= set(listed)
    assert len(listed) == report.sources[0].context_pages <= MAX_CONTEXT_PAGES


def test_an_ingest_whose_caller_holds_the_palace_lock_finishes(tmp_path: Path) -> None:
    """The MCP server's ingest tool holds its context's palace lock for the whole run, while the run's workers
    search the palace for their sources: they must not wait for that lock."""
    import threading

    from library import sync

    from wikic.context import VaultContext

    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path / "held", server, NAMED + _fillers(20))
        sync(root)
        inputs = []
        for n in range(4):
            path = tmp_path / f"note-{n}.md"
            path.write_text(SOURCE.replace("1,240", f"1,24{n}"), encoding="utf-8")
            inputs.append(str(path))
        context = VaultContext(root)
        reports = []

        def caller() -> None:
            with context.palace_lock:
                reports.append(ingest(context, IngestOptions(inputs=inputs, lint_after=False)))

        thread = threading.Thread(target=caller, daemon=True)
        thread.start()
        thread.join(timeout=120)
        assert not thread.is_alive(), "the run's workers waited for the lock their caller holds"
        context.close()
    assert [s.status for s in reports[0].sources] == ["compiled"] * 4


def test_the_label_index_finds_what_a_scan_of_every_label_finds() -> None:
    """The run's index of page labels answers as looking for every label in the text did: a label of three
    characters or more found anywhere in the text, case aside, the first pages in the labels' order."""
    import random

    from wikic.vault.names import LabelIndex

    rng = random.Random(7)
    words = ["acorn", "db", "kes", "trel", "router", "harbor", "labs", "mi", "ra", "ok", "afor", "ÉTÉ", "Straße"]
    labels = {f"entities/p{n}.md": [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
              for n in range(300)}
    index = LabelIndex(labels)
    for _ in range(200):
        text = " ".join(rng.choice(words).upper() if rng.random() < 0.2 else rng.choice(words) for _ in range(12))
        limit = rng.choice([1, 5, 20, 400])
        low = text.lower()
        scan = [p for p, found in labels.items() if any(len(x) > 2 and x.lower() in low for x in found)][:limit]
        assert index.named_in(text, limit) == scan


def test_max_tokens_stops_scheduling_further_sources(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route  # the stand-in reports 12 prompt + 8 completion tokens per call
        root = _vault(tmp_path / "wiki", server, NAMED)
        (root / "SCHEMA.md").write_text(
            (root / "SCHEMA.md")
            .read_text(encoding="utf-8")
            .replace("entity_min_references: 2", "entity_min_references: 1"),
            encoding="utf-8",
        )
        inbox = tmp_path / "inbox"
        inbox.mkdir()
        paths = []
        for i, name in enumerate(["Basalt Queue", "Quartz Index", "Osprey Gateway", "Tundra Cache"], start=1):
            path = inbox / f"note-{i}.md"
            path.write_text(f"# Note {i}\n\n{name} handled {i * 100} requests per second.\n", encoding="utf-8")
            paths.append(str(path))

        runner = CliRunner()
        result = runner.invoke(
            app, ["ingest", *paths, "--vault", str(root), "--no-palace", "--json", "--max-tokens", "30", "-j", "4"]
        )
        assert result.exit_code == 1, result.output  # sources were left for a later run
        data = json.loads(result.stdout)
        statuses = [s["status"] for s in data["sources"]]
        # 20 tokens after the first source (< 30): a second starts; 40 after it: no third
        assert statuses == ["compiled", "compiled", "over-budget", "over-budget"]
        assert len(server.chat_requests()) == 2
        assert data["totals"]["prompt_tokens"] + data["totals"]["completion_tokens"] == 40
        skipped = [s for s in data["sources"] if s["status"] == "over-budget"]
        assert all(s["created"] == [] and s["updated"] == [] and s["calls"] == 0 for s in skipped)

        # nothing is written for the skipped sources: no page, no log row, no ledger entry
        assert (root / "entities/basalt-queue.md").exists() and (root / "entities/quartz-index.md").exists()
        assert not (root / "entities/osprey-gateway.md").exists() and not (root / "entities/tundra-cache.md").exists()
        log = (root / "log.md").read_text(encoding="utf-8")
        assert log.count("| ingest |") == 2
        ledger = json.loads((root / ".wikic/compiled.json").read_text(encoding="utf-8"))["sources"]
        # the seeded page's own source is read back from the page that cites it (no ledger came with it)
        assert sorted(k for k, v in ledger.items() if not v.get("rebuilt")) == sorted(
            s["raw_path"] for s in data["sources"][:2]
        )
        for s in skipped:
            assert s["raw_path"] not in log

        # a later run without a budget compiles exactly the sources the budget left out
        again = runner.invoke(app, ["ingest", *paths, "--vault", str(root), "--no-palace", "--json"])
        assert again.exit_code == 0, again.output
        statuses = [s["status"] for s in json.loads(again.stdout)["sources"]]
        assert statuses == ["unchanged", "unchanged", "compiled", "compiled"]
        assert len(server.chat_requests()) == 4
        assert (root / "entities/osprey-gateway.md").exists() and (root / "entities/tundra-cache.md").exists()
