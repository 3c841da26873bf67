"""frontmatter: invalid frontmatter, missing or mistyped fields, tags outside the taxonomy, bad names, unmet
thresholds.

Why: the frontmatter is what index.md, the overview, search and the compiler read of a page; SCHEMA.md's taxonomy
and thresholds are the vault's own rules.

Example: an entity page with no `sources:`, `type: concept` in `entities/`, or `tags: [misc]` where SCHEMA.md's
taxonomy has no `#misc`.

Fix: correct the field the finding names (docs/vault-format.md lists them); a SCHEMA.md line it names is corrected
in SCHEMA.md.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wikic.lint import kept_findings
from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.vault.fields import REQUIRED
from wikic.vault.frontmatter import unwrap_link
from wikic.vault.layout import RAW_DIR, SCHEMA_FILE
from wikic.vault.page_layout import CLAIMS, role_of
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import near

if TYPE_CHECKING:
    pass
from wikic.lint.rule import Rule
from wikic.lint.rules._schema import as_date

# Possessive: giving a space or a dash back never lets a row match, and a line of spaces tried both ways is quadratic.
_TABLE_DELIM = re.compile(r"^\s*+\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*+$")


def _kind(value: Any) -> str:
    return {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "a mapping", str: "text"}.get(
        type(value), type(value).__name__
    )


def frontmatter(ctx: LintContext) -> Iterator[Finding]:
    schema = ctx.schema
    for problem in schema.problems:
        # what SCHEMA.md cannot be read as meant stops ingest (exit 2): here it fails lint too
        severity = "error" if problem in schema.errors else "warning"
        yield ctx.finding("frontmatter", SCHEMA_FILE, problem.line, problem.message, severity=severity)
    from wikic.lint.rules import RULES

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
    yield from kept_findings.each_page(ctx, "frontmatter", ctx.pages,
                                       lambda path: _page(ctx, path, taxonomy, folder_types, naming),
                                       again=lambda delta, _: _citing_moved(ctx, delta))


def frontmatter_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    """The frontmatter findings of one page (SCHEMA.md's own are its file's)."""
    if not ctx.vault.is_plain_note(path):
        yield from ctx.problems_at("frontmatter", path)
    if ctx.is_page(path):
        schema = ctx.schema
        yield from _page(ctx, path, schema.tag_set, schema.folder_types(), schema.naming_pattern)


def _citing_moved(ctx: LintContext, delta: kept_findings.Delta) -> list[str]:
    """The pages citing a raw file added or removed: whether each raw file a page cites exists is what its
    frontmatter is judged from beside the page itself and SCHEMA.md (`Resolver.exists` ignores case)."""
    moved = {fold_name(path) for path in delta.added | delta.removed}
    if not any(path.startswith(RAW_DIR + "/") for path in moved):
        return []
    out = []
    for path in ctx.pages:
        fm = ctx.vault.notes[path].frontmatter
        listed = fm.get("sources") if fm is not None else None
        if isinstance(listed, list) and any(isinstance(s, str) and fold_name(unwrap_link(s)) in moved for s in listed):
            out.append(path)
    return out


def _page(
    ctx: LintContext, path: str, taxonomy: frozenset[str], folder_types: dict[str, str], naming: re.Pattern[str]
) -> Iterator[Finding]:
    """The frontmatter findings of one page."""
    schema = ctx.schema
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
        return
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


RULE = Rule(
    "frontmatter",
    "error",
    "invalid frontmatter, missing or mistyped fields, tags outside the taxonomy, bad names, unmet thresholds",
    needs_schema=True,
    check=frontmatter,
    at=frontmatter_at,
)
