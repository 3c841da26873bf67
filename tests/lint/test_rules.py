"""Every lint rule, case by case: rule id, severity, path, line and column exactly as the README's lint section defines.

Each case builds a small vault, lints it with only the rule under test selected, and compares the complete
list of that rule's findings, so a case checks both what is reported and that nothing else is.
Lines are 1-based in the file on disk (frontmatter included); a whole-page finding has line None.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from library import run_lint
from testkit import DEFAULT_SCHEMA, DEFAULT_SOURCES, index_text, make_vault, page

from wikic.errors import UsageError
from wikic.lint.rule import CORE_RULES, PAGE_RULES
from wikic.lint.rules import RULES
from wikic.lint.run import LintOptions, known_rules
from wikic.vault.resolve import Resolver

TODAY = dt.date(2026, 3, 1)
# page(title, body=X) puts X on file line 13: 11 frontmatter lines (fences included), then a blank line.
B = 12

Row = tuple[str, str, str, int | None, int | None]  # rule, severity, path, line, column


def lint(root: Path, *rules: str, today: dt.date = TODAY) -> list[Row]:
    report = run_lint(root, LintOptions(select=rules, use_cache=False, today=today))
    return [(f.rule, f.severity, f.path, f.line, f.column) for f in report.findings]


def lint_full(root: Path, *rules: str, today: dt.date = TODAY) -> list[Any]:
    return run_lint(root, LintOptions(select=rules, use_cache=False, today=today)).findings


# Three pages that link to each other; cases add a page under test beside them.
BASE = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]]\n\n## Real Heading\n\nA paragraph. ^blk\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}


def with_base(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    return {**BASE, **files}


def test_registry_has_every_rule_the_contract_names() -> None:
    assert set(CORE_RULES) == {
        "orphan-page",
        "broken-wikilink",
        "index-gap",
        "frontmatter",
        "stale-page",
        "contradiction",
    }
    extra = {"ambiguous-link", "malformed-link", "too-few-links", "page-too-long", "duplicate-page", "encoding",
             "unsafe-path", "unsafe-name", "case-collision", "confusable-name", "raw-drift", "ordinary-name",
             "unsourced-alias", "lead-drift", *PAGE_RULES}
    assert set(known_rules()) == set(CORE_RULES) | extra
    assert {r: RULES[r].severity for r in RULES} == {
        "orphan-page": "warning", "broken-wikilink": "error", "index-gap": "error", "frontmatter": "error",
        "stale-page": "warning", "contradiction": "warning", "ambiguous-link": "warning", "malformed-link": "warning",
        "too-few-links": "warning", "page-too-long": "warning", "duplicate-page": "warning", "encoding": "error",
        "unsafe-path": "error", "unsafe-name": "warning", "case-collision": "error", "confusable-name": "warning",
        "raw-drift": "error", "ordinary-name": "warning", "unsourced-alias": "warning", "lead-drift": "warning",
        "no-lead": "warning", "repeated-claim": "warning", "uncited-sentence": "warning", "thin-section": "warning",
        "source-sections": "warning",
    }
    schema_rules = {r for r in RULES if RULES[r].needs_schema}
    assert schema_rules == {
        "index-gap",
        "frontmatter",
        "stale-page",
        "contradiction",
        "too-few-links",
        "duplicate-page",
        "raw-drift",
        "ordinary-name",
        "unsourced-alias",
        "lead-drift",
        *PAGE_RULES,
    }


def test_the_base_vault_is_clean(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BASE)
    assert lint(root) == []


# ---- orphan-page -----------------------------------------------------------------------------------

D_ORPHAN: Row = ("orphan-page", "warning", "entities/d.md", None, None)

ORPHAN_CASES = [
    pytest.param({"entities/a.md": page("A", body="[[b]] [[c]] [[d]]\n")}, [], id="linked-from-a-page"),
    pytest.param({}, [D_ORPHAN], id="no-link-at-all"),
    pytest.param(
        {"index.md": index_text([*BASE, "entities/d.md"]) + "\nsee [[d]]\n"}, [D_ORPHAN], id="only-from-index"
    ),
    pytest.param(
        {
            "log.md": (
                "# Wiki Log\n\n| Date | Action | Target | Notes |\n|---|---|---|---|\n| 2026-01-01 | ingest | "
                "[[d]] | x |\n"
            )
        },
        [D_ORPHAN],
        id="only-from-log",
    ),
    pytest.param({"SCHEMA.md": DEFAULT_SCHEMA + "\nSee [[d]].\n"}, [D_ORPHAN], id="only-from-schema"),
    pytest.param(
        {"raw/articles/source-a.md": "---\ncaptured: 2026-01-01\n---\n[[d]] [[entities/d]]\n"},
        [D_ORPHAN],
        id="only-from-raw",
    ),
    pytest.param({"entities/d.md": page("D", body="[[d]] [[#Own]]\n\n## Own\n")}, [D_ORPHAN], id="only-self-links"),
    pytest.param({"drafts/notes.md": "[[d]]\n"}, [D_ORPHAN], id="only-from-a-note-outside-the-page-folders"),
    pytest.param({"entities/a.md": page("A", body="[[b]] [[c]] ![[d]]\n")}, [], id="embed-counts"),
    pytest.param({"entities/a.md": page("A", body="[[b]] [[c]] [d](d.md)\n")}, [], id="markdown-link-counts"),
    pytest.param(
        {"entities/a.md": page("A", body="[[b]] [[c]] [[d#Nope|x]]\n")}, [], id="link-with-missing-heading-still-counts"
    ),
    pytest.param({"entities/a.md": page("A", related="[[d]]")}, [], id="quoted-frontmatter-link-counts"),
    pytest.param(
        {"concepts/x.md": page("X", type="concept", body="## a\n## b\n## c\n[[D]]\n")},
        [],
        id="from-another-folder-case-insensitive",
    ),
    pytest.param(
        {"entities/a.md": page("A", body="`[[d]]`\n<!-- [[d]] -->\n%% [[d]] %%\n```\n[[d]]\n```\n")},
        [D_ORPHAN],
        id="links-hidden-in-code-and-comments-do-not-count",
    ),
]


@pytest.mark.parametrize("files, expected", ORPHAN_CASES)
def test_orphan_page(tmp_path: Path, files: dict[str, str], expected: list[Row]) -> None:
    everything = {**BASE, "entities/d.md": page("D", body="[[a]] [[b]]\n"), **files}
    root = make_vault(tmp_path, everything)
    assert [row for row in lint(root, "orphan-page") if row[2] == "entities/d.md"] == expected


def test_orphan_page_in_a_plain_vault_counts_every_note(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {"index.md": "[[a]]\n", "a.md": "[[b]]\n", "sub/b.md": "[[a]]\n", "c.md": "[[c]]\n", "raw/r.md": "[[index]]\n"},
        schema=False,
    )
    # every note is a page: index.md's link counts, and raw/ is a folder like any other
    assert lint(root, "orphan-page") == [
        ("orphan-page", "warning", "c.md", None, None),
        ("orphan-page", "warning", "raw/r.md", None, None),
    ]


# ---- broken-wikilink ---------------------------------------------------------------------------------

BROKEN_CASES = [
    # body of entities/t.md -> [(line in body, column, target)]
    pytest.param(
        "[[a]] [[B]] [[entities/c]] [[c.md]] [[./a]] [[../entities/b]] [[/entities/a]]\n",
        [],
        id="existing-targets-any-form",
    ),
    pytest.param("[[ghost]]\n", [(1, 1, "ghost")], id="missing-page"),
    pytest.param(
        "x [[ghost]] y [[ghost]]\n\nz [[ghost|G]]\n",
        [(1, 3, "ghost"), (1, 15, "ghost"), (3, 3, "ghost")],
        id="one-finding-per-occurrence",
    ),
    pytest.param("[[b#Real Heading]] [[b#real   HEADING]] [[b#Real Heading|x]]\n", [], id="heading-exists"),
    pytest.param("ok\n[[b#Nope]]\n", [(2, 1, "b#Nope")], id="heading-missing"),
    pytest.param("[[b#^blk]] [[b#^BLK]]\n", [], id="block-exists"),
    pytest.param("[[b#^nope]]\n", [(1, 1, "b#^nope")], id="block-missing"),
    pytest.param("## Mine\n\n[[#Mine]] [[#mine]]\n", [], id="own-heading-exists"),
    pytest.param("## Mine\n\n[[#Other]]\n", [(3, 1, "#Other")], id="own-heading-missing"),
    pytest.param("![[ghost]] ![[pic.png]] ![[raw/assets/pic.png|100]]\n", [(1, 1, "ghost")], id="embeds"),
    pytest.param("[[raw/assets/pic]]\n", [(1, 1, "raw/assets/pic")], id="non-note-needs-its-extension"),
    pytest.param("![[doc.pdf#page=3]]\n", [], id="pdf-page-is-not-a-heading"),
    pytest.param(
        "[x](ghost.md) [y](a.md) [z](b.md#Real%20Heading) [w](https://example.com/ghost) [v](mailto:x@y)\n",
        [(1, 1, "ghost.md")],
        id="markdown-links",
    ),
    pytest.param("[y](b.md#Nope)\n", [(1, 1, "b.md#Nope")], id="markdown-link-missing-heading"),
    pytest.param(
        (
            "`[[ghost]]` <!-- [[ghost]] --> %% [[ghost]] %% $[[ghost]]$ "
            "\\[\\[ghost\\]\\]\n\n```\n[[ghost]]\n```\n\n    [[ghost]]\n"
        ),
        [],
        id="not-links",
    ),
    pytest.param("| a | b |\n|---|---|\n| [[ghost\\|G]] | [[a\\|A]] |\n", [(3, 3, "ghost")], id="table-cell"),
    pytest.param("> [!note]\n> see [[ghost]]\n", [(2, 7, "ghost")], id="callout"),
    pytest.param("- item\n  - nested [[ghost]]\n", [(2, 12, "ghost")], id="nested-list"),
]


@pytest.mark.parametrize("body, expected", BROKEN_CASES)
def test_broken_wikilink(tmp_path: Path, body: str, expected: list[tuple[int, int, str]]) -> None:
    files = with_base({"entities/t.md": page("T", body=body)})
    files["raw/assets/pic.png"] = b"\x89PNG\r\n\x1a\n"
    files["raw/assets/doc.pdf"] = b"%PDF-1.4\n"
    root = make_vault(tmp_path, files)
    found = [(f.rule, f.severity, f.path, f.line, f.column, f.target) for f in lint_full(root, "broken-wikilink")]
    assert found == [
        ("broken-wikilink", "error", "entities/t.md", B + line, col, target) for line, col, target in expected
    ]


def test_broken_wikilink_in_frontmatter_property(tmp_path: Path) -> None:
    text = page("T", related="[[ghost]]", see=["[[a]]", "[[ghost2#x]]"])
    root = make_vault(tmp_path, with_base({"entities/t.md": text}))
    lines = text.split("\n")
    line_of = {
        needle: next(i + 1 for i, line in enumerate(lines) if needle in line)
        for needle in ("[[ghost]]", "[[ghost2#x]]")
    }
    found = [(f.line, f.column, f.target) for f in lint_full(root, "broken-wikilink")]
    assert found == [(line_of["[[ghost]]"], 11, "ghost"), (line_of["[[ghost2#x]]"], 4, "ghost2")]


def test_broken_wikilink_scope_index_and_own_notes_yes_log_schema_raw_no(tmp_path: Path) -> None:
    index = index_text(BASE) + "- [[ghost-entry]] — gone\n"
    files = {
        **BASE,
        "index.md": index,
        "log.md": (
            "# Wiki Log\n\n| Date | Action | Target | Notes |\n|---|---|---|---|\n| 2026-01-01 | ingest | "
            "[[ghost-log]] | x |\n"
        ),
        "raw/articles/source-a.md": "---\ncaptured: 2026-01-01\n---\n[[ghost-raw]]\n",
        "drafts/x.md": "[[ghost-draft]]\n",
        "Root note.md": "[[a]] and [[ghost-root]]\n",
        "SCHEMA.md": DEFAULT_SCHEMA + "\n[[ghost-schema]]\n",
    }
    root = make_vault(tmp_path, files)
    entry_line = index.split("\n").index("- [[ghost-entry]] — gone") + 1
    assert [(f.path, f.line, f.column, f.target) for f in lint_full(root, "broken-wikilink")] == [
        ("Root note.md", 1, 11, "ghost-root"),
        ("drafts/x.md", 1, 1, "ghost-draft"),
        ("index.md", entry_line, 3, "ghost-entry"),
    ]


def test_notes_outside_the_page_folders_get_the_link_rules_and_no_schema_rule(tmp_path: Path) -> None:
    """A person's own notes beside the wiki (inbox/, a journal, the vault root) are linted as in any
    Obsidian vault; the schema (frontmatter, index.md, staleness, contradictions) governs wiki pages only,
    and orphan-page is about wiki pages: such a note is never an orphan, and its links keep none alive."""
    files = {
        **BASE,
        "inbox/idea.md": "---\ntags: [unclosed\n---\nAn idea about [[a]], [[ghost]] and [[b#Nope]].\n\nopen [[c\n",
        "inbox/dup.md": "one\n",
        "journal/dup.md": "two\n",
        "journal/2026-01-01.md": (
            "---\ntitle: x\ntype: query\nupdated: 1999-01-01\ncontested: true\ncontradictions: "
            "['[[ghost2]]']\n---\nsee [[d]]\n"
        ),
        "Home.md": "# Home\n\n[[dup]]\n",
        "entities/d.md": page("D", body="[[a]] [[b]]\n"),
    }
    root = make_vault(tmp_path, files)
    found = lint(root)
    assert found == [
        ("ambiguous-link", "warning", "Home.md", 3, 1),
        ("orphan-page", "warning", "entities/d.md", None, None),  # the journal's link does not count
        ("broken-wikilink", "error", "inbox/idea.md", 4, 22),
        ("broken-wikilink", "error", "inbox/idea.md", 4, 36),
        ("malformed-link", "warning", "inbox/idea.md", 6, 6),
        ("broken-wikilink", "error", "journal/2026-01-01.md", 6, 19),
    ]


def test_broken_wikilink_in_a_plain_vault_covers_every_note(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {
            "a.md": "[[b]] [[ghost]]\n",
            "deep/er/b.md": "x\n\n[[a#Nope]]\n",
            "raw/r.md": "[[nowhere]]\n",
            "log.md": "[[gone]]\n",
        },
        schema=False,
    )
    assert lint(root, "broken-wikilink") == [
        ("broken-wikilink", "error", "a.md", 1, 7),
        ("broken-wikilink", "error", "deep/er/b.md", 3, 1),
        ("broken-wikilink", "error", "log.md", 1, 1),
        ("broken-wikilink", "error", "raw/r.md", 1, 1),
    ]


def test_same_note_heading_links_in_sibling_notes_resolve_to_their_own_note(tmp_path: Path) -> None:
    """Found on Obsidian's help vault: `[[#x]]` in one note was checked against a sibling's headings."""
    root = make_vault(
        tmp_path, {"n/one.md": "# One\n\n[[#One]]\n", "n/two.md": "# Two\n\n[[#Two]] [[#One]]\n"}, schema=False
    )
    assert lint(root, "broken-wikilink") == [("broken-wikilink", "error", "n/two.md", 3, 10)]


def test_resolver_same_note_link_depends_on_the_note_not_its_folder() -> None:
    """Resolver.resolve caches by (folder, target); for the empty target of `[[#Heading]]` the answer is the
    linking note itself, so two notes of one folder must not share it."""
    resolver = Resolver(["n/one.md", "n/two.md"])
    assert resolver.resolve("n/one.md", "").path == "n/one.md"
    assert resolver.resolve("n/two.md", "").path == "n/two.md"


# ---- "did you mean" and aliases ------------------------------------------------------------------------


def test_did_you_mean_by_title_and_by_alias_with_a_safe_fix(tmp_path: Path) -> None:
    files = with_base(
        {
            "entities/sam-altman.md": page("Sam Altman", body="[[a]] [[b]]\n"),
            "entities/openai.md": page("OpenAI", aliases=["Open AI"], body="[[a]] [[b]]\n"),
            "entities/t.md": page("T", body="[[Sam Altman]] [[Open AI]]\n[[Sam Altman|Sam]] ![[Sam Altman#Life]]\n"),
        }
    )
    root = make_vault(tmp_path, files)
    got = [
        (f.line, f.column, f.target, f.message, f.fix and (f.fix.action, f.fix.path, f.fix.line, f.fix.old, f.fix.new))
        for f in lint_full(root, "broken-wikilink")
    ]
    assert got == [
        (B + 1, 1, "Sam Altman", "link target 'Sam Altman' does not exist; did you mean [[sam-altman|Sam Altman]]?",
         ("replace", "entities/t.md", B + 1, "[[Sam Altman]]", "[[sam-altman|Sam Altman]]")),
        (B + 1, 16, "Open AI", "link target 'Open AI' does not exist; did you mean [[openai|Open AI]]?",
         ("replace", "entities/t.md", B + 1, "[[Open AI]]", "[[openai|Open AI]]")),
        (B + 2, 1, "Sam Altman", "link target 'Sam Altman' does not exist; did you mean [[sam-altman|Sam]]?",
         ("replace", "entities/t.md", B + 2, "[[Sam Altman|Sam]]", "[[sam-altman|Sam]]")),
        (B + 2, 20, "Sam Altman", "link target 'Sam Altman' does not exist; did you mean [[sam-altman|Sam Altman]]?",
         ("replace", "entities/t.md", B + 2, "![[Sam Altman#Life]]", "![[sam-altman#Life|Sam Altman]]")),
    ]


def test_aliases_and_titles_never_resolve_a_link(tmp_path: Path) -> None:
    files = with_base(
        {
            "entities/chroma.md": page("Chroma", aliases=["ChromaDB"], body="[[a]] [[b]]\n"),
            "entities/t.md": page("T", body="[[ChromaDB]] [[Chroma]]\n"),
        }
    )
    root = make_vault(tmp_path, files)
    found = lint_full(root, "broken-wikilink", "orphan-page")
    # [[Chroma]] reaches chroma.md by its file name (case-insensitive); [[ChromaDB]] is only an alias
    # sorted by path, then line: t.md's whole-page finding comes first
    assert [(f.rule, f.path, f.line, f.column, f.target) for f in found] == [
        ("orphan-page", "entities/t.md", None, None, None),  # chroma.md is linked (by its name), t.md is not
        ("broken-wikilink", "entities/t.md", B + 1, 1, "ChromaDB"),
    ]
    assert found[1].message.endswith("did you mean [[chroma|ChromaDB]]?")


def test_did_you_mean_a_typo_offers_no_fix(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path, with_base({"entities/openai.md": page("OpenAI"), "entities/t.md": page("T", body="[[opneai]]\n")})
    )
    (finding,) = lint_full(root, "broken-wikilink")
    assert finding.message == "link target 'opneai' does not exist; did you mean [[openai]]?"
    assert finding.fix is None


def test_did_you_mean_by_file_name_slug(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        with_base(
            {"entities/sam-altman.md": page("Samuel H. Altman"), "entities/t.md": page("T", body="[[Sam Altman]]\n")}
        ),
    )
    (finding,) = lint_full(root, "broken-wikilink")
    assert finding.message == "link target 'Sam Altman' does not exist; did you mean [[sam-altman|Sam Altman]]?"
    assert finding.fix is not None and finding.fix.new == "[[sam-altman|Sam Altman]]"


def test_ambiguous_title_gives_no_fix(tmp_path: Path) -> None:
    files = with_base({"entities/t.md": page("T", body="[[Sam Altman]]\n")})
    files["concepts/sam-altman-2.md"] = page("Sam Altman", type="concept")
    files["entities/sam-altman-3.md"] = page("Sam Altman")
    root = make_vault(tmp_path, files)
    (finding,) = lint_full(root, "broken-wikilink")
    assert finding.fix is None


# ---- index-gap -------------------------------------------------------------------------------------

INDEX_HEAD = "# Wiki Index\n\n## Entities\n- [[a]] — A\n- [[b]] — B\n- [[c]] — C\n"  # lines 1-6

INDEX_CASES = [
    pytest.param(INDEX_HEAD + "- [[d]] — D\n", [], id="listed"),
    pytest.param(INDEX_HEAD, [("index-gap", "error", "entities/d.md", None, None)], id="not-listed"),
    pytest.param(INDEX_HEAD + "- [[D|the d page]]\n", [], id="listed-with-alias-and-case"),
    pytest.param(INDEX_HEAD + "- [[entities/d]]\n", [], id="listed-by-path"),
    pytest.param(INDEX_HEAD + "- [D](entities/d.md)\n", [], id="listed-by-markdown-link"),
    pytest.param(INDEX_HEAD + "Also see [[d]] in prose.\n", [], id="listed-in-prose"),
    pytest.param(
        INDEX_HEAD + "<!-- - [[d]] -->\n", [("index-gap", "error", "entities/d.md", None, None)], id="only-in-a-comment"
    ),
    pytest.param(
        INDEX_HEAD + "```\n- [[d]]\n```\n", [("index-gap", "error", "entities/d.md", None, None)], id="only-in-code"
    ),
    pytest.param(
        INDEX_HEAD + "- [[d]]\n- [[ghost]] — gone\n",
        [("index-gap", "error", "index.md", 8, 3)],
        id="dead-entry-at-its-line",
    ),
    pytest.param(
        INDEX_HEAD + "- [[d]]\n\n## Queries\n  - x [[gone-query]]\n",
        [("index-gap", "error", "index.md", 10, 7)],
        id="dead-entry-column",
    ),
    pytest.param(INDEX_HEAD + "- [[d]]\n- [[D]]\n", [("index-gap", "warning", "index.md", 8, 3)], id="listed-twice"),
]


@pytest.mark.parametrize("index, expected", INDEX_CASES)
def test_index_gap(tmp_path: Path, index: str, expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, "entities/d.md": page("D", body="[[a]]\n")}, index=index)
    assert lint(root, "index-gap") == expected


def test_index_gap_without_index_md(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BASE, index=False)
    assert lint(root, "index-gap") == [("index-gap", "error", "index.md", None, None)]


def test_index_gap_messages_and_fixes(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {**BASE, "entities/d.md": page("D")}, index=INDEX_HEAD + "- [[ghost]] — gone\n")
    missing, dead = lint_full(root, "index-gap")  # sorted by path
    assert (dead.path, dead.target, dead.message) == (
        "index.md",
        "ghost",
        "index entry 'ghost' points at a page that does not exist",
    )
    assert (dead.fix.action, dead.fix.line) == ("index-remove", 7)
    assert (missing.path, missing.message) == ("entities/d.md", "page is not listed in index.md")
    assert (missing.fix.action, missing.fix.path) == ("index-add", "entities/d.md")


# ---- frontmatter -------------------------------------------------------------------------------------

FULL = (
    "created: 2026-01-01\nupdated: 2026-01-02\ntype: entity\ntags: [rag]\nsources: "
    "[raw/articles/source-a.md, raw/articles/source-b.md]\n"
)
NO_TAGS = FULL.replace("tags: [rag]\n", "")


def fm(path: str, line: int | None, severity: str = "error") -> Row:
    return ("frontmatter", severity, path, line, 1 if line else None)


E = "entities/e.md"

FRONTMATTER_CASES = [
    pytest.param(page("E"), [], id="valid"),
    pytest.param(
        "---\ntitle: E\ntags: [rag, b\n" + NO_TAGS + "---\n# E\n",
        [fm(E, 3)],
        id="invalid-yaml-unclosed-bracket-at-its-line",
    ),
    pytest.param("---\ntitle: E\n" + FULL + "summary: a: b: c\n---\n", [fm(E, 8)], id="invalid-yaml-mapping-in-value"),
    pytest.param("---\ntitle: E\n" + FULL + "  bad: indent\n---\n", [fm(E, 8)], id="invalid-yaml-indent"),
    pytest.param("---\ntitle: E\n" + FULL + "# E\n\nno closing fence\n", [fm(E, 1)], id="unclosed-frontmatter"),
    pytest.param("\n---\ntitle: E\n" + FULL + "---\n# E\n", [fm(E, 2)], id="frontmatter-not-on-line-1"),
    pytest.param("# E\n\nNo frontmatter at all.\n", [fm(E, None)], id="no-frontmatter"),
    pytest.param("---\n- a\n- b\n---\n", [fm(E, 2)], id="not-a-mapping"),
    pytest.param("---\ntitle: E\ntitle: F\n" + FULL + "---\n", [fm(E, 3)], id="duplicate-key"),
    pytest.param(page(None), [fm(E, 1)], id="title-missing"),
    pytest.param(page("E", created=None), [fm(E, 1)], id="created-missing"),
    pytest.param(page("E", updated=None), [fm(E, 1)], id="updated-missing"),
    pytest.param(page("E", type=None), [fm(E, 1)], id="type-missing"),
    pytest.param(page("E", tags=None), [fm(E, 1)], id="tags-missing"),
    pytest.param(page("E", sources=None), [fm(E, 1), fm(E, None, "warning")], id="sources-missing"),
    pytest.param(page(""), [fm(E, 2)], id="title-empty"),
    pytest.param(page(["E"]), [fm(E, 2)], id="title-a-list"),  # type: ignore[arg-type]  # a title of the wrong type
    pytest.param(page("E", created="last week"), [fm(E, 3)], id="created-not-a-date"),
    pytest.param(page("E", updated="2026-02-30"), [fm(E, 4)], id="updated-impossible-date"),
    pytest.param(
        page("E", created="2026-02-01", updated="2026-01-01"), [fm(E, 4, "warning")], id="updated-before-created"
    ),
    pytest.param(page("E", type="bogus"), [fm(E, 5)], id="type-unknown"),
    pytest.param(page("E", type="concept", body="## a\n## b\n## c\n"), [fm(E, 5)], id="type-not-matching-folder"),
    pytest.param(page("E", tags="rag"), [fm(E, 6)], id="tags-not-a-list"),
    pytest.param(page("E", tags=["rag", "nope"]), [fm(E, 6)], id="tag-outside-taxonomy"),
    pytest.param(page("E", tags=["RAG", "Tooling"]), [], id="tags-case-insensitive"),
    pytest.param(page("E", tags=["#rag"]), [fm(E, 6, "warning")], id="tag-written-with-hash"),
    pytest.param(page("E", tags=[3]), [fm(E, 6)], id="tag-not-text"),  # type: ignore[list-item]  # a tag of the wrong type
    pytest.param(
        page("E", sources="raw/articles/source-a.md"), [fm(E, 8), fm(E, 8, "warning")], id="sources-not-a-list"
    ),
    pytest.param(
        page("E", sources=[*DEFAULT_SOURCES, "raw/articles/nope.md"]), [fm(E, 8)], id="source-missing-from-raw"
    ),
    pytest.param(page("E", sources=[*DEFAULT_SOURCES, "notes/elsewhere.md"]), [fm(E, 8)], id="source-not-under-raw"),
    pytest.param(
        page("E", sources=["[[raw/articles/source-a.md]]", "raw/Articles/Source-B.md"]),
        [],
        id="sources-as-links-and-any-case",
    ),
    pytest.param(page("E", aliases="E2"), [fm(E, 11)], id="aliases-not-a-list"),
    pytest.param(page("E", contested="yes"), [fm(E, 11)], id="contested-not-a-bool"),
    pytest.param(page("E", summary=["a"]), [fm(E, 11)], id="summary-not-text"),
    pytest.param(page("E", related="[[a]]", see='"[[b]]"'), [], id="quoted-links-are-fine"),
    pytest.param(
        page("E").replace("---\n\n", "related: [[a]]\n---\n\n", 1).replace("\n---\nrelated", "\nrelated"),
        [fm(E, 11)],
        id="unquoted-wikilink",
    ),
    # page-type thresholds (the default SCHEMA.md: 2 references, 3 sections, 3 axes)
    pytest.param(page("E", sources=[DEFAULT_SOURCES[0]]), [fm(E, 8, "warning")], id="entity-below-min-references"),
    pytest.param(
        page("E", sources=[DEFAULT_SOURCES[0], DEFAULT_SOURCES[0]]),
        [fm(E, 8, "warning")],
        id="entity-references-are-distinct",
    ),
]


@pytest.mark.parametrize("text, expected", FRONTMATTER_CASES)
def test_frontmatter(tmp_path: Path, text: str, expected: list[Row]) -> None:
    root = make_vault(tmp_path, with_base({"entities/e.md": text}))
    assert sorted(lint(root, "frontmatter"), key=str) == sorted(expected, key=str)


THRESHOLD_CASES = [
    pytest.param(
        "concepts/k.md", page("K", type="concept", body="## one\n## two\n## three\n"), [], id="concept-3-sections"
    ),
    pytest.param(
        "concepts/k.md",
        page("K", type="concept", body="# K\n## one\n### sub\n## two\n"),
        [("frontmatter", "warning", "concepts/k.md", None, None)],
        id="concept-2-sections",
    ),
    pytest.param("comparisons/k.md", page("K", type="comparison"), [], id="comparison-3-axes"),
    pytest.param(
        "comparisons/k.md",
        page("K", type="comparison", body="| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"),
        [("frontmatter", "warning", "comparisons/k.md", None, None)],
        id="comparison-2-axes",
    ),
    pytest.param(
        "comparisons/k.md",
        page("K", type="comparison", body="No table.\n"),
        [("frontmatter", "warning", "comparisons/k.md", None, None)],
        id="comparison-no-table",
    ),
    pytest.param(
        "queries/k.md", page("K", type="query", sources=[DEFAULT_SOURCES[0]]), [], id="query-has-no-reference-threshold"
    ),
]


@pytest.mark.parametrize("path, text, expected", THRESHOLD_CASES)
def test_frontmatter_page_type_thresholds(tmp_path: Path, path: str, text: str, expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, path: text})
    assert lint(root, "frontmatter") == expected


def test_frontmatter_threshold_messages(tmp_path: Path) -> None:
    files = {
        **BASE,
        "entities/e.md": page("E", sources=[DEFAULT_SOURCES[0]]),
        "concepts/k.md": page("K", type="concept", body="## one\n"),
        "comparisons/x.md": page("X", type="comparison", body="| a | b |\n|---|---|\n| 1 | 2 |\n"),
    }
    root = make_vault(tmp_path, files)
    assert [f.message for f in lint_full(root, "frontmatter")] == [
        "comparison table has 1 axis row(s); SCHEMA.md's comparison_min_axes is 3",
        "concept has 1 '##' section(s) of its own (besides Related, History, Contradictions, Open questions); "
        "SCHEMA.md's concept_min_sections is 3",
        "entity cites 1 distinct source(s); SCHEMA.md's entity_min_references is 2",
    ]


def test_frontmatter_thresholds_follow_schema(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA.replace("entity_min_references: 2", "entity_min_references: 1").replace(
        "concept_min_sections: 3", "concept_min_sections: 0"
    )
    files = {
        **BASE,
        "entities/e.md": page("E", sources=[DEFAULT_SOURCES[0]]),
        "concepts/k.md": page("K", type="concept", body="text\n"),
    }
    assert lint(make_vault(tmp_path, files, schema), "frontmatter") == []


NAMING_CASES = [
    pytest.param("entities/good-name-2.md", [], id="lowercase-with-hyphens"),
    pytest.param("entities/日本語-ノート.md", [], id="lowercase-any-script"),
    pytest.param(
        "entities/Bad-Name.md", [("frontmatter", "warning", "entities/Bad-Name.md", None, None)], id="capital"
    ),
    pytest.param(
        "entities/bad_name.md", [("frontmatter", "warning", "entities/bad_name.md", None, None)], id="underscore"
    ),
    pytest.param(
        "entities/bad--name.md", [("frontmatter", "warning", "entities/bad--name.md", None, None)], id="double-hyphen"
    ),
    pytest.param("entities/bad name.md", [("frontmatter", "warning", "entities/bad name.md", None, None)], id="space"),
]


@pytest.mark.parametrize("path, expected", NAMING_CASES)
def test_frontmatter_naming_convention(tmp_path: Path, path: str, expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, path: page("N")})
    assert lint(root, "frontmatter") == expected


def test_frontmatter_naming_convention_from_schema(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA.replace("- lowercase-with-hyphens.md", "- lowercase_with_underscores.md")
    files = {"entities/snake_case.md": page("S"), "entities/kebab-case.md": page("K")}
    assert lint(make_vault(tmp_path, files, schema), "frontmatter") == [
        ("frontmatter", "warning", "entities/kebab-case.md", None, None)
    ]


def test_frontmatter_missing_fields_message(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"entities/e.md": "---\ntitle: E\ntags: []\n---\n# E\n"})
    messages = [f.message for f in lint_full(root, "frontmatter")]
    assert "missing required field(s): created, updated, type, sources" in messages


def test_frontmatter_invalid_yaml_message_names_the_problem(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"entities/e.md": "---\ntitle: E\ntags: [rag, b\n" + NO_TAGS + "---\n"})
    (finding,) = lint_full(root, "frontmatter")
    assert finding.message.startswith("invalid YAML in frontmatter:")


def test_schema_type_folders_and_extra_page_types(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA + "## Page Types\n- person: people\n"
    files = {"people/ada.md": page("Ada", type="person"), "people/bob.md": page("Bob", type="entity")}
    root = make_vault(tmp_path, files, schema)
    assert lint(root, "frontmatter") == [("frontmatter", "error", "people/bob.md", 5, 1)]


SCHEMA_PROBLEM_CASES = [
    pytest.param(
        DEFAULT_SCHEMA.replace("- query_max_age_days: 90", "- query_max_age_days: 90\n- bogus_threshold: 3"),
        13,
        "warning",
        "unknown threshold 'bogus_threshold'",
        id="unknown-threshold-key",
    ),
    pytest.param(
        DEFAULT_SCHEMA.replace("entity_min_references: 2", "entity_min_reference: 2"),
        9,
        "error",
        "unknown threshold 'entity_min_reference'; did you mean 'entity_min_references'?",
        id="misspelt-threshold-key",
    ),
    pytest.param(
        DEFAULT_SCHEMA.replace("entity_min_references: 2", "entity_min_references: many"),
        9,
        "error",
        "threshold 'entity_min_references' must be a whole number from 0 to 1,000, not 'many'",
        id="threshold-not-a-number",
    ),
    pytest.param(
        DEFAULT_SCHEMA.replace("- lowercase-with-hyphens.md", "- CamelCase.md"),
        14,
        "error",
        "unknown naming convention 'CamelCase.md'",
        id="unknown-naming-convention",
    ),
    pytest.param(
        DEFAULT_SCHEMA + "## Lint\n- orphan-page: loud\n",
        16,
        "error",
        "the severity of 'orphan-page' must be error, warning, info or off, not 'loud'",
        id="bad-lint-severity",
    ),
    pytest.param(
        DEFAULT_SCHEMA + "## Lint\n- orphan-page: off\n- no-such-rule: error\n",
        17,
        "warning",
        "unknown rule 'no-such-rule'",
        id="unknown-lint-rule",
    ),
    pytest.param(
        DEFAULT_SCHEMA + "## Lint\n- orphan-pages: off\n",
        16,
        "error",
        "unknown rule 'orphan-pages' under '## Lint'; did you mean 'orphan-page'?",
        id="misspelt-lint-rule",
    ),
    pytest.param(
        DEFAULT_SCHEMA + "## Lints\n- orphan-page: off\n",
        15,
        "error",
        "'## Lints' is not a section wikic reads; did you mean '## Lint'?",
        id="misspelt-section",
    ),
    pytest.param(
        DEFAULT_SCHEMA.replace("## Domain\nAI Engineering & Knowledge Management\n", ""),
        None,
        "warning",
        "no '## Domain' section",
        id="no-domain",
    ),
    pytest.param(
        DEFAULT_SCHEMA.replace("- #architecture\n- #rag\n- #tooling\n", ""),
        None,
        "warning",
        "no tags under '## Taxonomy Tags'",
        id="no-tags",
    ),
]


@pytest.mark.parametrize("schema, line, severity, message", SCHEMA_PROBLEM_CASES)
def test_unknown_or_bad_schema_keys_are_findings_not_crashes(
    tmp_path: Path, schema: str, line: int | None, severity: str, message: str
) -> None:
    """What SCHEMA.md cannot be read as meant (a near miss of a known name, a value it does not take) is an
    error, as it is for ingest; the rest is a warning."""
    root = make_vault(tmp_path, {"entities/a.md": page("A", tags=[])}, schema)
    report = run_lint(root, LintOptions(select=("frontmatter",), use_cache=False))
    schema_findings = [f for f in report.findings if f.path == "SCHEMA.md"]
    assert [(f.rule, f.severity, f.line) for f in schema_findings] == [("frontmatter", severity, line)]
    assert message in schema_findings[0].message
    assert report.exit_code == (1 if severity == "error" else 0)


def test_unknown_schema_sections_are_prose(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA + "## Conventions\nWrite short sentences.\n- key: value\n"
    root = make_vault(tmp_path, BASE, schema)
    assert lint(root, "frontmatter") == []


# ---- stale-page --------------------------------------------------------------------------------------

NEW_SOURCE = {"raw/articles/new.md": "---\ntitle: New\ncaptured: 2026-06-01\n---\n# New\n"}


def stale(path: str) -> Row:
    return ("stale-page", "warning", path, None, None)


STALE_CASES = [
    pytest.param(
        {
            **NEW_SOURCE,
            "entities/e.md": page("E", sources=[DEFAULT_SOURCES[0], "raw/articles/new.md"], updated="2026-03-03"),
        },
        TODAY,
        [],
        id="source-90-days-newer-is-fine",
    ),
    pytest.param(
        {
            **NEW_SOURCE,
            "entities/e.md": page("E", sources=[DEFAULT_SOURCES[0], "raw/articles/new.md"], updated="2026-03-02"),
        },
        TODAY,
        [stale("entities/e.md")],
        id="source-91-days-newer",
    ),
    pytest.param(
        {
            "raw/articles/new.md": "---\ningested: 2026-06-01\n---\n",
            "entities/e.md": page("E", sources=["raw/articles/new.md"], updated="2026-01-01"),
        },
        TODAY,
        [stale("entities/e.md")],
        id="ingested-key",
    ),
    pytest.param(
        {
            "raw/articles/new.md": "no frontmatter\n",
            "entities/e.md": page("E", sources=["raw/articles/new.md"], updated="2020-01-01"),
        },
        TODAY,
        [],
        id="source-without-a-date",
    ),
    pytest.param(
        {**NEW_SOURCE, "entities/e.md": page("E", sources=["[[raw/articles/new.md]]"], updated="2026-01-01")},
        TODAY,
        [stale("entities/e.md")],
        id="source-written-as-a-link",
    ),
    pytest.param({"queries/q.md": page("Q", type="query", updated="2025-12-01")}, TODAY, [], id="query-90-days-old"),
    pytest.param(
        {"queries/q.md": page("Q", type="query", updated="2025-11-30")},
        TODAY,
        [stale("queries/q.md")],
        id="query-91-days-old",
    ),
    pytest.param(
        {"queries/q.md": page("Q", type="query", updated="2025-11-30")},
        dt.date(2026, 2, 28),
        [],
        id="query-age-follows-as-of",
    ),
    pytest.param(
        {"entities/e.md": page("E", updated="2026-01-02")}, dt.date(2030, 1, 1), [], id="old-entity-is-not-a-query"
    ),
    pytest.param(
        {
            "queries/q.md": page("Q", type="query", updated="2026-01-10", body="[[a]] [[b]]\n"),
            "entities/a.md": page("A", updated="2026-01-11"),
        },
        TODAY,
        [stale("queries/q.md")],
        id="query-cites-page-updated-later",
    ),
    pytest.param(
        {
            "queries/q.md": page("Q", type="query", updated="2026-01-10", body="[[a]] [[b]]\n"),
            "entities/a.md": page("A", updated="2026-01-10"),
        },
        TODAY,
        [],
        id="query-cites-page-updated-same-day",
    ),
    pytest.param(
        {
            "queries/q.md": page("Q", type="query", updated="2025-11-30", body="[[a]]\n"),
            "entities/a.md": page("A", updated="2026-01-11"),
        },
        TODAY,
        [stale("queries/q.md"), stale("queries/q.md")],
        id="query-old-and-cites-changed",
    ),
]


@pytest.mark.parametrize("files, today, expected", STALE_CASES)
def test_stale_page(tmp_path: Path, files: dict[str, str], today: dt.date, expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, **files})
    assert lint(root, "stale-page", today=today) == expected


def test_stale_page_messages(tmp_path: Path) -> None:
    files = {
        **BASE,
        **NEW_SOURCE,
        "entities/e.md": page("E", sources=["raw/articles/new.md"], updated="2026-01-01"),
        "queries/q.md": page("Q", type="query", updated="2025-11-01", body="[[a]]\n"),
        "entities/a.md": page("A", updated="2026-01-11", body="[[b]] [[c]]\n"),
    }
    root = make_vault(tmp_path, files)
    assert [f.message for f in lint_full(root, "stale-page")] == [
        "updated 2026-01-01, but it cites a source captured 2026-06-01 (151 days later; stale_after_days is 90)",
        "cites page(s) updated after this answer was written: entities/a.md",
        "query page is 120 days old (query_max_age_days is 90); re-run it with `wikic query --refresh queries/q.md`",
    ]


def test_stale_page_query_cited_fingerprints(tmp_path: Path) -> None:
    """A query page's `cited: {path: fingerprint}` (written by query write-back) is exact where dates are not."""
    from wikic.pages.fingerprint import page_fingerprint

    a_text = page("A", updated="2026-02-20", body="[[b]] [[c]]\n")
    cited = {
        "entities/a.md": page_fingerprint(a_text),
        "entities/b.md": "0" * 16,
        "entities/gone.md": page_fingerprint(a_text),
    }
    files = {
        **BASE,
        "entities/a.md": a_text,  # updated after the query, but its knowledge did not change: not stale
        "queries/q.md": page("Q", type="query", updated="2026-02-01", cited=cited, body="[[a]] [[b]]\n"),
        "queries/r.md": page(
            "R",
            type="query",
            updated="2026-02-01",
            cited={"entities/a.md": page_fingerprint(a_text)[:8]},
            body="[[a]]\n",
        ),
    }
    root = make_vault(tmp_path, files)
    found = lint_full(root, "stale-page")
    assert [(f.rule, f.severity, f.path, f.line) for f in found] == [
        ("stale-page", "warning", "queries/q.md", 11),
        ("stale-page", "warning", "queries/q.md", 11),
    ]
    assert [f.message for f in found] == [
        (
            "cited page(s) changed since this answer was written: entities/b.md; refresh it with `wikic "
            "query --refresh queries/q.md`"
        ),
        "cited page(s) no longer exist: entities/gone.md; refresh it with `wikic query --refresh queries/q.md`",
    ]


def test_stale_page_source_date_from_the_ledger(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {
            **BASE,
            "raw/articles/plain.txt": "text\n",
            "entities/e.md": page("E", sources=["raw/articles/plain.txt"], updated="2026-01-01"),
        },
    )
    (root / ".wikic").mkdir()
    (root / ".wikic" / "sources.json").write_text(
        json.dumps(
            {
                "version": 1,
                "sources": {
                    "raw/articles/plain.txt": {
                        "sha256": hashlib.sha256(b"text\n").hexdigest(),
                        "captured": "2026-05-01T10:00:00+00:00",
                    }
                },
            }
        )
    )
    assert lint(root, "stale-page") == [stale("entities/e.md")]


def test_stale_after_days_from_schema(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA.replace("- query_max_age_days: 90", "- query_max_age_days: 5\n- stale_after_days: 10")
    files = {
        **BASE,
        "raw/articles/new.md": "---\ncaptured: 2026-01-20\n---\n",
        "entities/e.md": page("E", sources=["raw/articles/new.md"], updated="2026-01-09"),
        "queries/q.md": page("Q", type="query", updated="2026-02-23"),
    }
    assert lint(make_vault(tmp_path, files, schema), "stale-page") == [stale("entities/e.md"), stale("queries/q.md")]


# ---- contradiction -----------------------------------------------------------------------------------

CONTRADICTION_CASES = [
    pytest.param(
        {"entities/e.md": page("E", contested=True)},
        [("contradiction", "info", "entities/e.md", 11, 1)],
        id="contested",
    ),
    pytest.param({"entities/e.md": page("E", contested=False)}, [], id="not-contested"),
    pytest.param(
        {"entities/e.md": page("E", contradictions=["[[ghost]]"])},
        [("contradiction", "warning", "entities/e.md", 11, 1)],
        id="names-a-missing-page",
    ),
    pytest.param(
        {"entities/e.md": page("E", contradictions=["[[f]]"]), "entities/f.md": page("F")},
        [("contradiction", "warning", "entities/e.md", 11, 1)],
        id="not-mirrored",
    ),
    pytest.param(
        {"entities/e.md": page("E", contradictions=["[[f]]"]), "entities/f.md": page("F", contradictions=["[[e]]"])},
        [],
        id="mirrored",
    ),
    pytest.param(
        {
            "entities/e.md": page("E", contradictions=["[[F|the other]]"]),
            "concepts/f.md": page("F", type="concept", contradictions=["[[entities/e]]"]),
        },
        [],
        id="mirrored-by-path-and-alias",
    ),
    pytest.param(
        {
            "entities/e.md": page("E", contested=True, contradictions=["[[f]]"]),
            "entities/f.md": page("F", contested=True, contradictions=["[[e]]"]),
        },
        [("contradiction", "info", "entities/e.md", 11, 1), ("contradiction", "info", "entities/f.md", 11, 1)],
        id="both-contested-and-mirrored",
    ),
]


@pytest.mark.parametrize("files, expected", CONTRADICTION_CASES)
def test_contradiction(tmp_path: Path, files: dict[str, str], expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, **files})
    assert lint(root, "contradiction") == expected


def test_contradiction_messages(tmp_path: Path) -> None:
    files = {**BASE, "entities/e.md": page("E", contradictions=["[[ghost]]", "[[f]]"]), "entities/f.md": page("F")}
    root = make_vault(tmp_path, files)
    assert [(f.target, f.message) for f in lint_full(root, "contradiction")] == [
        ("f", "contradictions names 'f', but 'entities/f.md' does not name this page back"),
        ("ghost", "contradictions names 'ghost', which does not exist"),
    ]


# ---- extra rules ---------------------------------------------------------------------------------------


def test_ambiguous_link(tmp_path: Path) -> None:
    files = {
        **BASE,
        "entities/dup.md": page("Dup 1"),
        "concepts/dup.md": page("Dup 2", type="concept"),
        "queries/q.md": page("Q", type="query", body="x\n[[dup]] [[concepts/dup]] [[entities/dup]]\n"),
        "entities/e.md": page("E", body="[[dup]]\n"),  # the same folder wins: not ambiguous
    }
    root = make_vault(tmp_path, files)
    (finding,) = lint_full(root, "ambiguous-link")
    assert (finding.rule, finding.severity, finding.path, finding.line, finding.column, finding.target) == (
        "ambiguous-link",
        "warning",
        "queries/q.md",
        B + 2,
        1,
        "dup",
    )
    assert finding.message == (
        "'dup' matches 2 files (concepts/dup.md, entities/dup.md); it resolves to 'concepts/dup.md': "
        "write the path to be sure"
    )


def test_ambiguous_link_in_a_plain_vault(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {"a/dup.md": "x", "b/dup.md": "y", "top.md": "[[dup]]\n[[a/dup]]\n", "a/near.md": "[[dup]]\n"},
        schema=False,
    )
    assert lint(root, "ambiguous-link") == [("ambiguous-link", "warning", "top.md", 1, 1)]


MALFORMED_CASES = [
    pytest.param("fine [[a]]\n", [], id="clean"),
    pytest.param("ok [[a\n", [(1, 4)], id="unclosed-wikilink"),
    pytest.param("[[]]\n", [(1, 1)], id="empty-link"),
    pytest.param("x\n\n```python\ncode [[a]]\n", [(3, 1)], id="unclosed-fence"),
    pytest.param("x %% hidden [[a]]\n", [(1, 3)], id="unclosed-inline-comment"),
    pytest.param("x\n\n%%\nhidden\n", [(3, 1)], id="unclosed-comment-block"),
    pytest.param("> [!note]\n> ```css\n> a {}\n> ```\n\n[[a]]\n", [], id="closed-fence-in-a-callout"),
]


@pytest.mark.parametrize("body, expected", MALFORMED_CASES)
def test_malformed_link(tmp_path: Path, body: str, expected: list[tuple[int, int]]) -> None:
    root = make_vault(tmp_path, with_base({"entities/t.md": page("T", body=body)}))
    assert lint(root, "malformed-link") == [
        ("malformed-link", "warning", "entities/t.md", B + line, col) for line, col in expected
    ]


TOO_FEW_CASES = [
    pytest.param("[[a]] [[b]]\n", [], id="two-pages"),
    pytest.param(
        "[[a]] [[a]] [[A|again]]\n",
        [("too-few-links", "warning", "entities/t.md", None, None)],
        id="one-page-many-times",
    ),
    pytest.param(
        "[[a]] [[t]] [[raw/articles/source-a]] [[ghost]] [[index]]\n",
        [("too-few-links", "warning", "entities/t.md", None, None)],
        id="self-raw-broken-and-index-do-not-count",
    ),
    pytest.param("![[a]] [b](b.md)\n", [], id="embeds-and-markdown-links-count"),
]


@pytest.mark.parametrize("body, expected", TOO_FEW_CASES)
def test_too_few_links(tmp_path: Path, body: str, expected: list[Row]) -> None:
    root = make_vault(tmp_path, with_base({"entities/t.md": page("T", body=body)}))
    assert lint(root, "too-few-links") == expected


def test_too_few_links_threshold_from_schema(tmp_path: Path) -> None:
    schema = DEFAULT_SCHEMA.replace("- query_max_age_days: 90", "- query_max_age_days: 90\n- min_outbound_links: 0")
    root = make_vault(tmp_path, {"entities/t.md": page("T", body="no links\n")}, schema)
    assert lint(root, "too-few-links") == []


def test_page_too_long(tmp_path: Path) -> None:
    files = {
        **BASE,
        "entities/fits.md": page("Fits", body="line\n" * (200 - B)),  # 200 lines
        "entities/long.md": page("Long", body="line\n" * (201 - B)),  # 201 lines
    }
    root = make_vault(tmp_path, files)
    (finding,) = lint_full(root, "page-too-long")
    assert (finding.severity, finding.path, finding.line, finding.message) == (
        "warning",
        "entities/long.md",
        None,
        "page has 201 lines; SCHEMA.md's max_page_lines is 200",
    )


def test_page_too_long_over_the_parse_limit(tmp_path: Path) -> None:
    body = ("word [[ghost]] " * 8 + "\n") * 80_000  # ~9.6 MB
    root = make_vault(tmp_path, {"huge.md": "---\ntitle: Huge\n---\n" + body}, schema=False)
    findings = lint_full(root)
    # its links were not read, so no broken-wikilink; the only note has nothing to be linked from: no orphan
    assert [(f.rule, f.severity, f.path, f.line) for f in findings] == [("page-too-long", "warning", "huge.md", None)]
    assert re.fullmatch(r"page is 9(\.\d)? MB, over the 8 MB parse limit: its links were not read", findings[0].message)


def test_duplicate_page(tmp_path: Path) -> None:
    files = {
        **BASE,
        "entities/x.md": page("Same Thing"),
        "concepts/y.md": page("Other", type="concept", aliases=["same thing"]),
        "entities/z.md": page("Z", aliases=["A"]),
    }
    root = make_vault(tmp_path, files)
    got = [(f.rule, f.severity, f.path, f.line, f.target) for f in lint_full(root, "duplicate-page")]
    assert got == [
        ("duplicate-page", "warning", "concepts/y.md", None, "same thing"),
        ("duplicate-page", "warning", "entities/a.md", None, "a"),
        ("duplicate-page", "warning", "entities/x.md", None, "same thing"),
        ("duplicate-page", "warning", "entities/z.md", None, "a"),
    ]


ENCODING_CASES = [
    pytest.param(
        b"---\ntitle: X\n---\nok\n\xff\xfe bad\n",
        [("encoding", "error", "entities/x.md", 5, 1)],
        id="invalid-utf8-at-its-line",
    ),
    pytest.param("caf\u00e9\n".encode("latin-1"), [("encoding", "error", "entities/x.md", 1, 1)], id="latin-1"),
    pytest.param(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [("encoding", "error", "entities/x.md", None, None)], id="binary"
    ),
    pytest.param("\ufeff---\ntitle: X\n---\n".encode(), [], id="utf8-with-bom"),
    pytest.param(
        "caf\u00e9 \U0001f680\n".encode("utf-16"), [("encoding", "error", "entities/x.md", None, None)], id="utf-16"
    ),
]


@pytest.mark.parametrize("data, expected", ENCODING_CASES)
def test_encoding(tmp_path: Path, data: bytes, expected: list[Row]) -> None:
    root = make_vault(tmp_path, {**BASE, "entities/x.md": data})
    assert lint(root, "encoding") == expected
    if expected:  # a page that cannot be read is reported once, not also as a page without frontmatter
        assert [row for row in lint(root, "frontmatter") if row[2] == "entities/x.md"] == []


def test_unsafe_path_symlinks_leading_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("[[ghost]]\n")
    root = make_vault(tmp_path, BASE)
    os.symlink(outside / "secret.md", root / "entities" / "link.md")
    os.symlink(outside, root / "entities" / "folder-link")
    os.symlink(root / "entities" / "a.md", root / "entities" / "inside.md")  # inside the vault: fine
    assert lint(root, "unsafe-path") == [
        ("unsafe-path", "error", "entities/folder-link", None, None),
        ("unsafe-path", "error", "entities/link.md", None, None),
    ]
    # what lies outside is never read: its broken link is not reported
    assert [f[2] for f in lint(root, "broken-wikilink")] == []


UNSAFE_NAME_CASES = [
    pytest.param("entities/fine-name.md", [], id="fine"),
    pytest.param("entities/a#b.md", ["entities/a#b.md"], id="hash"),
    pytest.param("entities/a^b.md", ["entities/a^b.md"], id="caret"),
    pytest.param("entities/a[b].md", ["entities/a[b].md"], id="brackets"),
    pytest.param("entities/x: y.md", ["entities/x: y.md"], id="colon"),
    pytest.param("entities/why?.md", ["entities/why?.md"], id="question-mark"),
    pytest.param("raw/articles/we|rd.md", ["raw/articles/we|rd.md"], id="pipe-in-raw"),
    pytest.param("notes /x.md", ["notes /x.md"], id="folder-ends-with-space"),
    pytest.param("notes./x.md", ["notes./x.md"], id="folder-ends-with-dot"),
    pytest.param("entities/con.md", ["entities/con.md"], id="device-name"),
    pytest.param("entities/COM0.md", ["entities/COM0.md"], id="com0"),
    pytest.param("raw/articles/lpt0.tar.md", ["raw/articles/lpt0.tar.md"], id="lpt0-two-extensions"),
    pytest.param("raw/articles/COM¹.md", ["raw/articles/COM¹.md"], id="superscript-one"),
    pytest.param("nul/x.md", ["nul/x.md"], id="device-folder"),
    pytest.param("entities/console.md", [], id="a-longer-name"),
    pytest.param("entities/com0-page.md", [], id="what-the-slug-makes-of-it"),
]


@pytest.mark.parametrize("path, expected", UNSAFE_NAME_CASES)
def test_unsafe_name(tmp_path: Path, path: str, expected: list[str]) -> None:
    root = make_vault(tmp_path, {**BASE, path: page("X")})
    assert lint(root, "unsafe-name") == [("unsafe-name", "warning", p, None, None) for p in expected]


def test_case_collision(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {
            **BASE,
            "entities/Thing.md": page("T1"),
            "entities/thing.md": page("T2"),
            "Raw/x.png": b"x",
            "raw/X.png": b"y",
        },
    )
    found = lint_full(root, "case-collision")
    assert [(f.rule, f.severity, f.path, f.line, f.target) for f in found] == [
        ("case-collision", "error", "entities/thing.md", None, "entities/Thing.md"),
        ("case-collision", "error", "raw/X.png", None, "Raw/x.png"),
    ]


def test_raw_drift(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {**BASE, "raw/articles/kept.md": "same\n", "raw/articles/edited.md": "edited\n"})
    (root / ".wikic").mkdir()
    ledger = {
        "raw/articles/kept.md": {"sha256": hashlib.sha256(b"same\n").hexdigest(), "captured": "2026-01-01"},
        "raw/articles/edited.md": {"sha256": hashlib.sha256(b"original\n").hexdigest(), "captured": "2026-01-01"},
        "raw/articles/gone.md": {"sha256": hashlib.sha256(b"gone\n").hexdigest(), "captured": "2026-01-01"},
    }
    (root / ".wikic" / "sources.json").write_text(json.dumps({"version": 1, "sources": ledger}))
    found = lint_full(root, "raw-drift")
    assert [(f.rule, f.severity, f.path, f.line) for f in found] == [
        ("raw-drift", "error", "raw/articles/edited.md", None),
        ("raw-drift", "error", "raw/articles/gone.md", None),
    ]
    assert "changed after it was captured" in found[0].message and "gone from raw/" in found[1].message


def test_raw_drift_without_a_ledger(tmp_path: Path) -> None:
    assert lint(make_vault(tmp_path, BASE), "raw-drift") == []


# ---- a plain Obsidian vault (no SCHEMA.md) ----------------------------------------------------------------


def test_plain_vault_skips_schema_rules_and_lints_links_in_every_note(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "Home.md": "# Home\n\n[[Projects/Plan]] [[Ideas]] [[Nowhere]]\n",
        "Projects/Plan.md": "---\ntags: [whatever\n---\n[[Home]]\n",  # invalid YAML: a schema rule, skipped
        "Ideas.md": "No frontmatter, capital letters, no index. [[Home#Missing]]\n",
        "Daily/2026-01-01.md": (
            "---\ntitle: x\ncontested: true\ncontradictions: ['[[ghost]]']\nupdated: 1999-01-01\ntype: query\n---\n"
        ),
        "raw/source.md": "[[Gone]]\n",
        "Attachments/pic.png": b"\x89PNG\r\n\x1a\n",
    }
    root = make_vault(tmp_path, files, schema=False)
    assert not (root / "SCHEMA.md").exists()
    assert lint(root) == [
        ("orphan-page", "warning", "Daily/2026-01-01.md", None, None),
        ("broken-wikilink", "error", "Daily/2026-01-01.md", 4, 19),  # a quoted link in a property is a link
        ("broken-wikilink", "error", "Home.md", 3, 29),
        ("broken-wikilink", "error", "Ideas.md", 1, 44),
        ("orphan-page", "warning", "raw/source.md", None, None),
        ("broken-wikilink", "error", "raw/source.md", 1, 1),
    ]
    rules = {f[0] for f in lint(root)}
    assert rules <= {
        "orphan-page", "broken-wikilink", "ambiguous-link", "malformed-link", "page-too-long", "encoding",
        "unsafe-path", "unsafe-name", "case-collision", "confusable-name",
    }


# ---- severities, --select and --ignore ----------------------------------------------------------------------


def test_schema_lint_section_overrides_severities(tmp_path: Path) -> None:
    files = {**BASE, "entities/d.md": page("D", body="[[ghost]]\n"), "entities/e.md": page("E", contested=True)}
    plain = run_lint(
        make_vault(tmp_path, files),
        LintOptions(select=("orphan-page", "broken-wikilink", "contradiction"), use_cache=False),
    )
    assert [(f.rule, f.severity) for f in plain.findings] == [
        ("orphan-page", "warning"),
        ("broken-wikilink", "error"),
        ("orphan-page", "warning"),
        ("contradiction", "info"),
    ]
    assert plain.exit_code == 1

    schema = DEFAULT_SCHEMA + "## Lint\n- orphan-page: error\n- broken-wikilink: off\n- contradiction: warning\n"
    forced = run_lint(
        make_vault(tmp_path, files, schema),
        LintOptions(select=("orphan-page", "broken-wikilink", "contradiction"), use_cache=False),
    )
    assert [(f.rule, f.severity) for f in forced.findings] == [
        ("orphan-page", "error"),
        ("orphan-page", "error"),
        ("contradiction", "warning"),
    ]
    assert forced.exit_code == 1

    schema = DEFAULT_SCHEMA + "## Lint\n- orphan-page: info\n- broken-wikilink: warning\n"
    relaxed = run_lint(
        make_vault(tmp_path, files, schema), LintOptions(select=("orphan-page", "broken-wikilink"), use_cache=False)
    )
    assert {f.severity for f in relaxed.findings} == {"info", "warning"}
    assert relaxed.exit_code == 0
    assert (
        run_lint(
            make_vault(tmp_path, files, schema), LintOptions(select=("orphan-page",), use_cache=False, strict=True)
        ).exit_code
        == 0
    )
    assert (
        run_lint(
            make_vault(tmp_path, files, schema), LintOptions(select=("broken-wikilink",), use_cache=False, strict=True)
        ).exit_code
        == 1
    )


def test_select_and_ignore(tmp_path: Path) -> None:
    files = {**BASE, "entities/d.md": page("D", body="[[ghost]]\n", tags=["nope"])}
    root = make_vault(tmp_path, files)
    every = {f.rule for f in run_lint(root, LintOptions(use_cache=False)).findings}
    assert {"orphan-page", "broken-wikilink", "frontmatter", "too-few-links"} <= every
    only = run_lint(root, LintOptions(select=("broken-wikilink", "frontmatter"), use_cache=False))
    assert {f.rule for f in only.findings} == {"broken-wikilink", "frontmatter"}
    rest = run_lint(root, LintOptions(ignore=("broken-wikilink", "frontmatter"), use_cache=False))
    assert {f.rule for f in rest.findings} == every - {"broken-wikilink", "frontmatter"}
    both = run_lint(
        root, LintOptions(select=("broken-wikilink", "frontmatter"), ignore=("frontmatter",), use_cache=False)
    )
    assert {f.rule for f in both.findings} == {"broken-wikilink"}


@pytest.mark.parametrize("option", ["select", "ignore"])
def test_unknown_rule_is_a_usage_error_listing_the_known_rules(tmp_path: Path, option: str) -> None:
    root = make_vault(tmp_path, BASE)
    with pytest.raises(UsageError) as info:
        asked: dict[str, Any] = {option: ("orphan-page", "no-such-rule")}
        run_lint(root, LintOptions(**asked))
    assert info.value.exit_code == 2
    assert info.value.message == f"unknown rule(s) for --{option}: no-such-rule"
    assert info.value.hint == "known rules: " + ", ".join(sorted(RULES))
    assert not (root / ".wikic").exists()
