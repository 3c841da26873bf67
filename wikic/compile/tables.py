"""Comparison tables: the model's anchored cells placed under the subjects they name, and rendered.

A cell belongs to a listed subject when it names the same thing (`names.NameSet`: spelling, a leading
article, an acronym, an alias the plan's entities give it). A subject the model gave cells to but left
out of its list becomes a column while the table has room (MAX_COLUMNS); past that its cells are listed
under the table, so no anchored claim is lost. An axis is a row only when one of its cells sits in a
column, and a subject is a column only when it has a cell: a table is never all "—".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from wikic.compile.plan import Comparison
from wikic.pages.render import clean_text, clean_title, link, table_cell
from wikic.vault.names import NameSet, PageNames

MAX_COLUMNS = 5  # subjects a table shows: as many as the model may list


@dataclass
class Table:
    """A source's table as the compiler keeps it. `payload`: {"subjects": [column, ...], "rows": [[axis,
    {column: [[text, anchor], ...]}], ...], "notes": [[axis, subject, text, anchor], ...]} (claims of
    subjects without a column)."""

    payload: dict[str, Any]
    unanchored: int = 0  # cells dropped: their quote is not in the source

    @property
    def subjects(self) -> list[str]:
        return list(self.payload["subjects"])

    @property
    def axes(self) -> int:
        return len(self.payload["rows"])


def build_table(comparison: Comparison, aliases: Iterable[Iterable[str]] = ()) -> Table:
    """The table of `comparison` from its anchored cells (see the module docstring); `aliases` are the
    names each entity of the plan goes by."""
    groups = [list(group) for group in aliases]
    listed = NameSet(groups)
    for subject in comparison.subjects:
        if clean_title(subject):
            listed.add(clean_title(subject))
    unanchored = 0
    claims: list[tuple[str, str | None, str, list[str]]] = []  # (axis, listed subject, subject as written, claim)
    for axis in comparison.axes:
        for cell in axis.values:
            if not cell.fact.anchored:
                unanchored += 1
                continue
            subject = clean_title(cell.subject)
            claims.append(
                (clean_title(axis.axis), listed.find(subject), subject, [cell.fact.text, str(cell.fact.anchor)])
            )
    columns = [s for s in listed.names if any(found == s for _, found, _, _ in claims)]
    unlisted = NameSet(groups)
    for _, found, subject, _ in claims:
        if (
            found is None
            and subject
            and unlisted.find(subject) is None
            and len(columns) + len(unlisted.names) < MAX_COLUMNS
        ):
            unlisted.add(subject)
    columns += unlisted.names
    rows: dict[str, dict[str, list[list[str]]]] = {}  # axis -> column -> claims
    notes: list[list[str]] = []
    for axis_name, found, subject, claim in claims:
        column = found or (unlisted.find(subject) if subject else None)
        if column is None:
            notes.append([axis_name, subject, *claim])
        else:
            rows.setdefault(axis_name, {}).setdefault(column, []).append(claim)
    payload = {"subjects": columns, "rows": [[axis_name, cells] for axis_name, cells in rows.items()], "notes": notes}
    return Table(payload, unanchored)


def render_table(
    payload: dict[str, Any], names: PageNames, link_text: Callable[[str], str], cite: Callable[..., str]
) -> str:
    """The Markdown table of a comparison (subjects with a page linked), and the claims without a column."""
    subjects = payload["subjects"]
    head = ["Axis"]
    for s in subjects:
        target = names.lookup(s)
        head.append(link(link_text(target), s, in_table=True) if target else table_cell(s))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for axis, cells in payload["rows"]:
        row = [table_cell(axis)]
        for s in subjects:
            claims = cells.get(s) or []
            row.append("; ".join(f"{table_cell(text)} {cite(anchor, in_table=True)}" for text, anchor in claims) or "—")
        lines.append("| " + " | ".join(row) + " |")
    notes = payload.get("notes") or []
    if notes:
        lines.append("")
    for axis, subject, text, anchor in notes:
        target = names.lookup(subject)
        shown = link(link_text(target), subject) if target else clean_text(subject, 120)
        lines.append(f"- {shown}, {clean_text(axis, 120)}: {clean_text(text)} {cite(anchor)}")
    return "\n".join(lines)
