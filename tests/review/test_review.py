"""Review before write: a run kept as a proposal leaves the vault as it was; accepted whole it gives the
direct run's vault byte for byte; accepted in part it leaves a consistent wiki; rejected, it stays rejected."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from careless_model import careless_plan, source_of
from fake_llm import FakeLLM
from library import ingest, run_lint
from testkit import init_wiki

from wikic.compile.mentions import Mentions
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.review import store
from wikic.review.accept import accept, reject
from wikic.review.propose import ingest_run, propose_ingest
from wikic.review.show import list_proposals, patch, show
from wikic.vault.formats.claims import scan

SOURCES = sorted((Path(__file__).resolve().parents[2] / "bench" / "names_sources").glob("*.md"))
TODAY = dt.date(2026, 12, 6)
_TOOL_STATE = (".wikic/cache", ".wikic/proposals", ".wikic/palace")


def _careless(*, reword: bool = False) -> FakeLLM:
    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        plan = careless_plan(source_of({"messages": messages}))
        if reword:  # a new reply: the same quotes, each claim in other words
            for entity in plan.get("entities", []):
                for fact in entity.get("facts", []):
                    fact["text"] = fact["text"].rstrip(".") + ", as the source says."
        return plan

    return FakeLLM().respond_with(reply)


def _vault(path: Path) -> Path:
    return init_wiki(path, min_references=1)


def _options(**more: Any) -> IngestOptions:
    return IngestOptions(inputs=[str(p) for p in SOURCES], use_palace=False, compose=False, today=TODAY, **more)


def _files(root: Path) -> dict[str, str]:
    """Every file of the vault but the tool's caches and proposals, by sha1."""
    out = {}
    for folder, folders, files in os.walk(root):
        rel = Path(folder).relative_to(root).as_posix()
        folders[:] = [f for f in folders if not (f if rel == "." else f"{rel}/{f}").startswith(_TOOL_STATE)]
        for name in files:
            if name.endswith(".lock"):
                continue
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = hashlib.sha1(path.read_bytes()).hexdigest()
    return out


def _pages(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for folder in ("entities", "concepts") for p in (root / folder).glob("*.md")}


@pytest.fixture
def proposed(tmp_path: Path) -> tuple[VaultContext, store.Proposal]:
    root = _vault(tmp_path / "wiki")
    context = VaultContext(root, llm=_careless())
    run = propose_ingest(context, _options())
    assert run.proposal is not None
    return context, run.proposal


def test_a_review_run_writes_nothing_in_the_vault_and_keeps_a_proposal(tmp_path: Path) -> None:
    root = _vault(tmp_path / "wiki")
    before = _files(root)
    context = VaultContext(root, llm=_careless())
    run = propose_ingest(context, _options())
    assert _files(root) == before  # pages, hubs, index.md, log.md, raw/ and the ledgers as they were
    proposal = run.proposal
    assert proposal is not None and run.report.proposal == proposal.id
    assert "entities/chroma.md" in proposal.pages_created and proposal.claims_added > 0
    assert proposal.tokens > 0 and len(proposal.sources) == len(SOURCES)
    listed = list_proposals(context)
    assert [p.id for p in listed] == [proposal.id] and listed[0].base_changed == []
    assert not (root / ".wikic" / "proposals" / proposal.id / "vault").exists()  # the shadow is gone


def test_accepting_a_whole_proposal_gives_the_direct_runs_vault_byte_for_byte(tmp_path: Path) -> None:
    direct = _vault(tmp_path / "direct")
    ingest(direct, _options(), llm=_careless())
    reviewed = _vault(tmp_path / "reviewed")
    context = VaultContext(reviewed, llm=_careless())
    proposal = propose_ingest(context, _options()).proposal
    assert proposal is not None
    done = accept(context, proposal.id)
    assert done.closed and not done.replayed and done.exit_code() == 0
    assert _files(reviewed) == _files(direct)
    assert list_proposals(context) == []


def test_config_review_makes_every_ingest_a_proposal(tmp_path: Path) -> None:
    root = _vault(tmp_path / "wiki")
    (root / "wikic.toml").write_text((root / "wikic.toml").read_text(encoding="utf-8") + "\n[ingest]\nreview = true\n",
                                     encoding="utf-8")
    before = _files(root)
    report = ingest_run(VaultContext(root, llm=_careless()), _options())
    assert report.proposal is not None and _files(root) == before
    direct = ingest_run(VaultContext(root, llm=_careless()), _options(review=False))
    assert direct.proposal is None and _files(root) != before


def test_a_part_accepted_is_a_consistent_wiki_and_the_rest_waits(proposed: tuple[VaultContext, store.Proposal]
                                                                 ) -> None:
    context, proposal = proposed
    root = context.root
    done = accept(context, proposal.id, pages=["entities/chroma.md", "quillstore"])
    assert done.replayed and not done.closed
    assert _pages(root) == {"entities/chroma.md", "entities/quillstore.md"}
    report = run_lint(context, LintOptions(strict=True))
    assert [f.to_dict() for f in report.findings] == []
    held = {Path(p).stem for p in proposal.pages_created} - {"chroma", "quillstore"}
    for page in _pages(root):
        text = (root / page).read_text(encoding="utf-8")
        assert not any(f"[[{stem}" in text for stem in held), page  # a page left out is not linked
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "[[chroma" in index and not any(f"[[{stem}" in index for stem in held)
    left = store.load(root, proposal.id)
    assert left.state == "partly accepted" and sorted(left.accepted_pages) == ["entities/chroma.md",
                                                                               "entities/quillstore.md"]
    # the rest, accepted later: the pages the whole proposal makes
    rest = accept(context, proposal.id)
    assert rest.closed and _pages(root) == set(proposal.pages_created)
    assert run_lint(context, LintOptions(strict=True)).findings == []


def test_a_claim_accepted_alone_is_written_alone(proposed: tuple[VaultContext, store.Proposal]) -> None:
    context, proposal = proposed
    view = show(context, proposal.id, ["entities/chroma.md"])
    claim = view.pages[0].added[-1]
    done = accept(context, proposal.id, claims=[claim.id])
    assert done.replayed and not done.closed
    written = _pages(context.root)
    assert "entities/chroma.md" in written and len(written) < len(proposal.pages_created)
    for page in written:  # every page the claim made (each subject it names) holds that claim and no other
        claims = {c.id for c in scan((context.root / page).read_text(encoding="utf-8"))}
        assert claims == {claim.id}, page
    assert run_lint(context, LintOptions(strict=True)).findings == []


def test_a_rejected_claim_is_not_proposed_again_even_in_other_words(tmp_path: Path) -> None:
    root = _vault(tmp_path / "wiki")
    context = VaultContext(root, llm=_careless())
    proposal = propose_ingest(context, _options()).proposal
    assert proposal is not None
    claim = show(context, proposal.id, ["entities/chroma.md"]).pages[0].added[-1]
    rejected = reject(context, proposal.id, claims=[claim.id], why="not what the source says")
    assert rejected.claims == 1 and not rejected.closed
    rejections = (root / ".wikic" / "rejected.md").read_text(encoding="utf-8")
    assert claim.id in rejections and "not what the source says" in rejections
    accept(context, proposal.id)
    assert f"^{claim.id}" not in (root / "entities/chroma.md").read_text(encoding="utf-8")
    # the next --force run, with new replies that word every claim otherwise, does not bring it back
    again = ingest(root, _options(force=True, use_cache=False), llm=_careless(reword=True))
    texts = "\n".join((root / p).read_text(encoding="utf-8") for p in _pages(root))
    quote_line = claim.cited[0].rsplit(":L", 1)[1].split("-")[0]
    kept_on_that_line = [line for line in texts.splitlines()
                         if claim.text.rstrip(".") in line]
    assert kept_on_that_line == [], quote_line
    assert sum(s.dropped.get("rejected in review", 0) for s in again.sources) >= 1


def test_a_rejected_page_name_stays_rejected_for_the_sources_that_named_it(tmp_path: Path) -> None:
    root = _vault(tmp_path / "wiki")
    context = VaultContext(root, llm=_careless())
    proposal = propose_ingest(context, _options()).proposal
    assert proposal is not None
    reject(context, proposal.id, pages=["entities/hnsw.md"], why="not a subject of its own")
    accept(context, proposal.id)
    assert "entities/hnsw.md" not in _pages(root) and "entities/chroma.md" in _pages(root)
    # the rest of the proposal landed whole: the names it left waiting wait in the ledger, as a direct run leaves them
    waiting = {e.name for e in Mentions.load(root).items.values()}
    assert {"AI", "BM25"} <= waiting and "HNSW" not in waiting
    ingest(root, _options(force=True), llm=_careless())
    assert "entities/hnsw.md" not in _pages(root)
    # deleting its line undoes the rejection
    rejections = root / ".wikic" / "rejected.md"
    rejections.write_text("\n".join(line for line in rejections.read_text(encoding="utf-8").split("\n")
                                    if '"HNSW"' not in line), encoding="utf-8")
    ingest(root, _options(force=True), llm=_careless())
    assert "entities/hnsw.md" in _pages(root)


def _proposed_over_chroma(tmp_path: Path) -> tuple[Path, VaultContext, store.Proposal | None]:
    """A vault where one source made Chroma's page, and a proposal of all the sources over it."""
    root = _vault(tmp_path / "wiki")
    ingest(root, IngestOptions(inputs=[str(SOURCES[4])], use_palace=False, compose=False, today=TODAY),
           llm=_careless())
    context = VaultContext(root, llm=_careless())
    proposal = propose_ingest(context, _options()).proposal
    return root, context, proposal


def test_a_persons_edit_made_since_the_proposal_survives_the_accept(tmp_path: Path) -> None:
    root, context, proposal = _proposed_over_chroma(tmp_path)
    assert proposal is not None and "entities/chroma.md" in proposal.pages_updated
    page = root / "entities" / "chroma.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("# Chroma\n", "# Chroma\n\nA note of my own, kept whatever runs.\n", 1),
                    encoding="utf-8")
    assert list_proposals(context)[0].base_changed == ["entities/chroma.md"]
    done = accept(context, proposal.id)
    assert done.replayed and done.conflicts == []
    after = page.read_text(encoding="utf-8")
    assert "A note of my own, kept whatever runs." in after
    assert "open-source vector database" in after  # and the proposal's claims are there too


def test_a_conflicting_edit_leaves_the_page_out_never_overwritten(tmp_path: Path) -> None:
    root, context, proposal = _proposed_over_chroma(tmp_path)
    assert proposal is not None
    page = root / "entities" / "chroma.md"
    before = store.text_of(root, proposal, "entities/chroma.md", "before") or ""
    after = store.text_of(root, proposal, "entities/chroma.md", "after") or ""
    # a person rewrites the key facts the proposal also changes
    start = before.index("<!-- wikic:begin section:key-facts")
    body_end = before.index("<!-- wikic:end section:key-facts")
    opening = before[start:body_end].split("\n", 1)[0]
    mine = before[:start] + opening + "\n- My own account of Chroma.\n" + before[body_end:]
    assert after[start:] != before[start:]
    page.write_text(mine, encoding="utf-8")
    done = accept(context, proposal.id)
    assert done.conflicts == ["entities/chroma.md"] and done.exit_code() == 1
    assert page.read_text(encoding="utf-8") == mine
    assert run_lint(context, LintOptions()).summary()["errors"] == 0


def test_the_patch_applies_with_git(proposed: tuple[VaultContext, store.Proposal], tmp_path: Path) -> None:
    context, proposal = proposed
    root = context.root
    git = shutil.which("git")
    assert git is not None
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run([git, "init", "-q"], cwd=root, check=True, env=env)
    patched = tmp_path / "proposal.patch"
    patched.write_text(patch(context, proposal.id), encoding="utf-8")
    subprocess.run([git, "apply", str(patched)], cwd=root, check=True, env=env)
    for f in proposal.files:
        wanted = store.file_bytes(root, proposal, f.path, "after")
        assert (root / f.path).read_bytes() == wanted, f.path


def test_show_lists_each_claim_with_the_source_lines_it_rests_on(proposed: tuple[VaultContext, store.Proposal]
                                                                 ) -> None:
    context, proposal = proposed
    view = show(context, proposal.id, ["entities/chroma.md"])
    page = view.pages[0]
    assert page.kind == "new" and page.text.startswith("---\ntitle: Chroma")
    for claim in page.added:
        for cited in claim.cited:
            source, lines = cited.split(":L")
            line = int(lines.split("-")[0])
            raw = (context.root / ".wikic" / "proposals" / proposal.id / "after" / source).read_text(encoding="utf-8")
            assert page.quotes[cited].split("\n")[0] == raw.split("\n")[line - 1].strip()
    data = json.loads(json.dumps(view.to_json()))
    assert data["pages"][0]["added"][0]["id"] == page.added[0].id


def test_a_proposal_that_would_write_outside_the_wiki_is_no_proposal(proposed: tuple[VaultContext, store.Proposal]
                                                                      ) -> None:
    context, proposal = proposed
    folder = context.root / ".wikic" / "proposals" / proposal.id
    data = json.loads((folder / "proposal.json").read_text(encoding="utf-8"))
    data["files"].append({"path": ".obsidian/plugins/evil/main.js", "before": None, "after": "0" * 64})
    (folder / "proposal.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UsageError):
        accept(context, proposal.id)
    assert not (context.root / ".obsidian" / "plugins" / "evil").exists()
    assert _pages(context.root) == set()


def test_status_and_the_overview_count_open_proposals(proposed: tuple[VaultContext, store.Proposal]) -> None:
    from library import vault_status

    from wikic.status import render_status

    context, _ = proposed
    status = vault_status(context, lint=False)
    assert status.proposals == 1 and "Proposals: 1 open" in render_status(status)
    # the next direct run's overview counts it too
    ingest(context.root, IngestOptions(inputs=[str(SOURCES[6])], use_palace=False, compose=False, today=TODAY,
                                       review=False), llm=_careless())
    overview = (context.root / "overview.md").read_text(encoding="utf-8")
    assert "| Proposals waiting for review | 1 |" in overview


def test_a_source_waiting_in_a_proposal_is_passed_over_until_it_changes(tmp_path: Path) -> None:
    root = _vault(tmp_path / "wiki")
    dropped = root / "raw" / "articles" / "chroma-basics.md"
    dropped.write_bytes(SOURCES[4].read_bytes())
    context = VaultContext(root, llm=_careless())
    first = propose_ingest(context, IngestOptions(use_palace=False, compose=False, today=TODAY))
    assert first.proposal is not None and first.proposal.sources == ["raw/articles/chroma-basics.md"]
    again = propose_ingest(context, IngestOptions(use_palace=False, compose=False, today=TODAY))
    assert again.proposal is None
    assert [(s.raw_path, s.status) for s in again.report.sources] == [("raw/articles/chroma-basics.md", "in review")]
    assert first.proposal.id in (again.report.sources[0].error or "")
    dropped.write_text(dropped.read_text(encoding="utf-8") + "\nChroma also keeps metadata beside each vector.\n",
                       encoding="utf-8")
    changed = propose_ingest(context, IngestOptions(use_palace=False, compose=False, today=TODAY))
    assert changed.proposal is not None and changed.proposal.sources == ["raw/articles/chroma-basics.md"]


def test_watch_with_review_keeps_proposals_instead_of_writing(tmp_path: Path) -> None:
    from library import watch

    from wikic.review.propose import watched_run

    root = _vault(tmp_path / "wiki")
    (root / "wikic.toml").write_text((root / "wikic.toml").read_text(encoding="utf-8") + "\n[ingest]\nreview = true\n",
                                     encoding="utf-8")
    (root / "raw" / "articles" / "chroma-basics.md").write_bytes(SOURCES[4].read_bytes())
    before = _files(root)
    reports: list[Any] = []
    watch(root, reports.append, llm=_careless(), use_palace=False, events=[], run_ingest=watched_run)
    assert len(reports) == 1 and reports[0].proposal is not None
    assert _files(root) == before and _pages(root) == set()


def test_the_mcp_tools_show_accept_and_reject_proposals(proposed: tuple[VaultContext, store.Proposal]) -> None:
    from wikic.mcp_server import WikiTools

    context, proposal = proposed
    tools = WikiTools(context.root)
    try:
        assert proposal.id in tools.proposals()
        shown = tools.proposal(proposal.id, ["entities/hnsw.md"])
        assert "== entities/hnsw.md: new" in shown and "raw/articles/05-chroma-basics.md:L5" in shown
        said = tools.reject(proposal.id, pages=["entities/hnsw.md"], why="no subject of its own")
        assert "rejected 0 claim(s) and 1 page name(s)" in said
        said = tools.accept(proposal.id)
        assert said.startswith(f"accepted {proposal.id}")
        assert "entities/hnsw.md" not in _pages(context.root) and "entities/chroma.md" in _pages(context.root)
        assert tools.proposals().startswith("No open proposal")
    finally:
        tools.close()


def test_a_review_run_that_fails_leaves_no_proposal_behind(tmp_path: Path) -> None:
    from wikic.errors import ConfigError

    root = _vault(tmp_path / "wiki")
    config = root / "wikic.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('model = "qwen3:8b"', ""), encoding="utf-8")
    before = _files(root)
    with pytest.raises(ConfigError):
        propose_ingest(VaultContext(root), _options())  # no model configured
    assert _files(root) == before
    folder = root / ".wikic" / "proposals"
    assert not folder.exists() or list(folder.iterdir()) == []
