"""Retrieval for a question: what the model is allowed to answer from, within a token budget.

Pages come first: they are the compiled, cross-linked knowledge. Raw passages are added only where the
pages fall short: no page is relevant, or the question has terms no chosen page contains. Earlier query
pages are never context (an answer built on answers drifts from the sources).

Relevance is decided by code, not by the model, so a question the wiki knows nothing about costs no call:
a file is relevant when it shares a content word with the question (the palace's own terms: stemmed,
stop words dropped, CJK bigrams), or when its best drawer is close to the question in the embedding space
of a model whose similarity scale is known (`DENSE_RELEVANCE`, measured on a probe of related and unrelated
pairs; cross-lingual questions rely on it). Ranking is the palace's fused search.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wikic.errors import PalaceError, UsageError, VaultError
from wikic.facts.lookup import claims_as_of
from wikic.pages.fingerprint import knowledge_text, page_fingerprint
from wikic.palace.summary import palace_files_indexed, palace_manifest
from wikic.text.question import bounded_question
from wikic.text.sentences import sentence_breaks
from wikic.text.terms import tokenize
from wikic.text.tokens import estimate_tokens
from wikic.vault.formats.anchors import plain_anchors
from wikic.vault.formats.claims import strip_claim_meta, without_rows
from wikic.vault.formats.markers import PREFIX as MARKER_PREFIX
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import PAGE_FOLDERS, RAW_DIR
from wikic.vault.link_text import LinkNames
from wikic.vault.load import walk
from wikic.vault.paths import read_text_inside
from wikic.vault.resolve import Resolver

if TYPE_CHECKING:  # the palace (its extra, numpy) is imported where a search runs
    from wikic.palace import Palace, SearchHit
    from wikic.settings import PalaceSettings

# Cosine similarity above which a drawer counts as relevant on meaning alone, per embedding provider.
# Measured with 8 questions against 5 passages (related pairs vs unrelated ones): USE puts related pairs at
# 0.32-0.58 and unrelated ones below 0.24; e5 compresses everything into 0.67-0.93 (unrelated up to 0.80).
# The static model's similarities do not separate the two at all, and an OpenAI-compatible endpoint can
# serve any model, so for those only shared words count (unless `min_similarity` is given).
DENSE_RELEVANCE: dict[str, float] = {"use": 0.30, "e5": 0.84}

QUERY_WING = PAGE_FOLDERS["query"]
# Links in an answer are written from a page in queries/: resolve them from there.
ANSWER_SOURCE = f"{QUERY_WING}/_answer.md"

DEFAULT_BUDGET = 6000
DEFAULT_K = 8
_TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text")


@dataclass(frozen=True)
class ContextItem:
    kind: Literal["page", "raw"]
    path: str  # vault-relative
    ref: str  # the link target the answer must use: "openai", "entities/openai", "raw/articles/x.md"
    title: str
    text: str  # what the model sees
    tokens: int
    score: float
    line_start: int | None = None  # raw passages: the lines shown
    line_end: int | None = None
    fingerprint: str | None = None  # pages: see wikic.pages.fingerprint
    aliases: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # pages: their `sources:` (raw paths)
    tags: tuple[str, ...] = ()

    @property
    def link(self) -> str:
        return f"[[{self.ref}]]"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path, "link": self.link, "title": self.title,
                               "tokens": self.tokens, "score": self.score}
        if self.kind == "raw":
            out["lines"] = [self.line_start, self.line_end]
        return out


@dataclass
class Retrieval:
    question: str
    items: list[ContextItem] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)  # what the palace ranked, pages and raw files
    relevant: list[str] = field(default_factory=list)  # paths judged relevant, in rank order
    over_budget: list[str] = field(default_factory=list)  # relevant, but no room left in the budget
    reason: str | None = None  # why there is no context: "empty-vault" or "no-match"
    budget: int = DEFAULT_BUDGET
    uncovered: list[str] = field(default_factory=list)  # question terms no chosen page contains
    resolver: Resolver | None = field(default=None, repr=False)
    as_of: dt.date | None = None  # pages show only the claims that held on this day

    @property
    def found(self) -> bool:
        return bool(self.items)

    @property
    def tokens(self) -> int:
        return sum(item.tokens for item in self.items)

    @property
    def pages(self) -> list[ContextItem]:
        return [item for item in self.items if item.kind == "page"]

    @property
    def passages(self) -> list[ContextItem]:
        return [item for item in self.items if item.kind == "raw"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "context": [item.to_dict() for item in self.items],
            "retrieved": [{"path": h.path, "score": h.score, "relevant": h.path in self.relevant} for h in self.hits],
            "over_budget": self.over_budget,
            "context_tokens": self.tokens,
            "budget": self.budget,
        }


def question_terms(question: str) -> set[str]:
    """The question's content words as the palace indexes them (phrase pairs left out)."""
    return {t for t in tokenize(question) if " " not in t}


def retrieve(
    palace: Palace,
    question: str,
    *,
    budget: int = DEFAULT_BUDGET,
    k: int = DEFAULT_K,
    exclude: tuple[str, ...] = (),
    min_similarity: float | None = None,
    as_of: dt.date | None = None,
) -> Retrieval:
    """The context for `question`: relevant pages, then raw passages where pages fall short.

    Raises UsageError for an empty question, PalaceError when the palace cannot be searched (e.g. it was
    built with another embedding model) or has not indexed a vault that has pages.
    """
    question = " ".join(bounded_question(question).split())
    if not question:
        raise UsageError("the question is empty", hint='ask something: wikic query "who founded OpenAI?"')
    if budget < 200:
        raise UsageError(f"a context budget of {budget} tokens is too small", hint="use at least 200 (default 6000)")
    from wikic.palace import search

    root = palace.vault
    files, _ = walk(root)
    out = Retrieval(question, budget=budget, resolver=Resolver(files), as_of=as_of)
    names = LinkNames(files)
    excluded = set(exclude)

    hits = search(palace, question, k=max(2 * k, 12))
    raw_hits = search(palace, question, k=k, wing=RAW_DIR)
    seen: set[str] = set()
    for hit in [*hits, *raw_hits]:
        if hit.path not in seen:
            seen.add(hit.path)
            out.hits.append(hit)
    if not out.hits:
        out.reason = _why_empty(palace, files)
        return out

    relevance = Relevance(palace, question, min_similarity)
    pages: list[tuple[SearchHit, str]] = []  # (hit, file text)
    raws: list[SearchHit] = []
    for hit in out.hits:
        if hit.path in excluded or hit.wing == QUERY_WING:
            continue
        text = hit_text(palace, hit)
        if text is None or not relevance(hit, text):
            continue
        out.relevant.append(hit.path)
        if hit.wing == RAW_DIR:
            raws.append(hit)
        else:
            pages.append((hit, text))
    if not out.relevant:
        out.reason = "no-match"
        return out

    terms = relevance.terms
    page_cap = max(300, budget // 3)
    raw_cap = max(200, budget // 4)
    used = 0
    chosen_pages: list[ContextItem] = []
    waiting: list[ContextItem] = []
    for hit, text in pages[:k]:
        item = _page_item(root, names, hit, text, page_cap, as_of)
        # Pages take at most three quarters of the budget before raw passages had their chance.
        if used + item.tokens <= budget * 3 // 4:
            chosen_pages.append(item)
            used += item.tokens
        else:
            waiting.append(item)
    covered: set[str] = set()
    for item in chosen_pages:
        covered |= question_terms(item.text) | question_terms(item.title)
    out.uncovered = sorted(terms - covered)

    chosen_raw: list[ContextItem] = []
    if raws and (not chosen_pages or out.uncovered):
        missing = set(out.uncovered)
        candidates = [c for c in (_raw_item(palace, root, hit, raw_cap) for hit in raws[:k]) if c is not None]
        # Passages holding words the pages lack come first; the palace's order breaks ties.
        candidates.sort(key=lambda c: -len(question_terms(c.text) & missing) if missing else 0)
        for item in candidates:
            if used + item.tokens <= budget:
                chosen_raw.append(item)
                used += item.tokens
            else:
                out.over_budget.append(item.path)
    for item in waiting:
        if used + item.tokens <= budget:
            chosen_pages.append(item)
            used += item.tokens
        else:
            out.over_budget.append(item.path)
    out.items = [*chosen_pages, *chosen_raw]
    if not out.items:
        out.reason = "no-match"
    return out


class Relevance:
    """Whether a retrieved file is relevant to the question (see the module docstring)."""

    def __init__(self, palace: Palace, question: str, min_similarity: float | None = None) -> None:
        self.terms = question_terms(question)
        provider = palace.embedder.provider
        self.threshold = min_similarity if min_similarity is not None else DENSE_RELEVANCE.get(provider)
        self.near = _dense_best(palace, question) if self.threshold is not None else {}

    def __call__(self, hit: SearchHit, text: str) -> bool:
        words = question_terms(text if hit.wing == RAW_DIR else knowledge_text(text))
        close = self.threshold is not None and self.near.get(hit.path, -1.0) >= self.threshold
        return bool(self.terms & words) or close


def hit_text(palace: Palace, hit: SearchHit) -> str | None:
    """A page's file text, or a raw file's indexed text (None: gone or unreadable since it was indexed)."""
    return _raw_text(palace, hit.path) if hit.wing == RAW_DIR else _read(palace.vault, hit.path)


def relevant_hits(palace: Palace, query: str, hits: list[SearchHit]) -> list[SearchHit]:
    """The hits that pass the relevance test: search always ranks something, even for nonsense."""
    relevance = Relevance(palace, query)
    out = []
    for hit in hits:
        text = hit_text(palace, hit)
        if text is not None and relevance(hit, text):
            out.append(hit)
    return out


def _why_empty(palace: Palace, files: dict[str, Any]) -> str:
    notes = _notes(files)
    if not notes:
        return "empty-vault"
    indexed, _ = palace.manifest.counts()
    if indexed == 0:
        raise _not_indexed(len(notes))
    return "no-match"


def require_indexed(root: Path, palace: PalaceSettings) -> None:
    """PalaceError at once, before the embedding model and the store process start (seconds), when the
    palace has never indexed this vault and the vault has notes to search."""
    if palace_files_indexed(palace_manifest(palace.path, palace.collection)) != 0:
        return  # indexed, or a manifest that cannot say: the search will tell
    notes = _notes(walk(root)[0])
    if notes:
        raise _not_indexed(len(notes))


def _notes(files: dict[str, Any]) -> list[str]:
    return [p for p in files if p.endswith(".md") and "/" in p]


def _not_indexed(notes: int) -> PalaceError:
    return PalaceError(
        f"the palace has not indexed this vault yet ({notes} notes and sources on disk, none indexed)",
        hint="run `wikic index` (ingest keeps it current from then on)",
    )


def _dense_best(palace: Palace, question: str, pool: int = 100) -> dict[str, float]:
    """Each file's best drawer similarity to the question (cosine), over the `pool` nearest drawers."""
    vector = palace.embedder.embed_query(question)
    pairs = palace.store.query(vector, pool)
    records = palace.manifest.drawers_by_id([drawer_id for drawer_id, _ in pairs])
    best: dict[str, float] = {}
    for drawer_id, similarity in pairs:
        record = records.get(drawer_id)
        if record is not None and similarity > best.get(record.path, -1.0):
            best[record.path] = similarity
    return best


def _read(root: Path, rel: str) -> str | None:
    """A page's text by the name the palace recorded, read as the vault's own files are (`read_text_inside`): a
    manifest that came with a cloned vault may name a file outside it, which never reaches the model."""
    try:
        return read_text_inside(root, root / rel)
    except (OSError, UnicodeDecodeError, VaultError):
        return None  # deleted or unreadable since it was indexed: lint reports it, the answer skips it


def _raw_text(palace: Palace, rel: str) -> str | None:
    drawers = palace.manifest.drawers_of(rel)
    return "\n".join(d.text for d in drawers) if drawers else None


def link_ref(names: LinkNames, path: str) -> str:
    """How an answer links to `path`: a page as wikic links every page (`wikic/vault/link_text.py`); a raw file
    by its path with its extension, which shows what it is."""
    return path if path.startswith(RAW_DIR + "/") else names.link_text(path)


def _clean_lines(lines: list[str], page: str | None = None, as_of: dt.date | None = None) -> list[str]:
    """A page's lines as the model sees them: no compiler block markers, claim anchors in their plain form
    (`^[raw/x.md:L3]`, what a claim cites without a link to a file the model was not shown), no claim
    bookkeeping; with `as_of`, only the claims of `page` (its text) that held on that day."""
    if as_of is not None and page is not None:
        lines = claims_as_of(lines, page, as_of)
    return [strip_claim_meta(plain_anchors(line)) for line in without_rows(lines) if not line.startswith(MARKER_PREFIX)]


def _page_item(
    root: Path, names: LinkNames, hit: SearchHit, text: str, cap: int, as_of: dt.date | None = None
) -> ContextItem:
    data, _ = split_page(text)
    fm = data or {}
    title = fm.get("title") if isinstance(fm.get("title"), str) else hit.title or posixpath.basename(hit.path)[:-3]
    aliases = (
        tuple(a for a in fm.get("aliases") or [] if isinstance(a, str)) if isinstance(fm.get("aliases"), list) else ()
    )
    sources = (
        tuple(s for s in fm.get("sources") or [] if isinstance(s, str)) if isinstance(fm.get("sources"), list) else ()
    )
    tags = tuple(t for t in fm.get("tags") or [] if isinstance(t, str)) if isinstance(fm.get("tags"), list) else ()
    body = "\n".join(_clean_lines(knowledge_text(text).split("\n"), text, as_of)).strip()
    if estimate_tokens(body) > cap:
        body = _excerpt(text, hit, cap, as_of)
    return ContextItem(
        "page", hit.path, link_ref(names, hit.path), str(title), body, estimate_tokens(body), hit.score,
        fingerprint=page_fingerprint(text), aliases=aliases, sources=sources, tags=tags,
    )


def _excerpt(text: str, hit: SearchHit, cap: int, as_of: dt.date | None = None) -> str:
    """The hit's own lines, grown line by line in both directions while they fit in `cap` tokens."""
    lines = text.split("\n")
    start = max(0, min(len(lines) - 1, hit.line_start - 1))
    end = max(start + 1, min(len(lines), hit.line_end))
    while True:
        grown = False
        if end < len(lines) and estimate_tokens("\n".join(lines[start : end + 1])) <= cap:
            end += 1
            grown = True
        if start > 0 and estimate_tokens("\n".join(lines[start - 1 : end])) <= cap:
            start -= 1
            grown = True
        if not grown:
            break
    chosen = _clean_lines(lines[start:end], text, as_of)
    return shorten("\n".join(chosen).strip(), cap)  # one drawer longer than the cap: keep its head


def shorten(body: str, cap: int) -> str:
    """`body`, or as much of its head as fits in `cap` tokens: cut after a whole line or sentence, so no
    figure is left cut in two (a hard cut, within one very long sentence, is marked with "…")."""
    while estimate_tokens(body) > cap and len(body) > 200:
        limit = int(len(body) * 0.8)
        ends = [end for end, _ in sentence_breaks(body[: limit + 1])]
        cut = max(body.rfind("\n", 0, limit), ends[-1] if ends else -1)
        body = body[:cut].rstrip() if cut > len(body) // 4 else body[:limit].rstrip() + " …"
    return body


def _raw_item(palace: Palace, root: Path, hit: SearchHit, cap: int) -> ContextItem | None:
    path = hit.path
    if not path.lower().endswith(_TEXT_SUFFIXES):
        # An HTML or PDF file indexed as it is (captured ones are indexed through their extracted text file,
        # whose lines anchors cite): its drawers' lines are those of the extracted text, so the drawer itself
        # is the passage.
        drawers = palace.manifest.drawers_of(path)
        best = next((d for d in drawers if d.line_start == hit.line_start), drawers[0] if drawers else None)
        if best is None:
            return None
        body = best.text
        return ContextItem("raw", path, path, hit.title or path, body, estimate_tokens(body), hit.score,
                           best.line_start, best.line_end)
    text = _read(root, path)
    if text is None:
        return None
    lines = text.split("\n")
    start = max(0, min(len(lines) - 1, hit.line_start - 1))
    end = max(start + 1, min(len(lines), hit.line_end))
    # a little surrounding text helps the model read the passage; never past the cap
    for _ in range(3):
        if start > 0 and estimate_tokens("\n".join(lines[start - 1 : end])) <= cap:
            start -= 1
        if end < len(lines) and estimate_tokens("\n".join(lines[start : end + 1])) <= cap:
            end += 1
    while start < end and not lines[start].strip():
        start += 1  # the lines given are the lines shown: blank ones at either end are left out
    body = shorten("\n".join(lines[start:end]).strip(), cap)
    if not body:
        return None
    last = start + body.count("\n") + 1
    return ContextItem("raw", path, path, hit.title or path, body, estimate_tokens(body), hit.score, start + 1, last)
