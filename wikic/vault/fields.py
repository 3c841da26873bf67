"""The frontmatter fields of a wiki page: the one list of which are required and what each holds.

Lint checks pages against it (`lint/rules/frontmatter.py`), the compiler always writes the required ones,
and the JSON Schemas in `schema/frontmatter/` are generated from it, so an editor or another tool can
validate a page the way `wikic lint` does (less what needs the vault: the taxonomy, the raw files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wikic.vault.layout import PAGE_FOLDERS

REQUIRED = ("title", "created", "updated", "type", "tags", "sources")

# A date as lint reads one: YYYY-MM-DD (a YAML date, or text starting with it).
_DATE: dict[str, Any] = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}"}
_TEXT_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True)
class Field:
    name: str
    value: dict[str, Any]  # the JSON Schema of its value
    description: str
    page_types: tuple[str, ...] = field(default=())  # only on these page types; () on every one


FIELDS = (
    Field("title", {"type": "string", "pattern": "\\S"}, "The page's name: non-empty text."),
    Field("created", _DATE, "When the page was created, YYYY-MM-DD."),
    Field("updated", _DATE, "When the page last changed, YYYY-MM-DD; not before created."),
    Field("type", {"enum": list(PAGE_FOLDERS)}, "The page type; it matches the page's folder."),
    Field("tags", _TEXT_LIST, "Tags from SCHEMA.md's taxonomy, written without '#'."),
    Field("aliases", _TEXT_LIST, "Other names of the page."),
    Field(
        "sources",
        {"type": "array", "items": {"type": "string", "pattern": "^\\s*(\\[\\[\\s*)?raw/"}},
        "The raw files the page is built on: paths under raw/, plain or as [[links]].",
    ),
    Field("summary", {"type": "string"}, "One or two sentences; index.md lists the page with it."),
    Field("contested", {"type": "boolean"}, "true when sources disagree about the page."),
    Field("contradictions", _TEXT_LIST, "Pages that contradict this one (each names this one back)."),
    Field("question", {"type": "string"}, "The question the page answers.", ("query",)),
    Field(
        "cited",
        {"type": "object", "additionalProperties": {"type": "string"}},
        "Each cited page with the fingerprint of what it said when the answer was written.",
        ("query",),
    ),
    Field("related", _TEXT_LIST, "Pages built on the same sources as the answer.", ("query",)),
    Field("author", {"type": "string"}, "Who wrote the source, as the source says.", ("source",)),
    Field(
        "date",
        {"type": "string", "pattern": "^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?"},
        "The date the source gives itself (published, or the conversation's start): YYYY, YYYY-MM or YYYY-MM-DD.",
        ("source",),
    ),
    Field("url", {"type": "string", "pattern": "^https?://"}, "Where the source was captured from.", ("source",)),
)


def fields_of(page_type: str) -> list[Field]:
    return [f for f in FIELDS if not f.page_types or page_type in f.page_types]


def frontmatter_json_schema(page_type: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the frontmatter of a `page_type` page. Keys beyond these are
    allowed: a person's own properties are theirs."""
    properties = {}
    for f in fields_of(page_type):
        value = {"const": page_type} if f.name == "type" else f.value
        properties[f.name] = {"description": f.description, **value}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"wikic {page_type} page frontmatter",
        "type": "object",
        "required": list(REQUIRED),
        "properties": properties,
        "additionalProperties": True,
    }
