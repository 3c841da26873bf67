"""Filing answers into the wiki: query pages, "Asked about" blocks on cited pages, index.md, log.md, palace.

A query page (`queries/<slug>.md`) carries the frontmatter of contract §3 plus `question` and `cited`
(cited page -> fingerprint, see `fingerprint.py`), and its answer inside a compiler-owned block:

    # Who leads OpenAI?

    <!-- wikic:begin answer sha=1a2b3c4d5e6f -->
    Sam Altman is the CEO of [[openai]]. [[sam-altman]]
    <!-- wikic:end answer -->

`--refresh` replaces that block only if nobody edited it (checked before the model is called), and keeps
every line outside it. Each cited page gets (or updates) an "Asked about" block listing the query pages
that cite it, so the question is one click away from the page it is about; it is rebuilt from the query
pages' `cited` keys, so it is always exactly the set of queries citing the page.

Every new text is computed first, then written through the ingest journal (`wikic/ingest/journal.py`):
a save killed part-way is finished by the next `query --save`, `--refresh` or ingest, never left with a
query page but no index.md entry or log row.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.errors import PalaceError, UsageError, VaultError
from wikic.ingest import journal
from wikic.ingest.blocks import digest, find_block, merge_blocks
from wikic.ingest.compile import dump_frontmatter, split_page
from wikic.ingest.render import clean_text, clean_title
from wikic.palace import Palace
from wikic.query.answer import (
    QueryOptions,
    QueryResult,
    StreamingLLM,
    TextSink,
    answer_question,
)
from wikic.query.fingerprint import ASKED_KEY, ASKED_SECTION
from wikic.query.retrieve import link_ref
from wikic.schema import load as load_schema
from wikic.vault import frontmatter as fm_parser
from wikic.vault.index_file import Entry, add_entries
from wikic.vault.layout import INDEX_FILE, PAGE_FOLDERS, RAW_DIR, require_vault
from wikic.vault.load import load_vault, walk
from wikic.vault.lock import vault_lock
from wikic.vault.log_file import row
from wikic.vault.parse import parse_note
from wikic.vault.resolve import Resolver
from wikic.vault.slug import slugify

ANSWER_KEY = "answer"
MAX_ASKED = 20  # entries in a page's "Asked about" block: the most recent ones
MAX_TAGS = 3
SLUG_LENGTH = 60


@dataclass
class SavedQuery:
    path: str  # queries/x.md
    created: bool  # False: an existing page for the same question was updated
    asked_pages: list[str] = field(default_factory=list)  # cited pages whose "Asked about" block changed
    kept_edits: list[str] = field(default_factory=list)  # "path: block" left alone (a person edited it)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Refreshed:
    result: QueryResult
    saved: SavedQuery | None  # None: the wiki no longer answers the question; the page was left alone
    path: str


def query_folder(root: Path) -> str:
    return load_schema(root).page_folders.get("query", PAGE_FOLDERS["query"])


def save_answer(
    root: Path, result: QueryResult, *, today: dt.date | None = None, palace: Palace | None = None
) -> SavedQuery:
    """File an answered question as a query page (a page for the same question is updated in place)."""
    root = Path(root).resolve()
    require_vault(root)
    if result.status == "general":
        raise UsageError(
            "a general-knowledge answer is not filed into the wiki: it cites nothing in it",
            hint="ingest a source that covers the question, then ask again",
        )
    if not result.answered:
        raise UsageError("there is no answer to file: the wiki does not answer this question")
    if not result.citations:
        raise UsageError(
            "the answer cites no page or source of the wiki, so it is not filed",
            hint="ask again (answers are checked: every claim must cite what it comes from)",
        )
    today = today or dt.date.today()
    with vault_lock(root):
        _recover(root)  # a save or ingest killed while writing: finish it before reading the vault
        folder = query_folder(root)
        existing = find_query_page(root, result.question, folder)
        saved = _write_query(root, result, existing or _new_path(root, folder, result.question), today,
                             created=existing is None)
    _reindex(root, saved, palace)
    return saved


def refresh_query(
    root: Path,
    page: str,
    options: QueryOptions | None = None,
    *,
    llm: StreamingLLM | None = None,
    palace: Palace | None = None,
    on_text: TextSink | None = None,
    today: dt.date | None = None,
) -> Refreshed:
    """Answer a query page's question again and replace its answer block (only if nobody edited it)."""
    root = Path(root).resolve()
    require_vault(root)
    options = options or QueryOptions()
    rel = resolve_query_page(root, page)
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
    result = answer_question(root, question, options, llm=llm, palace=palace, on_text=on_text)
    if not result.answered or not result.citations:
        return Refreshed(result, None, rel)
    with vault_lock(root):
        _recover(root)
        current = (root / rel).read_text(encoding="utf-8")
        _check_answer_block(rel, current)  # edited while the model was answering
        saved = _write_query(root, result, rel, today or dt.date.today(), created=False)
    _reindex(root, saved, palace)
    return Refreshed(result, saved, rel)


def resolve_query_page(root: Path, page: str) -> str:
    """A vault-relative path for PAGE: a path (vault-relative, or from the current folder) or a bare name."""
    folder = query_folder(root)
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


def _recover(root: Path) -> None:
    if journal.pending(root):
        journal.recover(root, list(load_schema(root).page_folders))


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
    stems = {posixpath.basename(p)[:-3].lower() for p in files if p.endswith(".md")}
    candidate, n = base, 2
    # a name no other note has, so `[[name]]` reaches this page and nothing else
    while candidate.lower() in stems or (root / folder / f"{candidate}.md").exists():
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
        if alias:
            return space + alias
        title = titles.get(target, target)
        before = m.string[: m.start()].lower()
        return "" if title.lower() in before[-200:] else space + title

    first = re.split(r"(?<=[.!?。！？])\s", " ".join(answer.split()), maxsplit=1)[0]
    text = _LINK.sub(plain, first)
    text = re.sub(r"\^\[[^\]]*\]", "", text).replace("> [!warning]", "")
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return clean_text(text, 200)


def _write_query(root: Path, result: QueryResult, rel: str, today: dt.date, *, created: bool) -> SavedQuery:
    saved = SavedQuery(rel, created)
    schema = load_schema(root)
    items = result.cited_items
    cited = {item.path: item.fingerprint for item in items if item.kind == "page" and item.fingerprint}
    sources = sorted({s for item in items for s in item.sources if s.startswith(RAW_DIR + "/")}
                     | {item.path for item in items if item.kind == "raw"})
    sources = [s for s in sources if (root / s).is_file()]
    taxonomy = schema.tag_set
    tags: list[str] = []
    for item in items:
        for tag in item.tags:
            tag = tag.lstrip("#").lower()
            if tag not in tags and (not taxonomy or tag in taxonomy):
                tags.append(tag)
    # Frontmatter values holding "[[...]]" are links to Obsidian and lint: a question quoting one must not be.
    question = " ".join(result.question.split()).replace("[[", "[").replace("]]", "]")
    answer = page_safe(result.answer)
    title = clean_title(question) or "Query"

    old_text = (root / rel).read_text(encoding="utf-8") if not created else None
    old_data, old_body = split_page(old_text) if old_text is not None else (None, "")
    old_cited = set((old_data or {}).get("cited") or {}) if isinstance((old_data or {}).get("cited"), dict) else set()
    data: dict[str, Any] = dict(old_data or {})
    kept_tags = [t for t in data.get("tags") or [] if isinstance(t, str)] if isinstance(data.get("tags"), list) else []
    data.update({
        "title": data.get("title") if isinstance(data.get("title"), str) and data.get("title") else title,
        "created": data.get("created") or today,
        "updated": today,
        "type": "query",
        # a person's tags stay; the cited pages' tags are added
        "tags": list(dict.fromkeys([*kept_tags, *tags[:MAX_TAGS]])),
        "sources": sources,
        "summary": _summary(answer, {item.ref: item.title for item in result.retrieval.items}),
        "question": question,
        "cited": cited,
    })
    body = old_body if old_text is not None else f"# {clean_text(title, 200)}\n"
    merged = merge_blocks(body, [(ANSWER_KEY, answer, None)])
    if merged.kept:
        raise VaultError(f"{rel}: the answer block was edited by hand, so it was not replaced")

    # Plan every write before making any: the journal then finishes a save killed half-way.
    before: dict[str, str | None] = {rel: old_text}
    texts: dict[str, str] = {rel: dump_frontmatter(data) + merged.text.lstrip("\n")}
    files, _ = walk(root)
    resolver = Resolver({*files, rel})  # a new page is linked to before it exists
    link = link_ref(resolver, rel)
    index_path = root / INDEX_FILE
    before[INDEX_FILE] = index_path.read_text(encoding="utf-8") if index_path.exists() else None
    texts[INDEX_FILE] = _upsert_index(before[INDEX_FILE], Entry("query", link, data["summary"]), schema)
    queries = _query_pages(root, rel, texts[rel])
    for page in sorted(set(cited) | old_cited):
        if page in texts:
            current = texts[page]
        else:
            try:
                current = before[page] = (root / page).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        new, kept = _update_asked(current, [q[:3] for q in queries if page in q[3]], resolver)
        if new is not None:
            texts[page] = new
            saved.asked_pages.append(page)
        if kept:
            saved.kept_edits.append(f"{page}: {ASKED_KEY}")
    notes = [f"{len(result.citations)} cited", f"{result.tokens:,} tokens" + (" (cached)" if result.cached else "")]
    if result.cost is not None:
        notes.append(f"${result.cost:.4f}")
    if not created:
        notes.insert(0, "refreshed")

    plan = journal.Journal()
    for path, text in texts.items():
        if text != before[path]:
            plan.add_page(path, before[path], text)
    plan.add_log(root, [row(today, "query", rel, ", ".join(notes))])
    plan.palace = [saved.path, *saved.asked_pages]
    plan.save(root)  # from here on, a killed save is finished by the next save or ingest
    plan.apply(root, list(schema.page_folders))
    plan.finish(root)
    return saved


def _upsert_index(text: str | None, entry: Entry, schema: Any) -> str:
    """index.md (`text`, None when there is none) with `entry` listed: its old line replaced, or added."""
    text = text if text is not None else "# Wiki Index\n"
    pattern = re.compile(rf"^\s*[-*+]\s+\[\[{re.escape(entry.link)}(?:\|[^\]]*)?\]\].*$", re.MULTILINE | re.IGNORECASE)
    if pattern.search(text):
        return pattern.sub(lambda _: entry.render(), text, count=1)
    types = list(schema.page_folders) or list(PAGE_FOLDERS)
    return add_entries(text, [entry], types)


def _query_pages(root: Path, rel: str, text: str) -> list[tuple[str, str, str, set[str]]]:
    """(date, path, question title, cited pages) of every query page, newest first, as they are once the
    query page `rel` holds `text` (read from it, not from disk: it is not written yet)."""
    vault = load_vault(root, use_cache=True)
    frontmatters = {path: vault.notes[path].frontmatter for path in vault.pages}
    if vault.is_page(rel):
        frontmatters[rel] = parse_note(rel, text.encode("utf-8")).frontmatter
    out = []
    for path, fm in frontmatters.items():
        fm = fm or {}
        cited = fm.get("cited")
        if fm.get("type") == "query" and isinstance(cited, dict):
            title = fm.get("title") if isinstance(fm.get("title"), str) else posixpath.basename(path)[:-3]
            out.append((str(fm.get("updated") or fm.get("created") or ""), path, str(title), set(cited)))
    out.sort(key=lambda x: (x[0], x[1]), reverse=True)
    return out


def _update_asked(text: str, queries: list[tuple[str, str, str]], resolver: Resolver) -> tuple[str | None, bool]:
    """A cited page's `text` with its "Asked about" block rebuilt from `queries` (date, path, title; newest
    first). Returns (the new text, or None when nothing changes; kept because a person edited the block)."""
    split = fm_parser.split(text)
    lines = text.split("\n")
    head = "\n".join(lines[: split.block_lines]) + "\n" if split.block_lines else ""
    body = "\n".join(lines[split.block_lines :])
    if not queries:
        found = find_block(body, ASKED_KEY)
        if found is None:
            return None, False
        start, end, sha, current = found
        if digest(current) != sha:
            return None, True
        new_body = body[:start] + body[end:]
        new_body = re.sub(rf"\n## {re.escape(ASKED_SECTION)}[ \t]*\n(\s*\n)*(?=(## |# |$))", "\n", new_body)
        new_body = new_body.rstrip("\n") + "\n"
    else:
        entries = []
        for _, query_path, title in queries[:MAX_ASKED]:
            target = link_ref(resolver, query_path)
            label = clean_title(title).replace("|", "/").replace("[", "(").replace("]", ")")
            entries.append(f"- [[{target}|{label}]]" if label and label != target else f"- [[{target}]]")
        if len(queries) > MAX_ASKED:
            entries.append(f"- … and {len(queries) - MAX_ASKED} more (see the Queries section of index.md)")
        merged = merge_blocks(body, [(ASKED_KEY, "\n".join(entries), ASKED_SECTION)])
        if merged.kept:
            return None, True
        new_body = merged.text
    new = head + new_body
    return (None, False) if new == text else (new, False)


def _reindex(root: Path, saved: SavedQuery, palace: Palace | None) -> None:
    """Index what the save wrote, and whatever a killed save or ingest left to index (its palace to-do)."""
    try:
        journal.update_palace(root, [saved.path, *saved.asked_pages], palace)
    except (PalaceError, OSError) as exc:
        saved.warnings.append(f"palace not updated ({exc}); run `wikic index`")
