"""Quote anchoring: tolerant where formatting differs, strict where words differ, fast on big sources."""

from __future__ import annotations

import datetime as dt
import random
import time
from dataclasses import replace

import pytest

from wikic.compile.plan import Anchor, Axis, Cell, Comparison, Entity, Fact, Memory, Plan, Relation
from wikic.compile.tables import build_table
from wikic.ingest.anchor import AnchorIndex, anchor_plan
from wikic.vault.formats.transcript import Conversation, Turn, render

SOURCE = """---
title: Notes
---
# GPT-4 launch

OpenAI **released** GPT-4 on
March 14, 2023. Critics called it “a step change”.
[OpenAI](https://openai.com/research) released a _technical report_ too.
The model's context window is 8,192 tokens; a 32k variant exists.

中央银行宣布加息，以应对持续的通货膨胀。
Ｆｕｌｌｗｉｄｔｈ text appears here.
"""

PATH = "raw/articles/gpt-4.md"


@pytest.fixture(scope="module")
def index() -> AnchorIndex:
    return AnchorIndex(SOURCE, PATH)


@pytest.mark.parametrize(
    ("quote", "lines"),
    [
        ("OpenAI released GPT-4 on March 14, 2023.", (6, 7)),  # emphasis and a line break in the source
        ("openai   RELEASED gpt-4", (6, 6)),  # case and whitespace
        ('Critics called it "a step change"', (7, 7)),  # straight vs curly quotes
        ("OpenAI released a technical report too", (8, 8)),  # link target and _emphasis_ in the source
        ("The model’s context window is 8,192 tokens", (9, 9)),  # curly apostrophe in the quote
        ("context window is 8,192 tokens ... a 32k variant exists", (9, 9)),  # elided quote
        ("released GPT-4 … called it", (6, 7)),
        ("宣布加息", (11, 11)),  # CJK inside an unspaced run
        ("fullwidth text", (12, 12)),  # NFKC folding
    ],
)
def test_quote_is_found_despite_formatting(index, quote, lines):
    assert index.locate(quote) == Anchor(PATH, *lines)


@pytest.mark.parametrize(
    "quote",
    [
        "OpenAI released GPT-5 on March 14, 2023",  # a changed name
        "released GPT-4 on March 15, 2023",  # a changed date
        "context window is 8192 tokens",  # a changed number format is a different number
        "context window is 8,192 tokens ... a 64k variant exists",  # one elided part is wrong
        "OpenAI",  # one word supports nothing
        "",
        "...",
        "Critics called it a revolution",
        "title: Notes",  # the frontmatter describes the source; it is not what the source says
        "Notes GPT-4 launch",  # nor does a quote run from it into the text
        "GPT-4 launch",  # a heading labels what follows it; it says nothing
    ],
)
def test_quote_not_in_the_source_is_unanchored(index, quote):
    assert index.locate(quote) is None


def test_words_must_be_whole_words(index):
    assert index.locate("penAI released") is None
    assert index.locate("GPT-4 o") is None


def test_elided_parts_must_be_close_and_in_order():
    text = "alpha beta gamma\n" + "filler words here\n" * 200 + "delta epsilon zeta\n"
    index = AnchorIndex(text, "raw/x.md")
    assert index.locate("alpha beta ... delta epsilon") is None  # 600 words apart
    assert index.locate("delta epsilon ... alpha beta") is None
    near = AnchorIndex("alpha beta gamma\nsome words\ndelta epsilon zeta\n", "raw/y.md")
    assert near.locate("alpha beta [...] delta epsilon") == Anchor("raw/y.md", 1, 3)


def test_repeated_quote_anchors_at_the_first_occurrence():
    index = AnchorIndex("intro\nthe same sentence\nmiddle\nthe same sentence\n", "raw/r.md")
    assert index.locate("the same sentence") == Anchor("raw/r.md", 2, 2)


def test_anchor_renders_as_path_and_lines():
    assert str(Anchor("raw/articles/x.md", 12, 14)) == "raw/articles/x.md:L12-L14"
    assert str(Anchor("raw/articles/x.md", 3, 3)) == "raw/articles/x.md:L3"


def test_anchor_plan_marks_each_fact():
    plan = Plan(
        source_path=PATH,
        summary="",
        entities=(
            Entity(
                "GPT-4",
                "model",
                (),
                "",
                (
                    Fact("released in March 2023", "OpenAI released GPT-4 on March 14, 2023"),
                    Fact("invented", "GPT-4 has 1T parameters"),
                ),
            ),
        ),
        relations=(
            Relation("GPT-4", "developed by", "OpenAI", Fact("GPT-4 developed by OpenAI", "OpenAI released GPT-4")),
        ),
    )
    anchored = anchor_plan(plan, SOURCE)
    facts = anchored.facts()
    assert [f.anchor for f in facts] == [Anchor(PATH, 6, 7), None, Anchor(PATH, 6, 6)]
    assert anchored.anchored_count == 2
    assert anchored.entities[0].facts[1].anchored is False


def test_one_megabyte_source_with_hundreds_of_quotes_is_fast():
    rng = random.Random(7)
    vocabulary = [f"w{n}" for n in range(5000)]
    lines = [" ".join(rng.choice(vocabulary) for _ in range(12)) for _ in range(15000)]
    text = "\n".join(lines) + "\n"
    assert len(text) > 1_000_000
    quotes = []
    for _ in range(400):
        line = rng.randrange(len(lines) - 1)
        words = (lines[line] + " " + lines[line + 1]).split()
        quotes.append((" ".join(words[6:18]), line + 1))
    started = time.process_time()  # CPU time: a loaded machine's waits are not the index's cost
    index = AnchorIndex(text, "raw/big.md")
    found = [index.locate(q) for q, _ in quotes]
    misses = [index.locate(f"zz{n} nothing here") for n in range(100)]
    elapsed = time.process_time() - started
    assert elapsed < 3.0, elapsed
    assert all(a is not None and a.start_line <= line <= a.end_line for a, (_, line) in zip(found, quotes, strict=True))
    assert misses == [None] * 100


# -- near copies, support and invented names -------------------------------------------------------------

NOVEL = """# The expedition

Vasquez had spent three winters at the station before the survey began.
The team reached the ridge on 12 March 2021, two days late.
会议在北京举行。我们决定使用 Chroma。
"""


@pytest.mark.parametrize(
    ("quote", "span", "lines"),
    [
        (
            "She had spent three winters at the station before the survey began.",
            "Vasquez had spent three winters at the station before the survey began.",
            (3, 3),
        ),  # pronoun for the name
        (
            "The team reached the ridge on 12 March 2021 two days late",
            "The team reached the ridge on 12 March 2021, two days late.",
            (4, 4),
        ),
        ("会议在北京举行. 我们决定使用 Chroma.", "会议在北京举行。我们决定使用 Chroma。", (5, 5)),
    ],
)
def test_a_near_copy_is_snapped_to_the_span_it_copies(quote: str, span: str, lines: tuple[int, int]) -> None:
    index = AnchorIndex(NOVEL, PATH)
    found = index.repair(quote)
    assert found is not None
    anchor, text = found
    assert (anchor.start_line, anchor.end_line) == lines
    assert text.rstrip(".。") == span.rstrip(".。") or text == span


@pytest.mark.parametrize(
    "quote",
    [
        "Vasquez had spent four winters at the station before the survey began.",  # a number changed
        "Okafor had spent three winters at the station before the survey began.",  # a name changed
        "The team reached the ridge on 12 March 2022, two days late.",  # a date changed
        "The team reached the summit after a long and difficult climb.",  # not a copy at all
    ],
)
def test_a_changed_specific_is_never_repaired(quote: str) -> None:
    assert AnchorIndex(NOVEL, PATH).repair(quote) is None


def test_anchor_plan_repairs_checks_support_and_drops_invented_names() -> None:
    plan = Plan(
        PATH,
        "",
        entities=(
            Entity(
                "Vasquez",
                "person",
                (),
                "",
                (
                    Fact(
                        "Vasquez spent three winters at the station.",
                        "She had spent three winters at the station before the survey began.",
                    ),
                    Fact(
                        "Vasquez spent five winters at the station.",
                        "Vasquez had spent three winters at the station before the survey began.",
                    ),
                    Fact("Vasquez led the survey.", "nowhere in the source"),
                ),
            ),
            Entity(
                "Okafor",
                "person",
                ("Dr. Okafor",),
                "",
                (Fact("Okafor reached the ridge.", "The team reached the ridge on 12 March 2021"),),
            ),
        ),
        relations=(
            Relation(
                "Vasquez", "works with", "Okafor", Fact("Vasquez works with Okafor", "Vasquez had spent three winters")
            ),
        ),
    )
    anchored = anchor_plan(plan, NOVEL)

    [vasquez] = anchored.entities  # Okafor is nowhere in the source: invented, with its claim and the relation
    repaired, five, nowhere = vasquez.facts
    assert repaired.anchored and repaired.repaired and repaired.quote.startswith("Vasquez had spent")
    assert (five.anchor is not None, five.anchored, five.missing, five.problem) == (True, False, ("5",), "unsupported")
    assert (nowhere.anchored, nowhere.problem) == (False, "no quote")
    assert anchored.invented == ("Okafor",) and anchored.relations == ()
    assert anchored.dropped() == {"invented name": 2, "unsupported": 1, "no quote": 1}
    assert anchored.repaired_count == 1


def test_a_concept_the_source_never_names_is_kept_only_for_a_claim_its_source_anchors() -> None:
    from wikic.compile.plan import Concept, Section

    plan = Plan(
        PATH,
        "",
        concepts=(
            # named in the model's own words, but one claim is the source's: an idea of the source, kept
            Concept("Polar fieldwork", "", (Section("Winters", (
                Fact("Vasquez spent three winters at the station.",
                     "Vasquez had spent three winters at the station before the survey began."),
            )),)),
            # named nowhere and backed by nothing: the model's invention, dropped and counted
            Concept("LetsBuild-Transformer", "A translation engine.", (Section("Use", (
                Fact("It translates Chinese text.", "nowhere in the source"),
            )),)),
            Concept("Glacier Ledger", "", ()),
        ),
    )
    anchored = anchor_plan(plan, NOVEL)
    assert [c.name for c in anchored.concepts] == ["Polar fieldwork"]
    assert anchored.invented == ("LetsBuild-Transformer", "Glacier Ledger")
    assert anchored.dropped() == {"invented name": 1}


def test_a_summary_stating_what_no_anchored_quote_states_is_replaced_by_the_first_anchored_claim() -> None:
    from wikic.compile.plan import Concept, Section

    winters = Fact("Vasquez spent three winters at the station.",
                   "Vasquez had spent three winters at the station before the survey began.")
    ridge = Fact("The team reached the ridge on 12 March 2021.",
                 "The team reached the ridge on 12 March 2021, two days late.")
    plan = Plan(
        PATH,
        "",
        entities=(
            # every specific of the summary is in an anchored quote: kept as the model wrote it
            Entity("Vasquez", "person", (), "Vasquez spent three winters at the station.", (winters,)),
            # the year and the count are the model's own: replaced by the first anchored claim
            Entity("Vasquez", "person", (), "Vasquez led 40 surveys since 2015.", (winters, ridge)),
            # nothing the model quoted backs it: the source's own sentence about Chroma, found by code
            Entity("Chroma", "product", (), "Chroma 0.5 stores vectors.", (Fact("Chroma 0.5 is fast.", "nowhere"),)),
        ),
        concepts=(Concept("Expedition", "The expedition began in 2019.", (Section("Dates", (ridge,)),)),),
    )
    anchored = anchor_plan(plan, NOVEL)
    assert [e.summary for e in anchored.entities] == [
        "Vasquez spent three winters at the station.",
        "Vasquez spent three winters at the station.",
        "我们决定使用 Chroma。",
    ]
    assert [f.extracted for f in anchored.entities[2].facts] == [False, True]
    # a lead names its subject: no claim of the concept names the expedition, so it has none (not the ridge's)
    assert anchored.concepts[0].summary == ""
    assert anchored.summaries_replaced == 3
    assert anchored.dropped() == {"unsupported summary": 3, "no quote": 1}


def test_a_summary_in_the_models_words_that_no_claim_says_is_replaced_though_it_states_no_specific() -> None:
    """No figure or name to check, but nothing on the page would hold it: it would stand there with no anchor."""
    winters = Fact("Vasquez spent three winters at the station.",
                   "Vasquez had spent three winters at the station before the survey began.")
    plan = Plan(
        PATH,
        "",
        entities=(
            Entity("Vasquez", "person", (), "Vasquez wrote the expedition's field notes.", (winters,)),
            # in other words, but what the claim says: kept (the page shows it with the claim's anchors)
            Entity("Vasquez", "person", (), "Vasquez spent three winters at the polar station.", (winters,)),
        ),
    )
    anchored = anchor_plan(plan, NOVEL)
    assert [e.summary for e in anchored.entities] == [
        "Vasquez spent three winters at the station.",
        "Vasquez spent three winters at the polar station.",
    ]
    assert anchored.summaries_replaced == 1


def test_an_entity_named_by_an_ordinary_word_of_the_source_is_no_subject() -> None:
    source = "# Notes\n\nThe project responded by publishing its scripts.\nProject leads met Vasquez in May.\n"
    claim = Fact("The project published its scripts.", "The project responded by publishing its scripts.")
    plan = Plan(
        PATH,
        "",
        entities=(
            # "project" is an ordinary word here: capitalised only where a sentence starts
            Entity("Project", "organization", (), "", (claim,)),
            # a name, written capitalised (it happens to start no sentence here)
            Entity("Vasquez", "person", (), "", (claim,)),
        ),
    )
    anchored = anchor_plan(plan, source)
    assert [e.name for e in anchored.entities] == ["Vasquez"]
    assert anchored.refused == (("Project", "kind noun"),)
    assert anchored.invented == ()
    assert anchored.dropped()["no subject"] == 1


# -- what a quote may not anchor to: frontmatter and turn headers ------------------------------------------

TRANSCRIPT = render(Conversation("s-1", "claude-code", "Use uv", (
    Turn("user", "From now on use uv, never pip.", dt.datetime(2026, 11, 2, 9, 20, tzinfo=dt.UTC)),
    Turn("assistant", "Understood. I will use uv\nfor every project.", dt.datetime(2026, 11, 2, 9, 21, tzinfo=dt.UTC)),
    Turn("user", "Thanks a lot for that.", dt.datetime(2026, 11, 2, 9, 22, tzinfo=dt.UTC)),
), started=dt.datetime(2026, 12, 3, 6, 45, 23, tzinfo=dt.UTC), extra={"cwd": "/home/ana/proj/billing"}))
TRANSCRIPT_PATH = "raw/transcripts/2026-11-02-claude-code-use-uv.md"


def test_the_transcript_fixture_has_the_lines_the_tests_name() -> None:
    lines = TRANSCRIPT.split("\n")
    assert lines[1:5] == ['title: "Use uv"', 'conversation: "s-1"', "tool: claude-code",
                          "started: 2026-12-03T06:45:23Z"]
    assert lines[7:10] == ["", "**user** · 2026-11-02 09:20", "From now on use uv, never pip."]
    assert lines[11:14] == ["**assistant** · 2026-11-02 09:21", "Understood. I will use uv", "for every project."]


@pytest.mark.parametrize("quote", [
    "started: 2026-12-03T06:45:23Z",  # frontmatter
    "- started: 2026-12-03T06:45:23Z",
    "cwd: /home/ana/proj/billing",
    "user** · 2026-11-02 09:20",  # a turn header
    "**assistant** · 2026-11-02 09:21",
    "user · 2026-11-02 09:20 From now on use uv, never pip.",  # a header and its turn's text
    "never pip. assistant 2026-11-02 09:21 Understood.",  # across a header
    "never pip. Understood.",  # the end of one turn and the start of the next, the header between left out
    "From now on use uv, never pip. Understood. I will use uv for every project.",  # not repaired across either
])
def test_a_quote_never_anchors_to_frontmatter_or_turn_headers(quote: str) -> None:
    index = AnchorIndex(TRANSCRIPT, TRANSCRIPT_PATH)
    assert index.locate(quote) is None
    assert index.repair(quote) is None


def test_a_line_of_tool_activity_is_no_ones_words() -> None:
    # the line wikic writes for a run of tool calls sits between two sentences of the assistant's turn
    path = "raw/transcripts/2026-11-30-use-uv.md"
    index = AnchorIndex(SESSION, path)
    assert index.locate("(tools: Bash ×3, Read)") is None and index.locate("Bash ×3, Read") is None
    assert index.locate("Let me check the project. Bash 3 Read The project already uses uv") is None
    # a claim cut at its clause is made its whole sentence, and the tool line is no part of it
    assert index.completed("The project already uses uv;", "The project already uses uv;") == (
        Anchor(path, 7, 7), "The project already uses uv; tests pass.")
    # a person's own line that only looks like one is text
    said = AnchorIndex("**user** · 2026-11-30 14:02\n(tools: see the wiki)\n", path)
    assert said.locate("tools: see the wiki") == Anchor(path, 2, 2)


def test_a_claim_cut_at_a_clause_of_its_quote_is_written_as_a_sentence() -> None:
    source = "# Notes\n\nThe project already uses uv; tests pass.\n\n中央银行宣布加息，以应对持续的通货膨胀。\n"
    facts = (Fact("The project already uses uv;", "The project already uses uv; tests pass."),
             Fact("uv: the project already uses it", "The project already uses uv"))  # said in its own words
    bank = (Fact("中央银行宣布加息，", "中央银行宣布加息，以应对持续的通货膨胀。"),)
    plan = Plan("raw/articles/notes.md", "", (Entity("uv", "tool", (), "", facts),
                                              Entity("中央银行", "organization", (), "", bank)), (), (), ())
    uv, central_bank = anchor_plan(plan, source).entities
    assert [(f.text, f.anchored) for f in uv.facts] == [
        ("The project already uses uv.", True), ("uv: the project already uses it", True)]
    assert [(f.text, f.anchored) for f in central_bank.facts] == [("中央银行宣布加息。", True)]


def test_quotes_of_what_was_said_anchor_at_the_lines_of_the_file() -> None:
    index = AnchorIndex(TRANSCRIPT, TRANSCRIPT_PATH)
    assert index.locate("From now on use uv, never pip.") == Anchor(TRANSCRIPT_PATH, 10, 10)
    assert index.locate("Understood. I will use uv for every project.") == Anchor(TRANSCRIPT_PATH, 13, 14)
    assert index.locate("Thanks a lot for that") == Anchor(TRANSCRIPT_PATH, 17, 17)
    repaired = index.repair("I will use uv for each and every project")
    assert repaired is not None  # repair still works in turns
    assert repaired[0] == Anchor(TRANSCRIPT_PATH, 13, 14)
    # names are still written where the frontmatter says them (a note's subject, a session's folder)
    assert index.contains("billing") and index.contains("claude code")


def test_a_source_with_timed_turn_headers_outside_raw_transcripts_is_a_transcript_too() -> None:
    index = AnchorIndex(TRANSCRIPT, "raw/notes/pasted.md")
    assert index.locate("user 2026-11-02 09:20") is None
    assert index.locate("From now on use uv") == Anchor("raw/notes/pasted.md", 10, 10)
    # in an ordinary source a bold line is text, quoted like any other
    article = AnchorIndex("# Notes\n\n**Key findings**\nThe cache halves latency.\n", "raw/articles/a.md")
    assert article.locate("Key findings The cache halves latency") == Anchor("raw/articles/a.md", 3, 4)


def test_claims_quoting_frontmatter_or_headers_are_not_written() -> None:
    plan = Plan(
        TRANSCRIPT_PATH,
        "",
        entities=(Entity("uv", "tool", (), "", (
            Fact("The user uses uv, never pip.", "From now on use uv, never pip."),
            Fact("The session started on 2026-12-03.", "started: 2026-12-03T06:45:23Z"),
            Fact("The user spoke at 09:20.", "user** · 2026-11-02 09:20"),
        )),),
    )
    facts = [f for e in anchor_plan(plan, TRANSCRIPT).entities for f in e.facts]
    assert [f.anchor for f in facts] == [Anchor(TRANSCRIPT_PATH, 10, 10), None, None]


# -- what a quote may not anchor to: code, callout titles, comments ----------------------------------------

HELP = (
    "# Internal links\n"  # 1
    "\n"
    "Obsidian can link to any note in your vault using internal links.\n"  # 3
    "\n"
    "```md\n"  # 5
    "Pen in hand and a paperclip in the other, Gemmy works through the backlog.\n"
    "```\n"
    "\n"
    "> [!warning] Interoperability\n"  # 9
    "> Other apps may not read wikilinks, which are an Obsidian format.\n"  # 10
    "\n"
    "<!-- Link notes: the page this one grew from. -->\n"  # 12
    "%% a draft sentence nobody reads %%\n"
    "- An item:\n"  # 14
    "    ~~~\n"
    "    Backlinks show every note that links here.\n"
    "    ~~~\n"
    "> ```\n"  # 18
    "> Outgoing links show where a note points.\n"
    "Graph view draws the notes as a network.\n"  # 20: the quote, and the fence in it, ended above
    "%%\n"  # 21: a comment block
    "Unlinked mentions are an old draft.\n"
    "%%\n"
    "A value with %% in it and <!-- in it is text.\n"  # 24: openers mid-line, closed nowhere on their line
    "Tags group notes.\n"  # 25
)
HELP_PATH = "raw/articles/internal-links.md"


@pytest.mark.parametrize("quote", [
    "Pen in hand and a paperclip in the other, Gemmy works through the backlog.",  # a code block's example
    "Pen in hand and a paperclip in the other, Gemmy works through the backlog",
    "warning Interoperability",  # a callout's title line
    "Interoperability Other apps may not read wikilinks",  # the title joined to what the callout says
    "Link notes: the page this one grew from.",  # an HTML comment
    "a draft sentence nobody reads",  # an Obsidian comment
    "Backlinks show every note that links here.",  # a fence inside a list item
    "Outgoing links show where a note points.",  # a fence inside a quote
    "using internal links. md Pen in hand",  # into the fence from the text before it
    "Unlinked mentions are an old draft.",  # a comment block
])
def test_a_quote_never_anchors_to_code_callout_titles_or_comments(quote: str) -> None:
    index = AnchorIndex(HELP, HELP_PATH)
    assert index.locate(quote) is None
    assert index.repair(quote) is None


def test_what_a_callout_says_and_the_text_around_code_are_quoted_as_before() -> None:
    index = AnchorIndex(HELP, HELP_PATH)
    assert index.locate("Other apps may not read wikilinks, which are an Obsidian format.") == Anchor(HELP_PATH, 10, 10)
    assert index.locate("using internal links") == Anchor(HELP_PATH, 3, 3)
    assert index.locate("Graph view draws the notes as a network.") == Anchor(HELP_PATH, 20, 20)
    assert index.locate("A value with %% in it and <!-- in it is text. Tags group notes.") == Anchor(HELP_PATH, 24, 25)
    assert index.contains("Gemmy")  # a name is still written there
    said = {s.text.strip() for s in index.sentences()}
    assert not [s for s in said if "Gemmy" in s or "Interoperability" in s or "Backlinks" in s or "draft" in s], said
    # a fence never closed is text: nothing after it is lost
    cut = AnchorIndex("# Notes\n\n```\nThe cache halves latency.\n", HELP_PATH)
    assert cut.locate("The cache halves latency.") == Anchor(HELP_PATH, 4, 4)


def test_claims_quoting_code_or_a_callout_title_are_not_written() -> None:
    plan = Plan(HELP_PATH, "", entities=(Entity("Obsidian", "product", (), "", (
        Fact("Gemmy works through the backlog.",
             "Pen in hand and a paperclip in the other, Gemmy works through the backlog."),
        Fact("Obsidian has interoperability warnings.", "[!warning] Interoperability"),
        Fact("Obsidian can link to any note using internal links.",
             "Obsidian can link to any note in your vault using internal links."),
    )),))
    facts = [f for e in anchor_plan(plan, HELP).entities for f in e.facts]
    assert [f.anchor for f in facts] == [None, None, Anchor(HELP_PATH, 3, 3)]


BACKLINKS = ("# Backlinks\n"
             "\n"
             "## Show backlinks\n"  # 3
             "\n"
             "## Where the panel lives\n"  # 5
             "\n"
             "The Backlinks plugin displays the backlinks for the active tab.\n"  # 7
             "Open the Command palette and run the Backlinks: Show backlinks command.\n")  # 8


def test_a_heading_is_quoted_by_no_claim_and_a_claim_of_two_words_is_no_claim() -> None:
    plan = Plan("raw/articles/backlinks.md", "", entities=(Entity("Backlinks", "product", (), "", (
        Fact("Show backlinks", "Show backlinks"),  # the heading's words, written again in the text
        Fact("The Backlinks panel lives where the panel lives.", "## Where the panel lives"),
        Fact("The Backlinks plugin displays the backlinks for the active tab.",
             "The Backlinks plugin displays the backlinks for the active tab."),
    )),), comparisons=(Comparison("Backlinks vs search", ("Backlinks", "Search"), (
        Axis("Opened from", (Cell("Backlinks", Fact("Command palette", "Command palette")),)),)),))
    done = anchor_plan(plan, BACKLINKS)
    facts = [f for e in done.entities for f in e.facts]
    # the heading is a label: the two-word claim is found only in the text's command, and is still no statement
    assert [(str(f.anchor), f.problem) for f in facts] == [
        ("raw/articles/backlinks.md:L8", "not a statement"), ("None", "no quote"),
        ("raw/articles/backlinks.md:L7", None)]
    assert done.dropped().get("not a statement") == 1
    # a table's cell may be a word or two
    (cell,) = done.comparisons[0].axes[0].values
    assert cell.fact.anchored


TUTORIAL = ("# Link notes\n"
            "\n"
            "1. Create a note with the name \"Three laws of motion\":\n"  # 3
            "\n"
            "   > The laws of motion are three laws stated by Isaac Newton.\n"  # 5: the text to type
            "\n"
            "2. Create another note with the name \"Law of Inertia\" with the following text:\n"  # 7
            "\n"
            "   > The Law of Inertia is one of the \\[\\[Three laws of motion\\]\\]\n"  # 9
            "   > and it holds.\n"  # 10: the same example
            "3. Press the left square bracket twice on your keyboard.\n"  # 11
            "   > [!note] Links\n"  # 12: a callout in a step says something
            "   > A link to a missing note is shown muted.\n"  # 13
            "\n"
            "> Newton stated the laws of motion in 1687.\n")  # 15: a quote of the text, not of a step


def test_the_examples_a_tutorials_steps_quote_state_nothing() -> None:
    index = AnchorIndex(TUTORIAL, "raw/articles/link-notes.md")
    assert index.locate("The laws of motion are three laws stated by Isaac Newton.") is None
    assert index.locate("The Law of Inertia is one of the") is None
    assert index.locate("and it holds") is None
    assert index.locate("A link to a missing note is shown muted.") == Anchor("raw/articles/link-notes.md", 13, 13)
    assert index.locate("Newton stated the laws of motion in 1687.") == Anchor("raw/articles/link-notes.md", 15, 15)
    assert index.locate("Press the left square bracket twice") == Anchor("raw/articles/link-notes.md", 11, 11)
    # a step that leads into its example ends with a colon: it is no claim alone
    leads = [s.text for s in index.sentences() if s.introduces]
    assert leads == ['Create a note with the name "Three laws of motion"',
                     'Create another note with the name "Law of Inertia" with the following text']


# -- a quote the source writes more than once --------------------------------------------------------------

SIDEBAR = ("# Outgoing links\n"
           "\n"
           "The Outgoing links tab is available in the right sidebar.\n"  # 3
           "\n"
           "The Backlinks plugin shows incoming links.\n"  # 5
           "The Backlinks plugin is in the right sidebar.\n")  # 6


def test_a_claim_the_source_writes_is_anchored_where_it_is_not_where_its_quote_first_is() -> None:
    path = "raw/articles/outgoing-links.md"
    said = Fact("The Backlinks plugin is in the right sidebar.", "in the right sidebar")
    own = Fact("Backlinks sits in the right sidebar.", "in the right sidebar")  # the model's words: the first one
    comparison = Comparison("Backlinks vs Outgoing links", ("Backlinks", "Outgoing links"), (
        Axis("Place", (Cell("Backlinks", said), Cell("Outgoing links", Fact("Outgoing links: the right sidebar",
                                                                            "tab is available in the right")))),))
    plan = anchor_plan(Plan(path, "", entities=(Entity("Backlinks", "product", (), "", (said, own)),),
                            comparisons=(comparison,)), SIDEBAR)
    assert [f.anchor for f in plan.entities[0].facts] == [Anchor(path, 6, 6), Anchor(path, 3, 3)]
    (_, cells), = build_table(plan.comparisons[0]).payload["rows"]
    assert cells == {"Backlinks": [["The Backlinks plugin is in the right sidebar.", f"{path}:L6"]],
                     "Outgoing links": [["Outgoing links: the right sidebar", f"{path}:L3"]]}


GLUED = ("# Brightline notes\n\nBrightline is a sync service for local-first apps. Our team moved its desktop app "
         "to Quillstore in 2024. Quillstore keeps the whole database in a single file on disk. It handled 40,000 "
         "writes per second.\n")
TWO = ("Our team moved its desktop app to Quillstore in 2024. Quillstore keeps the whole database in a single file "
       "on disk.")


@pytest.mark.parametrize(("claim", "quote", "written"), [
    # whole sentences with words glued before or after them: the source's sentences alone
    (f"Quillstore is {TWO[0].lower()}{TWO[1:]}", TWO, TWO),
    ("Quillstore keeps the whole database in a single file on disk, so backups are trivial.",
     "Quillstore keeps the whole database in a single file on disk.",
     "Quillstore keeps the whole database in a single file on disk."),
    # the model framing a fragment: its claim (the support rule checks it)
    ("Quillstore handled 40,000 writes per second.", "handled 40,000 writes per second",
     "Quillstore handled 40,000 writes per second."),
    # a longer stretch of the source than the quote: as written
    ("Brightline is a sync service for local-first apps.", "a sync service for local-first apps",
     "Brightline is a sync service for local-first apps."),
    # the quote as the claim
    (TWO, TWO, TWO),
])
def test_a_quote_of_whole_sentences_with_words_glued_on_is_the_quote(claim: str, quote: str, written: str) -> None:
    name = "Brightline" if claim.startswith("Brightline") else "Quillstore"
    plan = Plan("raw/articles/notes.md", "", (Entity(name, "product", (), "", (Fact(claim, quote),)),), (), (), ())
    fact = anchor_plan(plan, GLUED).entities[0].facts[0]
    assert fact.anchored and fact.text == written


STORES = ("# Local vector stores\n\nChroma runs inside a Python process and keeps its data in SQLite. Qdrant is "
          "written in Rust and runs as a separate server. The Milvus cluster splits storage from compute. It "
          "supports HNSW and IVFFlat indexes. A practical rule: start with the smallest store that works.\n")


def _store(name: str, *facts: str, summary: str = "") -> Entity:
    return Entity(name, "product", (), summary, tuple(Fact(f, f) for f in facts))


def test_a_claim_that_opens_with_another_entity_of_the_plan_goes_to_that_entity() -> None:
    plan = Plan("raw/articles/stores.md", "", (
        _store("Chroma", "Chroma runs inside a Python process and keeps its data in SQLite.",
               "Qdrant is written in Rust and runs as a separate server.",
               "The Milvus cluster splits storage from compute.",
               "It supports HNSW and IVFFlat indexes."),
        _store("Qdrant"), _store("Milvus")), (), (), ())
    anchored = anchor_plan(plan, STORES)
    by_name = {e.name: [f.text for f in e.facts] for e in anchored.entities}
    # "It supports…" is about what the sentence before it opens with: Milvus
    assert by_name["Chroma"] == ["Chroma runs inside a Python process and keeps its data in SQLite."]
    assert by_name["Qdrant"] == ["Qdrant is written in Rust and runs as a separate server."]
    assert by_name["Milvus"] == ["The Milvus cluster splits storage from compute.",
                                 "It supports HNSW and IVFFlat indexes."]
    assert anchored.refiled == 3 and all(f.anchored for e in anchored.entities for f in e.facts)


def test_an_entitys_lead_names_it() -> None:
    plan = Plan("raw/articles/stores.md", "", (
        _store("Chroma", "It supports HNSW and IVFFlat indexes.",
               "Chroma runs inside a Python process and keeps its data in SQLite.",
               summary="A practical rule: start with the smallest store that works."),), (), (), ())
    (chroma,) = [e for e in anchor_plan(plan, STORES).entities if not e.found]
    assert chroma.summary == "Chroma runs inside a Python process and keeps its data in SQLite."


RULES = ("# Choosing a model\n\nOllama serves embedding models locally through an HTTP API. It runs on a laptop.\n\n"
         "A practical rule: start with the smallest model that handles your languages.\n")


def test_a_claim_whose_paragraph_never_names_its_entity_is_not_written_there() -> None:
    plan = Plan("raw/articles/choosing.md", "", (
        _store("Ollama", "Ollama serves embedding models locally through an HTTP API.", "It runs on a laptop.",
               "A practical rule: start with the smallest model that handles your languages."),), (), (), ())
    (ollama,) = anchor_plan(plan, RULES).entities
    kept = [f.text for f in ollama.facts if f.anchored]
    # "It runs on a laptop" is read in its paragraph, which names Ollama; the rule's paragraph does not
    assert kept == ["Ollama serves embedding models locally through an HTTP API.", "It runs on a laptop."]
    assert [f.problem for f in ollama.facts if not f.anchored] == ["not about its subject"]


def test_in_a_conversation_a_turn_need_not_name_what_it_talks_about() -> None:
    turns = ("# Sync\n\n**ana** · 2026-11-02 09:20\nShould we use Ollama?\n\n**ben** · 2026-11-02 09:21\n"
             "A practical rule: start with the smallest model that handles your languages.\n")
    plan = Plan("raw/transcripts/2026-11-02-sync.md", "", (
        _store("Ollama", "A practical rule: start with the smallest model that handles your languages."),), (), (),
        ())
    (ollama,) = anchor_plan(plan, turns).entities
    assert [f.anchored for f in ollama.facts] == [True]


SESSION = ("**user** · 2026-11-30 14:02\nFrom now on use uv, never pip.\n\n**assistant** · 2026-11-30 14:02\n"
           "Understood. Let me check the project.\n(tools: Bash ×3, Read)\nThe project already uses uv; tests pass.\n\n"
           "**user** · 2026-11-30 14:03\nThanks. I'll install it on the build server too.\n")


def test_in_a_conversation_the_assistants_talk_about_the_talk_is_no_claim_about_the_subject() -> None:
    plan = Plan("raw/transcripts/2026-11-30-use-uv.md", "", (
        _store("uv", "Understood. Let me check the project.", "The project already uses uv; tests pass.",
               "Thanks. I'll install it on the build server too."),), (), (), ())
    (uv,) = anchor_plan(plan, SESSION).entities
    # the assistant's acknowledgement and next step say nothing of uv; the user's plan is theirs, and kept
    assert [(f.text, f.problem) for f in uv.facts] == [
        ("Understood. Let me check the project.", "not about its subject"),
        ("The project already uses uv; tests pass.", None),
        ("Thanks. I'll install it on the build server too.", None),
    ]
    # a claim the model wrote on such a quote rests on nothing, even one that names its subject
    rests = Fact("The project already uses uv; tests pass.", "Understood. Let me check the project.")
    (uv,) = anchor_plan(replace(plan, entities=(Entity("uv", "product", (), "", (rests,)),)), SESSION).entities
    assert (uv.facts[0].text, uv.facts[0].problem) == ("The project already uses uv; tests pass.",
                                                       "not about its subject")


def test_a_memory_of_thanks_is_none_and_one_of_the_users_plan_is_kept() -> None:
    thanks = Memory("persona", "the user", 0.5, Fact("Thanks.", "Thanks."))
    plan = Memory("episodic", "the user", 0.5, Fact("The user will install uv on the build server too.",
                                                "I'll install it on the build server too."))
    anchored = anchor_plan(Plan("raw/transcripts/2026-11-30-use-uv.md", "", memories=(thanks, plan)), SESSION)
    # (and the rule the user set, which no memory quoted, is found: `standing.py`)
    assert [(m.fact.anchored, m.fact.text) for m in anchored.memories] == [
        (False, "Thanks."), (True, "The user will install uv on the build server too."),
        (True, "From now on use uv, never pip.")]


REQUESTS = ("**user** · 2026-11-30 14:02\nFrom now on use uv, never pip.\n\n**assistant** · 2026-11-30 14:02\n"
            "The project already uses uv.\n\n**user** · 2026-11-30 14:03\nMention <system-reminder> in the README "
            "as a literal tag.\n\n**assistant** · 2026-11-30 14:03\nDone: the README now mentions it.\n\n"
            "**user** · 2026-11-30 14:04\nAnd how does it treat lock files?\n\n**assistant** · 2026-11-30 14:05\n"
            "It writes uv.lock next to pyproject.toml.\n")


def test_in_a_conversation_a_claim_whose_exchange_is_about_another_subject_is_not_written() -> None:
    plan = Plan("raw/transcripts/2026-11-30-use-uv.md", "", (
        _store("pip", "Done: the README now mentions it."),
        _store("uv", "It writes uv.lock next to pyproject.toml.", "The project already uses uv."),
        _store("system-reminder", "Mention <system-reminder> in the README as a literal tag.")), (), (), ())
    by_name = {e.name: [(f.text, f.problem) for f in e.facts] for e in anchor_plan(plan, REQUESTS).entities}
    # its turn and the one it answers name <system-reminder>, never pip; left with no claim, pip gets the
    # source's own sentence about it
    assert by_name["pip"] == [("Done: the README now mentions it.", "not about its subject"),
                              ("From now on use uv, never pip.", None)]
    # "It" and its question name nothing of the plan: the talk is still about uv, and the claim stays
    assert by_name["uv"] == [("It writes uv.lock next to pyproject.toml.", None),
                             ("The project already uses uv.", None)]


PALACE = ("# The memory palace method\n\nMemPalace borrows the picture for software. It is an open-source memory "
          "system for AI assistants. The drawers live in Chroma, and a small SQLite database keeps a graph of "
          "facts.\n\nChroma runs inside a Python process.\n\nIt keeps its data in SQLite.\n")


def test_a_claim_that_puts_its_subject_where_the_source_has_a_pronoun_for_another_is_not_written() -> None:
    plan = Plan("raw/articles/palace.md", "", (
        Entity("Chroma", "product", (), "", (
            # the model's subject in place of "It", which stands for MemPalace
            Fact("Chroma is an open-source memory system for AI assistants.",
                 "It is an open-source memory system for AI assistants."),
            Fact("The drawers live in Chroma.", "The drawers live in Chroma"),
            # "It" opens its paragraph: the paragraph before says what it is
            Fact("Chroma keeps its data in SQLite.", "It keeps its data in SQLite."),
        )),
        _store("MemPalace")), (), (), ())
    (chroma, _) = [e for e in anchor_plan(plan, PALACE).entities if not e.found]  # and names code found
    assert [(f.text, f.problem) for f in chroma.facts] == [
        ("Chroma is an open-source memory system for AI assistants.", "not about its subject"),
        ("The drawers live in Chroma.", None),
        ("Chroma keeps its data in SQLite.", None),
    ]


def test_a_pronoun_claim_goes_to_the_entity_the_sentence_before_opens_with() -> None:
    plan = Plan("raw/articles/palace.md", "", (
        _store("Chroma", "It is an open-source memory system for AI assistants."), _store("MemPalace")), (), (), ())
    by_name = {e.name: [f.text for f in e.facts if f.anchored] for e in anchor_plan(plan, PALACE).entities}
    assert by_name["MemPalace"] == ["It is an open-source memory system for AI assistants."]
    assert "It is an open-source memory system for AI assistants." not in by_name["Chroma"]


def test_without_a_name_before_it_the_pronoun_is_the_subjects_only_if_the_text_before_names_it() -> None:
    text = ("# Notes\n\nThe team tried several stores. It is an open-source memory system. Chroma was one of "
            "them.\n")
    plan = Plan("raw/articles/notes.md", "", (Entity("Chroma", "product", (), "", (
        Fact("Chroma is an open-source memory system.", "It is an open-source memory system."),)),), (), (), ())
    (chroma,) = anchor_plan(plan, text).entities
    assert [f.problem for f in chroma.facts][:1] == ["not about its subject"]


def test_a_quote_that_puts_the_subject_where_the_source_has_it_is_snapped_and_then_not_written() -> None:
    # a 1.5B model's reply: the quote itself says "Chroma is", where the source says "It is" (of MemPalace)
    claim = ("Chroma is an open-source memory system for AI assistants. The drawers live in Chroma, and a small "
             "SQLite database keeps a graph of")
    plan = Plan("raw/articles/palace.md", "", (Entity("Chroma", "product", (), "", (Fact(claim, claim),)),
                                               _store("MemPalace")), (), (), ())
    (chroma, _) = [e for e in anchor_plan(plan, PALACE).entities if not e.found]  # and names code found
    fact = next(f for f in chroma.facts if f.text == claim)
    assert fact.repaired and fact.quote.startswith("It is") and fact.problem == "not about its subject"


def test_a_claim_whose_subject_the_pronouns_sentence_names_stands() -> None:
    text = "# OpenAI\n\nOpenAI builds language models. It released GPT-4 in March 2023.\n"
    plan = Plan("raw/articles/openai.md", "", (
        Entity("GPT-4", "model", (), "", (Fact("GPT-4 was released in March 2023.",
                                               "It released GPT-4 in March 2023."),)),
        _store("OpenAI")), (), (), ())
    (gpt4, _) = anchor_plan(plan, text).entities
    assert [f.problem for f in gpt4.facts] == [None]


def test_a_name_that_is_only_the_sources_title_is_not_a_subject() -> None:
    text = ("# The memory palace method and AI memory\n\nMemPalace borrows the picture for software. It keeps "
            "memories in Chroma.\n")
    plan = Plan("raw/articles/palace.md", "", (
        Entity("The Memory Palace Method and AI Memory", "work", (), "", ()),
        _store("MemPalace", "MemPalace borrows the picture for software.")), (), (), ())
    anchored = anchor_plan(plan, text)
    assert [e.name for e in anchored.entities] == ["MemPalace"]
    assert anchored.titles == ("The Memory Palace Method and AI Memory",) and anchored.invented == ()
    # a title the source writes again is a name it uses: "Ollama" in "# Ollama" and in its text
    ollama = "# Ollama\n\nOllama serves models locally.\n"
    plan = Plan("raw/articles/ollama.md", "", (_store("Ollama", "Ollama serves models locally."),), (), (), ())
    assert [e.name for e in anchor_plan(plan, ollama).entities] == ["Ollama"]


def test_the_report_names_the_titles_it_left_out() -> None:
    from wikic.ingest.pipeline import IngestReport
    from wikic.ingest.report import SourceReport, render_report

    source = SourceReport("raw/articles/palace.md", "Palace", "compiled", titles=["The Memory Palace Method"])
    assert "the source's own title, not a subject (its source page covers it): The Memory Palace Method" in \
        render_report(IngestReport(sources=[source]))


TWO_YEARS = ("---\ndate: 2026-02-10\n---\n# Quillstore, two years on\n\n"
             "Two years after the move, we measured again. Quillstore handled 25,000 writes per second on the same "
             "load test,\nnow with encryption at rest turned on.\n\n"
             "Quillstore still keeps the whole database in a single file on disk, and backups are still a file "
             "copy.\n\nThe team also ran the migration suite, the restore drill, the offline sync tests, the fuzzing "
             "corpus, the upgrade matrix and the battery benchmarks on every laptop we own, and all passed.\n")
HANDLED = ("Quillstore handled 25,000 writes per second on the same load test,\n"
           "now with encryption at rest turned on.")


@pytest.mark.parametrize(("claim", "written", "lines"), [
    # what a real small model copied: a sentence cut where the source wraps its line, and the rest of it
    ("Quillstore handled 25,000 writes per second on the same load test,", HANDLED, (6, 7)),
    ("now with encryption at rest turned on.", HANDLED, (6, 7)),
    ("Two years after the move, we measured again. Quillstore handled 25,000 writes per second on the same load "
     "test,", "Two years after the move, we measured again. " + HANDLED, (6, 7)),
    # whole sentences stay as they are; a claim in the model's own words is the model's (the support rule checks it)
    ("Two years after the move, we measured again.", "Two years after the move, we measured again.", (6, 6)),
    ("Quillstore handled 25,000 writes per second.", "Quillstore handled 25,000 writes per second.", (6, 6)),
    # a cut at a clause that reads whole: as the model cut it
    ("Quillstore still keeps the whole database in a single file on disk.",
     "Quillstore still keeps the whole database in a single file on disk.", (9, 9)),
    ("and backups are still a file copy.", "Quillstore still keeps the whole database in a single file on disk, and "
     "backups are still a file copy.", (9, 9)),
    # a cut that would add more than COMPLETION_WORDS words: as the model cut it
    ("and all passed.", "and all passed.", (11, 11)),
])
def test_a_claim_copied_from_part_of_a_sentence_is_the_whole_sentence(claim: str, written: str,
                                                                      lines: tuple[int, int]) -> None:
    quote = claim if not claim.endswith(("second.", "disk.")) else claim[:-1]
    plan = Plan("raw/articles/two-years.md", "", (Entity("Quillstore", "product", (), "", (Fact(claim, quote),)),),
                (), (), ())
    fact = anchor_plan(plan, TWO_YEARS).entities[0].facts[0]
    assert fact.anchor is not None  # found ("and all passed." is then refused: it does not name its subject)
    assert fact.text == " ".join(written.split()) and (fact.anchor.start_line, fact.anchor.end_line) == lines
    completed = fact.text != claim
    assert fact.extracted is completed and fact.repaired is completed and fact.completed is completed
    if completed:
        assert fact.quote == written  # the source's own text, line break and all


@pytest.mark.parametrize(("cut", "on_mira"), [
    # opens with Quillstore once whole: it goes to Quillstore's claims (which hold it already)
    ("Quillstore handled 25,000 writes per second on the same load test,", []),
    # opens with the sentence before it, naming neither: not written under Mira Okafor
    ("Two years after the move, we measured again. Quillstore handled 25,000 writes per second on the same load "
     "test,", [(True, "not about its subject")]),
])
def test_a_claim_made_whole_is_still_the_models_and_goes_to_its_subject(
    cut: str, on_mira: list[tuple[bool, str]]
) -> None:
    # Qwen2.5-Coder-1.5B filed the load test's cut sentence under the articles' author as well as under
    # Quillstore; made whole, it names Quillstore, not her, and neither does its paragraph
    plan = Plan("raw/articles/two-years.md", "", (
        Entity("Mira Okafor", "person", (), "", (Fact(cut, cut),)),
        Entity("Quillstore", "product", (), "", (Fact(cut, cut),)),
    ), (), (), ())
    signed = TWO_YEARS.replace("date: 2026-02-10\n", "date: 2026-02-10\nauthor: Mira Okafor\n")
    mira, quillstore = anchor_plan(plan, signed).entities
    assert [(f.completed, f.problem) for f in mira.facts] == on_mira
    whole = " ".join(HANDLED.split()) if cut.startswith("Quillstore") else \
        "Two years after the move, we measured again. " + " ".join(HANDLED.split())
    assert [(f.text, f.anchored) for f in quillstore.facts] == [(whole, True)]


SYNC = ("# How Brightline syncs\n\nBrightline uses Quillstore as its local cache on every device. Since Quillstore "
        "2.0 allows several writer processes, the Brightline agent writes to the same file as the app itself.\n")
_BOTH = ("Brightline uses Quillstore as its local cache on every device. Since Quillstore 2.0 allows several writer "
         "processes, the Brightline agent writes to the same file as the app itself.")


def test_a_claim_beside_its_own_quote_stated_word_for_word_is_said_once() -> None:
    # what Qwen2.5-Coder-1.5B proposed for Quillstore: a narrowed retelling of a quote, and the quote itself
    retold = Fact("Quillstore is a local cache on every device. Since Quillstore 2.0 allows several writer "
                  "processes, the Brightline agent writes to the same file as the app itself.", _BOTH)
    plan = Plan("raw/articles/sync.md", "", (Entity("Quillstore", "product", (), "", (
        retold, Fact(_BOTH, _BOTH + " "), Fact("Quillstore 2.0 allows several writer processes.", _BOTH.split(". ")[1]),
    )),), (), (), ())
    facts = anchor_plan(plan, SYNC).entities[0].facts
    # the retelling goes, and so does the claim of a quote the verbatim one holds whole
    assert [f.text for f in facts if f.anchored] == [_BOTH]
    # without the verbatim claim, the retelling is the claim of that quote
    alone = replace(plan, entities=(replace(plan.entities[0], facts=(retold,)),))
    assert [f.text for f in anchor_plan(alone, SYNC).entities[0].facts] == [retold.text]


def test_a_summary_that_is_part_of_a_sentence_is_the_sentence_and_no_second_claim() -> None:
    # the two-pass strategy makes an entity's summary its first claim's text: cut off inside a sentence too
    cut = ("Two years after the move, we measured again. Quillstore handled 25,000 writes per second on the same "
           "load test,")
    plan = Plan("raw/articles/two-years.md", "", (Entity("Quillstore", "product", (), cut, (Fact(cut, cut),)),),
                (), (), ())
    quillstore = anchor_plan(plan, TWO_YEARS).entities[0]
    whole = "Two years after the move, we measured again. " + " ".join(HANDLED.split())
    assert quillstore.summary == whole
    assert [(f.text, f.anchor and (f.anchor.start_line, f.anchor.end_line)) for f in quillstore.facts] == [
        (whole, (6, 7))]


def test_a_sentence_that_is_its_own_claim_and_part_of_a_longer_one_is_said_once() -> None:
    # Qwen2.5-Coder-1.5B's cut claims, completed: the second sentence alone, and both sentences
    first = "Two years after the move, we measured again. Quillstore handled 25,000 writes per second on the same " \
            "load test,"
    rest = "now with encryption at rest turned on."
    other = "Quillstore still keeps the whole database in a single file on disk, and backups are still a file copy."
    plan = Plan("raw/articles/two-years.md", "", (Entity("Quillstore", "product", (), "", (
        Fact(rest, rest), Fact(first, first), Fact(other, other), Fact(other, other))),), (), (), ())
    facts = anchor_plan(plan, TWO_YEARS).entities[0].facts
    assert [f.text for f in facts if f.anchored] == [
        "Two years after the move, we measured again. " + " ".join(HANDLED.split()), other]
