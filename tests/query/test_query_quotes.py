"""The model declines, the context holds the answer: the matching sentences are quoted, cited, status quoted.

The vaults here are raw sources (and hand-written pages) indexed by the palace, asked through the CLI with
the stand-in model answering "not in the wiki"; the selection rules themselves are unit-tested on
hand-built contexts at the end.
"""

from __future__ import annotations

from pathlib import Path

from library import open_palace
from querykit import QueryWiki, as_json
from standin_openai import StandinServer

from wikic.ingest.capture import capture
from wikic.query.citations import SENTINEL
from wikic.query.quotes import QUOTED_MARK, quote_context
from wikic.query.retrieve import ContextItem, Retrieval
from wikic.vault.init import init_vault

BENCHMARKS = """# Quillstore benchmarks

Quillstore is an embedded database written in Rust by the Fernhill team.
It stores data in a single file and needs no server process.

In the March 2024 benchmark on a laptop with an NVMe disk, the team measured
throughput with eight writer threads and small records of 200 bytes.
Quillstore handled 40,000 writes per second in that benchmark.
Reads were faster: a point lookup took about 15 microseconds.
"""
PEBBLEKV = """# Pebblekv notes

Pebblekv is a key-value store for embedded devices, maintained by Orchard Labs.
Pebblekv handled 12,000 writes per second on a Raspberry Pi 4.
"""
CHINESE = """# Quillstore 基准测试

Quillstore 是一个用 Rust 编写的嵌入式数据库。
在三月的基准测试中，Quillstore 每秒处理四万次写入。
Pebblekv 在树莓派上每秒处理一万二千次写入。
"""
LINK = "[[raw/articles/quillstore-benchmarks.md]]"


def raw_wiki(tmp_path: Path, server: StandinServer, sources: dict[str, str]) -> QueryWiki:
    """A vault of raw sources only (no pages), indexed, answered by `server` declining every question."""
    root = tmp_path / "wiki"
    init_vault(root)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, text in sources.items():
        (inbox / name).write_text(text, encoding="utf-8")
    capture(root, [str(inbox / name) for name in sources])
    with open_palace(root) as palace:
        palace.sync()
    wiki = QueryWiki(root, server)
    wiki.answer_with(SENTINEL)
    return wiki


def test_a_declined_question_shows_the_sentence_its_context_holds_quoted_and_cited(
    tmp_path: Path, standin: StandinServer
) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS, "pebblekv-notes.md": PEBBLEKV})
    result = wiki.cli("query", "How many writes per second does Quillstore handle?")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.startswith(QUOTED_MARK.strip())
    assert "not an answer" in result.stdout and "does not answer" not in result.stdout
    # the sentence as the source writes it, with the raw passage's link and the line it is on
    line = "- “Quillstore handled 40,000 writes per second in that benchmark.” — " + LINK + " L8"
    assert line in result.stdout.splitlines()
    assert wiki.read("raw/articles/quillstore-benchmarks.md").split("\n")[7].startswith("Quillstore handled 40,000")
    # Pebblekv's sentence has the same words, but is about another subject
    assert "Pebblekv" not in result.stdout and "40,000" not in result.stdout.replace(line, "")
    assert f"Cited: {LINK}" in result.stderr

    data = as_json(wiki.cli("query", "How many writes per second does Quillstore handle?", "--json").stdout)
    assert data["status"] == "quoted"
    assert data["answer"].startswith(QUOTED_MARK)
    assert [(q["text"], q["path"], q["lines"]) for q in data["quotes"]] == [
        ("Quillstore handled 40,000 writes per second in that benchmark.", "raw/articles/quillstore-benchmarks.md",
         [8, 8])
    ]
    assert [c["link"] for c in data["citations"]] == [LINK]
    assert len(wiki.answer_requests()) == 1  # the second ask replayed the model's reply from the cache


def test_an_answer_that_cites_nothing_of_the_wiki_gives_way_to_the_wikis_own_sentences(
    tmp_path: Path, standin: StandinServer
) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS, "pebblekv-notes.md": PEBBLEKV})
    wiki.answer_with("Quillstore is very fast, about fifty thousand writes a second.")  # no citation, not the wiki's
    data = as_json(wiki.cli("query", "How many writes per second does Quillstore handle?", "--json").stdout)
    assert data["status"] == "quoted" and "fifty thousand" not in data["answer"]
    assert [q["text"] for q in data["quotes"]] == ["Quillstore handled 40,000 writes per second in that benchmark."]
    assert [c["link"] for c in data["citations"]] == [LINK]
    assert any("cited nothing from the wiki" in w for w in data["warnings"])
    # where nothing of the wiki matches either, the uncited answer stands, said to be unsupported
    other = as_json(wiki.cli("query", "What colour is the Quillstore logo?", "--json").stdout)
    assert other["status"] == "answered" and other["citations"] == []
    assert "the answer cites nothing from the wiki: treat it as unsupported" in other["warnings"]


def test_a_quoted_reply_is_not_filed_and_the_general_model_is_not_asked(tmp_path: Path, standin: StandinServer) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS})
    result = wiki.cli("query", "How many writes per second does Quillstore handle?", "--save", "--allow-general")
    assert "40,000 writes per second" in result.stdout and not result.stdout.startswith("> [!warning]")
    assert "Not filed: quoted sentences are not filed as an answer" in result.stderr
    assert result.exit_code == 1  # --save was asked for and nothing was filed
    assert not list((wiki.root / "queries").glob("*.md"))
    assert len(wiki.answer_requests()) == 1  # what the wiki says comes before the model's general knowledge


def test_the_same_words_about_another_subject_are_not_quoted(tmp_path: Path, standin: StandinServer) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS, "pebblekv-notes.md": PEBBLEKV})
    data = as_json(wiki.cli("query", "How many writes per second does Pebblekv handle?", "--json").stdout)
    assert data["status"] == "quoted"
    assert [q["text"] for q in data["quotes"]] == ["Pebblekv handled 12,000 writes per second on a Raspberry Pi 4."]
    # a subject the wiki never mentions: its context shares the words, but nothing is about it
    result = wiki.cli("query", "How many writes per second does Ravendb handle?")
    assert result.exit_code == 1
    assert "does not answer" in result.stdout and "writes per second on" not in result.stdout


def test_with_no_matching_sentence_the_wiki_still_does_not_answer(tmp_path: Path, standin: StandinServer) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS})
    for question in ("How many employees does Quillstore have?",  # a word the context never writes
                     "When was Quillstore written in Rust?"):  # the words, but no date to give
        data = as_json(wiki.cli("query", question, "--json").stdout)
        assert data["status"] == "not_found" and data["quotes"] == [] and data["citations"] == []
        result = wiki.cli("query", question)  # the model's reply now comes from the cache
        assert result.exit_code == 1
        assert result.stdout.startswith(f"The wiki does not answer “{question}”"), result.stdout


def test_a_chinese_question_quotes_the_chinese_sentence(tmp_path: Path, standin: StandinServer) -> None:
    wiki = raw_wiki(tmp_path, standin, {"quillstore-zh.md": CHINESE})
    data = as_json(wiki.cli("query", "Quillstore 每秒处理多少次写入？", "--json").stdout)
    assert data["status"] == "quoted", data["answer"]
    assert [(q["text"], q["lines"]) for q in data["quotes"]] == [
        ("在三月的基准测试中，Quillstore 每秒处理四万次写入。", [4, 4])
    ]
    definition = as_json(wiki.cli("query", "Quillstore 是什么？", "--json").stdout)
    assert [q["text"] for q in definition["quotes"]] == ["Quillstore 是一个用 Rust 编写的嵌入式数据库。"]
    other = as_json(wiki.cli("query", "Ravendb 每秒处理多少次写入？", "--json").stdout)
    assert other["status"] == "not_found"


def test_a_page_sentence_is_quoted_with_the_page_link_its_title_naming_the_subject(
    make_vault, page, standin: StandinServer
) -> None:
    body = ("# Quillstore\n\nAn embedded database.\n\n## Facts\n\n"
            "- Handled 40,000 writes per second in the March benchmark. (as of 2024-03) "
            "^[[[raw/articles/bench.md|bench.md]] L9] %%claim seen=2024-03-02 via=frontmatter%% ^c1a2b3c4d\n"
            "- Written in Rust by the [[fernhill|Fernhill]] team. ^[[[raw/articles/bench.md|bench.md]] L3]\n")
    root = make_vault({"entities/quillstore.md": page("Quillstore", body=body, aliases=["QS"])})
    wiki = QueryWiki(root, standin)
    assert wiki.cli("index").exit_code == 0
    wiki.answer_with(SENTINEL)
    result = wiki.cli("query", "how many writes per second does quillstore handle?")  # lower case: the title names it
    assert result.exit_code == 0, result.stdout
    assert ("- “Handled 40,000 writes per second in the March benchmark. (as of 2024-03)” — [[quillstore]]"
            in result.stdout.splitlines())
    assert "^[" not in result.stdout and "%%" not in result.stdout  # anchors and claim bookkeeping left out
    written = as_json(wiki.cli("query", "What is QS written in?", "--json").stdout)  # an alias names the page too
    # a link to a page the model was not shown is plain text in a quote, as in an answer
    assert [q["text"] for q in written["quotes"]] == ["Written in Rust by the Fernhill team."]


# -- the selection rules, on hand-built contexts ------------------------------------------------------------


def item(text: str, *, kind: str = "raw", title: str = "", path: str = "raw/articles/a.md", start: int = 1,
         aliases: tuple[str, ...] = ()) -> ContextItem:
    if kind == "page":
        return ContextItem("page", path, path.rsplit("/", 1)[-1][:-3], title, text, 10, 1.0, aliases=aliases)
    return ContextItem("raw", path, path, title or path, text, 10, 1.0, start, start + text.count("\n"))


def quoted(question: str, *items: ContextItem) -> list[str]:
    return [q.text for q in quote_context(Retrieval(question, items=list(items)))]


def test_a_question_naming_nothing_quotes_nothing() -> None:
    context = item("Quillstore handled 40,000 writes per second.")
    assert quoted("How many writes per second?", context) == []
    assert quoted("How many writes per second does Quillstore handle?", context) == [
        "Quillstore handled 40,000 writes per second."
    ]
    assert quoted("Describe how many writes per second Quillstore handles", context) != []  # "Describe" names nothing


def test_a_question_asking_for_a_figure_takes_only_a_sentence_stating_one() -> None:
    vague = item("Quillstore was released to the public after a long beta.")
    dated = item("Quillstore 1.0 was released in May 2021.", path="raw/articles/b.md")
    assert quoted("When was Quillstore released?", vague) == []
    assert quoted("When was Quillstore released?", vague, dated) == ["Quillstore 1.0 was released in May 2021."]
    # the question's own number is no answer to it
    assert quoted("When was Quillstore 1.0 released?", vague, item("Quillstore 1.0 was released to testers.")) == []


def test_a_sentence_holding_a_minor_word_only_does_not_match() -> None:
    context = item("Quillstore uses a write-ahead log. Quillstore uses little memory.")
    assert quoted("What license does Quillstore use?", context) == []


def test_at_most_three_best_first_and_a_claim_and_its_source_sentence_once() -> None:
    claim = item("# Quillstore\n\n- Quillstore handled 40,000 writes per second. ^[raw/articles/a.md:L3]", kind="page",
                 title="Quillstore", path="entities/quillstore.md")
    source = item("Quillstore handled 40,000 writes per second.", start=3)
    more = item("Quillstore handled 38,000 writes per second on Linux. Quillstore handled 35,000 writes per second "
                "on macOS.\nQuillstore handled 30,000 writes per second on Windows.\nQuillstore handled 9,000 writes "
                "per second with fsync.", path="raw/articles/c.md")
    found = quote_context(Retrieval("How many writes per second does Quillstore handle?", items=[claim, source, more]))
    assert [q.citation for q in found] == ["[[quillstore]]", "[[raw/articles/c.md]] L1", "[[raw/articles/c.md]] L1"]
    assert [q.text for q in found][:2] == ["Quillstore handled 40,000 writes per second.",
                                         "Quillstore handled 38,000 writes per second on Linux."]


def test_the_mcp_query_tool_shows_the_quotes_marked_and_does_not_file_them(
    tmp_path: Path, standin: StandinServer
) -> None:
    from wikic.mcp_server import WikiTools

    wiki = raw_wiki(tmp_path, standin, {"quillstore-benchmarks.md": BENCHMARKS})
    tools = WikiTools(wiki.root)
    try:
        text = tools.query("How many writes per second does Quillstore handle?", save=True)
    finally:
        tools.close()
    assert text.startswith(QUOTED_MARK.strip())
    assert f"“Quillstore handled 40,000 writes per second in that benchmark.” — {LINK} L8" in text
    assert f"Cited: {LINK} (raw/articles/quillstore-benchmarks.md)" in text
    assert "Not filed: quoted sentences are not filed as an answer" in text
    assert not list((wiki.root / "queries").glob("*.md"))


def test_a_light_verb_of_the_question_is_not_what_it_asks_about() -> None:
    licence = item("Quillstore is licensed under the Apache License 2.0.", path="raw/articles/b.md")
    log = item("Quillstore uses a write-ahead log.")
    assert quoted("What license does Quillstore use?", log, licence) == [
        "Quillstore is licensed under the Apache License 2.0."
    ]


# -- a question comparing subjects --------------------------------------------------------------------------

OUTGOING = ("# Outgoing links\n\nOutgoing links is a core plugin that shows links from the active note at a glance, "
            "as well as potential links to be made.\n\n## Key facts\n\n"
            "- It's similar to the [[backlinks|Backlinks]] plugin, which instead shows you incoming links to the "
            "active note.\n- The Outgoing links tab is available in the right sidebar.\n")
BACKLINKS = ("# Backlinks\n\nWith the Backlinks plugin, you can see all the backlinks for the active note.\n\n"
             "## Key facts\n\n- A backlink for a note is a link from another note to that note.\n"
             "- The Backlinks plugin displays the backlinks for the active tabs.\n")


def test_a_declined_comparison_quotes_what_the_context_says_of_each_side(
    make_vault, page, standin: StandinServer
) -> None:
    root = make_vault({"entities/outgoing-links.md": page("Outgoing links", body=OUTGOING),
                       "entities/backlinks.md": page("Backlinks", body=BACKLINKS)})
    wiki = QueryWiki(root, standin)
    assert wiki.cli("index").exit_code == 0
    wiki.answer_with(SENTINEL)
    question = "How is the Backlinks plugin different from the Outgoing links plugin?"
    result = wiki.cli("query", question)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith(QUOTED_MARK.strip())
    lines = result.stdout.strip().splitlines()[2:]
    # the sentence relating the two first, then each plugin as its page says it
    assert lines == [
        "- “It's similar to the [[backlinks]] plugin, which instead shows you incoming links to the active note.” "
        "— [[outgoing-links]]",
        "- “Outgoing links is a core plugin that shows links from the active note at a glance, as well as potential "
        "links to be made.” — [[outgoing-links]]",
        "- “With the Backlinks plugin, you can see all the backlinks for the active note.” — [[backlinks]]",
    ]
    data = as_json(wiki.cli("query", question, "--json").stdout)
    assert data["status"] == "quoted"
    assert [c["link"] for c in data["citations"]] == ["[[outgoing-links]]", "[[backlinks]]"]


def test_a_comparison_is_quoted_only_with_every_side_in_the_context() -> None:
    quill = item("# Quillstore\n\nQuillstore is an embedded database written in Rust.\n\n"
                 "- Quillstore handled 40,000 writes per second.", kind="page", title="Quillstore",
                 path="entities/quillstore.md")
    pebble = item("Pebblekv handled 12,000 writes per second on a Raspberry Pi 4.", path="raw/articles/pebble.md")
    lead = item("# Pebblekv\n\nA key-value store for embedded devices, maintained by Orchard Labs.", kind="page",
                title="Pebblekv", path="entities/pebblekv.md")
    question = "How does Quillstore compare to Pebblekv in writes per second?"
    assert quoted(question, quill, pebble) == ["Quillstore handled 40,000 writes per second.",
                                               "Pebblekv handled 12,000 writes per second on a Raspberry Pi 4."]
    assert quoted(question, quill) == []  # one side does not answer a comparison
    # no words beside the names: what each subject is, as a sentence says it or its page's lead does
    assert quoted("What is the difference between Quillstore and Pebblekv?", quill, lead) == [
        "Quillstore is an embedded database written in Rust.",
        "A key-value store for embedded devices, maintained by Orchard Labs.",
    ]
    assert quoted("Quillstore 和 Pebblekv 有什么区别？", quill, lead) != []
    # not a comparison: every name the question writes must still be in the sentence or its page's title
    assert quoted("Does Quillstore run on a Raspberry Pi 4 like Pebblekv?", quill, pebble) == []
