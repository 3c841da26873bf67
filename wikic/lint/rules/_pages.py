"""What the page rules share. They judge what a reader of a compiled page trips over: no-lead,
repeated-claim, uncited-sentence, thin-section, source-sections (their definitions: README's lint section);
`lead-drift` is judged the same way (a page's summary against its lead), and counted apart from them.

They look at the subject pages of a vault with SCHEMA.md: entities, concepts, comparisons and the page types
SCHEMA.md adds, not query pages. `no-lead` judges every one of them; the others judge compiler text, so only
compiled pages: those holding a lead, section, History or claims block. A page a person wrote without such
blocks is theirs, and never reported by them.

Each judges one page at a time (its `Rule.page`) from the page's text, its note and SCHEMA.md. A lint that
parses pages judges each where it parses it (`judge_while_parsing`, in the parsing processes, the page's bytes
at hand); a rule's check then reads the text only of the pages not parsed in this run (a cached note).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import JUDGED_RULES, PageCheck
from wikic.vault.formats.claims import plain_text
from wikic.vault.layout import PAGE_FOLDERS
from wikic.vault.model import Note
from wikic.vault.page_layout import DEFAULT_LAYOUTS
from wikic.vault.schema_md import Schema

Judged = dict[str, list[Finding]]  # a page's findings by rule


def subject_page(kind: str | None) -> bool:
    """A page about a subject: an entity, concept or comparison, or a page of a type SCHEMA.md adds (laid out
    as an entity). Not a query page, an answer with no subject to introduce."""
    return kind is not None and (kind in DEFAULT_LAYOUTS or kind not in PAGE_FOLDERS)


def _page_text(text: str, note: Note) -> PageText:
    """The page as the rules read it: its text with every line ending a newline (as `open` reads text)."""
    return PageText(text.replace("\r\n", "\n").replace("\r", "\n"), note)


# the last note's page: (its bytes, its note, its page)
_last_page: tuple[bytes, Note, PageText | None] | None = None


def page_of(data: bytes, note: Note) -> PageText | None:
    """The page as the rules read it from its bytes, None when they are not UTF-8 text. Lint's parse runs the
    page rules and `wikic eval`'s reading on each note one after the other: the second is given the page the
    first read (its lines read, hidden lines and blocks found once for both)."""
    global _last_page
    last = _last_page
    if last is not None and last[0] is data and last[1] is note:
        return last[2]
    try:
        page: PageText | None = _page_text(data.decode("utf-8"), note)
    except UnicodeDecodeError:
        page = None
    _last_page = (data, note, page)
    return page


def _judges(rule_ids: Collection[str]) -> list[tuple[str, PageCheck]]:
    from wikic.lint.rules import RULES

    return [(r, judge) for r in JUDGED_RULES if r in rule_ids and (judge := RULES[r].page) is not None]


def judging(rule_ids: Collection[str]) -> list[str]:
    """The page rules among `rule_ids`, in their order."""
    return [rule_id for rule_id, _ in _judges(rule_ids)]


def judge_while_parsing(
    schema: Schema, rule_ids: Collection[str]
) -> Callable[[str, bytes, Note], Judged | None] | None:
    """What a lint runs on each note it parses (`load_vault`'s `per_note`): the findings of the page rules
    among `rule_ids` on a subject page ({} for one that is not UTF-8 text, which they leave to `encoding`),
    None for any other note."""
    judges = _judges(rule_ids)
    if not judges or not schema.present:
        return None
    folders = schema.folder_types()

    def judge_note(path: str, data: bytes, note: Note) -> Judged | None:
        top, sep, _ = path.partition("/")
        kind = folders.get(top) if sep and path.endswith(".md") else None
        if not subject_page(kind):
            return None
        page = page_of(data, note)
        if page is None:
            return {}
        return {rule_id: list(judge(path, page, note, schema, kind)) for rule_id, judge in judges}

    return judge_note


def page_findings(ctx: LintContext, rule_id: str) -> Iterator[Finding]:
    """A page rule's check: its findings on every subject page, in page order, as judged while parsing or
    judged here from the page's text (read once for all these rules; a page that cannot be read is left to the
    `encoding` and `unsafe-path` rules)."""
    judged: dict[str, Judged] = ctx.vault.per_note
    subjects: list[tuple[str, str | None]] | None = ctx.__dict__.get("_subject_pages")
    if subjects is None:
        subjects = [(path, kind) for path in ctx.pages if subject_page(kind := ctx.vault.page_type(path))]
        ctx.__dict__["_subject_pages"] = subjects
    judge = _judges((rule_id,))[0][1]
    for path, kind in subjects:
        found = judged.get(path)
        if found is not None:
            yield from found.get(rule_id, ())
            continue
        yield from _judge_read(ctx, judge, path, kind)


def judge_page(ctx: LintContext, rule_id: str, path: str) -> Iterator[Finding]:
    """A page rule's findings on one page, as `page_findings` gives them."""
    kind = ctx.vault.page_type(path)
    if subject_page(kind):
        yield from _judge_read(ctx, _judges((rule_id,))[0][1], path, kind)


def _judge_read(ctx: LintContext, judge: PageCheck, path: str, kind: str | None) -> Iterator[Finding]:
    """`judge`'s findings on a page read here (once for all the page rules)."""
    texts: dict[str, PageText | None] = ctx.__dict__.setdefault("_page_texts", {})
    if path not in texts:
        try:
            text = (ctx.vault.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            texts[path] = None
        else:
            texts[path] = _page_text(text, ctx.vault.notes[path])
    page = texts[path]
    if page is not None:
        yield from judge(path, page, ctx.vault.notes[path], ctx.schema, kind)


def said_briefly(text: str, limit: int = 80) -> str:
    plain = " ".join(plain_text(text).split())
    return plain if len(plain) <= limit else plain[: limit - 1] + "…"
