"""`wikic export site`: the static site's pages, links, citations, refusals and incremental rewrites."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.context import VaultContext
from wikic.errors import ConfigError, UsageError
from wikic.export.site import SiteReport, export_site
from wikic.vault.formats.sources import SourceEntry, write_sources

EXAMPLE = Path(__file__).resolve().parents[2] / "example-vault"


class _Page(HTMLParser):
    """An exported page's ids, links, tags and scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if found.get("id"):
            self.ids.add(str(found["id"]))
        for key in ("href", "src"):
            if found.get(key) is not None:
                self.links.append((tag, str(found[key])))


def _read(path: Path) -> _Page:
    parsed = _Page()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def _pages(out: Path) -> dict[str, _Page]:
    return {p.relative_to(out).as_posix(): _read(p) for p in sorted(out.rglob("*.html"))}


def _dead_links(out: Path) -> list[str]:
    """Every link of every page that reaches no file of the site, or no element of the page it names."""
    pages = _pages(out)
    dead = []
    for rel, parsed in pages.items():
        for _, href in parsed.links:
            url = urlsplit(href)
            if url.scheme or url.netloc:
                dead.append(f"{rel}: {href} leaves the site")
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(rel), unquote(url.path))) if url.path else rel
            if not (out / target).is_file():
                dead.append(f"{rel}: {href} reaches no file")
            elif url.fragment and target.endswith(".html") and unquote(url.fragment) not in pages[target].ids:
                dead.append(f"{rel}: {href} reaches no element")
    return dead


def _export(root: Path, out: Path, **options: Any) -> SiteReport:
    with VaultContext(root) as context:
        return export_site(context, out, **options)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".wikic"))
    return root


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# -- the example vault ---------------------------------------------------------------------------------------


def test_the_example_vault_becomes_a_site_whose_every_link_resolves(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    report = _export(example, out)
    for rel in ("index.html", "overview.html", "entities/chroma.html", "sources/embeddings-primer.html",
                "queries/which-vector-store-for-a-laptop.html", "raw/articles/embeddings-primer.html",
                "raw/assets/rag-pipeline.png", "graph.html", "assets/site.css", "assets/site.js",
                "assets/cytoscape.min.js", "assets/cytoscape.LICENSE", "assets/search-index.js",
                "assets/graph-data.js", "assets/favicon.svg"):
        assert (out / rel).is_file(), rel
    assert not (out / "identity.html").exists() and not (out / "wikic.toml").exists()
    assert report.pages == len([p for p in example.rglob("*.md") if "raw" not in p.parts]) - 1  # identity.md
    assert report.sources == 5 and report.unchanged == 0
    assert _dead_links(out) == []
    for rel, parsed in _pages(out).items():  # no network at view time: every script and style is the site's own
        for tag, attrs in parsed.tags:
            if tag in ("script", "link", "img"):
                where = attrs.get("src") or attrs.get("href") or ""
                assert not urlsplit(where).scheme, (rel, where)


def test_a_citation_links_its_source_lines_and_carries_them(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(example, out)
    chroma = (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    lines = (example / "raw/articles/vector-databases-field-notes.md").read_text(encoding="utf-8").split("\n")
    quoted = "\n".join(lines[23:26]).strip().replace("'", "&#x27;")
    assert ('<a class="cite" href="../raw/articles/vector-databases-field-notes.html#L24" '
            'data-source="raw/articles/vector-databases-field-notes.md" data-lines="24-26" '
            f'data-quote="{quoted}">vector-databases-field-notes.md L24-L26</a>') in chroma
    # the claims in the Claims callout too, folded as in Obsidian, each with its block id as its anchor
    claims = chroma.split('<details class="callout callout-quote"><summary class="callout-title">Claims</summary>')
    assert len(claims) > 2
    claim = '<li id="block-cb04e1c6a">Chroma is an open-source embedding database with a Python client. <a class="cite"'
    assert claim in claims[1]
    assert "^cb04e1c6a" not in chroma and "wikic:begin" not in chroma
    raw = _read(out / "raw/articles/vector-databases-field-notes.html")
    assert {f"L{n}" for n in range(1, len(lines))} <= raw.ids


def test_a_citation_whose_source_changed_is_marked_drifted(example: Path, tmp_path: Path) -> None:
    source = "raw/articles/vector-databases-field-notes.md"
    text = (example / source).read_text(encoding="utf-8")
    write_sources(example, {source: SourceEntry(sha256=hashlib.sha256(text.encode()).hexdigest())})
    out = tmp_path / "site"
    _export(example, out)
    assert 'class="cite drifted"' not in (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    (example / source).write_text(text.replace("friendly", "small"), encoding="utf-8")
    _export(example, out)
    chroma = (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="cite drifted" href="../raw/articles/vector-databases-field-notes.html#L24" '
                     r'data-source="[^"]+" data-lines="24-26" data-quote="[^"]*small[^"]*">'
                     r'vector-databases-field-notes.md L24-L26 <span class="drift-mark"', chroma)
    # a source the ledger does not know drifts when the lines are gone
    other = "raw/transcripts/2026-10-20-team-sync-wiki-vs-rag.md"
    (example / other).write_text("one line\n", encoding="utf-8")
    _export(example, out)
    chroma = (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    assert 'class="cite drifted" href="../raw/transcripts/2026-10-20-team-sync-wiki-vs-rag.html#L38"' in chroma
    assert 'data-lines="38">2026' in chroma  # no quote: the lines are gone


def test_the_search_index_holds_titles_aliases_and_leads(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(example, out)
    script = (out / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert script.startswith("window.WIKIC_SEARCH = ")
    entries = json.loads(script.removeprefix("window.WIKIC_SEARCH = ").rstrip().rstrip(";"))
    qwen = next(e for e in entries if e["u"] == "entities/qwen3.html")
    assert qwen["t"] == "Qwen3" and qwen["a"] and qwen["l"].startswith("Qwen3 models include")
    graph = json.loads((out / "assets/graph-data.js").read_text(encoding="utf-8")
                       .removeprefix("window.WIKIC_GRAPH = ").rstrip().rstrip(";"))
    ids = [n[0] for n in graph["nodes"]]
    chroma, faiss = ids.index("entities/chroma.md"), ids.index("entities/faiss.md")
    assert [chroma, faiss] in graph["edges"] and graph["groups"]
    assert graph["nodes"][chroma][1:] == ["Chroma", "entities/chroma.html", graph["nodes"][chroma][3]]
    assert graph["nodes"][chroma][3] >= 0


def test_around_a_page_its_backlinks_cluster_and_sources(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(example, out)
    chroma = (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    backlinks = chroma.split('<ul class="backlinks">')[1].split("</ul>")[0]
    assert '<a class="internal" href="faiss.html">FAISS</a>' in backlinks
    assert '<a class="internal" href="../index.html">' in backlinks
    graph = json.loads((out / "assets/graph-data.js").read_text(encoding="utf-8")
                       .removeprefix("window.WIKIC_GRAPH = ").rstrip().rstrip(";"))
    number = [n[0] for n in graph["nodes"]].index("entities/chroma.md")
    cluster = graph["groups"][graph["nodes"][number][3]]
    assert number in cluster["members"] and len(cluster["members"]) > 2 and cluster["label"]
    sources = chroma.split('<ul class="sources">')[1].split("</ul>")[0]
    assert ('<a class="internal" href="../raw/articles/vector-databases-field-notes.html">'
            'vector-databases-field-notes.md</a> (<a class="internal" '
            'href="../sources/vector-databases-field-notes.html"') in sources
    # a list with nothing in it says so rather than leaving its heading alone
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<h2>Sources</h2><p class="none">No source cited.</p>' in index
    assert '<ul class="sources">' not in index


# -- Obsidian's syntax ----------------------------------------------------------------------------------------


def test_obsidian_syntax_renders_as_obsidian_shows_it(tmp_path: Path) -> None:
    target_body = ("# Target\n\nLead line.\n\n## Setup steps\n\nInstall it first. ^step1\n\n## Later\n\n"
                   "Not in the section.\n")
    body = (
        "# Host\n\n"
        "See [[target|the target]], [[target#Setup steps]], [[target#^step1|step one]] and [[nowhere]].\n\n"
        "A [markdown link](target.md#later) and #sometag, with a note.^[An inline footnote.]\n\n"
        "![[target#Setup steps]]\n\n"
        "![[diagram.png]]\n\n"
        "> [!note]- Folded\n> hidden text\n\n"
        "> [!tip]+ Open\n> shown text\n\n"
        "> [!warning] Boxed\n> boxed text\n\n"
        "- [ ] a task\n- [x] done\n\n"
        "A paragraph with an id. ^para-1\n\n"
        "Math $x^2$ stays text. %%a hidden comment%%\n"
    )
    root = make_vault(tmp_path, {
        "concepts/host.md": page("Host", "concept", body=body, aliases=["Hôte"]),
        "concepts/target.md": page("Target", "concept", body=target_body),
        "concepts/diagram.png": b"\x89PNG\r\n\x1a\n",
    })
    out = tmp_path / "site"
    _export(root, out)
    host = (out / "concepts" / "host.html").read_text(encoding="utf-8")
    assert '<a class="internal" href="target.html">the target</a>' in host
    assert '<a class="internal" href="target.html#setup-steps">target &gt; Setup steps</a>' in host
    assert '<a class="internal" href="target.html#block-step1">step one</a>' in host
    assert re.search(r'<a class="broken" title="[^"]*nowhere">nowhere</a>', host)
    assert '<a href="target.html#later" class="internal">markdown link</a>' in host
    assert '<span class="tag">#sometag</span>' in host
    assert 'class="footnote-ref"' in host and "An inline footnote." in host
    embed = host.split('<div class="embed" data-source="concepts/target.md">')[1]
    assert "Install it first." in embed.split("</div></div>")[0] or "Install it first." in embed
    assert "Not in the section." not in host
    assert '<img class="embed-image" src="diagram.png" alt="diagram.png">' in host
    assert (out / "concepts" / "diagram.png").read_bytes() == b"\x89PNG\r\n\x1a\n"
    assert '<details class="callout callout-note"><summary class="callout-title">Folded</summary>' in host
    assert '<details class="callout callout-tip" open><summary class="callout-title">Open</summary>' in host
    assert '<div class="callout callout-warning"><div class="callout-title">Boxed</div>' in host
    assert 'type="checkbox"' in host and 'id="block-para-1"' in host and "^para-1" not in host
    assert '<code class="math">x^2</code>' in host and "hidden comment" not in host
    assert '<tr><th>aliases</th><td>Hôte</td></tr>' in host
    target = _read(out / "concepts" / "target.html")
    assert {"setup-steps", "block-step1", "later"} <= target.ids
    assert _dead_links(out) == []


def test_a_hostile_page_puts_no_script_or_handler_into_the_site(tmp_path: Path) -> None:
    body = (
        "# Hostile\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "Text <b onmouseover=alert(3)>bold</b> and [click](javascript:alert(4)) and ![i](javascript:alert(5)).\n\n"
        "[[x\"><script>alert(6)</script>|y\" onclick=\"alert(7)]]\n"
    )
    root = make_vault(tmp_path, {
        "entities/hostile.md": page('"><script>alert(8)</script>', body=body,
                                    summary="<iframe src=javascript:alert(9)>"),
    })
    out = tmp_path / "site"
    _export(root, out)
    parsed = _read(out / "entities" / "hostile.html")
    scripts = [attrs.get("src") for tag, attrs in parsed.tags if tag == "script"]
    assert scripts and all(src and src.startswith("../assets/") for src in scripts)
    assert not [tag for tag, _ in parsed.tags if tag in ("iframe", "b")]
    for tag, attrs in parsed.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        assert not str(attrs.get("href") or attrs.get("src") or "").lower().startswith("javascript"), (tag, attrs)
    text = (out / "entities" / "hostile.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


# -- where it may write ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("where", "said"), [
    (".", "it is the vault itself"),
    ("entities/site", "it is inside entities/ (a page folder)"),
    ("raw", "it is inside raw/ (the raw sources)"),
    ("raw/articles/site", "it is inside raw/ (the raw sources)"),
    (".wikic/site", "it is inside .wikic/ (wikic's own state)"),
    ("..", "it holds the vault"),
])
def test_a_folder_in_the_vaults_own_places_is_refused_before_anything_is_written(
    example: Path, where: str, said: str
) -> None:
    before = _tree(example.parent)
    with pytest.raises(UsageError, match=re.escape(said)):
        _export(example, example / where)
    assert _tree(example.parent) == before


def test_a_folder_of_someone_elses_files_is_refused_unless_forced_and_theirs_are_kept(
    example: Path, tmp_path: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match="holds files that no export of wikic wrote"):
        _export(example, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    _export(example, out, force=True)
    (example / "entities" / "faiss.md").unlink()
    report = _export(example, out)  # a previous export's folder: no --force needed
    assert report.removed == ["entities/faiss.html"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine\n"


def test_nothing_is_written_outside_the_folder_and_the_vault_is_untouched(example: Path, tmp_path: Path) -> None:
    (example / "elsewhere").mkdir()
    before = _tree(example)
    out = tmp_path / "site"
    _export(example, out)
    _export(example, out)
    after = _tree(example)
    # the notes parsed are kept in lint's cache, as lint keeps them: nothing else of the vault changes
    assert {k: v for k, v in after.items() if not k.startswith(".wikic/cache/")} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "vault"]


def test_a_folder_inside_the_vault_elsewhere_is_not_exported_into_itself(example: Path) -> None:
    out = example / "public"
    first = _export(example, out)
    second = _export(example, out)
    assert not (out / "public").exists()
    assert second.written == [] and second.unchanged == len(first.written)


def test_a_manifest_naming_files_outside_the_folder_deletes_none_of_them(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(example, out)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    manifest = json.loads((out / ".wikic-site.json").read_text(encoding="utf-8"))
    manifest["outputs"].update({"../victim.txt": "x", str(victim): "x"})
    (out / ".wikic-site.json").write_text(json.dumps(manifest), encoding="utf-8")
    report = _export(example, out)
    assert victim.read_text(encoding="utf-8") == "keep\n" and report.removed == []


# -- incremental -----------------------------------------------------------------------------------------------


def test_a_second_export_rewrites_only_what_changed(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = _export(example, out)
    assert len(first.written) > 30
    again = _export(example, out)
    assert again.written == [] and again.unchanged == len(first.written)

    # a sentence changed: that page alone
    faiss = example / "entities" / "faiss.md"
    faiss.write_text(faiss.read_text(encoding="utf-8").replace("## Relations", "More words.\n\n## Relations"),
                     encoding="utf-8")
    assert _export(example, out).written == ["entities/faiss.html"]

    # a link added: the page, the page it now leads to (a backlink more), and the graph
    faiss.write_text(faiss.read_text(encoding="utf-8").replace("More words.", "More words on [[obsidian]]."),
                     encoding="utf-8")
    assert sorted(_export(example, out).written) == ["assets/graph-data.js", "entities/faiss.html",
                                                     "entities/obsidian.html"]

    # a raw source edited: its page, and the pages quoting it
    raw = example / "raw" / "articles" / "embeddings-primer.md"
    raw.write_text(raw.read_text(encoding="utf-8") + "\nA line at the end.\n", encoding="utf-8")
    written = _export(example, out).written
    assert "raw/articles/embeddings-primer.html" in written and "concepts/embeddings.html" in written
    assert "entities/chroma.html" not in written and "index.html" not in written


def test_the_template_can_be_replaced_and_a_wrong_one_is_refused(example: Path, tmp_path: Path) -> None:
    template = tmp_path / "page.html"
    template.write_text("<html><title>$title</title><body data-root=\"$root\">$content<nav>$backlinks</nav>"
                        "</body></html>", encoding="utf-8")
    out = tmp_path / "site"
    _export(example, out, template=template)
    chroma = (out / "entities" / "chroma.html").read_text(encoding="utf-8")
    assert chroma.startswith("<html><title>Chroma</title><body data-root=\"../\">")
    template.write_text("<p>$nope</p>", encoding="utf-8")
    with pytest.raises(UsageError, match=r"names no placeholder called \$nope"):
        _export(example, out, template=template)


def test_the_command_reports_what_it_wrote(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(app, ["export", "site", str(out), "--vault", str(example), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["pages"] > 20 and "entities/chroma.html" in data["written"] and data["unchanged"] == 0
    result = CliRunner().invoke(app, ["export", "site", str(out), "--vault", str(example)])
    assert result.exit_code == 0 and "0 files written" in result.stdout


def test_the_vaults_template_is_a_file_inside_it(example: Path, tmp_path: Path) -> None:
    (example / "site-page.html").write_text("<main>$title|$content</main>", encoding="utf-8")
    toml = example / "wikic.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[export]\ntemplate = "site-page.html"\n', encoding="utf-8")
    out = tmp_path / "site"
    _export(example, out)
    assert (out / "entities" / "chroma.html").read_text(encoding="utf-8").startswith("<main>Chroma|")
    secret = tmp_path / "secret.txt"
    secret.write_text("$title private\n", encoding="utf-8")
    for named in (str(secret), "../secret.txt"):
        toml.write_text(toml.read_text(encoding="utf-8").replace('"site-page.html"', f'"{named}"')
                        .replace(f'"{secret!s}"', f'"{named}"'), encoding="utf-8")
        with pytest.raises(ConfigError, match="is not a file inside the vault"):
            _export(example, tmp_path / "other")
    (example / "linked.html").symlink_to(secret)
    toml.write_text(toml.read_text(encoding="utf-8").replace('"../secret.txt"', '"linked.html"'), encoding="utf-8")
    with pytest.raises(ConfigError, match="leads outside the vault"):
        _export(example, tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_a_second_process_writing_half_the_outputs_writes_the_same_site(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wikic.export.site as site_module

    alone = tmp_path / "alone"
    _export(example, alone)
    monkeypatch.setattr(site_module, "FORK_AT", 2)
    shared = tmp_path / "shared"
    report = _export(example, shared)
    assert len(report.written) > 30
    assert _tree(shared) == _tree(alone)
    assert _export(example, shared).written == [] and _export(example, alone).written == []


def test_a_raw_source_is_shown_as_text_and_an_embed_follows_what_it_shows(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {
        "raw/articles/hostile.md": "# Notes\n<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n",
        "concepts/host.md": page("Host", "concept", body="# Host\n\n![[part#Kept]]\n"),
        "concepts/part.md": page("Part", "concept", body="# Part\n\n## Kept\n\nSee [[later]].\n"),
    })
    out = tmp_path / "site"
    _export(root, out)
    raw = _read(out / "raw" / "articles" / "hostile.html")
    assert not [tag for tag, _ in raw.tags if tag == "img"] and "L3" in raw.ids
    text = (out / "raw" / "articles" / "hostile.html").read_text(encoding="utf-8")
    assert '<span class="lc">&lt;script&gt;alert(1)&lt;/script&gt;</span>' in text
    host = (out / "concepts" / "host.html").read_text(encoding="utf-8")
    assert '<a class="broken" title="no note or file named later">later</a>' in host
    # the embedded section's link now lands: the page embedding it is written again, and shows it
    (root / "concepts" / "later.md").write_text(page("Later", "concept"), encoding="utf-8")
    written = _export(root, out).written
    assert "concepts/host.html" in written and "concepts/later.html" in written
    assert '<a class="internal" href="later.html">later</a>' in (out / "concepts" / "host.html").read_text(
        encoding="utf-8")


def test_a_plain_obsidian_vault_gets_an_index_of_its_notes(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"Home.md": "# Home\n\nSee [[Other]] and [[sub/Deep#Part]].\n",
                                 "Other.md": "---\naliases: [O]\n---\n# Other\n\nBack to [[Home]].\n",
                                 "sub/Deep.md": "# Deep\n\n## Part\n\ntext\n"}, schema=False)
    out = tmp_path / "site"
    _export(root, out)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<li><a class="internal" href="sub/Deep.html">Deep</a></li>' in index
    assert '<a class="internal" href="sub/Deep.html#part">sub/Deep &gt; Part</a>' in (out / "Home.html").read_text(
        encoding="utf-8")
    assert _dead_links(out) == []


def test_a_page_whose_name_holds_url_characters_is_reached_by_every_link(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {
        "concepts/50% off.md": page("Half off", "concept", body="# Half\n\nSee [[a?b]].\n"),
        "concepts/a?b.md": page("A or B", "concept", body="# A?\n\nBack to [[50% off]].\n"),
    })
    out = tmp_path / "site"
    _export(root, out)
    assert (out / "concepts" / "50% off.html").is_file()
    assert '<a class="internal" href="50%25%20off.html">50% off</a>' in (
        out / "concepts" / "a?b.html").read_text(encoding="utf-8")
    assert _dead_links(out) == []
    entries = json.loads((out / "assets" / "search-index.js").read_text(encoding="utf-8")
                         .removeprefix("window.WIKIC_SEARCH = ").rstrip().rstrip(";"))
    assert {"concepts/50%25%20off.html", "concepts/a%3Fb.html"} <= {e["u"] for e in entries}


def test_an_export_after_each_change_is_the_export_made_afresh(example: Path, tmp_path: Path) -> None:
    """Only the pages a change can reach are checked again: after each kind of change, the site written
    incrementally is, file for file, the site a new export makes."""
    out = tmp_path / "site"
    _export(example, out)

    def edit(rel: str, old: str, new: str) -> None:
        path = example / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    source = "raw/articles/vector-databases-field-notes.md"
    steps: list[Callable[[], object]] = [
        lambda: edit("entities/faiss.md", "## Relations", "More words.\n\n## Relations"),
        lambda: edit("entities/faiss.md", "More words.", "More words on [[obsidian]]."),
        lambda: edit("entities/ollama.md", "title: Ollama", "title: Ollama server"),
        lambda: [(example / "concepts" / name).write_text(page(name[:-3].title(), "concept", body=body),
                                                          encoding="utf-8") for name, body in (
            ("pointer.md", "# Pointer\n\nSee [[chroma#Key facts]].\n"),
            ("linker.md", "# Linker\n\n![[chroma#Key facts]]\n"),
            ("outer.md", "# Outer\n\n![[linker]]\n"))],
        lambda: edit("entities/chroma.md", "## Key facts", "## Main facts"),
        lambda: edit("entities/chroma.md", "Chroma runs embedded", "Chroma, in short, runs embedded"),
        lambda: edit(source, "friendly", "small"),
        lambda: edit("entities/faiss.md", "More words on [[obsidian]].", "More words."),
        lambda: edit("sources/vector-databases-field-notes.md", "title: ", "title: The "),
        lambda: write_sources(example, {source: SourceEntry(sha256="0" * 64)}),
        lambda: (example / "entities" / "qwen3.md").unlink(),
    ]
    for n, step in enumerate(steps):
        step()
        _export(example, out)
        fresh = tmp_path / f"fresh-{n}"
        _export(example, fresh)
        assert _tree(out) == _tree(fresh), n


def test_the_collector_waits_while_the_vault_is_in_memory(example: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The vault is read whole and kept while the site is made: the cyclic collector, which would walk its
    millions of objects again and again, waits until the export is done (as in lint)."""
    import gc

    from wikic.vault.load import load_vault

    seen: list[bool] = []

    def load(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return load_vault(*args, **kwargs)

    monkeypatch.setattr("wikic.export.site.load_vault", load)
    assert gc.isenabled()
    _export(example, tmp_path / "site")
    assert seen == [False] and gc.isenabled()
