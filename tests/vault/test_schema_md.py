"""SCHEMA.md as wikic reads it: prose sections of any name are the person's, a near miss of a known section or
key and a value wikic does not take are errors (every command that acts on the schema refuses the file, exit
2, naming the line and what was meant), the rest are lint warnings."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from testkit import DEFAULT_SCHEMA, make_vault
from typer.testing import CliRunner

from wikic.cli import app
from wikic.context import VaultContext
from wikic.errors import SchemaError
from wikic.resources import schema_text
from wikic.vault.schema_md import THRESHOLD_DEFAULTS, parse


def errors(text: str) -> list[tuple[int | None, str]]:
    return [(p.line, p.message) for p in parse(text).errors]


def test_the_default_schema_and_the_test_schema_read_clean() -> None:
    for text in (schema_text("SCHEMA.md"), DEFAULT_SCHEMA):
        schema = parse(text)
        assert schema.problems == () and schema.errors == ()


@pytest.mark.parametrize(
    "heading",
    [
        "Style", "Notes for the model", "Conventions", "Links", "Hints", "Hint", "Sources", "Glossary", "Tone",
        "Domain notes", "Lint rules explained", "Page templates", "Naming ideas", "Tags",  # Taxonomy Tags is there
    ],
)
def test_a_prose_section_of_any_name_is_no_error(heading: str) -> None:
    text = DEFAULT_SCHEMA + f"## {heading}\nWrite short sentences.\n- key: value\n"
    schema = parse(text)
    assert schema.errors == () and schema.problems == ()
    assert f"## {heading}\nWrite short sentences." in schema.prose()


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("## Page Thresholds", "## Page Threshold", 8, "'## Page Threshold' is not a section wikic reads; did you "
         "mean '## Page Thresholds'?"),
        ("## Page Thresholds", "## Pgae Thresholds", 8, "did you mean '## Page Thresholds'?"),
        ("## Page Thresholds", "## Thresholds", 8, "did you mean '## Page Thresholds'?"),
        ("## Taxonomy Tags", "## Taxonomy Tag", 4, "did you mean '## Taxonomy Tags'?"),
        ("## Taxonomy Tags", "## Tags", 4, "did you mean '## Taxonomy Tags'?"),
        ("## Naming Convention", "## Naming Conventions", 13, "did you mean '## Naming Convention'?"),
        ("## Domain", "## Domian", 2, "did you mean '## Domain'?"),
        ("## Page Thresholds", "### Page Thresholds", 8, "'### Page Thresholds' is not read as a section: write it "
         "'## Page Thresholds'"),
        ("## Naming Convention", "##Naming Convention", 13, "write it '## Naming Convention'"),
    ],
)
def test_a_near_miss_of_a_known_heading_is_an_error(old: str, new: str, line: int, message: str) -> None:
    found = errors(DEFAULT_SCHEMA.replace(old, new))
    assert len(found) == 1 and found[0][0] == line and message in found[0][1], found


def test_a_misspelt_lint_section_is_an_error_and_a_look_alike_beside_a_real_one_is_prose() -> None:
    assert errors(DEFAULT_SCHEMA + "## Lints\n- orphan-page: off\n") == [
        (15, "'## Lints' is not a section wikic reads; did you mean '## Lint'?")
    ]
    both = DEFAULT_SCHEMA + "## Lint\n- orphan-page: off\n## Lints\nWhy we silence orphans.\n"
    assert errors(both) == [] and parse(both).severities == {"orphan-page": "off"}


def test_case_and_separators_do_not_count() -> None:
    text = DEFAULT_SCHEMA.replace("## Page Thresholds", "## page-thresholds:").replace(
        "- entity_min_references: 2", "- Entity-Min-References: 5"
    )
    schema = parse(text)
    assert schema.errors == () and schema.thresholds["entity_min_references"] == 5


@pytest.mark.parametrize(
    ("line_text", "message"),
    [
        ("- entity_min_reference: 2", "unknown threshold 'entity_min_reference'; did you mean "
         "'entity_min_references'?"),
        ("- entity_min_references: two", "threshold 'entity_min_references' must be a whole number from 0 to 1,000, "
         "not 'two'"),
        ("- entity_min_references: -1", "must be a whole number from 0 to 1,000, not '-1'"),
        ("- entity_min_references: 2.5", "not '2.5'"),
        ("- entity_min_references: 99999999999999999999999", "not '99999999999999999999999'"),
        ("- entity_min_references 2", "cannot read threshold 'entity_min_references 2': write it "
         "'entity_min_references: NUMBER'"),
        ("- entity_min_references: 2\n- entity_min_references: 3", "threshold 'entity_min_references' is set twice: "
         "line 9 says 2, this line 3; keep one"),
    ],
)
def test_a_threshold_that_cannot_be_read_as_meant_is_an_error(line_text: str, message: str) -> None:
    found = errors(DEFAULT_SCHEMA.replace("- entity_min_references: 2", line_text))
    assert len(found) == 1 and message in found[0][1] and found[0][0] in (9, 10), found


def test_every_threshold_has_a_range_and_the_days_stay_within_a_century() -> None:
    for key in THRESHOLD_DEFAULTS:
        big = "36501" if key.endswith("_days") else "99999999"
        assert errors(DEFAULT_SCHEMA + f"## Page Types\n\n## Page Thresholds\n- {key}: {big}\n") or errors(
            DEFAULT_SCHEMA.replace("- query_max_age_days: 90", f"- {key}: {big}")
        ), key


def test_an_unknown_threshold_unlike_any_known_one_is_a_warning_only() -> None:
    schema = parse(DEFAULT_SCHEMA.replace("- query_max_age_days: 90", "- query_max_age_days: 90\n- bogus: 3"))
    assert schema.errors == () and next(p.message for p in schema.problems).startswith("unknown threshold 'bogus'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (DEFAULT_SCHEMA.replace("- lowercase-with-hyphens.md", "- lowercase-with-hyphen.md"),
         "unknown naming convention 'lowercase-with-hyphen.md'; did you mean 'lowercase-with-hyphens.md'?"),
        (DEFAULT_SCHEMA.replace("- lowercase-with-hyphens.md", "- CamelCase.md"),
         "unknown naming convention 'CamelCase.md' (known: lowercase-with-hyphens.md, lowercase_with_underscores.md, "
         "any)"),
        (DEFAULT_SCHEMA + "## Lint\n- orphan-page: warn\n",
         "the severity of 'orphan-page' must be error, warning, info or off, not 'warn'; did you mean 'warning'?"),
        (DEFAULT_SCHEMA + "## Page Types\n- recipe = recipes\n",
         "page type must read 'type: folder' (e.g. 'person: people'), not 'recipe = recipes'"),
        # source pages are written by code in a shape of their own, and their folder is theirs
        (DEFAULT_SCHEMA + "## Page Layouts\n- source: Key facts, History\n",
         "no page type 'source' to lay out (query pages keep the layout of a filed answer, source pages their own)"),
        (DEFAULT_SCHEMA + "## Page Types\n- reference: sources\n",
         "page type 'reference' cannot use the folder 'sources', which holds the source pages"),
    ],
)
def test_a_known_key_with_a_value_it_does_not_take_is_an_error(text: str, message: str) -> None:
    found = errors(text)
    assert len(found) == 1 and message in found[0][1], found


def test_checked_schema_names_every_line_and_what_to_do(tmp_path: Path) -> None:
    text = DEFAULT_SCHEMA.replace("entity_min_references: 2", "entity_min_reference: 2") + "## Lints\n- x: off\n"
    root = make_vault(tmp_path, {}, text)
    with pytest.raises(SchemaError) as info:
        VaultContext(root).checked_schema()
    path = root / "SCHEMA.md"
    assert info.value.exit_code == 2
    assert info.value.message == (
        "SCHEMA.md cannot be read as meant:\n"
        f"  {path}:9: unknown threshold 'entity_min_reference'; did you mean 'entity_min_references'?\n"
        f"  {path}:15: '## Lints' is not a section wikic reads; did you mean '## Lint'?"
    )
    assert info.value.hint is not None and info.value.hint.startswith(f"fix these lines in {path} (`wikic lint`")
    assert "are prose for the model" in info.value.hint
    assert VaultContext(make_vault(tmp_path, {})).checked_schema().thresholds["entity_min_references"] == 2


# -- every command that acts on the schema refuses it; lint reports it ---------------------------------------


def _snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".wikic" not in p.relative_to(root).parts
    }


MISSPELT = DEFAULT_SCHEMA.replace("## Page Thresholds", "## Page Threshold")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["ingest", "{note}"], id="ingest"),
        pytest.param(["ingest"], id="ingest-raw"),
        pytest.param(["watch"], id="watch"),
        pytest.param(["status"], id="status"),
        pytest.param(["status", "--json"], id="status-json"),
        pytest.param(["query", "where do the tomatoes go?", "--save"], id="query-save"),
        pytest.param(["query", "--refresh", "queries/x.md"], id="query-refresh"),
    ],
)
def test_a_command_that_acts_on_the_schema_refuses_a_misspelt_one(tmp_path: Path, args: list[str]) -> None:
    root = make_vault(tmp_path, {}, MISSPELT)
    note = tmp_path / "note.md"
    note.write_text("# Tomatoes\n\nThe tomatoes go in the south bed.\n", encoding="utf-8")
    (root / "wikic.toml").write_text('[llm]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    before = _snapshot(root)
    result = CliRunner().invoke(app, [*(a.replace("{note}", str(note)) for a in args), "--vault", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    shown = (
        f"  {root / 'SCHEMA.md'}:8: '## Page Threshold' is not a section wikic reads; did you mean "
        "'## Page Thresholds'?"
    )
    assert result.stderr.startswith(f"Error: SCHEMA.md cannot be read as meant:\n{shown}\nHint: fix these lines in ")
    assert "(Ctrl-C to stop)" not in result.stderr
    if "--json" in args:
        assert result.stdout.startswith('{"error": "SCHEMA.md cannot be read as meant:')
    assert _snapshot(root) == before


def test_lint_reports_the_misspelling_as_an_error_and_reads_on(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {}, MISSPELT)
    result = CliRunner().invoke(app, ["lint", str(root), "--no-cache"])
    assert result.exit_code == 1
    assert (
        "SCHEMA.md:8:1: error frontmatter '## Page Threshold' is not a section wikic reads; did you mean "
        "'## Page Thresholds'?" in result.stdout
    )


def test_the_library_calls_that_write_refuse_it_too(tmp_path: Path) -> None:
    """What the MCP tools that write call: confirming a lesson, ending a claim, filing an answer."""
    from library import check_can_file, confirm_lesson, invalidate

    root = make_vault(tmp_path, {}, MISSPELT)
    before = _snapshot(root)
    for call in (
        lambda: confirm_lesson(root, "use uv"),
        lambda: invalidate(root, "c0123456", "it moved"),
        lambda: check_can_file(root),
    ):
        with pytest.raises(SchemaError, match="did you mean '## Page Thresholds'"):
            call()
    assert _snapshot(root) == before
