"""What an earlier compile wrote for names the code now refuses, undone when their source is compiled again.

A vault compiled before names were checked (or by a careless model) may hold a page titled with an ordinary
word ("Keeping", the opener of "Keeping the verbatim text means…"), and pages that folded other subjects in
through aliases ("Keeping" with the aliases Chroma, Ollama…). When a source that fed such a page is compiled
again, its plan says which names it refuses and which names are other subjects:

- an alias of a page citing the source that is no form of the page's title and that the plan shows is not the
  same subject (the name of another subject of the plan, a word it refuses as a name, or an alias it refused
  for this very name) is taken off the page, so that subject gets a page of its own instead of being folded in;
- a page whose title the plan refuses as a name loses what the source said on it; a page left with nothing
  (no claim, no memory, nothing a person wrote) is removed, with its `index.md` entry and the links to it the
  compiler wrote on other pages, and the run's log row says so. A page a person edited is kept and reported.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from wikic.compile.result import Removed, SourceResult
from wikic.compile.writing import without_source
from wikic.pages.blocks import block_keys
from wikic.pages.frontmatter import dump_frontmatter
from wikic.vault.formats.claims import CLAIMS_KEY, scan
from wikic.vault.formats.markers import MARKER_LINE
from wikic.vault.frontmatter import split_page
from wikic.vault.names import normalize_name, same_subject

if TYPE_CHECKING:
    from wikic.compile.compiler import Compiler
    from wikic.compile.plan import Plan


def repair_names(compiler: Compiler, plan: Plan, src: str, result: SourceResult) -> None:
    """Undo, on the pages citing `src`, what an earlier compile wrote for the names `plan` refuses now."""
    refused = {normalize_name(name): why for name, why in plan.refused}
    subjects = {normalize_name(n): e.name for e in plan.entities for n in (e.name, *e.aliases)}
    subjects.update((normalize_name(c.name), c.name) for c in plan.concepts)
    for path in compiler.citing(src):
        text = compiler.text(path)
        data = split_page(text)[0] if text is not None else None
        if data is None or compiler.is_hub_or_query(path) or not isinstance(data.get("title"), str):
            continue
        title = data["title"]
        if normalize_name(title) in refused and normalize_name(title) not in subjects:
            _withdraw(compiler, path, src, data, refused[normalize_name(title)], result)
            continue
        given = data.get("aliases")
        aliases: list[Any] = given if isinstance(given, list) else []
        folded = _folded(title, aliases, plan, subjects, refused)
        if folded:
            kept = [a for a in aliases if a not in folded]
            _rename(compiler, path, text, {**data, "aliases": kept}, title)
            result.aliases_refused += [(title, a) for a in folded]


def _folded(title: str, aliases: list[Any], plan: Plan, subjects: dict[str, str], refused: dict[str, str]) -> list[str]:
    """The aliases of the page titled `title` that `plan` shows are no form of it: another subject of the plan
    (`subjects`), a word it refuses as a name, or an alias it refused for this very name."""
    not_its = {normalize_name(alias) for name, alias, _ in plan.refused_aliases
               if normalize_name(name) == normalize_name(title)}
    return [a for a in aliases if isinstance(a, str) and not same_subject(title, a) and (
        (normalize_name(a) in subjects and not same_subject(title, subjects[normalize_name(a)]))
        or normalize_name(a) in refused or normalize_name(a) in not_its)]


def _withdraw(compiler: Compiler, path: str, src: str, data: dict[str, Any], reason: str,
              result: SourceResult) -> None:
    """Take what `src` said off the page at `path`, whose name is no subject; remove the page when nothing
    else is left on it."""
    compiler.names.drop(path)  # no subject: what the plan names goes to pages of its own, not here
    left = without_source(compiler, path, src, data, result)
    if left is None:
        return
    if _empty(left):
        gone = Removed(path, str(data.get("title", "")), reason)
        _remove(compiler, path, gone)
        result.removed.append(gone)
    else:
        result.kept_edits.append(f"{path}: '{data.get('title')}' is no subject ({reason}), but other sources or "
                                 "a person wrote on it: kept")


def _rename(compiler: Compiler, path: str, text: str | None, data: dict[str, Any], title: str) -> None:
    """Give the page at `path` the names in `data` (its title, its aliases), on the page and for lookups."""
    aliases = [a for a in data.get("aliases") or [] if isinstance(a, str)]
    compiler.names.drop(path)
    compiler.names.add(path, title, aliases)
    if text is not None:
        compiler.drafts.put(path, dump_frontmatter(data) + split_page(text)[1].lstrip("\n"))


def _remove(compiler: Compiler, path: str, removed: Removed) -> None:
    """Remove the page at `path` (planned: the journal deletes it) and the links the compiler wrote to it."""
    target = compiler.link_text(path)
    compiler.drafts.removed[path] = removed
    compiler.names.drop(path)
    compiler.drafts.texts.pop(path, None)
    for other in _linking_to(compiler, path):
        text = compiler.text(other)
        if text is None or not compiler.drafts.writable(other):
            continue
        new_text = unlinked(text, target)
        if new_text != text:
            compiler.drafts.put(other, new_text)


def _linking_to(compiler: Compiler, path: str) -> list[str]:
    """The pages (planned or on disk) whose text links to the page at `path`."""
    vault = compiler.disk_vault()
    folders = compiler.disk.folder_types
    stem = posixpath.basename(path)[:-3].casefold()
    on_disk = {p for p, note in vault.notes.items() if p.split("/", 1)[0] in folders
               for link in note.links if posixpath.basename(link.target).casefold().removesuffix(".md") == stem}
    planned = {p for p, text in compiler.texts.items()
               if f"[[{compiler.link_text(path)}".casefold() in text.casefold()}
    return sorted((on_disk | planned) - {path} - set(compiler.removed))


def _empty(text: str) -> bool:
    """The page holds no claim, and nothing but the compiler's blocks, its title and blank lines."""
    body = split_page(text)[1]
    if scan(text):
        return False
    if any(key not in ("summary", "related", CLAIMS_KEY) and not key.startswith("section:")
           for key in block_keys(body)):
        return False  # memories, tables, history: something is there
    outside = _BLOCKS.sub("", body)
    return all(not line.strip() or line.startswith("#") or MARKER_LINE.match(line) for line in outside.split("\n"))


_BLOCKS = re.compile(r"^<!-- wikic:begin (\S+)[^\n]*-->\n.*?^<!-- wikic:end \1 -->\n?", re.MULTILINE | re.DOTALL)


def unlinked(text: str, target: str) -> str:
    """`text` with its links to the page `target` (its link text) written as their words: a removed page's
    name stays in the sentences that wrote it."""
    pattern = re.compile(rf"\[\[{re.escape(target)}(?:#[^\]|]*)?(?:\\?\|([^\]]*))?\]\]", re.IGNORECASE)
    return pattern.sub(lambda m: m.group(1) or target, text)


