"""confusable-name: a note whose file name or title reads as another's but is spelled with other letters (a
Cyrillic or Greek lookalike, a full-width letter, an invisible character), reported on the note spelled with
them, in every output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from library import run_lint
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.lint.run import LintOptions
from wikic.text.confusables import lookalikes, skeleton

CYRILLIC_O = "\u041e"  # looks like O
CYRILLIC_SMALL_O = "\u043e"
GREEK_O = "\u039f"
FULL_WIDTH_O = "\uff4f"
ZERO_WIDTH_SPACE = "\u200b"

ORION = {"entities/orion-labs.md": page("Orion Labs")}


def findings(root: Path) -> list[tuple[str, str, str | None]]:
    report = run_lint(root, LintOptions(select=("confusable-name",), use_cache=False))
    assert all(f.rule == "confusable-name" and f.severity == "warning" and f.line is None for f in report.findings)
    return [(f.path, f.message, f.target) for f in report.findings]


def test_a_cyrillic_twin_of_a_page_is_reported(tmp_path: Path) -> None:
    twin = f"entities/{CYRILLIC_SMALL_O}rion-labs.md"
    root = make_vault(tmp_path, {**ORION, twin: page(f"{CYRILLIC_O}rion Labs")})
    [(path, message, target)] = findings(root)  # its file name and its title: one finding for the pair
    assert (path, target) == (twin, "entities/orion-labs.md")
    assert "U+043E CYRILLIC SMALL LETTER O" in message and "reads as 'orion-labs'" in message


@pytest.mark.parametrize(
    ("files", "reported"),
    [
        pytest.param(  # the title alone: file names that differ
            {"entities/orion.md": page(f"{CYRILLIC_O}rion Labs")}, ["entities/orion.md"], id="title-of-another-name"
        ),
        pytest.param({"entities/opus.md": page(f"{GREEK_O}rion Labs")}, ["entities/opus.md"], id="greek"),
        pytest.param({f"entities/{FULL_WIDTH_O}rion labs.md": page("X")}, [f"entities/{FULL_WIDTH_O}rion labs.md"],
                     id="full-width"),
        pytest.param({f"concepts/orion{ZERO_WIDTH_SPACE}-labs.md": page("Y", type="concept")},
                     [f"concepts/orion{ZERO_WIDTH_SPACE}-labs.md"], id="zero-width-space"),
        pytest.param({f"inbox/{CYRILLIC_SMALL_O}rion labs.md": "my note\n"}, [f"inbox/{CYRILLIC_SMALL_O}rion labs.md"],
                     id="a-note-of-ones-own"),
    ],
)
def test_lookalikes_of_every_kind(tmp_path: Path, files: dict[str, str], reported: list[str]) -> None:
    root = make_vault(tmp_path, {**ORION, **files})
    assert [(path, target) for path, _, target in findings(root)] == [(p, "entities/orion-labs.md") for p in reported]


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({f"entities/{CYRILLIC_SMALL_O}rion.md": page(f"{CYRILLIC_O}rion")}, id="no-twin"),
        pytest.param({"entities/moskva.md": page("Moskva"), "entities/москва.md": page("Москва")}, id="other-script"),
        pytest.param({"entities/strasse.md": page("Strasse"), "entities/straße.md": page("Straße")}, id="eszett"),
        pytest.param({"entities/Orion-Labs.md": page("Orion Labs")}, id="case-only"),  # case-collision's
        pytest.param({"entities/orion_labs.md": page("Orion Labs")}, id="spelled-alike"),  # duplicate-page's
    ],
)
def test_names_that_do_not_read_alike_or_are_spelled_alike(tmp_path: Path, files: dict[str, str]) -> None:
    assert findings(make_vault(tmp_path, {**ORION, **files})) == []


def test_a_plain_obsidian_vault_is_checked_too(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"Orion Labs.md": "x\n", f"{CYRILLIC_O}rion Labs.md": "y\n"}, schema=False)
    assert [path for path, _, _ in findings(root)] == [f"{CYRILLIC_O}rion Labs.md"]


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_every_format_carries_it(tmp_path: Path, fmt: str) -> None:
    root = make_vault(tmp_path, {**ORION, "entities/orion-2.md": page(f"{CYRILLIC_O}rion Labs")})
    result = CliRunner().invoke(app, ["lint", str(root), "--select", "confusable-name", "--format", fmt])
    assert result.exit_code == 0, result.output  # a warning
    if fmt == "json":
        [found] = json.loads(result.stdout)["findings"]
        assert (found["rule"], found["path"], found["target"]) == (
            "confusable-name", "entities/orion-2.md", "entities/orion-labs.md")
    elif fmt == "sarif":
        [run] = json.loads(result.stdout)["runs"]
        assert [r["ruleId"] for r in run["results"]] == ["confusable-name"]
        assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["confusable-name"]
    else:
        assert result.stdout.startswith("::warning file=entities/orion-2.md,title=confusable-name::")


def test_the_skeleton() -> None:
    assert skeleton(f"{CYRILLIC_O}rion Labs") == skeleton(f"{GREEK_O}RION LABS") == "orion labs"
    assert skeleton(f"{FULL_WIDTH_O}rion{ZERO_WIDTH_SPACE}") == "orion"
    assert skeleton("Straße") != skeleton("Strasse")
    assert lookalikes(f"{CYRILLIC_O}rion {CYRILLIC_O}") == ["U+041E CYRILLIC CAPITAL LETTER O"]
    assert lookalikes("Orion") == []
