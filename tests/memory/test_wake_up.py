"""`wikic wake-up`: the briefing from the pages, within the budget, the same every time, links that resolve."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from library import load_memories, recall, run_lint, wake_up
from memkit import S1, SESSIONS, Session, at, ingest_sessions, make_vault, memory
from typer.testing import CliRunner

from wikic.cli import app
from wikic.errors import UsageError
from wikic.lint.run import LintOptions
from wikic.text.tokens import estimate_tokens
from wikic.vault.init import init_vault
from wikic.vault.load import walk
from wikic.vault.resolve import Resolver

AS_OF = dt.date(2026, 12, 1)
IDENTITY = (
    '---\nname: ""\naliases: []\n---\n# Identity\n\n<!-- a comment the user keeps -->\nI am Ada, a '
    "backend engineer on the billing platform.\n"
)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sessions: the instruction in session 1, a comparison in 2, the decision in 3."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
        root = make_vault(tmp_path_factory.mktemp("wake"), identity=IDENTITY)
        ingest_sessions(root, SESSIONS)
    return root


def links(text: str) -> list[str]:
    return re.findall(r"\[\[([^\]|#]+)", text)


def test_three_sessions_brief_the_instruction_of_the_first_and_the_decision_of_the_third(vault: Path) -> None:
    briefing = wake_up(vault, as_of=AS_OF)
    text = briefing.text
    assert "I am Ada, a backend engineer on the billing platform." in text and "a comment" not in text
    assert "## Instructions ([[me]])\n\n- 2026-11-02 · Use uv for every Python project, never pip." in text
    assert (
        "## Project: billing service ([[billing-service]])\n\n- 2026-11-09 · The billing service goes with PostgreSQL."
        in text
    )
    resolver = Resolver(walk(vault)[0])
    assert links(text) and all(resolver.resolve("", target).path for target in links(text))
    assert [f for f in run_lint(vault, LintOptions(use_cache=False)).findings if f.severity == "error"] == []


def test_the_briefing_never_exceeds_its_budget(vault: Path) -> None:
    previous = -1
    for budget in range(20, 400, 3):
        briefing = wake_up(vault, budget=budget, as_of=AS_OF)
        assert briefing.tokens == estimate_tokens(briefing.text) <= budget, budget
        assert briefing.tokens >= previous  # more room never gives less
        previous = briefing.tokens
    assert wake_up(vault, budget=400, as_of=AS_OF).left_out == 0
    with pytest.raises(UsageError):
        wake_up(vault, budget=5, as_of=AS_OF)


def test_the_same_vault_gives_the_same_briefing(vault: Path) -> None:
    first = wake_up(vault, as_of=AS_OF).to_dict()
    (vault / ".wikic" / "cache" / "memories.json").unlink()  # the index is derived: rebuilt from the pages
    assert wake_up(vault, as_of=AS_OF).to_dict() == first


def test_a_project_alone_and_an_unknown_one(vault: Path) -> None:
    text = wake_up(vault, project="billing service", as_of=AS_OF).text
    assert "- 2026-11-05 · The billing service needs a database" in text and "Use uv" in text
    with pytest.raises(UsageError, match="no project 'payroll'"):
        wake_up(vault, project="payroll", as_of=AS_OF)


def test_a_project_quiet_for_long_is_no_longer_active(vault: Path) -> None:
    text = wake_up(vault, as_of=AS_OF + dt.timedelta(days=90)).text
    assert "## Project:" not in text
    assert "The billing service goes with PostgreSQL. [[billing-service]]" in text  # still there, among the memories


def test_the_cli_prints_text_or_json(vault: Path) -> None:
    result = CliRunner().invoke(app, ["wake-up", "--vault", str(vault), "--as-of", "2026-12-01", "--budget", "300"])
    assert result.exit_code == 0 and result.stdout == wake_up(vault, budget=300, as_of=AS_OF).text
    data = json.loads(
        CliRunner().invoke(app, ["wake-up", "--vault", str(vault), "--as-of", "2026-12-01", "--json"]).stdout
    )
    assert data["user_page"] == "entities/me.md" and data["tokens"] <= data["budget"] == 900
    assert [s["title"] for s in data["sections"]] == ["Instructions", "Project: billing service"]
    bad = CliRunner().invoke(app, ["wake-up", "--vault", str(vault), "--project", "payroll"])
    assert bad.exit_code == 2 and "Error: no project 'payroll'" in bad.stderr


def test_ranking_puts_the_important_and_confirmed_first(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path, schema="# Wiki Schema\n## Domain\nWork\n## Page Thresholds\n- entity_min_references: 1\n"
    )
    turns = [
        ("user", "Small thing: I like tabs in Makefiles.", at(20)),
        ("user", "Important: never push to main directly.", at(20, 10)),
    ]
    ingest_sessions(root, [Session("r", "Rules", turns, [
        memory("persona", "The user likes tabs in Makefiles.", "I like tabs in Makefiles.", 0.2, "user"),
        memory("instruction", "Never push to main directly.", "never push to main directly.", 0.9, "user")])])
    sections = wake_up(root, as_of=AS_OF).to_dict()["sections"]
    assert [s["title"] for s in sections] == ["Instructions", "Preferences"]
    assert sections[0]["items"][0]["score"] > sections[1]["items"][0]["score"]


def test_init_writes_identity_once_and_it_is_no_wiki_page(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    report = init_vault(root)
    assert "identity.md" in report.created and "raw/notes/" in report.created
    identity = root / "identity.md"
    assert "name:" in identity.read_text(encoding="utf-8")
    identity.write_text("---\nname: Ada\n---\n# Identity\n\nSee [[nowhere]].\n", encoding="utf-8")
    assert "identity.md" in init_vault(root).existing and "name: Ada" in identity.read_text(encoding="utf-8")
    findings = run_lint(root, LintOptions(use_cache=False)).findings
    # its links are checked like a note of the person's own; it is no orphan, no index gap, no frontmatter case
    assert [(f.rule, f.path) for f in findings] == [("broken-wikilink", "identity.md")]
    from wikic.palace.sources import scan

    assert "identity.md" not in {s.path for s in scan(root)}  # the briefing shows it whole; search does not need it
    assert wake_up(root, as_of=AS_OF).text.startswith(
        "# Briefing (2026-12-01)\n\n## Who the user is\n\nSee [[nowhere]]."
    )


def test_an_empty_vault_briefs_what_it_can(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    init_vault(root)
    text = wake_up(root, as_of=AS_OF).text
    assert "identity.md is empty" in text and estimate_tokens(text) <= 900


def test_s1_alone_briefs_its_instruction_while_the_users_page_waits(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    ingest_sessions(root, [S1])
    assert not (root / "entities" / "me.md").exists()  # below entity_min_references: no page yet
    briefing = wake_up(root, as_of=AS_OF)
    # what the user told the assistant is in the next session's briefing all the same, linking where it was said
    line = "- 2026-11-02 · Use uv for every Python project, never pip. [[raw/transcripts/"
    assert f"## Instructions\n\n{line}" in briefing.text
    resolver = Resolver(walk(root)[0])
    assert [resolver.resolve("", t).path for t in links(briefing.text)] == [
        "raw/transcripts/python-tooling.md"]
    (item,) = briefing.to_dict()["sections"][0]["items"]
    assert item["waiting"] is True and item["page"] == "raw/transcripts/python-tooling.md"
    assert briefing.user_page is None
    (found,) = recall(root, "uv", subject="user", as_of=AS_OF)
    assert found.memory.waiting and found.to_dict()["waiting"] is True
    assert load_memories(root).items == []  # asked for pages' memories only (confirm_lesson's), there are none
    # and the source's page says where its memory is
    page = (root / "sources" / "python-tooling.md").read_text(encoding="utf-8")
    assert "- 1 memory about Me, whose page waits: the briefing (`wikic wake-up`) and recall show it meanwhile" in page


def test_once_the_page_exists_its_memory_is_briefed_once_from_it(vault: Path) -> None:
    briefing = wake_up(vault, as_of=AS_OF, budget=2000)
    assert briefing.text.count("Use uv for every Python project") == 1
    assert not any(item["waiting"] for s in briefing.to_dict()["sections"] for item in s["items"])
    assert "whose page waits" not in (vault / "sources" / "python-tooling.md").read_text(encoding="utf-8")


def test_the_briefing_says_what_the_wiki_covers_when_asked(vault: Path) -> None:
    plain = wake_up(vault, as_of=AS_OF).text
    assert "What the wiki covers" not in plain
    briefing = wake_up(vault, as_of=AS_OF, overview=True)
    text = briefing.text
    head = "## What the wiki covers ([[overview]])\n\nThis wiki covers "
    assert head in text and text.index(head) < text.index("## Instructions")
    assert briefing.sections[0].title == "What the wiki covers"
    resolver = Resolver(walk(vault)[0])
    assert all(resolver.resolve("", target).path for target in links(text))
    for budget in (60, 120, 400):  # as much of it as fits, within the budget
        assert estimate_tokens(wake_up(vault, as_of=AS_OF, overview=True, budget=budget).text) <= budget
    cli = CliRunner().invoke(app, ["wake-up", "--overview", "--vault", str(vault), "--as-of", AS_OF.isoformat()])
    assert cli.exit_code == 0 and head in cli.stdout


def test_a_memory_that_starts_waiting_after_a_briefing_is_in_the_next_one(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    ingest_sessions(root, [S1])
    first = wake_up(root, as_of=AS_OF).text  # the index of memories is written with the ledger as it was
    payroll = "The payroll export runs on Fridays."
    later = Session("s9", "Payroll", [("user", payroll, at(20))],
                    [memory("episodic", payroll, payroll, 0.7, "payroll export")])
    ingest_sessions(root, [later])
    second = wake_up(root, as_of=AS_OF).text
    assert payroll not in first and f"- 2026-11-20 · {payroll} [[raw/transcripts/payroll]]" in second
    assert "## Project:" not in second  # a project waiting for its page has no group of its own yet
    index = root / ".wikic" / "cache" / "memories.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    index.write_text(json.dumps({**data, "waiting": [{"subject": 3}]}), encoding="utf-8")  # damaged: rebuilt
    assert wake_up(root, as_of=AS_OF).text == second
