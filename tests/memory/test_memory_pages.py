"""Memories land on the entity page of their subject, in a section per kind, each item dated by its turn and
anchored to its transcript line; a subject below the threshold waits in the mentions ledger with them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fake_llm import FakeLLM
from library import ingest, run_lint, wake_up
from memkit import S1, S2, S3, SESSIONS, TODAY, Scripted, Session, at, ingest_sessions, make_vault, memory

from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.pages.blocks import find_block
from wikic.vault.formats.memory_items import parse_items

ONE_REFERENCE = "# Wiki Schema\n## Domain\nWork\n## Page Thresholds\n- entity_min_references: 1\n"


def block(root: Path, page: str, key: str) -> str:
    found = find_block((root / page).read_text(encoding="utf-8"), key)
    assert found is not None, f"{page} has no block {key}"
    return found[3]


def test_memories_wait_below_the_threshold_then_land_dated_and_anchored(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    [first] = ingest_sessions(root, [S1])
    assert first.sources[0].pending == ["Me"]
    assert not list((root / "entities").glob("*.md"))
    waiting = json.loads((root / ".wikic" / "mentions.json").read_text(encoding="utf-8"))["mentions"]
    assert waiting["entity:me"]["sources"]["raw/transcripts/python-tooling.md"]["memories"] == [
        [
            "instruction",
            "Use uv for every Python project, never pip.",
            "raw/transcripts/python-tooling.md:L9",
            0.9,
            "2026-11-02",
        ]
    ]

    ingest_sessions(root, [S2, S3])
    me = (root / "entities" / "me.md").read_text(encoding="utf-8")
    assert "## Instructions" in me and "title: Me" in me
    [instruction] = parse_items(block(root, "entities/me.md", "memory:instruction"), "instruction")
    assert instruction.date.isoformat() == "2026-11-02"  # first said in session 1; session 3 said it again
    assert instruction.anchors == ("raw/transcripts/python-tooling.md:L9", "raw/transcripts/billing-decision.md:L9")
    assert instruction.last is not None and instruction.last.isoformat() == "2026-11-09"
    assert "^[[[raw/transcripts/python-tooling.md|python-tooling.md]] L9]" in me  # the clickable anchor

    billing = (root / "entities" / "billing-service.md").read_text(encoding="utf-8")
    assert "## Decisions and events" in billing
    lines = block(root, "entities/billing-service.md", "memory:episodic").split("\n")
    assert [line.split(" · ")[0] for line in lines] == ["- 2026-11-05", "- 2026-11-09"]
    assert (
        "The billing service goes with PostgreSQL. ^[[[raw/transcripts/billing-decision.md|billing-decision.md]] L9]"
        in lines[1]
    )
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "- [[me]] — Who the user is" in index and "- [[billing-service]]" in index
    report = run_lint(root, LintOptions(use_cache=False))
    assert [f for f in report.findings if f.severity == "error"] == []


def test_the_users_page_is_named_by_identity(tmp_path: Path) -> None:
    identity = '---\nname: "Ada Lovelace"\naliases: [Ada]\n---\n# Identity\n\nI build the billing platform.\n'
    root = make_vault(tmp_path, identity=identity, schema=ONE_REFERENCE)
    ingest_sessions(
        root,
        [
            Session(
                "a",
                "Ada",
                [("user", "I'm Ada. I prefer short answers with the code first.", at(4))],
                [
                    memory(
                        "persona",
                        "Ada prefers short answers with the code first.",
                        "I prefer short answers with the code first.",
                        0.7,
                        "Ada",
                    )
                ],
            ),
            S1,
        ],
    )
    page = (root / "entities" / "ada-lovelace.md").read_text(encoding="utf-8")
    assert "title: Ada Lovelace" in page and "aliases: [Ada]" in page
    assert "## Preferences" in page and "## Instructions" in page  # subject "Ada" and subject "user" alike
    assert not (root / "entities" / "me.md").exists()


def test_a_person_edited_memory_block_is_kept_and_new_items_go_beside_it(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    ingest_sessions(root, [S1])
    page = root / "entities" / "me.md"
    page.write_text(page.read_text(encoding="utf-8").replace("never pip.", "never pip or conda."), encoding="utf-8")
    later = Session(
        "later",
        "More",
        [("user", "Always write commit messages in English.", at(12))],
        [
            memory(
                "instruction",
                "Write commit messages in English.",
                "Always write commit messages in English.",
                0.6,
                "user",
            )
        ],
    )
    [report] = ingest_sessions(root, [later])
    text = page.read_text(encoding="utf-8")
    assert "never pip or conda." in text  # the person's words stay
    assert [i.text for i in parse_items(block(root, "entities/me.md", "memory:instruction:more"), "instruction")] == [
        "Write commit messages in English."]
    assert report.sources[0].memories == 1
    briefing = wake_up(root, as_of=TODAY).text  # both blocks are read
    assert "Write commit messages in English." in briefing and "never pip or conda." in briefing


def test_compiling_a_transcript_again_adds_nothing(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    ingest_sessions(root, SESSIONS)
    before = {p: p.read_text(encoding="utf-8") for p in (root / "entities").glob("*.md")}
    report = ingest(
        root,
        IngestOptions(
            inputs=[str(root / "raw/transcripts/billing-decision.md")], force=True, use_palace=False, today=TODAY
        ),
        llm=FakeLLM().respond_with(Scripted(SESSIONS)),
    )
    assert report.sources[0].status == "compiled" and report.sources[0].memories == 0
    assert {p: p.read_text(encoding="utf-8") for p in (root / "entities").glob("*.md")} == before
    assert len(re.findall("billing-decision.md\\|", before[root / "entities" / "me.md"])) == 1
