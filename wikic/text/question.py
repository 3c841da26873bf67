"""The one bound on what is asked: a search query, a question, a recall. A question is not a document (longer
text belongs in raw/, through ingest), and every step of a search grows with it (the embedding, the BM25
terms, the title matches): a query of megabytes took tens of seconds and a gigabyte to answer."""

from __future__ import annotations

from wikic.errors import UsageError

MAX_QUESTION_CHARS = 4000  # counted with each run of whitespace as one space


def bounded_question(text: str, what: str = "question") -> str:
    """`text` unchanged, or UsageError (exit 2) when it is longer than MAX_QUESTION_CHARS; the message gives its
    length, never the text."""
    if len(text) > MAX_QUESTION_CHARS:
        length = len(" ".join(text.split()))
        if length > MAX_QUESTION_CHARS:
            raise UsageError(
                f"the {what} is {length:,} characters long (at most {MAX_QUESTION_CHARS:,})",
                hint="ask something shorter; to add a long text to the wiki, ingest it as a source",
            )
    return text
