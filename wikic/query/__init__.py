"""Questions answered from the wiki: retrieval from the palace, a cited answer, write-back as a query page.

    from wikic.query import QueryOptions, answer_question, save_answer, refresh_query

    result = answer_question(vault, "Who leads OpenAI?", QueryOptions(), on_text=print)
    saved = save_answer(vault, result)               # queries/who-leads-openai.md, index.md, log.md, palace
    refreshed = refresh_query(vault, "queries/who-leads-openai.md", QueryOptions())

Modules: `retrieve.py` (context within a token budget; pages first, raw passages where pages fall short),
`answer.py` (prompt, streaming, the citation check), `citations.py` (the check itself, also on a stream),
`attribution.py` (which context item an answer's sentence copies, so that it cites that item), `quotes.py`
(the context's own sentences, quoted when the model declines), `writeback.py` (plans a query page, its
"Asked about" blocks, its index.md entry and log row, and hands them to `wikic.pages`). What a query page
records about the pages it cites is `wikic/pages/fingerprint.py`'s.

Query, in detail:

`retrieve.py` fills a token budget from palace hits (pages first, raw passages only when the pages do not
cover the question; earlier query pages are never context) and decides relevance in code, so an
unanswerable question never reaches the model. `answer.py` streams the model's answer (or, when nothing
shows it as it comes, asks for it in one piece) through `citations.py`, which checks each `[[link]]`
against the context as it arrives and reads each sentence as it ends against the context's sentences
(`attribution.py`): a sentence copied from a context item cites that item, and the links inside the copied
words are the page's, not citations. When the model declines, `quotes.py` picks the context's sentences
that match the question (its names, its words, a figure where it asks for one) and the reply quotes them,
cited, with status `quoted`; they are never filed. `writeback.py` plans a query page with fingerprints of the cited
pages
(`pages/fingerprint.py`), their "Asked about" blocks, its index.md entry and log row (or the refresh of a
stale page in place), and hands them to `pages`. The MCP server's tools are thin adapters over these
functions and the ingest, lint and palace APIs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wikic.query.answer import QueryOptions, QueryResult, answer_question, generate_answer
from wikic.query.retrieve import ContextItem, Retrieval, retrieve

if TYPE_CHECKING:
    from wikic.query.writeback import SavedQuery, refresh_query, save_answer

__all__ = [
    "ContextItem",
    "QueryOptions",
    "QueryResult",
    "Retrieval",
    "SavedQuery",
    "answer_question",
    "generate_answer",
    "refresh_query",
    "retrieve",
    "save_answer",
]

_WRITEBACK = ("SavedQuery", "refresh_query", "save_answer")


def __getattr__(name: str) -> Any:
    """The write-back names are imported when first asked for: answering alone does not need them."""
    if name in _WRITEBACK:
        from wikic.query import writeback

        return getattr(writeback, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
