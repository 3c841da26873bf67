"""SCHEMA.md: the vault's domain, taxonomy, thresholds, naming and lint severities (docs/vault-format.md).

It reads the format users already write. A section it does not know is prose for the model, whatever its
name (`## Style`, `## Notes for the model`). What it cannot read as meant is an error (`Schema.errors`): a
heading or key that is a near miss of a known one (`## Lints`, `entity_min_reference`), or a known key
whose value is not one it takes (`two`, an unknown naming convention or severity). The commands that act
on the schema refuse such a file (`checked`, as `VaultContext.checked_schema` calls it: exit 2, each line
with its number and what it should say); lint reports every problem as a `frontmatter` finding (the
errors as errors), never a crash. The rest (an unknown threshold like no known one, no domain, no tags) are
warnings only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from wikic.errors import SchemaError
from wikic.vault.layout import HUB_TYPES, INBOX_DIR, PAGE_FOLDERS, RAW_DIR, SCHEMA_FILE
from wikic.vault.model import Problem
from wikic.vault.page_layout import CLAIMS, DEFAULT_LAYOUTS, Layout, layout_for, role_of
from wikic.vault.paths import read_text_inside

SEVERITIES = ("error", "warning", "info", "off")

THRESHOLD_DEFAULTS: dict[str, int] = {
    "entity_min_references": 2,
    # anchored claims (facts and memories, over its sources) a new entity page needs: a name the sources only
    # mention waits in the mentions ledger instead of becoming a page with nothing on it
    "entity_min_claims": 1,
    "concept_min_sections": 2,
    "comparison_min_axes": 3,
    "query_max_age_days": 90,
    "min_outbound_links": 2,
    "max_page_lines": 200,
    "stale_after_days": 90,
    # cited statements (claims; sentences and items with an anchor where a section has no claim lines) a
    # section of a page's layout must hold for lint's `thin-section`: 1 flags a heading over nothing cited
    "min_section_claims": 1,
}
# The largest value each threshold takes (the smallest is 0): beyond it a value is a slip of the keyboard.
THRESHOLD_MAX: dict[str, int] = {
    "entity_min_references": 1000,
    "entity_min_claims": 1000,
    "concept_min_sections": 1000,
    "comparison_min_axes": 1000,
    "query_max_age_days": 36_500,
    "min_outbound_links": 1000,
    "max_page_lines": 10_000_000,
    "stale_after_days": 36_500,
    "min_section_claims": 1000,
}

NAMING_PATTERNS: dict[str, re.Pattern[str]] = {
    # lowercase words of any script joined by single hyphens
    "lowercase-with-hyphens.md": re.compile(r"^(?:[^\W_A-Z]|\d)+(?:-(?:[^\W_A-Z]|\d)+)*\.md$"),
    "lowercase_with_underscores.md": re.compile(r"^(?:[^\W_A-Z]|\d)+(?:_(?:[^\W_A-Z]|\d)+)*\.md$"),
    "any": re.compile(r".*"),
}

# The sections wikic reads as settings, as the docs write them.
SECTIONS = ("Domain", "Taxonomy Tags", "Page Thresholds", "Naming Convention", "Lint", "Page Types", "Page Layouts")
# One word of a known section's name, which a person may well write for the whole of it.
_SHORT_NAMES = {
    "tags": "Taxonomy Tags",
    "taxonomy": "Taxonomy Tags",
    "thresholds": "Page Thresholds",
    "naming": "Naming Convention",
    "types": "Page Types",
    "layouts": "Page Layouts",
    "layout": "Page Layouts",
}
_HEADING = re.compile(r"^(#{1,6})(\s*)(.*?)(?:\s+#+)?\s*$")
# Folders a page type may not map to (compared without case: a case-insensitive disk holds `Raw` as `raw`).
RESERVED_FOLDERS = {RAW_DIR: "the sources", INBOX_DIR: "the person's own notes"}
_BULLET = re.compile(r"^\s*[-*+]\s+(.*?)\s*$")
_KEY_VALUE = re.compile(r"^`?([A-Za-z0-9_.\-/]+)`?\s*:\s*`?(.*?)`?\s*$")
_KEY_FIRST = re.compile(r"^`?([A-Za-z0-9_\-]+)")
_TAG = re.compile(r"#?([^\s#,;:()\[\]]+)")


@dataclass(frozen=True)
class Schema:
    domain: str = ""
    tags: tuple[str, ...] = ()
    thresholds: dict[str, int] = field(default_factory=lambda: dict(THRESHOLD_DEFAULTS))
    naming: str = "lowercase-with-hyphens.md"
    severities: dict[str, str] = field(default_factory=dict)
    severity_lines: dict[str, int] = field(default_factory=dict)  # rule id -> its line in SCHEMA.md
    page_folders: dict[str, str] = field(default_factory=lambda: dict(PAGE_FOLDERS))
    layouts: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEFAULT_LAYOUTS))
    sections: dict[str, str] = field(default_factory=dict)  # heading -> body, for prompts
    text: str = ""
    problems: tuple[Problem, ...] = ()  # everything lint reports, in line order
    errors: tuple[Problem, ...] = ()  # those of `problems` that keep the file from being read as meant
    present: bool = True  # False: no SCHEMA.md (a plain Obsidian vault)

    def __getattr__(self, name: str) -> int:
        # schema.entity_min_references etc.
        thresholds = object.__getattribute__(self, "thresholds")
        if name in thresholds:
            return thresholds[name]
        raise AttributeError(name)

    @property
    def tag_set(self) -> frozenset[str]:
        return frozenset(t.lower() for t in self.tags)

    @property
    def naming_pattern(self) -> re.Pattern[str]:
        return NAMING_PATTERNS.get(self.naming, NAMING_PATTERNS["any"])

    def layout(self, kind: str) -> Layout:
        """The sections of a page of type `kind`, in order (`page_layout.py`)."""
        return layout_for(self.layouts, kind)

    def folder_types(self) -> dict[str, str]:
        return {folder: kind for kind, folder in self.page_folders.items()}

    def prose(self) -> str:
        """Everything a prompt should see about the wiki's conventions, minus machine-only sections."""
        keep = [f"## {h}\n{b.strip()}" for h, b in self.sections.items() if _normal(h) != "lint"]
        return "\n\n".join(keep)


def plain_vault_schema() -> Schema:
    return Schema(present=False, page_folders={})


def load(root: Path) -> Schema:
    """SCHEMA.md as lint reads it: whatever it holds, with its problems (no SCHEMA.md: a plain vault).
    VaultError when it is a link leading outside the vault: another file's text never reaches the model."""
    path = root / SCHEMA_FILE
    if not path.is_file():
        return plain_vault_schema()
    try:
        text = read_text_inside(root, path, encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SchemaError(
            f"{SCHEMA_FILE} is not UTF-8 text (byte offset {exc.start})", hint=f"save {path} as UTF-8"
        ) from exc
    except OSError as exc:
        raise SchemaError(
            f"cannot read {SCHEMA_FILE}: {exc.strerror}", hint=f"check that {path} is a file you may read"
        ) from exc
    return plain_vault_schema() if text is None else parse(text)


def checked(schema: Schema, root: Path) -> Schema:
    """`schema` (the SCHEMA.md of the vault at `root`) when it can be read as meant, else SchemaError."""
    if schema.errors:
        path = Path(root) / SCHEMA_FILE
        lines = [f"  {path}:{p.line}: {p.message}" if p.line else f"  {path}: {p.message}" for p in schema.errors]
        raise SchemaError(
            f"{SCHEMA_FILE} cannot be read as meant:\n" + "\n".join(lines),
            hint=f"fix these lines in {path} (`wikic lint` lists them too); sections other than "
            f"{', '.join(SECTIONS[:-1])} and {SECTIONS[-1]} are prose for the model, named as you like but for a "
            "near miss of these",
        )
    return schema


def _normal(name: str) -> str:
    """A name as compared: case, `-`, `_`, spaces and a trailing colon do not count."""
    return " ".join(re.sub(r"[-_\s]+", " ", name.strip().rstrip(":")).lower().split())


def _edits(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) from `a` to `b`."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def near(word: str, known: Iterable[str], *, prefix: bool = False) -> str | None:
    """The known name `word` stands for: the same but for case and separators, or a slip of the keyboard
    (a letter or two wrong, missing or swapped; a word left out), starting with the same letter as typos
    do; with `prefix`, also a shortening (`warn`). None: `word` is a name of its own."""
    w = _normal(word)
    best: str | None = None
    best_score = (0, 0.0)
    for name in known:
        n = _normal(name)
        if w == n:
            return name
        if not w or not n or w[0] != n[0]:
            continue
        distance = _edits(w, n)
        ratio = difflib.SequenceMatcher(None, w, n).ratio()
        close = distance <= (1 if len(n) <= 6 else 2) or ratio >= 0.8 or (prefix and len(w) >= 3 and n.startswith(w))
        if close and (best is None or (distance, -ratio) < best_score):
            best, best_score = name, (distance, -ratio)
    return best


class _Reader:
    """Collects the problems of one SCHEMA.md: `error` for what cannot be read as meant, `warn` for the rest."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.errors: list[Problem] = []

    def warn(self, line: int | None, message: str) -> None:
        self.problems.append(Problem("frontmatter", line, message))

    def error(self, line: int | None, message: str) -> None:
        problem = Problem("frontmatter", line, message)
        self.problems.append(problem)
        self.errors.append(problem)


def parse(text: str) -> Schema:
    sections: dict[str, list[tuple[int, str]]] = {}
    order: list[str] = []
    heading_lines: dict[str, int] = {}  # a '## ' heading -> its first line
    other_headings: list[tuple[int, str, str]] = []  # (line, as written, its text): a heading of another level
    current: str | None = None
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        heading = _HEADING.match(line)
        if line.startswith("## ") and heading:
            current = heading.group(3).strip()
            sections.setdefault(current, [])
            heading_lines.setdefault(current, number)
            order.append(current)
            continue
        if heading and (heading.group(1) != "#" or heading.group(2)):  # `#tag` alone is a tag, not a heading
            other_headings.append((number, line.strip(), heading.group(3).strip()))
        if current is not None:
            sections[current].append((number, line))
    read = _Reader()
    by_key = {_normal(h): h for h in reversed(order)}  # the first of two equal headings is the one read

    def body(name: str) -> list[tuple[int, str]]:
        return sections.get(by_key.get(_normal(name), ""), [])

    _check_headings(read, heading_lines, other_headings, by_key)

    domain = " ".join(line.strip() for _, line in body("domain") if line.strip())
    tags: list[str] = []
    for _, line in body("taxonomy tags"):
        m = _BULLET.match(line)
        if m:
            tag = _TAG.match(m.group(1))
            if tag:
                tags.append(tag.group(1).lower())

    thresholds = _thresholds(read, body("page thresholds"))
    naming = _naming(read, body("naming convention"))
    severities, severity_lines = _severities(read, body("lint"))

    folders = dict(PAGE_FOLDERS)
    for number, line in body("page types"):
        m = _BULLET.match(line)
        if not m:
            continue
        kv = _KEY_VALUE.match(m.group(1))
        if (
            not kv
            or not re.fullmatch(r"[a-z][a-z0-9_-]*", kv.group(1))
            or not re.fullmatch(r"[A-Za-z0-9_-]+", kv.group(2))
        ):
            read.error(number, f"page type must read 'type: folder' (e.g. 'person: people'), not '{m.group(1)}'")
            continue
        kind, folder = kv.group(1), kv.group(2)
        taken = {f.lower(): f"the {k} pages" for k, f in folders.items() if k != kind}
        owner = RESERVED_FOLDERS.get(folder.lower()) or taken.get(folder.lower())
        if owner:  # pages written there would mix with the sources, the inbox or another type's pages
            read.error(number, f"page type '{kind}' cannot use the folder '{folder}', which holds {owner}")
            continue
        folders[kind] = folder

    layouts = _layouts(read, body("page layouts"), folders)

    if not any(line.startswith("# ") for line in text.split("\n")[:5]):
        read.warn(1, "expected a '# Wiki Schema' title")
    if "domain" not in by_key:
        read.warn(None, "no '## Domain' section")
    if not tags:
        read.warn(None, "no tags under '## Taxonomy Tags'")

    by_line = sorted(read.problems, key=lambda p: (p.line is None, p.line or 0))
    return Schema(
        domain=domain,
        tags=tuple(dict.fromkeys(tags)),
        thresholds=thresholds,
        naming=naming,
        severities=severities,
        severity_lines=severity_lines,
        page_folders=folders,
        layouts=layouts,
        sections={h: "\n".join(line for _, line in sections[h]) for h in order},
        text=text,
        problems=tuple(by_line),
        errors=tuple(p for p in by_line if p in read.errors),
        present=True,
    )


def _layouts(read: _Reader, lines: list[tuple[int, str]], folders: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """`## Page Layouts`: `- type: Section, Section, ...` per page type (the built-in ones by default)."""
    layouts = dict(DEFAULT_LAYOUTS)
    for number, line in lines:
        m = _BULLET.match(line)
        if not m:
            continue
        kind, sep, listed = m.group(1).partition(":")
        kind = kind.strip().strip("`").lower()
        names = tuple(dict.fromkeys(" ".join(n.split()) for n in listed.split(",") if n.strip()))
        if not sep or not names:
            read.error(number, f"a page layout must read 'type: Section, Section, ...', not '{m.group(1)}'")
            continue
        fixed = {"query", *HUB_TYPES}  # written by code in a shape of their own
        if kind not in folders or kind in fixed:
            said = near(kind, [k for k in folders if k not in fixed])
            read.error(number, f"no page type '{kind}' to lay out" + (f"; did you mean '{said}'?" if said else "")
                       + " (query pages keep the layout of a filed answer, source pages their own)")
            continue
        if not any(role_of(n) == CLAIMS for n in names):
            read.error(number, f"the layout of '{kind}' has no section for claims (besides History, Relations, "
                       "Contradictions, Open questions, Comparison)")
            continue
        bad = [n for n in names if len(n) > 60 or not re.search(r"\w", n) or "#" in n or "[" in n]
        if bad:
            read.error(number, f"'{bad[0]}' cannot be a section heading (at most 60 characters, no '#' or '[')")
            continue
        layouts[kind] = names
    return layouts


def _check_headings(
    read: _Reader, heading_lines: dict[str, int], other_headings: list[tuple[int, str, str]], by_key: dict[str, str]
) -> None:
    """A heading meant for a known section that wikic would not read: a near miss of its name, or its name
    at another level. Only while that section is missing: next to it, a look-alike is the person's prose."""
    missing = [name for name in SECTIONS if _normal(name) not in by_key]
    for heading, number in heading_lines.items():
        meant = _SHORT_NAMES.get(_normal(heading)) or near(heading, SECTIONS)
        if meant in missing:
            read.error(
                number,
                f"'## {heading}' is not a section wikic reads; did you mean '## {meant}'?",
            )
    for number, written, heading in other_headings:
        meant = next((name for name in SECTIONS if _normal(name) == _normal(heading)), None)
        if meant in missing:
            read.error(number, f"'{written}' is not read as a section: write it '## {meant}'")


def _thresholds(read: _Reader, lines: list[tuple[int, str]]) -> dict[str, int]:
    thresholds = dict(THRESHOLD_DEFAULTS)
    given: dict[str, tuple[int, int]] = {}  # key -> (line, value)
    for number, line in lines:
        m = _BULLET.match(line)
        if not m:
            continue
        kv = _KEY_VALUE.match(m.group(1))
        if not kv:
            first = _KEY_FIRST.match(m.group(1))
            meant = near(first.group(1), THRESHOLD_DEFAULTS) if first else None
            if meant is not None:
                read.error(number, f"cannot read threshold '{m.group(1)}': write it '{meant}: NUMBER'")
            else:
                read.warn(number, f"cannot read threshold '{m.group(1)}' (expected 'key: number')")
            continue
        written, value = kv.group(1), kv.group(2)
        key = near(written, THRESHOLD_DEFAULTS)
        if key is None:
            read.warn(number, f"unknown threshold '{written}' (known: {', '.join(THRESHOLD_DEFAULTS)})")
            continue
        if _normal(key) != _normal(written):
            read.error(number, f"unknown threshold '{written}'; did you mean '{key}'?")
            continue
        top = THRESHOLD_MAX[key]
        if not re.fullmatch(r"\d{1,12}", value) or int(value) > top:
            read.error(number, f"threshold '{key}' must be a whole number from 0 to {top:,}, not '{value}'")
            continue
        if key in given and given[key][1] != int(value):
            read.error(number, f"threshold '{key}' is set twice: line {given[key][0]} says {given[key][1]}, this "
                       f"line {int(value)}; keep one")
            continue
        given[key] = (number, int(value))
        thresholds[key] = int(value)
    return thresholds


def _naming(read: _Reader, lines: list[tuple[int, str]]) -> str:
    for number, line in lines:
        m = _BULLET.match(line)
        if not m:
            continue
        value = m.group(1).strip("` ")
        if value in NAMING_PATTERNS:
            return value
        meant = near(value, NAMING_PATTERNS, prefix=True)
        said = f"; did you mean '{meant}'?" if meant else ""
        read.error(number, f"unknown naming convention '{value}'{said} (known: {', '.join(NAMING_PATTERNS)})")
        break
    return "lowercase-with-hyphens.md"


def _severities(read: _Reader, lines: list[tuple[int, str]]) -> tuple[dict[str, str], dict[str, int]]:
    severities: dict[str, str] = {}
    severity_lines: dict[str, int] = {}
    for number, line in lines:
        m = _BULLET.match(line)
        if not m:
            continue
        kv = _KEY_VALUE.match(m.group(1))
        if not kv:
            read.warn(number, f"lint severity must read 'rule-id: error|warning|info|off', not '{m.group(1)}'")
            continue
        rule_id, value = kv.group(1), kv.group(2)
        if value.lower() not in SEVERITIES:
            meant = near(value, SEVERITIES, prefix=True)
            said = f"; did you mean '{meant}'?" if meant else ""
            read.error(number, f"the severity of '{rule_id}' must be error, warning, info or off, not '{value}'{said}")
            continue
        severities[rule_id] = value.lower()
        severity_lines[rule_id] = number
    return severities, severity_lines
