"""`confirm_lesson`: an assistant counts one confirmation on a lesson already on a page (written through the
journal, under the vault lock); two make it verified."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.vault.layout import require_vault


@dataclass
class Confirmed:
    page: str
    lesson: str
    confirmations: int
    verified: bool


def confirm_lesson(
    context: VaultContext, lesson: str, *, page: str | None = None, today: dt.date | None = None
) -> Confirmed:
    """Count a confirmation of the lesson that says `lesson` (the same words, or the same meaning) on
    `page` (any page when None). Raises UsageError when no lesson matches, or when a person edited the
    lesson's block (their text is never rewritten: they can count it there themselves)."""
    from wikic.memory.item_index import load_memories
    from wikic.memory.merge import Deduplicator, packaged_embedder, packaged_vectors
    from wikic.pages import journal
    from wikic.pages.blocks import digest, find_block, render_block
    from wikic.pages.lock import writer
    from wikic.pages.log_file import page_link, row
    from wikic.vault.formats.anchors import find_anchors
    from wikic.vault.formats.memory_items import block_key, parse_item, render_item

    root = Path(context.root).resolve()
    require_vault(root)
    context.checked_schema()  # a SCHEMA.md that cannot be read as meant: no page is written
    page_types = context.page_types
    today = today or dt.date.today()
    with writer(root, page_types):
        lessons = [
            m
            for m in load_memories(context).items
            if m.item.kind == "lesson"
            and (
                page is None
                or page.strip().removesuffix(".md").casefold()
                in (m.path[:-3].casefold(), m.link.casefold(), m.title.casefold())
            )
        ]
        dedup = Deduplicator(packaged_embedder, packaged_vectors(root))
        found = dedup.best(lesson, [m.item.plain for m in lessons])
        dedup.keep()  # the lessons' vectors, for the next confirmation and the next ingest
        if found is None:
            raise UsageError(f"no lesson on {'page ' + page if page else 'any page'} says {lesson!r}",
                             hint="recall(kind='lesson') lists the lessons as the pages write them")
        target = lessons[found]
        text = (root / target.path).read_text(encoding="utf-8")
        for key in (block_key("lesson"), block_key("lesson") + ":more"):
            block = find_block(text, key)
            if block is None:
                continue
            start, end, sha, body = block
            lines = body.split("\n")
            for n, line in enumerate(lines):
                item = parse_item(line, "lesson")
                if item is None or item.plain != target.item.plain:
                    continue
                if digest(body) != sha:
                    raise UsageError(f"{target.path}: a person edited its lessons, so wikic does not rewrite them",
                                     hint="add the confirmation there by hand, or restore the block")
                shown = {cited.spec: m.group() for m, cited in find_anchors(line)}
                confirmed = item.confirm(today)
                lines[n] = render_item(confirmed, shown.__getitem__)
                new_text = text[:start] + render_block(key, "\n".join(lines)) + text[end:]
                plan = journal.Journal()
                plan.add_page(target.path, text, new_text)
                plan.add_log(
                    root, [row(today, "confirm", page_link(target.link, target.title),
                               f"lesson confirmed ({confirmed.confirmations})")]
                )
                plan.palace = [target.path]
                plan.commit(root, page_types)
                return Confirmed(target.path, confirmed.plain, confirmed.confirmations, confirmed.verified)
    raise UsageError(f"{target.path}: the lesson changed while it was being confirmed", hint="try again")
