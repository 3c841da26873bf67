"""`wikic export llms DIR`: the wiki for a language model, as the llms.txt proposal (llmstxt.org) lays it out.

`DIR/llms.txt` is the map: the wiki's title as its `#` heading (SCHEMA.md's Domain, else the vault's folder
name), the opening paragraph of overview.md as its `>` summary, a line saying what an entry holds and what a
citation names, then a `##` section per page type in index.md's order (Entities, Concepts, Comparisons,
Queries, Sources), each page one item `- [title](link): lead`. `DIR/llms-full.txt` is the same head, then
every page's text in the same order: no frontmatter, compiler markers, comments or block ids; a citation
`^[[[raw/x.md|x.md]] L10-L11]` reads `[source: raw/x.md L10-L11]`, a link its text, as a reader of the page
sees it (`wikic/text/reader_text.py`).

A link goes where the reader of DIR can follow it: `--site-url URL` makes it `URL/<page>.html`; else a page
the static site in DIR holds (`wikic export site DIR`) is linked relatively, `entities/chroma.html`; else it
is the page's path in the vault, `entities/chroma.md`.

Nothing but those two files is written, and only inside DIR, which `target.py` checks as it checks a site's:
not the vault, nor inside its page folders, `raw/` or `.wikic/`, nor a folder of a person's files (unless
`--force`); a site's folder, or one holding an earlier llms export, is fine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from wikic.context import VaultContext
from wikic.errors import UsageError, VaultError
from wikic.export.layout import page_output
from wikic.export.target import LLMS_FILES, check_target
from wikic.hubs.overview import domain
from wikic.pages.index_file import section_title
from wikic.text.code_spans import outside_code
from wikic.text.reader_text import reader_text
from wikic.vault.comments import replace_comments
from wikic.vault.formats.anchors import find_anchors
from wikic.vault.formats.claims import strip_claim_meta
from wikic.vault.frontmatter import split, split_page
from wikic.vault.layout import OVERVIEW_FILE
from wikic.vault.lead import lead_of, plain_line
from wikic.vault.load import Vault, walk
from wikic.vault.paths import read_text_inside
from wikic.vault.write import write_atomic

LLMS_FILE, FULL_FILE = LLMS_FILES
NOTE_CHARS = 300  # of a page's lead beside its link

# an Obsidian block id ending a line (`^c1a2b3c4`, `^my-para`): an anchor for links, no words of the page
_BLOCK_ID = re.compile(r"(?:^|[ \t]+)\^[A-Za-z0-9-]+[ \t]*$", re.MULTILINE)
# where a citation waits while the rest of its line is read as its reader sees it (private-use characters:
# no Markdown reads them, and a page's own are dropped first)
_HELD = re.compile("\ue000(\\d+)\ue001")
_COMMENTED = "\ue002"  # what a comment leaves on its lines while they are read
_BLANKS = re.compile(r"\n{3,}")
_HEADING = re.compile(r"^#{1,6}[ \t]")


@dataclass
class LlmsReport:
    out: Path
    written: list[str]  # the files written, as paths
    pages: dict[str, int]  # page type -> how many pages were listed
    links: str  # what the links lead to: "site-url", "site" or "vault"
    skipped: dict[str, str] = field(default_factory=dict)  # page -> why its text could not be read

    @property
    def total(self) -> int:
        return sum(self.pages.values())

    def to_json(self) -> dict[str, object]:
        return {"out_dir": str(self.out), "written": self.written, "pages": self.pages, "links": self.links,
                "skipped": self.skipped}


def export_llms(context: VaultContext, out: Path, *, site_url: str | None = None, force: bool = False) -> LlmsReport:
    """Write `out/llms.txt` and `out/llms-full.txt` for the vault of `context` (see the module docstring).
    UsageError, before anything is read, for an `out` that `target.check_target` refuses: where the vault
    keeps its own files, or a folder of a person's files (unless `force`)."""
    root = context.root
    schema = context.schema
    if site_url is not None and urlsplit(site_url).scheme not in ("http", "https"):
        raise UsageError(f"--site-url {site_url} is not a web address",
                         hint="give the address the site is published at, e.g. https://wiki.example.org")
    out = check_target(root, out, list(schema.folder_types()) if schema.present else [], force=force)
    files, _ = walk(root)  # the pages' texts are read once, here: no parse of the whole vault first
    vault = Vault(root=root, schema=schema, files=files, notes={})
    head = _head(root, vault)
    link, links = _linker(out, site_url)
    listing: list[str] = []
    full: list[str] = []
    counts: dict[str, int] = {}
    skipped: dict[str, str] = {}
    for kind, paths in _by_kind(vault).items():
        listing.append(f"## {section_title(kind)}\n")
        counts[kind] = len(paths)
        for path in paths:
            text = _read(root, path, skipped)
            data, body = _page(text)
            title = _title(data, path)
            note = lead_of(data, body, limit=NOTE_CHARS)
            note = "" if note == title else note  # a page with no lead is led by its title: said already
            target = link(path)
            listing.append(f"- [{_label(title)}]({target})" + (f": {note}" if note else ""))
            full.append(_full_page(body, title, target))
        listing.append("")
    # what a model reading the files needs to know of them (the proposal's details, before the sections)
    cited = (" A `[source: raw/x.md L10-L11]` after a sentence names the lines of the raw source it rests on (raw/ "
             "is the vault's folder of sources, kept as they came)." if schema.present else "")
    listed = f"Each page below: its title, its link and its lead. {FULL_FILE} holds every page's text.{cited}\n\n"
    # a full disk or a folder one may not write is the file system's refusal, which the faces report (exit 1)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / LLMS_FILE, head + listed + "\n".join(listing).rstrip("\n") + "\n", root=out)
    write_atomic(out / FULL_FILE, head + f"Every page's text follows.{cited}\n\n"
                 + "\n".join(full).rstrip("\n") + "\n", root=out)
    return LlmsReport(out, [str(out / LLMS_FILE), str(out / FULL_FILE)], counts, links, skipped)


# -- the parts ----------------------------------------------------------------------------------------------


def _head(root: Path, vault: Vault) -> str:
    """The title and the summary the two files open with."""
    title = domain(vault.schema) or root.resolve().name
    head = f"# {' '.join(title.split())}\n\n"
    summary = _overview_summary(root) if OVERVIEW_FILE in vault.files else ""
    return head + (f"> {summary}\n\n" if summary else "")


def _overview_summary(root: Path) -> str:
    """overview.md's first paragraph (what the wiki covers, how much it holds), as one line of plain text."""
    try:
        text = read_text_inside(root, root / OVERVIEW_FILE, errors="replace") or ""
    except (OSError, VaultError):
        return ""
    _, body = _page(text)
    body = replace_comments(body, lambda width: "", across_lines=True)
    for paragraph in re.split(r"\n[ \t]*\n", body):
        said = "\n".join(line for line in paragraph.split("\n") if not _HEADING.match(line.lstrip()))
        if said.strip():
            return plain_line(said)
    return ""


def _by_kind(vault: Vault) -> dict[str, list[str]]:
    """The pages by type, the types in SCHEMA.md's order (index.md's), then any other."""
    order = list(vault.schema.page_folders)
    found: dict[str, list[str]] = {}
    for path in sorted(vault.files):
        kind = vault.page_type(path)
        if kind is not None:
            found.setdefault(kind, []).append(path)
    ranked = sorted(found, key=lambda kind: (order.index(kind) if kind in order else len(order), kind))
    return {kind: found[kind] for kind in ranked}


def _read(root: Path, path: str, skipped: dict[str, str]) -> str:
    try:
        return read_text_inside(root, root / path, errors="replace") or ""
    except (OSError, VaultError) as exc:
        skipped[path] = exc.message if isinstance(exc, VaultError) else (exc.strerror or str(exc))
        return ""


def _page(text: str) -> tuple[dict[str, Any] | None, str]:
    """A page's frontmatter (None: none, or unreadable) and its body: the text after the frontmatter block,
    even one whose YAML cannot be read (metadata all the same, never text of the page)."""
    data, body = split_page(text)
    if data is None and (fenced := split(text).block_lines):
        body = "\n".join(text.split("\n")[fenced:])
    return data, body


def _title(data: dict[str, Any] | None, path: str) -> str:
    title = (data or {}).get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    return path.rsplit("/", 1)[-1][:-3]


def _label(title: str) -> str:
    """A title as a Markdown link's text: its brackets escaped, so it closes where it should."""
    return re.sub(r"([\\\[\]])", r"\\\1", title)


def _linker(out: Path, site_url: str | None) -> tuple[Callable[[str], str], str]:
    """How a page is linked, and what that is ("site-url", "site", "vault")."""
    if site_url:
        base = site_url.rstrip("/")
        return (lambda path: f"{base}/{quote(page_output(path))}"), "site-url"
    if (out / "index.html").is_file():
        def to_site(path: str) -> str:
            page = page_output(path)
            return quote(page) if (out / page).is_file() else quote(path)
        return to_site, "site"
    return quote, "vault"


def _full_page(body: str, title: str, link: str) -> str:
    """A page's text for llms-full.txt: its title heading (one is added when it has none), a line with its
    link, then what its reader sees."""
    text = reader_text_of(body).strip("\n")
    first, _, rest = text.partition("\n")
    if first.startswith("# "):
        return f"{first}\n\nLink: {link}\n{rest}".rstrip("\n") + "\n"
    return f"# {title}\n\nLink: {link}\n\n{text}".rstrip("\n") + "\n"


def reader_text_of(body: str) -> str:
    """A page's body as its reader sees it, without what only tools read: compiler markers, the claims'
    bookkeeping, comments (`<!-- -->`, `%% %%`) and block ids; each citation as `[source: raw/x.md L10-L11]`,
    each link as its text."""
    body = re.sub("[\ue000-\ue002]", "", body)
    body = strip_claim_meta(body)
    lines = []
    for line in replace_comments(body, lambda width: _COMMENTED, across_lines=True).split("\n"):
        if _COMMENTED in line:
            line = line.replace(_COMMENTED, "")
            if not line.strip():
                continue  # a line that held only markers or comments goes, not only its text
        lines.append(line.rstrip())  # what a comment ended the line with leaves no trailing space
    body = _BLOCK_ID.sub("", "\n".join(lines))
    held: list[str] = []

    def hold(part: str) -> str:
        pieces: list[str] = []
        done = 0
        for match, cited in find_anchors(part):
            held.append(f"[source: {cited.path} {cited.lines}]")
            pieces += (part[done : match.start()], f"\ue000{len(held) - 1}\ue001")
            done = match.end()
        return "".join(pieces) + part[done:]

    body = reader_text(outside_code(body, hold))
    body = _HELD.sub(lambda m: held[int(m.group(1))], body)
    return _BLANKS.sub("\n\n", body)
