"""`wikic export site DIR`: the vault as a static HTML site, written again only where it changed.

    with VaultContext(root) as context:
        report = export_site(context, Path("../site"))

Every note becomes a page (`layout.py` names where), with its frontmatter as a properties table, its
Markdown rendered (`markdown.py`), and around it its backlinks, the pages of its cluster and the sources
that fed it (`around.py`); every raw source that is text a page of numbered lines; every other file is
copied. The search index and the link graph are scripts that set a global (`indexes.py`), which a page
opened from disk can load where it could not fetch a JSON file.

Each output is written from inputs whose digest the manifest in DIR keeps (`manifest.py`): the note's bytes,
where each of its links lands, what its embeds and citations show, its backlinks and sources, the
template and this package's code. A second export renders and writes only the outputs whose digest changed,
and deletes only the outputs the previous export wrote that no file gives any more.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic import __version__
from wikic.errors import VaultError
from wikic.export import layout
from wikic.export.around import Around
from wikic.export.indexes import graph_data, search_index
from wikic.export.manifest import Manifest
from wikic.export.markdown import Quote, block_anchor, display, heading_ids, render, render_inline, renderer
from wikic.export.target import check_target, inside_vault
from wikic.export.template import ASSET_FILES, asset, fill, load_template
from wikic.hubs.overview import domain
from wikic.hubs.view import SOURCE_TYPE
from wikic.vault.collector import collector_paused
from wikic.vault.formats.anchors import Cited, find_anchors, parse_spec
from wikic.vault.formats.sources import read_sources
from wikic.vault.layout import IDENTITY_FILE, OVERVIEW_FILE, is_vault
from wikic.vault.lead import page_lead
from wikic.vault.load import Vault, fork_is_safe, load_vault
from wikic.vault.model import EMBED, Note
from wikic.vault.parse import decode, parse_note
from wikic.vault.paths import read_inside
from wikic.vault.raw_source import RawFile, expected_sha256
from wikic.vault.resolve import Resolver, heading_key
from wikic.vault.write import write_bytes_atomic

if TYPE_CHECKING:
    from wikic.context import VaultContext

_MARKUP = re.compile(r"[\\`*_\[\]<>&#$^~!%=|]|https?:")  # what could make a property's text more than text

INDEX_PAGE = "index.html"  # the site's home: the vault's index.md, else a list of its notes
FORK_AT = 400  # outputs to write from which a second process renders half of them
MAX_EMBED_DEPTH = 3  # an embed inside an embed inside an embed is shown as a link
# Kept out of the site: who the user is, in their own words, is for their briefings, not for readers; the
# settings are the tool's, not the wiki's.
PRIVATE = frozenset({IDENTITY_FILE, "wikic.toml"})


@dataclass
class SiteReport:
    out_dir: Path
    written: list[str] = field(default_factory=list)  # outputs written by this export (site-relative)
    unchanged: int = 0  # outputs whose inputs had not changed: left as they were
    removed: list[str] = field(default_factory=list)  # outputs of the previous export no file gives any more
    skipped: list[str] = field(default_factory=list)  # vault files whose output name another file took
    pages: int = 0
    sources: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"out_dir": str(self.out_dir), "written": self.written, "unchanged": self.unchanged,
                "removed": self.removed, "skipped": self.skipped, "pages": self.pages, "sources": self.sources,
                "seconds": round(self.seconds, 3)}


def _digest(*parts: Any) -> str:
    """The digest of an output's inputs: plain values (strings, numbers, lists, tuples), whose repr is theirs."""
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _code_digest(template: str) -> str:
    """What every output depends on: this package's code and assets, the template and wikic's version."""
    here = Path(__file__).parent
    sha = hashlib.sha256(f"{__version__}\n{template}".encode())
    # the vault model's modules that decide what a page shows: how it is parsed, its links resolved, its
    # citations read and checked
    model = here.parent / "vault"
    for path in (*sorted(here.glob("*.py")), model / "parse" / "reference.py", model / "resolve.py",
                 model / "formats" / "anchors.py", model / "raw_source.py"):
        sha.update(path.read_bytes())
    for name in ("site.css", "site.js"):
        sha.update(asset(name))
    return sha.hexdigest()[:32]


class Site:
    """The vault as the site sees it: what each file becomes, and where each link lands (the renderer's
    `Pages`)."""

    def __init__(self, root: Path, vault: Vault, exclude: str | None,
                 known: dict[str, list[Any]] | None = None) -> None:
        self.root = root
        self.vault = vault
        self.known = known or {}  # note -> its facts as the previous export found them (`facts`)
        self.found: dict[str, list[Any]] = {}  # note -> its facts, as this export found them
        self._titles: dict[str, str] = {}
        self._resolved: dict[str, list[str | None]] = {}
        self._heading_ids: dict[str, dict[str, str]] = {}
        self._anchors: dict[tuple[str, str], str] = {}
        files = [p for p in vault.files if not (exclude and (p == exclude or p.startswith(exclude + "/")))]
        self.files = files
        self.resolver = vault.resolver or Resolver(files)
        self._texts: dict[str, str | None] = {}
        self._bytes: dict[str, bytes | None] = {}
        self._parsed: dict[str, Note] = {}
        self._raw: dict[str, RawFile] = {}
        self.outputs: dict[str, str] = {}  # vault path -> its output
        self.skipped: list[str] = []
        taken: set[str] = set()
        notes = sorted(p for p in files if p.endswith(".md") and not layout.is_raw(p) and p not in PRIVATE)
        raws = sorted(p for p in files if layout.is_raw(p))
        others = sorted(p for p in files if not p.endswith(".md") and not layout.is_raw(p) and p not in PRIVATE)
        self.raw_pages: set[str] = set()
        for group in (notes, raws, others):
            for path in group:
                text_page = group is notes or (group is raws and self._is_text(path))
                out = layout.page_output(path) if text_page else path
                if out in taken or layout.site_owned(out):
                    self.skipped.append(path)
                    continue
                taken.add(out)
                self.outputs[path] = out
                if group is raws and text_page:
                    self.raw_pages.add(path)
        self.notes = [p for p in notes if p in self.outputs]
        self.copied = [p for p in (*raws, *others) if p in self.outputs and p not in self.raw_pages]

    # -- files -------------------------------------------------------------------------------------------------
    def data(self, path: str) -> bytes | None:
        if path not in self._bytes:
            try:
                self._bytes[path] = read_inside(self.root, self.root / path)
            except (OSError, VaultError):
                self._bytes[path] = None
        return self._bytes[path]

    def _is_text(self, path: str) -> bool:
        if posixpath.splitext(path)[1].lower() in (".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".zip"):
            return False
        return self.raw_file(path).text is not None

    def text(self, path: str) -> str | None:
        """A note's text (newlines made LF), None when it cannot be read."""
        if path not in self._texts:
            data = self.data(path)
            self._texts[path] = decode(path, data)[0] if data is not None else None
        return self._texts[path]

    def note(self, path: str) -> Note:
        """A note parsed: the vault's, or parsed here for the notes lint does not read (log.md, SCHEMA.md)."""
        found = self.vault.notes.get(path) or self._parsed.get(path)
        if found is None:
            found = self._parsed[path] = parse_note(path, self.data(path) or b"")
        return found

    @cached_property
    def expected(self) -> dict[str, str]:
        return expected_sha256(read_sources(self.root))

    def raw_file(self, path: str) -> RawFile:
        found = self._raw.get(path)
        if found is None:
            found = self._raw[path] = RawFile(self.root, path, self.expected.get(path))
        return found

    def title(self, path: str) -> str:
        found = self._titles.get(path)
        if found is None:
            title = (self.note(path).frontmatter or {}).get("title")
            if isinstance(title, str) and title.strip():
                found = " ".join(title.split())
            else:
                found = posixpath.basename(path)[:-3] if path.endswith(".md") else posixpath.basename(path)
            self._titles[path] = found
        return found

    def stamp(self, path: str) -> list[int]:
        """A file's size and modification time: what says it is unchanged, without reading it."""
        info = self.vault.files.get(path)
        return [info.size, info.mtime_ns] if info is not None else [-1, -1]

    def resolved(self, path: str) -> list[str | None]:
        """Where each link of note `path` lands (None: nowhere the site has), as lint resolved it."""
        found = self._resolved.get(path)
        if found is None:
            note = self.note(path)
            done = self.vault.resolved.get(path)
            if done is None or len(done) != len(note.links):
                done = [(r.path, r.candidates)
                        for r in self.resolver.resolve_all(path, [lk.target for lk in note.links])]
            outputs = self.outputs
            found = self._resolved[path] = [
                (target if target in outputs else None) if link.target else path
                for link, (target, _) in zip(note.links, done, strict=True)
            ]
        return found

    def facts(self, path: str) -> list[Any]:
        """What the digests and the search index read from a note's text: its lead and the raw lines it cites.
        Kept in the manifest by the note's size and time, so an unchanged note is not read again."""
        stamp = self.stamp(path)
        known = self.known.get(path)
        if not (isinstance(known, list) and len(known) == 3 and known[0] == stamp):
            text = self.text(path) or ""
            fm = self.note(path).frontmatter or {}
            summary = fm.get("summary")
            lead = " ".join(summary.split()) if isinstance(summary, str) and summary.strip() else page_lead(text)
            known = [stamp, lead, sorted({cited.spec for _, cited in find_anchors(text)})]
        self.found[path] = known
        return known

    # -- the renderer's questions ---------------------------------------------------------------------------
    def resolve(self, source: str, target: str) -> str | None:
        found = self.resolver.resolve(source, target).path
        return found if found in self.outputs else None

    def anchor(self, path: str, subpath: str) -> str:
        """The HTML id a `#subpath` of a link to note `path` reaches ("" when the page has no such place)."""
        if not subpath or not path.endswith(".md"):
            return ""
        if subpath.startswith("^"):
            return block_anchor(subpath[1:])
        found = self._anchors.get((path, subpath))
        if found is not None:
            return found
        ids = self._heading_ids.get(path)
        if ids is None:
            ids = {}
            for key, anchor in heading_ids([h.text for h in self.note(path).headings], keys=True):
                ids.setdefault(key, anchor)  # the first heading of those words
            self._heading_ids[path] = ids
        found = self._anchors[(path, subpath)] = ids.get(heading_key(subpath.rsplit("#", 1)[-1]), "")
        return found

    def href(self, host: str, path: str, subpath: str = "") -> str:
        return layout.relative(self.outputs[host], self.outputs[path], self.anchor(path, subpath))

    def embed(self, host: str, path: str, subpath: str, depth: int) -> str:
        link = f'<a class="internal" href="{html.escape(self.href(host, path, subpath))}">'
        title = html.escape(display(self.title(path), subpath, None))
        text = self.text(path)
        if depth > MAX_EMBED_DEPTH or text is None:
            return f"{link}{title}</a>"
        shown = _part(text, self.note(path), subpath)
        body = render(shown, self, host=host, source=path, depth=depth)
        return (f'<div class="embed" data-source="{html.escape(path)}"><div class="embed-title">{link}{title}</a>'
                f"</div>{body}</div>")

    def quote(self, host: str, cited: Cited) -> Quote:
        if cited.path not in self.outputs:
            return Quote(None, None, True)
        raw = self.raw_file(cited.path)
        anchor = f"L{cited.start}" if cited.path in self.raw_pages else ""
        return Quote(layout.relative(self.outputs[host], self.outputs[cited.path], anchor), raw.quote(cited),
                     not raw.holds(cited))

    # -- what each page depends on ------------------------------------------------------------------------------
    def links_of(self, path: str) -> list[tuple[str | None, str | None, str]]:
        """Where each link of note `path` lands: (that file, its output, the place in that page it reaches). What
        a link says is the note's own text, whose stamp the digest holds already."""
        outputs = self.outputs
        return [(found, outputs.get(found), self.anchor(found, link.subpath) if link.subpath else "")
                if found else (None, None, "")
                for link, found in zip(self.note(path).links, self.resolved(path), strict=True)]

    def embedded(self, path: str, depth: int = 1, seen: frozenset[str] = frozenset()) -> list[Any]:
        """The notes `path` embeds, down to the depth shown, each with its stamp and where its links land."""
        out: list[Any] = []
        if depth > MAX_EMBED_DEPTH:
            return out
        for link, found in zip(self.note(path).links, self.resolved(path), strict=True):
            if link.kind != EMBED or found is None or not found.endswith(".md") or found in seen or found == path:
                continue
            out.append((found, self.stamp(found), self.links_of(found)))
            out.extend(self.embedded(found, depth + 1, seen | {path}))
        return out

    def cited(self, path: str) -> list[Cited]:
        return [c for spec in self.facts(path)[2] if (c := parse_spec(spec)) is not None]


def _part(text: str, note: Note, subpath: str) -> str:
    """What an embed of `note` shows: the whole note, the section under its heading `subpath`, or the line of
    its block `^id`."""
    if not subpath:
        return text
    lines = text.split("\n")
    if subpath.startswith("^"):
        block = next((b for b in note.blocks if b.id == subpath[1:]), None)
        return lines[block.line - 1] if block is not None and block.line <= len(lines) else ""
    wanted = heading_key(subpath.rsplit("#", 1)[-1])
    for n, heading in enumerate(note.headings):
        if heading_key(heading.text) == wanted:
            end = next((h.line for h in note.headings[n + 1 :] if h.level <= heading.level), len(lines) + 1)
            return "\n".join(lines[heading.line - 1 : end - 1])
    return ""


def _properties(site: Site, path: str) -> str:
    fm = site.note(path).frontmatter
    if not fm:
        return ""
    rows = []
    for key, value in fm.items():
        rows.append(f'<tr><th>{html.escape(str(key))}</th><td>{_value(site, path, str(key), value)}</td></tr>')
    return '<table class="properties">\n' + "\n".join(rows) + "\n</table>"


def _value(site: Site, path: str, key: str, value: Any) -> str:
    if isinstance(value, list):
        return (" " if key in ("tags", "tag") else ", ").join(_value(site, path, key, item) for item in value)
    if isinstance(value, dict):
        return html.escape(json.dumps(value, ensure_ascii=False, default=str))
    text = str(value) if value is not None else ""
    if key in ("tags", "tag"):
        return f'<span class="tag">#{html.escape(text.lstrip("#"))}</span>'
    if isinstance(value, str) and layout.is_raw(text) and text in site.outputs:
        return f'<a class="internal" href="{html.escape(site.href(path, text))}">{html.escape(text)}</a>'
    if not _MARKUP.search(text):
        return html.escape(text)
    return render_inline(text, site, host=path, source=path)


def _raw_page(site: Site, path: str) -> str:
    text = site.raw_file(path).text or ""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows = [f'<div class="line" id="L{n}"><a class="ln" href="#L{n}">{n}</a><span class="lc">{html.escape(line)}'
            "</span></div>" for n, line in enumerate(lines, 1)]
    return '<div class="raw-source">\n' + "\n".join(rows) + "\n</div>"


def _since(site: Site, around: Around, shared: str) -> dict[str, Any]:
    """What the site is made from, as the next export compares it: every file and its output, what every page
    shares (`shared`: the code, the template, the title, the overview, the source ledger), each raw source's
    stamp, and the notes each note links to."""
    return {"files": _digest(sorted(site.outputs.items())), "shared": shared,
            "raws": {path: site.stamp(path) for path in site.outputs if layout.is_raw(path)},
            "links": {path: sorted(around.outbound[path]) for path in site.notes}}


def _to_check(site: Site, around: Around, before: dict[str, Any], now: dict[str, Any]) -> set[str] | None:
    """The notes whose digest may differ from the previous export's, when few may: None (check every one)
    unless the vault holds the same files, giving the same outputs, with what every page shares unchanged, and
    no source page changed.

    A note's digest is made from its own text (its stamp), where its links land (the same files give the same
    resolutions), the headings and blocks of the notes it links to and what it embeds (their stamps), the
    lines it cites (their raw files' stamps, the ledger), its backlinks and their titles, and its sources with
    their source pages. So only these can differ: a note changed; a note it links to, or linked to before,
    (its backlinks); a note linking to or embedding a changed one, and what embeds that, three deep; a note
    citing a raw file that changed. A changed source page changes the sources listed by every page it describes:
    then every note is checked."""
    known = site.known
    if not before or before.get("files") != now["files"] or before.get("shared") != now["shared"]:
        return None
    changed = [p for p in site.notes if not (isinstance(known.get(p), list) and known[p][0] == site.stamp(p))]
    if any(site.vault.page_type(p) == SOURCE_TYPE for p in changed):
        return None
    links, raws = before.get("links"), before.get("raws")
    old_links: dict[str, Any] = links if isinstance(links, dict) else {}
    old_raws: dict[str, Any] = raws if isinstance(raws, dict) else {}
    check = set(changed)
    for path in changed:
        check.update(around.outbound[path], [p for p in old_links.get(path, []) if isinstance(p, str)])
        check.update(around.backlinks.get(path, ()))
    if changed:
        embedders: dict[str, set[str]] = {}
        for path in site.notes:
            for link, found in zip(site.note(path).links, site.resolved(path), strict=True):
                if link.kind == EMBED and found is not None:
                    embedders.setdefault(found, set()).add(path)
        reached = set(check)
        for _ in range(MAX_EMBED_DEPTH):  # what embeds a note checked shows it, and what embeds that
            reached = {p for q in reached for p in embedders.get(q, ())} - check
            check |= reached
    moved = {path for path, stamp in now["raws"].items() if old_raws.get(path) != stamp}
    if moved:
        check.update(p for p in site.notes if any(c.path in moved for c in site.cited(p)))
    return check


def _write(out_dir: Path, rel: str, data: bytes) -> None:
    write_bytes_atomic(out_dir / rel, data, root=out_dir, durable=False)


_WORK: Callable[[int], Any] | None = None  # set while a forked process does its share of the work


def _work_share(share: list[int]) -> list[Any]:
    assert _WORK is not None
    return [_WORK(n) for n in share]


def _in_two(count: int, work: Callable[[int], Any]) -> list[Any]:
    """`work(n)` for every n below `count`, in order. Rendering a page is pure CPU: on a big export a forked
    process does every other one meanwhile, from the same state (the copy the fork made); each result must
    pickle."""
    global _WORK
    if count < FORK_AT or (os.cpu_count() or 1) < 2 or not fork_is_safe():
        return [work(n) for n in range(count)]
    import multiprocessing as mp

    renderer()  # built before the fork, which copies it
    _WORK = work
    try:
        with mp.get_context("fork").Pool(1) as pool:
            theirs = pool.apply_async(_work_share, (list(range(1, count, 2)),))
            mine = _work_share(list(range(0, count, 2)))
            other = theirs.get()
    finally:
        _WORK = None
    out: list[Any] = [None] * count
    out[0::2], out[1::2] = mine, other
    return out


def export_site(context: VaultContext, out_dir: Path, *, template: Path | None = None,
                force: bool = False) -> SiteReport:
    """Write the vault's site into `out_dir` (refused where `target.check_target` says), rewriting only the
    outputs whose inputs changed since the previous export into it."""
    with collector_paused():  # the vault read whole is millions of objects, none of them garbage, as in lint
        return _export_site(context, out_dir, template, force)


def _export_site(context: VaultContext, out_dir: Path, template: Path | None, force: bool) -> SiteReport:
    started = time.perf_counter()
    root = context.root
    schema = context.schema
    folders = list(schema.folder_types()) if schema.present else []
    target = check_target(root, out_dir, folders, force=force)
    page_template = load_template(template, root=root, configured=context.settings.export.template)
    code = _code_digest(page_template)
    # lint's caches of the notes parsed and their links resolved, kept as lint keeps them
    vault = load_vault(root, use_cache=is_vault(root), resolve=True, schema=schema)
    manifest = Manifest.read(target)
    site = Site(root, vault, inside_vault(root, target), manifest.notes)
    around = Around(site, vault, manifest.groups)
    report = SiteReport(out_dir=target, skipped=site.skipped, pages=len(site.notes), sources=len(site.raw_pages))
    site_title = domain(schema) or root.name  # as llms.txt is titled
    outputs: dict[str, str] = {}  # output -> the digest it was written from
    jobs: list[tuple[str, Callable[[], bytes]]] = []  # each output to write, and what makes its bytes

    def emit(rel: str, digest: str, make: Callable[[], bytes]) -> None:
        outputs[rel] = digest
        if manifest.holds(rel, digest) and os.path.isfile(os.path.join(target, rel)):
            report.unchanged += 1
        else:
            jobs.append((rel, make))

    def nav(out: str) -> str:
        links = [(site.outputs[OVERVIEW_FILE], "Overview")] if OVERVIEW_FILE in site.outputs else []
        links.append((layout.GRAPH_PAGE, "Graph"))
        return " ".join(f'<a href="{html.escape(layout.relative(out, to))}">{text}</a>' for to, text in links)

    def page(path: str, kind: str, content: str, properties: str = "", **around_html: str) -> bytes:
        out = site.outputs[path]
        values = {"title": html.escape(site.title(path)), "site_title": html.escape(site_title),
                  "root": layout.root_of(out), "path": html.escape(path), "properties": properties,
                  "content": content, "kind": kind, "nav": nav(out), **around_html}
        return fill(page_template, values).encode("utf-8")

    def note_page(path: str) -> bytes:
        content = render(site.text(path) or "", site, host=path, source=path)
        return page(path, "page", content, _properties(site, path), **around.of(path).html())

    def raw_page(path: str) -> bytes:
        return page(path, "raw", _raw_page(site, path))

    def copy(path: str) -> bytes:
        return site.data(path) or b""

    def constant(data: bytes) -> bytes:
        return data

    def index_page(listed: list[tuple[str, str]]) -> bytes:
        items = "".join(f'<li><a class="internal" href="{html.escape(layout.relative(INDEX_PAGE, site.outputs[p]))}">'
                        f"{html.escape(title)}</a></li>\n" for p, title in listed)
        return fill(page_template, {
            "title": "Index", "site_title": html.escape(site_title), "root": "", "path": "", "kind": "index",
            "nav": nav(INDEX_PAGE), "content": f'<h1>Index</h1>\n<ul class="index">\n{items}</ul>',
        }).encode("utf-8")

    has_overview = OVERVIEW_FILE in site.outputs  # the header links it

    def note_digest(n: int) -> str:
        path = site.notes[n]
        return _digest(code, site_title, has_overview, site.stamp(path), site.links_of(path), site.embedded(path),
                       [(c.spec, site.raw_file(c.path).sha256, site.expected.get(c.path))
                        for c in site.cited(path) if c.path in site.outputs],
                       around.of(path).inputs)

    # (in this process: a forked one would copy every object it reads, each read writing its reference count,
    # which costs more than the digests)
    since = _since(site, around, _digest(code, site_title, has_overview, sorted(site.expected.items())))
    checked = _to_check(site, around, manifest.since, since)
    for n, path in enumerate(site.notes):
        site.facts(path)  # kept for the next export, checked or not
        old = manifest.outputs.get(site.outputs[path])
        digest = note_digest(n) if checked is None or path in checked or old is None else old
        emit(site.outputs[path], digest, partial(note_page, path))
    for path in sorted(site.raw_pages):
        emit(site.outputs[path], _digest(code, site_title, has_overview, site.raw_file(path).sha256),
             partial(raw_page, path))
    for path in site.copied:
        emit(site.outputs[path], _digest(site.stamp(path)), partial(copy, path))
    if INDEX_PAGE not in site.outputs.values():  # a plain Obsidian vault has no index.md: the site lists its notes
        listed = [(p, site.title(p)) for p in site.notes]
        emit(INDEX_PAGE, _digest(code, site_title, has_overview, listed), partial(index_page, listed))
    graph_page = fill(page_template, {
        "title": "Graph", "site_title": html.escape(site_title), "root": "", "path": "", "kind": "graph",
        "nav": nav(layout.GRAPH_PAGE),
        "content": '<h1>Graph</h1>\n<div id="graph" class="graph-full"></div>\n<div id="graph-legend"></div>',
    }).encode("utf-8")
    made = [(f"{layout.ASSETS}/{name}", asset(name)) for name in ASSET_FILES]
    made += [(layout.SEARCH_INDEX, search_index(site)), (layout.GRAPH_DATA, graph_data(site, around)),
             (layout.GRAPH_PAGE, graph_page)]
    for rel, data in made:
        emit(rel, hashlib.sha256(data).hexdigest(), partial(constant, data))
    _in_two(len(jobs), lambda n: _write(target, jobs[n][0], jobs[n][1]()))
    report.written = [rel for rel, _ in jobs]
    report.removed = manifest.remove_stale(target, outputs)
    manifest.save(target, outputs, site.found, around.found_groups, since)
    report.seconds = time.perf_counter() - started
    return report

