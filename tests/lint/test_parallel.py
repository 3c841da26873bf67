"""A big vault is parsed and linted on two cores: this process parses a share while a forked one parses the
rest, and the costliest rule runs in a forked process beside the others. Whatever the split, the findings and
the parse cache must be exactly those of one process doing everything."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from library import load_vault, run_lint

from wikic.lint import run as lint_run
from wikic.lint.run import LintOptions
from wikic.vault.load import fork_is_safe

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated 600-page vault with every kind of finding the lint bench has (broken, ambiguous and
    malformed links, code, math, comments, non-UTF-8 pages...)."""
    out = tmp_path_factory.mktemp("parallel") / "vault"
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "gen_vault.py"), str(out), "--pages", "600", "--seed", "3", "--quiet"],
        check=True,
    )
    # typos of real page names, so that the forked rule has suggestions to make
    stems = sorted(p.stem for p in (out / "entities").glob("*.md"))[:5]
    page = next(p for p in sorted((out / "concepts").glob("*.md")) if not any(c in p.read_text() for c in "`<%$"))
    typos = " ".join(f"[[{stem[:-1]}x]]" for stem in stems)
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee also {typos}.\n", encoding="utf-8")
    # a subject page with no lead, for the page rules, which run in the forked process
    lead = next(p for p in sorted((out / "entities").glob("*.md")) if p.read_text(encoding="utf-8").startswith("---"))
    text = lead.read_text(encoding="utf-8")
    end = text.index("\n---\n", 3) + 5
    lead.write_text(text[:end] + "# Headline\n\n## First section\n\nText.\n", encoding="utf-8")
    return out


def _findings(root: Path, jobs: int) -> list[dict[str, object]]:
    shutil.rmtree(root / ".wikic", ignore_errors=True)
    return [f.to_dict() for f in run_lint(root, LintOptions(jobs=jobs, use_cache=False)).findings]


def test_two_processes_find_what_one_finds(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint_run, "_FORK_RULES_FROM", 1)  # fork the rule process on this small vault too
    assert fork_is_safe()  # else nothing below would fork, and this test would compare one process with itself
    alone = _findings(generated, 1)
    assert {f["rule"] for f in alone} >= {"broken-wikilink", "ambiguous-link", "malformed-link", "orphan-page",
                                          "frontmatter", "no-lead"}  # these two run in the forked process
    assert any("did you mean" in str(f["message"]) for f in alone)
    assert _findings(generated, 2) == alone


def test_a_plain_vault_forks_the_link_rule_and_finds_what_one_process_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "plain"
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_vault.py"), str(out), "--pages", "500", "--seed", "5",
                    "--plain", "--quiet"], check=True)
    stems = sorted(p.stem for p in out.rglob("*.md") if len(p.stem) > 6)[:5]
    (out / "typos.md").write_text("See " + " ".join(f"[[{stem[:-1]}x]]" for stem in stems) + ".\n", encoding="utf-8")
    monkeypatch.setattr(lint_run, "_FORK_RULES_FROM", 1)
    alone = _findings(out, 1)
    assert any("did you mean" in str(f["message"]) for f in alone)
    assert _findings(out, 2) == alone


def test_the_forked_rules_are_the_page_rules_with_frontmatter_else_the_link_rule() -> None:
    every = lint_run.known_rules()
    assert lint_run.forked_rules(every) == ["frontmatter", "no-lead", "repeated-claim", "source-sections",
                                            "thin-section", "uncited-sentence"]
    # pages judged while parsed leave the page rules little to do: four more rules join them
    assert lint_run.forked_rules(every, judged=True) == ["duplicate-page", "frontmatter", "no-lead",
                                                         "ordinary-name", "repeated-claim", "source-sections",
                                                         "stale-page", "thin-section", "uncited-sentence",
                                                         "unsourced-alias"]
    plain = [r for r in every if not lint_run._rules()[r].needs_schema]  # what a folder without SCHEMA.md runs
    assert lint_run.forked_rules(plain) == ["broken-wikilink"]
    assert lint_run.forked_rules(["orphan-page"]) == []


def test_pages_judged_while_parsed_get_the_findings_the_page_rules_give_reading_them(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikic.lint.rule import PAGE_RULES
    from wikic.lint.rules import _pages
    from wikic.vault.schema_md import load as load_schema

    monkeypatch.setattr(lint_run, "_FORK_RULES_FROM", 1)
    judged = _findings(generated, 2)  # every page judged in the process that parsed it
    assert "no-lead" in {f["rule"] for f in judged}
    with monkeypatch.context() as patched:
        patched.setattr(_pages, "judge_while_parsing", lambda *_: None)
        assert _findings(generated, 2) == judged  # every page read and judged by the rules
    # one page edited after a cold run: it is judged while parsed, the others are read from their files
    shutil.rmtree(generated / ".wikic", ignore_errors=True)
    assert [f.to_dict() for f in run_lint(generated, LintOptions(jobs=2, use_cache=True)).findings] == judged
    page = next(p for p in sorted((generated / "entities").glob("*.md")))
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    judge = _pages.judge_while_parsing(load_schema(generated), PAGE_RULES)
    vault = load_vault(generated, use_cache=True, jobs=2, per_note=judge)
    assert list(vault.per_note) == [page.relative_to(generated).as_posix()]
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert [f.to_dict() for f in run_lint(generated, LintOptions(jobs=2, use_cache=True)).findings] == judged


def test_the_cache_written_from_two_processes_reads_back_the_same_notes(generated: Path) -> None:
    shutil.rmtree(generated / ".wikic", ignore_errors=True)
    fresh = load_vault(generated, use_cache=True, jobs=2)  # parses and writes the cache
    lines = (generated / ".wikic" / "cache" / "parse-cache.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == 2
    assert len(lines) - 1 >= len(fresh.notes) - 20  # every note but those JSON cannot hold
    cached = load_vault(generated, use_cache=True, jobs=2)  # reads every note back from the cache
    assert cached.notes == fresh.notes
    single = load_vault(generated, use_cache=False, jobs=1)
    assert single.notes == fresh.notes


def test_links_resolved_while_parsing_are_the_graphs_own(generated: Path) -> None:
    from wikic.vault.graph import build

    shutil.rmtree(generated / ".wikic", ignore_errors=True)
    early = load_vault(generated, use_cache=False, jobs=2, resolve=True)
    assert len(early.resolved) == len(early.notes)  # every note's links resolved in the process that parsed it
    plain = load_vault(generated, use_cache=False, jobs=1)
    assert plain.resolved == {}
    assert build(early).edges == build(plain).edges


def test_no_fork_while_other_threads_run(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork copies locks other threads hold (a model call's connection pool) and never releases them: with
    a second thread alive, parsing and the rules stay in this process."""
    import multiprocessing
    import threading

    def no_fork(*_: object) -> None:
        raise AssertionError("forked while another thread was running")

    alone = _findings(generated, 1)
    monkeypatch.setattr(lint_run, "_FORK_RULES_FROM", 1)
    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert _findings(generated, 2) == alone
    finally:
        release.set()
        other.join()
