"""A page per raw source (`sources/<name>.md`, `type: source`): what the source is, what it says, which pages
it fed, and what was left out of them and why, written by code from the vault (no model call).

    # RAG in practice
    (lead)      RAG in practice is an article by Jane Doe, dated 2026-09-01. It fed 3 pages.
    (about)     - Raw file: [[raw/articles/rag-in-practice.md|rag-in-practice.md]], captured 2026-09-08 ...
    ## Key points       three to five anchored claims the source gave the pages, each with its page
    ## Pages it fed     the pages whose `sources` name it, by type, with how many lines of each cite it
    ## Left out         names waiting for another source, claims dropped (by reason), what was refused

A key point is a claim as a subject page carries it, with this source's anchor: never text the code did not
find anchored in the source. The source page links the raw file and every page it fed, so Obsidian's
backlinks lead from the raw file and from each of those pages to it. Each part is a compiler block: a person's
edits, inside a block or around it, stay.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from wikic.facts.timeline import HISTORY_KEY
from wikic.hubs.blocks import place
from wikic.hubs.view import HubView
from wikic.pages.frontmatter import dump_frontmatter
from wikic.pages.index_file import section_title
from wikic.pages.render import clean_text, clean_title
from wikic.resources import page_skeleton
from wikic.vault.formats.anchors import find_anchors, render as render_anchor
from wikic.vault.formats.claims import normal_text, plain_text, scan
from wikic.vault.formats.compiled import CompiledEntry
from wikic.vault.formats.markers import BEGIN, end_line
from wikic.vault.formats.memory_items import BLOCK_PREFIX, parse_item
from wikic.vault.formats.mentions import Mention, waiting_memories
from wikic.vault.formats.sources import SourceEntry, text_copies
from wikic.vault.formats.transcript import headers, is_transcript
from wikic.vault.frontmatter import split_page, titled
from wikic.vault.lead import lead_of, plain_line, shorten
from wikic.vault.slug import SOURCE, slugify

KEY_POINTS = 5  # at most; as many as the source gave, when fewer
TAGS = 3
DESCRIPTION = 300  # characters of what a source says it is
SECTIONS = ("Key points", "Pages it fed", "Left out")
LEAD_KEY = "summary"
_KINDS = {"articles": "an article", "papers": "a paper", "transcripts": "a conversation", "notes": "a note",
          "assets": "a file"}
# What each reason a claim was dropped for means (`ingest/plan_model.py` names them).
REASONS = {
    "no quote": "the quote is not in the source",
    "unsupported": "the quote does not state the numbers, dates or names",
    "invented name": "the name is one the source never writes",
}
SUMMARY_REASON = "unsupported summary"  # a summary the source does not support, replaced by a claim
_SENTENCE_ENDS = frozenset(".!?。！？…")
_PRONOUNS = frozenset("it its they their them this these that those he she his her".split())
_AUTHOR_KEYS = ("author", "authors", "by", "creator", "creators")
_DATE_KEYS = ("date", "published", "published_at", "publication_date", "started", "created")
_URL_KEYS = ("url", "source", "link", "origin")
_PARTIAL_DATE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")
_URL = re.compile(r"^https?://[^\s<>\[\]|`\\]+$")
_SECRET_PARAM = re.compile(r"token|key|secret|pass|sig|auth|credential|session|code", re.IGNORECASE)


def source_page_name(raw: str) -> str:
    """The file name a raw source's page starts from: the raw file's, as a page name."""
    stem = posixpath.basename(raw)
    stem = stem[: stem.rfind(".")] if "." in stem[1:] else stem
    return slugify(stem, rules=SOURCE)


@dataclass(frozen=True)
class About:
    title: str
    kind: str  # "an article", "a conversation", ...
    author: str | None
    date: str | None  # YYYY, YYYY-MM or YYYY-MM-DD
    url: str | None
    original: str | None  # the file captured, when its text was extracted into `raw`
    captured: str | None
    description: str | None = None  # what the source says it is (its frontmatter's `description`)
    speakers: tuple[str, ...] = ()
    turns: int = 0


def about(view: HubView, raw: str) -> About:
    """What the source says of itself (its frontmatter, its first heading) and what capture recorded."""
    ledger = view.ledger
    original = next((p for p, copy in sorted(text_copies(ledger).items()) if copy == raw), None)
    captured = ledger.get(original or raw) or ledger.get(raw) or SourceEntry()
    text = view.text(raw) or ""
    data, _ = split_page(text[:200_000])
    data = data or {}
    # titled as capture titles a source (a text extracted from HTML or PDF: by the title capture found there),
    # from its own text: a ledger an earlier version wrote may hold the first heading of any level
    given = _text(captured.title) if original and not _text(data.get("title")) else None
    title = given or titled(text[:200_000], _own_name(captured, raw))
    folder = raw.split("/")[1] if raw.count("/") >= 2 else ""
    speakers: tuple[str, ...] = ()
    turns = 0
    conversation = is_transcript(raw, text)
    if conversation:
        found = headers(text)
        speakers = tuple(dict.fromkeys(h.speaker for h in found)) or _names(data.get("participants"))
        turns = len(found)
    kind = "a conversation" if conversation else _KINDS.get(folder, "a source")
    url = next((u for u in (_text(data.get(k)) for k in _URL_KEYS) if u and _URL.match(u)), None)
    origin = _text(captured.origin)
    if url is None and origin and _URL.match(origin):
        url = origin
    # what a source says of itself is the source's text, not wikic's: made plain before it reaches a page
    author = _author(data)
    description = _text(data.get("description"))
    return About(
        title=clean_title(title) or posixpath.basename(raw),
        description=clean_text(description, DESCRIPTION) if description else None,
        kind=kind,
        author=clean_title(author) if author else None,
        date=next((d for d in (_date(data.get(k)) for k in _DATE_KEYS) if d), None),
        url=public_url(url) if url else None,
        original=original,
        captured=_date(captured.captured) or _date(data.get("captured")),
        speakers=tuple(n for n in (clean_title(s) for s in speakers) if n),
        turns=turns,
    )


@dataclass(frozen=True)
class Point:
    page: str
    text: str  # plain
    anchor: str  # this source's anchor, as the page writes it
    lead: bool
    order: int


def points(view: HubView, raw: str, page: str) -> list[Point]:
    """What `raw` says on `page`: its current claims (the lead first), then its memories, each with the
    anchor that cites `raw`."""
    return list(_said(view, page).points.get(raw, ()))


@dataclass(frozen=True)
class _Said:
    """What one page says of every raw source it cites. Read once per text of the page: a page that many
    sources fed is read once for all their source pages, not once for each."""

    points: dict[str, list[Point]]  # raw path -> its points on the page, as `points` gives them
    anchors: Counter[str]  # raw path -> how many anchors of the page cite it


def _said(view: HubView, page: str) -> _Said:
    text = view.text(page) or ""
    known = view.read.get(page)
    if known is not None and known[0] is text:
        said: _Said = known[1]
        return said
    said = _said_in(page, text)
    view.read[page] = (text, said)
    return said


def shown_of(view: HubView, page: str, text: str | None = None) -> dict[str, tuple[object, ...]]:
    """raw path -> all that the source's page shows of `page` (whose text is `text`, None: as the view has
    it): its points in order and how many anchors cite it. Two texts of a page that give a source the same
    leave its page as it is."""
    said = _said(view, page) if text is None else _said_in(page, text)
    return {raw: (tuple((p.text, p.anchor, p.lead, p.order >= 10_000) for p in said.points.get(raw, ())),
                  said.anchors[raw])
            for raw in {*said.points, *said.anchors}}


def _said_in(page: str, text: str) -> _Said:
    found: dict[str, list[Point]] = {}
    for n, claim in enumerate(scan(text)):
        if claim.block == HISTORY_KEY:
            continue  # no longer holds
        plain: str | None = None
        for cited in claim.citations:
            raw = cited.source
            if raw is None or (found.get(raw) and found[raw][-1].order == n):
                continue  # each source's first anchor on the claim
            plain = plain if plain is not None else plain_text(claim.text)
            found.setdefault(raw, []).append(Point(page, plain, cited.anchor, claim.block == LEAD_KEY, n))
    for n, (kind, line) in enumerate(_memory_lines(text)):
        item = parse_item(line, kind)
        if item is None:
            continue
        for raw in item.sources:
            spec = next(a for a in item.anchors if a.startswith(raw + ":"))
            found.setdefault(raw, []).append(Point(page, plain_text(item.text), render_anchor(spec), False, 10_000 + n))
    return _Said(found, Counter(c.path for _, c in find_anchors(text)))


def _memory_lines(text: str) -> list[tuple[str, str]]:
    """(kind, line) of every line of the page's memory blocks."""
    out: list[tuple[str, str]] = []
    for m in BEGIN.finditer(text):
        key = m.group(1)
        if not key.startswith(BLOCK_PREFIX):
            continue
        close = text.find(end_line(key), m.end())
        if close < 0:
            continue
        kind = key[len(BLOCK_PREFIX):].split(":", 1)[0]
        out.extend((kind, line) for line in text[m.end():close].split("\n") if line.startswith("- "))
    return out


def fed_by(view: HubView, raw: str) -> list[str]:
    """The subject pages `raw` fed: those whose `sources` name it, and those the compiled ledger says it wrote
    into (a note that ended a claim is on no page's `sources`), filed answers aside."""
    entry = view.compiled.get(raw)
    recorded = list(entry.pages or ()) if entry is not None else []
    pages = dict.fromkeys([*view.fed.get(raw, []), *recorded])
    return sorted(p for p in pages if p in view.subject_set and view.kind(p) != "query")


def key_points(view: HubView, raw: str, pages: list[str]) -> list[Point]:
    """At most KEY_POINTS points, one page at a time: the pages the source says most on first, then in the
    order the source speaks of them (not by what links to them: an ingest of another source, which adds links,
    must not rewrite this page); on each page its lead claim, then a claim that names its subject rather than
    starting with "it". A claim that two pages carry is one point, on the page whose subject it names."""
    found = {page: points(view, raw, page) for page in pages}
    for mine in found.values():
        mine.sort(key=lambda p: (not p.lead, _starts_with_pronoun(p.text), p.order))
    order = sorted((p for p in pages if found[p]), key=lambda p: (-len(found[p]), _first_said(found[p]), p))
    chosen: list[Point] = []
    said: dict[str, int] = {}  # a point's words -> where it is among the chosen
    depth = 0
    while len(chosen) < KEY_POINTS and any(len(found[p]) > depth for p in order):
        for page in order:
            if len(found[page]) > depth and len(chosen) < KEY_POINTS:
                point = found[page][depth]
                words = normal_text(point.text)
                at = said.get(words)
                if at is None:
                    said[words] = len(chosen)
                    chosen.append(point)
                elif _names_its_page(view, point) and not _names_its_page(view, chosen[at]):
                    chosen[at] = point  # "Quillstore handled…" on Quillstore's page, not on its author's
        depth += 1
    return chosen


def _names_its_page(view: HubView, point: Point) -> bool:
    """Whether the point names the subject of the page it is on."""
    return view.title(point.page).casefold() in point.text.casefold()


def _first_said(mine: list[Point]) -> int:
    """The first line of the source that these points of one page cite."""
    return min((cited.start for p in mine for _, cited in find_anchors(p.anchor)), default=0)


def _starts_with_pronoun(text: str) -> bool:
    first = text.split(" ", 1)[0].strip(",.;:").casefold()
    return first in _PRONOUNS


def render_source_page(view: HubView, raw: str, path: str, today: dt.date, current: str | None) -> str:
    """The source page of `raw` at `path`: `current` (None: a new page) with its blocks brought up to date
    and its frontmatter's `updated` moved to `today` when anything else changed."""
    info = about(view, raw)
    pages = fed_by(view, raw)
    cites = {page: _said(view, page).anchors[raw] for page in pages}
    chosen = key_points(view, raw, pages)
    memories = sum(1 for page in pages for p in points(view, raw, page) if p.order >= 10_000)
    entry = view.compiled.get(raw) or CompiledEntry(None)

    data: dict[str, Any]
    old_data, old_body = split_page(current) if current is not None else (None, "")
    if old_data is not None:
        data = dict(old_data)
        body = old_body
    else:
        data = {"title": info.title, "created": today, "updated": today, "type": "source",
                "tags": _tags(view, pages)}
        body = page_skeleton("source").opening(_heading(info.title))
    data.update({"type": "source", "sources": [raw], "summary": ""})
    for key, value in (("author", info.author), ("date", info.date), ("url", info.url)):
        if value:
            data[key] = value
    lead = _lead(info, len(pages), memories)
    blocks: list[tuple[str, str, str | None]] = [
        (LEAD_KEY, lead, None),
        ("source:about", _about_lines(view, raw, info, entry), None),
        ("source:key-points", _points_text(view, chosen), "Key points"),
        ("source:pages", _pages_text(view, pages, cites, entry), "Pages it fed"),
        ("source:left-out", _left_out(view, raw, entry), "Left out"),
    ]
    new_body = place(body, blocks, order=SECTIONS, lead=LEAD_KEY)
    data["summary"] = lead_of(None, new_body)  # a lead a person rewrote is the page's lead
    if current is not None:
        kept = {**data, "updated": (old_data or {}).get("updated", today)}
        if dump_frontmatter(kept) + new_body.lstrip("\n") == current:
            return current
        data["updated"] = today
    return dump_frontmatter(data) + new_body.lstrip("\n")


def _heading(title: str) -> str:
    """A title as text of the page's body: no link, comment, HTML or Markdown of its own."""
    return clean_text(title, 200) or "Source"


def _lead(info: About, pages: int, memories: int) -> str:
    said = f"“{_heading(info.title)}” is {info.kind}"
    if info.speakers:
        said += f" between {_and([_heading(n) for n in info.speakers[:4]])}"
        said += " and others" if len(info.speakers) > 4 else ""
    if info.author:
        said += f" by {_heading(info.author)}"
    if info.date:
        said += f", {'started' if info.kind == 'a conversation' else 'dated'} {info.date}"
    if info.description:  # what the source says it is, in its own words
        said += f": {info.description}"
    fed = f"It fed {pages} page{'' if pages == 1 else 's'}" if pages else "It fed no page yet"
    if memories:
        fed += f" and {memories} memor{'y' if memories == 1 else 'ies'}"
    return f"{said}{'' if said[-1] in _SENTENCE_ENDS else '.'} {fed}."


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _raw_link(path: str) -> str:
    name = posixpath.basename(path)
    return f"[[{path}|{name}]]" if "|" not in path and "]" not in path and "[" not in path else f"`{path}`"


def _about_lines(view: HubView, raw: str, info: About, entry: CompiledEntry) -> str:
    line = f"- Raw file: {_raw_link(raw)}"
    if info.original:
        line += f" (text extracted from {_raw_link(info.original)})"
    if info.captured:
        line += f", captured {info.captured}"
    if info.url:
        line += f" from <{info.url}>"
    out = [line]
    if info.turns:
        out.append(f"- {info.turns} turn{'' if info.turns == 1 else 's'}")
    if entry.compiled:
        out.append(f"- Compiled {entry.compiled}")
    return "\n".join(out)


def _points_text(view: HubView, chosen: list[Point]) -> str:
    if not chosen:
        return "None yet: nothing this source says is on a page."
    return "\n".join(f"- {view.link(p.page)}: {p.text} {p.anchor}" for p in chosen)


def _pages_text(view: HubView, pages: list[str], cites: dict[str, int], entry: CompiledEntry) -> str:
    if not pages:
        return "None yet."
    by_kind: dict[str, list[str]] = {}
    for page in sorted(pages, key=lambda p: (view.title(p).casefold(), p)):
        by_kind.setdefault(view.kind(page), []).append(page)
    order = [k for k in view.schema.page_folders if k in by_kind] + sorted(set(by_kind) - set(view.schema.page_folders))
    out = []
    for kind in order:
        shown = []
        for page in by_kind[kind]:
            n = cites.get(page, 0)
            shown.append(view.link(page) + (f" ({n} citation{'' if n == 1 else 's'})" if n else ""))
        out.append(f"- {section_title(kind)}: " + ", ".join(shown))
    superseded = entry.superseded or 0
    if superseded:
        out.append(f"- It replaced {superseded} earlier claim{'' if superseded == 1 else 's'}, now in "
                   f"{'its' if superseded == 1 else 'their'} pages' History")
    return "\n".join(out)


def waiting_for(item: Mention, needed: int) -> str:
    """What a name waiting in the mentions ledger (`item`) waits for, SCHEMA.md asking `needed` sources to name
    an entity: enough sources, or one that says what it is (a name only written inside sentences about other
    subjects waits for a sentence of its own)."""
    if item.kind != "entity":
        return "a page once a source explains it"
    if len(item.sources) < needed:
        return f"a page once {needed} sources name it"
    return "a page once a source says what it is"


def _waiting_memories(view: HubView, raw: str) -> dict[str, int]:
    """subject -> how many memories `raw` said of it, for the subjects waiting in the mentions ledger."""
    out: dict[str, int] = {}
    for name, source, rows in waiting_memories(view.mentions):
        if source == raw:
            out[name] = out.get(name, 0) + len(rows)
    return out


def _left_out(view: HubView, raw: str, entry: CompiledEntry) -> str:
    out = []
    # a name waiting as an entity and as a concept, or in two spellings of case, is one name to a reader
    named = {item.name.casefold(): item.name for item in view.mentions.values() if raw in item.sources}
    waiting = sorted(named.values(), key=lambda n: (n.casefold(), n))
    if waiting:
        needed = view.schema.thresholds.get("entity_min_references", 2)
        names = ", ".join(_heading(n) for n in waiting[:12])
        names += f" and {len(waiting) - 12} more" if len(waiting) > 12 else ""
        entity = "once a source says what it is"
        entity = entity if needed <= 1 else f"once {needed} sources name it and one says what it is"
        out.append(f"- {len(waiting)} name{'' if len(waiting) == 1 else 's'} waiting for a page (an entity gets one "
                   f"{entity}, a concept once its sections are filled): {names}")
    remembered = _waiting_memories(view, raw)
    if remembered:
        n = sum(remembered.values())
        about = ", ".join(_heading(name) for name in sorted(remembered, key=str.casefold))
        whose, it = ("whose page waits" if len(remembered) == 1 else "whose pages wait"), ("it" if n == 1 else "them")
        out.append(f"- {n} memor{'y' if n == 1 else 'ies'} about {about}, {whose}: the briefing (`wikic wake-up`) "
                   f"and recall show {it} meanwhile")
    dropped = entry.dropped or {}
    claims = {r: n for r, n in dropped.items() if r != SUMMARY_REASON and n > 0}
    if claims:
        total = sum(claims.values())
        said = f"- {total} claim{'' if total == 1 else 's'} dropped"
        if len(claims) == 1:
            out.append(f"{said} because {REASONS.get(next(iter(claims)), next(iter(claims)))}")
        else:
            out.append(f"{said}: " + "; ".join(f"{n} because {REASONS.get(r, r)}" for r, n in sorted(claims.items())))
    summaries = dropped.get(SUMMARY_REASON) or 0
    if summaries:
        out.append(f"- {summaries} summar{'y' if summaries == 1 else 'ies'} replaced by a claim: the source does not "
                   "support the model's words")
    refused = entry.refused or 0
    if refused:
        out.append(f"- {refused} pairing{'' if refused == 1 else 's'} or interval{'' if refused == 1 else 's'} refused "
                   "(a date or a replaced claim the source does not bear out)")
    if entry.nothing_extracted:
        out.append(f"- The model proposed nothing from it, although it names things: `wikic ingest --strategy "
                   f"two-pass --force {raw}` asks again")
    return "\n".join(out) if out else "Nothing was left out."


def _tags(view: HubView, pages: list[str]) -> list[str]:
    taxonomy = view.schema.tag_set
    counted = Counter(t for p in pages for t in dict.fromkeys(view.tags(p)) if not taxonomy or t in taxonomy)
    return [t for t, _ in sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[:TAGS]]


def _own_name(captured: SourceEntry, raw: str) -> str:
    """The name of the file a source was captured from ("Graph view.md"), else its raw file's."""
    origin = _text(captured.origin)
    if origin and origin != "stdin" and not _URL.match(origin) and "/" not in origin:
        return origin
    return posixpath.basename(raw)


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def public_url(url: str) -> str:
    """`url` as a page may show it: no user name or password, no query parameter that looks like a key
    (a URL given to capture may carry the credentials that fetched it)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _SECRET_PARAM.search(k)]
    return urlunsplit((parts.scheme, host, parts.path, urlencode(query), parts.fragment))


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    return tuple(dict.fromkeys(n for n in (_text(str(v)) for v in value if isinstance(v, (str, int))) if n))


def _author(data: dict[str, Any]) -> str | None:
    for key in _AUTHOR_KEYS:
        value = data.get(key)
        if isinstance(value, list):
            names = [" ".join(str(v).split()) for v in value if isinstance(v, (str, int)) and str(v).strip()]
            if names:
                return shorten(_and(names), 120)
        elif _text(value):
            return shorten(plain_line(str(value)), 120)
    return None


def _date(value: Any) -> str | None:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if not isinstance(value, str):
        return None
    m = _PARTIAL_DATE.match(value.strip())
    if not m:
        return None
    return "-".join(part for part in m.groups() if part)
