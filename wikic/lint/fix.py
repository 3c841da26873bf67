"""`wikic lint --fix`: only safe, idempotent repairs.

- add pages missing from index.md (in their section, alphabetically, with their lead), and the line that
  leads to the overview;
- drop index.md entries that point at pages that do not exist;
- retarget a broken link whose intended page is unambiguous by title or alias (`[[Sam Altman]]` ->
  `[[sam-altman|Sam Altman]]`);
- write a hub again (`wikic/hubs/`): the overview, or the source page of a raw file that has none or misses
  a page built on it (a person's edits to a hub stay, as on every write of it);
- make a page's `summary` say what its lead says once a person edited the lead, and its index.md entry, the
  overview and its sources' pages with it (`wikic/hubs/leads.py`).
Everything else is left for a person.

In a wikic vault the repairs are planned and written under the vault lock, from a lint of the vault as it
is then, and written by `wikic.pages` through the journal: an ingest, `query --save` or another `--fix`
waits for them (and they for it), so neither writes over what the other just wrote. A file that changed
after the repairs were planned (a person's editor takes no lock) is left alone and reported. A folder that
is no wikic vault has no other wikic writer, and is given no `.wikic/` state: the repairs are written
directly, with the same check.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from wikic.context import VaultContext
from wikic.errors import VaultError
from wikic.lint.finding import Finding
from wikic.lint.run import LintOptions, LintReport, run_lint
from wikic.pages import journal
from wikic.pages.index_file import Entry, remove_lines, render_index, with_entries
from wikic.pages.lock import writer
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import INDEX_FILE, OVERVIEW_FILE, is_vault
from wikic.vault.lead import page_lead
from wikic.vault.link_text import LinkNames
from wikic.vault.load import walk
from wikic.vault.paths import read_inside
from wikic.vault.schema_md import Schema
from wikic.vault.write import remove_stale_temp_files


@dataclass
class FixResult:
    report: LintReport  # the lint after the repairs
    changes: list[FileChange] = field(default_factory=list)  # written
    skipped: list[str] = field(default_factory=list)  # changed after the repairs were planned: left alone


@dataclass(frozen=True)
class FileChange:
    path: str
    before: str | None  # None: there is no such file yet
    after: str

    def diff(self) -> str:
        before = (self.before or "").splitlines(True)
        return "".join(difflib.unified_diff(before, self.after.splitlines(True), f"a/{self.path}", f"b/{self.path}"))


def plan_fixes(context: VaultContext, findings: list[Finding], today: dt.date | None = None) -> list[FileChange]:
    root = Path(context.root)
    texts: dict[str, str] = {}  # path -> text with '\n' line ends, as it will be written (before CRLF is restored)
    crlf: set[str] = set()
    unreadable: set[str] = set()
    absent: set[str] = set()

    def text_of(path: str) -> str:
        if path not in texts:
            try:
                data = read_inside(root, root / path)
                raw = "" if data is None else data.decode("utf-8")  # line ends as they are: CRLF is kept
            except (OSError, UnicodeDecodeError, VaultError):
                # not UTF-8, not readable or a link out of the vault: lint reports it; fix leaves it alone
                unreadable.add(path)
                data, raw = b"", ""
            if data is None:
                absent.add(path)
            if "\r\n" in raw:
                crlf.add(path)
                raw = raw.replace("\r\n", "\n")
            texts[path] = raw
        return texts[path]

    originals: dict[str, str] = {}
    replacements: dict[str, list[Finding]] = {}
    index_removals: set[int] = set()
    index_additions: list[str] = []
    index_overview = False
    hub_sources: list[str] = []
    hub_overview = False
    leads: list[str] = []
    for f in findings:
        if f.fix is None:
            continue
        if f.fix.action == "replace" and f.fix.line and f.fix.old and f.fix.new:
            replacements.setdefault(f.fix.path, []).append(f)
        elif f.fix.action == "index-remove" and f.fix.line:
            index_removals.add(f.fix.line)
        elif f.fix.action == "index-add" and f.fix.path != INDEX_FILE:
            index_additions.append(f.fix.path)
        elif f.fix.action == "index-add":  # index.md itself is missing: list every page
            index_additions.extend(_all_pages(root, context.schema))
        elif f.fix.action == "index-overview":
            index_overview = True
        elif f.fix.action == "hub" and f.fix.path == OVERVIEW_FILE:
            hub_overview = True
        elif f.fix.action == "hub":
            hub_sources.append(f.fix.path)
        elif f.fix.action == "lead":
            leads.append(f.fix.path)

    for path, items in replacements.items():
        originals.setdefault(path, text_of(path))
        lines = text_of(path).split("\n")
        for f in sorted(items, key=lambda f: -(f.column or 0)):
            assert f.fix is not None and f.fix.line is not None and f.fix.old is not None and f.fix.new is not None
            i = f.fix.line - 1
            if 0 <= i < len(lines):
                col = (f.column or 1) - 1
                at = lines[i].find(f.fix.old, max(col, 0))
                if at < 0:
                    at = lines[i].find(f.fix.old)
                if at >= 0:
                    new = f.fix.new
                    # in an Obsidian table a bare '|' ends the cell: the alias bar is written `\\|`
                    if _in_table(lines, i):
                        new = new.replace("\\|", "|").replace("|", "\\|")
                    lines[i] = lines[i][:at] + new + lines[i][at + len(f.fix.old) :]
        texts[path] = "\n".join(lines)

    # a lead a person edited: the page's summary follows it, and the hubs below show it
    followed: dict[str, str] = {}  # page -> its text before
    for page in dict.fromkeys(leads):
        from wikic.hubs.leads import followed as followed_lead

        was = text_of(page)
        now = followed_lead(was) if page not in unreadable else was
        if now != was:
            originals.setdefault(page, was)
            texts[page] = now
            followed[page] = was

    hubs = None
    if (hub_sources or hub_overview or followed) and is_vault(root):
        from wikic.hubs import plan_hubs
        from wikic.hubs.view import listed_sources

        # the hubs are written from the vault as it is, but for the summaries that follow a lead: a page
        # retargeted above changes no hub
        cited = [raw for page in followed for raw in listed_sources(split_page(texts[page])[0] or {})]
        hubs = plan_hubs(root, context.schema, today or dt.date.today(), planned={p: texts[p] for p in followed},
                         sources=[*hub_sources, *cited], missing=False, changed=followed)
        for path, (before, after) in hubs.pages.items():
            originals[path] = before if before is not None else ""
            if before is None:
                absent.add(path)
            texts[path] = after

    if index_removals or index_additions or index_overview or (hubs is not None and hubs.entries):
        schema = context.schema
        types = list(schema.page_folders)
        originals.setdefault(INDEX_FILE, text_of(INDEX_FILE))
        index = text_of(INDEX_FILE) or render_index([], types)
        if index_removals:
            index = remove_lines(index, index_removals, types)
        entries = list(hubs.entries) if hubs is not None else []
        if index_additions:
            files, _ = walk(root)
            links = LinkNames(files)
            folder_types = schema.folder_types()
            for page in sorted(set(index_additions)):
                text = (read_inside(root, root / page) or b"").decode("utf-8", errors="replace")
                entries.append(Entry(folder_types.get(page.split("/", 1)[0], "note"), links.link_text(page),
                                     page_lead(text)))
        overview = (root / OVERVIEW_FILE).is_file() or (hubs is not None and OVERVIEW_FILE in hubs.pages)
        index = with_entries(index, entries, types, was=hubs.was if hubs is not None else None, overview=overview)
        texts[INDEX_FILE] = index

    def on_disk(path: str, text: str) -> str:
        return text.replace("\n", "\r\n") if path in crlf else text

    return [
        FileChange(p, None if p in absent else on_disk(p, originals[p]), on_disk(p, texts[p]))
        for p in sorted(originals)
        if originals[p] != texts[p] and p not in unreadable
    ]


_TABLE_DELIM = re.compile(r"^[\s>]*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def _in_table(lines: list[str], i: int) -> bool:
    """Whether line `i` is a row of a Markdown table: a run of '|' lines around it holds a delimiter row."""
    if "|" not in lines[i]:
        return False
    below = lines[i + 1] if i + 1 < len(lines) else ""
    if "|" in below and "-" in below and _TABLE_DELIM.match(below):
        return True  # the header row
    j = i
    while j >= 0 and "|" in lines[j] and lines[j].strip():
        if "-" in lines[j] and _TABLE_DELIM.match(lines[j]):
            return j < i
        j -= 1
    return False


def _all_pages(root: Path, schema: Schema) -> list[str]:
    folders = set(schema.page_folders.values())
    files, _ = walk(root)
    return [p for p in files if p.endswith(".md") and "/" in p and p.split("/", 1)[0] in folders]


def fix_vault(
    context: VaultContext, options: LintOptions = LintOptions(), *, label: str | None = None
) -> FixResult:
    """Lint the vault, plan the safe repairs and hand them to `wikic.pages`; then lint it again."""
    root = Path(context.root)
    types = context.page_types
    with _sole_writer(root, types) as wikic_vault:
        report = run_lint(context, options, label=label)
        changes = plan_fixes(context, report.findings, options.today)
        plan = journal.Journal()
        for change in changes:
            plan.add_page(change.path, change.before, change.after)
        # a wikic vault's repairs go through the journal; a plain folder keeps no state to journal in
        left = set(plan.commit(root, types) if wikic_vault else plan.apply(root, types))
    after = run_lint(context, options, label=label) if changes else report
    return FixResult(after, [c for c in changes if c.path not in left], sorted(left))


@contextmanager
def _sole_writer(root: Path, types: list[str]) -> Iterator[bool]:
    """Hold the vault lock (in a wikic vault) and finish a write a killed run left, before anything is read.
    Yields whether `root` is a wikic vault."""
    wikic_vault = is_vault(root)
    with writer(root, types, tidy=True) if wikic_vault else nullcontext():
        if not wikic_vault:
            remove_stale_temp_files(root)  # a fix killed half-way left its temporary file beside the note
        yield wikic_vault
