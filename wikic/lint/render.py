"""Lint output formats: text (default), json (its shape is in the README), sarif (2.1.0), github (annotations)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from wikic import __version__
from wikic.lint.finding import Finding
from wikic.lint.run import LintReport

FORMATS = ("text", "json", "sarif", "github")


def render(report: LintReport, fmt: str) -> str:
    return {"text": text, "json": as_json, "sarif": sarif, "github": github}[fmt](report)


def finding_line(f: Finding) -> str:
    """`path:line:col: severity rule-id message`, the one text form of a finding (lint, ingest); a finding
    about a whole page (line null in json) is `path: severity rule-id message`: it has no line to point at."""
    where = f"{f.path}:{f.line}:{f.column or 1}" if f.line else f.path
    return f"{where}: {f.severity} {f.rule} {f.message}"


def text(report: LintReport) -> str:
    lines = [finding_line(f) for f in report.findings]
    s = report.summary()
    infos = report.count("info")
    verdict = "FAILED" if report.failed else "ok"
    on = "" if report.reported_on is None else \
        f" on the {report.reported_on} file{'' if report.reported_on == 1 else 's'} asked about"
    lines.append(
        f"{s['pages']} pages, {s['links']} links: {s['errors']} error(s), {s['warnings']} warning(s), {infos} info"
        f"{on} in {s['seconds']:.2f}s — {verdict}{' (strict)' if report.strict else ''}"
    )
    return "\n".join(lines)


def as_json(report: LintReport) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False, indent=None)


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif(report: LintReport) -> str:
    from wikic.lint.run import _rules

    rules = _rules()
    used = sorted({f.rule for f in report.findings})
    results: list[dict[str, Any]] = []
    for f in report.findings:
        # a URI reference: "Daily notes/2024 [draft].md" -> "Daily%20notes/2024%20%5Bdraft%5D.md"
        location: dict[str, Any] = {"artifactLocation": {"uri": quote(f.path, safe="/"), "uriBaseId": "VAULT"}}
        if f.line:
            location["region"] = {"startLine": f.line, "startColumn": f.column or 1}
        results.append(
            {
                "ruleId": f.rule,
                "level": _SARIF_LEVEL.get(f.severity, "note"),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": location}],
            }
        )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "wikic",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/wikic/",
                        "rules": [
                            {"id": r, "shortDescription": {"text": rules[r].summary if r in rules else r}} for r in used
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)


def _gh_escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def github(report: LintReport) -> str:
    lines = []
    for f in report.findings:
        props = [f"file={_gh_escape(f.path, True)}"]
        if f.line:
            props.append(f"line={f.line}")
            props.append(f"col={f.column or 1}")
        props.append(f"title={_gh_escape(f.rule, True)}")
        lines.append(f"::{_GH_LEVEL.get(f.severity, 'notice')} {','.join(props)}::{_gh_escape(f.message)}")
    return "\n".join(lines)
