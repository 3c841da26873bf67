"""`wikic export llms DIR`: llms.txt lists every page once under its type with its lead; llms-full.txt holds
every page's text as its reader sees it, citations as `[source: raw/x.md L10-L11]`; nothing is written but
those two files, in DIR, and DIR may not be where the vault keeps its own files."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.export.llms import FULL_FILE, LLMS_FILE, LlmsReport, export_llms
from wikic.export.site import export_site
from wikic.vault.layout import PAGE_FOLDERS

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "example-vault"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    dest = tmp_path / "example-vault"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns(".wikic"))
    return dest


def _export(root: Path, out: Path, **kwargs: Any) -> LlmsReport:
    with VaultContext(root) as context:
        return export_llms(context, out, **kwargs)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(dirpath) / name
            st = path.lstat()
            out[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def _pages(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for folder in PAGE_FOLDERS.values()
                  for p in (root / folder).rglob("*.md"))


def test_llms_txt_lists_every_page_once_under_its_type_with_its_lead(example: Path, tmp_path: Path) -> None:
    report = _export(example, tmp_path / "out")
    text = (tmp_path / "out" / LLMS_FILE).read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0] == "# AI Engineering & Knowledge Management"  # SCHEMA.md's Domain
    assert lines[2].startswith("> This wiki covers AI Engineering & Knowledge Management. It holds 12 pages")
    assert "[[" not in lines[2]  # overview.md's links read as their text
    assert [line for line in lines if line.startswith("#")][1:] == [
        "## Entities", "## Concepts", "## Comparisons", "## Queries", "## Sources"]
    items = [line for line in lines if line.startswith("- [")]
    linked = [re.match(r"- \[[^\]]*\]\(([^)]*)\)", line).group(1) for line in items]  # type: ignore[union-attr]
    assert sorted(linked) == _pages(example)  # every page, each once
    assert report.total == len(items) == 19 and report.pages["entity"] == 6 and report.links == "vault"
    # the entry is the page's title, its path and its lead (the lead index.md shows, anchors and ids gone)
    assert ("- [Chroma](entities/chroma.md): Chroma is an open-source embedding database with a Python client, "
            "which runs inside the application process or as a separate server.") in items
    section = text.split("## Concepts\n", 1)[1].split("##", 1)[0]
    assert "concepts/embeddings.md" in section and "entities/" not in section


def test_llms_full_holds_each_page_as_read_with_its_citations_as_sources(example: Path, tmp_path: Path) -> None:
    _export(example, tmp_path / "out")
    full = (tmp_path / "out" / FULL_FILE).read_text(encoding="utf-8")
    assert full.startswith("# AI Engineering & Knowledge Management\n\n> This wiki covers")
    assert "\n\nEvery page's text follows. A `[source: raw/x.md L10-L11]` after a sentence names the lines" in full
    chroma = full.split("\n# Chroma\n", 1)[1].split("\n# FAISS\n", 1)[0]
    assert chroma.startswith("\nLink: entities/chroma.md\n")
    assert ("Collections hold documents, their embeddings and metadata, and queries can filter on metadata. "
            "[source: raw/articles/vector-databases-field-notes.md L26-L27]") in chroma
    assert "- See also: FAISS, pgvector, Chroma vs pgvector vs FAISS, Embeddings" in chroma  # links as their text
    assert "## Key facts" in chroma and "## Decisions and events" in chroma
    assert "\n> Claims\n" in chroma  # a callout's title as its reader sees it: no type, no fold mark, one space
    assert not re.search(r"^> {2,}\S", full, re.MULTILINE)
    # no frontmatter, compiler markers, claims' rows, comments, block ids or link syntax, on any page
    for gone in ("wikic:", "<!--", "-->", "%%", "^[", "[[", "]]", "sha=", "seen=", "summary:", "type: entity"):
        assert gone not in full, gone
    assert not re.search(r"\^c[0-9a-f]{8}", full)
    assert not re.search(r"\n{3}", full)  # what a marker or comment held leaves no run of blank lines
    for path in _pages(example):
        assert full.count(f"\nLink: {path}\n") == 1, path


def test_a_persons_page_loses_its_comments_and_block_ids_and_keeps_its_code(tmp_path: Path) -> None:
    body = (
        "# Acme\n\n"
        "Acme makes [[widget|widgets]] and [[gadget#Sizes]]. ^para-1\n"
        "%% a note to self %%Visible after a comment.\n\n"
        "<!-- a comment\nover three\nlines -->\n"
        "![[diagram.png]]\n"
        "It was founded in 1990. ^[raw/articles/source-a.md:L7] ^[[[raw/articles/source-b.md|source-b.md]] L3-L4]\n\n"
        "> [!note] Aside\n> Kept as said.\n\n"
        "Code keeps `[[as written]]` and `^[raw/x.md:L1]`.\n"
    )
    root = make_vault(tmp_path, {"entities/acme.md": page("Acme", body=body, summary="Acme makes widgets.")})
    report = _export(root, tmp_path / "out")
    full = (tmp_path / "out" / FULL_FILE).read_text(encoding="utf-8")
    acme = full.split("\n# Acme\n", 1)[1]
    assert "Acme makes widgets and gadget > Sizes." in acme
    assert "^para-1" not in acme and "note to self" not in acme and "over three" not in acme
    assert "\nVisible after a comment.\n" in acme
    assert "diagram.png" not in acme
    assert ("It was founded in 1990. [source: raw/articles/source-a.md L7] "
            "[source: raw/articles/source-b.md L3-L4]") in acme
    assert "> Kept as said." in acme
    assert "Code keeps `[[as written]]` and `^[raw/x.md:L1]`." in acme
    listing = (tmp_path / "out" / LLMS_FILE).read_text(encoding="utf-8")
    assert "\n\n## Entities\n\n- [Acme](entities/acme.md): Acme makes widgets.\n" in listing  # no lead block
    assert report.skipped == {}


def test_a_plain_vault_is_titled_by_its_folder(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"Ideas.md": "# Ideas\n\nSee [[Later]].\n", "Later.md": "Text.\n"},
                      schema=False, name="My notes")
    _export(root, tmp_path / "out")
    listing = (tmp_path / "out" / LLMS_FILE).read_text(encoding="utf-8")
    assert listing == ("# My notes\n\nEach page below: its title, its link and its lead. llms-full.txt holds every "
                       "page's text.\n\n## Notes\n\n- [Ideas](Ideas.md)\n- [Later](Later.md)\n")
    full = (tmp_path / "out" / FULL_FILE).read_text(encoding="utf-8")
    assert "# Ideas\n\nLink: Ideas.md\n\nSee Later.\n" in full and "# Later\n\nLink: Later.md\n\nText.\n" in full


def test_links_lead_to_the_site_in_the_same_folder_or_at_its_url(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "entities").mkdir(parents=True)
    (out / "index.html").write_text("<html></html>", encoding="utf-8")
    (out / "entities" / "chroma.html").write_text("<html></html>", encoding="utf-8")
    report = _export(example, out, force=True)
    listing = (out / LLMS_FILE).read_text(encoding="utf-8")
    assert report.links == "site"
    assert "- [Chroma](entities/chroma.html): " in listing
    assert "- [FAISS](entities/faiss.md): " in listing  # a page the site does not hold keeps its vault path
    report = _export(example, tmp_path / "elsewhere", site_url="https://example.org/wiki/")
    listing = (tmp_path / "elsewhere" / LLMS_FILE).read_text(encoding="utf-8")
    assert report.links == "site-url"
    assert "- [FAISS](https://example.org/wiki/entities/faiss.html): " in listing
    full = (tmp_path / "elsewhere" / FULL_FILE).read_text(encoding="utf-8")
    assert "\nLink: https://example.org/wiki/entities/faiss.html\n" in full


def test_it_writes_the_two_files_and_nothing_else(example: Path, tmp_path: Path) -> None:
    before = _snapshot(example)
    out = tmp_path / "new" / "out"
    _export(example, out)
    assert sorted(p.name for p in out.iterdir()) == [FULL_FILE, LLMS_FILE]
    assert _snapshot(example) == before  # not even a cache in .wikic/


@pytest.mark.parametrize("where", [".", "raw", "raw/articles/llms", ".wikic", "entities", "sources/x", "link"])
def test_a_folder_the_vault_keeps_its_own_files_in_is_refused(example: Path, where: str) -> None:
    (example / "link").symlink_to(example / "raw")  # a link into raw/ is raw/
    before = _snapshot(example)
    with pytest.raises(UsageError) as caught:
        _export(example, example / where)
    assert caught.value.exit_code == 2
    assert "refusing to export into" in caught.value.message and caught.value.hint
    assert _snapshot(example) == before


def test_a_folder_of_the_vaults_own_is_allowed(example: Path) -> None:
    _export(example, example / "site")
    assert (example / "site" / LLMS_FILE).is_file()


def test_a_folder_of_a_persons_files_is_refused_unless_forced(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError, match="holds files that no export of wikic wrote"):
        _export(example, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    _export(example, out, force=True)
    assert sorted(p.name for p in out.iterdir()) == [FULL_FILE, LLMS_FILE, "notes.txt"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_an_earlier_llms_export_and_a_site_share_a_folder_in_either_order(example: Path, tmp_path: Path) -> None:
    first = tmp_path / "llms-first"
    _export(example, first)
    _export(example, first)  # its own files are an export's, not a person's
    with VaultContext(example) as context:
        export_site(context, first)  # nor are they to the site
    assert (first / "entities" / "chroma.html").is_file()
    assert _export(example, first).links == "site"
    second = tmp_path / "site-first"
    with VaultContext(example) as context:
        export_site(context, second)
    report = _export(example, second)
    listing = (second / LLMS_FILE).read_text(encoding="utf-8")
    assert report.links == "site" and "- [Chroma](entities/chroma.html): " in listing
    assert "](entities/" in listing and ".md)" not in listing  # every page has its page in the site


def test_a_file_given_as_the_folder_is_refused(example: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError, match="it is not a folder"):
        _export(example, tmp_path / "taken")
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "mine"


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(app, ["export", "llms", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def test_the_command_writes_the_files_and_refuses_with_exit_2(example: Path, tmp_path: Path) -> None:
    result = _cli(str(tmp_path / "out"), "--vault", str(example))
    assert result.exit_code == 0, result.output
    assert "llms.txt and llms-full.txt written (19 pages; links lead to the vault's pages)" in result.output
    assert (tmp_path / "out" / LLMS_FILE).is_file()
    result = _cli(str(tmp_path / "out"), "--vault", str(example), "--json", "--site-url", "https://w.example/")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["links"] == "site-url"
    result = _cli(str(example / "raw"), "--vault", str(example))
    assert result.exit_code == 2
    assert "Error: refusing to export into" in result.output and "raw/" in result.output
    result = _cli(str(tmp_path / "out"), "--vault", str(example), "--site-url", "wiki.example.org")
    assert result.exit_code == 2 and "is not a web address" in result.output


def test_bad_pages_are_listed_without_a_crash_and_a_link_out_of_the_vault_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere.md"
    secret.write_text("# Secret\n\nNot the vault's.\n", encoding="utf-8")
    root = make_vault(tmp_path, {
        "entities/bytes.md": b"---\ntitle: Bytes\n---\n# Bytes\n\nCaf\xe9 \xff text.\n",
        "entities/yaml.md": "---\ntitle: [unclosed\n---\n# Yaml\n\nStill read.\n",
        "entities/held.md": page("Held", body="# Held\n\nA \ue000" "0\ue001 mark. ^[raw/articles/source-a.md:L2]\n"),
    })
    (root / "entities" / "away.md").symlink_to(secret)
    report = _export(root, tmp_path / "out")
    listing = (tmp_path / "out" / LLMS_FILE).read_text(encoding="utf-8")
    full = (tmp_path / "out" / FULL_FILE).read_text(encoding="utf-8")
    assert report.pages == {"entity": 3} and "away" not in listing and "Secret" not in full
    assert "- [Bytes](entities/bytes.md)" in listing and "Caf\ufffd \ufffd text." in full
    assert "- [yaml](entities/yaml.md)" in listing and "# Yaml\n\nLink: entities/yaml.md\n\nStill read." in full
    assert "unclosed" not in full  # frontmatter YAML cannot read is still no text of the page
    assert "A 0 mark. [source: raw/articles/source-a.md L2]" in full  # a page's own private-use marks are dropped
