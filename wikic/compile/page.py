"""A page's text, rendered in one place from what its sources contribute: one page per subject, written by
topic, each fact once with all its sources.

A page holds its lead, then the sections of its type's layout (`wikic/vault/page_layout.py`), each in one
compiler block (`section:key-facts`, ...), then History, Related and Contradictions, and at its end the
`claims` block (`wikic/vault/formats/claims.py`). A source's claims are not kept apart: recompiling a source takes
its citations off every claim of the page (a claim it alone stated goes), then files what it says now,
each claim into its section, or onto the claim that already says the same (one line, one more anchor).
So a recompile changes only what that source contributed, and a fact several sources state is written once.

What a person edited stays as they wrote it: a section block whose text is no longer what the compiler
wrote keeps its lines (their claims still count on the page's timeline), and what the compiler has for
that section now goes into a block of its own beside it (`section:key-facts:more`). Text outside the
blocks is never touched. Blocks an earlier version wrote per source (`facts:<source>`, `section:<name>:
<source>`, `related:<source>`) are read as the page's claims and relations, and replaced by the new
blocks, unless a person edited them.

Claims are then placed on their topics' timelines (`wikic/facts/timeline.py`): what no longer holds moves
to History with its dates, and claims that hold at once and disagree are shown, both sides with their
sources, under Contradictions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from wikic.facts.same_fact import fact_keys, unlinked
from wikic.facts.timeline import HISTORY_KEY, Timeline, timeline, unique
from wikic.pages.blocks import block_keys, digest, find_block, merge_blocks, remove_block
from wikic.text.specifics import specifics
from wikic.text.terms import words
from wikic.vault.formats.anchors import ANCHOR, find_anchors
from wikic.vault.formats.claims import CLAIMS_KEY, Citation, Claim, claim_id, normal_text, rows_block, scan
from wikic.vault.formats.dates import first_day
from wikic.vault.page_layout import CONTRADICTIONS, HISTORY, LEAD_BLOCK, RELATED, Layout, section_key
from wikic.vault.slug import slugify

LEAD_KEY = LEAD_BLOCK
RELATED_KEY = "related"
CONTRADICTIONS_KEY = "contradictions"
MORE = ":more"  # beside a block a person edited: what the compiler has for that section now
SEE_ALSO = "- See also: "
LEAD_SUPPORT = 0.75  # share of a lead's words a claim must hold for its anchors to be the lead's
_OLD_CLAIM_BLOCKS = ("facts:",)  # an earlier version's per-source claim blocks
_RELATION = re.compile(r"^- (?P<target>.+?) — (?P<how>.+?)(?P<cites>(?: \^\[[^\n]*?\])+)$")


@dataclass(frozen=True)
class NewClaim:
    """What one source says on a page, on its way there: the text as the page will show it (linked and
    escaped), its section, its citation, and the interval and pairing that held up."""

    section: str
    text: str
    citation: Citation
    valid_from: str | None = None
    valid_to: str | None = None
    topic: str | None = None


@dataclass(frozen=True)
class NewRelation:
    """A related page a source names, with how it relates ("uses it as its cache") and the citation."""

    target: str  # the link, or the name when there is no page to link
    how: str
    cite: str


@dataclass
class Rendered:
    body: str
    kept: list[str] = field(default_factory=list)  # keys of blocks left as a person edited them
    moved: int = 0  # claims moved into History
    conflicts: list[tuple[Claim, Claim]] = field(default_factory=list)  # current claims that disagree


@dataclass
class _Relation:
    target: str
    how: str
    cites: list[str]


@dataclass(frozen=True)
class PageUpdate:
    """What a compile brings to a page: `sources` have said `claims` and `relations` on it (what they said
    before is taken off first). `lead`: the page's lead (None: as it is); `see_also`: links of the pages built
    on the same sources (each listed once in Related, after the relations; None: as listed now); `extra`: other
    compiler blocks (key, body, section) to place (memories, tables); `ended`: claim id -> (the day it stopped
    holding, the note that says so), for claims ended by hand."""

    sources: Sequence[str] = ()
    claims: Sequence[NewClaim] = ()
    relations: Sequence[NewRelation] = ()
    lead: str | None = None
    see_also: Sequence[str] | None = None
    extra: Sequence[tuple[str, str, str | None]] = ()
    ended: Mapping[str, tuple[str, str]] | None = None


def render_page(body: str, layout: Layout, update: PageUpdate, *, today: dt.date, title: str = "") -> Rendered:
    """`body` (a page body) once `update` is on it: the page's claims read, the sources' new claims filed among
    them, every claim placed on its topic's timeline, then each block written from them."""
    edited = {key for key in block_keys(body) if _edited(body, key)}
    out = Rendered(body, kept=sorted(k for k in edited if k != CLAIMS_KEY))
    gone = set(update.sources)
    claims = _read_claims(body, layout, edited, gone, update.ended)
    claims.file(update.claims, layout)
    claims.live, measured = _same_measures([c for c in claims.live if c.citations])  # a claim no source states goes
    live = claims.live
    plan = timeline([*live, *claims.frozen])
    holds = {i for i, p in plan.placed.items() if p.end is None or first_day(p.end) > today}
    leading, blocks = _lead(update.lead, live, holds, edited, content_words(title))
    blocks += _section_blocks(claims, layout, holds, leading, plan, edited)
    past = sorted((c for c in live if c.id not in holds), key=lambda c: (c.topic_id, first_day(c.start), c.id))
    out.moved = sum(1 for c in past if c.block != HISTORY_KEY)
    history = "\n".join(c.render(plan.placed[c.id].end) for c in past)
    blocks.append(_block(HISTORY_KEY, history, layout.with_role(HISTORY) or "History", edited))
    out.conflicts = [(a.claim, b.claim) for a, b in plan.conflicts(today)]
    shown = [*out.conflicts, *(pair for pair in measured if not _among(pair, out.conflicts))]
    contradictions = layout.with_role(CONTRADICTIONS) or "Contradictions"
    blocks.append((CONTRADICTIONS_KEY, _contradictions(shown, plan), contradictions))
    related_lines = _related(body, edited, gone, update.relations, update.see_also)
    blocks.append(_block(RELATED_KEY, "\n".join(related_lines), layout.with_role(RELATED) or "Related", edited))
    blocks.extend(update.extra)
    blocks.append((CLAIMS_KEY, rows_block([*live, *claims.frozen]), ""))
    out.body = _write_blocks(body, blocks, edited, _section_order(layout, [s for _, _, s in update.extra if s]))
    return out


@dataclass
class _PageClaims:
    """A page's claims on their way to its new text: `live`, the claims the compiler writes again (in blocks
    no person edited), each with its section; `frozen`, the ones it leaves where they are."""

    live: list[Claim] = field(default_factory=list)
    frozen: list[Claim] = field(default_factory=list)
    section_of: dict[str, str] = field(default_factory=dict)

    def file(self, claims: Sequence[NewClaim], layout: Layout) -> None:
        """File each of `claims` onto the claim that already states its fact (one more citation), or as a new
        claim in its section."""
        taken = {c.id for c in (*self.live, *self.frozen)}
        twins = _Twins(self.live)
        for new in claims:
            at = twins.first(new.text)
            if at is not None:
                self.live[at] = _merged(self.live[at], new)  # the same text: its keys stay where they are
                continue
            cid = claim_id(new.text, taken)
            taken.add(cid)
            self.live.append(Claim(cid, new.text, (new.citation,), new.valid_from, new.valid_to, new.topic))
            twins.add(new.text, len(self.live) - 1)
            self.section_of[cid] = layout.section_for(new.section, new.text)


def _read_claims(body: str, layout: Layout, edited: set[str], gone: set[str],
                 ended: Mapping[str, tuple[str, str]] | None) -> _PageClaims:
    """The claims of `body`, the live ones with the citations of the sources `gone` taken off and the claims
    ended by hand ended."""
    claims = _PageClaims()
    for claim in unique(scan(body)):
        block = claim.block
        if block is None or block in edited or not _claim_block(block):
            claims.frozen.append(claim)
            continue
        for source in gone:
            claim = claim.without(source)
        if ended and claim.id in ended:
            claim = replace(claim, valid_to=ended[claim.id][0], ended=ended[claim.id][1])
        # a claim left with no source keeps its place until the end: the source that said it may say it again
        claims.live.append(claim)
        claims.section_of[claim.id] = _section_of(block, layout)
    return claims


def _merged(twin: Claim, new: NewClaim) -> Claim:
    """The claim `twin` once `new`, stating the same fact, cites it too."""
    merged = twin.citing(new.citation)
    if twin.citations:  # another source states it too: what each says of its time is kept
        return replace(merged, valid_from=_earliest(twin.valid_from, new.valid_from),
                       valid_to=twin.valid_to or new.valid_to, topic=twin.topic or new.topic)
    # the claim back from its only source, which says of its time what it says now
    return replace(merged, valid_from=new.valid_from, valid_to=new.valid_to or twin.valid_to,
                   topic=new.topic or twin.topic)


def _lead(lead: str | None, live: list[Claim], holds: set[str], edited: set[str],
          title_words: set[str]) -> tuple[Claim | None, list[tuple[str, str, str | None]]]:
    """(the claim the lead shows, if one does; the lead's block, if it is written). The lead is a claim of the
    page word for word (shown there and not again in its section), else the summary `lead` with the anchors
    it rests on; `lead` None: the lead the page has."""
    if lead is None:
        leading = next((c for c in live if c.block == LEAD_KEY and c.id in holds), None)
    else:
        leading = _lead_claim(lead, live, holds)
    if LEAD_KEY in edited:
        return None, []
    if leading is not None:
        return leading, [(LEAD_KEY, leading.render(item=False), None)]
    if lead is None:
        return None, []
    return None, [(LEAD_KEY, _cited_lead(lead, live, title_words), None)]


def _section_blocks(claims: _PageClaims, layout: Layout, holds: set[str], leading: Claim | None, plan: Timeline,
                    edited: set[str]) -> list[tuple[str, str, str | None]]:
    """A block for each claim section of `layout`: the live claims filed there that hold now, the lead's aside."""
    blocks = []
    for section in layout.claim_sections:
        lines = [c.render(plan.placed[c.id].end) for c in claims.live
                 if c.id in holds and claims.section_of[c.id] == section and c is not leading]
        blocks.append(_block(section_key(section), "\n".join(lines), section, edited))
    return blocks


def _block(key: str, content: str, section: str, edited: set[str]) -> tuple[str, str, str | None]:
    """The compiler's block `key` under `section`; beside it, when a person edited it."""
    return (key + MORE if key in edited else key, content, section)


def _write_blocks(body: str, blocks: list[tuple[str, str, str | None]], edited: set[str],
                  order: Sequence[str]) -> str:
    """`body` with `blocks` (key, content, section) written in, an earlier version's blocks taken out, and
    the blocks left empty removed with their headings."""
    text = body
    for key in block_keys(body):  # an earlier version's blocks: what they held is in the blocks above now
        if key not in edited and (key.startswith(_OLD_CLAIM_BLOCKS) or _old_section(key) or
                                  key.startswith("related:")):
            text, _ = remove_block(text, key)
    writes = [(key, content, section) for key, content, section in blocks if content.strip()]
    text = merge_blocks(text, writes, order=order).text
    for key, content, _ in blocks:  # an empty block is no block, and its heading goes with it
        if not content.strip() and key not in edited and find_block(text, key) is not None:
            text, _ = remove_block(text, key)
    return text


class _Twins:
    """Where in a page's claims the first one stating a text's fact is (`same_fact`: its words or its statement
    match), found by its keys: a page of hundreds of claims is not compared claim by claim with each new one."""

    def __init__(self, claims: Sequence[Claim]) -> None:
        self._at: dict[tuple[str, object], int] = {}
        for i, claim in enumerate(claims):
            self.add(claim.text, i)

    def add(self, text: str, at: int) -> None:
        words_key, fact_key = fact_keys(text)
        self._at.setdefault(("words", words_key), at)
        self._at.setdefault(("fact", fact_key), at)

    def first(self, text: str) -> int | None:
        words_key, fact_key = fact_keys(text)
        found = [i for i in (self._at.get(("words", words_key)), self._at.get(("fact", fact_key))) if i is not None]
        return min(found, default=None)


def _section_order(layout: Layout, extra: Sequence[str]) -> list[str]:
    """The page's sections in the layout's order (a comparison's table first, as its layout says), with the
    claim-like sections the layout does not name (memories, a table on another kind of page) right after
    its last claim section."""
    sections = list(layout.sections)
    own = [s for s in dict.fromkeys(extra) if s not in sections]
    claims = layout.claim_sections
    at = sections.index(claims[-1]) + 1 if claims else 0
    return [*sections[:at], *own, *sections[at:]]


def _lead_claim(lead: str | None, live: list[Claim], holds: set[str]) -> Claim | None:
    """The current claim the lead is, word for word: shown as the lead, and not again in its section."""
    if not lead:
        return None
    wanted = normal_text(lead)
    return next((c for c in live if c.id in holds and normal_text(c.text) == wanted), None)


def _cited_lead(lead: str, live: list[Claim], title_words: set[str]) -> str:
    """A lead that is no claim of the page (the model's summary, which the support rule let through), with
    the anchors of the claim that holds most of its words; nothing when it only repeats the title."""
    if not content_words(lead) - title_words:
        return ""
    at = lead_holder(lead, [c.text for c in live], title_words)
    return f"{lead} {live[at].citations[0].anchor}" if at is not None else lead


def lead_holder(lead: str, texts: Sequence[str], title_words: set[str]) -> int | None:
    """Which of `texts` (claims) holds most of the lead's words beyond the title's, if one holds at least
    `LEAD_SUPPORT` of them: the claim whose anchors a lead in other words rests on."""
    wanted = content_words(lead) - title_words
    if not wanted:
        return None
    best, share = None, 0.0
    for at, text in enumerate(texts):
        overlap = len(wanted & content_words(text)) / len(wanted)
        if overlap > share:
            best, share = at, overlap
    return best if share >= LEAD_SUPPORT else None


def _edited(text: str, key: str) -> bool:
    found = find_block(text, key)
    return found is not None and digest(found[3]) != found[2]


def _claim_block(key: str) -> bool:
    return key in (HISTORY_KEY, LEAD_KEY) or key.startswith(("section:", *_OLD_CLAIM_BLOCKS))


def _old_section(key: str) -> bool:
    """`section:<name>:<source>`: an earlier version's per-source section block."""
    return key.startswith("section:") and key.count(":") >= 2 and not key.endswith(MORE)


@lru_cache(maxsize=1024)  # the same few blocks, for every claim of every page rendered
def _section_of(block: str, layout: Layout) -> str:
    """The layout section a claim sitting in `block` belongs to."""
    if block.startswith("section:"):
        name = block.split(":")[1]
        mine = next((s for s in layout.claim_sections if slugify(s) == name), None)
        return mine or layout.section_for(name.replace("-", " "))
    return layout.section_for(None)  # facts:<source>, or back from History


def _earliest(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return a or b
    return a if first_day(a) <= first_day(b) else b


def content_words(text: str) -> set[str]:
    """The words of a text that carry what it says (folded; links read as their text)."""
    return {w for w, _, _ in words(unlinked(text)) if len(w) > 2 or not w.isascii()}


def _contradictions(pairs: list[tuple[Claim, Claim]], plan: Timeline) -> str:
    """Each disagreement as a callout: both sides, each with its sources and when it held (a value a later
    one replaced shows its dates: it is in History, not beside the new one)."""
    parts = []
    for a, b in pairs:
        lines = ["> [!warning] The sources disagree"]
        for claim in sorted((a, b), key=lambda c: (first_day(c.start), c.id)):
            placed = plan.placed.get(claim.id)
            end = placed.end if placed is not None else None
            when = f"{claim.start} – {end}" if end else (f"since {claim.valid_from}" if claim.valid_from
                                                         else f"as of {claim.seen.isoformat()}")
            lines.append(f"> - {claim.text} ({when}) {claim.anchor}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _among(pair: tuple[Claim, Claim], pairs: list[tuple[Claim, Claim]]) -> bool:
    ids = {pair[0].id, pair[1].id}
    return any({a.id, b.id} == ids for a, b in pairs)


_NUMBERS = re.compile(r"\d[\d,._]*")


def _same_measures(claims: list[Claim]) -> tuple[list[Claim], list[tuple[Claim, Claim]]]:
    """Claims that say the same thing of one measure with a different number ("handled 40,000 writes per
    second", "handled 25,000 writes per second"; a claim with more than one number is not one measure): each
    later one joins the earlier one's topic (so the
    timeline says which holds when), and every such pair is a disagreement to show. A pairing the model or
    an earlier run made is kept."""
    by_measure: dict[str, list[Claim]] = {}
    for claim in claims:
        plain = normal_text(unlinked(claim.text))
        shape = _NUMBERS.sub("#", plain)
        # one number, the measured value: in "Quillstore 2.0 was released in 2025" the version names which release
        if shape.count("#") == 1 and len(shape.replace("#", " ").split()) >= 3:
            by_measure.setdefault(shape, []).append(claim)
    pairs: list[tuple[Claim, Claim]] = []
    topics: dict[str, str] = {}
    for group in by_measure.values():
        values = {specifics(unlinked(c.text)).numbers for c in group}
        if len(values) < 2:
            continue
        group.sort(key=lambda c: (first_day(c.start), c.id))
        first = group[0]
        for later in group[1:]:
            if specifics(unlinked(later.text)).numbers != specifics(unlinked(first.text)).numbers:
                pairs.append((first, later))
                if later.topic is None and first.topic_id != later.id:
                    topics[later.id] = first.topic_id
    joined = [replace(c, topic=topics[c.id]) if c.id in topics else c for c in claims]
    by_id = {c.id: c for c in joined}
    return joined, [(by_id[a.id], by_id[b.id]) for a, b in pairs]


def _related(
    body: str, edited: set[str], gone: set[str], relations: Sequence[NewRelation], see_also: Sequence[str] | None
) -> list[str]:
    """Related: each page once, saying how it relates where a source says so, then the pages built on the
    same sources (See also)."""
    found: dict[str, _Relation] = {}
    for key in block_keys(body):
        if key in edited or not (key == RELATED_KEY or key.startswith("related:")):
            continue
        block = find_block(body, key)
        assert block is not None
        for line in block[3].split("\n"):
            if " ^[" not in line:
                # no relation (each cites): a See also line, as long as the page has siblings, is never
                # tried against the patterns, where a long line backtracks for seconds
                continue
            m = _RELATION.match(line.strip())
            if m is None:
                m = _OLD_RELATION.match(line.strip())
                if m is None:
                    continue
            cites = [a.group() for a in ANCHOR.finditer(m.group("cites"))]
            kept = [c for c in cites if not (find_anchors(c) and find_anchors(c)[0][1].path in gone)]
            if kept:
                _add(found, m.group("target"), m.group("how"), kept)
    for r in relations:
        _add(found, r.target, r.how, [r.cite])
    lines = [f"- {r.target} — {r.how} {' '.join(dict.fromkeys(r.cites))}" for r in found.values()]
    listed = {_target_key(t) for t in found}
    if see_also is None:
        see_also = [s for line in _see_also_lines(body, edited) for s in line[len(SEE_ALSO) :].split(", ")]
    others = [s for s in see_also if _target_key(s) not in listed]
    if others:
        lines.append(SEE_ALSO + ", ".join(dict.fromkeys(others)))
    return lines


# "- developed by [[openai|OpenAI]] ^[...]": a relation line of an earlier version
_OLD_RELATION = re.compile(r"^- (?P<how>.+?) (?P<target>\[\[[^\]]+\]\]|[^\^]+?)(?P<cites>(?: \^\[[^\n]*?\])+)$")


def _see_also_lines(body: str, edited: set[str]) -> list[str]:
    """The See also lines of the page's Related blocks (the new one, or an earlier version's per source)."""
    out: list[str] = []
    for key in block_keys(body):
        if key not in edited and (key == RELATED_KEY or key.startswith("related:")):
            block = find_block(body, key)
            assert block is not None
            out.extend(line for line in block[3].split("\n") if line.startswith(SEE_ALSO))
    return out


def _add(found: dict[str, _Relation], target: str, how: str, cites: list[str]) -> None:
    key = _target_key(target)
    known = found.get(key)
    if known is None:
        found[key] = _Relation(target, how, list(cites))
    else:
        known.cites.extend(c for c in cites if c not in known.cites)


def _target_key(target: str) -> str:
    m = re.match(r"\[\[([^\]|#]+)", target)
    return (m.group(1) if m else target).strip().casefold()
