"""Ending a claim by hand (MCP `invalidate`): the claim stops holding on a day, for a reason, and the change
is itself anchored.

The reason is written as a dated note in `raw/notes/` (a source like any other: immutable once captured),
the claim's line records the end and that note (`to=`, `ended=`), and the page is settled, so the claim
moves to the history with its interval. Nothing is deleted, and no model is called: the note is recorded as
compiled, so a later ingest does not send it to one. Written through the journal, under the vault lock.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.facts.lookup import as_of_date
from wikic.text.controls import without_controls
from wikic.vault.formats.claims import Claim, is_claim_id, plain_text, scan
from wikic.vault.formats.dates import first_day
from wikic.vault.layout import require_vault
from wikic.vault.schema_md import Schema

NOTES_KIND = "notes"
MAX_REASON = 1000


@dataclass(frozen=True)
class Invalidated:
    claim: str  # its id
    page: str
    text: str  # the claim, as plain text
    ended: dt.date
    note: str  # the raw note that says why


def note_text(claim: Claim, page: str, reason: str, day: dt.date) -> str:
    said = plain_text(claim.text)
    return (
        f"---\ndate: {day.isoformat()}\ninvalidates: {claim.id}\npage: {json.dumps(page)}\n---\n"
        f"# Claim ended: {' '.join(said.split())[:80]}\n\n"
        f"As of {day.isoformat()}, this no longer holds: {said} (^{claim.id} on {page}).\n\n"
        f"Reason: {' '.join(reason.split())}\n"
    )


def find_claim(root: Path, schema: Schema, claim_id: str) -> tuple[str, Claim, str]:
    """(page, claim, page text) of the claim `claim_id`; a UsageError when no page has it."""
    from wikic.vault.load import load_vault

    wanted = claim_id.strip().lstrip("^")
    if not is_claim_id(wanted):
        raise UsageError(f"'{claim_id}' is not a claim id", hint="claim ids look like c1a2b3c4d (see `wikic facts`)")
    for path in load_vault(root, use_cache=True, schema=schema).pages:
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if wanted not in text:
            continue
        for claim in scan(text):
            if claim.id == wanted:
                return path, claim, text
    raise UsageError(f"no page has the claim {wanted}", hint="`wikic facts SUBJECT` lists a subject's claims")


def invalidate(context: VaultContext, claim_id: str, reason: str, *, on: str | dt.date | None = None,
               today: dt.date | None = None) -> Invalidated:
    """End the claim `claim_id` on `on` (default today) for `reason`."""
    from wikic.compile.page import PageUpdate, render_page
    from wikic.ingest.capture import capture
    from wikic.pages import journal
    from wikic.pages.blocks import digest, find_block
    from wikic.pages.lock import writer
    from wikic.pages.log_file import page_link, row
    from wikic.vault.frontmatter import split_page
    from wikic.vault.link_text import LinkNames
    from wikic.vault.load import walk

    root = Path(context.root).resolve()
    require_vault(root)
    today = today or dt.date.today()
    reason = without_controls(reason)  # a tool call's NUL or colour codes never reach raw/notes/
    if not reason.strip():
        raise UsageError("give the reason the claim no longer holds", hint="it is written into raw/notes/")
    if len(reason) > MAX_REASON:
        raise UsageError(f"a reason is at most {MAX_REASON} characters")
    day = as_of_date(on, today)
    if day > today:
        raise UsageError(f"{day.isoformat()} is in the future: a claim is ended on a day that has come")
    schema = context.checked_schema()
    page_types = list(schema.page_folders)
    with writer(root, page_types):
        page, claim, text = find_claim(root, schema, claim_id)
        if claim.valid_to is not None:  # asked twice (a retry), or a claim its source gives an end
            why = f"ended by {claim.ended}" if claim.ended else "as its source states"
            raise UsageError(f"{claim.id} on {page} already ended on {claim.valid_to} ({why}): nothing changed",
                             hint="it is in the page's history; `wikic facts SUBJECT` lists the claims that hold now")
        if day < first_day(claim.start):
            raise UsageError(f"{claim.id} holds from {claim.start}: it cannot end on {day.isoformat()}, before that")
        if claim.block is None or find_block(text, claim.block) is None:
            raise UsageError(f"{page}: the claim {claim.id} is not in a block wikic writes",
                             hint="end it by hand on the page")
        (captured,) = capture(root, ["-"], kind=NOTES_KIND, settings=context.settings.ingest,
                              stdin=note_text(claim, page, reason, day).encode())
        note = captured.text_path or captured.raw_path
        block = find_block(text, claim.block)
        assert block is not None
        _, _, sha, body = block
        if digest(body) != sha:
            raise UsageError(f"{page}: a person edited the block of {claim.id}, so wikic does not rewrite it",
                             hint="end the claim there by hand")
        data, rest = split_page(text)
        kind = str((data or {}).get("type") or "entity")
        rendered = render_page(rest, schema.layout(kind), PageUpdate(ended={claim.id: (day.isoformat(), note)}),
                               today=today)
        head = text[: len(text) - len(rest)] if data is not None else ""
        plan = journal.Journal()
        plan.add_page(page, text, head + rendered.body)
        plan.compiled = {note: {"sha256": captured.sha256, "pages": [page], "compiled": today.isoformat()}}
        files, _ = walk(root)
        target = page_link(LinkNames(files).link_text(page), str((data or {}).get("title") or "") or None)
        plan.add_log(root, [row(today, "invalidate", target, f"{claim.id} ended {day.isoformat()}; note [[{note}]]")])
        plan.palace = [page, note]
        left = plan.commit(root, page_types)
        if left:
            raise UsageError(f"{page} changed while the claim was being ended", hint="try again")
    return Invalidated(claim.id, page, plain_text(claim.text), day, note)
