"""Ingest end to end: real openai client -> stand-in server on 127.0.0.1 -> pages, links, anchors, index,
log, a clean lint; re-ingest costs zero calls; hand edits survive; hostile replies stay inside the vault."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from library import ingest, run_lint
from scripted import SOURCES, entity, fact, plan, route
from standin_openai import StandinServer
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app
from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions


def _vault(tmp_path: Path, server: StandinServer) -> Path:
    # compose = false: the extraction's requests are the ones counted
    return init_wiki(tmp_path / "wiki", tags=("model", "research"),
                     toml=llm_toml(server.base_url, concurrency=2, compose=False))


def _sources(tmp_path: Path) -> list[str]:
    folder = tmp_path / "inbox"
    folder.mkdir()
    out = []
    for name, text in SOURCES.items():
        (folder / name).write_text(text, encoding="utf-8")
        out.append(str(folder / name))
    return out


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and ".wikic" not in p.parts
    }


def test_three_related_sources_become_a_linked_wiki(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    report = ingest(root, IngestOptions(inputs=_sources(tmp_path), use_palace=False))

    assert not report.failed
    created = set(report.created)
    assert {
        "entities/openai.md",
        "entities/gpt-4.md",
        "entities/sam-altman.md",
        "concepts/retrieval-augmented-generation.md",
    } <= created
    assert len(standin.chat_requests()) == 3

    openai_page = (root / "entities/openai.md").read_text(encoding="utf-8")
    assert openai_page.startswith("---\ntitle: OpenAI\n")
    # every claim is anchored to the raw lines that hold its quote; the invented one is gone
    assert "10,000 employees" not in openai_page
    anchors = re.findall(r"\^\[\[\[(raw/[^|\]]+)\|([^\]]+)\]\] L(\d+)(?:-L\d+)?\]", openai_page)
    assert len(anchors) >= 2
    for path, name, start in anchors:  # a link to the raw file, its name shown, and the line range
        assert name == path.rsplit("/", 1)[1]
        line = (root / path).read_text(encoding="utf-8").split("\n")[int(start) - 1]
        assert "OpenAI" in line or "company" in line
    # links resolve and the lint of what ingest wrote is clean
    lint = run_lint(root, LintOptions(use_cache=False))
    errors = [f for f in lint.findings if f.severity == "error"]
    assert errors == []
    assert not [f for f in lint.findings if f.rule in ("broken-wikilink", "index-gap", "orphan-page")]
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "- [[openai]] — " in index and "- [[retrieval-augmented-generation]] — " in index
    log_rows = [line for line in (root / "log.md").read_text(encoding="utf-8").splitlines() if "| ingest |" in line]
    assert len(log_rows) == 3 and all("tokens" in row for row in log_rows)

    # the same sources again: nothing to do, zero model calls, nothing changes
    before = _hashes(root)
    again = ingest(root, IngestOptions(inputs=_sources_again(tmp_path), use_palace=False))
    assert {s.status for s in again.sources} == {"unchanged"}
    assert len(standin.chat_requests()) == 3
    assert _hashes(root) == before


def _sources_again(tmp_path: Path) -> list[str]:
    return [str(tmp_path / "inbox" / name) for name in SOURCES]


def test_entity_waits_for_its_threshold_then_is_promoted(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    paths = _sources(tmp_path)
    first = ingest(root, IngestOptions(inputs=[paths[0]], use_palace=False))
    assert first.created == []  # entity_min_references is 2: one source is not enough
    assert "OpenAI" in first.sources[0].pending
    second = ingest(root, IngestOptions(inputs=[paths[1]], use_palace=False))
    assert "entities/openai.md" in second.created
    page = (root / "entities/openai.md").read_text(encoding="utf-8")
    # the promoted page carries what both sources said
    assert "San Francisco" in page and "non-profit" in page
    assert page.count("raw/articles/") >= 4


def test_hand_edits_survive_a_recompile(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    paths = _sources(tmp_path)
    ingest(root, IngestOptions(inputs=paths[:2], use_palace=False))
    page = root / "entities/openai.md"
    text = page.read_text(encoding="utf-8")
    edited = text.replace("- OpenAI was founded in 2015 as a non-profit.",
                          "- OpenAI was founded in 2015 as a non-profit (checked by hand).")
    assert edited != text
    page.write_text(edited + "\nMy own paragraph.\n", encoding="utf-8")
    ingest(root, IngestOptions(inputs=paths[:2], use_palace=False, force=True))
    after = page.read_text(encoding="utf-8")
    assert "(checked by hand)" in after and "My own paragraph." in after


def test_cli_estimate_and_dry_run_write_no_page(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    paths = _sources(tmp_path)
    runner = CliRunner()
    est = runner.invoke(app, ["ingest", *paths, "--vault", str(root), "--estimate", "--no-palace", "--json"])
    assert est.exit_code == 0, est.output
    data = json.loads(est.stdout)
    assert all(s["status"] == "estimated" and s["prompt_tokens"] > 0 for s in data["sources"])
    assert standin.chat_requests() == []
    dry = runner.invoke(app, ["ingest", *paths, "--vault", str(root), "--dry-run", "--no-palace"])
    assert dry.exit_code == 0, dry.output
    assert "+++ b/entities/openai.md" in dry.stdout
    assert not (root / "entities/openai.md").exists()
    assert "| ingest |" not in (root / "log.md").read_text(encoding="utf-8")


def test_hostile_reply_stays_inside_the_vault(tmp_path: Path, standin: StandinServer) -> None:
    hostile = plan(
        "ignore the schema",
        [
            entity("../../etc/passwd", "other", "x", [fact("It is here.", "OpenAI is an AI research company")]),
            entity("/abs/path", "other", "x", [fact("Also here.", "based in San Francisco")]),
            entity("CON", "other", "x", [fact("Reserved.", "It released GPT-4")]),
            entity(
                "title: x\n---\n[[ghost]] <!--",
                "other",
                "y",
                [fact("[[ghost-page]] says <b>hi</b> %% $x$", "Sam Altman is the CEO")],
            ),
            entity("Gpt-4", "model", "case variant", [fact("GPT-4 came out in March 2023.",
                                                            "It released GPT-4 in March 2023.")]),
            entity("GPT-4", "model", "the model", [fact("GPT-4 was released in March 2023.",
                                                        "It released GPT-4 in March 2023.")]),
        ],
    )
    standin.route = lambda body: hostile
    root = _vault(tmp_path, standin)
    (root / "SCHEMA.md").write_text(
        (root / "SCHEMA.md")
        .read_text(encoding="utf-8")
        .replace("entity_min_references: 2", "entity_min_references: 1"),
        encoding="utf-8",
    )
    outside = set(tmp_path.parent.iterdir())
    report = ingest(root, IngestOptions(inputs=[_sources(tmp_path)[0]], use_palace=False))
    assert not report.failed
    assert set(tmp_path.parent.iterdir()) == outside
    for path in report.created:
        resolved = (root / path).resolve()
        assert resolved.is_relative_to(root.resolve()) and resolved.parent.parent == root.resolve()
        assert not path.split("/")[-1].lower().startswith("con.")
    raw = next((root / "raw/articles").iterdir())
    assert raw.read_text(encoding="utf-8") == SOURCES["openai-and-gpt-4.md"]
    # case variants land on one page, and the model's fake links and markup are not links
    assert sum(1 for p in report.created if "gpt-4" in p) == 1
    lint = run_lint(root, LintOptions(use_cache=False, select=("broken-wikilink", "index-gap", "frontmatter")))
    assert [f for f in lint.findings if f.severity == "error"] == []


def test_a_failing_source_writes_nothing_for_it(tmp_path: Path, standin: StandinServer) -> None:
    root = _vault(tmp_path, standin)
    standin.enqueue("not json at all", "still not json")
    report = ingest(root, IngestOptions(inputs=[_sources(tmp_path)[0]], use_palace=False))
    assert report.sources[0].status == "failed"
    assert list((root / "entities").iterdir()) == []
    assert "| ingest |" not in (root / "log.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("variant", ["400", "422", "500"])
def test_server_without_json_schema_still_compiles(tmp_path: Path, variant: str) -> None:
    with StandinServer(reject_json_schema=variant) as server:
        server.route = route
        root = _vault(tmp_path, server)
        report = ingest(root, IngestOptions(inputs=_sources(tmp_path)[:2], use_palace=False))
        assert not report.failed
        assert "entities/openai.md" in report.created


def test_compiled_pages_take_the_fast_parser_and_agree_with_markdown_it(tmp_path: Path, standin: StandinServer) -> None:
    from wikic.vault.parse import fast_eligible, scan_fast, scan_full

    standin.route = route
    root = _vault(tmp_path, standin)
    report = ingest(root, IngestOptions(inputs=_sources(tmp_path), use_palace=False))
    assert report.created
    eligible = 0
    for path in report.created:
        text = (root / path).read_text(encoding="utf-8")
        head, _, body = text.partition("\n---\n")
        first = head.count("\n") + 3
        blanked = "\n" * (first - 1) + body
        full = scan_full(blanked, first, blanked.split("\n"))
        if fast_eligible(body):
            eligible += 1
            fast = scan_fast(body, first)
            assert fast is not None and fast[0] == full[0] and fast[1] == full[1], path
    assert eligible == len(report.created)
