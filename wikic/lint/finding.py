"""A lint finding is data first; renderers turn it into text, JSON, SARIF or GitHub annotations."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Fix:
    """A safe, mechanical repair: replace `old` with `new` on `line` of `path` (or the whole-file action)."""

    # "replace" | "index-add" | "index-remove" | "index-overview" (link the overview from index.md) |
    # "hub" (write the hub again: overview.md, or the source page of the raw file `path`)
    action: str
    path: str
    line: int | None = None
    old: str | None = None
    new: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (
                ("action", self.action),
                ("path", self.path),
                ("line", self.line),
                ("old", self.old),
                ("new", self.new),
            )
            if v is not None
        }


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    severity: str  # error | warning | info
    path: str
    line: int | None
    column: int | None
    message: str
    target: str | None = None
    fix: Fix | None = None

    def sort_key(self) -> tuple[Any, ...]:
        """A report's order: by place, then the most severe first, then by rule and message."""
        return (self.path, self.line or 0, self.column or 0, SEVERITY_ORDER.get(self.severity, 9), self.rule,
                self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "target": self.target,
            "message": self.message,
            "fix": self.fix.to_dict() if self.fix else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        fix = Fix(**d["fix"]) if d.get("fix") else None
        return cls(d["rule"], d["severity"], d["path"], d["line"], d["column"], d["message"], d.get("target"), fix)


def finding(
    rule: str,
    path: str,
    line: int | None,
    message: str,
    *,
    column: int | None = None,
    severity: str | None = None,
    target: str | None = None,
    fix: Fix | None = None,
) -> Finding:
    """A rule's finding; severity None: the runner applies the rule's default (or SCHEMA.md's override). The
    column is 1 on a line when not given."""
    return Finding(
        rule, severity or "", path, line, column if column is not None else (1 if line else None), message, target, fix
    )


def reported(f: Finding, default: str, forced: str | None) -> Finding:
    """`f` with the severity it is reported with: SCHEMA.md's for its rule (`forced`), else its own, else its
    rule's `default`."""
    severity = forced or f.severity or default
    if severity == f.severity:
        return f
    # the fields of `replace`, without its cost per finding
    return Finding(f.rule, severity, f.path, f.line, f.column, f.message, f.target, f.fix)


_INSERTED_SHARE = 16  # `merged` puts findings in one by one while they are fewer than this share of those kept


def merged(ordered: list[Finding], more: Iterable[Finding]) -> list[Finding]:
    """`sorted([*ordered, *more], key=Finding.sort_key)` for `ordered` already in that order (a report's findings
    kept, a few made anew): each of `more` goes in after the findings of its key, as the sort would place it,
    found by halving (a sort would make the key of each of the 90,000 findings of a 30,000-page vault)."""
    out = list(ordered)
    more = sorted(more, key=Finding.sort_key)
    if len(more) * _INSERTED_SHARE > len(out):  # many to put in: the sort costs less than their insertions
        return sorted([*out, *more], key=Finding.sort_key)
    for f in more:
        bisect.insort_right(out, f, key=Finding.sort_key)
    return out
