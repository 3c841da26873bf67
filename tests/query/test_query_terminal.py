"""`wikic query` streams an answer holding an escape sequence (a model told to by a hostile source) with the
sequence written out, never run by the terminal; `--json` keeps the answer's exact text."""

from __future__ import annotations

from querykit import QueryWiki, as_json

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: puts "rm -rf ~" on the clipboard
ANSWER = f"Sam Altman is the CEO of OpenAI [[openai]]. {CLIPBOARD}Done."


def test_an_answer_with_an_escape_sequence_is_shown_written_out(wiki: QueryWiki) -> None:
    wiki.answer_with(ANSWER)
    result = wiki.cli("query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert result.stdout.strip().endswith("\\x1b]52;c;cm0gLXJmIH4=\\x07Done.")


def test_json_keeps_the_answer_as_the_model_wrote_it(wiki: QueryWiki) -> None:
    wiki.answer_with(ANSWER)
    result = wiki.cli("query", "Who is the CEO of OpenAI?", "--json")
    assert result.exit_code == 0 and "\x1b" not in result.stdout
    assert CLIPBOARD in as_json(result.stdout)["answer"]
