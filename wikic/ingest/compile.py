"""The compiler: an anchored plan becomes pages. Code decides every file name, link, tag and line of
frontmatter; the model's words only fill compiler-owned blocks (see `blocks.py`).

One `Compiler` serves a whole run: it keeps the texts it has planned in memory, so a later source in the
same run sees the pages an earlier one created (gather, then write).
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wikic.ingest.blocks import merge_blocks
from wikic.ingest.ledgers import Mentions
from wikic.ingest.names import PageNames, lookup_keys, name_keys
from wikic.ingest.plan_model import Comparison, Concept, Entity, Plan, Relation
from wikic.ingest.render import clean_text, clean_title, link, linkify, table_cell
from wikic.schema import Schema
from wikic.vault import frontmatter as fm_parser
from wikic.vault.index_file import Entry
from wikic.vault.slug import slugify

FM_ORDER = ("title", "created", "updated", "type", "tags", "aliases", "sources", "summary")
KIND_TAGS = {
    "person": ("person", "people"),
    "organization": ("organization", "org", "company"),
    "product": ("product", "tool", "tooling"),
    "model": ("model", "llm"),
    "dataset": ("dataset", "data"),
    "place": ("place", "location"),
    "event": ("event",),
}


@dataclass
class SourceResult:
    raw_path: str
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # names waiting below a threshold
    dropped_facts: int = 0  # claims whose quote was not found in the source
    dropped_items: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # "path: block" left alone (a person edited it)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # never "&id001" anchors: Obsidian shows them verbatim
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML may write U+0085/U+2028/U+2029 raw in a single-quoted scalar, where a reader folds them into a
    # space; double quotes escape them (\N, \L, \P), so the value reads back as it was.
    style = '"' if any(c in value for c in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


# libyaml's emitter is ~5x faster than PyYAML's, and a page's frontmatter is dumped again for every source
# that touches it. The two write the same bytes except for text holding control characters (line folding
# of double-quoted strings), U+0085/U+2028/U+2029, a BOM, or characters outside the BMP (libyaml escapes
# them): such frontmatter keeps the pure-Python emitter, so a page's bytes never depend on which one ran.
if getattr(yaml, "__with_libyaml__", False):

    class _FastDumper(yaml.CSafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

else:  # pragma: no cover - PyYAML built without libyaml
    _FastDumper = _Dumper  # type: ignore[misc]

_NOT_FAST = re.compile("[^ -~\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")


def _fast_safe(value: Any) -> bool:
    if isinstance(value, str):
        return _NOT_FAST.search(value) is None
    if isinstance(value, dict):
        return all(_fast_safe(k) and _fast_safe(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(_fast_safe(v) for v in value)
    return True


REQUIRED_KEYS = ("title", "created", "updated", "type", "tags", "sources")


def dump_frontmatter(data: dict[str, Any]) -> str:
    ordered = {k: data[k] for k in FM_ORDER if k in data and (k in REQUIRED_KEYS or data[k] not in (None, [], ""))}
    ordered.update({k: v for k, v in data.items() if k not in ordered and k not in FM_ORDER})
    dumper = _FastDumper if _fast_safe(ordered) else _Dumper
    text = yaml.dump(ordered, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)
    return f"---\n{text}---\n"


def split_page(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter, body) of a page; frontmatter None when it is missing or unreadable."""
    split = fm_parser.split(text)
    if split.yaml_text is None:
        return None, text
    parsed = fm_parser.parse(split.yaml_text)
    if parsed.data is None:
        return None, text
    body = "\n".join(text.split("\n")[split.block_lines :])
    return dict(parsed.data), body


def pick_tags(text: str, kind: str, taxonomy: tuple[str, ...], limit: int = 3) -> list[str]:
    """Taxonomy tags whose words appear in the page's text, plus the tag for the entity's kind."""
    chosen: list[str] = []
    low = text.lower()
    wanted = KIND_TAGS.get(kind.lower(), (kind.lower(),)) if kind else ()
    for tag in taxonomy:
        if tag in wanted and tag not in chosen:
            chosen.append(tag)
    for tag in taxonomy:
        words = tag.replace("-", " ").replace("_", " ").replace("/", " ")
        if tag not in chosen and re.search(r"(?<!\w)" + re.escape(words) + r"(?!\w)", low):
            chosen.append(tag)
    return chosen[:limit]


class Compiler:
    def __init__(self, root: Path, schema: Schema, names: PageNames, mentions: Mentions, stems: dict[str, int], today: dt.date) -> None:
        self.root = root
        self.schema = schema
        self.names = names
        self.mentions = mentions
        self.stems = stems  # folded file stem -> how many files carry it (for unambiguous link text)
        self.today = today
        self.texts: dict[str, str] = {}  # path -> planned text
        self.originals: dict[str, str | None] = {}  # path -> text on disk before this run (None: new)
        self.index_entries: list[Entry] = []

    # -- reading ---------------------------------------------------------------------------------------

    def text(self, path: str) -> str | None:
        if path in self.texts:
            return self.texts[path]
        try:
            text = (self.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        self.originals.setdefault(path, text)
        return text

    def _put(self, path: str, text: str) -> None:
        if path not in self.originals:
            self.originals[path] = None if not (self.root / path).exists() else (self.root / path).read_text(encoding="utf-8", errors="replace")
        self.texts[path] = text

    def link_text(self, path: str) -> str:
        stem = posixpath.basename(path)[:-3]
        return stem if self.stems.get(stem.lower(), 0) <= 1 else path[:-3]

    # -- naming ----------------------------------------------------------------------------------------

    def new_path(self, page_type: str, name: str) -> str:
        folder = self.schema.page_folders.get(page_type, page_type + "s")
        base = slugify(name) or "page"
        candidate = f"{folder}/{base}.md"
        n = 2
        while (self.root / candidate).exists() or candidate in self.texts or self.stems.get(posixpath.basename(candidate)[:-3].lower(), 0):
            candidate = f"{folder}/{base}-{n}.md"
            n += 1
        self.stems[posixpath.basename(candidate)[:-3].lower()] = 1
        return candidate

    # -- compiling ------------------------------------------------------------------------------------

    def compile(self, plan: Plan, raw_path: str) -> SourceResult:
        result = SourceResult(raw_path)
        src = raw_path
        t = self.schema.thresholds
        touched: dict[str, tuple[str, Any]] = {}  # path -> (kind, item)
        fresh: dict[str, tuple[str, dict[str, Any]]] = {}  # new path -> (kind, ledger item)

        for entity in plan.entities:
            facts = [f for f in entity.facts if f.anchored]
            result.dropped_facts += len(entity.facts) - len(facts)
            rels = [r for r in plan.relations if _same(r.source, entity.name) and r.fact.anchored]
            payload = {"facts": [[f.text, str(f.anchor)] for f in facts], "relations": [[r.relation, r.target, str(r.fact.anchor)] for r in rels]}
            self._place("entity", entity.name, list(entity.aliases), entity.summary, payload, src, t["entity_min_references"], touched, fresh, result, entity)

        for concept in plan.concepts:
            sections: dict[str, list[list[str]]] = {}
            for section in concept.sections:
                facts = [f for f in section.facts if f.anchored]
                result.dropped_facts += len(section.facts) - len(facts)
                if facts:
                    sections.setdefault(clean_text(section.heading, 80), []).extend([f.text, str(f.anchor)] for f in facts)
            payload = {"sections": sections}
            self._place("concept", concept.name, [], concept.summary, payload, src, 1, touched, fresh, result, concept)

        for comparison in plan.comparisons:
            self._comparison(comparison, src, touched, fresh, result)

        # Link names: every page this source touches, and existing pages its relations name.
        link_names: dict[str, str] = {}
        for path in [*touched, *fresh]:
            for label in self.names.labels.get(path, []):
                if label:
                    link_names.setdefault(label, self.link_text(path))
        for relation in plan.relations:
            target = self.names.lookup(relation.target)
            if target:
                link_names.setdefault(relation.target, self.link_text(target))
        siblings = sorted({*touched, *fresh})

        for path, (kind, item) in fresh.items():
            self._write_new(path, kind, item, src, link_names, siblings, result)
        for path, (kind, item) in touched.items():
            if path in fresh:
                continue
            self._update(path, kind, item, src, link_names, siblings, result)
        return result

    def _place(self, kind: str, name: str, aliases: list[str], summary: str, payload: dict[str, Any], src: str, threshold: int,
               touched: dict[str, tuple[str, Any]], fresh: dict[str, tuple[str, dict[str, Any]]], result: SourceResult, item: Any) -> None:
        title = clean_title(name)
        if not title:
            result.dropped_items.append(f"{kind} with an empty name")
            return
        aliases = [a for a in dict.fromkeys(clean_title(a) for a in aliases) if a]  # they reach frontmatter too
        path = self.names.lookup(title, aliases)
        if path is not None:
            touched[path] = (kind, {"name": title, "aliases": aliases, "summary": summary, "sources": {src: payload}, "kind_detail": getattr(item, "kind", "")})
            return
        key = f"{kind}:{slugify(title) or title.lower()}"
        entry = self.mentions.add(key, kind, title, aliases, clean_text(summary, 300), src, payload)
        entry["kind_detail"] = getattr(item, "kind", "") or entry.get("kind_detail", "")
        enough = len(entry["sources"]) >= max(threshold, 1)
        if kind == "concept":
            headings = {h for p in entry["sources"].values() for h in p.get("sections", {})}
            enough = len(headings) >= self.schema.thresholds["concept_min_sections"]
        if not enough:
            result.pending.append(title)
            return
        path = self.new_path(kind, title)
        self.names.add(path, title, entry["aliases"])
        fresh[path] = (kind, entry)
        self.mentions.pop(key)

    def _comparison(self, comparison: Comparison, src: str, touched: dict[str, tuple[str, Any]], fresh: dict[str, tuple[str, dict[str, Any]]], result: SourceResult) -> None:
        title = clean_title(comparison.name)
        subjects = [clean_title(s) for s in comparison.subjects if clean_title(s)]
        rows = []
        for axis in comparison.axes:
            cells = {}
            for cell in axis.values:
                if cell.fact.anchored:
                    cells[clean_title(cell.subject).lower()] = [cell.fact.text, str(cell.fact.anchor)]
                else:
                    result.dropped_facts += 1
            if cells:
                rows.append([clean_title(axis.axis), cells])
        if len(subjects) < 2 or len(rows) < self.schema.thresholds["comparison_min_axes"] or not title:
            result.dropped_items.append(f"comparison '{title}' ({len(subjects)} subjects, {len(rows)} anchored axes)")
            return
        item = {"name": title, "aliases": [], "summary": f"{', '.join(subjects)} compared on {len(rows)} axes.", "sources": {src: {"subjects": subjects, "rows": rows}}}
        path = self.names.lookup(title)
        if path is not None:
            touched[path] = ("comparison", item)
            return
        path = self.new_path("comparison", title)
        self.names.add(path, title, [])
        fresh[path] = ("comparison", item)

    # -- rendering -----------------------------------------------------------------------------------

    def _blocks(self, path: str, kind: str, item: dict[str, Any], sources: dict[str, Any], link_names: dict[str, str], siblings: list[str], current: str = "") -> list[tuple[str, str, str | None]]:
        me = self.link_text(path)
        blocks: list[tuple[str, str, str | None]] = []
        for src, payload in sorted(sources.items()):
            if kind == "comparison":
                blocks.append((f"table:{src}", self._table(payload, link_names), "Comparison"))
                continue
            if kind == "concept":
                for heading, facts in payload.get("sections", {}).items():
                    lines = [self._fact_line(text, anchor, link_names, me) for text, anchor in facts]
                    blocks.append((f"section:{slugify(heading) or 'notes'}:{src}", "\n".join(lines), heading))
            else:
                lines = [self._fact_line(text, anchor, link_names, me) for text, anchor in payload.get("facts", [])]
                if lines:
                    blocks.append((f"facts:{src}", "\n".join(lines), "Facts"))
            related = []
            for relation, target, anchor in payload.get("relations", []):
                target_path = self.names.lookup(target)
                label = clean_text(target, 120)
                shown = link(self.link_text(target_path), label) if target_path and target_path != path else label
                related.append(f"- {clean_text(relation, 80)} {shown} ^[{anchor}]")
            # the other pages this source touched, unless this page links to them already: no orphans
            others = [link(self.link_text(p), self.names.titles.get(p)) for p in siblings if p != path and f"[[{self.link_text(p)}" not in current][:6]
            if others and src == max(sources):
                related.append("- See also: " + ", ".join(others))
            if related:
                blocks.append((f"related:{src}", "\n".join(related), "Related"))
        return blocks

    def _fact_line(self, text: str, anchor: str, link_names: dict[str, str], me: str) -> str:
        linked, _ = linkify(clean_text(text), link_names, skip={me})
        return f"- {linked} ^[{anchor}]"

    def _table(self, payload: dict[str, Any], link_names: dict[str, str]) -> str:
        subjects = payload["subjects"]
        head = ["Axis"]
        for s in subjects:
            target = self.names.lookup(s)
            head.append(link(self.link_text(target), s, in_table=True) if target else table_cell(s))
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for axis, cells in payload["rows"]:
            row = [table_cell(axis)]
            for s in subjects:
                cell = cells.get(s.lower())
                row.append(f"{table_cell(cell[0])} ^[{cell[1]}]" if cell else "—")
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines)

    def _write_new(self, path: str, kind: str, item: dict[str, Any], src: str, link_names: dict[str, str], siblings: list[str], result: SourceResult) -> None:
        title = item["name"]
        sources = item["sources"]
        summary = clean_text(item.get("summary") or title, 300)
        text_for_tags = " ".join([title, summary, *(str(v) for v in sources.values())])
        data = {
            "title": title,
            "created": self.today,
            "updated": self.today,
            "type": kind,
            "tags": pick_tags(text_for_tags, item.get("kind_detail", ""), self.schema.tags),
            "aliases": item.get("aliases") or [],
            "sources": sorted(sources),
            "summary": summary,
        }
        body = f"# {clean_text(title, 200)}\n"
        linked_summary, _ = linkify(summary, link_names, skip={self.link_text(path)})
        merged = merge_blocks(body, [("summary", linked_summary, None), *self._blocks(path, kind, item, sources, link_names, siblings)])
        self._put(path, dump_frontmatter(data) + merged.text)
        result.created.append(path)
        self.index_entries.append(Entry(kind, self.link_text(path), summary))

    def _update(self, path: str, kind: str, item: dict[str, Any], src: str, link_names: dict[str, str], siblings: list[str], result: SourceResult) -> None:
        text = self.text(path)
        if text is None:
            result.dropped_items.append(f"{path}: unreadable, not updated")
            return
        data, body = split_page(text)
        if data is None:
            result.dropped_items.append(f"{path}: frontmatter unreadable, not updated")
            return
        page_kind = data.get("type") if isinstance(data.get("type"), str) else kind
        sources = list(data.get("sources") or []) if isinstance(data.get("sources"), list) else []
        if src not in sources:
            sources.append(src)
        data["sources"] = sources
        data["updated"] = self.today
        new_aliases = [a for a in item.get("aliases", []) if a and a.lower() not in {str(x).lower() for x in data.get("aliases") or []} and a.lower() != str(data.get("title", "")).lower()]
        if new_aliases and isinstance(data.get("aliases", []), list):
            data["aliases"] = [*(data.get("aliases") or []), *new_aliases]
        merged = merge_blocks(body, self._blocks(path, page_kind, item, item["sources"], link_names, siblings, current=body))
        result.kept_edits.extend(f"{path}: {key}" for key in merged.kept)
        new_text = dump_frontmatter(data) + merged.text.lstrip("\n")
        if new_text != text and (merged.added or merged.replaced or src not in (text or "")):
            self._put(path, new_text)
            result.updated.append(path)


def _same(a: str, b: str) -> bool:
    return bool(set(name_keys(a)) & set(lookup_keys(b)))


__all__ = ["Compiler", "SourceResult", "dump_frontmatter", "pick_tags", "split_page", "Entity", "Concept", "Relation"]
