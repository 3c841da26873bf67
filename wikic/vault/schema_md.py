"""SCHEMA.md: the vault's domain, taxonomy, thresholds, naming and lint severities (docs/vault-format.md).

It reads the format users already write; unknown sections are prose for the LLM, unknown keys in known
sections are reported (as `frontmatter` warnings by lint), never a crash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from wikic.errors import SchemaError
from wikic.vault.layout import INBOX_DIR, PAGE_FOLDERS, RAW_DIR, SCHEMA_FILE
from wikic.vault.model import Problem

SEVERITIES = ("error", "warning", "info", "off")

THRESHOLD_DEFAULTS: dict[str, int] = {
    "entity_min_references": 2,
    # anchored claims (facts and memories, over its sources) a new entity page needs: a name the sources only
    # mention waits in the mentions ledger instead of becoming a page with nothing on it
    "entity_min_claims": 1,
    "concept_min_sections": 3,
    "comparison_min_axes": 3,
    "query_max_age_days": 90,
    "min_outbound_links": 2,
    "max_page_lines": 200,
    "stale_after_days": 90,
}

NAMING_PATTERNS: dict[str, re.Pattern[str]] = {
    # lowercase words of any script joined by single hyphens
    "lowercase-with-hyphens.md": re.compile(r"^(?:[^\W_A-Z]|\d)+(?:-(?:[^\W_A-Z]|\d)+)*\.md$"),
    "lowercase_with_underscores.md": re.compile(r"^(?:[^\W_A-Z]|\d)+(?:_(?:[^\W_A-Z]|\d)+)*\.md$"),
    "any": re.compile(r".*"),
}

_KNOWN_SECTIONS = ("domain", "taxonomy tags", "page thresholds", "naming convention", "lint", "page types")
# Folders a page type may not map to (compared without case: a case-insensitive disk holds `Raw` as `raw`).
RESERVED_FOLDERS = {RAW_DIR: "the sources", INBOX_DIR: "the person's own notes"}
_BULLET = re.compile(r"^\s*[-*+]\s+(.*?)\s*$")
_KEY_VALUE = re.compile(r"^`?([A-Za-z0-9_.\-/]+)`?\s*:\s*`?(.*?)`?\s*$")
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
    sections: dict[str, str] = field(default_factory=dict)  # heading -> body, for prompts
    text: str = ""
    problems: tuple[Problem, ...] = ()
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

    def folder_types(self) -> dict[str, str]:
        return {folder: kind for kind, folder in self.page_folders.items()}

    def prose(self) -> str:
        """Everything a prompt should see about the wiki's conventions, minus machine-only sections."""
        keep = [f"## {h}\n{b.strip()}" for h, b in self.sections.items() if h.lower() not in ("lint",)]
        return "\n\n".join(keep)


def plain_vault_schema() -> Schema:
    return Schema(present=False, page_folders={})


def load(root: Path) -> Schema:
    path = root / SCHEMA_FILE
    if not path.is_file():
        return plain_vault_schema()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{SCHEMA_FILE} is not UTF-8 text (byte offset {exc.start})") from exc
    except OSError as exc:
        raise SchemaError(f"cannot read {SCHEMA_FILE}: {exc.strerror}") from exc
    return parse(text)


def parse(text: str) -> Schema:
    sections: dict[str, list[tuple[int, str]]] = {}
    order: list[str] = []
    current: str | None = None
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if line.startswith("## "):
            current = line[3:].strip()
            sections.setdefault(current, [])
            order.append(current)
        elif current is not None:
            sections[current].append((number, line))
    problems: list[Problem] = []
    by_key = {h.lower(): h for h in order}

    def body(name: str) -> list[tuple[int, str]]:
        return sections.get(by_key.get(name, ""), [])

    domain = " ".join(line.strip() for _, line in body("domain") if line.strip())
    tags: list[str] = []
    for _, line in body("taxonomy tags"):
        m = _BULLET.match(line)
        if m:
            tag = _TAG.match(m.group(1))
            if tag:
                tags.append(tag.group(1).lower())

    thresholds = dict(THRESHOLD_DEFAULTS)
    for number, line in body("page thresholds"):
        m = _BULLET.match(line)
        if not m:
            continue
        kv = _KEY_VALUE.match(m.group(1))
        if not kv:
            problems.append(
                Problem(
                    "frontmatter",
                    number,
                    f"{SCHEMA_FILE}: cannot read threshold '{m.group(1)}' (expected 'key: number')",
                )
            )
            continue
        key, value = kv.group(1), kv.group(2)
        if key not in THRESHOLD_DEFAULTS:
            problems.append(
                Problem(
                    "frontmatter",
                    number,
                    f"{SCHEMA_FILE}: unknown threshold '{key}' (known: {', '.join(THRESHOLD_DEFAULTS)})",
                )
            )
            continue
        try:
            number_value = int(value)
            if number_value < 0:
                raise ValueError
        except ValueError:
            problems.append(
                Problem(
                    "frontmatter",
                    number,
                    f"{SCHEMA_FILE}: threshold '{key}' must be a whole number >= 0, not '{value}'",
                )
            )
            continue
        thresholds[key] = number_value

    naming = "lowercase-with-hyphens.md"
    for number, line in body("naming convention"):
        m = _BULLET.match(line)
        if m:
            value = m.group(1).strip("` ")
            if value in NAMING_PATTERNS:
                naming = value
            else:
                problems.append(
                    Problem(
                        "frontmatter",
                        number,
                        f"{SCHEMA_FILE}: unknown naming convention '{value}' (known: {', '.join(NAMING_PATTERNS)})",
                    )
                )
            break

    severities: dict[str, str] = {}
    severity_lines: dict[str, int] = {}
    for number, line in body("lint"):
        m = _BULLET.match(line)
        if not m:
            continue
        kv = _KEY_VALUE.match(m.group(1))
        if not kv or kv.group(2).lower() not in SEVERITIES:
            problems.append(
                Problem(
                    "frontmatter",
                    number,
                    f"{SCHEMA_FILE}: lint severity must read 'rule-id: error|warning|info|off', not '{m.group(1)}'",
                )
            )
            continue
        severities[kv.group(1)] = kv.group(2).lower()
        severity_lines[kv.group(1)] = number

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
            problems.append(
                Problem("frontmatter", number, f"{SCHEMA_FILE}: page type must read 'type: folder', not '{m.group(1)}'")
            )
            continue
        kind, folder = kv.group(1), kv.group(2)
        taken = {f.lower(): f"the {k} pages" for k, f in folders.items() if k != kind}
        owner = RESERVED_FOLDERS.get(folder.lower()) or taken.get(folder.lower())
        if owner:  # pages written there would mix with the sources, the inbox or another type's pages
            problems.append(
                Problem("frontmatter", number, f"{SCHEMA_FILE}: page type '{kind}' cannot use the folder '{folder}', "
                        f"which holds {owner}")
            )
            continue
        folders[kind] = folder

    if not any(line.startswith("# ") for line in text.split("\n")[:5]):
        problems.append(Problem("frontmatter", 1, f"{SCHEMA_FILE}: expected a '# Wiki Schema' title"))
    if "domain" not in by_key:
        problems.append(Problem("frontmatter", None, f"{SCHEMA_FILE}: no '## Domain' section"))
    if not tags:
        problems.append(Problem("frontmatter", None, f"{SCHEMA_FILE}: no tags under '## Taxonomy Tags'"))

    return Schema(
        domain=domain,
        tags=tuple(dict.fromkeys(tags)),
        thresholds=thresholds,
        naming=naming,
        severities=severities,
        severity_lines=severity_lines,
        page_folders=folders,
        sections={h: "\n".join(line for _, line in sections[h]) for h in order},
        text=text,
        problems=tuple(problems),
        present=True,
    )
