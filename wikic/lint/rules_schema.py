"""Schema rules: frontmatter, stale-page, contradiction, page-too-long, duplicate-page."""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.registry import rule
from wikic.vault.fields import REQUIRED
from wikic.vault.frontmatter import unwrap_link
from wikic.vault.layout import RAW_DIR, SCHEMA_FILE
from wikic.vault.page_layout import CLAIMS, role_of
from wikic.vault.schema_md import near

if TYPE_CHECKING:
    from wikic.vault.formats.claims import Claim

_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TABLE_ROW = re.compile(r"^\s*\|?.*\|.*$")
_TABLE_DELIM = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


def as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        text = value.strip()[:10]
        if _DATE_TEXT.match(text):
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                return None
    return None


def _kind(value: Any) -> str:
    return {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "a mapping", str: "text"}.get(
        type(value), type(value).__name__
    )


@rule(
    "frontmatter",
    "error",
    "invalid frontmatter, missing or mistyped fields, tags outside the taxonomy, bad names, unmet thresholds",
    needs_schema=True,
)
def frontmatter(ctx: LintContext) -> Iterator[Finding]:
    schema = ctx.schema
    for problem in schema.problems:
        # what SCHEMA.md cannot be read as meant stops ingest (exit 2): here it fails lint too
        severity = "error" if problem in schema.errors else "warning"
        yield ctx.finding("frontmatter", SCHEMA_FILE, problem.line, problem.message, severity=severity)
    from wikic.lint.registry import RULES

    for rule_id in sorted(set(schema.severities) - set(RULES), key=lambda r: schema.severity_lines.get(r, 0)):
        meant = near(rule_id, RULES)
        said = f"; did you mean '{meant}'?" if meant else ""
        yield ctx.finding(
            "frontmatter",
            SCHEMA_FILE,
            schema.severity_lines.get(rule_id),
            f"unknown rule '{rule_id}' under '## Lint'{said} (known: {', '.join(sorted(RULES))})",
            severity="error" if meant else "warning",
        )
    # a note outside the page folders is the person's own: its YAML is not the schema's business
    yield from (f for f in ctx.problems("frontmatter") if not ctx.vault.is_plain_note(f.path))
    taxonomy = schema.tag_set
    folder_types = schema.folder_types()
    naming = schema.naming_pattern
    for path in ctx.pages:
        note = ctx.vault.notes[path]
        name = posixpath.basename(path)
        if not naming.match(name):
            yield ctx.finding(
                "frontmatter",
                path,
                None,
                f"file name '{name}' does not follow the naming convention '{schema.naming}'",
                severity="warning",
            )
        fm = note.frontmatter
        if fm is None:
            if not any(p.rule == "frontmatter" for p in note.problems) and not any(
                p.rule == "encoding" for p in note.problems
            ):
                yield ctx.finding("frontmatter", path, None, "no frontmatter: a wiki page needs " + ", ".join(REQUIRED))
            continue
        line_of = note.key_lines.get
        missing = [key for key in REQUIRED if key not in fm or fm[key] is None]
        if missing:
            yield ctx.finding("frontmatter", path, 1, f"missing required field(s): {', '.join(missing)}")
        title = fm.get("title")
        if title is not None and not (isinstance(title, str) and title.strip()):
            yield ctx.finding(
                "frontmatter", path, line_of("title"), f"'title' must be non-empty text, not {_kind(title)}"
            )
        for key in ("created", "updated"):
            if fm.get(key) is not None and as_date(fm[key]) is None:
                yield ctx.finding(
                    "frontmatter", path, line_of(key), f"'{key}' must be a date written YYYY-MM-DD, not '{fm[key]}'"
                )
        created, updated = as_date(fm.get("created")), as_date(fm.get("updated"))
        if created and updated and updated < created:
            yield ctx.finding(
                "frontmatter",
                path,
                line_of("updated"),
                f"'updated' ({updated}) is before 'created' ({created})",
                severity="warning",
            )
        page_type = fm.get("type")
        folder_type = folder_types.get(path.split("/", 1)[0])
        if page_type is not None:
            if not isinstance(page_type, str) or page_type not in schema.page_folders:
                yield ctx.finding(
                    "frontmatter",
                    path,
                    line_of("type"),
                    f"'type' must be one of {', '.join(schema.page_folders)}, not '{page_type}'",
                )
            elif page_type != folder_type:
                yield ctx.finding(
                    "frontmatter",
                    path,
                    line_of("type"),
                    (
                        f"'type: {page_type}' does not match the folder '{path.split('/', 1)[0]}/' (expected "
                        f"'{folder_type}')"
                    ),
                )
        yield from _tags(ctx, path, fm.get("tags"), line_of("tags"), taxonomy)
        yield from _sources(ctx, path, fm.get("sources"), line_of("sources"))
        for key in ("aliases", "contradictions"):
            value = fm.get(key)
            if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                yield ctx.finding(
                    "frontmatter", path, line_of(key), f"'{key}' must be a list of text, not {_kind(value)}"
                )
        if "contested" in fm and not isinstance(fm["contested"], bool):
            yield ctx.finding(
                "frontmatter", path, line_of("contested"), f"'contested' must be true or false, not '{fm['contested']}'"
            )
        for key in ("summary", "question"):
            if fm.get(key) is not None and not isinstance(fm[key], str):
                yield ctx.finding("frontmatter", path, line_of(key), f"'{key}' must be text, not {_kind(fm[key])}")
        yield from _thresholds(ctx, path, note, fm, folder_type)


def _tags(ctx: LintContext, path: str, tags: Any, line: int | None, taxonomy: frozenset[str]) -> Iterator[Finding]:
    if tags is None:
        return
    if not isinstance(tags, list):
        yield ctx.finding("frontmatter", path, line, f"'tags' must be a list, not {_kind(tags)}")
        return
    for tag in tags:
        if not isinstance(tag, str):
            yield ctx.finding("frontmatter", path, line, f"tag {tag!r} must be text")
            continue
        clean = tag.strip()
        if clean.startswith("#"):
            yield ctx.finding(
                "frontmatter", path, line, f"write tag '{clean}' without '#' in frontmatter", severity="warning"
            )
            clean = clean.lstrip("#")
        if taxonomy and clean.lower() not in taxonomy:
            yield ctx.finding(
                "frontmatter", path, line, f"tag '{clean}' is not in the SCHEMA.md taxonomy", target=clean
            )


def _sources(ctx: LintContext, path: str, sources: Any, line: int | None) -> Iterator[Finding]:
    if sources is None:
        return
    if not isinstance(sources, list):
        yield ctx.finding("frontmatter", path, line, f"'sources' must be a list of raw/ paths, not {_kind(sources)}")
        return
    for entry in sources:
        if not isinstance(entry, str):
            yield ctx.finding("frontmatter", path, line, f"source {entry!r} must be a raw/ path")
            continue
        src = unwrap_link(entry)
        if not src.startswith(RAW_DIR + "/"):
            yield ctx.finding("frontmatter", path, line, f"source '{src}' is not under raw/", target=src)
        elif not ctx.links.resolver.exists(src):
            yield ctx.finding("frontmatter", path, line, f"source '{src}' does not exist", target=src)


def table_rows(text: str) -> int:
    """Body rows of the first Markdown table: the axes of a comparison."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if _TABLE_DELIM.match(lines[i]) and "|" in lines[i] and "|" in lines[i - 1]:
            rows = 0
            for row in lines[i + 1 :]:
                if not row.strip() or "|" not in row:
                    break
                rows += 1
            return rows
    return 0


def _thresholds(
    ctx: LintContext, path: str, note: Any, fm: dict[str, Any], folder_type: str | None
) -> Iterator[Finding]:
    t = ctx.schema.thresholds
    if folder_type == "entity":
        sources = fm.get("sources")
        count = len({unwrap_link(s) for s in sources if isinstance(s, str)}) if isinstance(sources, list) else 0
        if count < t["entity_min_references"]:
            yield ctx.finding(
                "frontmatter",
                path,
                note.key_lines.get("sources"),
                (
                    f"entity cites {count} distinct source(s); SCHEMA.md's entity_min_references is "
                    f"{t['entity_min_references']}"
                ),
                severity="warning",
            )
    elif folder_type == "concept":
        # sections of substance: not the ones that lead elsewhere or keep the past (Related, History, ...)
        sections = sum(1 for h in note.headings if h.level == 2 and role_of(h.text) == CLAIMS and
                       h.text.strip().casefold() != "asked about")
        if sections < t["concept_min_sections"]:
            yield ctx.finding(
                "frontmatter",
                path,
                None,
                (
                    f"concept has {sections} '##' section(s) of its own (besides Related, History, Contradictions, "
                    f"Open questions); SCHEMA.md's concept_min_sections is {t['concept_min_sections']}"
                ),
                severity="warning",
            )
    elif folder_type == "comparison":
        try:
            text = (ctx.vault.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        axes = table_rows(text)
        if axes < t["comparison_min_axes"]:
            yield ctx.finding(
                "frontmatter",
                path,
                None,
                (
                    f"comparison table has {axes} axis row(s); SCHEMA.md's comparison_min_axes is "
                    f"{t['comparison_min_axes']}"
                ),
                severity="warning",
            )


def source_date(ctx: LintContext, source: str) -> dt.date | None:
    """When a raw source was captured: its own frontmatter (captured/ingested/date), else the source ledger.
    File modification times are not used: a git checkout resets them."""
    cache = ctx.__dict__.setdefault("_source_dates", {})
    if source in cache:
        return cache[source]
    found = None
    note = ctx.note(source) if source.endswith(".md") else None
    if note is not None and note.frontmatter:
        for key in ("captured", "ingested", "date", "published"):
            found = as_date(note.frontmatter.get(key))
            if found:
                break
    if found is None:
        entry = ctx.ledger.get(source)
        if isinstance(entry, dict):
            found = as_date(entry.get("captured") or entry.get("ingested"))
    cache[source] = found
    return found


@rule(
    "stale-page",
    "warning",
    "a page older than its newest source, or a query page that is old or cites changed pages",
    needs_schema=True,
)
def stale(ctx: LintContext) -> Iterator[Finding]:
    t = ctx.schema.thresholds
    folder_types = ctx.schema.folder_types()
    for path in ctx.pages:
        fm = ctx.vault.notes[path].frontmatter or {}
        updated = as_date(fm.get("updated")) or as_date(fm.get("created"))
        if updated is None:
            continue
        listed = fm.get("sources")
        sources = listed if isinstance(listed, list) else []
        dates = [d for d in (source_date(ctx, unwrap_link(s)) for s in sources if isinstance(s, str)) if d]
        if dates:
            newest = max(dates)
            if (newest - updated).days > t["stale_after_days"]:
                yield ctx.finding(
                    "stale-page",
                    path,
                    None,
                    (
                        f"updated {updated}, but it cites a source captured {newest} ({(newest - updated).days} days "
                        f"later; stale_after_days is {t['stale_after_days']})"
                    ),
                )
        if folder_types.get(path.split("/", 1)[0]) == "query":
            age = (ctx.today - updated).days
            if age > t["query_max_age_days"]:
                yield ctx.finding(
                    "stale-page",
                    path,
                    None,
                    (
                        f"query page is {age} days old (query_max_age_days is {t['query_max_age_days']}); "
                        f"re-run it with `wikic query --refresh {path}`"
                    ),
                )
            # `cited:` (written by query write-back) holds each cited page's content fingerprint: exact where
            # dates are not (same-day ingests, hand edits); pages it covers skip the date comparison below.
            edited, gone, fingerprinted = _cited_changes(ctx, fm.get("cited"))
            if edited:
                yield ctx.finding(
                    "stale-page",
                    path,
                    ctx.vault.notes[path].key_lines.get("cited"),
                    (
                        f"cited page(s) changed since this answer was written: {', '.join(edited[:5])}; "
                        f"refresh it with `wikic query --refresh {path}`"
                    ),
                )
            if gone:
                yield ctx.finding(
                    "stale-page",
                    path,
                    ctx.vault.notes[path].key_lines.get("cited"),
                    (
                        f"cited page(s) no longer exist: {', '.join(gone[:5])}; refresh it with `wikic query --refresh "
                        f"{path}`"
                    ),
                )
            # `related:` pages (written by query write-back under "See also") are not citations: their
            # changes say nothing about the answer.
            related = {str(p) for p in fm.get("related") or []} if isinstance(fm.get("related"), list) else set()
            changed = []
            for edge in ctx.edges_from(path):
                if (
                    edge.target
                    and edge.target != path
                    and ctx.is_page(edge.target)
                    and edge.target not in fingerprinted | related
                ):
                    cited = as_date((ctx.vault.notes[edge.target].frontmatter or {}).get("updated"))
                    if cited and cited > updated:
                        changed.append(edge.target)
            if changed:
                names = ", ".join(sorted(set(changed))[:5])
                yield ctx.finding(
                    "stale-page", path, None, f"cites page(s) updated after this answer was written: {names}"
                )


def _cited_changes(ctx: LintContext, cited: Any) -> tuple[list[str], list[str], set[str]]:
    """(changed, missing, all) pages of a query page's `cited: {path: fingerprint}` map."""
    if not isinstance(cited, dict):
        return [], [], set()
    from wikic.pages.fingerprint import fingerprint_matches

    edited, gone = [], []
    for target, recorded in sorted(cited.items(), key=lambda kv: str(kv[0])):
        target = str(target)
        try:
            # only files of the vault's own listing: a hand-written key cannot make lint read outside it
            if target not in ctx.vault.files:
                raise FileNotFoundError(target)
            text = (ctx.vault.root / target).read_text(encoding="utf-8", errors="replace")
        except OSError:
            gone.append(target)
            continue
        if not fingerprint_matches(recorded, text):
            edited.append(target)
    return edited, gone, {str(t) for t in cited}


@rule(
    "contradiction",
    "warning",
    "contested pages, and contradictions that name a missing page or are not mirrored",
    needs_schema=True,
)
def contradiction(ctx: LintContext) -> Iterator[Finding]:
    resolver = ctx.links.resolver

    def named(path: str) -> list[tuple[str, str | None]]:
        fm = ctx.vault.notes[path].frontmatter or {}
        items = fm.get("contradictions")
        if not isinstance(items, list):
            return []
        out = []
        for item in items:
            if isinstance(item, str) and item.strip():
                text = unwrap_link(item)
                out.append((text, resolver.resolve(path, text).path))
        return out

    for path in ctx.pages:
        fm = ctx.vault.notes[path].frontmatter or {}
        line = ctx.vault.notes[path].key_lines.get("contradictions")
        if fm.get("contested") is True:
            conflicts = _claim_conflicts(ctx, path)
            for a, b in conflicts:
                yield ctx.finding(
                    "contradiction",
                    path,
                    a.line,
                    f"claims contradict each other since {max(a.start, b.start)}: '{_said(a.text)}' "
                    f"^[{a.cited}] and '{_said(b.text)}' ^[{b.cited}] (a later source, or a person editing "
                    "one of them, settles it)",
                )
            if not conflicts:
                yield ctx.finding(
                    "contradiction",
                    path,
                    ctx.vault.notes[path].key_lines.get("contested"),
                    "page is marked contested: its claims conflict with another source",
                    severity="info",
                )
        for text, target in named(path):
            if target is None:
                yield ctx.finding(
                    "contradiction", path, line, f"contradictions names '{text}', which does not exist", target=text
                )
            elif ctx.is_page(target) and path not in {t for _, t in named(target)}:
                yield ctx.finding(
                    "contradiction",
                    path,
                    line,
                    f"contradictions names '{text}', but '{target}' does not name this page back",
                    target=text,
                )


def _claim_conflicts(ctx: LintContext, path: str) -> list[tuple[Claim, Claim]]:
    """Pairs of dated claims on `path` that hold today and contradict each other (`wikic/facts/`)."""
    from wikic.facts.lookup import page_timeline  # only for pages marked contested: most runs never load it

    try:
        text = (ctx.vault.root / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [(a.claim, b.claim) for a, b in page_timeline(text).conflicts(ctx.today)]


def _said(text: str) -> str:
    from wikic.vault.formats.claims import plain_text

    plain = plain_text(text)
    return plain if len(plain) <= 100 else plain[:99] + "…"


@rule("page-too-long", "warning", "a page longer than max_page_lines (split it)")
def too_long(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("page-too-long")
    if not ctx.schema.present:
        return
    limit = ctx.schema.thresholds["max_page_lines"]
    for path in ctx.pages:
        lines = ctx.vault.notes[path].line_count
        if limit and lines > limit:
            yield ctx.finding(
                "page-too-long", path, None, f"page has {lines} lines; SCHEMA.md's max_page_lines is {limit}"
            )


@rule("duplicate-page", "warning", "two pages with the same title or alias", needs_schema=True)
def duplicates(ctx: LintContext) -> Iterator[Finding]:
    for name, pages in sorted(ctx.names.items()):
        unique = sorted(set(pages))
        if len(unique) > 1:
            for page in unique:
                others = ", ".join(p for p in unique if p != page)
                yield ctx.finding(
                    "duplicate-page",
                    page,
                    None,
                    f"title or alias '{name}' is also used by {others}: merge them or rename one",
                    target=name,
                )

