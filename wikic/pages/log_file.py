"""log.md is an append-only table written by code: its rows, and log.md with rows appended."""

from __future__ import annotations

import datetime as dt

from wikic.resources import log_skeleton


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def row(date: dt.date, action: str, target: str, notes: str) -> str:
    return f"| {date.isoformat()} | {_cell(action)} | {_cell(target)} | {_cell(notes)} |"


def appended(text: str | None, rows: list[str]) -> str:
    """`text` (the current log.md, or None) with `rows` added at the end of the table."""
    base = text if text and text.strip() else log_skeleton()
    if not base.endswith("\n"):
        base += "\n"
    return base + "".join(r + "\n" for r in rows)
