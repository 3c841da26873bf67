"""Filing answers into the wiki: query pages, "Asked about" blocks on cited pages, index.md, log.md, the
overview, palace.

A query page (`queries/<slug>.md`) carries the frontmatter of every wiki page (docs/vault-format.md) plus
`question` and `cited` (cited page -> fingerprint, see `wikic/pages/fingerprint.py`), and its answer inside a
compiler-owned block:

    # Who leads OpenAI?

    <!-- wikic:begin answer sha=1a2b3c4d5e6f -->
    Sam Altman is the CEO of [[openai]]. [[sam-altman]]
    <!-- wikic:end answer -->

`--refresh` replaces that block only if nobody edited it (checked before the model is called), and keeps
every line outside it. Each cited page gets (or updates) an "Asked about" block listing the query pages
that cite it, so the question is one click away from the page it is about; it is rebuilt from the query
pages' `cited` keys, so it is always exactly the set of queries citing the page.

A query page also links, under "See also", to a few pages built on the same raw sources as its answer
(frontmatter `related`; the pages built on a raw passage it quotes come first). They are not citations:
lint's staleness check leaves them out. An answer from raw passages alone cites no page, so the pages
built on those passages list it under "Asked about" instead, and it is not left unlinked in the wiki.

Every new text is computed first, then handed to `wikic.pages`, which writes it through the journal
(`wikic/pages/journal.py`): a save killed part-way is finished by the next `query --save`, `--refresh`,
`lint --fix` or ingest, never left with a query page but no index.md entry or log row.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import PalaceError, UsageError, VaultError
from wikic.hubs import HubPlanner
from wikic.llm.client import StreamingLLM
from wikic.pages import journal
from wikic.pages.blocks import digest, find_block, merge_blocks, remove_block
from wikic.pages.fingerprint import ASKED_KEY, ASKED_SECTION
from wikic.pages.frontmatter import dump_frontmatter
from wikic.pages.index_file import Entry, upsert_entry
from wikic.pages.lock import writer
from wikic.pages.log_file import listed, notes, row, usage
from wikic.pages.render import clean_text, clean_title
from wikic.query.answer import QueryOptions, QueryResult, TextSink, answer_question
from wikic.query.retrieve import ContextItem, link_ref
from wikic.resources import page_skeleton
from wikic.vault import frontmatter as fm_parser
from wikic.vault.formats.anchors import strip_anchors
from wikic.vault.frontmatter import split_page
from wikic.vault.graph import build as build_graph, linked_from_subjects, outbound, outbound_minimum
from wikic.vault.layout import INDEX_FILE, PAGE_FOLDERS, RAW_DIR, require_own_root_files, require_vault
from wikic.vault.link_text import LinkNames
from wikic.vault.load import Vault, load_vault, walk
from wikic.vault.parse import parse_note
from wikic.vault.paths import read_text_inside
from wikic.vault.schema_md import Schema
from wikic.vault.slug import slugify

ANSWER_KEY = "answer"
RELATED_KEY = "related"
RELATED_SECTION = "Related"
MAX_RELATED = 5  # pages a query page lists under "See also"
MAX_ASKED = 20  # entries in a page's "Asked about" block: the most recent ones
MAX_TAGS = 3
SLUG_LENGTH = 60


@dataclass
class SavedQuery:
    path: str  # queries/x.md
    created: bool  # False: an existing page for the same question was updated
    asked_pages: list[str] = field(default_factory=list)  # pages whose "Asked about" block changed
    related: list[str] = field(default_factory=list)  # pages on the same sources, listed under "See also"
    kept_edits: list[str] = field(default_factory=list)  # "path: block" left alone (a person edited it)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Refreshed:
    result: QueryResult
    saved: SavedQuery | None  # None: the wiki no longer answers the question; the page was left alone
    path: str


def check_can_file(context: VaultContext) -> None:
    """What keeps any answer from being filed in this vault (not a wikic vault, a root file leading outside
    it, a SCHEMA.md that cannot be read as meant), raised before a model is asked."""
    require_vault(context.root)
    require_own_root_files(context.root)
    context.checked_schema()


def query_folder(schema: Schema) -> str:
    return schema.page_folders.get("query", PAGE_FOLDERS["query"])


def save_answer(context: VaultContext, result: QueryResult, *, today: dt.date | None = None) -> SavedQuery:
    """File an answered question as a query page (a page for the same question is updated in place)."""
    return _save_answer(context, result, today)


def _save_answer(context: VaultContext, result: QueryResult, today: dt.date | None) -> SavedQuery:
    root = Path(context.root).resolve()
    check_can_file(context)
    if result.status == "general":
        raise UsageError(
            "a general-knowledge answer is not filed into the wiki: it cites nothing in it",
            hint="ingest a source that covers the question, then ask again",
        )
    if result.status == "quoted":
        raise UsageError(
            "quoted sentences are not filed as an answer: the model composed none, and what they say is already "
            "in the pages and sources they cite",
            hint="ask again in other words, or with a model that answers from its context",
        )
    if not result.answered:
        raise UsageError("there is no answer to file: the wiki does not answer this question")
    if not result.citations:
        raise UsageError(
            "the answer cites no page or source of the wiki, so it is not filed",
            hint="ask again (answers are checked: every claim must cite what it comes from)",
        )
    today = today or dt.date.today()
    with writer(root, context.page_types):  # a save or ingest killed while writing is finished first
        folder = query_folder(context.schema)
        existing = find_query_page(root, result.question, folder)
        saved = _write_query(context, result, existing or _new_path(root, folder, result.question), today,
                             created=existing is None)
    _reindex(context, saved)
    return saved


def refresh_query(
    context: VaultContext,
    page: str,
    options: QueryOptions | None = None,
    *,
    llm: StreamingLLM | None = None,
    on_text: TextSink | None = None,
    today: dt.date | None = None,
) -> Refreshed:
    """Answer a query page's question again and replace its answer block (only if nobody edited it). `llm`:
    a model of the caller's own, instead of the configured one."""
    options = options or QueryOptions()
    return _refresh_query(context, page, options, llm, on_text, today)


def _refresh_query(context: VaultContext, page: str, options: QueryOptions, llm: StreamingLLM | None,
                   on_text: TextSink | None, today: dt.date | None) -> Refreshed:
    root = Path(context.root).resolve()
    check_can_file(context)
    rel = resolve_query_page(root, page, query_folder(context.schema))
    text = (root / rel).read_text(encoding="utf-8")
    data, _ = split_page(text)
    if data is None:
        raise UsageError(f"{rel}: its frontmatter cannot be read (missing or invalid YAML), so its question is unknown",
                         hint="fix it (`wikic lint --select frontmatter` shows where), then run --refresh again")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise UsageError(f"{rel} has no `question:` in its frontmatter, so it cannot be refreshed",
                         hint="add `question: ...` to its frontmatter, or ask again with wikic query \"...\" --save")
    _check_answer_block(rel, text)  # before any token is spent
    options = QueryOptions(**{**options.__dict__, "exclude": (*options.exclude, rel), "allow_general": False})
    result = answer_question(context, question, options, llm=llm, on_text=on_text)
    if not result.answered or not result.citations:
        return Refreshed(result, None, rel)
    with writer(root, context.page_types):
        current = (root / rel).read_text(encoding="utf-8")
        _check_answer_block(rel, current)  # edited while the model was answering
        saved = _write_query(context, result, rel, today or dt.date.today(), created=False)
    _reindex(context, saved)
    return Refreshed(result, saved, rel)


def resolve_query_page(root: Path, page: str, folder: str) -> str:
    """A vault-relative path for PAGE (in the query pages' `folder`): a path (vault-relative, or from the
    current folder) or a bare name."""
    candidates = [Path(page), root / page, root / folder / page]
    if not page.endswith(".md"):
        candidates += [Path(page + ".md"), root / (page + ".md"), root / folder / (page + ".md")]
    for candidate in candidates:
        try:
            resolved = candidate.resolve()
            rel = resolved.relative_to(root).as_posix()
        except (OSError, ValueError):
            continue
        if resolved.is_file():
            if rel.split("/", 1)[0] != folder:
                raise UsageError(f"{rel} is not a query page (query pages live in {folder}/)")
            return rel
    raise UsageError(f"no query page {page!r} in {folder}/",
                     hint=f"give its path, e.g. {folder}/who-leads-openai.md (see the Queries section of index.md)")


def find_query_page(root: Path, question: str, folder: str) -> str | None:
    """The query page already filed for this question (same words, ignoring case and spacing), if any."""
    wanted = " ".join(question.split()).casefold()
    base = root / folder
    if not base.is_dir():
        return None
    for path in sorted(base.glob("*.md")):
        try:
            data, _ = split_page(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        asked = (data or {}).get("question")
        if isinstance(asked, str) and " ".join(asked.split()).casefold() == wanted:
            return f"{folder}/{path.name}"
    return None


# -- writing (under the vault lock) ----------------------------------------------------------------------


def _check_answer_block(rel: str, text: str) -> None:
    found = find_block(text, ANSWER_KEY)
    if found is not None and digest(found[3]) != found[2]:
        raise VaultError(
            f"{rel}: the answer block was edited by hand, so --refresh will not replace it (nothing was changed)",
            hint="move your notes outside the `wikic:begin answer` ... `wikic:end answer` markers, or delete the "
            "block to take a new answer; text outside the block is always kept",
        )


def _new_path(root: Path, folder: str, question: str) -> str:
    base = slugify(question, max_length=SLUG_LENGTH) or "query"
    files, _ = walk(root)
    names = LinkNames(files)
    candidate, n = base, 2
    # a name no other note has, so `[[name]]` reaches this page and nothing else
    while names.taken(candidate) or (root / folder / f"{candidate}.md").exists():
        candidate = f"{base}-{n}"
        n += 1
    return f"{folder}/{candidate}.md"


_OPEN_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)


def page_safe(answer: str) -> str:
    """The answer as page text that cannot break the page: no fake block markers, no unclosed comment,
    code fence or `%%` that would hide the rest of the page, no frontmatter fence at the top."""
    text = answer.replace("<!--", "&lt;!--").replace("%%", "%")
    lines, fenced = [], False
    for line in text.split("\n"):
        if _OPEN_FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.strip() == "---":
            line = "***"  # a rule that cannot turn the line above into a heading or read as frontmatter
        lines.append(line)
    if fenced:
        lines.append("```")
    return "\n".join(lines).strip()


_LINK = re.compile(r"(\s*)\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")


def _summary(answer: str, titles: dict[str, str]) -> str:
    """The answer's first sentence as plain text for index.md. A citation link right after the name it
    stands for ("... OpenAI [[openai]].") is dropped; any other link becomes its label or page title."""

    def plain(m: re.Match[str]) -> str:
        space, target, alias = m.group(1), m.group(2).strip(), m.group(3)
        if target.startswith(RAW_DIR + "/"):
            return ""  # a raw source is cited, never named in the sentence
        if alias:
            return space + alias
        title = titles.get(target, target)
        before = m.string[: m.start()].lower()
        return "" if title.lower() in before[-200:] else space + title

    first = re.split(r"(?<=[.!?。！？])\s", " ".join(strip_anchors(answer).split()), maxsplit=1)[0]
    text = _LINK.sub(plain, first)
    text = re.sub(r"\^\[[^\]]*\]", "", text).replace("> [!warning]", "")
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return clean_text(text, 200)


def _write_query(context: VaultContext, result: QueryResult, rel: str, today: dt.date, *, created: bool) -> SavedQuery:
    """File `result` as the query page `rel`, with what the save brings elsewhere (the "Asked about" of the
    pages it cites, index.md, the overview, log.md): every write planned before any is made, then made
    through one journal."""
    root = Path(context.root).resolve()
    saved = SavedQuery(rel, created)
    schema = context.schema
    cited, sources, quoted = _answer_sources(root, result.cited_items)
    vault = load_vault(root, use_cache=True, schema=schema)
    related = _related_pages(vault, sources, quoted, {*cited, rel})
    # Frontmatter values holding "[[...]]" are links to Obsidian and lint: a question quoting one must not be.
    question = " ".join(result.question.split()).replace("[[", "[").replace("]]", "]")
    answer = page_safe(result.answer)
    title = clean_title(question) or "Query"

    old_text = read_text_inside(root, root / rel) if not created else None
    old_data, old_body = split_page(old_text) if old_text is not None else (None, "")
    fresh = {
        "sources": sources,
        "summary": _summary(answer, {item.ref: item.title for item in result.retrieval.items}),
        "question": question,
        "cited": cited,
        "related": related,
    }
    data = _query_frontmatter(old_data or {}, title, today, _answer_tags(result.cited_items, schema.tag_set), fresh)
    body = old_body if old_text is not None else page_skeleton("query").opening(clean_text(title, 200))
    merged = merge_blocks(body, [(ANSWER_KEY, answer, None)])
    if merged.kept:
        raise VaultError(f"{rel}: the answer block was edited by hand, so it was not replaced")
    saved.related = related

    # Plan every write before making any: the journal then finishes a save killed half-way.
    writes = _Writes({rel: old_text})
    names = LinkNames(vault.files)
    if created:
        names.add(rel)  # a new page is linked to before it exists
    writes.texts[rel] = dump_frontmatter(data) + _with_see_also(vault, names, rel, merged.text, saved).lstrip("\n")
    writes.before[INDEX_FILE] = read_text_inside(root, root / INDEX_FILE)
    types = list(schema.page_folders) or list(PAGE_FOLDERS)
    entry = Entry("query", link_ref(names, rel), data["summary"])
    writes.texts[INDEX_FILE] = upsert_entry(writes.before[INDEX_FILE], entry, types)
    asked = _asked_from(data) | _asked_from(old_data or {})
    _plan_asked(root, _query_pages(vault, rel, writes.texts[rel]), sorted(asked), names, writes, saved)
    # the overview's counts and latest changes take the answer in (from the vault as this save leaves it)
    hubs = HubPlanner(root, schema, today, planned=writes.changed())
    log = [row(today, "query", hubs.link(rel, str(data["title"])), _said(hubs, result, created))]
    hubs.log(log)
    hub_plan = hubs.plan()

    plan = journal.Journal()
    for path, text in writes.changed().items():
        plan.add_page(path, writes.before[path], text)
    for path, (on_disk, text) in hub_plan.pages.items():
        plan.add_page(path, on_disk, text)
    plan.add_log(root, log)
    plan.palace = [saved.path, *saved.asked_pages]
    plan.commit(root, list(schema.page_folders))
    saved.warnings.extend(_unlinked(root, rel, quoted, schema))
    return saved


@dataclass
class _Writes:
    """The texts a save plans (path -> new text), and what each path held before (None: no file)."""

    before: dict[str, str | None]
    texts: dict[str, str] = field(default_factory=dict)

    def changed(self) -> dict[str, str]:
        return {p: t for p, t in self.texts.items() if t != self.before[p]}


def _answer_sources(root: Path, items: list[ContextItem]) -> tuple[dict[str, str], list[str], set[str]]:
    """(cited page -> its fingerprint, the raw sources the answer rests on that are there, the raw files it
    quotes), from the cited `items`."""
    cited = {item.path: item.fingerprint for item in items if item.kind == "page" and item.fingerprint}
    sources = sorted({s for item in items for s in item.sources if s.startswith(RAW_DIR + "/")}
                     | {item.path for item in items if item.kind == "raw"})
    quoted = {item.path for item in items if item.kind == "raw"}
    return cited, [s for s in sources if (root / s).is_file()], quoted


def _answer_tags(items: list[ContextItem], taxonomy: frozenset[str]) -> list[str]:
    """The cited items' tags, in order and once each; only the taxonomy's when SCHEMA.md has one."""
    tags: list[str] = []
    for item in items:
        for tag in item.tags:
            tag = tag.lstrip("#").lower()
            if tag not in tags and (not taxonomy or tag in taxonomy):
                tags.append(tag)
    return tags


def _query_frontmatter(old: dict[str, Any], title: str, today: dt.date, tags: list[str],
                       fresh: dict[str, Any]) -> dict[str, Any]:
    """The query page's frontmatter: what it had (`old`: a person's title and tags stay), with `fresh`'s values
    and the cited pages' `tags` added."""
    data: dict[str, Any] = dict(old)
    kept_tags = [t for t in data.get("tags") or [] if isinstance(t, str)] if isinstance(data.get("tags"), list) else []
    data.update({
        "title": data.get("title") if isinstance(data.get("title"), str) and data.get("title") else title,
        "created": data.get("created") or today,
        "updated": today,
        "type": "query",
        # a person's tags stay; the cited pages' tags are added
        "tags": list(dict.fromkeys([*kept_tags, *tags[:MAX_TAGS]])),
        **fresh,
    })
    if not fresh["related"]:
        del data["related"]
    return data


def _with_see_also(vault: Vault, names: LinkNames, rel: str, body: str, saved: SavedQuery) -> str:
    """`body` of the query page with its See also: the pages built on the answer's sources (`saved.related`)."""
    related = saved.related
    titles = {p: str((vault.notes[p].frontmatter or {}).get("title") or posixpath.basename(p)[:-3]) for p in related}
    see_also = ", ".join(_link(link_ref(names, p), titles[p]) for p in related)
    text, kept = _with_block(body, RELATED_KEY, f"- See also: {see_also}" if related else None, RELATED_SECTION)
    if kept:
        saved.kept_edits.append(f"{rel}: {RELATED_KEY}")
    return text


def _plan_asked(root: Path, queries: list[tuple[str, str, str, set[str]]], pages: list[str], names: LinkNames,
                writes: _Writes, saved: SavedQuery) -> None:
    """Plan the "Asked about" block of each of `pages`: the query pages (`queries`) that list it."""
    for page in pages:
        if page in writes.texts:
            current = writes.texts[page]
        else:
            try:
                found = read_text_inside(root, root / page)
            except (OSError, UnicodeDecodeError, VaultError):
                continue
            if found is None:
                continue
            current = writes.before[page] = found
        new, kept = _update_asked(current, [q[:3] for q in queries if page in q[3]], names)
        if new is not None:
            writes.texts[page] = new
            saved.asked_pages.append(page)
        if kept:
            saved.kept_edits.append(f"{page}: {ASKED_KEY}")


def _said(hubs: HubPlanner, result: QueryResult, created: bool) -> str:
    """What the save's log.md row says: refreshed or not, the citations, the tokens."""
    shown = [hubs.link(c.path) if c.path.endswith(".md") and not c.path.startswith(RAW_DIR + "/") else f"[[{c.path}]]"
             for c in result.citations]
    return notes("refreshed" if not created else "", listed("cited", list(dict.fromkeys(shown))),
                 usage(result.tokens, result.cost, cached=result.cached))


def _asked_from(fm: dict[str, Any]) -> set[str]:
    """The pages whose "Asked about" block lists this query page (frontmatter `fm`): the pages it cites;
    for an answer that cites no page (only raw passages), the pages built on the passages' sources."""
    cited = fm.get("cited")
    if isinstance(cited, dict) and cited:
        return {str(p) for p in cited}
    related = fm.get("related")
    return {p for p in related if isinstance(p, str)} if isinstance(related, list) else set()


def _related_pages(vault: Vault, sources: list[str], quoted: set[str], exclude: set[str]) -> list[str]:
    """At most MAX_RELATED wiki pages built on the raw `sources` of an answer (query pages and `exclude`
    aside): those on a raw passage the answer quotes first, then those sharing the most sources."""
    wanted = set(sources)
    scored = []
    for path in vault.subject_pages:
        if path in exclude or vault.page_type(path) == "query":
            continue
        listed = (vault.notes[path].frontmatter or {}).get("sources")
        mine = {fm_parser.unwrap_link(s) for s in listed if isinstance(s, str)} if isinstance(listed, list) else set()
        shared = mine & wanted
        if shared:
            scored.append((-len(mine & quoted), -len(shared), path))
    return [path for *_, path in sorted(scored)[:MAX_RELATED]]


def _link(target: str, title: str) -> str:
    label = clean_title(title).replace("|", "/").replace("[", "(").replace("]", ")")
    return f"[[{target}|{label}]]" if label and label != target else f"[[{target}]]"


def _with_block(body: str, key: str, content: str | None, section: str) -> tuple[str, bool]:
    """`body` with the compiler block `key` holding `content`, or without it when `content` is None.
    Returns (the body, whether the block was left alone because a person edited it)."""
    if content is None:
        return remove_block(body, key)
    merged = merge_blocks(body, [(key, content, section)])
    return merged.text, bool(merged.kept)


def _unlinked(root: Path, rel: str, quoted: set[str], schema: Schema) -> list[str]:
    """What to tell a person whose query page the wiki barely links, as lint's orphan-page and too-few-links
    find it in the vault the save left (the same link graph and thresholds, never a count of its own)."""
    vault = load_vault(root, use_cache=True, schema=schema, refresh_cache=False)  # the save's writes are done
    subjects = vault.subject_pages
    if rel not in subjects:
        return []
    links = build_graph(vault)
    asked = schema.thresholds["min_outbound_links"]
    minimum = outbound_minimum(asked, len(subjects))
    linked = len(outbound(links, rel, frozenset(subjects)))
    too_few = linked < minimum
    orphan = len(subjects) > 1 and rel not in linked_from_subjects(links, subjects)
    raw = ", ".join(sorted(quoted)) or "no raw source"
    if too_few and orphan and not linked:
        return [f"{rel} links to no wiki page and no page links to it: the answer quotes only {raw}, which no "
                f"wiki page is built from yet (lint: orphan-page, too-few-links); `wikic query --refresh {rel}` "
                "links it once a page cites that source"]
    said = []
    if too_few:
        said.append(f"{rel} links to {linked} wiki page(s), fewer than min_outbound_links ({asked}"
                    + (f"; here {minimum}: the wiki has {len(subjects)} pages" if minimum < asked else "")
                    + "): nothing else in the wiki shares the answer's sources (lint: too-few-links)")
    if orphan:
        said.append(f"{rel}: no other wiki page links to it (lint: orphan-page)")
    return said


def _query_pages(vault: Vault, rel: str, text: str) -> list[tuple[str, str, str, set[str]]]:
    """(date, path, question title, pages listing it) of every query page, newest first, as they are once
    the query page `rel` holds `text` (read from it, not from disk: it is not written yet)."""
    frontmatters = {path: vault.notes[path].frontmatter for path in vault.pages}
    if vault.is_page(rel):
        frontmatters[rel] = parse_note(rel, text.encode("utf-8")).frontmatter
    out = []
    for path, fm in frontmatters.items():
        fm = fm or {}
        if fm.get("type") == "query" and isinstance(fm.get("cited"), dict):
            title = fm.get("title") if isinstance(fm.get("title"), str) else posixpath.basename(path)[:-3]
            out.append((str(fm.get("updated") or fm.get("created") or ""), path, str(title), _asked_from(fm)))
    out.sort(key=lambda x: (x[0], x[1]), reverse=True)
    return out


def _update_asked(text: str, queries: list[tuple[str, str, str]], names: LinkNames) -> tuple[str | None, bool]:
    """A cited page's `text` with its "Asked about" block rebuilt from `queries` (date, path, title; newest
    first). Returns (the new text, or None when nothing changes; kept because a person edited the block)."""
    split = fm_parser.split(text)
    lines = text.split("\n")
    head = "\n".join(lines[: split.block_lines]) + "\n" if split.block_lines else ""
    body = "\n".join(lines[split.block_lines :])
    entries = [f"- {_link(link_ref(names, query_path), title)}" for _, query_path, title in queries[:MAX_ASKED]]
    if len(queries) > MAX_ASKED:
        entries.append(f"- … and {len(queries) - MAX_ASKED} more (see the Queries section of index.md)")
    new_body, kept = _with_block(body, ASKED_KEY, "\n".join(entries) if entries else None, ASKED_SECTION)
    if kept:
        return None, True
    new = head + new_body
    return (None, False) if new == text else (new, False)


def _reindex(context: VaultContext, saved: SavedQuery) -> None:
    """Index what the save wrote, and whatever a killed save or ingest left to index (its palace to-do)."""
    from wikic.palace.todo import update_palace

    try:
        update_palace(Path(context.root).resolve(), [saved.path, *saved.asked_pages], context.palace)
    except (PalaceError, OSError) as exc:
        saved.warnings.append(f"palace not updated ({exc}); run `wikic index`")
