"""Capturing sources into raw/: formats, names, dedupe, the ledger, and every kind of bad input."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from ingest_helpers import make_pdf

from wikic.errors import UsageError
from wikic.ingest.capture import capture, load_source_text
from wikic.ingest.inputs import SourceError
from wikic.settings import IngestSettings
from wikic.text.extract import html_to_text, looks_like_transcript
from wikic.vault.formats.sources import read_sources
from wikic.vault.slug import SOURCE, slugify

ARTICLE = "# Attention Is All You Need\n\nThe Transformer relies on *self-attention*.\n"


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_markdown_is_copied_byte_for_byte_under_its_own_name_titled_by_its_heading(vault, inbox):
    src = inbox / "Transformer notes.md"
    src.write_bytes(b"\xef\xbb\xbf" + ARTICLE.replace("\n", "\r\n").encode())
    [item] = capture(vault, [str(src)])

    assert item.raw_path == item.text_path == "raw/articles/transformer-notes.md"
    assert (item.kind, item.media, item.title, item.new) == ("articles", "markdown", "Attention Is All You Need", True)
    assert (vault / item.raw_path).read_bytes() == src.read_bytes()
    assert item.text == ARTICLE  # BOM and CRLF normalised for the model and anchoring, not in the file
    assert load_source_text(vault, item.text_path) == item.text
    assert item.sha256 == hashlib.sha256(src.read_bytes()).hexdigest()


def test_plain_text_keeps_its_extension_and_is_named_after_the_file(vault, inbox):
    src = inbox / "meeting_notes-2024.txt"
    src.write_text("we agreed to ship on friday\n")
    [item] = capture(vault, [str(src)])
    assert item.raw_path == "raw/articles/meeting-notes-2024.txt"
    assert item.media == "text"


def test_html_keeps_the_original_and_stores_extracted_main_text(vault, inbox):
    page = (
        "<!DOCTYPE html><html><head><title>RAG explained</title><style>p{color:red}</style>"
        "<script>var tracking = 1;</script></head><body><header>Site banner</header><nav>Home | About</nav>"
        "<article><h1>Retrieval-augmented generation</h1><p>RAG combines <b>search</b> with a model.</p>"
        "<ul><li>retrieve</li><li>generate</li></ul><table><tr><th>k</th><th>score</th></tr></table></article>"
        "<footer>(c) 2024</footer></body></html>"
    )
    src = inbox / "rag.html"
    src.write_text(page)
    [item] = capture(vault, [str(src)])

    assert (item.raw_path, item.title) == ("raw/articles/rag.html", "RAG explained")
    assert item.text_path == "raw/articles/rag.md"
    assert (vault / item.raw_path).read_text() == page
    text = (vault / item.text_path).read_text()
    assert text == item.text
    assert text == (
        "# Retrieval-augmented generation\n\nRAG combines search with a model.\n\n- retrieve\n- "
        "generate\n\n| k | score |\n"
    )
    for chrome in ("tracking", "color:red", "Site banner", "Home | About", "(c) 2024"):
        assert chrome not in text


def test_html_charset_from_meta_is_honoured(vault, inbox):
    src = inbox / "Café.html"
    src.write_bytes(
        (
            '<html><head><meta charset="iso-8859-1"><title>Café</title></head>'
            "<body><p>Crème brûlée</p></body></html>"
        ).encode("latin-1")
    )
    [item] = capture(vault, [str(src)])
    assert item.title == "Café" and "Crème brûlée" in item.text
    assert item.raw_path == "raw/articles/café.html"


def test_pdf_goes_to_papers_with_its_text_beside_it(vault, inbox):
    src = inbox / "paper.pdf"
    src.write_bytes(
        make_pdf(["Scaling laws for neural language models", "Loss falls as a power law."], title="Scaling Laws")
    )
    [item] = capture(vault, [str(src)])
    assert (item.raw_path, item.text_path) == ("raw/papers/paper.pdf", "raw/papers/paper.md")
    assert item.title == "Scaling Laws"
    assert (item.kind, item.media) == ("papers", "pdf")
    assert (vault / item.raw_path).read_bytes() == src.read_bytes()
    assert "Loss falls as a power law." in (vault / item.text_path).read_text()


def test_image_goes_to_assets_without_text(vault, inbox):
    src = inbox / "Diagram 1.png"
    src.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    [item] = capture(vault, [str(src)])
    assert (item.raw_path, item.text_path, item.kind, item.text) == ("raw/assets/diagram-1.png", "", "assets", "")


def test_transcript_is_detected_or_forced(vault, inbox):
    talk = inbox / "episode.md"
    talk.write_text("[00:00:01] Host: Welcome back.\nGuest: Thanks.\n[00:00:09] Host: So, RAG?\nGuest: It retrieves.\n")
    essay = inbox / "essay.md"
    essay.write_text("Note: this is an essay.\n\nIt has paragraphs and prose.\n")
    first, second = capture(vault, [str(talk), str(essay)])
    assert first.kind == "transcripts" and first.raw_path.startswith("raw/transcripts/")
    assert second.kind == "articles"
    other = inbox / "plain.md"
    other.write_text("just some words\n")
    [forced] = capture(vault, [str(other)], kind="transcripts")
    assert forced.raw_path == "raw/transcripts/plain.md"


def test_transcript_heuristic():
    assert looks_like_transcript("WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n")
    assert looks_like_transcript("**Alice:** hi\n**Bob:** hey\n**Alice:** so\n**Bob:** yes\n")
    assert not looks_like_transcript("Title: Something\nAuthor: Me\n\nBody text.\n")
    assert not looks_like_transcript("Alice: one\nAlice: two\nAlice: three\nAlice: four\n")  # a monologue


def test_stdin_is_captured_under_its_first_line(vault):
    [item] = capture(vault, ["-"], stdin=io.BytesIO(b"Quarterly results were strong\n\nRevenue grew.\n"))
    assert item.raw_path == "raw/articles/quarterly-results-were-strong.md"
    assert item.origin == "-"
    assert read_sources(vault)[item.raw_path].origin == "stdin"


def test_url_is_fetched_and_recorded(vault, website):
    website.pages["/posts/rag"] = (
        200,
        "text/html; charset=utf-8",
        b"<html><head><title>Web RAG</title></head><body><p>Fetched text.</p></body></html>",
    )
    website.pages["/notes.md"] = (200, "text/markdown", b"# Markdown Notes\n\nline\n")
    url = f"{website.base_url}/posts/rag"
    html_item, md_item = capture(vault, [url, f"{website.base_url}/notes.md"])
    assert (html_item.raw_path, html_item.text_path) == ("raw/articles/web-rag.html", "raw/articles/web-rag.md")
    assert html_item.text == "Fetched text.\n"
    assert md_item.raw_path == "raw/articles/markdown-notes.md"
    assert read_sources(vault)[html_item.raw_path].origin == url


def test_url_errors_are_clean_and_write_nothing(vault, website):
    website.pages["/empty"] = (200, "text/plain", b"")
    for path, pattern in (("/missing", "HTTP 404"), ("/empty", "empty response")):
        with pytest.raises(SourceError, match=pattern):
            capture(vault, [f"{website.base_url}{path}"])
    website.delay = 2.0
    with pytest.raises(SourceError, match="cannot fetch") as info:
        capture(vault, [f"{website.base_url}/slow"], settings=IngestSettings(fetch_timeout=0.2))
    assert "timeout 0.2 s" in (info.value.hint or "")
    assert files_under(vault) == {"SCHEMA.md"}


def test_same_content_twice_is_the_same_raw_file(vault, inbox):
    a = inbox / "a.md"
    a.write_text(ARTICLE)
    b = inbox / "copy-of-a.md"
    b.write_text(ARTICLE)
    first, again = capture(vault, [str(a), str(b)])
    later = capture(vault, [str(a)])[0]
    assert first.new and not again.new and not later.new
    assert first.raw_path == again.raw_path == later.raw_path
    assert later.text == first.text
    assert len(list((vault / "raw").rglob("*.md"))) == 1
    assert len(read_sources(vault)) == 1


def test_different_content_with_the_same_name_gets_a_new_name(vault, inbox):
    paths = []
    for i in range(3):
        path = inbox / f"v{i}" / "Same Title.md"
        path.parent.mkdir()
        path.write_text(f"# Same Title\n\nversion {i}\n")
        paths.append(str(path))
    items = capture(vault, paths[:2]) + capture(vault, paths[2:])
    assert [i.raw_path for i in items] == [
        "raw/articles/same-title.md",
        "raw/articles/same-title-2.md",
        "raw/articles/same-title-3.md",
    ]
    assert (vault / "raw/articles/same-title.md").read_text() == "# Same Title\n\nversion 0\n"


def test_existing_file_with_the_name_is_never_overwritten(vault, inbox):
    (vault / "raw/articles").mkdir(parents=True)
    (vault / "raw/articles/attention-is-all-you-need.md").write_text("hand-placed, not in the ledger\n")
    (vault / "raw/articles/attention-is-all-you-need-2.html").write_text("<p>blocks the html stem</p>")
    src = inbox / "Attention is all you need.md"
    src.write_text(ARTICLE)
    [item] = capture(vault, [str(src)])
    assert item.raw_path == "raw/articles/attention-is-all-you-need-2.md"
    assert (vault / "raw/articles/attention-is-all-you-need.md").read_text() == "hand-placed, not in the ledger\n"
    html = inbox / "attention is all you need.html"
    html.write_text("<title>Attention Is All You Need</title><p>html version</p>")
    [page] = capture(vault, [str(html)])
    assert page.raw_path == "raw/articles/attention-is-all-you-need-3.html"  # -2 is taken by .md and by .html


def test_a_file_already_in_raw_is_registered_in_place(vault):
    folder = vault / "raw/papers"
    folder.mkdir(parents=True)
    (folder / "dropped.md").write_text("# Some Paper\n\ntext\n")
    [item] = capture(vault, [str(folder / "dropped.md")])
    assert item.raw_path == item.text_path == "raw/papers/dropped.md"
    assert item.kind == "papers" and item.new
    assert files_under(vault / "raw") == {"papers/dropped.md"}


def test_ledger_records_hashes_and_no_local_paths(vault, inbox):
    src = inbox / "paper.pdf"
    src.write_bytes(make_pdf(["Some text in a paper"]))
    [item] = capture(vault, [str(src)])
    ledger = json.loads((vault / ".wikic/sources.json").read_text())
    entry = ledger["sources"][item.raw_path]
    assert ledger["version"] == 1
    assert entry["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert entry["text_sha256"] == hashlib.sha256((vault / item.text_path).read_bytes()).hexdigest()
    assert (entry["kind"], entry["media"], entry["origin"], entry["text_path"]) == (
        "papers",
        "pdf",
        "paper.pdf",
        item.text_path,
    )
    assert str(inbox) not in json.dumps(ledger)


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("empty.md", b"", "empty file"),
        ("blank.md", b"  \n\n\t\n", "empty source"),
        ("blob.bin", b"abc\x00\x01\x02\x00def" * 10, "binary file"),
        ("russian.txt", "Привет, мир! Это заметки.".encode("koi8-r"), r"not UTF-8 text \(byte 0xf0 at offset 0\)"),
        ("short.txt", "中文笔记".encode("gbk"), r"could be .*GB18030"),
        # UTF-16 without a byte-order mark, cut one byte short: valid UTF-8 (NUL bytes), but not text
        pytest.param(
            "cut.txt",
            "Notes: the store is Chroma.".encode("utf-16-le") + b"\n",
            r"not UTF-8 text \(NUL bytes between the characters\); it could be utf-16-le",
            id="utf-16-cut-short",
        ),
        ("scan.pdf", make_pdf([]), "no text layer"),
        ("broken.pdf", b"%PDF-1.4\nthis is not really a pdf", "cannot read the PDF"),
        ("empty.html", b"<html><body><script>x()</script></body></html>", "empty source"),
    ],
)
def test_bad_inputs_are_clear_errors_naming_the_file_and_write_nothing(vault, inbox, name, content, pattern):
    good = inbox / "good.md"
    good.write_text(ARTICLE)
    bad = inbox / name
    bad.write_bytes(content)
    with pytest.raises(SourceError, match=pattern) as info:
        capture(vault, [str(good), str(bad)])
    assert str(bad) in info.value.message
    assert info.value.hint
    assert files_under(vault) == {"SCHEMA.md"}  # the good input was not written either


def test_missing_path_and_folder_are_errors(vault, inbox):
    with pytest.raises(SourceError, match="no such file") as info:
        capture(vault, [str(inbox / "nope.md")])
    assert "http" in (info.value.hint or "")
    with pytest.raises(SourceError, match="is a folder"):
        capture(vault, [str(inbox)])


def test_size_limit_is_checked_before_reading(vault, inbox):
    big = inbox / "huge.md"
    with big.open("wb") as handle:  # sparse: 100 MB without writing 100 MB
        handle.truncate(100 * 1024 * 1024)
    with pytest.raises(SourceError, match=r"100\.0 MB is larger than the 25\.0 MB limit") as info:
        capture(vault, [str(big)])
    assert "max_source_mb" in (info.value.hint or "")
    small_limit = IngestSettings(max_source_mb=0.001)
    (inbox / "k.md").write_text("x" * 2000)
    with pytest.raises(SourceError, match="larger than"):
        capture(vault, [str(inbox / "k.md")], settings=small_limit)
    with pytest.raises(SourceError, match="stdin: more than"):
        capture(vault, ["-"], stdin=b"y" * 2000, settings=small_limit)


def test_usage_errors(vault):
    with pytest.raises(UsageError, match="unknown source kind"):
        capture(vault, ["-"], kind="videos", stdin=b"x")
    with pytest.raises(UsageError, match="more than once"):
        capture(vault, ["-", "-"], stdin=b"x")
    with pytest.raises(SourceError, match="stdin: empty"):
        capture(vault, ["-"], stdin=b"   \n")


def test_nothing_is_written_outside_raw_and_state(vault, inbox):
    [item] = capture(vault, ["-"], stdin=b"# ../../etc/passwd\n\ntext\n")
    assert item.raw_path == "raw/articles/etc-passwd.md"
    assert {path.split("/")[0] for path in files_under(vault)} == {"SCHEMA.md", "raw", ".wikic"}


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Attention Is All You Need!", "attention-is-all-you-need"),
        ("注意力机制 (Attention)", "注意力机制-attention"),
        ("İstanbul’s Ａｉ", "i̇stanbul-s-ai"),  # casefolded, the combining dot kept, the apostrophe a hyphen
        ("Straße & Co.", "strasse-co"),
        ("नमस्ते दुनिया", "नमस्ते-दुनिया"),  # vowel signs are letters
        ("Dr. Jekyll's “Diary” — 1886", "dr-jekyll-s-diary-1886"),
        ("con", "con-source"),
        ("***", "source"),
    ],
)
def test_raw_names_keep_the_rules_they_were_first_given(vault, inbox, title, name):
    """Raw file names are fixed once captured: the source rules of the one slug function must name a source
    exactly as capture always has (these names are what earlier versions gave)."""
    assert slugify(title, rules=SOURCE) == name
    [item] = capture(vault, ["-"], stdin=f"---\ntitle: \"{title}\"\n---\nBody of {title}.\n".encode())
    assert item.raw_path == f"raw/articles/{name}.md"


def test_slugify_for_sources():
    long = slugify("word " * 40, rules=SOURCE)
    assert len(long) <= 80 and not long.endswith("-")


def test_html_extraction_keeps_nested_structure():
    title, text = html_to_text(
        "<html><body><div>Loose <i>inline</i> text<div><h2>Part</h2><blockquote><p>Quoted.</p></blockquote>"
        "<pre>code\n  block</pre><li><p>para item</p></li></div></div></body></html>"
    )
    assert title == "Part"
    assert text == "Loose inline text\n\n## Part\n\nQuoted.\n\ncode\n  block\n\npara item\n"


@pytest.mark.parametrize(
    ("text", "codec", "recorded"),
    [
        ("# 会议记录\n\n我们比较了向量数据库，决定在笔记本电脑上使用 Chroma。\n", "gbk", "gb18030"),
        ("# 會議記錄\n\n我們比較了向量資料庫，決定在筆記型電腦上使用 Chroma。\n", "big5", "big5"),
        (
            "# 会議メモ\n\nベクトルデータベースを比較して、ノートパソコンでは Chroma を使うことにしました。\n",
            "shift_jis",
            "shift_jis",
        ),
        ("# Notes\n\nThe café’s crème brûlée costs €5 – “worth it”.\n", "cp1252", "cp1252"),
        ("# Notes\n\nUTF-16 from a Windows editor, with 中文 too.\n", "utf-16", "utf-16-le"),
    ],
)
def test_other_encodings_are_converted_and_the_original_kept_verbatim(vault, inbox, text, codec, recorded):
    src = inbox / "notes.md"
    src.write_bytes(text.encode(codec))
    [item] = capture(vault, [str(src)])

    assert item.encoding == recorded
    assert item.text == text
    assert item.raw_path.endswith(".txt") and item.text_path == item.raw_path[:-4] + ".md"
    assert (vault / item.raw_path).read_bytes() == src.read_bytes()  # the original, byte for byte
    assert (vault / item.text_path).read_text(encoding="utf-8") == text
    assert load_source_text(vault, item.text_path) == text
    entry = read_sources(vault)[item.raw_path]
    assert entry.encoding == recorded and entry.text_path == item.text_path
    [again] = capture(vault, [str(src)])  # the same bytes again: the same capture, nothing new
    assert (again.raw_path, again.new, again.encoding) == (item.raw_path, False, recorded)


def test_a_named_encoding_wins_and_a_wrong_one_is_a_clear_error(vault, inbox):
    src = inbox / "short.txt"
    src.write_bytes("中文笔记".encode("gbk"))  # too short to tell GB18030 from Shift-JIS by itself
    with pytest.raises(SourceError) as info:
        capture(vault, [str(src)])
    assert "--encoding gb18030" in (info.value.hint or "") or "--encoding shift_jis" in (info.value.hint or "")
    assert "iconv -f" in (info.value.hint or "")
    [item] = capture(vault, [str(src)], encoding="gbk")
    assert item.text == "中文笔记" and item.encoding == "gbk"
    other = inbox / "other.txt"
    other.write_bytes(b"\xff\xfe\xfd plainly not big5 \x80")
    with pytest.raises(SourceError, match="not big5 text"):
        capture(vault, [str(other)], encoding="big5")
    with pytest.raises(SourceError, match="unknown encoding"):
        capture(vault, [str(other)], encoding="klingon")


def test_the_ledger_dates_a_source_on_the_day_a_run_says_it_is(vault, inbox):
    import datetime as dt

    from wikic.ingest.capture import commit
    from wikic.ingest.inputs import read_inputs

    (inbox / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (inbox / "b.md").write_text("# B\n\nOther text.\n", encoding="utf-8")
    (dated,) = commit(vault, read_inputs(vault, [str(inbox / "a.md")]), day=dt.date(2026, 9, 8))
    (now,) = commit(vault, read_inputs(vault, [str(inbox / "b.md")]))
    ledger = read_sources(vault.resolve())
    assert ledger[dated.raw_path].captured == "2026-09-08T00:00:00+00:00"
    seen = dt.datetime.fromisoformat(ledger[now.raw_path].captured or "")
    assert abs(dt.datetime.now(dt.UTC) - seen) < dt.timedelta(minutes=10)  # no day given: the clock's


def test_a_page_with_no_title_of_its_own_keeps_its_file_name_and_is_titled_by_it(vault, inbox):
    """Obsidian's help pages have no `# ` heading: the file's name is their title, never their first `##`
    section, and a `# Dog` in a code block is an example, not a heading."""
    src = inbox / "Graph view.md"
    src.write_text("---\naliases:\ndescription: Graph view is a core plugin.\n---\nGraph view is a core plugin.\n\n"
                   "```md\n# Dog\n```\n\n## Settings\n\nThe settings.\n")
    [item] = capture(vault, [str(src)])
    assert (item.raw_path, item.title) == ("raw/articles/graph-view.md", "Graph view")
    assert read_sources(vault)[item.raw_path].title == "Graph view"
    [stdin] = capture(vault, ["-"], stdin=b"```\n# Dog\n```\n\n# Cats\n\nCats purr.\n")
    assert (stdin.raw_path, stdin.title) == ("raw/articles/cats.md", "Cats")


def test_a_ledger_entry_naming_a_file_outside_the_vault_is_not_taken_for_the_capture(vault, inbox, tmp_path):
    # a cloned vault's ledger naming a file of the machine that holds the same bytes: never read, never reused
    outside = tmp_path / "outside.md"
    outside.write_text(ARTICLE)
    src = inbox / "a.md"
    src.write_text(ARTICLE)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    from wikic.vault.formats.sources import SourceEntry, write_sources

    planted = "raw/../../outside.md"
    (vault / "raw").mkdir()  # so that the name leads to the file
    assert (vault / planted).is_file()
    write_sources(vault, {planted: SourceEntry(sha256=digest, captured="2026-01-01", origin=str(outside))})
    [item] = capture(vault, [str(src)])
    assert item.new and item.raw_path == "raw/articles/a.md"
    assert (vault / item.raw_path).read_bytes() == src.read_bytes()
