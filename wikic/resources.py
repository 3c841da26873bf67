"""The files wikic ships beside its code, read only through here.

- `templates/`: the vault skeleton `wikic init` copies (`templates/vault/`), and the page skeletons the
  compiler fills (`templates/pages/<type>.md`: frontmatter keys in order, the body's opening). The title
  and section headings of `index.md` and the header of `log.md` come from the vault skeleton, so every
  module that writes those files writes what `wikic init` does.
- `schema/`: the default `SCHEMA.md` and JSON Schemas generated from the code (see `wikic.json_schemas`).

An installed wheel carries both inside the package (`wikic/_data/`, mapped in by pyproject's
`force-include`); a checkout or an editable install reads them from the repository root, beside `wikic/`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

TEMPLATES = "templates"
SCHEMA = "schema"
_PACKAGED = "_data"  # the folder inside the installed package


def folder(name: str) -> Traversable:
    """`templates/` or `schema/`, wherever this copy of wikic keeps it."""
    packaged = resources.files("wikic").joinpath(_PACKAGED, name)
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"wikic's {name}/ folder is missing from {checkout.parent}: reinstall wikic")


def read_text(name: str, path: str) -> str:
    """The text of `path` (posix, relative) inside `templates/` or `schema/`."""
    return folder(name).joinpath(*path.split("/")).read_text(encoding="utf-8")


def template_text(path: str) -> str:
    return read_text(TEMPLATES, path)


def schema_text(path: str) -> str:
    return read_text(SCHEMA, path)


def file_names(name: str) -> list[str]:
    """Every file of `templates/` or `schema/`, as sorted posix paths relative to it."""

    def walk(node: Traversable, prefix: str) -> list[str]:
        out = []
        for child in node.iterdir():
            if child.is_dir():
                if child.name != "__pycache__":
                    out.extend(walk(child, f"{prefix}{child.name}/"))
            else:
                out.append(prefix + child.name)
        return out

    return sorted(walk(folder(name), ""))


# ---- the vault skeleton ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexSkeleton:
    """`templates/vault/index.md`: a title line, then one `## heading` per built-in page type, in the
    order of `vault.layout.PAGE_FOLDERS` (entity, concept, comparison, query, source)."""

    text: str
    title: str  # "# Wiki Index"
    headings: tuple[str, ...]  # ("Entities", "Concepts", ...)


@cache
def index_skeleton() -> IndexSkeleton:
    text = template_text("vault/index.md")
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if not lines or not lines[0].startswith("# "):
        raise ValueError("templates/vault/index.md must start with a '# title' line")
    return IndexSkeleton(text, lines[0], tuple(line[3:].strip() for line in lines[1:] if line.startswith("## ")))


@cache
def log_skeleton() -> str:
    """`templates/vault/log.md`: the title and the table header every log.md starts with."""
    return template_text("vault/log.md")


# ---- page skeletons ----------------------------------------------------------------------------------

_KEY = re.compile(r"^([A-Za-z_][\w-]*):(.*)$")
_TITLE = "{{title}}"  # Obsidian's Templates plugin fills the same placeholders ({{title}}, {{date}})


@dataclass(frozen=True)
class PageSkeleton:
    """`templates/pages/<type>.md`: which frontmatter keys a new page of the type gets, in their order,
    and how its body opens (the summary block follows the title line)."""

    page_type: str
    keys: tuple[str, ...]
    body: str

    def opening(self, title: str) -> str:
        """The body of a new page titled `title` (already cleaned for Markdown)."""
        return self.body.replace(_TITLE, title)


@cache
def page_skeleton(page_type: str) -> PageSkeleton:
    name = f"pages/{page_type}.md"
    lines = template_text(name).split("\n")
    try:
        end = lines.index("---", 1) if lines[0] == "---" else -1
    except ValueError:
        end = -1
    if end < 0:
        raise ValueError(f"templates/{name} must start with frontmatter between '---' lines")
    keys, declared = [], None
    for line in lines[1:end]:
        if m := _KEY.match(line):
            keys.append(m.group(1))
            if m.group(1) == "type":
                declared = m.group(2).strip()
    if declared != page_type:
        raise ValueError(f"templates/{name} must say 'type: {page_type}'")
    return PageSkeleton(page_type, tuple(keys), "\n".join(lines[end + 1 :]))


def frontmatter_order(page_types: Iterable[str]) -> tuple[str, ...]:
    """Every key of these page types' skeletons, in the order pages are written with (first seen first)."""
    return tuple(dict.fromkeys(key for page_type in page_types for key in page_skeleton(page_type).keys))
