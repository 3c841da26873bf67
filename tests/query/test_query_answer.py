"""`wikic query` end to end: real openai client -> stand-in server over HTTP (streaming) -> checked answer."""

from __future__ import annotations

import time

from library import answer_question
from querykit import QueryWiki, as_json, context_of, question_of
from standin_openai import StandinServer, reply

from wikic.query.answer import GENERAL_MARK, QueryOptions


def test_answer_streams_in_pieces_with_checked_citations(wiki: QueryWiki) -> None:
    wiki.answer_with("Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. "
                     "It has [[ten-thousand-employees]] and see ![[gpt-4]].")
    wiki.answer_delay = 0.05
    received: list[tuple[float, str]] = []
    start = time.monotonic()
    result = answer_question(wiki.root, "Who is the CEO of OpenAI?",
                             on_text=lambda piece: received.append((time.monotonic() - start, piece)))

    # streamed: many pieces, the first long before the last
    assert len(received) >= 8
    assert received[-1][0] - received[0][0] > 0.3
    assert "".join(p for _, p in received).strip() == result.answer
    # checked: context pages stay links, the invented one is unlinked, the embed became a plain link
    assert result.status == "answered"
    assert [c.path for c in result.citations] == ["entities/openai.md", "entities/sam-altman.md", "entities/gpt-4.md"]
    assert "[[ten-thousand-employees]]" not in result.answer and "ten-thousand-employees" in result.answer
    assert "![[" not in result.answer and "[[gpt-4]]" in result.answer
    assert result.rejected == ["[[ten-thousand-employees]]"]
    assert any("not in the context" in w for w in result.warnings)
    # tokens as the server reported them in the final usage chunk
    assert (result.prompt_tokens, result.completion_tokens) == (321, 45)

    body = wiki.answer_requests()[-1]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert "response_format" not in body
    assert "[[openai]] — wiki page" in context_of(body)
    assert question_of(body) == "Who is the CEO of OpenAI?"


def test_cli_prints_the_answer_then_sources_and_tokens(wiki: QueryWiki) -> None:
    result = wiki.cli("query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == ("Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. "
                                     "GPT-4 came out in March 2023 [[gpt-4]].")
    assert "Cited: [[openai]] (entities/openai.md)" in result.stderr
    assert "366 tokens" in result.stderr
    assert not (wiki.root / "queries").exists() or not list((wiki.root / "queries").glob("*.md"))  # not filed


def test_json_has_answer_citations_retrieved_pages_and_tokens(wiki: QueryWiki) -> None:
    result = wiki.cli("query", "Who is the CEO of OpenAI?", "--json")
    assert result.exit_code == 0
    data = as_json(result.stdout)
    assert data["status"] == "answered"
    assert data["answer"].startswith("Sam Altman is the CEO")
    assert [c["link"] for c in data["citations"]] == ["[[openai]]", "[[sam-altman]]", "[[gpt-4]]"]
    context = data["retrieved"]["context"]
    assert {c["path"] for c in context} >= {"entities/openai.md", "entities/sam-altman.md"}
    assert all(c["tokens"] > 0 for c in context)
    assert data["retrieved"]["context_tokens"] <= data["retrieved"]["budget"]
    assert data["tokens"] == {"prompt": 321, "completion": 45, "total": 366}
    assert data["saved"] is None


def test_raw_passage_is_context_when_no_page_covers_the_question(wiki: QueryWiki) -> None:
    result = wiki.cli("query", "When was Anthropic founded?", "--json")
    data = as_json(result.stdout)
    assert result.exit_code == 0, data
    raw = [c for c in data["retrieved"]["context"] if c["kind"] == "raw"]
    assert [c["path"] for c in raw][:1] == ["raw/articles/anthropic-notes.md"]
    assert raw[0]["lines"][0] >= 1
    assert "Anthropic was founded in 2021" in context_of(wiki.answer_requests()[-1])
    assert data["citations"] == [
        {
            "path": "raw/articles/anthropic-notes.md",
            "link": "[[raw/articles/anthropic-notes.md]]",
            "kind": "raw",
            "title": "Anthropic notes",
        }
    ]


def test_context_stays_within_the_token_budget(wiki: QueryWiki) -> None:
    data = as_json(wiki.cli("query", "Who is the CEO of OpenAI and what is GPT-4?", "--json", "--budget", "200").stdout)
    assert 0 < data["retrieved"]["context_tokens"] <= 200
    assert data["retrieved"]["over_budget"]


def test_nothing_relevant_means_no_model_call_and_a_clear_no(wiki: QueryWiki) -> None:
    result = wiki.cli("query", "How long should sourdough bread proof?")
    assert result.exit_code == 1
    assert "Nothing in the wiki matches" in result.stdout and "--allow-general" in result.stdout
    assert wiki.server.chat_requests() == []


def test_model_finding_no_answer_in_its_context_says_so(wiki: QueryWiki) -> None:
    wiki.answer_with("NOT_IN_WIKI")
    result = wiki.cli("query", "What is OpenAI's revenue?", "--save")
    assert result.exit_code == 1
    assert "does not answer" in result.stdout and "NOT_IN_WIKI" not in result.stdout
    assert "Not filed" in result.stderr
    assert not list((wiki.root / "queries").glob("*.md"))


def test_allow_general_answers_from_the_model_and_marks_it(wiki: QueryWiki) -> None:
    wiki.answer_with(lambda body: "NOT_IN_WIKI" if "<context>" in body["messages"][-1]["content"]
                     else "Proof it for 4 to 12 hours [[made-up]].")
    # nothing relevant: the model is asked once, without context
    result = wiki.cli("query", "How long should sourdough bread proof?", "--allow-general", "--save")
    assert result.stdout.startswith(GENERAL_MARK.strip())
    assert "Proof it for 4 to 12 hours made-up." in result.stdout  # no links in a general answer
    assert "Not filed: a general-knowledge answer" in result.stderr
    assert result.exit_code == 1  # --save was asked for and nothing was filed
    assert len(wiki.answer_requests()) == 1 and "<context>" not in wiki.answer_requests()[0]["messages"][-1]["content"]
    # relevant pages that do not answer: the model says so first, then answers generally
    data = as_json(wiki.cli("query", "What is OpenAI's revenue?", "--allow-general", "--json").stdout)
    assert data["status"] == "general" and data["answer"].startswith(GENERAL_MARK)
    assert data["citations"] == [] and data["calls"] == 2
    assert "<context>" in wiki.answer_requests()[1]["messages"][-1]["content"]


def test_an_answer_is_paid_for_once(wiki: QueryWiki) -> None:
    first = answer_question(wiki.root, "Who is the CEO of OpenAI?")
    second = answer_question(wiki.root, "Who is the CEO of OpenAI?")
    assert len(wiki.answer_requests()) == 1
    assert second.cached and second.tokens == 0 and second.answer == first.answer
    third = answer_question(wiki.root, "Who is the CEO of OpenAI?", QueryOptions(use_cache=False))
    assert not third.cached and len(wiki.answer_requests()) == 2


def test_server_refusing_stream_options_is_asked_again_without(tmp_path, template_vault) -> None:
    with StandinServer(reject_stream_options=True) as server:
        wiki = QueryWiki.copy(template_vault, tmp_path / "wiki", server)
        shown: list[str] = []
        result = answer_question(wiki.root, "Who is the CEO of OpenAI?", on_text=shown.append)
        assert result.answered and result.tokens > 0  # estimated: the server sent no usage
        again = answer_question(wiki.root, "Who leads OpenAI?", on_text=shown.append)
        assert again.answered
        sent = [("stream_options" in r.body) for r in server.chat_requests()]
        assert sent == [True, False, False]  # refused once, then remembered for this endpoint and model


CHECKED = ("Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. It has ten-thousand-employees "
           "and see [[gpt-4]].")


def test_a_server_that_ignores_stream_still_answers_with_checked_citations(tmp_path, template_vault) -> None:
    with StandinServer(ignore_stream=True) as server:  # one plain JSON completion for `stream: true`
        wiki = QueryWiki.copy(template_vault, tmp_path / "wiki", server)
        wiki.answer_with("Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. "
                         "It has [[ten-thousand-employees]] and see ![[gpt-4]].")
        result = wiki.cli("query", "Who is the CEO of OpenAI?")
        assert result.exit_code == 0, result.stderr
        assert result.stdout.strip() == CHECKED
        assert "Cited: [[openai]] (entities/openai.md), [[sam-altman]] (entities/sam-altman.md)" in result.stderr
        assert "1 link(s) removed: not in the context ([[ten-thousand-employees]])" in result.stderr
        assert "366 tokens" in result.stderr  # the whole reply's usage
        assert wiki.answer_requests()[-1]["stream"] is True


def test_json_output_asks_for_the_answer_in_one_piece_checked_as_a_stream_is(wiki: QueryWiki) -> None:
    wiki.answer_with("Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. "
                     "It has [[ten-thousand-employees]] and see ![[gpt-4]].")
    data = as_json(wiki.cli("query", "Who is the CEO of OpenAI?", "--json").stdout)
    body = wiki.answer_requests()[-1]
    assert not body.get("stream") and "stream_options" not in body
    assert data["answer"] == CHECKED
    assert [c["link"] for c in data["citations"]] == ["[[openai]]", "[[sam-altman]]", "[[gpt-4]]"]
    assert data["rejected_citations"] == ["[[ten-thousand-employees]]"]
    assert data["tokens"] == {"prompt": 321, "completion": 45, "total": 366}
    # the same reply streamed gives the same checked answer
    streamed = wiki.cli("query", "Who is the CEO of OpenAI?", "--no-cache")
    assert streamed.stdout.strip() == CHECKED and wiki.answer_requests()[-1]["stream"] is True


def test_a_stream_that_breaks_off_is_an_error_and_nothing_is_filed(wiki: QueryWiki) -> None:
    wiki.answer_with(lambda body: reply("Sam Altman is the CEO of OpenAI [[openai]].", break_after=3))
    result = wiki.cli("query", "Who is the CEO of OpenAI?", "--save")
    assert result.exit_code == 1
    assert "stream ended before the model finished" in result.stderr
    assert not list((wiki.root / "queries").glob("*.md"))


def test_thinking_blocks_are_not_part_of_the_answer(wiki: QueryWiki) -> None:
    wiki.answer_with("<think>The context says Sam Altman.</think>\n\nSam Altman [[sam-altman]].")
    result = answer_question(wiki.root, "Who is the CEO of OpenAI?")
    assert result.answer == "Sam Altman [[sam-altman]]."


def test_the_model_sees_claim_anchors_without_their_link_syntax(wiki: QueryWiki) -> None:
    # pages cite their raw lines with a link to the raw file...
    assert "^[[[raw/articles/openai-overview.md|openai-overview.md]] L3]" in wiki.read("entities/openai.md")
    assert wiki.cli("query", "Who is the CEO of OpenAI?").exit_code == 0
    # ...which the model is not shown as a link: it may cite only the context's own items
    context = context_of(wiki.answer_requests()[-1])
    assert "^[raw/articles/openai-overview.md:L3]" in context
    assert "^[[[" not in context and "[[raw/" not in context
