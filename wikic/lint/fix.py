"""`wikic lint --fix`: only safe, idempotent repairs.

- add pages missing from index.md (in their section, alphabetically, with their summary);
- drop index.md entries that point at pages that do not exist;
- retarget a broken link whose intended page is unambiguous by title or alias (`[[Sam Altman]]` ->
  `[[sam-altman|Sam Altman]]`).
Everything else is left for a person.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from wikic.lint.finding import Finding
from wikic.schema import load as load_schema
from wikic.pages.index_file import Entry, add_entries, remove_lines, render_index
from wikic.vault.layout import INDEX_FILE
from wikic.vault.parse import parse_note
from wikic.vault.write import write_atomic


@dataclass(frozen=True)
class FileChange:
    path: str
    before: str
    after: str

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(self.before.splitlines(True), self.after.splitlines(True), f"a/{self.path}", f"b/{self.path}")
        )


def plan_fixes(root: Path, findings: list[Finding]) -> list[FileChange]:
    root = Path(root)
    texts: dict[str, str] = {}  # path -> text with '\n' line ends, as it will be written (before CRLF is restored)
    crlf: set[str] = set()
    unreadable: set[str] = set()

    def text_of(path: str) -> str:
        if path not in texts:
            try:
                with open(root / path, encoding="utf-8", newline="") as fh:
                    raw = fh.read()
            except FileNotFoundError:
                raw = ""
            except (OSError, UnicodeDecodeError):
                unreadable.add(path)  # not UTF-8 or not readable: lint reports it; fix leaves it alone
                raw = ""
            if "\r\n" in raw:
                crlf.add(path)
                raw = raw.replace("\r\n", "\n")
            texts[path] = raw
        return texts[path]

    originals: dict[str, str] = {}
    replacements: dict[str, list[Finding]] = {}
    index_removals: set[int] = set()
    index_additions: list[str] = []
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
            index_additions.extend(_all_pages(root))

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
                    if _in_table(lines, i):  # a bare '|' would split the table cell (obsidian.md §1.1)
                        new = new.replace("\\|", "|").replace("|", "\\|")
                    lines[i] = lines[i][:at] + new + lines[i][at + len(f.fix.old) :]
        texts[path] = "\n".join(lines)

    if index_removals or index_additions:
        originals.setdefault(INDEX_FILE, text_of(INDEX_FILE))
        index = text_of(INDEX_FILE) or render_index([], list(load_schema(root).page_folders))
        if index_removals:
            index = remove_lines(index, index_removals)
        if index_additions:
            schema = load_schema(root)
            folder_types = schema.folder_types()
            entries = []
            for page in sorted(set(index_additions)):
                note = parse_note(page, (root / page).read_bytes())
                summary = (note.frontmatter or {}).get("summary") or (note.frontmatter or {}).get("title") or ""
                stem = page.rsplit("/", 1)[-1][:-3]
                link = stem if _unique_stem(root, stem) else page[:-3]
                entries.append(Entry(folder_types.get(page.split("/", 1)[0], "note"), link, str(summary)))
            index = add_entries(index, entries, list(schema.page_folders))
        texts[INDEX_FILE] = index

    def on_disk(path: str, text: str) -> str:
        return text.replace("\n", "\r\n") if path in crlf else text

    return [
        FileChange(p, on_disk(p, originals[p]), on_disk(p, texts[p]))
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


def _all_pages(root: Path) -> list[str]:
    from wikic.vault.load import walk

    folders = set(load_schema(root).page_folders.values())
    files, _ = walk(root)
    return [p for p in files if p.endswith(".md") and "/" in p and p.split("/", 1)[0] in folders]


def _unique_stem(root: Path, stem: str) -> bool:
    count = 0
    for path in root.rglob(f"{stem}.md"):
        if not any(part.startswith(".") for part in path.relative_to(root).parts):
            count += 1
    return count == 1


def apply(root: Path, changes: list[FileChange]) -> None:
    for change in changes:
        write_atomic(Path(root) / change.path, change.after, root=Path(root))
