"""What `wikic lint` prints and what it leaves behind: json, text, SARIF and GitHub formats, exit codes,
--fix and --diff, and the warm cache under .wikic/cache/ (README, `wikic lint`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from library import run_lint
from testkit import DEFAULT_SCHEMA, index_text, make_vault, page
from typer.testing import CliRunner

from wikic import __version__
from wikic.cli import app
from wikic.context import VaultContext
from wikic.lint.render import _gh_escape
from wikic.lint.rule import KEPT_RULES
from wikic.lint.run import LintOptions

B = 12  # page(title, body=X): X starts on file line 13
AS_OF = "2026-03-01"

CLEAN = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]]\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}
# one error (broken link), one warning (orphan d, and too-few-links), nested folders
BROKEN = {**CLEAN, "entities/d.md": page("D", body="[[a]] [[ghost]]\n")}


def run(*args: str) -> Any:
    """`wikic ...` in-process; stdout and stderr kept apart."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def snapshot(root: Path, skip_state: bool = True) -> dict[str, str]:
    """sha256 of every file under the vault (optionally leaving out .wikic/)."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if skip_state and rel_dir.parts[:1] == (".wikic",):
            continue
        for name in filenames:
            path = Path(dirpath) / name
            out[(rel_dir / name).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


# ---- json ------------------------------------------------------------------------------------------


def test_json_shape_is_the_contracts(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    result = run("lint", str(root), "--format", "json", "--as-of", AS_OF)
    assert result.exit_code == 1
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert list(data) == ["wikic", "vault", "findings", "summary"]
    assert data["wikic"] == __version__ == "0.1.0"
    assert data["vault"] == str(root)
    assert list(data["summary"]) == ["pages", "links", "errors", "warnings", "seconds"]
    assert data["summary"]["pages"] == 4
    assert data["summary"]["links"] == 12  # index.md's four entries included
    assert isinstance(data["summary"]["seconds"], float) and data["summary"]["seconds"] >= 0
    severities = [f["severity"] for f in data["findings"]]
    assert data["summary"]["errors"] == severities.count("error") == 1
    assert data["summary"]["warnings"] == severities.count("warning") == 2
    for finding in data["findings"]:
        assert list(finding) == ["rule", "severity", "path", "line", "column", "target", "message", "fix"]
    broken = next(f for f in data["findings"] if f["rule"] == "broken-wikilink")
    assert broken == {
        "rule": "broken-wikilink", "severity": "error", "path": "entities/d.md", "line": B + 1, "column": 7,
        "target": "ghost", "message": "link target 'ghost' does not exist", "fix": None,
    }
    orphan = next(f for f in data["findings"] if f["rule"] == "orphan-page")
    assert (orphan["path"], orphan["line"], orphan["column"], orphan["target"], orphan["fix"]) == (
        "entities/d.md",
        None,
        None,
        None,
        None,
    )


def test_json_flag_equals_format_json_and_vault_is_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault(tmp_path, BROKEN)
    monkeypatch.chdir(tmp_path)
    a = json.loads(run("lint", root.name, "--json", "--as-of", AS_OF).stdout)
    b = json.loads(run("lint", "--vault", root.name, "--format", "json", "--as-of", AS_OF).stdout)
    assert a["vault"] == b["vault"] == root.name
    for data in (a, b):
        data["summary"]["seconds"] = 0
    assert a == b


def test_json_paths_are_vault_relative_with_slashes(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"Deep/Er/Note One.md": "[[ghost]]\n", "top.md": "[[Note One]]\n"}, schema=False)
    data = json.loads(run("lint", str(root), "--json").stdout)
    assert {f["path"] for f in data["findings"]} == {"Deep/Er/Note One.md", "top.md"}
    assert all(not f["path"].startswith("/") and "\\" not in f["path"] for f in data["findings"])


def test_json_fix_object(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {
            **CLEAN,
            "entities/sam-altman.md": page("Sam Altman", body="[[a]] [[b]]\n"),
            "entities/t.md": page("T", body="[[Sam Altman]]\n"),
        },
    )
    data = json.loads(run("lint", str(root), "--json", "--select", "broken-wikilink").stdout)
    (finding,) = data["findings"]
    assert finding["fix"] == {
        "action": "replace",
        "path": "entities/t.md",
        "line": B + 1,
        "old": "[[Sam Altman]]",
        "new": "[[sam-altman|Sam Altman]]",
    }


def test_json_on_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    data = json.loads(run("lint", str(tmp_path / "empty"), "--json").stdout)
    assert data["findings"] == []
    assert {k: v for k, v in data["summary"].items() if k != "seconds"} == {
        "pages": 0,
        "links": 0,
        "errors": 0,
        "warnings": 0,
    }


# ---- text ------------------------------------------------------------------------------------------

TEXT_LINE = re.compile(
    r"^(?P<path>[^:]+)(?::(?P<line>[1-9]\d*):(?P<col>[1-9]\d*))?: (?P<sev>error|warning|info) "
    r"(?P<rule>[a-z-]+) (?P<msg>\S.*)$"
)


def test_text_format_lines(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    result = run("lint", str(root), "--as-of", AS_OF)
    assert result.exit_code == 1
    *lines, summary = result.stdout.rstrip("\n").split("\n")
    assert lines == [
        (
            "entities/d.md: warning orphan-page no other wiki page links here (links from index.md, "
            "overview.md, the source pages, log.md and raw/ do not count)"
        ),
        "entities/d.md: warning too-few-links links to 1 other wiki page(s); SCHEMA.md asks for at least 2",
        f"entities/d.md:{B + 1}:7: error broken-wikilink link target 'ghost' does not exist",
    ]
    for line in lines:
        assert TEXT_LINE.match(line), line
    assert re.fullmatch(r"4 pages, 12 links: 1 error\(s\), 2 warning\(s\), 0 info in \d+\.\d\ds — FAILED", summary), (
        summary
    )


def test_text_format_clean_and_strict(tmp_path: Path) -> None:
    root = make_vault(tmp_path, CLEAN)
    assert re.fullmatch(
        r"3 pages, 9 links: 0 error\(s\), 0 warning\(s\), 0 info in \d+\.\d\ds — ok\n", run("lint", str(root)).stdout
    )
    assert run("lint", str(root), "--strict").stdout.endswith("— ok (strict)\n")


def test_lint_strict_in_wikic_toml_is_the_default_the_flag_overrides(tmp_path: Path) -> None:
    """Precedence: --strict / --no-strict, then `[lint] strict` in wikic.toml, then off."""
    warnings_only = {**CLEAN, "entities/d.md": page("D", body="[[a]] [[b]]\n")}  # an orphan: a warning
    root = make_vault(tmp_path, warnings_only)
    assert [run("lint", str(root), *flag).exit_code for flag in ([], ["--strict"], ["--no-strict"])] == [0, 1, 0]
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n", encoding="utf-8")
    verdicts = [run("lint", str(root), *flag) for flag in ([], ["--strict"], ["--no-strict"])]
    assert [r.exit_code for r in verdicts] == [1, 1, 0]
    assert verdicts[0].stdout.endswith("— FAILED (strict)\n") and verdicts[2].stdout.endswith("— ok\n")
    assert run_lint(root).strict and not run_lint(root, LintOptions(strict=False)).strict  # the library alike


def test_text_format_on_obsidian_style_names(tmp_path: Path) -> None:
    """Spaces, brackets and non-ASCII in paths do not break the path:line:col: prefix."""
    root = make_vault(
        tmp_path, {"Notes [old]/Über uns.md": "x\n[[Nowhere]]\n", "Home.md": "[[Über uns]]\n"}, schema=False
    )
    lines = run("lint", str(root)).stdout.split("\n")
    assert "Notes [old]/Über uns.md:2:1: error broken-wikilink link target 'Nowhere' does not exist" in lines


# ---- SARIF -----------------------------------------------------------------------------------------

# The parts of the SARIF 2.1.0 schema (docs.oasis-open.org/sarif/sarif/v2.1.0) that wikic emits, with the
# spec's required properties and value ranges; unknown property names are refused so a typo is caught.
_MESSAGE = {
    "type": "object",
    "required": ["text"],
    "properties": {"text": {"type": "string", "minLength": 1}},
    "additionalProperties": False,
}
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "additionalProperties": False,
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "additionalProperties": False,
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "additionalProperties": False,
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "additionalProperties": False,
                                            "properties": {"id": {"type": "string"}, "shortDescription": _MESSAGE},
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "additionalProperties": False,
                            "properties": {
                                "ruleId": {"type": "string"},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": _MESSAGE,
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "additionalProperties": False,
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "additionalProperties": False,
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "additionalProperties": False,
                                                        "properties": {
                                                            "uri": {"type": "string", "format": "uri-reference"},
                                                            "uriBaseId": {"type": "string"},
                                                        },
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "additionalProperties": False,
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1},
                                                            "startColumn": {"type": "integer", "minimum": 1},
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_structure(tmp_path: Path) -> None:
    files = {
        **BROKEN,
        "entities/e.md": page("E", contested=True, body="[[a]] [[b]]\n"),
        "entities/Bad Name [x].md": page("Bad", body="[[a]] [[nowhere]]\n"),
    }
    root = make_vault(tmp_path, files)
    result = run("lint", str(root), "--format", "sarif", "--as-of", AS_OF)
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    jsonschema.Draft7Validator(SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(doc)
    (run_,) = doc["runs"]
    assert run_["tool"]["driver"]["name"] == "wikic" and run_["tool"]["driver"]["version"] == __version__
    expected = run_lint(root, LintOptions(use_cache=False)).findings
    results = run_["results"]
    assert len(results) == len(expected) > 0
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(set(rule_ids)) and set(rule_ids) == {f.rule for f in expected}
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for res, finding in zip(results, expected, strict=True):
        assert res["ruleId"] == finding.rule
        assert res["level"] == levels[finding.severity]
        assert res["message"]["text"] == finding.message
        (loc,) = res["locations"]
        physical = loc["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "VAULT"
        if finding.line is None:
            assert "region" not in physical
        else:
            assert physical["region"] == {"startLine": finding.line, "startColumn": finding.column}
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "entities/Bad%20Name%20%5Bx%5D.md" in uris  # a URI reference: spaces and brackets encoded
    assert "note" in {r["level"] for r in results}  # contested: info


def test_sarif_with_no_findings(tmp_path: Path) -> None:
    doc = json.loads(run("lint", str(make_vault(tmp_path, CLEAN)), "--format", "sarif").stdout)
    jsonschema.Draft7Validator(SARIF_SUBSET).validate(doc)
    assert doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []


# ---- GitHub annotations ----------------------------------------------------------------------------


def test_github_annotations(tmp_path: Path) -> None:
    files = {
        **CLEAN,
        "entities/a.md": page("A", body="[[b]] [[c]] [[e]]\n"),
        "entities/d.md": page("D", body="[[a]] [[b]] [[50% done]]\n"),
        "entities/e.md": page("E", contested=True, body="[[a]] [[b]] [[d]]\n"),
    }
    root = make_vault(tmp_path, files)
    result = run("lint", str(root), "--format", "github", "--as-of", AS_OF)
    assert result.exit_code == 1
    assert result.stdout.split("\n") == [
        f"::error file=entities/d.md,line={B + 1},col=13,title=broken-wikilink::"
        "link target '50%25 done' does not exist",
        (
            "::notice file=entities/e.md,line=11,col=1,title=contradiction::page is marked contested: its "
            "claims conflict with another source"
        ),
        "",
    ]


def test_github_annotations_escape_properties_and_data(tmp_path: Path) -> None:
    # a second note: a vault of one note has no orphan
    root = make_vault(tmp_path, {"a, b: c.md": "[[x]]\n", "other.md": "no link\n"}, schema=False)
    lines = run("lint", str(root), "--format", "github").stdout.split("\n")
    assert "::error file=a%2C b%3A c.md,line=1,col=1,title=broken-wikilink::link target 'x' does not exist" in lines
    assert (
        "::warning file=a%2C b%3A c.md,title=orphan-page::no other wiki page links here (links from "
        "index.md, overview.md, the source pages, log.md and raw/ do not count)"
    ) in lines
    assert _gh_escape("50%\r\nnext") == "50%25%0D%0Anext"
    assert _gh_escape("a,b:c%", prop=True) == "a%2Cb%3Ac%25"


# ---- exit codes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "files, args, code",
    [
        pytest.param(CLEAN, [], 0, id="clean"),
        pytest.param(CLEAN, ["--strict"], 0, id="clean-strict"),
        pytest.param({**CLEAN, "entities/e.md": page("E", body="[[a]] [[b]]\n")}, [], 0, id="warnings-only"),
        pytest.param(
            {**CLEAN, "entities/e.md": page("E", body="[[a]] [[b]]\n")}, ["--strict"], 1, id="warnings-strict"
        ),
        pytest.param(
            {
                **CLEAN,
                "entities/e.md": page("E", contested=True, body="[[a]] [[b]]\n"),
                "entities/a.md": page("A", body="[[b]] [[c]] [[e]]\n"),
            },
            ["--strict"],
            0,
            id="info-strict",
        ),
        pytest.param(BROKEN, [], 1, id="error"),
        pytest.param(BROKEN, ["--ignore", "broken-wikilink"], 0, id="error-ignored"),
        pytest.param(BROKEN, ["--select", "orphan-page,too-few-links"], 0, id="select-warnings"),
        pytest.param(
            BROKEN, ["--select", "orphan-page", "--select", "too-few-links", "--strict"], 1, id="select-repeated-strict"
        ),
    ],
)
def test_exit_codes(tmp_path: Path, files: dict[str, str], args: list[str], code: int) -> None:
    root = make_vault(tmp_path, files)
    for fmt in ("text", "json", "sarif", "github"):
        assert run("lint", str(root), "--format", fmt, *args).exit_code == code, fmt


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["--select", "nope"],
            (
                "Error: unknown rule(s) for --select: nope\nHint: known rules: ambiguous-link, broken-wikilink, "
                "case-collision, confusable-name, contradiction, duplicate-page, encoding, frontmatter, index-gap, "
                "lead-drift, malformed-link, no-lead, ordinary-name, orphan-page, page-too-long, raw-drift, "
                "repeated-claim, source-sections, stale-page, thin-section, too-few-links, uncited-sentence, "
                "unsafe-name, unsafe-path, unsourced-alias\n"
            ),
            id="unknown-select",
        ),
        pytest.param(
            ["--ignore", "orphan-page,nope,nada"],
            "Error: unknown rule(s) for --ignore: nope, nada\n",
            id="unknown-ignore",
        ),
        pytest.param(
            ["--format", "xml"],
            "Error: unknown format 'xml'\nHint: use one of: text, json, sarif, github\n",
            id="unknown-format",
        ),
        pytest.param(
            ["--as-of", "2026-02-30"], "Error: --as-of must be a date YYYY-MM-DD, not '2026-02-30'\n", id="bad-as-of"
        ),
        pytest.param(
            ["--vault", "."],
            "give one vault, either as the first argument or with --vault, then files of it\n",
            id="vault-twice",
        ),
        pytest.param(["--no-such-flag"], "No such option", id="unknown-flag"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    root = make_vault(tmp_path, BROKEN)
    before = snapshot(root, skip_state=False)
    result = run("lint", str(root), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert snapshot(root, skip_state=False) == before  # nothing written, not even a cache


def test_configuration_error_exits_2(tmp_path: Path) -> None:
    root = make_vault(tmp_path, CLEAN, schema="# Wiki Schema\n## Domain\ncaf\xe9\n".encode("latin-1"))  # type: ignore[arg-type]
    result = run("lint", str(root))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"Error: SCHEMA.md is not UTF-8 text (byte offset 27)\nHint: save {root / 'SCHEMA.md'} as UTF-8\n"
    )


def test_json_usage_error_is_also_json_on_stdout(tmp_path: Path) -> None:
    result = run("lint", str(tmp_path / "missing"), "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {
        "error": f"vault folder does not exist: {tmp_path / 'missing'}",
        "hint": "give the folder of a vault with --vault DIR (or run the command inside it); `wikic init DIR` makes "
        "a new one",
        "exit_code": 2,
    }
    assert result.stderr.startswith("Error: vault folder does not exist")


# ---- --diff and --fix ------------------------------------------------------------------------------

FIXABLE_INDEX = (
    "# Wiki Index\n\n## Entities\n- [[a]] — A\n- [[b]] — B\n- [[c]] — C\n- [[zombie]] — gone\n## "
    "Concepts\n## Comparisons\n## Queries\n"
)


def fixable(tmp_path: Path) -> Path:
    files = {
        **CLEAN,
        "entities/sam-altman.md": page("Sam Altman", summary="CEO of a lab.", body="[[a]] [[b]]\n"),
        "entities/openai.md": page("OpenAI", aliases=["Open AI"], body="[[a]] [[b]]\n"),
        "entities/t.md": page(
            "T",
            tags=["architecture", "not-in-taxonomy"],
            body=(
                "See [[Sam Altman]] and [[Open AI|the lab]].\n\n| who | what |\n|---|---|\n| [[Sam Altman]] | "
                "[[Open AI\\|OAI]] |\n\n[[nobody-knows]]\n"
            ),
        ),
    }
    return make_vault(tmp_path, files, index=FIXABLE_INDEX)


EXPECTED_T_BODY = (
    "See [[sam-altman|Sam Altman]] and [[openai|the lab]].\n\n| who | what |\n|---|---|\n| "
    "[[sam-altman\\|Sam Altman]] | [[openai\\|OAI]] |\n\n[[nobody-knows]]\n"
)
EXPECTED_INDEX = (  # a section says how many pages it lists
    "# Wiki Index\n\n## Entities\n*6 pages*\n- [[a]] — A\n- [[b]] — B\n- [[c]] — C\n- [[openai]] — OpenAI\n"
    "- [[sam-altman]] — CEO of a lab.\n- [[t]] — T\n"
    "## Concepts\n## Comparisons\n## Queries\n"
)


def test_diff_shows_the_repairs_and_changes_nothing(tmp_path: Path) -> None:
    root = fixable(tmp_path)
    before = snapshot(root)
    result = run("lint", str(root), "--diff")
    assert result.exit_code == 1  # a preview repairs nothing: the errors still stand
    assert snapshot(root) == before
    out = result.stdout
    assert out.startswith("--- a/entities/t.md\n+++ b/entities/t.md\n")
    assert (
        "-See [[Sam Altman]] and [[Open AI|the lab]].\n+See [[sam-altman|Sam Altman]] and [[openai|the lab]].\n" in out
    )
    assert "-| [[Sam Altman]] | [[Open AI\\|OAI]] |\n+| [[sam-altman\\|Sam Altman]] | [[openai\\|OAI]] |\n" in out
    assert "--- a/index.md\n+++ b/index.md\n" in out
    assert (
        "-- [[zombie]] — gone\n+- [[openai]] — OpenAI\n+- [[sam-altman]] — CEO of a lab.\n+- [[t]] — T\n ## Concepts\n"
        in out
    )


def test_fix_applies_only_safe_repairs_and_is_idempotent(tmp_path: Path) -> None:
    root = fixable(tmp_path)
    t_before = (root / "entities/t.md").read_text()
    untouched = {k: v for k, v in snapshot(root).items() if k not in ("entities/t.md", "index.md")}
    result = run("lint", str(root), "--fix", "--json")
    assert result.stderr == "fixed entities/t.md\nfixed index.md\n"
    assert (root / "entities/t.md").read_text() == t_before.split("\n\n", 1)[0] + "\n\n" + EXPECTED_T_BODY
    assert (root / "index.md").read_text() == EXPECTED_INDEX
    assert {k: v for k, v in snapshot(root).items() if k not in ("entities/t.md", "index.md")} == untouched
    # what is left needs a person: the tag outside the taxonomy, the link nobody can guess
    after = json.loads(result.stdout)
    assert sorted((f["rule"], f.get("target")) for f in after["findings"] if f["severity"] == "error") == [
        ("broken-wikilink", "nobody-knows"),
        ("frontmatter", "not-in-taxonomy"),
    ]
    assert result.exit_code == 1
    # a second run changes nothing
    first = snapshot(root)
    again = run("lint", str(root), "--fix")
    assert again.stderr == "" and snapshot(root) == first
    diff = run("lint", str(root), "--diff")
    assert (diff.stdout, diff.stderr, diff.exit_code) == ("", "nothing to fix\n", 1)  # what is left needs a person


def test_fix_leaves_a_file_that_changed_after_the_repairs_were_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikic.lint import fix

    root = fixable(tmp_path)
    page_path = root / "entities/t.md"
    planned = fix.plan_fixes

    def plan_then_edit(vault: VaultContext, findings: list[Any], today: Any = None) -> list[Any]:
        changes = planned(vault, findings)
        # a person's editor saves the page (it takes no lock) after the repairs were planned from it
        page_path.write_text(page_path.read_text() + "\nA line added meanwhile.\n")
        return changes

    monkeypatch.setattr(fix, "plan_fixes", plan_then_edit)
    result = run("lint", str(root), "--fix")
    assert result.stderr == (
        "fixed index.md\n"
        "skipped entities/t.md: it changed while the repairs were planned; run `wikic lint --fix` again\n"
    )
    text = page_path.read_text()
    assert text.endswith("A line added meanwhile.\n") and "See [[Sam Altman]] and [[Open AI|the lab]]." in text
    assert (root / "index.md").read_text() == EXPECTED_INDEX
    assert not (root / ".wikic/journal.json").exists()
    monkeypatch.setattr(fix, "plan_fixes", planned)
    again = run("lint", str(root), "--fix")  # planned from the page as it is now
    assert again.stderr == "fixed entities/t.md\n"
    assert "See [[sam-altman|Sam Altman]] and [[openai|the lab]]." in page_path.read_text()


def test_fix_keeps_crlf_line_ends(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        **CLEAN,
        "entities/sam-altman.md": page("Sam Altman", body="[[a]] [[b]]\n"),
        "entities/t.md": page("T", body="x [[Sam Altman]] y\n").replace("\n", "\r\n").encode(),
    }
    root = make_vault(tmp_path, files, index=index_text(files).replace("\n", "\r\n"))
    run("lint", str(root), "--fix", "--select", "broken-wikilink")
    data = (root / "entities/t.md").read_bytes()
    assert b"x [[sam-altman|Sam Altman]] y\r\n" in data
    assert data.count(b"\r\n") == data.count(b"\n")


def test_fix_adds_index_sections_and_paths_for_ambiguous_names(tmp_path: Path) -> None:
    files = {
        **CLEAN,
        "concepts/a.md": page("A concept", type="concept", body="## 1\n## 2\n## 3\n[[b]] [[c]]\n"),
        "queries/why.md": page("Why", type="query", summary="Because.", body="[[b]] [[c]]\n"),
    }
    root = make_vault(tmp_path, files, index="# Wiki Index\n\n## Entities\n- [[b]] — B\n- [[c]] — C\n## Queries\n")
    run("lint", str(root), "--fix")
    # a missing section goes where the standard order puts it; 'a' is not unique, so its path is written
    assert (root / "index.md").read_text() == (
        "# Wiki Index\n\n## Entities\n*3 pages*\n- [[b]] — B\n- [[c]] — C\n- [[entities/a]] — A\n"
        "## Concepts\n*1 page*\n- [[concepts/a]] — A concept\n## Queries\n*1 page*\n- [[why]] — Because.\n"
    )
    assert run_lint(root, LintOptions(select=("index-gap",), use_cache=False)).findings == []


def test_fix_creates_a_missing_index(tmp_path: Path) -> None:
    root = make_vault(tmp_path, CLEAN, index=False)
    run("lint", str(root), "--fix")
    assert (root / "index.md").read_text() == (
        "# Wiki Index\n\n## Entities\n*3 pages*\n- [[a]] — A\n- [[b]] — B\n- [[c]] — C\n## Concepts\n"
        "## Comparisons\n## Queries\n## Sources\n"
    )
    assert run_lint(root, LintOptions(use_cache=False)).findings == []


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_lint_writes_nothing_but_its_cache(tmp_path: Path, fmt: str) -> None:
    root = fixable(tmp_path)
    before = snapshot(root)
    for _ in range(2):
        run("lint", str(root), "--format", fmt, "--strict")
    assert snapshot(root) == before
    state = {p for p in snapshot(root, skip_state=False) if p.startswith(".wikic/")}
    kept = {f".wikic/cache/rule-{rule}.json" for rule in KEPT_RULES}
    # the vault has broken links: their "did you mean" names
    assert state == {".wikic/cache/lint-report.json", ".wikic/cache/parse-cache.jsonl", ".wikic/cache/page-rules.json",
                     ".wikic/cache/close-names.json", ".wikic/cache/lint-files", ".wikic/cache/lint-base.json",
                     ".wikic/cache/settings-checked.json", *kept}


# ---- the warm cache --------------------------------------------------------------------------------


def test_second_run_is_served_from_the_cache_and_an_edit_invalidates_it(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    first = run_lint(root)
    assert not first.cached
    assert (root / ".wikic/cache/lint-report.json").is_file()
    second = run_lint(root)
    assert second.cached
    assert [f.to_dict() for f in second.findings] == [f.to_dict() for f in first.findings]
    assert (second.pages, second.links) == (first.pages, first.links)

    d = root / "entities/d.md"
    d.write_text(d.read_text().replace("[[ghost]]", "[[b]] [[c]]"))
    third = run_lint(root)
    assert not third.cached
    assert {f.rule for f in third.findings} == {"orphan-page"}
    assert run_lint(root).cached


@pytest.mark.slow  # a fresh Python process
def test_a_cached_run_loads_neither_the_rules_nor_the_parser(tmp_path: Path) -> None:
    """The warm path is what a pre-commit hook pays on every commit: it must stay an import of the CLI, a
    walk and a read of the cached report (the rules bring networkx, the parser markdown-it and YAML)."""
    import subprocess
    import sys

    root = make_vault(tmp_path, BROKEN)
    assert not run_lint(root).cached
    probe = (
        "import sys; from typer.testing import CliRunner; from wikic.cli import app; "
        f"r = CliRunner().invoke(app, ['lint', {str(root)!r}, '--format', 'json']); "
        "print(r.exit_code, sorted(m for m in ('networkx', 'markdown_it', 'yaml', 'wikic.lint.rules') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == "1" and out.strip().endswith("[]"), out


def test_cache_key_covers_options_today_and_the_ledger(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    run_lint(root)
    assert run_lint(root, LintOptions(strict=True)).cached  # strictness changes the verdict, not the findings
    assert not run_lint(root, LintOptions(select=("orphan-page",))).cached
    assert not run_lint(root, LintOptions(today=dt.date(2030, 1, 1))).cached
    assert not run_lint(root).cached  # one report is kept: the last one
    assert run_lint(root).cached
    (root / ".wikic/sources.json").write_text("{}")
    assert not run_lint(root).cached


def test_cache_notices_an_edit_of_the_same_size(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    assert len(run_lint(root).findings) == 3
    d = root / "entities/d.md"
    text = d.read_text()
    d.write_text(text.replace("[[ghost]]", "[[c]]    "))  # same length
    st = d.stat()
    os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    report = run_lint(root)
    assert not report.cached and {f.rule for f in report.findings} == {"orphan-page"}


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    before = snapshot(root, skip_state=False)
    result = run("lint", str(root), "--no-cache")
    assert result.exit_code == 1
    assert snapshot(root, skip_state=False) == before
    assert not (root / ".wikic").exists()


def test_cli_second_run_prints_the_same(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    first = run("lint", str(root), "--json")
    started = time.perf_counter()
    second = run("lint", str(root), "--json")
    assert time.perf_counter() - started < 5
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    a["summary"]["seconds"] = b["summary"]["seconds"] = 0
    assert a == b


def test_lint_schema_severity_changes_are_not_served_stale(tmp_path: Path) -> None:
    root = make_vault(tmp_path, BROKEN)
    assert run_lint(root).exit_code == 1
    (root / "SCHEMA.md").write_text(DEFAULT_SCHEMA + "## Lint\n- broken-wikilink: warning\n")
    report = run_lint(root)
    assert not report.cached and report.exit_code == 0


def test_a_planted_cache_cannot_run_code_and_a_symlinked_state_folder_is_not_written(tmp_path: Path) -> None:
    """The caches live in the vault, which is shared data: loading them must not execute anything, and a
    `.wikic` that is a symlink must not redirect writes out of the vault."""
    import pickle

    from library import run_lint

    from wikic.lint.run import LintOptions

    root = make_vault(tmp_path, {})
    cache = root / ".wikic" / "cache"
    cache.mkdir(parents=True)
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):  # executed by pickle.load if anything unpickled this file
            return (open, (str(marker), "w"))

    (cache / "parse-cache.jsonl").write_bytes(pickle.dumps(Evil()))
    (cache / "parse-cache.pickle").write_bytes(pickle.dumps(Evil()))
    run_lint(root, LintOptions())
    assert not marker.exists()

    other = make_vault(tmp_path, {}, name="other")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (other / ".wikic").symlink_to(outside, target_is_directory=True)
    run_lint(other, LintOptions())
    assert list(outside.iterdir()) == []
    # nor is anything there deleted: not even a file named like the cache earlier versions wrote
    (outside / "cache").mkdir()
    (outside / "cache" / "parse-cache.json").write_text("someone's file", encoding="utf-8")
    run_lint(other, LintOptions(use_cache=True))
    assert (outside / "cache" / "parse-cache.json").read_text(encoding="utf-8") == "someone's file"
