"""The page rules, case by case (README's lint section defines them): no-lead, repeated-claim, uncited-sentence,
thin-section and source-sections. Each case writes a small vault, lints it with only the rule under test, and
compares the complete list of that rule's findings: rule, severity, path, line and column, exactly. Where a
finding is expected is found in the page's text by what stands there (`at`).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from library import run_lint
from pagekit import A_CITE, B_CITE, BAD, LEAD, block, body, claim, compiled
from testkit import DEFAULT_SCHEMA, make_vault, page

from wikic.lint.run import LintOptions
from wikic.vault.formats.claims import claim_id

Row = tuple[str, str, str, int | None, int | None]


FROM_THE_CACHE = "judged by an earlier run"


@pytest.fixture(autouse=True, params=["judged while parsed", "judged reading the page", FROM_THE_CACHE])
def judged_how(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case three ways: a page is judged in the process that parses it, or (a cached note) by the rules
    reading its text, or an earlier run judged it and its findings come from the judgement cache."""
    if request.param == "judged reading the page":
        from wikic.lint.rules import _pages

        monkeypatch.setattr(_pages, "judge_while_parsing", lambda *_: None)
    return str(request.param)


@pytest.fixture(autouse=True)
def _how(judged_how: str) -> None:
    global _JUDGED_HOW
    _JUDGED_HOW = judged_how


_JUDGED_HOW = ""


def lint(root: Path, *rules: str) -> list[Row]:
    if _JUDGED_HOW == FROM_THE_CACHE:
        # an earlier run (another day, so that its whole report is not the one given back) parses and judges;
        # this one takes every note from the parse cache and every judgement from the judgement cache
        run_lint(root, LintOptions(select=rules, use_cache=True, today=dt.date(2026, 3, 2)))
        (root / ".wikic" / "cache" / "lint-base.json").unlink()  # a whole lint (`lint/changed.py` aside)
        report = run_lint(root, LintOptions(select=rules, use_cache=True, today=dt.date(2026, 3, 1)))
        assert not report.cached
    else:
        report = run_lint(root, LintOptions(select=rules, use_cache=False, today=dt.date(2026, 3, 1)))
    return [(f.rule, f.severity, f.path, f.line, f.column) for f in report.findings]


def at(text: str, needle: str, nth: int = 1) -> tuple[int, int]:
    """(line, column), 1-based, of the `nth` occurrence of `needle` in a page's text."""
    start = -1
    for _ in range(nth):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start) + 1
    return line, start - (text.rfind("\n", 0, start) + 1) + 1


def vault(tmp_path: Path, files: dict[str, str], schema: str = DEFAULT_SCHEMA) -> Path:
    return make_vault(tmp_path, files, schema)


# ---- no-lead -----------------------------------------------------------------------------------------

# (body, what stands where the lead should be: None when there is a lead)
NO_LEAD_CASES = [
    pytest.param(body("# Acme", "", LEAD, "", "## Key facts", "", "- It is fast."), None, id="a-summary-block"),
    pytest.param(body("# Acme", "", "Acme is a database of ours.", "", "## Key facts"), None,
                 id="a-paragraph-of-ones-own"),
    pytest.param(body("Acme is a database.", "", "## Key facts"), None, id="no-title-heading-a-paragraph-first"),
    pytest.param(body("# Acme", "", "Acme keeps", "one file.", "## Notes"), None, id="a-paragraph-over-two-lines"),
    pytest.param(body("# Acme", "", "## Key facts", "", "Acme is a database."), "## Key facts", id="a-section-first"),
    pytest.param(body("# Acme", "", block("summary", ""), "", "## Key facts"), "## Key facts",
                 id="an-empty-summary-block"),
    pytest.param(body("# Acme", "", block("summary", "<!-- nothing yet -->"), "", "## Key facts"), "## Key facts",
                 id="a-summary-block-holding-a-comment"),
    pytest.param(body("# Acme", "", "- Acme is a database.", "", "## Key facts"), "- Acme", id="a-list-is-no-lead"),
    pytest.param(body("# Acme", "", "> [!info] Acme", "> A database.", "", "## Key facts"), "> [!info]",
                 id="a-callout-is-no-lead"),
    pytest.param(body("# Acme", "", "| a | b |", "|---|---|", "| 1 | 2 |", "", "## Key facts"), "| a |",
                 id="a-table-is-no-lead"),
    pytest.param(body("# Acme", "", "```", "Acme is a database.", "```", "## Key facts"), "## Key facts",
                 id="code-is-no-lead"),
    pytest.param(body("# Acme", "", "%% Acme is a database. %%", "<!-- so is this -->", "", "## Key facts"),
                 "## Key facts", id="comments-are-no-lead"),
    pytest.param(body("# Acme", "", "### Overview", "", "## Key facts"), "### Overview", id="a-subheading-is-no-lead"),
    pytest.param(body("# Acme", "", "## Key facts", "", LEAD), "## Key facts", id="a-summary-block-after-a-section"),
    pytest.param(body("# Acme", ""), "# Acme", id="nothing-after-the-title"),
    pytest.param(body("# Acme", "", block("section:key-facts", claim("Acme is fast.")), "", "## Key facts"),
                 "- Acme is fast.", id="a-compiler-block-other-than-the-lead"),
    # a compiled lead says what its subject is: it names it, in some form of its title ("Acmes" too)
    pytest.param(body("# Acme", "", block("summary", "It stores notes in one file. " + A_CITE), "", "## Key facts"),
                 "It stores notes", id="a-lead-that-does-not-name-its-subject"),
    pytest.param(body("# Acme", "", block("summary", "Two Acmes store notes. " + A_CITE), "", "## Key facts"), None,
                 id="a-lead-naming-its-subject-in-another-number"),
]


@pytest.mark.parametrize("text, there", NO_LEAD_CASES)
def test_no_lead(tmp_path: Path, text: str, there: str | None) -> None:
    written = page("Acme", body=text)
    root = vault(tmp_path, {"entities/acme.md": written})
    expected = [] if there is None else [("no-lead", "warning", "entities/acme.md", at(written, there)[0], 1)]
    assert lint(root, "no-lead") == expected


def test_no_lead_judges_subject_pages_of_every_type_and_nothing_else(tmp_path: Path) -> None:
    opening = body("# X", "", "## Key facts", "", "- a fact")
    files = {
        "entities/e.md": page("E", body=opening),
        "concepts/c.md": page("C", type="concept", body=opening),
        "comparisons/k.md": page("K", type="comparison", body=body("# K", "", "| a | b |", "|---|---|", "| 1 | 2 |")),
        "queries/q.md": page("Q", type="query", body=opening),  # an answer: no subject to introduce
        "inbox/mine.md": opening,  # a note of the person's own, outside the page folders
    }
    root = vault(tmp_path, files)
    assert lint(root, "no-lead") == [
        ("no-lead", "warning", "comparisons/k.md", at(files["comparisons/k.md"], "| a |")[0], 1),
        ("no-lead", "warning", "concepts/c.md", at(files["concepts/c.md"], "## Key")[0], 1),
        ("no-lead", "warning", "entities/e.md", at(files["entities/e.md"], "## Key")[0], 1),
    ]
    message = run_lint(root, LintOptions(select=("no-lead",), use_cache=False)).findings[-1].message
    assert message == ("the page opens with '## Key facts', not a lead saying what E is (a summary block or a "
                       "paragraph before the first '##' section)")


def test_a_page_type_schema_md_adds_is_a_subject_page(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA + "## Page Types\n- person: people\n"
    written = page("Ada", type="person", body=body("# Ada", "", "## Key facts", "", "- A fact."))
    root = vault(tmp_path, {"people/ada.md": written}, schema)
    assert lint(root, "no-lead") == [("no-lead", "warning", "people/ada.md", at(written, "## Key facts")[0], 1)]


def test_no_lead_needs_a_schema(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"a.md": "# A\n\n## Section\n", "b.md": "[[a]]\n"}, schema=False)
    assert lint(root, "no-lead") == []


# ---- repeated-claim ----------------------------------------------------------------------------------

# (claim texts, [(the repeat, the claim it repeats)] as indexes into the texts)
REPEATED_CASES = [
    pytest.param(["Acme is fast.", "Acme runs on Linux."], [], id="two-claims"),
    pytest.param(["Acme is fast.", "Acme is fast."], [(1, 0)], id="the-same-words"),
    pytest.param(["The team keeps Acme for the desktop app.", "The team keeps [[acme|Acme]] for its desktop app."],
                 [(1, 0)], id="links-articles-and-pronouns-aside"),
    pytest.param(["Acme is an open-source database.", "Acme is an open source database"], [(1, 0)],
                 id="hyphens-and-the-final-period-aside"),
    pytest.param(["Acme is easy to run.", "Acme is hard to run."], [], id="antonyms-are-two-claims"),
    pytest.param(["Acme is fast.", "Acme is not fast."], [], id="a-denial-is-another-claim"),
    pytest.param(["Acme handled 40,000 writes per second.", "Acme handled 25,000 writes per second."], [],
                 id="another-number-is-another-claim"),
    pytest.param(["Acme trades memory for speed.", "Acme trades speed for memory."], [],
                 id="another-order-is-another-claim"),
    pytest.param(["Acme is fast.", "Acme runs on Linux.", "Acme is fast.", "acme is FAST"], [(2, 0), (3, 0)],
                 id="each-repeat-names-the-first"),
]


@pytest.mark.parametrize("texts, found", REPEATED_CASES)
def test_repeated_claim(tmp_path: Path, texts: list[str], found: list[tuple[int, int]]) -> None:
    lines = [claim(t) for t in texts]
    written = page("Acme", body=compiled(*lines))
    root = vault(tmp_path, {"entities/acme.md": written})
    line = [at(written, lines[0])[0] + i for i in range(len(lines))]
    findings = run_lint(root, LintOptions(select=("repeated-claim",), use_cache=False)).findings
    assert [(f.rule, f.severity, f.path, f.line, f.column) for f in findings] == [
        ("repeated-claim", "warning", "entities/acme.md", line[again], 1) for again, _ in found]
    assert [f.message.split(":")[0] for f in findings] == [f"states the claim of line {line[first]} again"
                                                            for _, first in found]


def test_a_claim_repeated_across_sections_history_and_the_lead(tmp_path: Path) -> None:
    text = body(
        "# Acme", "",
        block("summary", f"Acme is a database. {A_CITE} ^{claim_id('Acme is a database.')}"),
        "", "## Key facts", "",
        block("section:key-facts", claim("Acme is a database.", B_CITE), claim("Acme is fast.")),
        "", "## History", "",
        block("history", "- Acme is fast. (2025 – 2026) " + A_CITE + " ^c0ffee123"),
    )
    written = page("Acme", body=text)
    root = vault(tmp_path, {"entities/acme.md": written})
    assert lint(root, "repeated-claim") == [
        ("repeated-claim", "warning", "entities/acme.md", at(written, "- Acme is a database.")[0], 1),
        ("repeated-claim", "warning", "entities/acme.md", at(written, "- Acme is fast. (2025")[0], 1),
    ]


def test_composed_prose_restating_its_claims_is_no_repeat(tmp_path: Path) -> None:
    text = compiled(f"Acme is fast and runs on Linux. {A_CITE}", "", "> [!quote]- Claims",
                    claim("Acme is fast.", quote=True), claim("Acme runs on Linux.", quote=True))
    root = vault(tmp_path, {"entities/acme.md": page("Acme", body=text)})
    assert lint(root, "repeated-claim") == []


def test_a_persons_page_without_compiler_blocks_is_not_judged(tmp_path: Path) -> None:
    mine = body("# Acme", "", "Acme is ours.", "", "## Key facts", "", claim("Acme is fast."), claim("Acme is fast."),
                "- A sentence with no anchor.", "", "## Variants", "", "TBD.")
    root = vault(tmp_path, {"entities/acme.md": page("Acme", body=mine),
                            "concepts/c.md": page("C", type="concept", body=mine.replace("Key facts", "How it works"))})
    assert lint(root, "repeated-claim", "uncited-sentence", "thin-section", "source-sections") == []


# ---- uncited-sentence --------------------------------------------------------------------------------

# (lines of a Key facts block, the start of each uncited sentence: (text, which occurrence))
UNCITED_CASES = [
    pytest.param([claim("Acme is fast."), claim("Acme runs on Linux.")], [], id="claim-lines"),
    pytest.param([claim("Acme is fast."), "- Acme is loved."], [("Acme is loved.", 1)], id="an-item-with-no-anchor"),
    pytest.param([f"Acme is fast. {A_CITE} It runs on Linux. {B_CITE}"], [], id="prose-each-sentence-cited"),
    pytest.param([f"Acme is fast. It runs on Linux. {A_CITE}"], [("Acme is fast.", 1)],
                 id="a-sentence-before-another-ones-anchor"),
    pytest.param([f"Acme is fast. {A_CITE} {B_CITE} It is loved."], [("It is loved.", 1)],
                 id="a-sentence-after-the-last-anchor"),
    pytest.param([f"Acme is fast. {A_CITE} It is loved. It runs on Linux. {B_CITE}"], [("It is loved.", 1)],
                 id="between-two-anchors"),
    pytest.param(["Acme is fast", f"and small. {A_CITE} It is", "loved."], [("It is", 1)],
                 id="a-paragraph-over-lines-reported-where-the-sentence-starts"),
    pytest.param([f"Acme is fast. {A_CITE}", "", "> [!quote]- Claims", claim("Acme is fast.", quote=True)], [],
                 id="a-composed-section-with-its-claims-callout"),
    pytest.param(["> [!quote]- Claims", "> - Acme is fast. ^c0ffee123"], [("Acme is fast. ^c0ffee123", 1)],
                 id="an-uncited-claim-in-a-callout"),
    pytest.param([f"- Acme is fast (as of 2026-01-01) {A_CITE} %%claim seen=2026-01-01 via=captured%% ^c0ffee123"],
                 [], id="a-claim-line-of-an-earlier-version"),
    pytest.param([claim("Acme is fast."), "<!-- a note -->", "%% another %%", "```", "Not a sentence.", "```"], [],
                 id="comments-and-code-are-no-sentences"),
    pytest.param([f"Version 2.1 of Acme shipped, e.g. to Dr. Who. {A_CITE}"], [], id="abbreviations-and-versions"),
    pytest.param([f"Acme Inc. is a U.S. company. {A_CITE}"], [], id="a-period-before-a-lower-case-word-ends-nothing"),
]


@pytest.mark.parametrize("lines, found", UNCITED_CASES)
def test_uncited_sentence(tmp_path: Path, lines: list[str], found: list[tuple[str, int]]) -> None:
    written = page("Acme", body=compiled(*lines))
    root = vault(tmp_path, {"entities/acme.md": written})
    assert lint(root, "uncited-sentence") == [
        ("uncited-sentence", "warning", "entities/acme.md", *at(written, text, nth)) for text, nth in found]


def test_only_the_compilers_section_blocks_are_read(tmp_path: Path) -> None:
    text = body(
        "# Acme", "",
        block("summary", "Acme is a database."),  # the lead: no-lead's business
        "", "My own note under the title, uncited.", "",
        "## Key facts", "",
        block("section:key-facts:more", "- Acme is loved."),  # beside a block a person edited
        "- A line of my own.",
        block("facts:raw/articles/source-a.md", "- An earlier version's claim with no anchor."),
        "", "## History", "",
        block("history", "- Acme was slow."),
        "", "## Relations", "",
        block("related", "- See also: [[b]]"),
        block("memory:episodic", "- 2026-01-01 · We chose Acme."),
    )
    written = page("Acme", body=text)
    root = vault(tmp_path, {"entities/acme.md": written})
    assert lint(root, "uncited-sentence") == [
        ("uncited-sentence", "warning", "entities/acme.md", *at(written, said))
        for said in ("Acme is loved.", "An earlier version's", "Acme was slow.")]
    message = run_lint(root, LintOptions(select=("uncited-sentence",), use_cache=False)).findings[0].message
    assert message == "'Acme is loved.' carries no anchor: it rests on no quote of a source"


# ---- thin-section ------------------------------------------------------------------------------------

def _concept(*sections: tuple[str, list[str]]) -> str:
    parts = ["# Search", "", block("summary", "Search finds things. " + A_CITE)]
    for heading, lines in sections:
        parts += ["", f"## {heading}", ""]
        if lines:
            parts.append(block(f"section:{heading.lower().replace(' ', '-')}", *lines))
    return body(*parts)


# (sections, min_section_claims, [(the thin section's heading, what the message says it holds)])
THIN_CASES = [
    pytest.param([("How it works", [claim("It ranks.")]), ("Variants", [claim("Exact search is slow.")])], 1, [],
                 id="one-claim-each"),
    pytest.param([("How it works", [claim("It ranks.")]), ("Variants", [])], 1, [("Variants", "holds no claim")],
                 id="a-heading-over-nothing"),
    pytest.param([("How it works", [claim("It ranks.")]), ("Variants", ["TBD."])], 1,
                 [("Variants", "holds no claim")], id="a-placeholder"),
    pytest.param([("How it works", [claim("It ranks.")]), ("Trade-offs", ["- To be written", "- Later"])], 1,
                 [("Trade-offs", "holds no claim")], id="uncited-items"),
    pytest.param([("How it works", [f"It ranks. {A_CITE} It indexes. {B_CITE}"])], 2, [],
                 id="a-section-rewritten-without-claim-lines-counts-its-cited-sentences"),
    pytest.param([("How it works", [claim("It ranks."), claim("It indexes.")]), ("Variants", [claim("Exact.")])], 2,
                 [("Variants", "holds 1 claim;")], id="a-single-claim-under-min-section-claims-2"),
    pytest.param([("How it works", [f"It ranks and indexes. {A_CITE}", "", "> [!quote]- Claims",
                                    claim("It ranks.", quote=True), claim("It indexes.", quote=True)])], 3,
                 [("How it works", "holds 2 claims;")], id="composed-prose-and-its-claims-count-once"),
    pytest.param([("Variants", [])], 0, [], id="min-section-claims-0-turns-it-off"),
    pytest.param([("How it works", [claim("It ranks.")]), ("Notes", []), ("Related", []), ("History", [])], 1, [],
                 id="sections-outside-the-layout-or-holding-no-claims"),
    pytest.param([("How it works", [claim("It ranks.")]), ("variants", [])], 1, [("variants", "holds no claim")],
                 id="the-heading-named-in-another-case"),
]


@pytest.mark.parametrize("sections, minimum, found", THIN_CASES)
def test_thin_section(tmp_path: Path, sections: list[tuple[str, list[str]]], minimum: int,
                      found: list[tuple[str, str]]) -> None:
    schema = DEFAULT_SCHEMA.replace("## Naming Convention", f"- min_section_claims: {minimum}\n## Naming Convention")
    written = page("Search", type="concept", body=_concept(*sections))
    root = vault(tmp_path, {"concepts/search.md": written}, schema)
    findings = run_lint(root, LintOptions(select=("thin-section",), use_cache=False)).findings
    assert [(f.rule, f.severity, f.path, f.line, f.column) for f in findings] == [
        ("thin-section", "warning", "concepts/search.md", at(written, f"## {heading}\n")[0], 1)
        for heading, _ in found]
    assert [f.message for f in findings] == [
        f"'## {heading}' {said.rstrip(';')}; SCHEMA.md's min_section_claims is {minimum}" for heading, said in found]


def test_thin_section_follows_the_layout_schema_md_declares(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA + "## Page Layouts\n- entity: Overview, Funding, History\n"
    text = body("# Acme", "", LEAD, "", "## Overview", "", block("section:overview", claim("Acme is a database.")),
                "", "## Funding", "", "Unknown.", "", "## Key facts", "")
    written = page("Acme", body=text)
    root = vault(tmp_path, {"entities/acme.md": written}, schema)
    funding = at(written, "## Funding")[0]
    assert lint(root, "thin-section") == [("thin-section", "warning", "entities/acme.md", funding, 1)]


# ---- source-sections ---------------------------------------------------------------------------------

SOURCE_CASES = [
    pytest.param([("Definition", [claim("It ranks.", A_CITE)]), ("Limits", [claim("Exact.", B_CITE)])], True,
                 id="each-section-one-source"),
    pytest.param([("How it works", [claim("It ranks.", A_CITE)]), ("Limits", [claim("Exact.", B_CITE)])], True,
                 id="one-of-them-outside-the-layout"),
    pytest.param([("How it works", [claim("It ranks.", A_CITE)]), ("Variants", [claim("Exact.", B_CITE)])], False,
                 id="the-layouts-sections-are-by-topic-however-the-sources-fall"),
    pytest.param([("Definition", [claim("It ranks.", A_CITE), claim("It indexes.", B_CITE)]),
                  ("Limits", [claim("Exact.", B_CITE)])], False, id="a-section-of-two-sources"),
    pytest.param([("Definition", [claim("It ranks.", A_CITE)]), ("Limits", [claim("Exact.", A_CITE, B_CITE)])],
                 False, id="a-claim-both-sources-state"),
    pytest.param([("Definition", [claim("It ranks.", A_CITE)]), ("Limits", [claim("Exact.", A_CITE)])], False,
                 id="one-source"),
    pytest.param([("Definition", [claim("It ranks.", A_CITE)])], False, id="one-section"),
    pytest.param([("Definition", [claim("It ranks.", A_CITE)]), ("History", [claim("It was slow.", B_CITE)])],
                 False, id="history-is-no-topic-section"),
]


@pytest.mark.parametrize("sections, found", SOURCE_CASES)
def test_source_sections(tmp_path: Path, sections: list[tuple[str, list[str]]], found: bool) -> None:
    root = vault(tmp_path, {"concepts/search.md": page("Search", type="concept", body=_concept(*sections))})
    assert lint(root, "source-sections") == ([("source-sections", "warning", "concepts/search.md", None, None)]
                                             if found else [])


def test_source_sections_finds_the_per_source_layout_of_an_earlier_version(tmp_path: Path) -> None:
    a, b = "raw/articles/source-a.md", "raw/articles/source-b.md"
    text = body("# Search", "", LEAD,
                "", "## Definition", "", block(f"section:definition:{a}", claim("Search finds.", A_CITE)),
                "", "## Limits", "", block(f"section:limits:{b}", claim("Search misses codes.", B_CITE)))
    root = vault(tmp_path, {"concepts/search.md": page("Search", type="concept", body=text)})
    findings = run_lint(root, LintOptions(select=("source-sections",), use_cache=False)).findings
    assert [f.message for f in findings] == [
        "each of its 2 sections holds the claims of one source (Definition: source-a.md; Limits: source-b.md): "
        "sections by source, not by topic"]


# ---- severities and what lints what ------------------------------------------------------------------

def test_schema_md_turns_a_page_rule_off_or_changes_its_severity(tmp_path: Path) -> None:
    rules = ("no-lead", "repeated-claim", "uncited-sentence")
    written = page("Acme", body=BAD)
    heading, again, loved = at(written, "## Key facts"), at(written, "- Acme is fast.", 2), at(written, "Acme is loved")
    assert lint(vault(tmp_path, {"entities/acme.md": written}), *rules) == [
        ("no-lead", "warning", "entities/acme.md", *heading),
        ("repeated-claim", "warning", "entities/acme.md", *again),
        ("uncited-sentence", "warning", "entities/acme.md", *loved),
    ]
    schema = DEFAULT_SCHEMA + "## Lint\n- no-lead: off\n- uncited-sentence: error\n"
    root = vault(tmp_path, {"entities/acme.md": written}, schema)
    assert lint(root, *rules) == [
        ("repeated-claim", "warning", "entities/acme.md", *again),
        ("uncited-sentence", "error", "entities/acme.md", *loved),
    ]
    assert run_lint(root, LintOptions(use_cache=False)).exit_code == 1


def test_the_page_rules_skip_a_plain_vault_and_the_notes_beside_the_pages(tmp_path: Path) -> None:
    rules = ("no-lead", "repeated-claim", "uncited-sentence", "thin-section", "source-sections")
    assert lint(make_vault(tmp_path, {"entities/acme.md": BAD, "b.md": "[[acme]]\n"}, schema=False), *rules) == []
    assert lint(vault(tmp_path, {"inbox/acme.md": BAD, "notes.md": BAD}), *rules) == []


def test_status_counts_the_page_rules_findings_apart(tmp_path: Path) -> None:
    from library import vault_status

    from wikic.status import render_status

    root = vault(tmp_path, {"entities/acme.md": page("Acme", body=BAD)})
    status = vault_status(root, today=dt.date(2026, 3, 1))
    assert status.lint is not None
    assert status.lint["page_quality"] == {"no-lead": 1, "repeated-claim": 1, "uncited-sentence": 1,
                                           "thin-section": 0, "source-sections": 0}
    assert ("Page quality: 3 finding(s) (no-lead 1, repeated-claim 1, uncited-sentence 1; see `wikic lint --select "
            "no-lead,repeated-claim,uncited-sentence`)") in render_status(status).split("\n")
    clean = vault(tmp_path, {"entities/acme.md": page("Acme", body=compiled(claim("Acme is fast.")))})
    assert "Page quality: no finding (no-lead, repeated-claim, uncited-sentence, thin-section, source-sections)" in (
        render_status(vault_status(clean)).split("\n"))

